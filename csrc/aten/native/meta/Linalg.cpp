// Meta kernels for the matrix products: the CPU kernels' checks, then an
// empty result of the right shape and dtype (no data).
#include "../Linalg.h"
#include "ops/addmm.h"
#include "ops/bmm.h"
#include "ops/dot.h"
#include "ops/mm.h"
#include "ops/mv.h"

namespace at::native {

TensorBase mm_meta(const TensorBase& self, const TensorBase& mat2) {
  check_mm(self, mat2);
  int64_t sz[2] = {self.sizes()[0], mat2.sizes()[1]};
  return make_empty(IntArrayRef(sz, 2), self.options());
}

TensorBase addmm_meta(const TensorBase& self, const TensorBase& mat1, const TensorBase& mat2, const Scalar&, const Scalar&) {
  check_addmm(self, mat1, mat2);
  int64_t sz[2] = {mat1.sizes()[0], mat2.sizes()[1]};
  return make_empty(IntArrayRef(sz, 2), mat1.options());
}

TensorBase bmm_meta(const TensorBase& self, const TensorBase& mat2) {
  check_bmm(self, mat2);
  int64_t sz[3] = {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]};
  return make_empty(IntArrayRef(sz, 3), self.options());
}

TensorBase mv_meta(const TensorBase& self, const TensorBase& vec) {
  check_mv(self, vec);
  int64_t sz[1] = {self.sizes()[0]};
  return make_empty(IntArrayRef(sz, 1), self.options());
}

TensorBase dot_meta(const TensorBase& self, const TensorBase& tensor) {
  check_dot(self, tensor);
  return make_empty(IntArrayRef(), self.options());
}

}  // namespace at::native
