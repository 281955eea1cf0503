// Convolution on CUDA without cuDNN: aten::convolution (1-d/2-d/3-d, plain or
// transposed, groups, stride, padding, dilation, output_padding) and
// _convolution_weight_grad, by im2col on the GPU plus cuBLAS GEMMs. The
// shapes follow cpu/Conv.cpp (every problem is 3-d, ConvPool.h's Window3);
// the per-element index math is CudaConvIndex.h's, tested on the CPU.
//
//   plain:      cols[n] (Cin*kvol, L) = vol2col(x[n]); y[n,g] = W[g] @ cols[n,g]
//   transposed: cols[n] = W[g]^T @ x[n,g]; y[n] = col2vol(cols[n]) (a gather)
//   weight:     dW[g] = dy[g] (Cout/G, N*L) @ cols[g]^T, images side by side
//               in the inner dimension so one GEMM reduces over the batch.
//
// float16/bfloat16 run the GEMMs in their own type with float accumulation;
// the weight gradient sums its chunks in a float buffer. float32 uses TF32
// when backends.cudnn.allow_tf32 is set (PyTorch's default for
// convolutions). Every kernel here is deterministic. Where NVIDIA's cuDNN is
// installed and backends.cudnn.enabled, the three operations go to it first
// (CudnnConv.h) and these kernels serve what it declines.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "aten/native/ConvPool.h"
#include "aten/native/Copy.h"
#include "aten/native/CudaConvIndex.h"
#include "aten/native/cuda/CudaGemm.h"
#include "aten/native/cuda/CudnnConv.h"
#include "c10/GlobalContext.h"
#include "c10/Library.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native {
namespace {

using cuda_blas::contiguous_cuda;
using cuda_blas::Fp32Math;
using cuda_blas::Matrices;

// Column buffers are kept under this size by splitting the batch.
constexpr int64_t kColumnBudgetBytes = int64_t(256) << 20;
constexpr int kThreads = 256;

int blocks_for(int64_t n) { return (int)std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads, 1 << 20)); }

// cols[n, row, col] at n * n_stride + row * row_stride + col, for `images`
// images of `channels` channels starting at x.
template <class T>
__global__ void vol2col_kernel(const T* x, T* cols, Window3 w, int64_t channels, int64_t images, int64_t n_stride,
                               int64_t row_stride) {
  const int64_t L = w.out_numel(), rows = channels * w.k_numel(), per_image = rows * L;
  const int64_t total = images * per_image, in_image = channels * w.in_numel();
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t n = i / per_image, row = (i % per_image) / L, col = i % L;
    const int64_t src = conv_index::vol2col_source(w, row, col);
    cols[n * n_stride + row * row_stride + col] = src < 0 ? T(0) : x[n * in_image + src];
  }
}

// y[n, c, pos] = sum of the column entries reading (c, pos) (+ bias[c]); the
// window's `in` is y's extent.
template <class T>
__global__ void col2vol_kernel(const T* cols, const T* bias, T* y, Window3 w, int64_t channels, int64_t images) {
  using acc_t = c10::opmath_t<T>;
  const int64_t per_image = channels * w.in_numel(), L = w.out_numel(), col_image = channels * w.k_numel() * L;
  const int64_t total = images * per_image;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t n = i / per_image, e = i % per_image;
    const T* cn = cols + n * col_image;
    acc_t s = bias ? acc_t(bias[e / w.in_numel()]) : acc_t(0);
    conv_index::for_each_reader(w, e, [&](int64_t row, int64_t col) { s += acc_t(cn[row * L + col]); });
    y[i] = T(s);
  }
}

template <class T>
__global__ void add_bias_kernel(T* y, const T* bias, int64_t images, int64_t channels, int64_t L) {
  using acc_t = c10::opmath_t<T>;
  const int64_t total = images * channels * L;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = T(acc_t(y[i]) + acc_t(bias[(i / L) % channels]));
}

// out[c, n, l] = in[n, c, l] for `images` images: grad_output with the batch
// moved inside each channel's row, so the weight gradient's inner dimension
// runs over images and positions together.
template <class T>
__global__ void batch_to_inner_kernel(const T* in, T* out, int64_t images, int64_t channels, int64_t L) {
  const int64_t total = images * channels * L;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t l = i % L, c = (i / L) % channels, n = i / (L * channels);
    out[(c * images + n) * L + l] = in[i];
  }
}

bool is_pointwise(const Window3& w) {
  for (int i = 0; i < 3; ++i)
    if (w.k[i] != 1 || w.s[i] != 1 || w.p[i] != 0 || w.in[i] != w.out[i]) return false;
  return true;
}

