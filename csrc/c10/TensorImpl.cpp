#include "TensorImpl.h"

#include <algorithm>
#include <cstring>

namespace c10 {

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Device device)
    : storage_(std::move(storage)),
      dtype_(dtype),
      device_(device),
      key_set_(tensorKeySet(device.type)),
      version_(intrusive_ptr<VersionCounter>::make()) {
  sizes_.resize(1, 0);
  strides_.resize(1, 1);
  numel_ = 0;
}

TensorImpl::~TensorImpl() = default;

DimVector contiguousStrides(IntArrayRef sizes) {
  DimVector st(sizes.size());
  int64_t s = 1;
  for (int64_t i = (int64_t)sizes.size() - 1; i >= 0; --i) {
    st[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return st;
}

void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  // Contiguity ignores strides of size-1 dims, as PyTorch does.
  is_contiguous_ = true;
  if (numel_ != 0) {
    int64_t expected = 1;
    for (int64_t i = dim() - 1; i >= 0; --i) {
      if (sizes_[i] == 1) continue;
      if (strides_[i] != expected) {
        is_contiguous_ = false;
        break;
      }
      expected *= sizes_[i];
    }
  }
}

bool TensorImpl::is_non_overlapping_and_dense() const {
  if (is_contiguous_) return true;
  int64_t n = dim();
  SmallVector<int64_t, 6> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    if (sizes_[a] < 2) return false;
    if (sizes_[b] < 2) return true;
    return strides_[a] < strides_[b];
  });
  int64_t expected = 1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = perm[i];
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) return false;
    expected *= sizes_[d];
  }
  return true;
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  sizes_ = sizes;
  strides_ = strides;
  storage_offset_ = offset;
  refresh();
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  sizes_ = sizes;
  strides_ = contiguousStrides(sizes);
  refresh();
}

void TensorImpl::resize(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    TL_CHECK(s >= 0, "resize: negative size ", s, " in ", sizes);
    n *= s;
  }
  size_t need = (size_t)(n + storage_offset_) * itemsize();
  if (need > storage_->nbytes) storage_->resize(need);
  set_sizes_contiguous(sizes);
}

void StorageImpl::resize(size_t new_nbytes) {
  TL_CHECK(resizable && allocator, "Trying to resize storage that is not resizable");
  DataPtr fresh = allocator->allocate(new_nbytes);
  if (data.ptr && fresh.ptr && nbytes) allocator->copy_data(fresh.ptr, data.ptr, std::min(nbytes, new_nbytes));
  data.release();
  data = fresh;
  nbytes = new_nbytes;
}

int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar) {
  if (ndim <= 0) {
    TL_CHECK_INDEX(wrap_scalar, "dimension specified as ", dim, " but tensor has no dimensions");
    ndim = 1;
  }
  int64_t lo = -ndim, hi = ndim - 1;
  TL_CHECK_INDEX(dim >= lo && dim <= hi, "Dimension out of range (expected to be in range of [", lo, ", ", hi,
                 "], but got ", dim, ")");
  return dim < 0 ? dim + ndim : dim;
}

}  // namespace c10
