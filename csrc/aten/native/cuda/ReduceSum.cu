// CUDA sum / mean / prod (plan and accumulators: aten/native/ReduceTree.h;
// kernels: ReduceKernel.cuh). Same schemas, result dtypes and checks as
// cpu/ReduceSum.cpp, through the device-neutral ReduceUtils.h.
#include <optional>
#include <type_traits>
#include "aten/native/ReduceUtils.h"
#include "aten/native/cuda/ReduceKernel.cuh"
#include "c10/Library.h"

namespace at::native {
namespace {
namespace rt = reduce_tree;
using cuda_reduce::launch_reduce;

TensorBase sum_cuda_impl(const TensorBase& self, uint64_t mask, bool keepdim, ScalarType out_dtype, bool mean) {
  TensorBase out = make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options().with_dtype(out_dtype));
  if (!mean && out_dtype == ScalarType::Long && c10::isIntegralType(self.scalar_type(), true)) {
    // bool and integers fold straight into int64, as on the CPU: no widened copy
    TL_DISPATCH_INTEGRAL_AND_BOOL_TYPES(self.scalar_type(), "sum", [&] {
      launch_reduce<rt::SumOp<scalar_t, int64_t>, scalar_t>("sum", rt::SumOp<scalar_t, int64_t>(), self, mask,
                                                            rt::StoreProjected<int64_t>{out.data_ptr<int64_t>()});
    });
    return out;
  }
  TensorBase in = cast_to(self, out_dtype, self.device());
  const int64_t count = reduced_numel(self.sizes(), mask);
  TL_DISPATCH_ALL_TYPES(out_dtype, mean ? "mean" : "sum", [&] {
    using A = std::conditional_t<std::is_floating_point_v<c10::opmath_t<scalar_t>>, c10::opmath_t<scalar_t>, int64_t>;
    rt::SumOp<scalar_t, A> op;
    if constexpr (std::is_floating_point_v<A>) {
      if (mean) op.divisor = A(count);
    }
    launch_reduce<rt::SumOp<scalar_t, A>, scalar_t>(mean ? "mean" : "sum", op, in, mask,
                                                     rt::StoreProjected<scalar_t>{out.data_ptr<scalar_t>()});
  });
  return out;
}

TensorBase prod_cuda_impl(const TensorBase& self, uint64_t mask, bool keepdim, ScalarType out_dtype) {
  TensorBase out = make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options().with_dtype(out_dtype));
  TensorBase in = cast_to(self, out_dtype, self.device());
  TL_DISPATCH_ALL_TYPES(out_dtype, "prod", [&] {
    using A = std::conditional_t<std::is_floating_point_v<c10::opmath_t<scalar_t>>, c10::opmath_t<scalar_t>, int64_t>;
    launch_reduce<rt::ProdOp<scalar_t, A>, scalar_t>("prod", rt::ProdOp<scalar_t, A>(), in, mask,
                                                      rt::StoreProjected<scalar_t>{out.data_ptr<scalar_t>()});
  });
  return out;
}

TensorBase sum_all_cuda(const TensorBase& self, std::optional<ScalarType> dtype) {
  return sum_cuda_impl(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype),
                       false);
}
TensorBase sum_dim_cuda(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  return sum_cuda_impl(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype), false);
}
TensorBase mean_all_cuda(const TensorBase& self, std::optional<ScalarType> dtype) {
  return sum_cuda_impl(self, make_dim_mask(self, std::nullopt), false, mean_result_dtype(self, dtype), true);
}
TensorBase mean_dim_cuda(const TensorBase& self, std::optional<IntArrayRef> dim, bool keepdim,
                         std::optional<ScalarType> dtype) {
  ScalarType t = mean_result_dtype(self, dtype);
  return sum_cuda_impl(self, make_dim_mask(self, dim), keepdim, t, true);
}
TensorBase prod_all_cuda(const TensorBase& self, std::optional<ScalarType> dtype) {
  return prod_cuda_impl(self, make_dim_mask(self, std::nullopt), false, sum_result_dtype(self.scalar_type(), dtype));
}
TensorBase prod_dim_cuda(const TensorBase& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return prod_cuda_impl(self, make_dim_mask(self, dim), keepdim, sum_result_dtype(self.scalar_type(), dtype));
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("sum", TL_KERNEL(sum_all_cuda));
  m.impl("sum.dim_IntList", TL_KERNEL(sum_dim_cuda));
  m.impl("mean", TL_KERNEL(mean_all_cuda));
  m.impl("mean.dim", TL_KERNEL(mean_dim_cuda));
  m.impl("prod", TL_KERNEL(prod_all_cuda));
  m.impl("prod.dim_int", TL_KERNEL(prod_dim_cuda));
}

}  // namespace at::native
