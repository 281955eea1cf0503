// Shape ops built from other ops (issue 10, "joining and reshaping"): the
// split family, the h/v/d/column stacks, atleast_*d, flips and rotations,
// roll, repeat/tile/repeat_interleave, diag and the *_scatter ops, meshgrid,
// broadcast_tensors, block_diag, cartesian_prod, combinations, equal,
// view(dtype) and set_data.
//
// CompositeImplicitAutograd ops reach autograd and Meta through the ops they
// call, so they need no derivative or Meta kernel. Views stay views: the split
// family, atleast_*d, meshgrid and broadcast_tensors only call view
// primitives (narrow/slice/unsqueeze/expand/view).
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "c10/TensorImpl.h"
#include "ops/all.h"
#include "ops/alias.h"
#include "ops/atleast_1d.h"
#include "ops/atleast_2d.h"
#include "ops/atleast_3d.h"
#include "ops/block_diag.h"
#include "ops/broadcast_tensors.h"
#include "ops/cartesian_prod.h"
#include "ops/cat.h"
#include "ops/clone.h"
#include "ops/column_stack.h"
#include "ops/combinations.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/diag.h"
#include "ops/diag_embed.h"
#include "ops/diagflat.h"
#include "ops/diagonal.h"
#include "ops/diagonal_scatter.h"
#include "ops/dsplit.h"
#include "ops/dstack.h"
#include "ops/empty.h"
#include "ops/eq.h"
#include "ops/equal.h"
#include "ops/expand.h"
#include "ops/flatten.h"
#include "ops/flip.h"
#include "ops/fliplr.h"
#include "ops/flipud.h"
#include "ops/hsplit.h"
#include "ops/hstack.h"
#include "ops/meshgrid.h"
#include "ops/narrow.h"
#include "ops/repeat.h"
#include "ops/repeat_interleave.h"
#include "ops/reshape.h"
#include "ops/roll.h"
#include "ops/rot90.h"
#include "ops/row_stack.h"
#include "ops/select.h"
#include "ops/select_scatter.h"
#include "ops/_set_data.h"
#include "ops/_variable_data.h"
#include "ops/slice.h"
#include "ops/slice_scatter.h"
#include "ops/stack.h"
#include "ops/tensor_split.h"
#include "ops/tile.h"
#include "ops/to.h"
#include "ops/transpose.h"
#include "ops/tril_indices.h"
#include "ops/triu_indices.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/vsplit.h"
#include "ops/vstack.h"
#include "ops/zeros.h"

namespace at::native {

namespace {

// Host copy of a small integer tensor's values (split indices, repeats).
std::vector<int64_t> int_values(const TensorBase& t, const char* op) {
  TL_CHECK(t.is_cpu(), op, ": expected a CPU tensor of integers, got one on ", t.device());
  TensorBase c = at::_ops::contiguous(at::_ops::to(t, kLong, false, false, std::nullopt), MemoryFormat::Contiguous);
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

std::string sizes_str(IntArrayRef s) { return c10::str(s); }

// The pieces of `x` along `dim` picked by `index` (one piece per entry), as
// few ops as possible: a run of consecutive indices is one narrow, a run of
// one repeated index is one narrow expanded. Used by repeat_interleave and
// combinations, whose index lists are made of such runs, so the result is a
// cat of views whose backward autograd already knows.
TensorBase take_runs(const TensorBase& x, int64_t dim, const std::vector<int64_t>& index) {
  std::vector<TensorBase> parts;
  size_t i = 0, n = index.size();
  while (i < n) {
    size_t j = i + 1;
    if (j < n && index[j] == index[i]) {
      while (j < n && index[j] == index[i]) ++j;
      TensorBase one = at::_ops::narrow(x, dim, index[i], 1);
      DimVector shape(x.sizes());
      shape[dim] = (int64_t)(j - i);
      parts.push_back(at::_ops::expand(one, shape, false));
    } else {
      while (j < n && index[j] == index[j - 1] + 1) ++j;
      parts.push_back(at::_ops::narrow(x, dim, index[i], (int64_t)(j - i)));
    }
    i = j;
  }
  if (parts.empty()) return at::_ops::clone(at::_ops::narrow(x, dim, 0, 0), MemoryFormat::Contiguous);
  if (parts.size() == 1) return at::_ops::clone(parts[0], MemoryFormat::Contiguous);
  return at::_ops::cat(parts, dim);
}

}  // namespace

// ------------------------------------------------------------------ split family

std::vector<TensorBase> tensor_split_indices(const TensorBase& self, IntArrayRef indices, int64_t dim) {
  TL_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
           self.dim(), " dims");
  dim = maybe_wrap_dim(dim, self.dim());
  std::vector<TensorBase> out;
  out.reserve(indices.size() + 1);
  int64_t start = 0;
  // slice clamps, so an index past the end or before `start` gives an empty piece (NumPy's array_split).
  for (int64_t idx : indices) {
    out.push_back(at::_ops::slice(self, dim, start, idx, 1));
    start = idx;
  }
  out.push_back(at::_ops::slice(self, dim, start, self.sizes()[dim], 1));
  return out;
}

std::vector<TensorBase> tensor_split_sections(const TensorBase& self, int64_t sections, int64_t dim) {
  TL_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
           self.dim(), " dims");
  TL_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t size = self.sizes()[dim];
  // The first size % sections pieces get one extra element (NumPy's array_split).
  int64_t base = size / sections, extra = size % sections, start = 0;
  std::vector<TensorBase> out;
  out.reserve(sections);
  for (int64_t i = 0; i < sections; ++i) {
    int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(at::_ops::slice(self, dim, start, start + len, 1));
    start += len;
  }
  return out;
}

