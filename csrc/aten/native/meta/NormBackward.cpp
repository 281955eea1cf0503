// Meta kernels of the fused norm backward ops (cpu/NormBackwardOps.cpp):
// the gradients' shapes and dtypes, no values.
#include <optional>
#include <tuple>

#include "../NnNorm.h"
#include "ops/_native_batch_norm_backward.h"
#include "ops/_native_layer_norm_backward.h"

namespace at::native {

namespace {
// A parameter gradient takes the parameter's dtype, or the input's when the
// op has no weight (the CPU kernels' rule).
TensorOptions param_options(const TensorBase& input, const std::optional<TensorBase>& weight) {
  return input.options().with_dtype(weight && weight->defined() ? weight->scalar_type() : input.scalar_type());
}
}  // namespace

std::tuple<TensorBase, TensorBase, TensorBase> native_layer_norm_backward_meta(
    const TensorBase& grad_out, const TensorBase& input, IntArrayRef normalized_shape, const TensorBase& mean,
    const TensorBase& rstd, const std::optional<TensorBase>& weight, const std::optional<TensorBase>& bias,
    bool input_grad, bool weight_grad, bool bias_grad) {
  (void)mean;
  (void)rstd;
  (void)bias;
  layer_norm_plan(input, normalized_shape, weight && weight->defined() ? weight : std::nullopt, std::nullopt);
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: grad_out has shape ", grad_out.sizes(),
           ", expected ", input.sizes());
  const bool has_w = weight && weight->defined();
  return {input_grad ? make_empty(input.sizes(), input.options()) : TensorBase(),
          weight_grad && has_w ? make_empty(normalized_shape, param_options(input, weight)) : TensorBase(),
          bias_grad ? make_empty(normalized_shape, param_options(input, weight)) : TensorBase()};
}

std::tuple<TensorBase, TensorBase, TensorBase> native_batch_norm_backward_meta(
    const TensorBase& grad_out, const TensorBase& input, const std::optional<TensorBase>& weight,
    const std::optional<TensorBase>& running_mean, const std::optional<TensorBase>& running_var,
    const std::optional<TensorBase>& save_mean, const std::optional<TensorBase>& save_invstd, bool train, double eps,
    bool input_grad, bool weight_grad, bool bias_grad) {
  (void)running_mean;
  (void)running_var;
  (void)save_mean;
  (void)save_invstd;
  (void)train;
  (void)eps;
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_batch_norm_backward: grad_out has shape ", grad_out.sizes(),
           ", expected ", input.sizes());
  TL_CHECK(input.dim() >= 2, "native_batch_norm_backward: expected an input of at least 2 dims, got ", input.dim());
  const int64_t C = input.sizes()[1];
  const bool has_w = weight && weight->defined();
  return {input_grad ? make_empty(input.sizes(), input.options()) : TensorBase(),
          weight_grad && has_w ? make_empty(IntArrayRef{C}, param_options(input, weight)) : TensorBase(),
          bias_grad ? make_empty(IntArrayRef{C}, param_options(input, weight)) : TensorBase()};
}

}  // namespace at::native
