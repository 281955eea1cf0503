// gather/scatter/index_* family: checks, the iteration plan, Meta kernels and
// the composites (functional = clone + in-place, out=, take_along_dim). The
// CPU loops are in cpu/ScatterGather.cpp.
#include "ScatterGather.h"

#include <string>
#include <vector>

#include "ReduceUtils.h"
#include "aten/MemoryOverlap.h"
#include "aten/TensorIterator.h"
#include "ops/broadcast_to.h"
#include "ops/clone.h"
#include "ops/gather.h"
#include "ops/index_add.h"
#include "ops/index_copy.h"
#include "ops/index_fill.h"
#include "ops/index_reduce.h"
#include "ops/index_select.h"
#include "ops/reshape.h"
#include "ops/scatter.h"
#include "ops/scatter_add.h"
#include "ops/scatter_reduce.h"
#include "ops/take_along_dim.h"

namespace at::native {

// ---------------------------------------------------------------- reduce strings and errors

ScatterOp parse_scatter_legacy_reduce(std::string_view r) {
  if (r == "add") return ScatterOp::Sum;
  if (r == "multiply") return ScatterOp::Prod;
  TL_CHECK(false, "reduce argument must be either add or multiply.");
}

ScatterOp parse_scatter_reduce(std::string_view r) {
  if (r == "sum") return ScatterOp::Sum;
  if (r == "prod") return ScatterOp::Prod;
  if (r == "mean") return ScatterOp::Mean;
  // PyTorch also takes the undocumented spellings max and min.
  if (r == "amax" || r == "max") return ScatterOp::Max;
  if (r == "amin" || r == "min") return ScatterOp::Min;
  TL_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", r);
}

ScatterOp parse_index_reduce(std::string_view r) {
  if (r == "prod") return ScatterOp::Prod;
  if (r == "mean") return ScatterOp::Mean;
  if (r == "amax") return ScatterOp::Max;
  if (r == "amin") return ScatterOp::Min;
  TL_CHECK(false, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", r, ".");
}

void raise_index_out_of_range(IndexErrorStyle style, int64_t index, int64_t dim, int64_t size) {
  switch (style) {
    case IndexErrorStyle::Bounds:
      c10::throw_error(c10::ErrorKind::Runtime, c10::str("index ", index, " is out of bounds for dimension ", dim,
                                                         " with size ", size));
    case IndexErrorStyle::RangeInSelf:
      c10::throw_error(c10::ErrorKind::Index, "index out of range in self");
    case IndexErrorStyle::Copy:
      c10::throw_error(c10::ErrorKind::Index, c10::str("index_copy_(): index ", index,
                                                       " is out of bounds for dimension ", dim, " with size ", size));
    case IndexErrorStyle::Fill:
      break;
  }
  c10::throw_error(c10::ErrorKind::Index, c10::str("index ", index, " is out of bounds for dimension ", dim,
                                                   " with size ", size));
}

// ---------------------------------------------------------------- plan

DimVector strides_1d(const TensorBase& t) { return t.dim() == 0 ? DimVector{0} : DimVector(t.strides()); }
DimVector sizes_1d(const TensorBase& t) { return t.dim() == 0 ? DimVector{1} : DimVector(t.sizes()); }

DimVector index_as_dim_strides(const TensorBase& index, int64_t ndim, int64_t dim) {
  DimVector s(std::max<int64_t>(ndim, 1), 0);
  s[dim] = index.dim() == 0 ? 0 : index.strides()[0];
  return s;
}

DimIndexPlan make_dim_index_plan(IntArrayRef sizes, int64_t dim, IntArrayRef indexed_strides,
                                 IntArrayRef plain_strides, IntArrayRef index_strides, int64_t indexed_dim_size) {
  const int64_t n = std::max<int64_t>((int64_t)sizes.size(), 1);
  auto at_or_zero = [](IntArrayRef a, int64_t d) { return d < (int64_t)a.size() ? a[d] : 0; };
  // Merge from the innermost dimension outwards; `dim` is never merged.
  struct D { int64_t size, is, ps, xs; bool is_dim; };
  std::vector<D> dims;
  for (int64_t d = n - 1; d >= 0; --d) {
    D cur{sizes.empty() ? 1 : sizes[d], at_or_zero(indexed_strides, d), at_or_zero(plain_strides, d),
          at_or_zero(index_strides, d), d == dim};
    if (!dims.empty() && !cur.is_dim && !dims.back().is_dim) {
      D& in = dims.back();  // the next-inner kept dimension
      if (cur.size == 1) continue;
      if (in.size == 1) {
        in = cur;
        continue;
      }
      if (cur.is == in.is * in.size && cur.ps == in.ps * in.size && cur.xs == in.xs * in.size) {
        in.size *= cur.size;
        continue;
      }
    }
    dims.push_back(cur);
  }
  TL_CHECK((int64_t)dims.size() <= kScatterMaxDims, "gather/scatter: tensors with more than ", kScatterMaxDims,
           " non-mergeable dimensions are not supported");
  DimIndexPlan p;
  p.ndim = (int)dims.size();
  for (int i = 0; i < p.ndim; ++i) {
    const D& d = dims[p.ndim - 1 - i];
    p.sizes[i] = d.size;
    p.indexed_strides[i] = d.is;
    p.plain_strides[i] = d.ps;
    p.index_strides[i] = d.xs;
    if (d.is_dim) p.dim = i;
  }
  p.indexed_dim_size = indexed_dim_size;
  return p;
}

// ---------------------------------------------------------------- checks

static bool is_index_dtype(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }
static int64_t ensure_nonempty_dim(int64_t d) { return std::max<int64_t>(d, 1); }
static int64_t ensure_nonempty_size(const TensorBase& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

static void check_same_device(const char* op, const TensorBase& a, const TensorBase& b) {
  TL_CHECK(a.device() == b.device(), op, "(): Expected all tensors to be on the same device, but found at least two "
           "devices, ", a.device(), " and ", b.device(), "!");
}

// The written-to tensor may not repeat elements (an expanded tensor) nor
// share memory with what the op reads.
static void check_inplace_overlap(const TensorBase& self, const TensorBase& other) {
  if (!other.defined() || self.numel() == 0 || other.numel() == 0) return;
  TL_CHECK(at::overlap_status(self, other) == at::MemOverlap::No,
           "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
           "memory location. Please clone() the tensor before performing the operation.");
}

int64_t gather_check(const TensorBase& self, int64_t dim, const TensorBase& index) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TL_CHECK(is_index_dtype(index.scalar_type()), "gather(): Expected dtype int32/int64 for index");
  check_same_device("gather", self, index);
  if (index.numel() == 0) return d;  // PyTorch skips the shape rules for an empty index
  TL_CHECK(ensure_nonempty_dim(index.dim()) == ensure_nonempty_dim(self.dim()),
           "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t i = 0; i < index.dim(); ++i)
    TL_CHECK(i == d || ensure_nonempty_size(index, i) <= ensure_nonempty_size(self, i),
             "Size does not match at dimension ", i, " expected index ", index.sizes(),
             " to be no larger than self ", self.sizes(), " apart from dimension ", d);
  return d;
}

int64_t scatter_check(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase* src) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TL_CHECK(is_index_dtype(index.scalar_type()), "scatter(): Expected dtype int32/int64 for index");
  TL_CHECK(!src || src->scalar_type() == self.scalar_type(), "scatter(): Expected self.dtype to be equal to src.dtype");
  check_same_device("scatter", self, index);
  if (src) check_same_device("scatter", self, *src);
  at::assert_no_internal_overlap(self, "scatter");
  check_inplace_overlap(self, index);
  if (src) check_inplace_overlap(self, *src);
  if (index.numel() == 0) return d;
  TL_CHECK(ensure_nonempty_dim(index.dim()) == ensure_nonempty_dim(self.dim()),
           "Index tensor must have the same number of dimensions as self tensor");
  if (src)
    TL_CHECK(ensure_nonempty_dim(index.dim()) == ensure_nonempty_dim(src->dim()),
             "Index tensor must have the same number of dimensions as src tensor");
  bool ok = true;
  for (int64_t i = 0; i < ensure_nonempty_dim(index.dim()); ++i) {
    const int64_t n = ensure_nonempty_size(index, i);
    if (i != d && n > ensure_nonempty_size(self, i)) ok = false;
    if (src && n > ensure_nonempty_size(*src, i)) ok = false;
  }
  if (!ok) {
    if (src)
      TL_CHECK(false, "Expected index ", index.sizes(), " to be no larger than self ", self.sizes(),
               " apart from dimension ", d, " and to be no larger size than src ", src->sizes());
    TL_CHECK(false, "Expected index ", index.sizes(), " to be no larger than self ", self.sizes(),
             " apart from dimension ", d);
  }
  return d;
}

int64_t index_select_check(const TensorBase& self, int64_t dim, const TensorBase& index) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TL_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TL_CHECK(is_index_dtype(index.scalar_type()), "index_select(): Expected dtype int32 or int64 for index");
  check_same_device("index_select", self, index);
  if (self.dim() == 0)
    TL_CHECK(index.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ", index.numel(),
             " value(s)");
  return d;
}

DimVector index_select_shape(const TensorBase& self, int64_t dim, const TensorBase& index) {
  if (self.dim() == 0) return DimVector();
  DimVector s(self.sizes());
  s[dim] = index.numel();
  return s;
}

int64_t index_add_check(const char* op, const TensorBase& self, int64_t dim, const TensorBase& index,
                        const TensorBase& source) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TL_CHECK_INDEX(index.dim() <= 1, op, "_(): Index is supposed to be a vector, but got dim: ", index.dim(),
                 " with type: ", index.scalar_type(), " and size: ", index.sizes());
  TL_CHECK(is_index_dtype(index.scalar_type()), op, "_(): Expected dtype int32/int64 for index but got: ",
           index.scalar_type());
  TL_CHECK(self.scalar_type() == source.scalar_type(), op, "_(): self (", self.scalar_type(), ") and source (",
           source.scalar_type(), ") must have the same scalar type");
  TL_CHECK(d == 0 || d < source.dim(), op, "_(): Indexing dim ", d, " is out of bounds of the source tensor with dim ",
           source.dim());
  const int64_t src_n = source.dim() == 0 ? 1 : source.sizes()[d];
  TL_CHECK(index.numel() == src_n, op, "_(): Number of indices (", index.numel(),
           ") should be equal to source.size(dim): (", src_n, "), for dim: ", d);
  DimVector ss(self.sizes()), rs(source.sizes());
  if (self.dim() != 0 && source.dim() != 0) {
    ss.erase((size_t)d);
    rs.erase((size_t)d);
  }
  TL_CHECK(IntArrayRef(ss).equals(IntArrayRef(rs)), "source tensor shape must match self tensor shape, excluding the "
           "specified dimension. Got self.shape = ", self.sizes(), " source.shape = ", source.sizes());
  check_same_device(op, self, index);
  check_same_device(op, self, source);
  at::assert_no_internal_overlap(self, op);
  check_inplace_overlap(self, index);
  check_inplace_overlap(self, source);
  return d;
}