std::vector<TensorBase> tensor_split_tensor(const TensorBase& self, const TensorBase& tensor_indices_or_sections,
                                            int64_t dim) {
  TL_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
           self.dim(), " dims");
  const TensorBase& t = tensor_indices_or_sections;
  TL_CHECK(t.scalar_type() == kLong, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
           toString(t.scalar_type()));
  TL_CHECK(t.dim() <= 1, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
           "one-dimensional tensor, but got a tensor with ", t.dim(), " dims");
  std::vector<int64_t> v = int_values(t, "tensor_split");
  if (t.dim() == 0) return at::_ops::tensor_split(self, v[0], dim);
  return at::_ops::tensor_split(self, IntArrayRef(v), dim);
}

namespace {
// hsplit/vsplit/dsplit: tensor_split along a fixed dim, with NumPy's rule that
// an int splits into equal pieces only.
void check_split_rank(const TensorBase& self, const char* name, int64_t min_dim) {
  TL_CHECK(self.dim() >= min_dim, "torch.", name, " requires a tensor with at least ", min_dim,
           " dimension, but got a tensor with ", self.dim(), " dimensions!");
}
void check_divisible(const TensorBase& self, const char* name, int64_t dim, int64_t sections) {
  int64_t size = self.sizes()[dim];
  TL_CHECK(sections != 0 && size % sections == 0, "torch.", name, " attempted to split along dimension ", dim,
           ", but the size of the dimension ", size, " is not divisible by the split_size ", sections, "!");
}
}  // namespace

std::vector<TensorBase> hsplit_int(const TensorBase& self, int64_t sections) {
  check_split_rank(self, "hsplit", 1);
  int64_t dim = self.dim() == 1 ? 0 : 1;
  check_divisible(self, "hsplit", dim, sections);
  return at::_ops::tensor_split(self, sections, dim);
}
std::vector<TensorBase> vsplit_int(const TensorBase& self, int64_t sections) {
  check_split_rank(self, "vsplit", 2);
  check_divisible(self, "vsplit", 0, sections);
  return at::_ops::tensor_split(self, sections, 0);
}
std::vector<TensorBase> dsplit_int(const TensorBase& self, int64_t sections) {
  check_split_rank(self, "dsplit", 3);
  check_divisible(self, "dsplit", 2, sections);
  return at::_ops::tensor_split(self, sections, 2);
}
std::vector<TensorBase> hsplit_array(const TensorBase& self, IntArrayRef indices) {
  check_split_rank(self, "hsplit", 1);
  int64_t dim = self.dim() == 1 ? 0 : 1;
  return at::_ops::tensor_split(self, indices, dim);
}
std::vector<TensorBase> vsplit_array(const TensorBase& self, IntArrayRef indices) {
  check_split_rank(self, "vsplit", 2);
  return at::_ops::tensor_split(self, indices, 0);
}
std::vector<TensorBase> dsplit_array(const TensorBase& self, IntArrayRef indices) {
  check_split_rank(self, "dsplit", 3);
  return at::_ops::tensor_split(self, indices, 2);
}

// ------------------------------------------------------------------ atleast_*d and the stacks

TensorBase atleast_1d(const TensorBase& self) {
  if (self.dim() >= 1) return self;
  int64_t one = 1;
  return at::_ops::view(self, IntArrayRef(&one, 1));
}
TensorBase atleast_2d(const TensorBase& self) {
  if (self.dim() >= 2) return self;
  if (self.dim() == 1) return at::_ops::unsqueeze(self, 0);
  return at::_ops::view(self, {1, 1});
}
TensorBase atleast_3d(const TensorBase& self) {
  if (self.dim() >= 3) return self;
  if (self.dim() == 2) return at::_ops::unsqueeze(self, -1);
  if (self.dim() == 1) return at::_ops::unsqueeze(at::_ops::unsqueeze(self, 0), -1);
  return at::_ops::view(self, {1, 1, 1});
}

