// Indexing ops built from others (CompositeImplicitAutograd: autograd records
// their parts). Out-of-place masked ops broadcast self with the mask, as
// PyTorch's do, then write into a fresh copy.
#include "../Indexing.h"
#include "ops/argwhere.h"
#include "ops/clone.h"
#include "ops/contiguous.h"
#include "ops/expand.h"
#include "ops/index_put.h"
#include "ops/masked_fill.h"
#include "ops/masked_scatter.h"
#include "ops/nonzero.h"
#include "ops/nonzero_numpy.h"
#include "ops/put.h"
#include "ops/unbind.h"
#include "ops/unsqueeze.h"
#include "ops/where.h"

namespace at::native {

TensorBase index_put(const TensorBase& self, TensorBaseList indices, const TensorBase& values, bool accumulate) {
  return at::_ops::index_put_(at::_ops::clone(self), indices, values, accumulate);
}

std::vector<TensorBase> nonzero_numpy(const TensorBase& self) {
  // A 0-dim input counts as 1-d (PyTorch: nonzero(tensor(5), as_tuple=True) == (tensor([0]),)).
  TensorBase s = self.dim() == 0 ? at::_ops::unsqueeze(self, 0) : self;
  return at::_ops::unbind(at::_ops::nonzero(s), 1);
}

std::vector<TensorBase> where_condition(const TensorBase& condition) { return nonzero_numpy(condition); }

TensorBase argwhere(const TensorBase& self) { return at::_ops::nonzero(self); }

// A fresh contiguous tensor of self's values broadcast with mask.
static TensorBase broadcast_copy(const TensorBase& self, const TensorBase& mask) {
  DimVector shape = masked_broadcast_shape(self, mask);
  return at::_ops::clone(at::_ops::expand(self, shape), MemoryFormat::Contiguous);
}

TensorBase masked_fill(const TensorBase& self, const TensorBase& mask, const Scalar& value) {
  check_bool_mask(mask, "masked_fill_");
  return at::_ops::masked_fill_(broadcast_copy(self, mask), mask, value);
}

TensorBase masked_fill_tensor(const TensorBase& self, const TensorBase& mask, const TensorBase& value) {
  check_bool_mask(mask, "masked_fill_");
  return at::_ops::masked_fill_(broadcast_copy(self, mask), mask, value);
}

TensorBase masked_scatter(const TensorBase& self, const TensorBase& mask, const TensorBase& source) {
  check_bool_mask(mask, "masked_scatter_");
  return at::_ops::masked_scatter_(broadcast_copy(self, mask), mask, source);
}

TensorBase put(const TensorBase& self, const TensorBase& index, const TensorBase& source, bool accumulate) {
  return at::_ops::put_(at::_ops::clone(self), index, source, accumulate);
}

}  // namespace at::native