int64_t index_copy_check(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TL_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  const int64_t n = index.numel();
  if (source.dim() == 0) {
    TL_CHECK_INDEX(n == 1, "index_copy_(): When source is scalar, index should have one element (got ", n, ")");
  } else {
    TL_CHECK_INDEX(self.dim() == 0 || source.dim() == self.dim(), "index_copy_(): When source and destination are "
                   "not scalars, their dimensionality must match. Source dimensionality (", source.dim(),
                   "), destination dimensionality (", self.dim(), ")");
    if (self.dim() == 0) {
      TL_CHECK_INDEX(source.numel() == 1 && n == 1, "index_copy_(): When destination is scalar, source and index "
                     "should have one element (got ", source.numel(), " and ", n, ")");
    } else {
      DimVector ss(self.sizes()), rs(source.sizes());
      ss.erase((size_t)d);
      rs.erase((size_t)d);
      if (!IntArrayRef(ss).equals(IntArrayRef(rs))) {
        std::string a, b;
        for (size_t i = 0; i < ss.size(); ++i) a += (i ? ", " : "") + std::to_string(ss[i]);
        for (size_t i = 0; i < rs.size(); ++i) b += (i ? ", " : "") + std::to_string(rs[i]);
        TL_CHECK(false, "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                 "shape: ", a, " at dimension ", d, " and source slice shape: ", b, " at dimension 0.");
      }
      TL_CHECK_INDEX(source.sizes()[d] == n, "index_copy_(): Number of indices (", n,
                     ") should be equal to source.size(dim) (", source.sizes()[d], ")");
    }
  }
  TL_CHECK(index.scalar_type() == ScalarType::Long, "index_copy_(): Expected a long tensor for index, but got ",
           index.scalar_type());
  TL_CHECK(self.scalar_type() == source.scalar_type(), "index_copy_(): self and source expected to have the same "
           "dtype, but got (self) ", self.scalar_type(), " and (source) ", source.scalar_type());
  check_same_device("index_copy", self, index);
  check_same_device("index_copy", self, source);
  at::assert_no_internal_overlap(self, "index_copy");
  check_inplace_overlap(self, index);
  check_inplace_overlap(self, source);
  return d;
}

int64_t index_fill_check(const TensorBase& self, int64_t dim, const TensorBase& index) {
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  TL_CHECK_INDEX(index.scalar_type() == ScalarType::Long, "index_fill_(): Expected dtype int64 for index.");
  TL_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  check_same_device("index_fill", self, index);
  at::assert_no_internal_overlap(self, "index_fill");
  check_inplace_overlap(self, index);
  return d;
}

// ---------------------------------------------------------------- Meta kernels (checks and shapes only)

TensorBase gather_meta(const TensorBase& self, int64_t dim, const TensorBase& index, bool /*sparse_grad*/) {
  gather_check(self, dim, index);
  return make_empty(index.sizes(), self.options());
}
TensorBase index_select_meta(const TensorBase& self, int64_t dim, const TensorBase& index) {
  const int64_t d = index_select_check(self, dim, index);
  return make_empty(index_select_shape(self, d, index), self.options());
}
// A Python number passed as src reaches the Tensor overload as a wrapped
// 0-dim tensor (the binding tries overloads in order): it is the value overload.
static bool is_number(const TensorBase& t) { return t.unsafeGetTensorImpl()->is_wrapped_number(); }

TensorBase scatter_src_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  scatter_check(self, dim, index, is_number(src) ? nullptr : &src);
  self.bump_version();
  return self;
}
TensorBase scatter_value_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar&) {
  scatter_check(self, dim, index, nullptr);
  self.bump_version();
  return self;
}
TensorBase scatter_reduce_legacy_meta_(const TensorBase& self, int64_t dim, const TensorBase& index,
                                       const TensorBase& src, std::string_view reduce) {
  scatter_check(self, dim, index, is_number(src) ? nullptr : &src);
  parse_scatter_legacy_reduce(reduce);
  self.bump_version();
  return self;
}
TensorBase scatter_value_reduce_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar&,
                                      std::string_view reduce) {
  scatter_check(self, dim, index, nullptr);
  parse_scatter_legacy_reduce(reduce);
  self.bump_version();
  return self;
}
TensorBase scatter_add_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  scatter_check(self, dim, index, &src);
  self.bump_version();
  return self;
}
TensorBase scatter_reduce_two_meta_(const TensorBase& self, int64_t dim, const TensorBase& index,
                                    const TensorBase& src, std::string_view reduce, bool /*include_self*/) {
  scatter_check(self, dim, index, &src);
  parse_scatter_reduce(reduce);
  self.bump_version();
  return self;
}
TensorBase index_add_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source,
                           const Scalar&) {
  index_add_check("index_add", self, dim, index, source);
  self.bump_version();
  return self;
}
TensorBase index_copy_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source) {
  index_copy_check(self, dim, index, source);
  self.bump_version();
  return self;
}
TensorBase index_fill_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar&) {
  index_fill_check(self, dim, index);
  self.bump_version();
  return self;
}
TensorBase index_reduce_meta_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source,
                              std::string_view reduce, bool /*include_self*/) {
  index_add_check("index_reduce", self, dim, index, source);
  parse_index_reduce(reduce);
  self.bump_version();
  return self;
}