namespace {
template <class F>
std::vector<TensorBase> map_list(TensorBaseList tensors, F f) {
  std::vector<TensorBase> out;
  out.reserve(tensors.size());
  for (const TensorBase& t : tensors) out.push_back(f(t));
  return out;
}
}  // namespace

std::vector<TensorBase> atleast_1d_sequence(TensorBaseList tensors) { return map_list(tensors, [](const TensorBase& t) { return at::_ops::atleast_1d(t); }); }
std::vector<TensorBase> atleast_2d_sequence(TensorBaseList tensors) { return map_list(tensors, [](const TensorBase& t) { return at::_ops::atleast_2d(t); }); }
std::vector<TensorBase> atleast_3d_sequence(TensorBaseList tensors) { return map_list(tensors, [](const TensorBase& t) { return at::_ops::atleast_3d(t); }); }

TensorBase hstack(TensorBaseList tensors) {
  TL_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  std::vector<TensorBase> r = at::_ops::atleast_1d(tensors);
  // 1-D inputs join end to end; anything higher joins along columns.
  return at::_ops::cat(r, r[0].dim() == 1 ? 0 : 1);
}
TensorBase vstack(TensorBaseList tensors) {
  TL_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  return at::_ops::cat(at::_ops::atleast_2d(tensors), 0);
}
TensorBase row_stack(TensorBaseList tensors) { return at::_ops::vstack(tensors); }
TensorBase dstack(TensorBaseList tensors) {
  TL_CHECK(!tensors.empty(), "dstack expects a non-empty TensorList");
  return at::_ops::cat(at::_ops::atleast_3d(tensors), 2);
}
TensorBase column_stack(TensorBaseList tensors) {
  TL_CHECK(!tensors.empty(), "column_stack expects a non-empty TensorList");
  // 0-D and 1-D inputs become columns; higher ones join as they are.
  std::vector<TensorBase> cols = map_list(tensors, [](const TensorBase& t) {
    return t.dim() <= 1 ? at::_ops::reshape(t, {t.numel(), 1}) : t;
  });
  return at::_ops::cat(cols, 1);
}

// ------------------------------------------------------------------ flips, rotations, roll

TensorBase fliplr(const TensorBase& self) {
  TL_CHECK(self.dim() >= 2, "Input must be >= 2-d.");
  int64_t d = 1;
  return at::_ops::flip(self, IntArrayRef(&d, 1));
}
TensorBase flipud(const TensorBase& self) {
  TL_CHECK(self.dim() >= 1, "Input must be >= 1-d.");
  int64_t d = 0;
  return at::_ops::flip(self, IntArrayRef(&d, 1));
}

TensorBase rot90(const TensorBase& self, int64_t k, IntArrayRef dims) {
  const int64_t total_dims = self.dim(), total_rot_dims = (int64_t)dims.size();
  TL_CHECK(total_rot_dims == 2, "expected total rotation dims == 2, but got dims = ", total_rot_dims);
  TL_CHECK(total_dims >= 2, "expected total dims >= 2, but got total dims = ", total_dims);
  TL_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != total_dims,
           "expected rotation dims to be different, but got dim0 = ", dims[0], " and dim1 = ", dims[1]);
  int64_t d0 = maybe_wrap_dim(dims[0], total_dims), d1 = maybe_wrap_dim(dims[1], total_dims);
  k = ((k % 4) + 4) % 4;
  // A quarter turn from d0 towards d1 is a flip of d1 then a transpose (PyTorch's layout).
  switch (k) {
    case 1: return at::_ops::transpose(at::_ops::flip(self, IntArrayRef(&d1, 1)), d0, d1);
    case 2: {
      int64_t both[2] = {d0, d1};
      return at::_ops::flip(self, IntArrayRef(both, 2));
    }
    case 3: return at::_ops::transpose(at::_ops::flip(self, IntArrayRef(&d0, 1)), d0, d1);
    default: return at::_ops::clone(self, MemoryFormat::Contiguous);
  }
}

namespace {
// Roll one dim: the last `shift` entries move to the front (two narrows and a cat).
TensorBase roll_one(const TensorBase& x, int64_t shift, int64_t dim) {
  int64_t n = x.sizes()[dim];
  if (n == 0) return at::_ops::clone(x, MemoryFormat::Contiguous);
  int64_t s = ((shift % n) + n) % n;
  if (s == 0) return at::_ops::clone(x, MemoryFormat::Contiguous);
  TensorBase parts[2] = {at::_ops::narrow(x, dim, n - s, s), at::_ops::narrow(x, dim, 0, n - s)};
  return at::_ops::cat(TensorBaseList(parts, 2), dim);
}
}  // namespace

