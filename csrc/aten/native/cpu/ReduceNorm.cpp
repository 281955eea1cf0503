// CPU vector norm kernel (ops in ReduceOps.h, engine in Reduce.h).
#include "ReduceOps.h"
#include "../Copy.h"
#include "ops/norm.h"

namespace at::native {
using namespace reduce_ops;
// ---------------------------------------------------------------- norm

TensorBase norm_cpu(const TensorBase& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  check_norm_dtype(self, dtype);
  ScalarType out_dtype = dtype.value_or(self.scalar_type());
  TensorBase in = cast_to(self, out_dtype, self.device());
  uint64_t mask = make_dim_mask(self, dim);
  const double pv = p ? p->toDouble() : 2.0;
  if (std::isinf(pv) && self.numel() == 0) {
    for (int64_t d = 0; d < self.dim(); ++d)
      TL_CHECK(!(mask & (1ull << d)) || self.sizes()[d] != 0, "linalg.vector_norm cannot compute the ",
               pv > 0 ? "inf" : "-inf", " norm on the dimension ", d,
               "because this dimension is empty and the operation does not have an identity");
  }
  return TL_DISPATCH_FLOATING_TYPES(out_dtype, "norm", [&] {
    using A = c10::opmath_t<scalar_t>;
    auto cast = [](A a) { return static_cast<scalar_t>(a); };
    if (pv == 2) {
      return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A, Square>(),
                                            [](A a) { return static_cast<scalar_t>(std::sqrt(a)); });
    }
    if (pv == 1) return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A, Abs>(), cast);
    if (pv == 0)
      return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, SumOp<scalar_t, A, NonZero>(), cast);
    if (std::isinf(pv)) {
      if (pv > 0)
        return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, FoldOp<scalar_t, A, MaxNan, Abs>{A(0)},
                                              cast);
      return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype,
                                            FoldOp<scalar_t, A, MinNan, Abs>{std::numeric_limits<A>::infinity()}, cast);
    }
    SumOp<scalar_t, A, AbsPow> op;
    op.m.p = pv;
    return run_reduce<scalar_t, scalar_t>(in, mask, keepdim, out_dtype, op, [pv](A a) {
      return static_cast<scalar_t>(std::pow((double)a, 1.0 / pv));
    });
  });
}

}  // namespace at::native
