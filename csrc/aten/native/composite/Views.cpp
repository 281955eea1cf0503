// View ops: new sizes/strides/offset over the same storage, no copy. They
// only touch metadata, so one composite kernel serves every backend.
//
// Primitive views (CompositeExplicitAutograd, each with a derivative) build
// their result with make_view, which shares the storage and the version
// counter with the base. Views derived from other views (t, flatten, split,
// movedim, ...) are CompositeImplicitAutograd: they call the primitives
// through the dispatcher, so autograd sees only the primitives.
#include <algorithm>
#include <numeric>

#include "ops/_to_copy.h"
#include "ops/adjoint.h"
#include "ops/alias.h"
#include "ops/as_strided.h"
#include "ops/broadcast_to.h"
#include "ops/chunk.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/detach.h"
#include "ops/diagonal.h"
#include "ops/expand.h"
#include "ops/expand_as.h"
#include "ops/flatten.h"
#include "ops/moveaxis.h"
#include "ops/movedim.h"
#include "ops/narrow.h"
#include "ops/permute.h"
#include "ops/ravel.h"
#include "ops/reshape.h"
#include "ops/reshape_as.h"
#include "ops/select.h"
#include "ops/slice.h"
#include "ops/split.h"
#include "ops/split_with_sizes.h"
#include "ops/squeeze.h"
#include "ops/swapaxes.h"
#include "ops/swapdims.h"
#include "ops/t.h"
#include "ops/to.h"
#include "ops/transpose.h"
#include "ops/type_as.h"
#include "ops/unbind.h"
#include "ops/unflatten.h"
#include "ops/unfold.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/view_as.h"

namespace at::native {

namespace {

// Resolve one -1 in `shape` against `numel` (PyTorch's infer_size_dv).
DimVector infer_view_size(IntArrayRef shape, int64_t numel) {
  DimVector res(shape);
  int64_t newsize = 1;
  std::optional<int64_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TL_CHECK(!infer, "only one dimension can be inferred");
      infer = (int64_t)i;
    } else {
      TL_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i], " at index ", i, " of shape ", shape);
      newsize *= shape[i];
    }
  }
  if (infer) {
    TL_CHECK(newsize != 0, "cannot reshape tensor of 0 elements into shape ", shape,
             " because the unspecified dimension size -1 can be any value and is ambiguous");
    TL_CHECK(numel % newsize == 0, "shape '", shape, "' is invalid for input of size ", numel);
    res[*infer] = numel / newsize;
  } else {
    TL_CHECK(numel == newsize, "shape '", shape, "' is invalid for input of size ", numel);
  }
  return res;
}