// ---------------------------------------------------------------- composites

// Functional forms: a copy of self, then the in-place op on it.
TensorBase scatter_src(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  return at::_ops::scatter_(at::_ops::clone(self, std::nullopt), dim, index, src);
}
TensorBase scatter_value(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar& value) {
  return at::_ops::scatter_(at::_ops::clone(self, std::nullopt), dim, index, value);
}
TensorBase scatter_reduce_legacy(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src,
                                 std::string_view reduce) {
  return at::_ops::scatter_(at::_ops::clone(self, std::nullopt), dim, index, src, reduce);
}
TensorBase scatter_value_reduce(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar& value,
                                std::string_view reduce) {
  return at::_ops::scatter_(at::_ops::clone(self, std::nullopt), dim, index, value, reduce);
}
TensorBase scatter_add(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src) {
  return at::_ops::scatter_add_(at::_ops::clone(self, std::nullopt), dim, index, src);
}
TensorBase scatter_reduce_two(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& src,
                              std::string_view reduce, bool include_self) {
  return at::_ops::scatter_reduce_(at::_ops::clone(self, std::nullopt), dim, index, src, reduce, include_self);
}
TensorBase index_add(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source,
                     const Scalar& alpha) {
  return at::_ops::index_add_(at::_ops::clone(self, std::nullopt), dim, index, source, alpha);
}
TensorBase index_copy(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source) {
  return at::_ops::index_copy_(at::_ops::clone(self, std::nullopt), dim, index, source);
}
TensorBase index_fill_scalar(const TensorBase& self, int64_t dim, const TensorBase& index, const Scalar& value) {
  return at::_ops::index_fill_(at::_ops::clone(self, std::nullopt), dim, index, value);
}
static Scalar index_fill_value(const TensorBase& value) {
  TL_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
           value.dim(), " dimension(s).");
  // A meta tensor has no value to read, and a meta fill writes none.
  return value.is_meta() ? Scalar(0) : c10::item(value);
}
TensorBase index_fill_tensor_(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& value) {
  return at::_ops::index_fill_(self, dim, index, index_fill_value(value));
}
TensorBase index_fill_tensor(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& value) {
  return at::_ops::index_fill_(at::_ops::clone(self, std::nullopt), dim, index, index_fill_value(value));
}
TensorBase index_reduce(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source,
                        std::string_view reduce, bool include_self) {
  return at::_ops::index_reduce_(at::_ops::clone(self, std::nullopt), dim, index, source, reduce, include_self);
}