void check_conv_dtype(const char* op, ScalarType t) {
  TL_CHECK(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half || t == ScalarType::BFloat16,
           "\"", op, "\" not implemented for '", toString(t), "' on CUDA");
}

void check_same_device(const char* op, const TensorBase& a, const TensorBase& b) {
  TL_CHECK(a.device() == b.device(), "Expected all tensors to be on the same device, but found at least two devices, ",
           a.device().str(), " and ", b.device().str(), "! (when checking argument for ", op, ")");
}

Fp32Math conv_math() {
  return c10::globalContext().cudnn_allow_tf32.load(std::memory_order_relaxed) ? Fp32Math::AllowTF32
                                                                              : Fp32Math::Strict;
}

struct Geometry {
  int64_t N, Cin, Cout, G;
  Window3 win;
};

template <class T>
void conv_forward(const TensorBase& x, const TensorBase& wt, const T* bias, const TensorBase& y, const Geometry& g,
                  ScalarType dtype) {
  const Window3& w = g.win;
  const int64_t cin_g = g.Cin / g.G, cout_g = g.Cout / g.G, K = cin_g * w.k_numel(), L = w.out_numel();
  const int64_t rows = g.Cin * w.k_numel(), Lin = w.in_numel();
  const bool direct = is_pointwise(w);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  if (K == 0) {  // no input channels: every output is the bias (or 0)
    TL_CUDA_CHECK(cudaMemsetAsync(y.data_ptr(), 0, y.numel() * y.itemsize(), stream));
    if (bias) {
      add_bias_kernel<T><<<blocks_for(g.N * g.Cout * L), kThreads, 0, stream>>>(y.data_ptr<T>(), bias, g.N, g.Cout, L);
      TL_CUDA_KERNEL_LAUNCH_CHECK("convolution (bias)");
    }
    return;
  }
  const int64_t nb = conv_index::images_per_chunk(g.N, rows, L, sizeof(T), kColumnBudgetBytes);
  TensorBase cols;
  if (!direct) {
    int64_t sz[1] = {nb * rows * L};
    cols = make_empty(IntArrayRef(sz, 1), x.options());
  }
  const T* xp = x.data_ptr<T>();
  T* yp = y.data_ptr<T>();
  for (int64_t n0 = 0; n0 < g.N; n0 += nb) {
    const int64_t cnt = std::min(nb, g.N - n0);
    const T* src = xp + n0 * g.Cin * Lin;
    int64_t src_image = g.Cin * Lin;
    if (!direct) {
      vol2col_kernel<T><<<blocks_for(cnt * rows * L), kThreads, 0, stream>>>(src, cols.data_ptr<T>(), w, g.Cin, cnt,
                                                                            rows * L, L);
      TL_CUDA_KERNEL_LAUNCH_CHECK("convolution (im2col)");
      src = cols.data_ptr<T>();
      src_image = rows * L;
    }
    for (int64_t gi = 0; gi < g.G; ++gi) {
      Matrices a{(void*)(wt.data_ptr<T>() + gi * cout_g * K), cout_g, K, K, 1, 0};
      Matrices b{(void*)(src + gi * K * L), K, L, L, 1, src_image};
      Matrices c{(void*)(yp + (n0 * g.Cout + gi * cout_g) * L), cout_g, L, L, 1, g.Cout * L};
      cuda_blas::gemm(dtype, dtype, cnt, a, b, c, 1.0, 0.0, conv_math());
    }
  }
  if (bias) {
    add_bias_kernel<T><<<blocks_for(g.N * g.Cout * L), kThreads, 0, stream>>>(yp, bias, g.N, g.Cout, L);
    TL_CUDA_KERNEL_LAUNCH_CHECK("convolution (bias)");
  }
}

