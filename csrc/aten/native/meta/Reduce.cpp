// Meta kernels for the reductions: the same argument checks, result shape and
// dtype as the CPU kernels (both come from ReduceUtils), no data.
#include "../ReduceUtils.h"
#include "ops/all.h"
#include "ops/amax.h"
#include "ops/amin.h"
#include "ops/any.h"
#include "ops/argmax.h"
#include "ops/argmin.h"
#include "ops/cumprod.h"
#include "ops/cumsum.h"
#include "ops/logsumexp.h"
#include "ops/max.h"
#include "ops/mean.h"
#include "ops/min.h"
#include "ops/norm.h"
#include "ops/prod.h"
#include "ops/std.h"
#include "ops/sum.h"
#include "ops/var.h"

namespace at::native {

static TensorBase meta_result(const TensorBase& self, uint64_t mask, bool keepdim, ScalarType dtype) {
  return make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options().with_dtype(dtype));
}

TensorBase sum_all_meta(const TensorBase& self, std::optional<ScalarType> dtype) {
  return meta_result(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype));
}
TensorBase sum_meta(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return meta_result(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype));
}
TensorBase mean_meta(const TensorBase& self, std::optional<ScalarType> dtype) {
  return meta_result(self, make_dim_mask(self, std::nullopt), false, mean_result_dtype(self, dtype));
}
TensorBase mean_dim_meta(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType t = mean_result_dtype(self, dtype);
  return meta_result(self, make_dim_mask(self, dim), keepdim, t);
}
TensorBase prod_meta(const TensorBase& self, std::optional<ScalarType> dtype) {
  return meta_result(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype));
}
TensorBase prod_dim_meta(const TensorBase& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return meta_result(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype));
}

TensorBase max_meta(const TensorBase& self) {
  check_nonempty_reduction("max", self, 0, true, false);
  return meta_result(self, make_dim_mask(self, std::nullopt), false, self.scalar_type());
}
static std::tuple<TensorBase, TensorBase> minmax_dim_meta(const char* name, const TensorBase& self, int64_t dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction(name, self, mask, false, false);
  return {meta_result(self, mask, keepdim, self.scalar_type()), meta_result(self, mask, keepdim, ScalarType::Long)};
}
std::tuple<TensorBase, TensorBase> max_dim_meta(const TensorBase& self, int64_t dim, bool keepdim) {
  return minmax_dim_meta("max", self, dim, keepdim);
}
std::tuple<TensorBase, TensorBase> min_dim_meta(const TensorBase& self, int64_t dim, bool keepdim) {
  return minmax_dim_meta("min", self, dim, keepdim);
}
static TensorBase amaxmin_meta(const char* name, const TensorBase& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction(name, self, mask, false, false);
  return meta_result(self, mask, keepdim, self.scalar_type());
}
TensorBase amax_meta(const TensorBase& self, IntArrayRef dim, bool keepdim) { return amaxmin_meta("amax", self, dim, keepdim); }
TensorBase amin_meta(const TensorBase& self, IntArrayRef dim, bool keepdim) { return amaxmin_meta("amin", self, dim, keepdim); }

static TensorBase arg_meta(const char* name, const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  TL_CHECK(self.scalar_type() != ScalarType::Bool, name, "(): does not support bool input");
  uint64_t mask = dim ? make_dim_mask(self, *dim) : make_dim_mask(self, std::nullopt);
  check_nonempty_reduction(name, self, mask, !dim, true);
  DimVector shape = dim ? reduced_shape(self.sizes(), mask, keepdim)
                        : (keepdim ? reduced_shape(self.sizes(), mask, true) : DimVector());
  return make_empty(shape, self.options().with_dtype(ScalarType::Long));
}
TensorBase argmax_meta(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_meta("argmax", self, dim, keepdim);
}
TensorBase argmin_meta(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_meta("argmin", self, dim, keepdim);
}

TensorBase var_correction_meta(const TensorBase& self, std::optional<IntArrayRef> dim, const std::optional<Scalar>&,
                           bool keepdim) {
  check_var_dtype(self);
  return meta_result(self, make_dim_mask(self, dim), keepdim, self.scalar_type());
}

TensorBase norm_meta(const TensorBase& self, const std::optional<Scalar>&, std::optional<IntArrayRef> dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  check_norm_dtype(self, dtype);
  return meta_result(self, make_dim_mask(self, dim), keepdim, dtype.value_or(self.scalar_type()));
}

TensorBase any_meta(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  ScalarType t = self.scalar_type() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  return meta_result(self, make_dim_mask(self, dim, false), keepdim, t);
}

TensorBase cumsum_meta(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  maybe_wrap_dim(dim, self.dim());
  return make_empty(self.sizes(), self.options().with_dtype(sum_result_dtype(self.scalar_type(), dtype)));
}

TensorBase logsumexp_meta(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  return meta_result(self, make_dim_mask(self, dim), keepdim, float_result_dtype(self.scalar_type()));
}

}  // namespace at::native
