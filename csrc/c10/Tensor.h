// The tensor handle every layer passes around: one refcounted pointer.
// Operators are free functions (at::add); see build/generated/ops/*.h.
#pragma once
#include "Scalar.h"
#include "TensorImpl.h"

namespace c10 {

struct TensorOptions {
  ScalarType dtype = ScalarType::Float;
  Device device = Device(DeviceType::CPU);
  TensorOptions() = default;
  TensorOptions(ScalarType d) : dtype(d) {}
  TensorOptions(ScalarType d, Device dev) : dtype(d), device(dev) {}
  TensorOptions with_dtype(ScalarType d) const { return TensorOptions(d, device); }
  TensorOptions with_device(Device dv) const { return TensorOptions(dtype, dv); }
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  static Tensor wrap(TensorImpl* p) { return Tensor(intrusive_ptr<TensorImpl>(p)); }

  bool defined() const { return impl_.defined(); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl() const { return impl_; }
  void reset() { impl_.reset(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t d) const { return impl_->size(maybe_wrap_dim(d, dim())); }
  int64_t stride(int64_t d) const { return impl_->stride(maybe_wrap_dim(d, dim())); }
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  DispatchKeySet key_set() const { return impl_->key_set(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_meta() const { return impl_->device().is_meta(); }
  bool is_cpu() const { return impl_->device().is_cpu(); }
  size_t itemsize() const { return impl_->itemsize(); }
  size_t element_size() const { return impl_->itemsize(); }
  size_t nbytes() const { return (size_t)numel() * itemsize(); }
  TensorOptions options() const { return TensorOptions(scalar_type(), device()); }
  void* data_ptr() const { return impl_->data(); }
  template <class T>
  T* data_ptr() const { return static_cast<T*>(impl_->data()); }
  uint32_t _version() const { return impl_->version(); }
  void bump_version() const { impl_->bump_version(); }

 private:
  intrusive_ptr<TensorImpl> impl_;
};

// Make a fresh tensor (contiguous unless strides are given) on `opts.device`
// through that device's registered allocator.
Tensor make_empty(IntArrayRef sizes, TensorOptions opts);
Tensor make_empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions opts);
// A view of `base` with new geometry: shares storage and version counter.
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
// A 0-dim tensor for a Python number (flagged as a wrapped number).
Tensor scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device = Device(DeviceType::CPU));
Tensor wrapped_scalar_tensor(const Scalar& s);
// The number held by a one-element tensor (any device with host-readable memory).
Scalar item(const Tensor& t);

}  // namespace c10

namespace at {
using c10::ArrayRef;
using c10::Device;
using c10::DeviceType;
using c10::DimVector;
using c10::DispatchKey;
using c10::DispatchKeySet;
using c10::IntArrayRef;
using c10::Layout;
using c10::MemoryFormat;
using c10::Scalar;
using c10::ScalarType;
using c10::SmallVector;
using c10::Tensor;
using c10::TensorOptions;
using TensorList = c10::ArrayRef<Tensor>;
using c10::maybe_wrap_dim;
using c10::make_empty;
using c10::make_empty_strided;
using c10::make_view;
using c10::scalar_to_tensor;
using c10::wrapped_scalar_tensor;
}  // namespace at
