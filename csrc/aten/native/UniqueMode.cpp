// Argument rules of unique (dim forms) and mode, shared by the CPU and Meta
// kernels so both raise the same errors (messages as PyTorch's).
#include "UniqueMode.h"

namespace at::native::unique_mode {

int64_t check_unique_dim(const TensorBase& self, int64_t dim) {
  // wrap_scalar=false: PyTorch's "Dimension specified as 0 but tensor has no dimensions".
  dim = maybe_wrap_dim(dim, self.dim(), /*wrap_scalar=*/false);
  if (self.sizes()[dim] == 0) {
    int64_t zero_dims = 0;
    for (int64_t s : self.sizes()) zero_dims += s == 0;
    TL_CHECK(zero_dims == 1, "Number of zero sized dimensions is more than one, so unique cannot be applied ");
  } else {
    TL_CHECK(self.numel() > 0, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  }
  return dim;
}

SliceGeometry slice_geometry(IntArrayRef sizes, int64_t dim) {
  SliceGeometry g;
  for (int64_t d = 0; d < (int64_t)sizes.size(); ++d) {
    if (d < dim) g.outer *= sizes[d];
    else if (d == dim) g.n = sizes[d];
    else g.inner *= sizes[d];
  }
  return g;
}

int64_t check_mode_dim(const TensorBase& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(n > 0, "mode(): Expected reduction dim ", dim, " to have non-zero size.");
  return dim;
}

DimVector mode_result_shape(const TensorBase& self, int64_t dim, bool keepdim) {
  DimVector shape(self.sizes());
  if (self.dim() > 0) {
    if (keepdim) shape[dim] = 1;
    else shape.erase((size_t)dim);
  }
  return shape;
}

}  // namespace at::native::unique_mode
