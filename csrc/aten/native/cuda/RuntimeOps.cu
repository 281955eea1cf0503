// The CUDA kernels of the operators every CUDA tensor needs before any math:
// empty (storage from the caching allocator), resize_ (grows the storage
// through the same allocator) and fill_ (zeros, ones, full build on it).
// empty and resize_ are the device-neutral native functions: they reach the
// CUDA allocator through the registry. fill_ writes on the current stream.
#include "aten/TensorIterator.h"
#include "aten/native/ElementwiseIndex.h"
#include "aten/native/HalfConvert.h"
#include "aten/native/cuda/Loops.cuh"
#include "c10/Library.h"
#include "c10/cuda/CUDAContext.h"
#include "ops/empty.h"
#include "ops/fill.h"
#include "ops/resize.h"

namespace at::native {

namespace {

template <class T>
struct ConstantFunctor {
  T value;
  __device__ T operator()() const { return value; }
};

TensorBase fill_cuda_(const TensorBase& self, const Scalar& value) {
  TensorIterator iter = TensorIteratorConfig("fill_")
                            .add_output(self)
                            .promote_inputs_to_common_dtype(false)
                            .resize_outputs(false)
                            .check_mem_overlap(false)
                            .build();
  if (iter.numel() > 0) {
    TL_CHECK(iter.ndim() <= elementwise::kMaxLoopDims, "fill_: CUDA loop over ", iter.ndim(), " dims, more than ",
             elementwise::kMaxLoopDims);
    const int64_t* strides[1] = {iter.strides(0).data()};
    char* data[1] = {iter.data_ptr(0)};
    cudaStream_t stream = c10::cuda::getCurrentCUDAStream(self.device().index);
    TL_DISPATCH_ALL_TYPES(self.scalar_type(), "fill_", [&] {
      // Rounded once into 16-bit types, as the CPU kernel does.
      ConstantFunctor<scalar_t> f{half_convert::fill_value<scalar_t>(value)};
      cuda_loops::launch_elementwise<scalar_t, ConstantFunctor<scalar_t>>(
          iter.ndim(), iter.shape().data(), strides, data, iter.numel(), iter.is_contiguous(), f, stream);
    });
    TL_CUDA_KERNEL_LAUNCH_CHECK("fill_");
  }
  self.bump_version();
  return self;
}

}  // namespace

}  // namespace at::native

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("empty.memory_format", TL_KERNEL(at::native::empty));
  m.impl("resize_", TL_KERNEL(at::native::resize_));
  m.impl("fill_.Scalar", TL_KERNEL(at::native::fill_cuda_));
}
