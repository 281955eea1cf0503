// View ops: new sizes/strides/offset over the same storage, no copy. They
// only touch metadata, so one composite kernel serves every backend.
#include "ops/select.h"
#include "ops/slice.h"
#include "ops/unsqueeze.h"

namespace at::native {

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
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

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
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

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim() + 1);
  DimVector sizes(self.sizes()), strides(self.strides());
  int64_t st = dim < self.dim() ? sizes[dim] * strides[dim] : 1;
  sizes.insert(dim, 1);
  strides.insert(dim, st);
  return make_view(self, sizes, strides, self.storage_offset());
}

}  // namespace at::native