TensorBase roll(const TensorBase& self, IntArrayRef shifts, IntArrayRef dims) {
  TL_CHECK(!shifts.empty(), "`shifts` required");
  if (dims.empty() && shifts.size() == 1) {
    // No dims: roll the flattened tensor, then restore the shape.
    int64_t m1 = -1, zero = 0;
    TensorBase flat = at::_ops::reshape(self, IntArrayRef(&m1, 1));
    return at::_ops::view(at::_ops::roll(flat, shifts, IntArrayRef(&zero, 1)), self.sizes());
  }
  TL_CHECK(shifts.size() == dims.size(), "shifts and dimensions must align. shifts: ", shifts.size(),
           ", dims:", dims.size());
  TensorBase out = self;
  for (size_t i = 0; i < dims.size(); ++i)
    out = roll_one(out, shifts[i], maybe_wrap_dim(dims[i], self.dim(), /*wrap_scalar=*/false));
  return out;
}

// ------------------------------------------------------------------ repeat, tile, repeat_interleave

TensorBase repeat(const TensorBase& self, IntArrayRef repeats) {
  TL_CHECK((int64_t)repeats.size() >= self.dim(),
           "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const int64_t n = (int64_t)repeats.size(), lead = n - self.dim();
  DimVector out_sizes, padded, interleaved, expanded;
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = i < lead ? 1 : self.sizes()[i - lead];
    out_sizes.push_back(s * repeats[i]);
  }
  for (int64_t i = 0; i < n; ++i)
    TL_CHECK(repeats[i] >= 0, "Trying to create tensor with negative dimension ", out_sizes[i], ": ", IntArrayRef(out_sizes));
  // x viewed as (1, s0, 1, s1, ...), expanded to (r0, s0, r1, s1, ...) with
  // zero strides, then one copy into (r0*s0, r1*s1, ...).
  for (int64_t i = 0; i < n; ++i) {
    int64_t s = i < lead ? 1 : self.sizes()[i - lead];
    interleaved.push_back(1);
    interleaved.push_back(s);
    expanded.push_back(repeats[i]);
    expanded.push_back(s);
  }
  TensorBase v = at::_ops::reshape(self, interleaved);
  TensorBase e = at::_ops::expand(v, expanded, false);
  return at::_ops::reshape(at::_ops::clone(e, MemoryFormat::Contiguous), out_sizes);
}

TensorBase tile(const TensorBase& self, IntArrayRef dims) {
  // Fewer dims than the tensor: the missing leading ones repeat once (NumPy's tile).
  DimVector reps;
  for (int64_t i = (int64_t)dims.size(); i < self.dim(); ++i) reps.push_back(1);
  for (int64_t d : dims) reps.push_back(d);
  return at::_ops::repeat(self, reps);
}

TensorBase repeat_interleave_indices(const TensorBase& repeats, std::optional<int64_t> output_size) {
  TL_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  TL_CHECK_NOT_IMPLEMENTED(repeats.scalar_type() == kLong || repeats.scalar_type() == kInt,
                           "\"repeat_interleave_cpu\" not implemented for '", toString(repeats.scalar_type()), "'");
  if (repeats.is_meta()) {
    TL_CHECK(output_size.has_value(), "repeat_interleave: a meta repeats tensor needs output_size, since the result's "
             "size depends on its values");
    return make_empty({*output_size}, repeats.options());
  }
  std::vector<int64_t> r = int_values(repeats, "repeat_interleave");
  int64_t total = 0;
  for (int64_t v : r) {
    TL_CHECK(v >= 0, "repeats can not be negative");
    total += v;
  }
  TL_CHECK(!output_size || *output_size == total, "allocated size does not match required size");
  TensorBase out = make_empty({total}, TensorOptions(kLong, c10::Device(DeviceType::CPU)));
  int64_t* p = out.data_ptr<int64_t>();
  for (size_t i = 0; i < r.size(); ++i)
    for (int64_t k = 0; k < r[i]; ++k) *p++ = (int64_t)i;
  if (repeats.scalar_type() != kLong || !repeats.is_cpu())
    return at::_ops::to(out, repeats.device(), repeats.scalar_type(), false, false, std::nullopt);
  return out;
}

namespace {
// (input, dim) after PyTorch's rule that dim=None means the flattened input.
std::pair<TensorBase, int64_t> interleave_input(const TensorBase& self, std::optional<int64_t> dim) {
  if (!dim) {
    int64_t m1 = -1;
    return {at::_ops::reshape(self, IntArrayRef(&m1, 1)), 0};
  }
  return {self, maybe_wrap_dim(*dim, self.dim(), /*wrap_scalar=*/false)};
}
}  // namespace

