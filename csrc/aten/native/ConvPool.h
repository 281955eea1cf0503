// Shared geometry and argument checks for the convolution, pooling and
// im2col/col2im kernels (CPU and Meta call the same checks, so both backends
// raise PyTorch's messages and agree on output shapes).
//
// Every kernel works on 3 spatial dims: a 1-d or 2-d problem is the 3-d one
// with leading spatial dims of extent 1 (kernel 1, stride 1, padding 0,
// dilation 1), so one set of loops serves conv1d/2d/3d and the pools. The
// per-element index math is TL_HOST_DEVICE so a CUDA backend reuses it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../../c10/Half.h"
#include "../../c10/Tensor.h"

namespace at::native {

// One sliding-window problem over a (D, H, W) plane: input extent, output
// extent, kernel, stride, padding (the same on both sides) and dilation.
struct Window3 {
  int64_t in[3];
  int64_t out[3];
  int64_t k[3];
  int64_t s[3];
  int64_t p[3];
  int64_t d[3];
  TL_HOST_DEVICE int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  TL_HOST_DEVICE int64_t out_numel() const { return out[0] * out[1] * out[2]; }
  TL_HOST_DEVICE int64_t k_numel() const { return k[0] * k[1] * k[2]; }
  // The input coordinate that kernel tap `kk` of output position `o` reads along dim `i`.
  TL_HOST_DEVICE int64_t in_coord(int i, int64_t o, int64_t kk) const { return o * s[i] - p[i] + kk * d[i]; }
};

// Builds a Window3 from per-dim lists of length `nd` (1..3) and the input's
// trailing `nd` extents, padding the leading dims with the identity window.
Window3 make_window(int64_t nd, IntArrayRef in_spatial, IntArrayRef out_spatial, IntArrayRef k, IntArrayRef s,
                    IntArrayRef p, IntArrayRef d);

// Floor/ceil-mode pooling output extent, PyTorch's pooling_output_shape.
int64_t pooling_output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode);

// ---------------------------------------------------------------- convolution

// Validates aten::convolution's arguments and returns the output sizes.
std::vector<int64_t> convolution_output_sizes(const TensorBase& input, const TensorBase& weight,
                                              const std::optional<TensorBase>& bias, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool transposed,
                                              IntArrayRef output_padding, int64_t groups);

// Checks for _convolution_weight_grad: grad_output (N, Cout, out...) and
// input (N, Cin, in...) of a non-transposed convolution with weight_size.
void check_convolution_weight_grad(const TensorBase& grad_output, const TensorBase& input, IntArrayRef weight_size,
                                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups);

// ---------------------------------------------------------------- pooling

// Normalised pooling arguments: per-dim lists of length nd.
struct PoolArgs {
  int64_t nd = 0;
  std::vector<int64_t> k, s, p, d;
};

// max/avg pooling: checks the input (N, C, spatial...) and the window arguments
// and returns the output sizes. `op` names the op in messages.
std::vector<int64_t> max_pool_output_sizes(const char* op, const TensorBase& self, IntArrayRef kernel_size,
                                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                           bool ceil_mode, PoolArgs* args);
std::vector<int64_t> avg_pool_output_sizes(const char* op, const TensorBase& self, IntArrayRef kernel_size,
                                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                           std::optional<int64_t> divisor_override, PoolArgs* args);
std::vector<int64_t> adaptive_pool_output_sizes(const char* op, const TensorBase& self, IntArrayRef output_size);

// The pool input must be (N, C, spatial...) with nd spatial dims, N*C*spatial allowed to be 0 only in N.
void check_pool_input(const char* op, const TensorBase& self, int64_t nd);

// _pool_scatter / _pool_gather: indices are int64 offsets into each (n, c) plane.
void check_pool_indices(const char* op, const TensorBase& values, const TensorBase& indices);

// im2col / col2im (F.unfold / F.fold): 2-d windows.
std::vector<int64_t> im2col_output_sizes(const TensorBase& self, IntArrayRef kernel_size, IntArrayRef dilation,
                                         IntArrayRef padding, IntArrayRef stride, int64_t* blocks_h,
                                         int64_t* blocks_w);
std::vector<int64_t> col2im_output_sizes(const TensorBase& self, IntArrayRef output_size, IntArrayRef kernel_size,
                                         IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride,
                                         int64_t* blocks_h, int64_t* blocks_w);

// Adaptive pooling window of output index o: [start, end) over an input of extent `in`.
TL_HOST_DEVICE inline int64_t adaptive_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
TL_HOST_DEVICE inline int64_t adaptive_end(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

// The "(a x b x c)" text PyTorch prints for shapes in pooling/conv messages.
std::string shape_text(IntArrayRef v, const char* sep = " x ");

}  // namespace at::native
