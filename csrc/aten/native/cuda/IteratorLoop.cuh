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

namespace at::native::cuda_loops {

template <class Out, class... In, class F>
void run_iterator(const at::TensorIterator& iter, F f) {
  constexpr int NARGS = 1 + sizeof...(In);
  if (iter.is_meta() || iter.numel() == 0) return;
  TL_CHECK(iter.ntensors() == NARGS, iter.name(), ": CUDA loop expects ", NARGS, " operands, got ", iter.ntensors());
  for (int a = 0; a < NARGS; ++a) {
    // A 0-dim CPU operand and a float scalar in a half loop need their own
    // load paths; until they exist such calls are refused, never misread.
    TL_CHECK(!iter.is_cpu_scalar(a), iter.name(), ": the CUDA loop does not take CPU scalar operands yet");
  }
  TL_CHECK(iter.opmath_inputs() == 0, iter.name(), ": the CUDA loop does not take float scalars in a ",
           "reduced-precision loop yet");
  TL_CHECK(iter.ndim() <= elementwise::kMaxLoopDims, iter.name(), ": CUDA loop over ", iter.ndim(),
           " dims, more than ", elementwise::kMaxLoopDims);
  const int64_t* strides[NARGS];
  char* data[NARGS];
  for (int a = 0; a < NARGS; ++a) {
    strides[a] = iter.strides(a).data();
    data[a] = iter.data_ptr(a);
  }
  launch_elementwise<Out, F, In...>(iter.ndim(), iter.shape().data(), strides, data, iter.numel(),
                                    iter.is_contiguous(), f, c10::cuda::getCurrentCUDAStream(iter.device().index));
  cudaError_t err = cudaGetLastError();
  TL_CHECK(err == cudaSuccess, iter.name(), ": CUDA kernel launch failed: ", cudaGetErrorString(err));
}

}  // namespace at::native::cuda_loops
