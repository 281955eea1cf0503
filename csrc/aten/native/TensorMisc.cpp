// Tensor methods that change a tensor's own geometry or storage: the in-place
// views (transpose_, t_, squeeze_, unsqueeze_, swapaxes_/swapdims_,
// as_strided_), set_/is_set_to, resize_/resize_as_, and fill_diagonal_.
//
// They touch only TensorImpl metadata (or write through strided views), so
// one kernel serves every backend. The in-place views build the view their
// out-of-place twin would (same checks, same error messages) and move its
// geometry onto self. Versions: the CompositeExplicitAutograd wrappers bump
// each written tensor exactly once; resize_ has its own CPU/Meta kernel and
// bumps only when the geometry changes, as PyTorch does.
#include <algorithm>
#include <optional>

#include "autograd/AutogradMeta.h"
#include "ops/as_strided.h"
#include "ops/fill.h"
#include "ops/fill_diagonal.h"
#include "ops/is_set_to.h"
#include "ops/resize.h"
#include "ops/resize_as.h"
#include "ops/set.h"
#include "ops/squeeze.h"
#include "ops/swapaxes.h"
#include "ops/swapdims.h"
#include "ops/t.h"
#include "ops/transpose.h"
#include "ops/unsqueeze.h"

namespace at::native {

namespace {

void take_geometry(const TensorBase& self, const TensorBase& view) {
  self.unsafeGetTensorImpl()->set_sizes_and_strides(view.sizes(), view.strides(), view.storage_offset());
}

}  // namespace

// ---------------------------------------------------------------- in-place views

TensorBase transpose_(const TensorBase& self, int64_t dim0, int64_t dim1) {
  take_geometry(self, at::_ops::transpose(self, dim0, dim1));
  return self;
}

TensorBase t_(const TensorBase& self) {
  TL_CHECK(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  take_geometry(self, at::_ops::t(self));
  return self;
}

TensorBase squeeze_(const TensorBase& self) {
  take_geometry(self, at::_ops::squeeze(self));
  return self;
}

TensorBase squeeze_dim_(const TensorBase& self, int64_t dim) {
  take_geometry(self, at::_ops::squeeze(self, dim));
  return self;
}

TensorBase squeeze_dims_(const TensorBase& self, IntArrayRef dim) {
  take_geometry(self, at::_ops::squeeze(self, dim));
  return self;
}

TensorBase unsqueeze_(const TensorBase& self, int64_t dim) {
  take_geometry(self, at::_ops::unsqueeze(self, dim));
  return self;
}

// Aliases of transpose_ (CompositeImplicitAutograd: autograd sees transpose_).
TensorBase swapaxes_(const TensorBase& self, int64_t axis0, int64_t axis1) {
  return at::_ops::transpose_(self, axis0, axis1);
}

TensorBase swapdims_(const TensorBase& self, int64_t dim0, int64_t dim1) {
  return at::_ops::transpose_(self, dim0, dim1);
}

TensorBase as_strided_(const TensorBase& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset) {
  // as_strided checks the window against self's storage, so self never
  // reaches past its bytes.
  take_geometry(self, at::_ops::as_strided(self, size, stride, storage_offset));
  return self;
}

// ---------------------------------------------------------------- set_

namespace {

void check_set_source(const TensorBase& self, const TensorBase& source) {
  TL_CHECK(self.scalar_type() == source.scalar_type(), "set_: could not set a tensor of type ",
           self.scalar_type(), " to a source of type ", source.scalar_type());
  TL_CHECK(self.device() == source.device(), "set_: expected source on device ", self.device(), ", but got ",
           source.device());
}

}  // namespace

TensorBase set_source_tensor_(const TensorBase& self, const TensorBase& source) {
  check_set_source(self, source);
  if (self.is_same(source)) return self;
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_storage(source.unsafeGetTensorImpl()->storage());
  impl->set_sizes_and_strides(source.sizes(), source.strides(), source.storage_offset());
  return self;
}

TensorBase set_source_tensor_storage_offset_(const TensorBase& self, const TensorBase& source, int64_t storage_offset,
                                             IntArrayRef size, IntArrayRef stride) {
  check_set_source(self, source);
  // The source lends its storage from its own offset on, as in PyTorch.
  TL_CHECK(source.is_contiguous(), "set_: passed in tensor to be used as storage must be contiguous");
  storage_offset += source.storage_offset();
  TL_CHECK(storage_offset >= 0, "Tensor: invalid storage offset ", storage_offset);
  TL_CHECK(stride.empty() || stride.size() == size.size(), "set_: unequal size length (", size.size(),
           ") and stride length (", stride.size(), ")");
  c10::checked_numel(size, "set_");
  DimVector strides = stride.empty() ? c10::contiguousStrides(size) : DimVector(stride);
  const c10::Storage& storage = source.unsafeGetTensorImpl()->storage();
  // As in PyTorch, a window past the end grows the (shared) storage rather
  // than failing; a storage that cannot grow (from_numpy, a DLPack import)
  // raises instead.
  size_t need = (size_t)c10::storage_bytes_needed(size, strides, storage_offset, self.itemsize(), "set_");
  if (need > storage->nbytes) storage->resize(need);
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_storage(storage);
  impl->set_sizes_and_strides(size, strides, storage_offset);
  return self;
}

TensorBase set_empty_(const TensorBase& self) {
  // A fresh zero-byte storage from self's device allocator.
  TensorBase fresh = c10::make_empty({0}, self.options());
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_storage(fresh.unsafeGetTensorImpl()->storage());
  impl->set_sizes_and_strides({0}, {1}, 0);
  return self;
}

bool is_set_to(const TensorBase& self, const TensorBase& tensor) {
  // Same storage and same window (dtype is not compared, as in PyTorch).
  return self.unsafeGetTensorImpl()->storage().get() == tensor.unsafeGetTensorImpl()->storage().get() &&
         self.storage_offset() == tensor.storage_offset() && self.sizes() == tensor.sizes() &&
         self.strides() == tensor.strides();
}

// ---------------------------------------------------------------- resize_

TensorBase resize_(const TensorBase& self, IntArrayRef size, std::optional<MemoryFormat> memory_format) {
  // Checked here, not in an autograd kernel: PyTorch refuses even under
  // no_grad, where torchlike's autograd layer is not entered.
  TL_CHECK(!torchlike::autograd::requires_grad(self), "cannot resize variables that require grad");
  TL_CHECK(!memory_format || *memory_format == MemoryFormat::Contiguous,
           "resize_: unsupported memory format Preserve");
  c10::checked_numel(size, "resize_");
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  // Same sizes and no memory format: nothing changes, strides included.
  if (impl->sizes() == size && !memory_format) return self;
  bool same = impl->sizes() == size && impl->strides() == IntArrayRef(c10::contiguousStrides(size));
  impl->resize(size);  // grows the storage when needed, keeping its bytes
  if (!same) self.bump_version();
  return self;
}

TensorBase resize_as_(const TensorBase& self, const TensorBase& the_template,
                      std::optional<MemoryFormat> memory_format) {
  // Preserve follows the template's layout; with no channels-last formats
  // in torchlike that layout is contiguous.
  std::optional<MemoryFormat> fmt = memory_format;
  if (fmt && *fmt == MemoryFormat::Preserve) fmt = MemoryFormat::Contiguous;
  return at::_ops::resize_(self, the_template.sizes(), fmt);
}

// ---------------------------------------------------------------- fill_diagonal_

TensorBase fill_diagonal_(const TensorBase& self, const Scalar& fill_value, bool wrap) {
  int64_t n = self.dim();
  TL_CHECK(n >= 2, "fill_diagonal_: dimensions must larger than 1");
  int64_t height = self.size(0), width = self.size(1);
  if (n > 2)
    for (int64_t d = 1; d < n; ++d)
      TL_CHECK(self.size(d) == height, "fill_diagonal_: all dimensions of input must be of equal length");
  // The diagonal is one strided view: one step along every dim at once.
  int64_t step = 0;
  for (int64_t d = 0; d < n; ++d) step += self.stride(d);
  int64_t len = std::min(height, width);
  int64_t offset = self.storage_offset();
  at::_ops::fill_(at::_ops::as_strided(self, {len}, {step}, offset), fill_value);
  // A tall matrix with wrap: the diagonal restarts every width + 1 rows,
  // counted in elements as PyTorch counts them (numel / (width + 1)).
  if (wrap && n == 2 && height > width + 1) {
    int64_t period = width + 1;
    int64_t wrap_len = (self.numel() + period - 1) / period - len;
    at::_ops::fill_(at::_ops::as_strided(self, {wrap_len}, {step}, offset + self.stride(0) * period), fill_value);
  }
  return self;
}

}  // namespace at::native
