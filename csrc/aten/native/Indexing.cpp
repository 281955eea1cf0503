// Checks and shape plans shared by every backend's indexing kernels.
#include "Indexing.h"

#include <string>

#include "aten/TensorIterator.h"
#include "ops/expand.h"
#include "ops/nonzero.h"
#include "ops/select.h"

namespace at::native {

static std::string sizes_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::vector<TensorBase> expand_index_masks(const TensorBase& self, TensorBaseList indices, const char* op) {
  // How many of self's dims the list consumes: a mask covers as many as it has.
  int64_t consumed = 0;
  for (const TensorBase& t : indices) {
    if (!t.defined()) {
      ++consumed;
      continue;
    }
    ScalarType st = t.scalar_type();
    TL_CHECK_INDEX(st == kLong || st == kInt || st == kBool || st == kByte,
                   "tensors used as indices must be long, int, byte or bool tensors");
    consumed += (st == kBool || st == kByte) ? t.dim() : 1;
  }
  TL_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim(), " (got ", consumed,
                 ")");
  std::vector<TensorBase> out;
  out.reserve(self.dim());
  for (const TensorBase& t : indices) {
    if (!t.defined() || (t.scalar_type() != kBool && t.scalar_type() != kByte)) {
      out.push_back(t);
      continue;
    }
    // x[True] adds a dim before indexing it; that is the Python layer's
    // (csrc/python/Indexing.cpp), which has the view to add it to.
    TL_CHECK_INDEX(t.dim() > 0, op, "(): a 0-dim boolean mask can only be used through x[mask] indexing");
    const int64_t d0 = (int64_t)out.size();
    for (int64_t j = 0; j < t.dim(); ++j)
      TL_CHECK_INDEX(t.sizes()[j] == self.sizes()[d0 + j], "The shape of the mask ", sizes_str(t.sizes()),
                     " at index ", j, " does not match the shape of the indexed tensor ", sizes_str(self.sizes()),
                     " at index ", d0 + j);
    TL_CHECK(t.device() == self.device(), op, "(): indices should be on the same device as the indexed tensor (",
             self.device().str(), "), got ", t.device().str());
    // A mask's nonzero positions, one column per dim it covers.
    TensorBase nz = at::_ops::nonzero(t);
    for (int64_t j = 0; j < t.dim(); ++j) out.push_back(at::_ops::select(nz, 1, j));
  }
  return out;
}

IndexPlan make_index_plan(const TensorBase& self, std::vector<TensorBase> indices) {
  IndexPlan plan;
  const int64_t nd = self.dim();
  indices.resize(nd);
  // Broadcast the index tensors together.
  bool first = true;
  for (const TensorBase& t : indices) {
    if (!t.defined()) continue;
    if (first) {
      plan.index_shape = DimVector(t.sizes());
      first = false;
      continue;
    }
    // PyTorch's message lists every index shape.
    try {
      plan.index_shape = infer_size(plan.index_shape, t.sizes());
    } catch (const c10::Error&) {
      std::string shapes;
      for (const TensorBase& u : indices)
        if (u.defined()) shapes += (shapes.empty() ? "" : ", ") + sizes_str(u.sizes());
      TL_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
    }
  }
  // Adjacent indexed dims keep their place; separated ones move to the front.
  int64_t first_dim = -1, last_dim = -1, count = 0;
  for (int64_t d = 0; d < nd; ++d)
    if (indices[d].defined()) {
      if (first_dim < 0) first_dim = d;
      last_dim = d;
      ++count;
    }
  const bool adjacent = count > 0 && last_dim - first_dim + 1 == count;
  for (int64_t d = 0; d < nd; ++d) {
    if (indices[d].defined()) continue;
    const bool before = adjacent && d < first_dim;
    (before ? plan.pre_sizes : plan.post_sizes).push_back(self.sizes()[d]);
    (before ? plan.pre_strides : plan.post_strides).push_back(self.strides()[d]);
  }
  plan.block_pos = (int64_t)plan.pre_sizes.size();
  plan.result_sizes = plan.pre_sizes;
  for (int64_t s : plan.index_shape) plan.result_sizes.push_back(s);
  for (int64_t s : plan.post_sizes) plan.result_sizes.push_back(s);
  for (int64_t d = 0; d < nd; ++d)
    if (indices[d].defined()) indices[d] = at::_ops::expand(indices[d], plan.index_shape);
  plan.indices = std::move(indices);
  return plan;
}

void check_index_put_values(const IndexPlan& plan, const TensorBase& values) {
  IntArrayRef want = plan.result_sizes;
  bool ok = values.dim() <= (int64_t)want.size();
  for (int64_t i = 0; ok && i < values.dim(); ++i) {
    int64_t v = values.sizes()[values.dim() - 1 - i], w = want[want.size() - 1 - i];
    ok = v == w || v == 1;
  }
  TL_CHECK(ok, "shape mismatch: value tensor of shape ", sizes_str(values.sizes()),
           " cannot be broadcast to indexing result of shape ", sizes_str(want));
}

std::vector<int64_t> strided_offsets(IntArrayRef sizes, IntArrayRef strides) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> out((size_t)n);
  if (n == 0) return out;
  const int64_t nd = (int64_t)sizes.size();
  DimVector idx(nd, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[(size_t)i] = off;
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        off += strides[d];
        break;
      }
      off -= (sizes[d] - 1) * strides[d];
      idx[d] = 0;
    }
  }
  return out;
}

DimVector masked_broadcast_shape(const TensorBase& self, const TensorBase& mask) {
  return infer_size(self.sizes(), mask.sizes());
}

void check_bool_mask(const TensorBase& mask, const char* op) {
  TL_CHECK(mask.scalar_type() == kBool, op, " only supports boolean masks, but got mask with dtype ",
           c10::toString(mask.scalar_type()));
}

void check_long_index(const TensorBase& index, const char* op) {
  TL_CHECK(index.scalar_type() == kLong, op, "(): Expected a long tensor for index, but got ",
           c10::toString(index.scalar_type()));
}

void check_same_dtype(const TensorBase& self, const TensorBase& src, const char* op) {
  TL_CHECK(self.scalar_type() == src.scalar_type(), op, "(): self and source expected to have the same dtype, but got self.dtype = ",
           c10::toString(self.scalar_type()), " and source.dtype = ", c10::toString(src.scalar_type()));
}

}  // namespace at::native