TensorBase repeat_interleave_self_int(const TensorBase& self, int64_t repeats, std::optional<int64_t> dim,
                                      std::optional<int64_t> output_size) {
  TL_CHECK(repeats >= 0, "Repeats must be non-negative");
  // PyTorch inserts the repeat axis at dim + 1, which a 0-dim input lacks.
  TL_CHECK_INDEX(!(dim && self.dim() == 0 && (*dim == 0 || *dim == -1)),
                 "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  auto [x, d] = interleave_input(self, dim);
  int64_t expected = (x.dim() == 0 ? 1 : x.sizes()[d]) * repeats;
  TL_CHECK(!output_size || *output_size == expected, "repeat_interleave: Invalid output_size, expected ", expected,
           " but got ", *output_size);
  if (x.dim() == 0) x = at::_ops::view(x, {1});
  // Each slice along d appears `repeats` times in a row: a new axis after d,
  // expanded, then merged into d.
  TensorBase u = at::_ops::unsqueeze(x, d + 1);
  DimVector shape(u.sizes());
  shape[d + 1] = repeats;
  TensorBase e = at::_ops::expand(u, shape, false);
  return at::_ops::flatten(at::_ops::clone(e, MemoryFormat::Contiguous), d, d + 1);
}

TensorBase repeat_interleave_self_tensor(const TensorBase& self, const TensorBase& repeats, std::optional<int64_t> dim,
                                         std::optional<int64_t> output_size) {
  // One repeat count for every slice (also how a Python int reaches here).
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.sizes()[0] == 1)) {
    TL_CHECK(repeats.scalar_type() == kLong || repeats.scalar_type() == kInt, "repeats has to be Long or Int tensor");
    std::vector<int64_t> r = int_values(repeats, "repeat_interleave");
    return at::_ops::repeat_interleave(self, r[0], dim, output_size);
  }
  auto [x, d] = interleave_input(self, dim);
  TL_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  TL_CHECK(repeats.sizes()[0] == x.sizes()[d], "repeats must have the same size as input along dim, but got "
           "repeats.size(0) = ", repeats.sizes()[0], " and input.size(", d, ") = ", x.sizes()[d]);
  TensorBase idx = at::_ops::repeat_interleave(repeats, output_size);
  std::vector<int64_t> index = int_values(idx, "repeat_interleave");
  return take_runs(x, d, index);
}

// ------------------------------------------------------------------ triangle indices

namespace {
TensorBase triangle_indices(const char* name, bool lower, int64_t row, int64_t col, int64_t offset,
                            std::optional<ScalarType> dtype, std::optional<Layout> layout,
                            std::optional<Device> device) {
  TL_CHECK(row >= 0, "row must be non-negative, got", row);
  TL_CHECK(col >= 0, "col must be non-negative, got", col);
  ScalarType st = dtype.value_or(kLong);
  TL_CHECK_NOT_IMPLEMENTED(st == kLong || st == kInt, "\"", name, "\" not implemented for '", toString(st), "'");
  TL_CHECK(!layout || *layout == Layout::Strided, "only the strided layout is supported");
  Device dev = device.value_or(Device(DeviceType::CPU));
  // Row i keeps columns [0, i + offset] (lower) or [i + offset, col) (upper).
  auto span = [&](int64_t i, int64_t& lo, int64_t& hi) {
    if (lower) {
      lo = 0;
      hi = std::min(col, std::max<int64_t>(i + offset + 1, 0));
    } else {
      lo = std::min(col, std::max<int64_t>(i + offset, 0));
      hi = col;
    }
  };
  int64_t count = 0, lo, hi;
  for (int64_t i = 0; i < row; ++i) {
    span(i, lo, hi);
    count += hi - lo;
  }
  if (dev.is_meta()) return make_empty({2, count}, TensorOptions(st, dev));
  TensorBase out = make_empty({2, count}, TensorOptions(kLong, Device(DeviceType::CPU)));
  int64_t* rows = out.data_ptr<int64_t>();
  int64_t* cols = rows + count;
  for (int64_t i = 0; i < row; ++i) {
    span(i, lo, hi);
    for (int64_t j = lo; j < hi; ++j) {
      *rows++ = i;
      *cols++ = j;
    }
  }
  if (st == kLong && dev.is_cpu()) return out;
  return at::_ops::to(out, dev, st, false, false, std::nullopt);
}
}  // namespace

TensorBase tril_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                        std::optional<Layout> layout, std::optional<Device> device, std::optional<bool>) {
  return triangle_indices("tril_indices", true, row, col, offset, dtype, layout, device);
}
TensorBase triu_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                        std::optional<Layout> layout, std::optional<Device> device, std::optional<bool>) {
  return triangle_indices("triu_indices", false, row, col, offset, dtype, layout, device);
}

