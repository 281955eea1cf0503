// Convolution through cuDNN when NVIDIA's cuDNN 9 (pip install
// nvidia-cudnn-cu13) can be loaded; Conv.cu falls back to its im2col + cuBLAS
// path otherwise. cuDNN is dlopened at the first convolution on the GPU, like
// cuBLAS (CublasLoader.h), and only its legacy convolution entry points are
// resolved. Honours backends.cudnn.enabled / benchmark / deterministic /
// allow_tf32 (c10::GlobalContext) and use_deterministic_algorithms.
//
// Each entry returns false, having written nothing, when cuDNN is disabled,
// absent, or declines the problem (an unsupported layout or size); the caller
// then runs its own kernels. Inputs must be contiguous CUDA tensors of one
// floating dtype; outputs are preallocated and contiguous.
#pragma once
#include <cstdint>

#include "c10/Tensor.h"

namespace at::native::cudnn_conv {

// Whether cuDNN is enabled and loadable (loads it on first call).
bool available();

// y = conv(x, w) (no bias), plain convolution.
bool forward(const TensorBase& x, const TensorBase& w, const TensorBase& y, IntArrayRef stride, IntArrayRef padding,
             IntArrayRef dilation, int64_t groups);

// y = conv_transpose(x, w): the input gradient of the plain convolution
// y -> x with weight w.
bool transpose_forward(const TensorBase& x, const TensorBase& w, const TensorBase& y, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, int64_t groups);

// dw = the weight gradient of the plain convolution x -> dy.
bool weight_grad(const TensorBase& dy, const TensorBase& x, const TensorBase& dw, IntArrayRef stride,
                 IntArrayRef padding, IntArrayRef dilation, int64_t groups);

}  // namespace at::native::cudnn_conv
