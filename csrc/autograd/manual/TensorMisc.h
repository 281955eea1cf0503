// Hand-written backward helpers for the TensorMisc area (issue 10), declared for the
// generated autograd files; definitions in manual/TensorMisc.cpp.
#pragma once
#include "autograd/FunctionsManual.h"

namespace torchlike::autograd::generated {

// as_strided_: the gradient of the new window (size, stride, storage_offset)
// mapped back onto self's geometry before the call (self_sizes, self_strides,
// self_offset), the same map as as_strided's backward.
at::TensorBase as_strided_geometry_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes,
                                            at::IntArrayRef self_strides, int64_t self_offset, at::IntArrayRef size,
                                            at::IntArrayRef stride, std::optional<int64_t> storage_offset);

}  // namespace torchlike::autograd::generated
