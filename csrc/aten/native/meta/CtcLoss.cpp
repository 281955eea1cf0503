// ctc_loss on Meta: the CPU kernels' checks and result shapes, without values.
#include <tuple>

#include "../CtcLoss.h"

namespace at::native {

static ScalarType ctc_alpha_dtype(ScalarType t) {
  return (t == ScalarType::Half || t == ScalarType::BFloat16) ? ScalarType::Float : t;
}

std::tuple<TensorBase, TensorBase> ctc_loss_meta(const TensorBase& log_probs, const TensorBase& targets,
                                                 IntArrayRef input_lengths, IntArrayRef target_lengths, int64_t blank,
                                                 bool /*zero_infinity*/) {
  CtcPlan p = ctc_loss_plan(log_probs, targets, input_lengths, target_lengths, blank);
  return {make_empty({p.batch}, log_probs.options()),
          make_empty({p.batch, p.max_time, 2 * p.max_target + 1},
                     log_probs.options().with_dtype(ctc_alpha_dtype(log_probs.scalar_type())))};
}

TensorBase ctc_loss_backward_meta(const TensorBase& /*grad*/, const TensorBase& log_probs, const TensorBase& targets,
                                  IntArrayRef input_lengths, IntArrayRef target_lengths,
                                  const TensorBase& /*neg_log_likelihood*/, const TensorBase& /*log_alpha*/,
                                  int64_t blank, bool /*zero_infinity*/) {
  ctc_loss_plan(log_probs, targets, input_lengths, target_lengths, blank);
  return make_empty(log_probs.sizes(), log_probs.options());
}

}  // namespace at::native