// out= forms: computed, then written into out, which must have self's dtype
// (PyTorch's structured-kernel rule) and is resized to the result's shape.
static TensorBase to_out(const TensorBase& out, const TensorBase& self, const TensorBase& result) {
  TL_CHECK(out.scalar_type() == self.scalar_type(), "Expected out tensor to have dtype ",
           c10::toPythonName(self.scalar_type()), ", but got ", c10::toPythonName(out.scalar_type()), " instead");
  TL_CHECK(out.device() == self.device(), "Expected out tensor to be on device ", self.device(), ", but got ",
           out.device());
  return copy_to_out(out, result);
}
TensorBase gather_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                      bool sparse_grad) {
  return to_out(out, self, at::_ops::gather(self, dim, index, sparse_grad));
}
TensorBase index_select_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index) {
  return to_out(out, self, at::_ops::index_select(self, dim, index));
}
TensorBase scatter_src_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                           const TensorBase& src) {
  return to_out(out, self, at::_ops::scatter(self, dim, index, src));
}
TensorBase scatter_value_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                             const Scalar& value) {
  return to_out(out, self, at::_ops::scatter(self, dim, index, value));
}
TensorBase scatter_reduce_legacy_out(const TensorBase& out, const TensorBase& self, int64_t dim,
                                     const TensorBase& index, const TensorBase& src, std::string_view reduce) {
  return to_out(out, self, at::_ops::scatter(self, dim, index, src, reduce));
}
TensorBase scatter_value_reduce_out(const TensorBase& out, const TensorBase& self, int64_t dim,
                                    const TensorBase& index, const Scalar& value, std::string_view reduce) {
  return to_out(out, self, at::_ops::scatter(self, dim, index, value, reduce));
}
TensorBase scatter_add_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                           const TensorBase& src) {
  return to_out(out, self, at::_ops::scatter_add(self, dim, index, src));
}
TensorBase scatter_reduce_two_out(const TensorBase& out, const TensorBase& self, int64_t dim,
                                  const TensorBase& index, const TensorBase& src, std::string_view reduce,
                                  bool include_self) {
  return to_out(out, self, at::_ops::scatter_reduce(self, dim, index, src, reduce, include_self));
}
TensorBase index_add_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                         const TensorBase& source, const Scalar& alpha) {
  return to_out(out, self, at::_ops::index_add(self, dim, index, source, alpha));
}
TensorBase index_copy_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                          const TensorBase& source) {
  return to_out(out, self, at::_ops::index_copy(self, dim, index, source));
}
TensorBase index_fill_scalar_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                                 const Scalar& value) {
  return to_out(out, self, at::_ops::index_fill(self, dim, index, value));
}
TensorBase index_fill_tensor_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                                 const TensorBase& value) {
  return to_out(out, self, at::_ops::index_fill(self, dim, index, value));
}
TensorBase index_reduce_out(const TensorBase& out, const TensorBase& self, int64_t dim, const TensorBase& index,
                            const TensorBase& source, std::string_view reduce, bool include_self) {
  return to_out(out, self, at::_ops::index_reduce(self, dim, index, source, reduce, include_self));
}

