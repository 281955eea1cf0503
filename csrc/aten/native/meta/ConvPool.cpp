// Meta kernels for convolution, pooling and im2col/col2im: the CPU kernels'
// checks (ConvPool.h), then empty results of the right shape and dtype.
#include <tuple>

#include "../ConvPool.h"
#include "ops/_adaptive_avg_pool_nd.h"
#include "ops/_adaptive_avg_pool_nd_backward.h"
#include "ops/_adaptive_max_pool_nd.h"
#include "ops/_avg_pool_nd.h"
#include "ops/_avg_pool_nd_backward.h"
#include "ops/_convolution_weight_grad.h"
#include "ops/_max_pool_nd.h"
#include "ops/_pool_gather.h"
#include "ops/_pool_scatter.h"
#include "ops/col2im.h"
#include "ops/convolution.h"
#include "ops/im2col.h"

namespace at::native {

TensorBase convolution_meta(const TensorBase& input, const TensorBase& weight, const std::optional<TensorBase>& bias,
                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                            IntArrayRef output_padding, int64_t groups) {
  std::vector<int64_t> out =
      convolution_output_sizes(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  return make_empty(IntArrayRef(out), input.options());
}

TensorBase convolution_weight_grad_meta(const TensorBase& grad_output, const TensorBase& input,
                                        IntArrayRef weight_size, IntArrayRef stride, IntArrayRef padding,
                                        IntArrayRef dilation, int64_t groups) {
  check_convolution_weight_grad(grad_output, input, weight_size, stride, padding, dilation, groups);
  return make_empty(weight_size, input.options());
}

std::tuple<TensorBase, TensorBase> max_pool_nd_meta(const TensorBase& self, IntArrayRef kernel_size,
                                                    IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                                    bool ceil_mode) {
  PoolArgs a;
  std::vector<int64_t> out =
      max_pool_output_sizes("max_pool", self, kernel_size, stride, padding, dilation, ceil_mode, &a);
  return {make_empty(IntArrayRef(out), self.options()),
          make_empty(IntArrayRef(out), self.options().with_dtype(ScalarType::Long))};
}

std::tuple<TensorBase, TensorBase> adaptive_max_pool_nd_meta(const TensorBase& self, IntArrayRef output_size) {
  std::vector<int64_t> out = adaptive_pool_output_sizes("adaptive_max_pool", self, output_size);
  return {make_empty(IntArrayRef(out), self.options()),
          make_empty(IntArrayRef(out), self.options().with_dtype(ScalarType::Long))};
}

TensorBase avg_pool_nd_meta(const TensorBase& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                            bool ceil_mode, bool, std::optional<int64_t> divisor_override) {
  PoolArgs a;
  std::vector<int64_t> out =
      avg_pool_output_sizes("avg_pool", self, kernel_size, stride, padding, ceil_mode, divisor_override, &a);
  return make_empty(IntArrayRef(out), self.options());
}

TensorBase avg_pool_nd_backward_meta(const TensorBase& grad_output, IntArrayRef input_size, IntArrayRef kernel_size,
                                     IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool,
                                     std::optional<int64_t> divisor_override) {
  PoolArgs a;
  TensorBase shape_only = make_empty(input_size, grad_output.options());
  std::vector<int64_t> out =
      avg_pool_output_sizes("avg_pool_backward", shape_only, kernel_size, stride, padding, ceil_mode,
                            divisor_override, &a);
  TL_CHECK(grad_output.sizes() == IntArrayRef(out), "avg_pool_backward: expected grad_output of size [",
           shape_text(IntArrayRef(out), ", "), "], but got [", shape_text(grad_output.sizes(), ", "), "]");
  return shape_only;
}

TensorBase adaptive_avg_pool_nd_meta(const TensorBase& self, IntArrayRef output_size) {
  return make_empty(IntArrayRef(adaptive_pool_output_sizes("adaptive_avg_pool", self, output_size)), self.options());
}

TensorBase adaptive_avg_pool_nd_backward_meta(const TensorBase& grad_output, IntArrayRef input_size) {
  TL_CHECK(grad_output.dim() == (int64_t)input_size.size() && grad_output.dim() >= 3 && grad_output.dim() <= 5,
           "adaptive_avg_pool_backward: grad_output [", shape_text(grad_output.sizes(), ", "),
           "] does not match input_size [", shape_text(input_size, ", "), "]");
  return make_empty(input_size, grad_output.options());
}

TensorBase pool_scatter_meta(const TensorBase& src, const TensorBase& indices, IntArrayRef input_size, bool) {
  check_pool_indices("_pool_scatter", src, indices);
  TL_CHECK((int64_t)input_size.size() == src.dim(), "_pool_scatter: output size [", shape_text(input_size, ", "),
           "] does not match values [", shape_text(src.sizes(), ", "), "]");
  return make_empty(input_size, src.options());
}

TensorBase pool_gather_meta(const TensorBase& self, const TensorBase& indices) {
  TL_CHECK(indices.scalar_type() == ScalarType::Long && self.dim() == indices.dim(),
           "_pool_gather: expected int64 indices with the input's number of dims");
  return make_empty(indices.sizes(), self.options());
}

TensorBase im2col_meta(const TensorBase& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                       IntArrayRef stride) {
  int64_t bh, bw;
  return make_empty(IntArrayRef(im2col_output_sizes(self, kernel_size, dilation, padding, stride, &bh, &bw)),
                    self.options());
}

TensorBase col2im_meta(const TensorBase& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                       IntArrayRef padding, IntArrayRef stride) {
  int64_t bh, bw;
  return make_empty(
      IntArrayRef(col2im_output_sizes(self, output_size, kernel_size, dilation, padding, stride, &bh, &bw)),
      self.options());
}

}  // namespace at::native