// g.win: the plain convolution y (big) -> x (small): in = y's extent, out = x's.
template <class T>
void conv_transpose_forward(const TensorBase& x, const TensorBase& wt, const T* bias, const TensorBase& y,
                            const Geometry& g, ScalarType dtype) {
  const Window3& w = g.win;
  const int64_t cin_g = g.Cin / g.G, cout_g = g.Cout / g.G, kvol = w.k_numel();
  const int64_t M = cout_g * kvol, Lsmall = w.out_numel(), Lbig = w.in_numel();
  const int64_t rows = g.Cout * kvol;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  const int64_t nb = conv_index::images_per_chunk(g.N, rows, Lsmall, sizeof(T), kColumnBudgetBytes);
  int64_t sz[1] = {nb * rows * Lsmall};
  TensorBase cols = make_empty(IntArrayRef(sz, 1), x.options());
  const T* xp = x.data_ptr<T>();
  T* yp = y.data_ptr<T>();
  T* cp = cols.data_ptr<T>();
  for (int64_t n0 = 0; n0 < g.N; n0 += nb) {
    const int64_t cnt = std::min(nb, g.N - n0);
    if (cin_g == 0)  // no input channels: the columns are all zero
      TL_CUDA_CHECK(cudaMemsetAsync(cp, 0, cnt * rows * Lsmall * sizeof(T), stream));
    for (int64_t gi = 0; gi < g.G && cin_g > 0; ++gi) {
      // W[g] is (cin_g, cout_g*kvol) row-major; its transpose is read in place.
      Matrices a{(void*)(wt.data_ptr<T>() + gi * cin_g * M), M, cin_g, 1, M, 0};
      Matrices b{(void*)(xp + (n0 * g.Cin + gi * cin_g) * Lsmall), cin_g, Lsmall, Lsmall, 1, g.Cin * Lsmall};
      Matrices c{(void*)(cp + gi * M * Lsmall), M, Lsmall, Lsmall, 1, rows * Lsmall};
      cuda_blas::gemm(dtype, dtype, cnt, a, b, c, 1.0, 0.0, conv_math());
    }
    col2vol_kernel<T><<<blocks_for(cnt * g.Cout * Lbig), kThreads, 0, stream>>>(cp, bias, yp + n0 * g.Cout * Lbig, w,
                                                                               g.Cout, cnt);
    TL_CUDA_KERNEL_LAUNCH_CHECK("convolution (col2im)");
  }
}

// dW (Cout, Cin/G, k...) for the plain convolution x -> dy, accumulated into
// `acc` (float for half types, else dW itself).
template <class T, class Acc>
void conv_weight_grad(const TensorBase& dy, const TensorBase& x, const TensorBase& acc, const Geometry& g,
                      ScalarType dtype, ScalarType acc_dtype) {
  const Window3& w = g.win;
  const int64_t cin_g = g.Cin / g.G, cout_g = g.Cout / g.G, K = cin_g * w.k_numel(), L = w.out_numel();
  const int64_t rows = g.Cin * w.k_numel(), Lin = w.in_numel();
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  // Columns and the regrouped grad_output share the budget.
  const int64_t nb = conv_index::images_per_chunk(g.N, rows + g.Cout, L, sizeof(T), kColumnBudgetBytes);
  int64_t csz[1] = {nb * rows * L}, dsz[1] = {nb * g.Cout * L};
  TensorBase cols = make_empty(IntArrayRef(csz, 1), x.options());
  TensorBase dyp = make_empty(IntArrayRef(dsz, 1), x.options());
  const T* xp = x.data_ptr<T>();
  const T* dp = dy.data_ptr<T>();
  Acc* ap = acc.data_ptr<Acc>();
  for (int64_t n0 = 0; n0 < g.N; n0 += nb) {
    const int64_t cnt = std::min(nb, g.N - n0), inner = cnt * L;
    vol2col_kernel<T><<<blocks_for(cnt * rows * L), kThreads, 0, stream>>>(xp + n0 * g.Cin * Lin, cols.data_ptr<T>(),
                                                                          w, g.Cin, cnt, L, inner);
    TL_CUDA_KERNEL_LAUNCH_CHECK("_convolution_weight_grad (im2col)");
    batch_to_inner_kernel<T><<<blocks_for(cnt * g.Cout * L), kThreads, 0, stream>>>(dp + n0 * g.Cout * L,
                                                                                   dyp.data_ptr<T>(), cnt, g.Cout, L);
    TL_CUDA_KERNEL_LAUNCH_CHECK("_convolution_weight_grad (regroup)");
    for (int64_t gi = 0; gi < g.G; ++gi) {
      Matrices a{(void*)(dyp.data_ptr<T>() + gi * cout_g * inner), cout_g, inner, inner, 1, 0};
      // cols[g] is (K, inner) row-major; its transpose (inner, K) is read in place.
      Matrices b{(void*)(cols.data_ptr<T>() + gi * K * inner), inner, K, 1, inner, 0};
      Matrices c{(void*)(ap + gi * cout_g * K), cout_g, K, K, 1, 0};
      cuda_blas::gemm(dtype, acc_dtype, 1, a, b, c, 1.0, n0 == 0 ? 0.0 : 1.0, conv_math());
    }
  }
}

Geometry geometry(int64_t N, IntArrayRef in_spatial, IntArrayRef out_spatial, IntArrayRef k, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, int64_t Cin, int64_t Cout, int64_t groups) {
  Geometry g;
  g.N = N;
  g.Cin = Cin;
  g.Cout = Cout;
  g.G = groups;
  g.win = make_window((int64_t)k.size(), in_spatial, out_spatial, k, stride, padding, dilation);
  return g;
}

