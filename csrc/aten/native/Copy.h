// Element copies with dtype conversion: the one place values change type.
#pragma once
#include "../../c10/Tensor.h"

namespace at::native {
// dst = src (broadcast src to dst's shape, cast to dst's dtype). CPU/Meta.
void copy_into(const Tensor& dst, const Tensor& src);
// A new tensor with t's values in dtype on device (t itself when nothing changes).
Tensor cast_to(const Tensor& t, ScalarType dtype, Device device);
// Contiguous copy (or t itself when already contiguous).
Tensor contiguous(const Tensor& t);
}  // namespace at::native
