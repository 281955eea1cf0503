// Backward helpers for convolution, pooling and im2col (see NnConvPool.h).
#include "autograd/manual/NnConvPool.h"

#include <vector>

#include "ops/_adaptive_avg_pool_nd.h"
#include "ops/_convolution_weight_grad.h"
#include "ops/_pool_scatter.h"
#include "ops/col2im.h"
#include "ops/convolution.h"
#include "ops/slice.h"
#include "ops/sum.h"

namespace torchlike::autograd::generated {

namespace {
// t cut down to `sizes` along its spatial dims (2...). A transposed convolution
// whose output_padding is not below its stride (allowed when below the
// dilation) has outputs no input position reaches; the plain convolution that
// computes its gradients then yields those extra positions, which belong to
// no input element.
at::TensorBase crop_spatial(at::TensorBase t, at::IntArrayRef sizes) {
  for (int64_t d = 2; d < t.dim(); ++d)
    if (t.sizes()[d] > sizes[d]) t = at::_ops::slice(t, d, 0, sizes[d], 1);
  return t;
}
}  // namespace

at::TensorBase convolution_backward_input(const at::TensorBase& grad, at::IntArrayRef input_sizes,
                                          const at::TensorBase& weight, at::IntArrayRef stride,
                                          at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                                          at::IntArrayRef output_padding, int64_t groups) {
  (void)output_padding;
  const size_t nd = stride.size();
  if (!transposed) {
    // The adjoint of a plain convolution is the transposed one; output_padding
    // restores the input rows the strided windows never reached.
    std::vector<int64_t> op(nd);
    for (size_t i = 0; i < nd; ++i) {
      const int64_t k = weight.sizes()[2 + i];
      op[i] = input_sizes[2 + i] -
              ((grad.sizes()[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + 1);
    }
    return at::_ops::convolution(grad, weight, std::nullopt, stride, padding, dilation, true, op, groups);
  }
  std::vector<int64_t> zeros(nd, 0);
  return crop_spatial(
      at::_ops::convolution(grad, weight, std::nullopt, stride, padding, dilation, false, zeros, groups),
      input_sizes);
}

at::TensorBase convolution_backward_weight(const at::TensorBase& grad, const at::TensorBase& input,
                                           at::IntArrayRef weight_sizes, at::IntArrayRef stride,
                                           at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                                           int64_t groups) {
  // A transposed convolution input -> grad is the plain convolution grad -> input.
  if (!transposed)
    return at::_ops::_convolution_weight_grad(grad, input, weight_sizes, stride, padding, dilation, groups);
  return at::_ops::_convolution_weight_grad(input, grad, weight_sizes, stride, padding, dilation, groups);
}

at::TensorBase convolution_backward_bias(const at::TensorBase& grad) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < grad.dim(); ++d) dims.push_back(d);
  return at::_ops::sum(grad, at::IntArrayRef(dims), false, std::nullopt);
}

at::TensorBase conv_weight_grad_backward_grad_output(const at::TensorBase& grad, const at::TensorBase& input,
                                                     at::IntArrayRef stride, at::IntArrayRef padding,
                                                     at::IntArrayRef dilation, int64_t groups) {
  std::vector<int64_t> zeros(stride.size(), 0);
  // (For a transposed convolution with output_padding >= stride this has extra
  // trailing positions; the engine then rejects the second derivative's shape.)
  return at::_ops::convolution(input, grad, std::nullopt, stride, padding, dilation, false, zeros, groups);
}

at::TensorBase conv_weight_grad_backward_input(const at::TensorBase& grad, const at::TensorBase& grad_output,
                                               at::IntArrayRef input_sizes, at::IntArrayRef stride,
                                               at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups) {
  return convolution_backward_input(grad_output, input_sizes, grad, stride, padding, dilation, false, {}, groups);
}

at::TensorBase pool_indices_backward(const at::TensorBase& grad, const at::TensorBase& indices,
                                     at::IntArrayRef self_sizes) {
  return at::_ops::_pool_scatter(grad, indices, self_sizes, true);
}

at::TensorBase adaptive_avg_pool_double_backward(const at::TensorBase& grad, at::IntArrayRef grad_output_sizes) {
  return at::_ops::_adaptive_avg_pool_nd(grad, grad_output_sizes.slice(2));
}

at::TensorBase im2col_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, at::IntArrayRef kernel_size,
                               at::IntArrayRef dilation, at::IntArrayRef padding, at::IntArrayRef stride) {
  return at::_ops::col2im(grad, self_sizes.slice(self_sizes.size() - 2), kernel_size, dilation, padding, stride);
}

}  // namespace torchlike::autograd::generated
