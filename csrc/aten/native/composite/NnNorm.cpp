// layer_norm and batch_norm: PyTorch's public entry points, composites over
// the fused native_* kernels (which return the saved statistics too).
#include "../NnNorm.h"
#include "ops/batch_norm.h"
#include "ops/layer_norm.h"
#include "ops/native_batch_norm.h"
#include "ops/native_layer_norm.h"

namespace at::native {

TensorBase layer_norm(const TensorBase& input, IntArrayRef normalized_shape, const std::optional<TensorBase>& weight,
                      const std::optional<TensorBase>& bias, double eps, bool cudnn_enable) {
  (void)cudnn_enable;
  return std::get<0>(at::_ops::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

TensorBase batch_norm(const TensorBase& input, const std::optional<TensorBase>& weight,
                      const std::optional<TensorBase>& bias, const std::optional<TensorBase>& running_mean,
                      const std::optional<TensorBase>& running_var, bool training, double momentum, double eps,
                      bool cudnn_enabled) {
  (void)cudnn_enabled;
  return std::get<0>(at::_ops::native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                                                 eps));
}

}  // namespace at::native
