// Meta kernels for sort, topk, kthvalue and median: the CPU kernels' checks and shapes.
#include <tuple>

#include "c10/Tensor.h"

namespace at::native {

static std::tuple<TensorBase, TensorBase> pair(IntArrayRef shape, const TensorBase& self) {
  return {make_empty(shape, self.options()), make_empty(shape, self.options().with_dtype(ScalarType::Long))};
}

std::tuple<TensorBase, TensorBase> sort_stable_meta(const TensorBase& self, std::optional<bool>, int64_t dim, bool) {
  maybe_wrap_dim(dim, self.dim());
  return pair(self.sizes(), self);
}

std::tuple<TensorBase, TensorBase> sort_meta(const TensorBase& self, int64_t dim, bool descending) {
  return sort_stable_meta(self, false, dim, descending);
}

std::tuple<TensorBase, TensorBase> topk_meta(const TensorBase& self, int64_t k, int64_t dim, bool, bool) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(k >= 0 && k <= n, "selected index k out of range");
  DimVector shape(self.sizes());
  if (self.dim() > 0) shape[dim] = k;
  return pair(shape, self);
}

static std::tuple<TensorBase, TensorBase> reduced_pair(const TensorBase& self, int64_t dim, bool keepdim) {
  DimVector shape(self.sizes());
  if (self.dim() > 0) {
    if (keepdim) shape[dim] = 1;
    else shape.erase((size_t)dim);
  }
  return pair(shape, self);
}

std::tuple<TensorBase, TensorBase> kthvalue_meta(const TensorBase& self, int64_t k, int64_t dim, bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", dim);
  return reduced_pair(self, dim, keepdim);
}

static std::tuple<TensorBase, TensorBase> median_like_meta(const char* name, const TensorBase& self, int64_t dim,
                                                           bool keepdim) {
  dim = maybe_wrap_dim(dim, self.dim());
  int64_t n = self.dim() == 0 ? 1 : self.sizes()[dim];
  TL_CHECK_INDEX(n > 0, name, "(): Expected reduction dim ", dim, " to have non-zero size.");
  return reduced_pair(self, dim, keepdim);
}

std::tuple<TensorBase, TensorBase> median_dim_meta(const TensorBase& self, int64_t dim, bool keepdim) {
  return median_like_meta("median", self, dim, keepdim);
}

std::tuple<TensorBase, TensorBase> nanmedian_dim_meta(const TensorBase& self, int64_t dim, bool keepdim) {
  return median_like_meta("nanmedian", self, dim, keepdim);
}

}  // namespace at::native
