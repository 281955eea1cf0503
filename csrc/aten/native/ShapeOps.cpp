// Checks shared by the CPU and Meta kernels of flip and tril/triu.
#include "ShapeOps.h"

#include <algorithm>

namespace at::native {

std::vector<bool> flip_dims_mask(const TensorBase& self, IntArrayRef dims) {
  std::vector<bool> mask(std::max<int64_t>(self.dim(), 1), false);
  for (int64_t d : dims) {
    int64_t w = maybe_wrap_dim(d, self.dim());
    TL_CHECK(!mask[w], "dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  if (self.dim() == 0) mask[0] = false;  // a 0-dim tensor has nothing to flip
  return mask;
}

void check_triangle_input(const TensorBase& self, const char* name) {
  TL_CHECK(self.dim() >= 2, name, ": input tensor must have at least 2 dimensions");
}

}  // namespace at::native
