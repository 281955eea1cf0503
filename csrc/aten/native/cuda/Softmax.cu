// softmax / log_softmax and their backward ops on CUDA, over any dim.
//
// The input is made contiguous and seen as (outer, size, inner) around dim
// (NnNorm.h's RowGeometry). When dim is the innermost (inner == 1) one block
// reduces each row: every thread folds its elements into a running
// (max, sum of exp) pair in one read (CudaNnPlan.h's online combine), the
// block merges the pairs, and a second sweep writes the outputs. Otherwise
// the `size` elements of a row are `inner` apart, and consecutive threads
// take consecutive inner positions so each step along the row is a coalesced
// load across the warp. Half types compute in float.
#include <optional>

#include "aten/native/NnNorm.h"
#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Library.h"
#include "ops/_log_softmax_backward_data.h"
#include "ops/_softmax_backward_data.h"
#include "ops/_to_copy.h"
#include "ops/contiguous.h"
#include "ops/log_softmax.h"
#include "ops/softmax.h"

namespace at::native::cuda_nn {
namespace {

// ---------------------------------------------------------------- forward

// Rows of up to kRowCache elements per thread are read once: each thread
// keeps its elements (i = thread + c * blockDim, coalesced) in registers
// between the statistics and the writes. Longer rows read the input twice.
constexpr int kRowCache = 8;

template <class T, bool Log>
__global__ void softmax_rows_kernel(const T* in, T* out, int64_t rows, int64_t n) {
  using A = opmath<T>;
  __shared__ MaxSum<A> shared[32];
  const bool cached = n <= int64_t(kRowCache) * blockDim.x;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = in + r * n;
    T* y = out + r * n;
    A v[kRowCache];
    MaxSum<A> ms = maxsum_empty<A>();
    if (cached) {
#pragma unroll
      for (int c = 0; c < kRowCache; ++c) {
        const int64_t i = threadIdx.x + int64_t(c) * blockDim.x;
        v[c] = i < n ? static_cast<A>(x[i]) : A(0);
        if (i < n) ms = maxsum_add(ms, v[c]);
      }
    } else {
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) ms = maxsum_add(ms, static_cast<A>(x[i]));
    }
    ms = block_allreduce(ms, maxsum_empty<A>(), shared,
                         [](MaxSum<A> a, MaxSum<A> b) { return maxsum_combine(a, b); });
    // log_softmax: x - (max + log(sum)); softmax: exp(x - max) / sum.
    const A shift = Log ? ms.max + log(ms.sum) : ms.max;
    const A inv = Log ? A(1) : A(1) / ms.sum;
    if (cached) {
#pragma unroll
      for (int c = 0; c < kRowCache; ++c) {
        const int64_t i = threadIdx.x + int64_t(c) * blockDim.x;
        if (i < n) y[i] = static_cast<T>(Log ? v[c] - shift : acc_exp(v[c] - shift) * inv);
      }
    } else {
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const A xv = static_cast<A>(x[i]);
        y[i] = static_cast<T>(Log ? xv - shift : acc_exp(xv - shift) * inv);
      }
    }
  }
}

template <class T, bool Log>
__global__ void softmax_strided_kernel(const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  using A = opmath<T>;
  const int64_t columns = outer * inner;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < columns; c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (c / inner) * n * inner + c % inner;
    const T* x = in + base;
    T* y = out + base;
    MaxSum<A> ms = maxsum_empty<A>();
    for (int64_t i = 0; i < n; ++i) ms = maxsum_add(ms, static_cast<A>(x[i * inner]));
    if (Log) {
      const A shift = ms.max + log(ms.sum);
      for (int64_t i = 0; i < n; ++i) y[i * inner] = static_cast<T>(static_cast<A>(x[i * inner]) - shift);
    } else {
      const A inv = A(1) / ms.sum;
      for (int64_t i = 0; i < n; ++i)
        y[i * inner] = static_cast<T>(acc_exp(static_cast<A>(x[i * inner]) - ms.max) * inv);
    }
  }
}

template <bool Log>
TensorBase softmax_cuda_impl(const char* op, const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  SoftmaxPlan plan = softmax_plan(op, self, dim, dtype);
  TensorBase in = self.scalar_type() == plan.dtype ? self : at::_ops::_to_copy(self, plan.dtype);
  in = at::_ops::contiguous(in);
  TensorBase out = make_empty(in.sizes(), in.options());
  if (out.numel() == 0) return out;
  RowGeometry g = row_geometry(in.sizes(), plan.dim);
  cudaStream_t st = stream();
  dispatch_floating(plan.dtype, op, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    if (g.inner == 1) {
      const int threads = row_block_threads(g.size);
      softmax_rows_kernel<T, Log><<<blocks_for(g.outer, 1), threads, 0, st>>>(x, y, g.outer, g.size);
    } else {
      softmax_strided_kernel<T, Log><<<blocks_for(g.outer * g.inner, 256), 256, 0, st>>>(x, y, g.outer, g.size,
                                                                                        g.inner);
    }
    TL_CUDA_KERNEL_LAUNCH_CHECK(op);
  });
  return out;
}

