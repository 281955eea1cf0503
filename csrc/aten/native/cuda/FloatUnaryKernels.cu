// First CUDA instantiations of the generated pointwise functors through the
// elementwise loop (float32, unary): the build compiles the YAML formulas for
// the GPU unchanged. Entry points take the loop as TensorIterator holds it.
#include "aten/native/cuda/Loops.cuh"
#include "functors/_gelu_tanh.h"
#include "functors/_gelu_erf.h"

namespace at::native::cuda_loops {

template <template <class> class Functor>
static void run_float_unary(int ndim, const int64_t* sizes, const int64_t* const* strides, char* const* data,
                            int64_t numel, bool contiguous, cudaStream_t stream) {
  launch_elementwise<float, Functor<float>, float>(ndim, sizes, strides, data, numel, contiguous,
                                                   Functor<float>{}, stream);
}

void gelu_tanh_float(int ndim, const int64_t* sizes, const int64_t* const* strides, char* const* data,
                     int64_t numel, bool contiguous, cudaStream_t stream) {
  run_float_unary<tl_gen_aten::_gelu_tanh_functor>(ndim, sizes, strides, data, numel, contiguous, stream);
}

void gelu_erf_float(int ndim, const int64_t* sizes, const int64_t* const* strides, char* const* data,
                    int64_t numel, bool contiguous, cudaStream_t stream) {
  run_float_unary<tl_gen_aten::_gelu_erf_functor>(ndim, sizes, strides, data, numel, contiguous, stream);
}

}  // namespace at::native::cuda_loops
