// CPU max/min/amax/amin kernels, values only (indices: ReduceArg.cpp; engine: Reduce.h).
#include "ReduceOps.h"
#include "../Copy.h"
#include "ops/amax.h"
#include "ops/amin.h"
#include "ops/max.h"
#include "ops/min.h"

namespace at::native {
using namespace reduce_ops;
namespace {

template <bool IsMax>
TensorBase minmax_impl(const TensorBase& self, uint64_t mask, bool keepdim) {
  return TL_DISPATCH_ALL_TYPES(self.scalar_type(), IsMax ? "max" : "min", [&] {
    using A = c10::opmath_t<scalar_t>;
    A init;
    if constexpr (std::is_same_v<A, bool>) init = !IsMax;
    else if constexpr (std::numeric_limits<A>::has_infinity)
      init = IsMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    else init = IsMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
    using F = std::conditional_t<IsMax, MaxNan, MinNan>;
    return run_reduce<scalar_t, scalar_t>(self, mask, keepdim, self.scalar_type(), FoldOp<scalar_t, A, F>{init},
                                          [](A a) { return static_cast<scalar_t>(a); });
  });
}

}  // namespace

// ---------------------------------------------------------------- max / min / amax / amin

TensorBase max_cpu(const TensorBase& self) {
  check_nonempty_reduction("max", self, 0, true, false);
  return minmax_impl<true>(self, make_dim_mask(self, std::nullopt), false);
}
TensorBase min_cpu(const TensorBase& self) {
  check_nonempty_reduction("min", self, 0, true, false);
  return minmax_impl<false>(self, make_dim_mask(self, std::nullopt), false);
}
TensorBase amax_cpu(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction("amax", self, mask, false, false);
  return minmax_impl<true>(self, mask, keepdim);
}
TensorBase amin_cpu(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction("amin", self, mask, false, false);
  return minmax_impl<false>(self, mask, keepdim);
}

}  // namespace at::native
