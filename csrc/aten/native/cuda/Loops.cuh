// The CUDA elementwise loop: runs a functor of the pointwise formulas
// (build/generated/functors/*.h, host/device code) over a TensorIterator's
// coalesced loop. Contiguous loops take a vectorised path (VEC elements per
// thread, aligned wide loads); the others compute each operand's offset with
// ElementwiseIndex.h's calculator, in 32-bit math when the loop fits.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <utility>
#include "aten/native/ElementwiseIndex.h"

namespace at::native::cuda_loops {

constexpr int kThreads = 128;
constexpr int kElemsPerThread = 4;

template <class T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// out[i] = f(in0[i], ...) over contiguous operands; VEC-wide packs, with a
// scalar tail handled by the last block.
template <int VEC, class Out, class F, class... In>
__global__ void contiguous_kernel(int64_t n, F f, Out* out, const In*... in) {
  int64_t base = (int64_t(blockIdx.x) * kThreads + threadIdx.x) * VEC;
  if (base + VEC <= n) {
    Pack<Out, VEC> o;
#pragma unroll
    for (int k = 0; k < VEC; ++k) o.v[k] = Out(f(in[base + k]...));
    *reinterpret_cast<Pack<Out, VEC>*>(out + base) = o;
  } else {
    for (int64_t i = base; i < n; ++i) out[i] = Out(f(in[i]...));
  }
}

// Output operand 0, inputs 1..N, each through the offset calculator.
template <class Index, class Out, class F, class... In, size_t... I>
__device__ inline void apply_strided(const elementwise::StridedOffsetCalculator<1 + sizeof...(In), Index>& calc,
                                     Index linear, char* const* data, F f, std::index_sequence<I...>) {
  auto off = calc.get(linear);
  *reinterpret_cast<Out*>(data[0] + off.at[0]) =
      Out(f(*reinterpret_cast<const In*>(data[1 + I] + off.at[1 + I])...));
}

template <int NARGS>
struct DataPtrs {
  char* p[NARGS];
};

template <class Index, class Out, class F, class... In>
__global__ void strided_kernel(Index n, F f, DataPtrs<1 + sizeof...(In)> data,
                               elementwise::StridedOffsetCalculator<1 + sizeof...(In), Index> calc) {
  Index i = Index(blockIdx.x) * (kThreads * kElemsPerThread) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kElemsPerThread; ++k, i += kThreads) {
    if (i < n) apply_strided<Index, Out, F, In...>(calc, i, data.p, f, std::index_sequence_for<In...>{});
  }
}

template <int VEC, class Out, class F, class... In, size_t... I>
void launch_contiguous(dim3 grid, cudaStream_t stream, int64_t n, F f, char* const* data, std::index_sequence<I...>) {
  contiguous_kernel<VEC, Out><<<grid, kThreads, 0, stream>>>(
      n, f, reinterpret_cast<Out*>(data[0]), reinterpret_cast<const In*>(data[1 + I])...);
}

// Host side of a launch over a loop described as TensorIterator holds it:
// sizes[ndim] (dim 0 fastest), strides[arg][dim] in bytes, data[arg].
template <class Out, class F, class... In>
void launch_elementwise(int ndim, const int64_t* sizes, const int64_t* const* strides, char* const* data,
                        int64_t numel, bool contiguous, F f, cudaStream_t stream) {
  constexpr int NARGS = 1 + sizeof...(In);
  if (numel == 0) return;
  if (contiguous) {
    constexpr int kVec = 16 / sizeof(Out) > 0 ? (16 / sizeof(Out) > 8 ? 8 : 16 / sizeof(Out)) : 1;
    bool aligned = true;
    for (int a = 0; a < NARGS; ++a) aligned = aligned && (reinterpret_cast<uintptr_t>(data[a]) % 16 == 0);
    int64_t per_block = int64_t(kThreads) * (aligned ? kVec : 1);
    dim3 grid(unsigned((numel + per_block - 1) / per_block));
    if (aligned) {
      launch_contiguous<kVec, Out, F, In...>(grid, stream, numel, f, data, std::index_sequence_for<In...>{});
    } else {
      launch_contiguous<1, Out, F, In...>(grid, stream, numel, f, data, std::index_sequence_for<In...>{});
    }
    return;
  }
  int64_t extent = 0;
  for (int a = 0; a < NARGS; ++a) {
    int64_t e = 0;
    for (int d = 0; d < ndim; ++d) e += (sizes[d] - 1) * (strides[a][d] < 0 ? -strides[a][d] : strides[a][d]);
    extent = e > extent ? e : extent;
  }
  DataPtrs<NARGS> ptrs;
  for (int a = 0; a < NARGS; ++a) ptrs.p[a] = data[a];
  int64_t per_block = int64_t(kThreads) * kElemsPerThread;
  dim3 grid(unsigned((numel + per_block - 1) / per_block));
  if (elementwise::fits_32bit_indexing(numel, extent)) {
    elementwise::StridedOffsetCalculator<NARGS, uint32_t> calc(ndim, sizes, strides);
    strided_kernel<uint32_t, Out, F, In...><<<grid, kThreads, 0, stream>>>(uint32_t(numel), f, ptrs, calc);
  } else {
    elementwise::StridedOffsetCalculator<NARGS, uint64_t> calc(ndim, sizes, strides);
    strided_kernel<uint64_t, Out, F, In...><<<grid, kThreads, 0, stream>>>(uint64_t(numel), f, ptrs, calc);
  }
}

}  // namespace at::native::cuda_loops
