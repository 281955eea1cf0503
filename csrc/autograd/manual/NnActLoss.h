// Hand-written backward helpers for the NnActLoss area (issue 10), declared for the
// generated autograd files; definitions in manual/NnActLoss.cpp.
#pragma once
#include <cstdint>
#include <optional>

#include "autograd/FunctionsManual.h"

namespace torchlike::autograd::generated {

// nll_loss_backward is linear in grad_output: its own derivative with respect
// to grad_output is nll_loss_forward applied to the incoming gradient.
at::TensorBase nll_loss_backward_grad_output(const at::TensorBase& grad, const at::TensorBase& target,
                                             const std::optional<at::TensorBase>& weight, int64_t reduction,
                                             int64_t ignore_index);

}  // namespace torchlike::autograd::generated