template <class F>
void dispatch_float(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float()); break;
    case ScalarType::Double: f(double()); break;
    case ScalarType::Half: f(c10::Half()); break;
    case ScalarType::BFloat16: f(c10::BFloat16()); break;
    default: check_conv_dtype(op, t);
  }
}

TensorBase convolution_cuda(const TensorBase& input, const TensorBase& weight, const std::optional<TensorBase>& bias,
                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                            IntArrayRef output_padding, int64_t groups) {
  check_same_device("convolution", input, weight);
  const bool has_bias = bias && bias->defined();
  if (has_bias) check_same_device("convolution", input, *bias);
  std::vector<int64_t> out_sizes =
      convolution_output_sizes(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  check_conv_dtype("convolution", input.scalar_type());
  TensorBase result = make_empty(IntArrayRef(out_sizes), input.options());
  if (result.numel() == 0) return result;
  TensorBase x = contiguous_cuda(input), w = contiguous_cuda(weight);
  TensorBase b = has_bias ? contiguous_cuda(*bias) : TensorBase();
  IntArrayRef k = weight.sizes().slice(2);
  const ScalarType t = input.scalar_type();
  // cuDNN when it is installed and enabled; its own kernels otherwise.
  const bool by_cudnn =
      cudnn_conv::available() &&
      (transposed ? cudnn_conv::transpose_forward(x, w, result, stride, padding, dilation, groups)
                  : cudnn_conv::forward(x, w, result, stride, padding, dilation, groups));
  dispatch_float(t, "convolution", [&](auto tag) {
    using T = decltype(tag);
    const T* bp = has_bias ? b.data_ptr<T>() : nullptr;
    if (by_cudnn) {
      if (bp) {
        const int64_t L = result.numel() / (out_sizes[0] * out_sizes[1]);
        add_bias_kernel<T><<<blocks_for(result.numel()), kThreads, 0, c10::cuda::getCurrentCUDAStream()>>>(
            result.data_ptr<T>(), bp, out_sizes[0], out_sizes[1], L);
        TL_CUDA_KERNEL_LAUNCH_CHECK("convolution (bias)");
      }
    } else if (!transposed) {
      Geometry g = geometry(x.sizes()[0], x.sizes().slice(2), IntArrayRef(out_sizes).slice(2), k, stride, padding,
                            dilation, x.sizes()[1], out_sizes[1], groups);
      conv_forward<T>(x, w, bp, result, g, t);
    } else {
      Geometry g = geometry(x.sizes()[0], IntArrayRef(out_sizes).slice(2), x.sizes().slice(2), k, stride, padding,
                            dilation, x.sizes()[1], out_sizes[1], groups);
      conv_transpose_forward<T>(x, w, bp, result, g, t);
    }
  });
  return result;
}

TensorBase convolution_weight_grad_cuda(const TensorBase& grad_output, const TensorBase& input,
                                        IntArrayRef weight_size, IntArrayRef stride, IntArrayRef padding,
                                        IntArrayRef dilation, int64_t groups) {
  check_same_device("_convolution_weight_grad", grad_output, input);
  check_convolution_weight_grad(grad_output, input, weight_size, stride, padding, dilation, groups);
  check_conv_dtype("_convolution_weight_grad", input.scalar_type());
  TensorBase result = make_empty(weight_size, input.options());
  if (result.numel() == 0) return result;
  TensorBase dy = contiguous_cuda(grad_output), x = contiguous_cuda(input);
  const ScalarType t = input.scalar_type();
  if (x.sizes()[0] == 0 || dy.numel() == 0) {
    // No image or no output position: the gradient is zero.
    TL_CUDA_CHECK(cudaMemsetAsync(result.data_ptr(), 0, result.numel() * result.itemsize(),
                                  c10::cuda::getCurrentCUDAStream()));
    return result;
  }
  if (cudnn_conv::available() && cudnn_conv::weight_grad(dy, x, result, stride, padding, dilation, groups))
    return result;
  Geometry g = geometry(x.sizes()[0], x.sizes().slice(2), dy.sizes().slice(2), weight_size.slice(2), stride, padding,
                        dilation, x.sizes()[1], weight_size[0], groups);
  dispatch_float(t, "_convolution_weight_grad", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) {
      TensorBase acc = make_empty(weight_size, result.options().with_dtype(ScalarType::Float));
      conv_weight_grad<T, float>(dy, x, acc, g, t, ScalarType::Float);
      copy_across_devices(result, acc, false);
    } else {
      conv_weight_grad<T, T>(dy, x, result, g, t, t);
    }
  });
  return result;
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("convolution", TL_KERNEL(convolution_cuda));
  m.impl("_convolution_weight_grad", TL_KERNEL(convolution_weight_grad_cuda));
}

}  // namespace at::native