// ------------------------------------------------------------------ diag and the *_scatter ops

TensorBase diag_embed(const TensorBase& self, int64_t offset, int64_t dim1, int64_t dim2) {
  // A 0-dim input fails here: its two new dims cannot both fit in one.
  int64_t n = self.dim() + 1;
  dim1 = maybe_wrap_dim(dim1, n);
  dim2 = maybe_wrap_dim(dim2, n);
  TL_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t len = self.sizes()[self.dim() - 1] + std::abs(offset);
  DimVector sizes(self.sizes());
  sizes.pop_back();
  sizes.insert(std::min(dim1, dim2), len);
  sizes.insert(std::max(dim1, dim2), len);
  TensorBase out = at::_ops::zeros(sizes, self.scalar_type(), std::nullopt, self.device(), std::nullopt);
  // diagonal() puts the diagonal last, which is where self's last dim is.
  at::_ops::copy_(at::_ops::diagonal(out, offset, dim1, dim2), self, false);
  return out;
}

TensorBase diag(const TensorBase& self, int64_t diagonal) {
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "diag(): Supports 1D or 2D tensors. Got ", self.dim(), "D");
  if (self.dim() == 1) return at::_ops::diag_embed(self, diagonal, 0, 1);
  return at::_ops::clone(at::_ops::diagonal(self, diagonal, 0, 1), MemoryFormat::Contiguous);
}

TensorBase diagflat(const TensorBase& self, int64_t offset) {
  int64_t m1 = -1;
  return at::_ops::diag_embed(at::_ops::reshape(self, IntArrayRef(&m1, 1)), offset, 0, 1);
}

namespace {
// The *_scatter ops: a copy of self with one view of it overwritten by src,
// which must have exactly that view's shape (no broadcasting, as PyTorch).
TensorBase scatter_into_view(const TensorBase& self, const TensorBase& src,
                             TensorBase (*view_of)(const TensorBase&, const void*), const void* args) {
  TensorBase out = at::_ops::clone(self, MemoryFormat::Preserve);
  TensorBase slot = view_of(out, args);
  TL_CHECK(slot.sizes().equals(src.sizes()), "expected src to have a size equal to the slice of self. src size = ",
           sizes_str(src.sizes()), ", slice size = ", sizes_str(slot.sizes()));
  at::_ops::copy_(slot, src, false);
  return out;
}
struct DiagArgs { int64_t offset, dim1, dim2; };
struct SelectArgs { int64_t dim, index; };
struct SliceArgs { int64_t dim; std::optional<int64_t> start, end; int64_t step; };
}  // namespace

TensorBase diagonal_scatter(const TensorBase& self, const TensorBase& src, int64_t offset, int64_t dim1, int64_t dim2) {
  DiagArgs a{offset, dim1, dim2};
  return scatter_into_view(self, src, [](const TensorBase& t, const void* p) {
    auto* a = static_cast<const DiagArgs*>(p);
    return at::_ops::diagonal(t, a->offset, a->dim1, a->dim2);
  }, &a);
}

TensorBase select_scatter(const TensorBase& self, const TensorBase& src, int64_t dim, int64_t index) {
  SelectArgs a{dim, index};
  return scatter_into_view(self, src, [](const TensorBase& t, const void* p) {
    auto* a = static_cast<const SelectArgs*>(p);
    return at::_ops::select(t, a->dim, a->index);
  }, &a);
}

TensorBase slice_scatter(const TensorBase& self, const TensorBase& src, int64_t dim, std::optional<int64_t> start,
                         std::optional<int64_t> end, int64_t step) {
  SliceArgs a{dim, start, end, step};
  return scatter_into_view(self, src, [](const TensorBase& t, const void* p) {
    auto* a = static_cast<const SliceArgs*>(p);
    return at::_ops::slice(t, a->dim, a->start, a->end, a->step);
  }, &a);
}

// ------------------------------------------------------------------ meshgrid, broadcast_tensors, products

