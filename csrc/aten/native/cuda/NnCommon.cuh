// What the hand-written CUDA nn kernels (Softmax.cu, Norm.cu, Dropout.cu,
// Embedding.cu, Loss.cu, ScatterGather.cu, Sort.cu) share: block-wide
// reductions of any combinable value, a dtype switch whose body is a generic
// lambda, output allocation on the input's device, and a device-side flag for
// out-of-range indices that the host turns into the op's exception.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <type_traits>

#include "aten/native/CudaNnPlan.h"
#include "c10/Exception.h"
#include "c10/Half.h"
#include "c10/Tensor.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native::cuda_nn {

constexpr int kWarp = 32;

// ---------------------------------------------------------------- reductions

// Folds a value across a warp with `combine` (butterfly: every lane ends with
// the total). T must be a trivially copyable struct of 4/8-byte members or a
// scalar; it is moved through __shfl_xor_sync word by word.
template <class T>
__device__ inline T shfl_xor_any(T v, int lane_mask) {
  static_assert(sizeof(T) % 4 == 0, "shuffled values are whole 32-bit words");
  constexpr int kWords = sizeof(T) / 4;
  union {
    T value;
    uint32_t words[kWords];
  } in, out;
  in.value = v;
#pragma unroll
  for (int w = 0; w < kWords; ++w) out.words[w] = __shfl_xor_sync(0xffffffffu, in.words[w], lane_mask);
  return out.value;
}

template <class T, class Combine>
__device__ inline T warp_allreduce(T v, const Combine& combine) {
#pragma unroll
  for (int m = kWarp / 2; m > 0; m >>= 1) v = combine(v, shfl_xor_any(v, m));
  return v;
}

// Every thread of the block gets the combination of all threads' values.
// `shared` holds one T per warp (blockDim.x / 32 <= 32). blockDim.x must be
// a multiple of 32. The fold order is fixed by the block size alone, so the
// result is the same on every run.
template <class T, class Combine>
__device__ inline T block_allreduce(T v, T identity, T* shared, const Combine& combine) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, nwarps = blockDim.x / kWarp;
  v = warp_allreduce(v, combine);
  __syncthreads();  // `shared` may still be read from a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  T w = lane < nwarps ? shared[lane] : identity;
  if (warp == 0) w = warp_allreduce(w, combine);
  if (threadIdx.x == 0) shared[0] = w;
  __syncthreads();
  return shared[0];
}

struct SumOp {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

template <class A>
struct Pair {
  A a, b;
};
struct PairSumOp {
  template <class A>
  __device__ Pair<A> operator()(Pair<A> x, Pair<A> y) const {
    return Pair<A>{x.a + y.a, x.b + y.b};
  }
};

// ---------------------------------------------------------------- host helpers

// The floating dtypes every nn kernel takes; the body gets a value of the
// element type (a generic lambda, so `if constexpr` works inside).
template <class F>
void dispatch_floating(ScalarType t, const char* name, const F& f) {
  switch (t) {
    case ScalarType::Half: f(c10::Half()); break;
    case ScalarType::BFloat16: f(c10::BFloat16()); break;
    case ScalarType::Float: f(float()); break;
    case ScalarType::Double: f(double()); break;
    default:
      TL_CHECK_NOT_IMPLEMENTED(false, "\"", name, "\" not implemented for '", c10::toString(t), "' on CUDA");
  }
}

template <class F>
void dispatch_index_type(ScalarType t, const char* name, const F& f) {
  if (t == ScalarType::Long) f(int64_t());
  else if (t == ScalarType::Int) f(int32_t());
  else TL_CHECK(false, name, ": expected an int64 or int32 index tensor, got ", t);
}

inline cudaStream_t stream() { return c10::cuda::getCurrentCUDAStream(); }

inline unsigned blocks_for(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  // Grid-stride loops cover the rest; 2^20 blocks keep every SM busy.
  return unsigned(b < 1 ? 1 : (b > (int64_t(1) << 20) ? (int64_t(1) << 20) : b));
}

// Every CUDA tensor argument of one op on the same device as the first.
inline void check_same_device(const char* op, const TensorBase& a, const TensorBase& b) {
  if (!b.defined()) return;
  TL_CHECK(a.device() == b.device(), op, ": expected all tensors to be on the same device, but found ", a.device(),
           " and ", b.device());
}

// ---------------------------------------------------------------- bad-index flag

// Kernels cannot raise. One that meets an index outside its range skips the
// element (so nothing is read or written out of bounds) and records the
// value here; the host reads the flag back after the launch and raises the
// op's own error. Reading it back synchronises the stream, the price of
// reporting the error on the call that caused it, as the CPU kernels do.
struct BadIndexFlag {
  struct Slot {
    int32_t hit;
    int64_t value;
  };
  Slot* dev = nullptr;
  cudaStream_t st;
  explicit BadIndexFlag(cudaStream_t s) : st(s) {
    dev = static_cast<Slot*>(c10::cuda::cachingMalloc(sizeof(Slot), st));
    TL_CUDA_CHECK(cudaMemsetAsync(dev, 0, sizeof(Slot), st));
  }
  ~BadIndexFlag() { c10::cuda::cachingFree(dev); }
  BadIndexFlag(const BadIndexFlag&) = delete;
  BadIndexFlag& operator=(const BadIndexFlag&) = delete;
  // The bad value, if any kernel recorded one.
  std::optional<int64_t> read() {
    Slot h{0, 0};
    TL_CUDA_CHECK(cudaMemcpyAsync(&h, dev, sizeof(Slot), cudaMemcpyDeviceToHost, st));
    TL_CUDA_CHECK(cudaStreamSynchronize(st));
    if (h.hit) return h.value;
    return std::nullopt;
  }
};

// Device side: the first thread to get here stores its value.
__device__ inline void record_bad_index(BadIndexFlag::Slot* slot, int64_t value) {
  if (atomicCAS(&slot->hit, 0, 1) == 0) slot->value = value;
}

template <class T>
using opmath = c10::opmath_t<T>;

}  // namespace at::native::cuda_nn