// take_along_dim: self and indices broadcast against each other off `dim`,
// then gather (so autograd sees broadcast_to and gather). Without dim, both
// are flattened.
TensorBase take_along_dim(const TensorBase& self, const TensorBase& indices, std::optional<int64_t> dim) {
  TL_CHECK(indices.scalar_type() == ScalarType::Long, "torch.take_along_dim(): dtype of indices should be Long but "
           "got ", indices.scalar_type());
  if (!dim) {
    const int64_t flat[1] = {-1};
    return at::_ops::gather(at::_ops::reshape(self, IntArrayRef(flat, 1)), 0,
                            at::_ops::reshape(indices, IntArrayRef(flat, 1)), false);
  }
  TL_CHECK(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have the same number of "
           "dimensions, but got ", self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = maybe_wrap_dim(*dim, self.dim());
  if (self.dim() == 0) return at::_ops::gather(self, d, indices, false);
  DimVector self_sizes(self.sizes()), idx_sizes(indices.sizes());
  self_sizes[d] = indices.sizes()[d];
  DimVector idx_shape = at::infer_size(self_sizes, indices.sizes());
  idx_sizes[d] = self.sizes()[d];
  DimVector self_shape = at::infer_size(idx_sizes, self.sizes());
  return at::_ops::gather(at::_ops::broadcast_to(self, self_shape), d, at::_ops::broadcast_to(indices, idx_shape),
                          false);
}
TensorBase take_along_dim_out(const TensorBase& out, const TensorBase& self, const TensorBase& indices,
                              std::optional<int64_t> dim) {
  return to_out(out, self, take_along_dim(self, indices, dim));
}

}  // namespace at::native