// ---------------------------------------------------------------- backward

// softmax: gi = y * (g - sum(g * y)); log_softmax: gi = g - exp(y) * sum(g).
template <class T, bool Log>
__device__ inline opmath<T> backward_term(T g, T y) {
  using A = opmath<T>;
  return Log ? static_cast<A>(g) : static_cast<A>(g) * static_cast<A>(y);
}
template <class T, bool Log>
__device__ inline T backward_value(T g, T y, opmath<T> s) {
  using A = opmath<T>;
  const A gv = static_cast<A>(g), yv = static_cast<A>(y);
  return static_cast<T>(Log ? gv - acc_exp(yv) * s : yv * (gv - s));
}

template <class T, bool Log>
__global__ void softmax_backward_rows_kernel(const T* grad, const T* out, T* gi, int64_t rows, int64_t n) {
  using A = opmath<T>;
  __shared__ A shared[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* g = grad + r * n;
    const T* y = out + r * n;
    A s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += backward_term<T, Log>(g[i], y[i]);
    s = block_allreduce(s, A(0), shared, SumOp());
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) gi[r * n + i] = backward_value<T, Log>(g[i], y[i], s);
  }
}

template <class T, bool Log>
__global__ void softmax_backward_strided_kernel(const T* grad, const T* out, T* gi, int64_t outer, int64_t n,
                                                int64_t inner) {
  using A = opmath<T>;
  const int64_t columns = outer * inner;
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < columns; c += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (c / inner) * n * inner + c % inner;
    A s = 0;
    for (int64_t i = 0; i < n; ++i) s += backward_term<T, Log>(grad[base + i * inner], out[base + i * inner]);
    for (int64_t i = 0; i < n; ++i)
      gi[base + i * inner] = backward_value<T, Log>(grad[base + i * inner], out[base + i * inner], s);
  }
}

template <bool Log>
TensorBase softmax_backward_cuda_impl(const char* op, const TensorBase& grad, const TensorBase& output, int64_t dim,
                                      ScalarType input_dtype) {
  TL_CHECK(grad.sizes() == output.sizes(), op, ": grad_output and output must have the same shape, got ",
           grad.sizes(), " and ", output.sizes());
  TL_CHECK(grad.scalar_type() == output.scalar_type(), op, ": grad_output and output must have the same dtype");
  TL_CHECK(c10::isFloatingType(output.scalar_type()), op, ": expected a floating output, got ", output.scalar_type());
  check_same_device(op, output, grad);
  const int64_t d = maybe_wrap_dim(dim, output.dim());
  TensorBase g = at::_ops::contiguous(grad), y = at::_ops::contiguous(output);
  TensorBase gi = make_empty(y.sizes(), y.options());
  if (gi.numel() > 0) {
    RowGeometry geo = row_geometry(y.sizes(), d);
    cudaStream_t st = stream();
    dispatch_floating(y.scalar_type(), op, [&](auto tag) {
      using T = decltype(tag);
      const T* gp = static_cast<const T*>(g.data_ptr());
      const T* yp = static_cast<const T*>(y.data_ptr());
      T* op_ = static_cast<T*>(gi.data_ptr());
      if (geo.inner == 1) {
        softmax_backward_rows_kernel<T, Log>
            <<<blocks_for(geo.outer, 1), row_block_threads(geo.size), 0, st>>>(gp, yp, op_, geo.outer, geo.size);
      } else {
        softmax_backward_strided_kernel<T, Log><<<blocks_for(geo.outer * geo.inner, 256), 256, 0, st>>>(
            gp, yp, op_, geo.outer, geo.size, geo.inner);
      }
      TL_CUDA_KERNEL_LAUNCH_CHECK(op);
    });
  }
  return gi.scalar_type() == input_dtype ? gi : at::_ops::_to_copy(gi, input_dtype);
}

TensorBase softmax_cuda(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_cuda_impl<false>("softmax", self, dim, dtype);
}
TensorBase log_softmax_cuda(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_cuda_impl<true>("log_softmax", self, dim, dtype);
}
TensorBase softmax_backward_data_cuda(const TensorBase& grad_output, const TensorBase& output, int64_t dim,
                                      ScalarType input_dtype) {
  return softmax_backward_cuda_impl<false>("_softmax_backward_data", grad_output, output, dim, input_dtype);
}
TensorBase log_softmax_backward_data_cuda(const TensorBase& grad_output, const TensorBase& output, int64_t dim,
                                          ScalarType input_dtype) {
  return softmax_backward_cuda_impl<true>("_log_softmax_backward_data", grad_output, output, dim, input_dtype);
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("softmax.int", TL_KERNEL(softmax_cuda));
  m.impl("log_softmax.int", TL_KERNEL(log_softmax_cuda));
  m.impl("_softmax_backward_data", TL_KERNEL(softmax_backward_data_cuda));
  m.impl("_log_softmax_backward_data", TL_KERNEL(log_softmax_backward_data_cuda));
}
