#include "CtcLoss.h"

#include <algorithm>

#include "c10/Exception.h"

namespace at::native {

CtcPlan ctc_loss_plan(const TensorBase& log_probs, const TensorBase& targets, IntArrayRef input_lengths,
                      IntArrayRef target_lengths, int64_t blank) {
  TL_CHECK(log_probs.dim() == 3, "ctc_loss: expected log_probs of shape (T, N, C), got ", log_probs.dim(),
           "-D input");
  TL_CHECK(c10::isFloatingType(log_probs.scalar_type()), "ctc_loss: log_probs must be floating point, got ",
           c10::toString(log_probs.scalar_type()));
  TL_CHECK(targets.scalar_type() == ScalarType::Long || targets.scalar_type() == ScalarType::Int,
           "ctc_loss: targets must be int64 or int32, got ", c10::toString(targets.scalar_type()));
  CtcPlan p;
  p.max_time = log_probs.size(0);
  p.batch = log_probs.size(1);
  p.classes = log_probs.size(2);
  TL_CHECK(blank >= 0 && blank < p.classes, "ctc_loss: blank must be in label range, got blank=", blank, " for ",
           p.classes, " classes");
  TL_CHECK((int64_t)input_lengths.size() == p.batch, "ctc_loss: input_lengths must be of size batch_size (", p.batch,
           "), got ", input_lengths.size());
  TL_CHECK((int64_t)target_lengths.size() == p.batch, "ctc_loss: target_lengths must be of size batch_size (",
           p.batch, "), got ", target_lengths.size());
  for (int64_t n = 0; n < p.batch; ++n) {
    TL_CHECK(input_lengths[n] >= 0 && input_lengths[n] <= p.max_time, "ctc_loss: Expected input_lengths to have value at most ",
             p.max_time, ", but got value ", input_lengths[n], " (while checking arguments for ctc_loss_cpu)");
    TL_CHECK(target_lengths[n] >= 0, "ctc_loss: target_lengths must be non-negative, got ", target_lengths[n]);
  }
  p.target_offsets.resize(p.batch);
  if (targets.dim() == 1) {
    p.padded_targets = false;
    int64_t pos = 0;
    for (int64_t n = 0; n < p.batch; ++n) {
      p.target_offsets[n] = pos;
      pos += target_lengths[n];
      p.max_target = std::max(p.max_target, target_lengths[n]);
    }
    TL_CHECK(pos <= targets.size(0), "ctc_loss: concatenated targets have ", targets.size(0),
             " labels but target_lengths add up to ", pos);
  } else {
    TL_CHECK(targets.dim() == 2 && targets.size(0) == p.batch, "ctc_loss: expected targets of shape (N, S) with N=",
             p.batch, " or 1-D concatenated targets");
    p.target_stride = targets.size(1);
    p.max_target = targets.size(1);
    for (int64_t n = 0; n < p.batch; ++n) {
      TL_CHECK(target_lengths[n] <= p.target_stride, "ctc_loss: Expected tensor to have size at least ",
               target_lengths[n], " at dimension 1, but got size ", p.target_stride, " for argument #2 'targets'");
      p.target_offsets[n] = n * p.target_stride;
    }
  }
  return p;
}

}  // namespace at::native
