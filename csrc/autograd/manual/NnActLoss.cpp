// Backward helpers for activations and losses (declared in NnActLoss.h).
#include "autograd/manual/NnActLoss.h"

#include <tuple>

#include "ops/nll_loss_forward.h"

namespace torchlike::autograd::generated {

at::TensorBase nll_loss_backward_grad_output(const at::TensorBase& grad, const at::TensorBase& target,
                                             const std::optional<at::TensorBase>& weight, int64_t reduction,
                                             int64_t ignore_index) {
  return std::get<0>(at::_ops::nll_loss_forward(grad, target, weight, reduction, ignore_index));
}

}  // namespace torchlike::autograd::generated