std::vector<TensorBase> meshgrid_indexing(TensorBaseList tensors, std::string_view indexing) {
  TL_CHECK(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  // PyTorch's order of checks: dtypes/devices, then indexing, then ranks.
  for (const TensorBase& t : tensors) {
    TL_CHECK(t.scalar_type() == tensors[0].scalar_type(), "meshgrid expects all tensors to have the same dtype");
    TL_CHECK(t.device() == tensors[0].device(), "meshgrid expects all tensors to have the same device");
  }
  TL_CHECK(indexing == "ij" || indexing == "xy", "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
           "received: ", indexing);
  for (const TensorBase& t : tensors)
    TL_CHECK(t.dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of shape ",
             sizes_str(t.sizes()));
  // 'xy' (NumPy's Cartesian convention) is 'ij' over the first two inputs
  // swapped, with the first two grids swapped back: grid 0 then varies along
  // dim 1.
  bool swap = indexing == "xy" && tensors.size() >= 2;
  std::vector<TensorBase> in(tensors.begin(), tensors.end());
  if (swap) std::swap(in[0], in[1]);
  DimVector shape;
  for (const TensorBase& t : in) shape.push_back(t.numel());
  std::vector<TensorBase> out;
  for (size_t i = 0; i < in.size(); ++i) {
    DimVector view_shape(in.size(), 1);
    view_shape[i] = -1;
    out.push_back(at::_ops::expand(at::_ops::view(in[i], view_shape), shape, false));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

std::vector<TensorBase> meshgrid(TensorBaseList tensors) { return at::_ops::meshgrid(tensors, "ij"); }

std::vector<TensorBase> broadcast_tensors(TensorBaseList tensors) {
  DimVector shape;
  for (const TensorBase& t : tensors) {
    int64_t n = std::max<int64_t>((int64_t)shape.size(), t.dim());
    DimVector next(n, 1);
    for (int64_t i = 0; i < n; ++i) {
      int64_t a = i < n - (int64_t)shape.size() ? 1 : shape[i - (n - (int64_t)shape.size())];
      int64_t b = i < n - t.dim() ? 1 : t.sizes()[i - (n - t.dim())];
      TL_CHECK(a == b || a == 1 || b == 1, "The size of tensor a (", a, ") must match the size of tensor b (", b,
               ") at non-singleton dimension ", i);
      next[i] = a == 1 ? b : a;
    }
    shape = next;
  }
  return map_list(tensors, [&](const TensorBase& t) { return at::_ops::expand(t, shape, false); });
}

TensorBase block_diag(TensorBaseList tensors) {
  if (tensors.empty()) return at::_ops::zeros({1, 0}, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
  ScalarType dtype = tensors[0].scalar_type();
  int64_t cols = 0;
  std::vector<TensorBase> blocks;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorBase& t = tensors[i];
    TL_CHECK(t.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i, " has ",
             t.dim(), " dimensions");
    TL_CHECK(t.device() == tensors[0].device(), "torch.block_diag: input tensors must all be on the same device. "
             "Input 0 is on device ", tensors[0].device(), " and input ", i, " is on device ", t.device());
    dtype = c10::promoteTypes(dtype, t.scalar_type());
    TensorBase b = t.dim() == 2 ? t : at::_ops::reshape(t, {1, t.numel()});
    cols += b.sizes()[1];
    blocks.push_back(b);
  }
  // Each block's row band is [zeros | block | zeros]; the bands stack. Two
  // cats, so autograd sees only narrow-style gradients.
  Device dev = tensors[0].device();
  std::vector<TensorBase> bands;
  int64_t c = 0;
  for (const TensorBase& b : blocks) {
    int64_t h = b.sizes()[0], w = b.sizes()[1];
    TensorBase parts[3] = {at::_ops::zeros({h, c}, dtype, std::nullopt, dev, std::nullopt),
                           at::_ops::to(b, dtype, false, false, std::nullopt),
                           at::_ops::zeros({h, cols - c - w}, dtype, std::nullopt, dev, std::nullopt)};
    bands.push_back(at::_ops::cat(TensorBaseList(parts, 3), 1));
    c += w;
  }
  return at::_ops::cat(bands, 0);
}

TensorBase cartesian_prod(TensorBaseList tensors) {
  for (const TensorBase& t : tensors)
    TL_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", sizes_str(t.sizes()));
  TL_CHECK(!tensors.empty(), "cartesian_prod expects a non-empty TensorList");
  if (tensors.size() == 1) return tensors[0];
  std::vector<TensorBase> grids = at::_ops::meshgrid(tensors, "ij");
  int64_t m1 = -1;
  for (TensorBase& g : grids) g = at::_ops::reshape(g, IntArrayRef(&m1, 1));
  return at::_ops::stack(grids, 1);
}

TensorBase combinations(const TensorBase& self, int64_t r, bool with_replacement) {
  TL_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", sizes_str(self.sizes()));
  TL_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  if (r == 0) return at::_ops::empty({0}, self.scalar_type(), std::nullopt, self.device(), std::nullopt, std::nullopt);
  const int64_t n = self.sizes()[0];
  // Index tuples in lexicographic order (itertools.combinations /
  // combinations_with_replacement), one column per position.
  std::vector<std::vector<int64_t>> columns(r);
  std::vector<int64_t> cur(r);
  std::function<void(int64_t, int64_t)> rec = [&](int64_t pos, int64_t first) {
    if (pos == r) {
      for (int64_t k = 0; k < r; ++k) columns[k].push_back(cur[k]);
      return;
    }
    for (int64_t i = first; i < n; ++i) {
      cur[pos] = i;
      rec(pos + 1, with_replacement ? i : i + 1);
    }
  };
  rec(0, 0);
  std::vector<TensorBase> cols;
  for (int64_t k = 0; k < r; ++k) cols.push_back(take_runs(self, 0, columns[k]));
  return at::_ops::stack(cols, 1);
}

// ------------------------------------------------------------------ equal, view(dtype), set_data

c10::Scalar _local_scalar_dense(const TensorBase& self) { return c10::item(self); }

bool equal(const TensorBase& self, const TensorBase& other) {
  TL_CHECK(self.device() == other.device(), "Expected all tensors to be on the same device, but found at least two "
           "devices, ", self.device(), " and ", other.device(), "!");
  TL_CHECK_NOT_IMPLEMENTED(!self.is_meta(), "equal: meta tensors have no data to compare");
  if (!self.sizes().equals(other.sizes())) return false;
  if (self.numel() == 0) return true;
  return c10::item(at::_ops::all(at::_ops::eq(self, other), std::nullopt, false)).to<bool>();
}

TensorBase view_dtype(const TensorBase& self, ScalarType dtype) {
  const ScalarType from = self.scalar_type();
  const int64_t old_size = (int64_t)c10::elementSize(from), new_size = (int64_t)c10::elementSize(dtype);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t offset = self.storage_offset();
  auto what = [&] { return c10::str(" to view ", toString(from), " as ", toString(dtype), " (different element sizes)"); };
  if (old_size != new_size) {
    TL_CHECK(self.dim() > 0, "self.dim() cannot be 0", what());
    TL_CHECK(self.stride(-1) == 1, "self.stride(-1) must be 1", what(), ", but got ", self.stride(-1));
  }
  const int64_t last = self.dim() - 1;
  if (old_size > new_size) {
    // Each element splits into `ratio` smaller ones along the last dim.
    const int64_t ratio = old_size / new_size;
    sizes[last] *= ratio;
    for (int64_t d = 0; d < last; ++d) strides[d] *= ratio;
    offset *= ratio;
  } else if (old_size < new_size) {
    // `ratio` elements merge into one: every extent must divide evenly.
    const int64_t ratio = new_size / old_size;
    TL_CHECK(sizes[last] % ratio == 0, "self.size(-1) must be divisible by ", ratio, what(), ", but got ",
             sizes[last]);
    TL_CHECK(offset % ratio == 0, "self.storage_offset() must be divisible by ", ratio, what(), ", but got ", offset);
    for (int64_t d = 0; d < last; ++d)
      TL_CHECK(strides[d] % ratio == 0, "self.stride(", d, ") must be divisible by ", ratio, what(), ", but got ",
               strides[d]);
    sizes[last] /= ratio;
    for (int64_t d = 0; d < last; ++d) strides[d] /= ratio;
    offset /= ratio;
  }
  c10::TensorImpl* b = self.unsafeGetTensorImpl();
  auto impl = c10::intrusive_ptr<c10::TensorImpl>::make(b->storage(), dtype, b->device());
  impl->set_sizes_and_strides(sizes, strides, offset);
  impl->set_version_counter(b->version_counter());
  return TensorBase(std::move(impl));
}

// Tensor.data: the same storage and geometry, outside autograd and with a
// version counter of its own (PyTorch's variable_data), so optimiser-style
// writes through .data do not invalidate tensors saved for backward.
TensorBase _variable_data(const TensorBase& self) {
  const c10::TensorImpl* b = self.unsafeGetTensorImpl();
  auto impl = c10::intrusive_ptr<c10::TensorImpl>::make(b->storage(), b->dtype(), b->device());
  impl->set_sizes_and_strides(b->sizes(), b->strides(), b->storage_offset());
  auto counter = c10::intrusive_ptr<c10::VersionCounter>::make();
  counter->inference = b->is_inference();
  impl->set_version_counter(std::move(counter));
  return TensorBase(std::move(impl));
}

void set_data(const TensorBase& self, const TensorBase& new_data) {
  // The tensor object keeps its identity (and autograd metadata) and takes
  // new_data's storage, geometry, dtype and device, as PyTorch's set_data does.
  c10::TensorImpl* dst = self.unsafeGetTensorImpl();
  const c10::TensorImpl* src = new_data.unsafeGetTensorImpl();
  if (dst == src) return;
  dst->set_storage(src->storage());
  dst->set_dtype_and_device(src->dtype(), src->device());
  dst->set_sizes_and_strides(src->sizes(), src->strides(), src->storage_offset());
}

}  // namespace at::native
