// CUDA var/std (Welford, with correction), vector norms, any/all and logsumexp. Same
// schemas, result dtypes and checks as cpu/ReduceStats.cpp and
// cpu/ReduceNorm.cpp, through ReduceUtils.h. var_mean/std_mean and
// linalg.vector_norm are composites over these.
#include <cmath>
#include <optional>
#include "aten/native/ReduceUtils.h"
#include "aten/native/cuda/ReduceKernel.cuh"
#include "c10/Library.h"

namespace at::native {
namespace {
namespace rt = reduce_tree;
using cuda_reduce::launch_reduce;

TensorBase var_cuda_impl(bool is_std, const TensorBase& self, std::optional<IntArrayRef> dim,
                         const std::optional<Scalar>& correction, bool keepdim) {
  check_var_dtype(self);
  uint64_t mask = make_dim_mask(self, dim);
  TensorBase out = make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options());
  const double corr = correction ? correction->toDouble() : 1.0;
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), is_std ? "std" : "var", [&] {
    using Op = rt::WelfordOp<scalar_t>;
    Op op;
    op.correction = typename Op::A(corr);
    op.take_sqrt = is_std;
    launch_reduce<Op, scalar_t>(is_std ? "std" : "var", op, self, mask,
                                rt::StoreProjected<scalar_t>{out.data_ptr<scalar_t>()});
  });
  return out;
}
TensorBase var_correction_cuda(const TensorBase& self, std::optional<IntArrayRef> dim,
                               const std::optional<Scalar>& correction, bool keepdim) {
  return var_cuda_impl(false, self, dim, correction, keepdim);
}
TensorBase std_correction_cuda(const TensorBase& self, std::optional<IntArrayRef> dim,
                               const std::optional<Scalar>& correction, bool keepdim) {
  return var_cuda_impl(true, self, dim, correction, keepdim);
}

TensorBase norm_cuda(const TensorBase& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim,
                     bool keepdim, std::optional<ScalarType> dtype) {
  check_norm_dtype(self, dtype);
  ScalarType out_dtype = dtype.value_or(self.scalar_type());
  uint64_t mask = make_dim_mask(self, dim);
  const double pv = p ? p->toDouble() : 2.0;
  if (std::isinf(pv) && self.numel() == 0) {
    for (int64_t d = 0; d < self.dim(); ++d)
      TL_CHECK(!(mask & (1ull << d)) || self.sizes()[d] != 0, "linalg.vector_norm cannot compute the ",
               pv > 0 ? "inf" : "-inf", " norm on the dimension ", d,
               "because this dimension is empty and the operation does not have an identity");
  }
  TensorBase in = cast_to(self, out_dtype, self.device());
  TensorBase out = make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options().with_dtype(out_dtype));
  TL_DISPATCH_FLOATING_TYPES(out_dtype, "norm", [&] {
    using Op = rt::NormOp<scalar_t>;
    Op op;
    op.kind = rt::norm_kind(pv);
    op.p = typename Op::A(pv);
    launch_reduce<Op, scalar_t>("norm", op, in, mask, rt::StoreProjected<scalar_t>{out.data_ptr<scalar_t>()});
  });
  return out;
}

// Bool and Byte results are both one byte holding 0 or 1.
template <bool Any>
TensorBase anyall_cuda(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim, /*empty_means_all=*/false);
  ScalarType out_dtype = self.scalar_type() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
  TensorBase out = make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options().with_dtype(out_dtype));
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), Any ? "any" : "all", [&] {
    using Op = rt::AnyAllOp<scalar_t, Any>;
    launch_reduce<Op, scalar_t>(Any ? "any" : "all", Op(), self, mask,
                                rt::StoreProjected<uint8_t>{static_cast<uint8_t*>(out.data_ptr())});
  });
  return out;
}
TensorBase any_cuda(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return anyall_cuda<true>(self, dim, keepdim);
}
TensorBase all_cuda(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return anyall_cuda<false>(self, dim, keepdim);
}

TensorBase logsumexp_cuda(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  ScalarType t = float_result_dtype(self.scalar_type());
  uint64_t mask = make_dim_mask(self, dim);
  TensorBase in = cast_to(self, t, self.device());
  TensorBase out = make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options().with_dtype(t));
  TL_DISPATCH_FLOATING_TYPES(t, "logsumexp", [&] {
    using Op = rt::LogSumExpOp<scalar_t>;
    launch_reduce<Op, scalar_t>("logsumexp", Op(), in, mask, rt::StoreProjected<scalar_t>{out.data_ptr<scalar_t>()});
  });
  return out;
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("var.correction", TL_KERNEL(var_correction_cuda));
  m.impl("std.correction", TL_KERNEL(std_correction_cuda));
  m.impl("norm.Scalar", TL_KERNEL(norm_cuda));
  m.impl("any", TL_KERNEL(any_cuda));
  m.impl("all", TL_KERNEL(all_cuda));
  m.impl("logsumexp", TL_KERNEL(logsumexp_cuda));
}

}  // namespace at::native
