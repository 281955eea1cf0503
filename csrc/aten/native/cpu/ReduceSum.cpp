// CPU sum / mean / prod kernels (ops in ReduceOps.h, engine in Reduce.h).
#include "ReduceOps.h"
#include "../Copy.h"
#include "ops/mean.h"
#include "ops/prod.h"
#include "ops/sum.h"

namespace at::native {
using namespace reduce_ops;
namespace {

TensorBase sum_impl(const TensorBase& self, uint64_t mask, bool keepdim, ScalarType out_dtype, bool mean) {
  if (!mean && out_dtype == ScalarType::Long && c10::isIntegralType(self.scalar_type(), true)) {
    // ints and bools accumulate straight into int64, no widened copy of the input
    return TL_DISPATCH_INTEGRAL_AND_BOOL_TYPES(self.scalar_type(), "sum", [&] {
      return run_reduce<scalar_t, int64_t>(self, mask, keepdim, out_dtype, SumOp<scalar_t, int64_t>(),
                                           [](int64_t a) { return a; });
    });
  }
  TensorBase in = cast_to(self, out_dtype, self.device());
  const double count = (double)reduced_numel(self.sizes(), mask);
  return TL_DISPATCH_ALL_TYPES(out_dtype, mean ? "mean" : "sum", [&] {
    using A = sum_acc_t<scalar_t>;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A>(), [&](A a) {
      if constexpr (std::is_floating_point_v<A>) {
        if (mean) return from_acc<A, scalar_t>(a / (A)count);
      }
      return from_acc<A, scalar_t>(a);
    });
  });
}

TensorBase prod_impl(const TensorBase& self, uint64_t mask, bool keepdim, ScalarType out_dtype) {
  TensorBase in = (out_dtype == ScalarType::Long && c10::isIntegralType(self.scalar_type(), true))
                  ? cast_to(self, ScalarType::Long, self.device())
                  : cast_to(self, out_dtype, self.device());
  return TL_DISPATCH_ALL_TYPES(out_dtype, "prod", [&] {
    using A = sum_acc_t<scalar_t>;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, FoldOp<scalar_t, A, Mul>{A(1)},
                                          [](A a) { return from_acc<A, scalar_t>(a); });
  });
}

}  // namespace

// ---------------------------------------------------------------- sum / mean / prod

TensorBase sum_all_cpu(const TensorBase& self, std::optional<ScalarType> dtype) {
  return sum_impl(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype), false);
}
TensorBase sum_cpu(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_impl(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype), false);
}
TensorBase mean_cpu(const TensorBase& self, std::optional<ScalarType> dtype) {
  return sum_impl(self, make_dim_mask(self, std::nullopt), false, mean_result_dtype(self, dtype), true);
}
TensorBase mean_dim_cpu(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  ScalarType t = mean_result_dtype(self, dtype);
  return sum_impl(self, make_dim_mask(self, dim), keepdim, t, true);
}
TensorBase prod_cpu(const TensorBase& self, std::optional<ScalarType> dtype) {
  return prod_impl(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype));
}
TensorBase prod_dim_cpu(const TensorBase& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return prod_impl(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype));
}

}  // namespace at::native
