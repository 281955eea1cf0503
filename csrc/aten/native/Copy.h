// Element copies with dtype conversion: the one place values change type,
// and the registry through which copies cross devices.
#pragma once
#include "../../c10/Tensor.h"

namespace at::native {
// dst = src (broadcast src to dst's shape, cast to dst's dtype). CPU/Meta.
void copy_into(const TensorBase& dst, const TensorBase& src);
// A new tensor with t's values in dtype on device (t itself when nothing changes).
TensorBase cast_to(const TensorBase& t, ScalarType dtype, Device device);
// Contiguous copy (or t itself when already contiguous).
TensorBase contiguous(const TensorBase& t);

// ---- copies between devices
// A copy kernel for one (source device type, destination device type) pair.
// It receives dst and src with equal sizes (src already expanded to dst's
// shape, so it may have zero strides), any strides, and possibly different
// dtypes; it writes src's values, cast to dst's dtype, into dst. With
// non_blocking it may return before the copy has finished, ordered on the
// devices' current streams.
using CopyKernel = void (*)(const TensorBase& dst, const TensorBase& src, bool non_blocking);
// Registers fn for the pair and returns the kernel it replaces (or null).
// Registration is published atomically and may race with copies.
CopyKernel registerCopyKernel(DeviceType src, DeviceType dst, CopyKernel fn);
CopyKernel copyKernelOrNull(DeviceType src, DeviceType dst) noexcept;

// dst.copy_(src) for any pair of devices. CPU to CPU is copy_into (the fast
// path, no lookup); a meta destination only checks shapes; a meta source
// raises NotImplementedError (it has no values); every other pair goes
// through its registered kernel, and a pair without one raises. There is no
// host-memcpy fallback: device memory may not be host-addressable.
void copy_across_devices(const TensorBase& dst, const TensorBase& src, bool non_blocking);
}  // namespace at::native
