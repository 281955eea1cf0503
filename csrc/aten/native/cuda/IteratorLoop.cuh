// Runs a pointwise functor over a built TensorIterator on the current CUDA
// stream: the bridge between the device-neutral iterator (shape, byte
// strides, data pointers) and Loops.cuh's launcher. Generated kernel shards
// (build/generated/kernels/cuda/shard*.cu) call it once per dtype.
#pragma once
#include <cuda_runtime.h>
#include "aten/TensorIterator.h"
#include "aten/native/ElementwiseIndex.h"
#include "aten/native/cuda/Loops.cuh"
#include "c10/cuda/CUDAContext.h"

#include <utility>

namespace at::native::cuda_loops {

namespace detail {
// A 0-dim CPU input (cuda_tensor + 2, or + torch.tensor(2.)) is copied into
// a one-element device buffer and read with stride 0. Its value is already
// in the loop's dtype, except in a half/bfloat16 loop, where a Python number
// is kept as float (opmath) and is converted here.
template <class T>
void* upload_cpu_scalar(const at::TensorIterator& iter, int arg, bool opmath, cudaStream_t stream) {
  const char* host = iter.data_ptr(arg);
  T v = opmath ? static_cast<T>(*reinterpret_cast<const float*>(host)) : *reinterpret_cast<const T*>(host);
  void* p = c10::cuda::cachingMalloc(sizeof(T), stream);
  // From pageable memory the copy is staged before cudaMemcpyAsync returns,
  // so `v` may go out of scope; the buffer is freed, stream-ordered, after
  // the launch.
  TL_CUDA_CHECK(cudaMemcpyAsync(p, &v, sizeof(T), cudaMemcpyHostToDevice, stream));
  return p;
}

template <class... In, size_t... I>
void upload_cpu_scalars(const at::TensorIterator& iter, cudaStream_t stream, char** data, const int64_t** strides,
                        void** scratch, const int64_t* zero_strides, std::index_sequence<I...>) {
  (((iter.is_cpu_scalar((int)I + 1))
        ? (void)(scratch[I + 1] = upload_cpu_scalar<In>(iter, (int)I + 1, ((iter.opmath_inputs() >> I) & 1u) != 0,
                                                         stream),
                 data[I + 1] = static_cast<char*>(scratch[I + 1]), strides[I + 1] = zero_strides)
        : (void)0),
   ...);
}
}  // namespace detail

template <class Out, class... In, class F>
void run_iterator(const at::TensorIterator& iter, F f) {
  constexpr int NARGS = 1 + sizeof...(In);
  if (iter.is_meta() || iter.numel() == 0) return;
  TL_CHECK(iter.ntensors() == NARGS, iter.name(), ": CUDA loop expects ", NARGS, " operands, got ", iter.ntensors());
  TL_CHECK(!iter.is_cpu_scalar(0), iter.name(), ": the CUDA loop cannot write a CPU scalar output");
  for (int a = 1; a < NARGS; ++a) {
    // A float-held (opmath) input that is not a CPU scalar would be device
    // memory of another dtype than the loop reads: refused, never misread.
    TL_CHECK(!((iter.opmath_inputs() >> (a - 1)) & 1u) || iter.is_cpu_scalar(a), iter.name(),
             ": the CUDA loop takes float-held scalars only from the host");
  }
  TL_CHECK(iter.ndim() <= elementwise::kMaxLoopDims, iter.name(), ": CUDA loop over ", iter.ndim(),
           " dims, more than ", elementwise::kMaxLoopDims);
  const int64_t* strides[NARGS];
  char* data[NARGS];
  for (int a = 0; a < NARGS; ++a) {
    strides[a] = iter.strides(a).data();
    data[a] = iter.data_ptr(a);
  }
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(iter.device().index);
  void* scratch[NARGS] = {};
  static constexpr int64_t kZeroStrides[elementwise::kMaxLoopDims] = {};
  detail::upload_cpu_scalars<In...>(iter, stream, data, strides, scratch, kZeroStrides,
                                    std::index_sequence_for<In...>{});
  bool uploaded = false;
  for (int a = 0; a < NARGS; ++a) uploaded = uploaded || scratch[a] != nullptr;
  // A stride-0 scalar operand rules out the contiguous (vectorised) path.
  launch_elementwise<Out, F, In...>(iter.ndim(), iter.shape().data(), strides, data, iter.numel(),
                                    iter.is_contiguous() && !uploaded, f, stream);
  cudaError_t err = cudaGetLastError();
  for (int a = 0; a < NARGS; ++a)
    if (scratch[a]) c10::cuda::cachingFree(scratch[a]);
  TL_CHECK(err == cudaSuccess, iter.name(), ": CUDA kernel launch failed: ", cudaGetErrorString(err));
}

}  // namespace at::native::cuda_loops
