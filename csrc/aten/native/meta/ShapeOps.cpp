// Meta kernels of flip and tril/triu: the CPU kernels' checks, no data.
#include "../ShapeOps.h"
#include "c10/TensorImpl.h"
#include "ops/flip.h"
#include "ops/tril.h"
#include "ops/triu.h"

namespace at::native {

TensorBase flip_meta(const TensorBase& self, IntArrayRef dims) {
  flip_dims_mask(self, dims);
  // The CPU kernel's layout rule: a dense input's strides are kept.
  return self.unsafeGetTensorImpl()->is_non_overlapping_and_dense()
             ? make_empty_strided(self.sizes(), self.strides(), self.options())
             : make_empty(self.sizes(), self.options());
}

TensorBase tril_meta(const TensorBase& self, int64_t) {
  check_triangle_input(self, "tril");
  return make_empty(self.sizes(), self.options());
}
TensorBase triu_meta(const TensorBase& self, int64_t) {
  check_triangle_input(self, "triu");
  return make_empty(self.sizes(), self.options());
}
TensorBase tril__meta(const TensorBase& self, int64_t) {
  check_triangle_input(self, "tril");
  self.bump_version();
  return self;
}
TensorBase triu__meta(const TensorBase& self, int64_t) {
  check_triangle_input(self, "triu");
  self.bump_version();
  return self;
}

}  // namespace at::native
