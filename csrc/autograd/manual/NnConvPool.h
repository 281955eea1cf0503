// Hand-written backward helpers for the NnConvPool area (issue 10), declared for the
// generated autograd files; definitions in manual/NnConvPool.cpp.
//
// Every helper is written over operators (convolution, _convolution_weight_grad,
// _pool_scatter, _adaptive_avg_pool_nd, im2col ...), each with its own derivative,
// so gradients of gradients work (create_graph=True).
#pragma once
#include "autograd/FunctionsManual.h"

namespace torchlike::autograd::generated {
// aten::convolution: gradient for the input (a transposed convolution of grad for a
// plain one, a plain convolution for a transposed one), the weight and the bias.
at::TensorBase convolution_backward_input(const at::TensorBase& grad, at::IntArrayRef input_sizes, const at::TensorBase& weight, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, at::IntArrayRef output_padding, int64_t groups);
at::TensorBase convolution_backward_weight(const at::TensorBase& grad, const at::TensorBase& input, at::IntArrayRef weight_sizes, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, int64_t groups);
at::TensorBase convolution_backward_bias(const at::TensorBase& grad);
// _convolution_weight_grad(grad_output, input) is bilinear: its gradients are the
// forward convolution of input by grad and the input-gradient of grad_output by grad.
at::TensorBase conv_weight_grad_backward_grad_output(const at::TensorBase& grad, const at::TensorBase& input, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);
at::TensorBase conv_weight_grad_backward_input(const at::TensorBase& grad, const at::TensorBase& grad_output, at::IntArrayRef input_sizes, at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, int64_t groups);
// Max pooling (and _pool_gather): grad scattered back to the positions in indices.
at::TensorBase pool_indices_backward(const at::TensorBase& grad, const at::TensorBase& indices, at::IntArrayRef self_sizes);
// _adaptive_avg_pool_nd_backward is linear: its gradient is the adaptive pool of grad.
at::TensorBase adaptive_avg_pool_double_backward(const at::TensorBase& grad, at::IntArrayRef grad_output_sizes);
// im2col's gradient is col2im back to the input's spatial size.
at::TensorBase im2col_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, at::IntArrayRef kernel_size, at::IntArrayRef dilation, at::IntArrayRef padding, at::IntArrayRef stride);
}  // namespace torchlike::autograd::generated
