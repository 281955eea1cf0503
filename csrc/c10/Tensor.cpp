#include "Tensor.h"

#include "DeviceGuard.h"
#include "../aten/native/Copy.h"

namespace c10 {

TensorBase make_empty(IntArrayRef sizes, TensorOptions opts) {
  int64_t n = checked_numel(sizes, "empty");
  int64_t bytes;
  TL_CHECK(!__builtin_mul_overflow(n, (int64_t)elementSize(opts.dtype), &bytes), "empty: a tensor of size ", sizes,
           " and dtype ", opts.dtype, " needs more than 2^63 bytes");
  // "cuda" becomes the current CUDA device, "cpu:0" plain "cpu", as in PyTorch.
  Device device = tensorDevice(opts.device);
  Allocator* a = getAllocator(device.type);
  auto storage = Storage::make((size_t)bytes, a, true, device.index);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), opts.dtype, device);
  impl->set_sizes_contiguous(sizes);
  return TensorBase(std::move(impl));
}

TensorBase make_empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions opts) {
  TL_CHECK(sizes.size() == strides.size(), "empty_strided: mismatch in length of strides and shape (",
           sizes.size(), " vs ", strides.size(), ")");
  checked_numel(sizes, "empty_strided");
  int64_t bytes = storage_bytes_needed(sizes, strides, 0, elementSize(opts.dtype), "empty_strided");
  Device device = tensorDevice(opts.device);
  Allocator* a = getAllocator(device.type);
  auto storage = Storage::make((size_t)bytes, a, true, device.index);
  auto impl = intrusive_ptr<TensorImpl>::make(std::move(storage), opts.dtype, device);
  impl->set_sizes_and_strides(sizes, strides, 0);
  return TensorBase(std::move(impl));
}

TensorBase make_view(const TensorBase& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  TensorImpl* b = base.unsafeGetTensorImpl();
  auto impl = intrusive_ptr<TensorImpl>::make(b->storage(), b->dtype(), b->device());
  impl->set_sizes_and_strides(sizes, strides, offset);
  impl->set_version_counter(b->version_counter());
  return TensorBase(std::move(impl));
}

template <class T>
static void store(void* p, const Scalar& s) {
  *static_cast<T*>(p) = s.to<T>();
}

TensorBase scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device) {
  TensorBase t = make_empty({}, TensorOptions(dtype, device));
  if (device.is_cpu()) {
    void* p = t.data_ptr();
    TL_DISPATCH_ALL_TYPES(dtype, "scalar_to_tensor", [&] { store<scalar_t>(p, s); });
  } else {
    TL_CHECK(device.is_meta(), "scalar_to_tensor: only cpu and meta devices are supported here");
  }
  return t;
}

TensorBase wrapped_scalar_tensor(const Scalar& s) {
  TensorBase t = scalar_to_tensor(s, s.type());
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

Scalar item(const TensorBase& t) {
  TL_CHECK(t.numel() == 1, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
  TL_CHECK(!t.is_meta(), "Tensor.item() cannot be called on meta tensors");
  if (!t.is_cpu()) {
    // A device tensor's value comes to the host through the copy registry
    // (a blocking copy), as Tensor.item() does on CUDA in PyTorch.
    TensorBase host = make_empty(t.sizes(), TensorOptions(t.scalar_type(), Device(DeviceType::CPU)));
    at::native::copy_across_devices(host, t, false);
    return item(host);
  }
  const void* p = t.data_ptr();
  return TL_DISPATCH_ALL_TYPES(t.scalar_type(), "item", [&]() -> Scalar {
    scalar_t v = *static_cast<const scalar_t*>(p);
    if constexpr (std::is_same<scalar_t, bool>::value) return Scalar(v);
    else if constexpr (std::is_integral<scalar_t>::value) return Scalar((int64_t)v);
    else return Scalar((double)v);
  });
}

}  // namespace c10
