// The fused norm backward kernels of cpu/NnNorm.cpp as dispatcher ops
// (_native_layer_norm_backward, _native_batch_norm_backward), so the
// autograd helpers reach each device's kernel the same way (issue 13: CUDA
// registers its own in cuda/Norm.cu).
#include <array>
#include <optional>
#include <tuple>

#include "../NnNorm.h"
#include "ops/_native_batch_norm_backward.h"
#include "ops/_native_layer_norm_backward.h"

namespace at::native {

namespace {
inline TensorBase opt(const std::optional<TensorBase>& t) { return t && t->defined() ? *t : TensorBase(); }
}  // namespace

std::tuple<TensorBase, TensorBase, TensorBase> native_layer_norm_backward_cpu(
    const TensorBase& grad_out, const TensorBase& input, IntArrayRef normalized_shape, const TensorBase& mean,
    const TensorBase& rstd, const std::optional<TensorBase>& weight, const std::optional<TensorBase>& bias,
    bool input_grad, bool weight_grad, bool bias_grad) {
  (void)bias;
  return layer_norm_backward_cpu(grad_out, input, normalized_shape, mean, rstd, opt(weight),
                                 {input_grad, weight_grad, bias_grad});
}

std::tuple<TensorBase, TensorBase, TensorBase> native_batch_norm_backward_cpu(
    const TensorBase& grad_out, const TensorBase& input, const std::optional<TensorBase>& weight,
    const std::optional<TensorBase>& running_mean, const std::optional<TensorBase>& running_var,
    const std::optional<TensorBase>& save_mean, const std::optional<TensorBase>& save_invstd, bool train, double eps,
    bool input_grad, bool weight_grad, bool bias_grad) {
  return batch_norm_backward_cpu(grad_out, input, opt(weight), opt(running_mean), opt(running_var), opt(save_mean),
                                 opt(save_invstd), train, eps, {input_grad, weight_grad, bias_grad});
}

}  // namespace at::native
