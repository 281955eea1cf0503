// scaled_dot_product_attention's fused op (_sdpa_fused) on CUDA: the math
// path on cuBLAS. scores = scale * Q K^T is formed by one batched GEMM in
// the accumulation type (float for float16/bfloat16/float32, double for
// double), a row-per-block kernel applies the causal/boolean/additive mask
// and the softmax, and a second batched GEMM multiplies by V. Semantics as
// the CPU kernel (cpu/NnNormAttention.cpp): causal is top-left aligned, a
// row whose keys are all masked gives NaN, no keys at all gives NaN.
#include <cuda_runtime.h>

#include <cmath>
#include <limits>

#include "aten/native/NnNorm.h"
#include "aten/native/cuda/CudaGemm.h"
#include "c10/Library.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native {
namespace {

using cuda_blas::Fp32Math;
using cuda_blas::Matrices;

constexpr int kSoftmaxThreads = 256;

// Block-wide reduction of one value per thread; `op` is max or plus and
// `identity` its neutral value (what lanes past the last warp contribute).
template <class A, class Op>
__device__ A block_reduce(A v, A* shared, Op op, A identity) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int off = 16; off > 0; off /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) / 32;
  if (warp == 0) {
    v = lane < warps ? shared[lane] : identity;
    for (int off = 16; off > 0; off /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  const A r = shared[0];
  __syncthreads();
  return r;
}

// One block per (batch, query) row: probs[row] = softmax(masked scores[row]).
template <class T, class A>
__global__ void masked_softmax_kernel(const A* scores, T* probs, int64_t L, int64_t S, bool causal,
                                      const bool* bool_mask, const T* add_mask, int64_t ms0, int64_t ms1,
                                      int64_t ms2) {
  __shared__ A shared[32];
  const int64_t row = blockIdx.x, n = row / L, i = row % L;
  const A* s = scores + row * S;
  T* p = probs + row * S;
  const A ninf = -INFINITY;
  const int64_t moff = n * ms0 + i * ms1;
  auto value = [&](int64_t j) -> A {
    if (causal && j > i) return ninf;
    if (bool_mask) return bool_mask[moff + j * ms2] ? s[j] : ninf;
    if (add_mask) return s[j] + A(add_mask[moff + j * ms2]);
    return s[j];
  };
  A mx = ninf;
  for (int64_t j = threadIdx.x; j < S; j += blockDim.x) mx = max(mx, value(j));
  mx = block_reduce(mx, shared, [](A a, A b) { return max(a, b); }, ninf);
  A sum = 0;
  for (int64_t j = threadIdx.x; j < S; j += blockDim.x) {
    const A v = value(j);
    sum += v == ninf ? A(0) : exp(v - mx);
  }
  sum = block_reduce(sum, shared, [](A a, A b) { return a + b; }, A(0));
  // All keys masked: 0/0, NaN, as the softmax of an all -inf row.
  const A inv = sum == A(0) ? A(NAN) : A(1) / sum;
  for (int64_t j = threadIdx.x; j < S; j += blockDim.x) {
    const A v = value(j);
    p[j] = T(v == ninf ? A(0) * inv : exp(v - mx) * inv);
  }
}

template <class T>
__global__ void fill_nan_kernel(T* p, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    p[i] = T(NAN);
}

template <class T, class A>
void sdpa_math(const TensorBase& q, const TensorBase& k, const TensorBase& v, const TensorBase& mask, bool causal,
               double scale, const TensorBase& out, ScalarType dtype, ScalarType acc_dtype) {
  const int64_t N = q.sizes()[0], L = q.sizes()[1], E = q.sizes()[2], S = k.sizes()[1], Ev = v.sizes()[2];
  int64_t ssz[3] = {N, L, S};
  TensorBase scores = make_empty(IntArrayRef(ssz, 3), q.options().with_dtype(acc_dtype));
  TensorBase probs = make_empty(IntArrayRef(ssz, 3), q.options());
  // scores = scale * Q @ K^T; K (S, E) row-major is K^T read column-major.
  Matrices mq{q.data_ptr(), L, E, E, 1, L * E};
  Matrices mkt{k.data_ptr(), E, S, 1, E, S * E};
  Matrices ms{scores.data_ptr(), L, S, S, 1, L * S};
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  if (E == 0)  // empty dot products: every score is 0 (cuBLAS wants k >= 1)
    TL_CUDA_CHECK(cudaMemsetAsync(scores.data_ptr(), 0, scores.numel() * scores.itemsize(), stream));
  else
    cuda_blas::gemm(dtype, acc_dtype, N, mq, mkt, ms, scale, 0.0, Fp32Math::FromMatmulPrecision);

  const bool has_mask = mask.defined(), is_bool = has_mask && mask.scalar_type() == ScalarType::Bool;
  masked_softmax_kernel<T, A><<<(unsigned)(N * L), kSoftmaxThreads, 0, stream>>>(
      scores.data_ptr<A>(), probs.data_ptr<T>(), L, S, causal, is_bool ? mask.data_ptr<bool>() : nullptr,
      has_mask && !is_bool ? mask.data_ptr<T>() : nullptr, has_mask ? mask.strides()[0] : 0,
      has_mask ? mask.strides()[1] : 0, has_mask ? mask.strides()[2] : 0);
  TL_CUDA_KERNEL_LAUNCH_CHECK("_sdpa_fused (softmax)");

  Matrices mp{probs.data_ptr(), L, S, S, 1, L * S};
  Matrices mv{v.data_ptr(), S, Ev, Ev, 1, S * Ev};
  Matrices mo{out.data_ptr(), L, Ev, Ev, 1, L * Ev};
  cuda_blas::gemm(dtype, dtype, N, mp, mv, mo, 1.0, 0.0, Fp32Math::FromMatmulPrecision);
}

TensorBase sdpa_fused_cuda(const TensorBase& query, const TensorBase& key, const TensorBase& value,
                           const std::optional<TensorBase>& attn_mask, bool is_causal, double scale) {
  sdpa_check(query, key, value, attn_mask);
  for (const TensorBase* t : {&key, &value})
    TL_CHECK(t->device() == query.device(), "Expected all tensors to be on the same device, but found at least two ",
             "devices, ", query.device().str(), " and ", t->device().str(), "! (when checking argument for _sdpa_fused)");
  TensorBase mask = attn_mask && attn_mask->defined() ? *attn_mask : TensorBase();
  if (mask.defined())
    TL_CHECK(mask.device() == query.device(), "_sdpa_fused: attn_mask is on ", mask.device().str(),
             " but query is on ", query.device().str());
  TensorBase q = cuda_blas::contiguous_cuda(query), k = cuda_blas::contiguous_cuda(key),
             v = cuda_blas::contiguous_cuda(value);
  int64_t sz[3] = {q.sizes()[0], q.sizes()[1], v.sizes()[2]};
  TensorBase out = make_empty(IntArrayRef(sz, 3), q.options());
  if (out.numel() == 0) return out;
  const ScalarType t = q.scalar_type();
  if (k.sizes()[1] == 0) {
    // No keys: softmax over an empty row, NaN (as the CPU kernel).
    TL_DISPATCH_FLOATING_TYPES(t, "_sdpa_fused", [&] {
      fill_nan_kernel<scalar_t><<<256, 256, 0, c10::cuda::getCurrentCUDAStream()>>>(out.data_ptr<scalar_t>(),
                                                                                    out.numel());
    });
    TL_CUDA_KERNEL_LAUNCH_CHECK("_sdpa_fused");
    return out;
  }
  switch (t) {
    case ScalarType::Float: sdpa_math<float, float>(q, k, v, mask, is_causal, scale, out, t, ScalarType::Float); break;
    case ScalarType::Double:
      sdpa_math<double, double>(q, k, v, mask, is_causal, scale, out, t, ScalarType::Double);
      break;
    case ScalarType::Half:
      sdpa_math<c10::Half, float>(q, k, v, mask, is_causal, scale, out, t, ScalarType::Float);
      break;
    case ScalarType::BFloat16:
      sdpa_math<c10::BFloat16, float>(q, k, v, mask, is_causal, scale, out, t, ScalarType::Float);
      break;
    default: TL_CHECK(false, "_sdpa_fused: unsupported dtype ", toString(t));
  }
  return out;
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) { m.impl("_sdpa_fused", TL_KERNEL(sdpa_fused_cuda)); }

}  // namespace at::native
