// TensorBase: the tensor handle every layer of the library passes around, one
// refcounted pointer. It has metadata accessors but no operator methods:
// library code calls operators through at::_ops (build/generated/ops/*.h), so
// it does not recompile when an operator is added. The user-facing at::Tensor
// (generated TensorBody.h) derives from it and adds a method per operator.
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

class TensorBase {
 public:
  TensorBase() = default;
  explicit TensorBase(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  static TensorBase wrap(TensorImpl* p) { return TensorBase(intrusive_ptr<TensorImpl>(p)); }

  bool defined() const { return impl_.defined(); }
  TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl() const { return impl_; }
  void reset() { impl_.reset(); }
  bool is_same(const TensorBase& o) const { return impl_ == o.impl_; }
  uint32_t use_count() const { return impl_.use_count(); }

  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  // A 0-dim tensor has no dim to ask about (IndexError, as PyTorch).
  int64_t size(int64_t d) const { return impl_->size(maybe_wrap_dim(d, dim(), /*wrap_scalar=*/false)); }
  int64_t stride(int64_t d) const { return impl_->stride(maybe_wrap_dim(d, dim(), /*wrap_scalar=*/false)); }
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
TensorBase make_empty(IntArrayRef sizes, TensorOptions opts);
TensorBase make_empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions opts);
// A view of `base` with new geometry: shares storage and version counter.
TensorBase make_view(const TensorBase& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
// A 0-dim tensor for a Python number (flagged as a wrapped number).
TensorBase scalar_to_tensor(const Scalar& s, ScalarType dtype, Device device = Device(DeviceType::CPU));
TensorBase wrapped_scalar_tensor(const Scalar& s);
// The number held by a one-element tensor (any device with host-readable memory).
Scalar item(const TensorBase& t);

// Versions across composite kernels (used by the generated wrappers, op.cpp.j2).
// A composite builds its result, or writes its (a!) arguments, through nested
// in-place ops that each bump; as in PyTorch, where those run below the
// ADInplaceOrView layer, the op as a whole is one write: a written argument
// moves from `before` by exactly one, and a fresh result starts at version 0.
inline void finish_composite_write(const TensorBase& t, uint32_t before) {
  t.unsafeGetTensorImpl()->set_version(before);
  t.bump_version();
}
inline void finish_composite_result(const TensorBase& t) {
  // Fresh: nothing else (an input, a view) shares its version counter.
  if (t.defined() && t.unsafeGetTensorImpl()->version_counter().use_count() == 1)
    t.unsafeGetTensorImpl()->set_version(0);
}

}  // namespace c10

namespace at {
using c10::ArrayRef;
using c10::Device;
using c10::DeviceType;
using c10::DimVector;
using c10::DispatchKey;
using c10::DispatchKeySet;
using c10::IntArrayRef;
using c10::OptionalIntArrayRef;
using c10::Layout;
using c10::MemoryFormat;
using c10::Scalar;
using c10::ScalarType;
using c10::SmallVector;
using c10::TensorBase;
using c10::TensorOptions;
using c10::kBool;
using c10::kByte;
using c10::kChar;
using c10::kShort;
using c10::kInt;
using c10::kLong;
using c10::kHalf;
using c10::kBFloat16;
using c10::kFloat;
using c10::kDouble;
using c10::kCPU;
using c10::kCUDA;
using c10::kMeta;
using c10::kPrivateUse1;
using TensorBaseList = c10::ArrayRef<TensorBase>;
using c10::maybe_wrap_dim;
using c10::make_empty;
using c10::make_empty_strided;
using c10::make_view;
using c10::scalar_to_tensor;
using c10::wrapped_scalar_tensor;
}  // namespace at