// Strides that let a tensor of (oldshape, oldstride) be viewed as newshape
// without copying, or nullopt when some new dim would span two
// non-contiguous chunks of the old layout (PyTorch's computeStride).
std::optional<DimVector> compute_view_strides(IntArrayRef oldshape, IntArrayRef oldstride, IntArrayRef newshape) {
  DimVector newstride(newshape.size(), 0);
  if (oldshape.empty()) {
    for (auto& s : newstride) s = 1;
    return newstride;
  }
  int64_t numel = c10::multiply_integers(oldshape);
  if (numel == 0 && oldshape.equals(newshape)) return DimVector(oldstride);
  if (numel == 0) {
    // Any strides work for an empty tensor; use contiguous ones.
    for (int64_t k = (int64_t)newshape.size() - 1; k >= 0; --k)
      newstride[k] = k == (int64_t)newshape.size() - 1 ? 1 : newstride[k + 1] * std::max<int64_t>(newshape[k + 1], 1);
    return newstride;
  }
  int64_t view_d = (int64_t)newshape.size() - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = (int64_t)oldshape.size() - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    // End of a contiguous chunk: the new dims covering it take strides from it.
    if (tensor_d == 0 ||
        (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

// Wrap a list of dims; `what` names the op for the duplicate error.
DimVector wrap_dims(IntArrayRef dims, int64_t ndim) {
  DimVector out;
  for (int64_t d : dims) out.push_back(maybe_wrap_dim(d, ndim));
  return out;
}

}  // namespace

// ------------------------------------------------------------------ primitives

TensorBase select(const TensorBase& self, int64_t dim, int64_t index) {
  TL_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  TL_CHECK_INDEX(index >= -size && index < size, "select(): index ", index, " out of range for tensor of size ",
                 self.sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset() + index * strides[dim];
  sizes.erase(dim);
  strides.erase(dim);
  return make_view(self, sizes, strides, offset);
}

TensorBase slice(const TensorBase& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  TL_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  TL_CHECK_VALUE(step > 0, "slice step must be positive");
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  int64_t s = start.value_or(0), e = end.value_or(size);
  // Python slice semantics: negative counts from the end, out-of-range clamps.
  if (s < 0) s += size;
  if (e < 0) e += size;
  s = std::min(std::max<int64_t>(s, 0), size);
  e = std::min(std::max<int64_t>(e, s), size);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset() + s * strides[dim];
  sizes[dim] = (e - s + step - 1) / step;
  strides[dim] *= step;
  return make_view(self, sizes, strides, offset);
}

TensorBase unsqueeze(const TensorBase& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim() + 1);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t st = dim < self.dim() ? sizes[dim] * strides[dim] : 1;
  sizes.insert(dim, 1);
  strides.insert(dim, st);
  return make_view(self, sizes, strides, self.storage_offset());
}

TensorBase view(const TensorBase& self, IntArrayRef size) {
  DimVector shape = infer_view_size(size, self.numel());
  auto strides = compute_view_strides(self.sizes(), self.strides(), shape);
  TL_CHECK(strides.has_value(),
           "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
           "two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *strides, self.storage_offset());
}

TensorBase permute(const TensorBase& self, IntArrayRef dims) {
  int64_t n = self.dim();
  TL_CHECK((int64_t)dims.size() == n, "permute(sparse_coo): number of dimensions in the tensor input does not match "
           "the length of the desired ordering of dimensions i.e. input.dim() = ", n, " is not equal to len(dims) = ",
           dims.size());
  DimVector sizes, strides;
  std::vector<bool> seen(n, false);
  for (int64_t d : dims) {
    int64_t w = maybe_wrap_dim(d, n);
    TL_CHECK(!seen[w], "permute(): duplicate dims are not allowed.");
    seen[w] = true;
    sizes.push_back(self.sizes()[w]);
    strides.push_back(self.strides()[w]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

TensorBase transpose(const TensorBase& self, int64_t dim0, int64_t dim1) {
  int64_t n = self.dim();
  dim0 = maybe_wrap_dim(dim0, n);
  dim1 = maybe_wrap_dim(dim1, n);
  DimVector sizes(self.sizes()), strides(self.strides());
  if (n > 0) {
    std::swap(sizes[dim0], sizes[dim1]);
    std::swap(strides[dim0], strides[dim1]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

TensorBase squeeze(const TensorBase& self) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.sizes()[d] != 1) {
      sizes.push_back(self.sizes()[d]);
      strides.push_back(self.strides()[d]);
    }
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

TensorBase squeeze_dims(const TensorBase& self, IntArrayRef dim) {
  int64_t n = self.dim();
  std::vector<bool> drop(std::max<int64_t>(n, 1), false);
  for (int64_t d : dim) {
    int64_t w = maybe_wrap_dim(d, n);
    TL_CHECK(!drop[w], "dim ", w, " appears multiple times in the list of dims");
    drop[w] = true;
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < n; ++d) {
    // Only size-1 dims go; a named dim of another size is left alone (PyTorch).
    if (drop[d] && self.sizes()[d] == 1) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

TensorBase squeeze_dim(const TensorBase& self, int64_t dim) {
  int64_t d = dim;
  return squeeze_dims(self, IntArrayRef(&d, 1));
}

TensorBase expand(const TensorBase& self, IntArrayRef size, bool implicit) {
  (void)implicit;
  int64_t n = (int64_t)size.size(), nself = self.dim();
  TL_CHECK(n >= nself, "expand(", toString(self.scalar_type()), "Tensor{", self.sizes(), "}, size=", size,
           "): the number of sizes provided (", n, ") must be greater or equal to the number of dimensions in the "
           "tensor (", nself, ")");
  DimVector sizes(size), strides(size.size(), 0);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t off = n - 1 - i, dim = nself - 1 - off;
    int64_t s = dim >= 0 ? self.sizes()[dim] : 1;
    // A new dim steps over the dims inside it (0 for the innermost, which only
    // a 0-dim tensor has), as PyTorch lays it out.
    int64_t st = dim >= 0 ? self.strides()[dim] : (i + 1 < n ? sizes[i + 1] * strides[i + 1] : 0);
    int64_t target = size[i];
    if (target == -1) {
      TL_CHECK(dim >= 0, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension ",
               i);
      target = s;
    }
    if (s != target) {
      TL_CHECK(s == 1, "The expanded size of the tensor (", target, ") must match the existing size (", s,
               ") at non-singleton dimension ", i, ".  Target sizes: ", size, ".  Tensor sizes: ", self.sizes());
      st = 0;
    }
    TL_CHECK(target >= 0, "The expanded size of the tensor (", target, ") is not allowed to be negative");
    sizes[i] = target;
    strides[i] = st;
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

TensorBase as_strided(const TensorBase& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  TL_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  int64_t offset = storage_offset.value_or(self.storage_offset());
  TL_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  for (size_t i = 0; i < size.size(); ++i) {
    TL_CHECK(size[i] >= 0, "as_strided: Negative sizes are not supported, got sizes: ", size);
    TL_CHECK(stride[i] >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ", stride);
  }
  // Never let a view reach past its storage: the last element it can touch
  // must lie inside the buffer (meta storages carry their size too).
  int64_t itemsize = (int64_t)self.itemsize();
  int64_t need_bytes = c10::storage_bytes_needed(size, stride, offset, itemsize, "as_strided");
  int64_t have = (int64_t)self.unsafeGetTensorImpl()->storage()->nbytes;
  TL_CHECK(need_bytes <= have, "setStorage: sizes ", size, ", strides ", stride, ", storage offset ", offset,
           ", and itemsize ", itemsize, " requiring a storage size of ", need_bytes,
           " are out of bounds for storage of size ", have);
  return make_view(self, size, stride, offset);
}

TensorBase diagonal(const TensorBase& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t n = self.dim();
  dim1 = maybe_wrap_dim(dim1, n);
  dim2 = maybe_wrap_dim(dim2, n);
  TL_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t s1 = self.sizes()[dim1], s2 = self.sizes()[dim2];
  int64_t len, start = self.storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(s1, s2 - offset), 0);
    if (len > 0) start += offset * self.strides()[dim2];
  } else {
    len = std::max<int64_t>(std::min(s1 + offset, s2), 0);
    if (len > 0) start -= offset * self.strides()[dim1];
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < n; ++d) {
    if (d == dim1 || d == dim2) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(len);
  strides.push_back(self.strides()[dim1] + self.strides()[dim2]);
  return make_view(self, sizes, strides, start);
}

TensorBase unfold(const TensorBase& self, int64_t dimension, int64_t size, int64_t step) {
  int64_t n = self.dim();
  int64_t d = maybe_wrap_dim(dimension, n);
  int64_t max_size = n == 0 ? 1 : self.sizes()[d];
  TL_CHECK(size <= max_size, "maximum size for tensor at dimension ", d, " is ", max_size, " but size is ", size);
  TL_CHECK(size >= 0, "size is ", size, " but must be >= 0");
  TL_CHECK(step > 0, "step is ", step, " but must be > 0");
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t st = n == 0 ? 1 : self.strides()[d];
  if (n > 0) {
    sizes[d] = (self.sizes()[d] - size) / step + 1;
    strides[d] = step * st;
  }
  sizes.push_back(size);
  strides.push_back(st);
  return make_view(self, sizes, strides, self.storage_offset());
}

TensorBase alias(const TensorBase& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

// A new tensor object over the same storage; autograd (when it lands) cuts
// the graph here because the op is declared non-differentiable.
TensorBase detach(const TensorBase& self) { return make_view(self, self.sizes(), self.strides(), self.storage_offset()); }

// The one copying conversion: dtype and/or device change (and the memory
// format), always a new tensor. `to` decides whether to call it at all.
TensorBase _to_copy(const TensorBase& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking,
                std::optional<MemoryFormat> memory_format) {
  (void)layout;
  (void)pin_memory;
  ScalarType dt = dtype.value_or(self.scalar_type());
  Device dev = device.value_or(self.device());
  TL_CHECK_NOT_IMPLEMENTED(!(self.is_meta() && !dev.is_meta()), "Cannot copy out of meta tensor; no data!");
  MemoryFormat fmt = memory_format.value_or(MemoryFormat::Preserve);
  // Preserve keeps a dense layout's strides (a transposed matrix stays
  // transposed), as PyTorch's `to` does; anything else becomes contiguous.
  bool keep = fmt == MemoryFormat::Preserve && self.unsafeGetTensorImpl()->is_non_overlapping_and_dense();
  TensorOptions opts(dt, dev);
  TensorBase out = keep ? make_empty_strided(self.sizes(), self.strides(), opts) : make_empty(self.sizes(), opts);
  if (dev.is_meta()) return out;
  at::_ops::copy_(out, self, non_blocking);
  return out;
}

// ------------------------------------------------------------------ derived views

TensorBase reshape(const TensorBase& self, IntArrayRef shape) {
  DimVector s = infer_view_size(shape, self.numel());
  if (compute_view_strides(self.sizes(), self.strides(), s)) return at::_ops::view(self, s);
  return at::_ops::view(at::_ops::clone(self, MemoryFormat::Contiguous), s);
}

TensorBase view_as(const TensorBase& self, const TensorBase& other) { return at::_ops::view(self, other.sizes()); }
TensorBase reshape_as(const TensorBase& self, const TensorBase& other) { return at::_ops::reshape(self, other.sizes()); }

TensorBase ravel(const TensorBase& self) {
  int64_t m1 = -1;
  return at::_ops::reshape(self, IntArrayRef(&m1, 1));
}

TensorBase swapaxes(const TensorBase& self, int64_t a, int64_t b) { return at::_ops::transpose(self, a, b); }
TensorBase swapdims(const TensorBase& self, int64_t a, int64_t b) { return at::_ops::transpose(self, a, b); }

TensorBase t(const TensorBase& self) {
  TL_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  if (self.dim() < 2) return at::_ops::transpose(self, 0, 0);
  return at::_ops::transpose(self, 0, 1);
}

TensorBase adjoint(const TensorBase& self) {
  TL_CHECK(self.dim() >= 2, "tensor.adjoint() is only supported on matrices or batches of matrices. Got ", self.dim(), "-D tensor.");
  return at::_ops::transpose(self, -2, -1);
}

TensorBase expand_as(const TensorBase& self, const TensorBase& other) { return at::_ops::expand(self, other.sizes(), false); }
TensorBase broadcast_to(const TensorBase& self, IntArrayRef size) { return at::_ops::expand(self, size, false); }

TensorBase flatten(const TensorBase& self, int64_t start_dim, int64_t end_dim) {
  int64_t n = self.dim();
  start_dim = maybe_wrap_dim(start_dim, n);
  end_dim = maybe_wrap_dim(end_dim, n);
  TL_CHECK(start_dim <= end_dim, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (n == 0) {
    int64_t one = 1;
    return at::_ops::reshape(self, IntArrayRef(&one, 1));
  }
  if (start_dim == end_dim) return at::_ops::alias(self);
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(self.sizes()[d]);
  int64_t m = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) m *= self.sizes()[d];
  shape.push_back(m);
  for (int64_t d = end_dim + 1; d < n; ++d) shape.push_back(self.sizes()[d]);
  return at::_ops::reshape(self, shape);
}

TensorBase unflatten(const TensorBase& self, int64_t dim, IntArrayRef sizes) {
  dim = maybe_wrap_dim(dim, self.dim());
  TL_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  int64_t size = self.sizes()[dim];
  // Like infer_view_size, but errors name the dim being split.
  DimVector inferred(sizes);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      TL_CHECK(infer == -1, "unflatten: only one dimension can be inferred");
      infer = (int64_t)i;
    } else {
      TL_CHECK(sizes[i] >= 0, "unflatten: invalid size ", sizes[i], " at index ", i, " of sizes ", sizes);
      known *= sizes[i];
    }
  }
  bool ok = infer >= 0 ? (known != 0 && size % known == 0) : known == size;
  TL_CHECK(ok, "unflatten: Provided sizes ", sizes, " don't multiply up to the size of dim ", dim, " (", size,
           ") in the input tensor");
  if (infer >= 0) inferred[infer] = size / known;
  DimVector shape;
  for (int64_t d = 0; d < dim; ++d) shape.push_back(self.sizes()[d]);
  for (int64_t s : inferred) shape.push_back(s);
  for (int64_t d = dim + 1; d < self.dim(); ++d) shape.push_back(self.sizes()[d]);
  return at::_ops::view(self, shape);
}

TensorBase narrow(const TensorBase& self, int64_t dim, int64_t start, int64_t length) {
  TL_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  TL_CHECK(length >= 0, "narrow(): length must be non-negative.");
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  TL_CHECK_INDEX(start >= -size && start <= size, "start out of range (expected to be in range of [", -size, ", ",
                 size, "], but got ", start, ")");
  if (start < 0) start += size;
  TL_CHECK(start <= size - length, "start (", start, ") + length (", length, ") exceeds dimension size (", size,
           ").");
  return at::_ops::slice(self, dim, start, start + length, 1);
}

std::vector<TensorBase> unbind(const TensorBase& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim(), /*wrap_scalar=*/false);
  int64_t n = self.sizes()[dim];
  std::vector<TensorBase> out;
  out.reserve(n);
  for (int64_t i = 0; i < n; ++i) out.push_back(at::_ops::select(self, dim, i));
  return out;
}

std::vector<TensorBase> split(const TensorBase& self, int64_t split_size, int64_t dim) {
  TL_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  TL_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  TL_CHECK(split_size > 0 || size == 0, "split_size can only be 0 if dimension size is 0, but got dimension size of ",
           size);
  // Always at least one chunk, so an empty dim still yields one (empty) piece.
  int64_t chunks = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<TensorBase> out;
  out.reserve(chunks);
  for (int64_t i = 0; i < chunks; ++i) {
    int64_t len = std::min(split_size, size - i * split_size);
    out.push_back(at::_ops::narrow(self, dim, i * split_size, std::max<int64_t>(len, 0)));
  }
  return out;
}

std::vector<TensorBase> split_with_sizes(const TensorBase& self, IntArrayRef split_sizes, int64_t dim) {
  TL_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim], total = 0;
  for (int64_t s : split_sizes) {
    TL_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
             split_sizes);
    total += s;
  }
  TL_CHECK(total == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
           " (input tensor's size at dimension ", dim, "), but got split_sizes=", split_sizes);
  std::vector<TensorBase> out;
  out.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(at::_ops::narrow(self, dim, start, s));
    start += s;
  }
  return out;
}

std::vector<TensorBase> split_sizes(const TensorBase& self, IntArrayRef split_size, int64_t dim) {
  return at::_ops::split_with_sizes(self, split_size, dim);
}

std::vector<TensorBase> chunk(const TensorBase& self, int64_t chunks, int64_t dim) {
  TL_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TL_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  int64_t split_size = (size + chunks - 1) / chunks;
  // PyTorch: an empty dim with split_size 0 gives `chunks` empty pieces.
  if (split_size == 0 && size == 0) {
    DimVector sizes(chunks, 0);
    return at::_ops::split_with_sizes(self, sizes, dim);
  }
  return at::_ops::split(self, split_size, dim);
}

TensorBase movedim(const TensorBase& self, IntArrayRef source, IntArrayRef destination) {
  int64_t n = self.dim();
  TL_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (", source,
           " dims) should contain the same number of dims as destination (", destination, " dims)");
  DimVector src = wrap_dims(source, n), dst = wrap_dims(destination, n);
  std::vector<bool> src_used(std::max<int64_t>(n, 1), false), dst_used(std::max<int64_t>(n, 1), false);
  for (int64_t d : src) {
    TL_CHECK(!src_used[d], "movedim: repeated dim in `source` (", source, ")");
    src_used[d] = true;
  }
  for (int64_t d : dst) {
    TL_CHECK(!dst_used[d], "movedim: repeated dim in `destination` (", destination, ")");
    dst_used[d] = true;
  }
  if (n == 0) return at::_ops::alias(self);
  // Place the moved dims at their destinations, then fill the remaining
  // slots with the untouched dims in their original order.
  DimVector order(n, -1);
  for (size_t i = 0; i < src.size(); ++i) order[dst[i]] = src[i];
  int64_t next = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (order[i] != -1) continue;
    while (src_used[next]) ++next;
    order[i] = next++;
  }
  return at::_ops::permute(self, order);
}

TensorBase movedim_int(const TensorBase& self, int64_t source, int64_t destination) {
  return at::_ops::movedim(self, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}
TensorBase moveaxis(const TensorBase& self, IntArrayRef source, IntArrayRef destination) {
  return at::_ops::movedim(self, source, destination);
}
TensorBase moveaxis_int(const TensorBase& self, int64_t source, int64_t destination) {
  return at::_ops::movedim(self, IntArrayRef(&source, 1), IntArrayRef(&destination, 1));
}

TensorBase contiguous(const TensorBase& self, MemoryFormat memory_format) {
  TL_CHECK(memory_format != MemoryFormat::Preserve,
           "preserve memory format is unsupported by the contiguous operator");
  if (self.is_contiguous()) return self;
  return at::_ops::clone(self, MemoryFormat::Contiguous);
}

// ------------------------------------------------------------------ to / type_as

namespace {
// `to` returns self when nothing would change and copy=False; else _to_copy.
TensorBase to_impl(const TensorBase& self, ScalarType dtype, Device device, bool non_blocking, bool copy,
               std::optional<MemoryFormat> memory_format) {
  // A device without an index ("cpu") matches the tensor's device of that type.
  bool same_device = self.device().type == device.type && (!device.has_index() || self.device() == device);
  bool same_format = !memory_format || *memory_format == MemoryFormat::Preserve ||
                     (*memory_format == MemoryFormat::Contiguous && self.is_contiguous());
  if (!copy && self.scalar_type() == dtype && same_device && same_format) return self;
  return at::_ops::_to_copy(self, dtype, std::nullopt, device, std::nullopt, non_blocking, memory_format);
}
}  // namespace

TensorBase to_dtype_layout(const TensorBase& self, std::optional<ScalarType> dtype, std::optional<Layout> layout,
                       std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking, bool copy,
                       std::optional<MemoryFormat> memory_format) {
  (void)layout;
  (void)pin_memory;
  return to_impl(self, dtype.value_or(self.scalar_type()), device.value_or(self.device()), non_blocking, copy,
                 memory_format);
}

TensorBase to_device(const TensorBase& self, Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy,
                 std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype.value_or(self.scalar_type()), device, non_blocking, copy, memory_format);
}

TensorBase to_dtype(const TensorBase& self, ScalarType dtype, bool non_blocking, bool copy,
                std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, self.device(), non_blocking, copy, memory_format);
}

TensorBase to_other(const TensorBase& self, const TensorBase& other, bool non_blocking, bool copy,
                std::optional<MemoryFormat> memory_format) {
  return to_impl(self, other.scalar_type(), other.device(), non_blocking, copy, memory_format);
}

TensorBase type_as(const TensorBase& self, const TensorBase& other) {
  return at::_ops::to(self, other.scalar_type(), false, false, std::nullopt);
}

}  // namespace at::native
