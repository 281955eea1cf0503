// Element copies with dtype conversion: the one place values change type.
#pragma once
#include "../../c10/Tensor.h"

namespace at::native {
// dst = src (broadcast src to dst's shape, cast to dst's dtype). CPU/Meta.
void copy_into(const TensorBase& dst, const TensorBase& src);
// A new tensor with t's values in dtype on device (t itself when nothing changes).
TensorBase cast_to(const TensorBase& t, ScalarType dtype, Device device);
// Contiguous copy (or t itself when already contiguous).
TensorBase contiguous(const TensorBase& t);
}  // namespace at::native
