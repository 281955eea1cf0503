// nll_loss on Meta: the same checks and result shapes as the CPU kernels.
#include <optional>
#include <tuple>

#include "../NnActLoss.h"

namespace at::native {

std::tuple<TensorBase, TensorBase> nll_loss_forward_meta(const TensorBase& self, const TensorBase& target,
                                                         const std::optional<TensorBase>& weight_arg, int64_t reduction,
                                                         int64_t /*ignore_index*/) {
  const std::optional<TensorBase> weight = nll_weight(weight_arg);
  NllLossPlan p = nll_loss_plan(self, target, weight, reduction);
  TensorBase out = p.reduction == LossReduction::None ? make_empty(p.target_sizes, self.options())
                                                      : make_empty({}, self.options());
  return {out, make_empty({}, self.options())};
}

TensorBase nll_loss_backward_meta(const TensorBase& /*grad_output*/, const TensorBase& self, const TensorBase& target,
                                  const std::optional<TensorBase>& weight_arg, int64_t reduction, int64_t /*ignore_index*/,
                                  const TensorBase& /*total_weight*/) {
  const std::optional<TensorBase> weight = nll_weight(weight_arg);
  nll_loss_plan(self, target, weight, reduction);
  return make_empty(self.sizes(), self.options());
}

}  // namespace at::native
