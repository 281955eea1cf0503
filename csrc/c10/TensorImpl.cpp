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
  if (TL_UNLIKELY(detail::g_inference_mode_threads.load(std::memory_order_relaxed) != 0))
    version_->inference = InferenceMode::is_enabled();
}

TensorImpl::~TensorImpl() = default;

namespace detail {
std::atomic<int> g_inference_mode_threads{0};
}  // namespace detail

namespace {
struct InferenceModeTLS {
  bool on = false;
  ~InferenceModeTLS() {  // a thread that exits inside inference mode no longer counts
    if (on) detail::g_inference_mode_threads.fetch_sub(1, std::memory_order_relaxed);
  }
};
thread_local InferenceModeTLS tls_inference_mode;
}  // namespace

bool InferenceMode::is_enabled() { return tls_inference_mode.on; }

void InferenceMode::set_enabled(bool enabled) {
  if (enabled == tls_inference_mode.on) return;
  tls_inference_mode.on = enabled;
  detail::g_inference_mode_threads.fetch_add(enabled ? 1 : -1, std::memory_order_relaxed);
}

void TensorImpl::check_inference_write() const {
  TL_CHECK(InferenceMode::is_enabled(),
           "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
           "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.");
}

DimVector contiguousStrides(IntArrayRef sizes) {
  DimVector st(sizes.size());
  int64_t s = 1;
  for (int64_t i = (int64_t)sizes.size() - 1; i >= 0; --i) {
    st[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return st;
}

// One pass; a zero-size dim makes the count 0 even if a partial product overflowed.
static inline bool numel_of(IntArrayRef sizes, int64_t* out) {
  int64_t n = 1;
  bool overflow = false, zero = false, negative = false;
  for (int64_t s : sizes) {
    overflow |= __builtin_mul_overflow(n, s, &n);
    zero |= s == 0;
    negative |= s < 0;
  }
  *out = zero ? 0 : n;
  return !negative && (zero || !overflow);
}

int64_t checked_numel(IntArrayRef sizes, const char* op) {
  int64_t n;
  if (TL_LIKELY(numel_of(sizes, &n))) return n;
  for (int64_t s : sizes) TL_CHECK(s >= 0, op, ": Trying to create tensor with negative dimension ", s, ": ", sizes);
  TL_ERROR(op, ": the number of elements of a tensor of size ", sizes, " overflows int64");
}

int64_t storage_bytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize, const char* op) {
  int64_t last = offset;  // index of the furthest element
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    TL_CHECK(strides[i] >= 0, op, ": negative strides are not supported, got strides: ", strides);
  }
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t step;
    overflow = overflow || __builtin_mul_overflow(sizes[i] - 1, strides[i], &step) ||
               __builtin_add_overflow(last, step, &last);
  }
  int64_t bytes = 0;
  overflow = overflow || __builtin_add_overflow(last, (int64_t)1, &last) ||
             __builtin_mul_overflow(last, (int64_t)itemsize, &bytes);
  TL_CHECK(!overflow, op, ": a tensor of size ", sizes, " with strides ", strides, " and storage offset ", offset,
           " needs more than 2^63 bytes of storage");
  return bytes;
}

void TensorImpl::refresh() {
  if (TL_UNLIKELY(!numel_of(sizes_, &numel_))) checked_numel(sizes_, "tensor");  // raises with the reason
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
  DimVector st = contiguousStrides(sizes);
  size_t need = (size_t)storage_bytes_needed(sizes, st, storage_offset_, itemsize(), "resize_");
  if (need > storage_->nbytes) storage_->resize(need);
  set_sizes_contiguous(sizes);
}

void StorageImpl::resize(size_t new_nbytes) {
  TL_CHECK(resizable && allocator, "Trying to resize storage that is not resizable");
  DataPtr fresh = allocator->allocate(new_nbytes, data.device.index, 0);  // same device as before
  if (data.ptr && fresh.ptr && nbytes) allocator->copy_data(fresh.ptr, data.ptr, std::min(nbytes, new_nbytes));
  data.release();
  data = fresh;
  nbytes = new_nbytes;
}

int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar) {
  if (ndim <= 0) {
    TL_CHECK_INDEX(wrap_scalar, "Dimension specified as ", dim, " but tensor has no dimensions");
    ndim = 1;
  }
  int64_t lo = -ndim, hi = ndim - 1;
  TL_CHECK_INDEX(dim >= lo && dim <= hi, "Dimension out of range (expected to be in range of [", lo, ", ", hi,
                 "], but got ", dim, ")");
  return dim < 0 ? dim + ndim : dim;
}

}  // namespace c10
