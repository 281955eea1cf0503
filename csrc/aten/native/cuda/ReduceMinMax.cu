// CUDA max/min/amax/amin (values), max.dim/min.dim (values and indices) and
// argmax/argmin. Same schemas, result shapes and checks as
// cpu/ReduceMinMax.cpp and cpu/ReduceArg.cpp, through ReduceUtils.h.
#include <optional>
#include <tuple>
#include "aten/native/ReduceUtils.h"
#include "aten/native/cuda/ReduceKernel.cuh"
#include "c10/Library.h"

namespace at::native {
namespace {
namespace rt = reduce_tree;
using cuda_reduce::launch_reduce;

template <bool IsMax>
TensorBase extreme_cuda(const TensorBase& self, uint64_t mask, bool keepdim) {
  TensorBase out = make_empty(reduced_shape(self.sizes(), mask, keepdim), self.options());
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), IsMax ? "max" : "min", [&] {
    using Op = rt::ExtremeOp<scalar_t, IsMax>;
    launch_reduce<Op, scalar_t>(IsMax ? "max" : "min", Op(), self, mask,
                                rt::StoreProjected<scalar_t>{out.data_ptr<scalar_t>()});
  });
  return out;
}

// values may be undefined (argmax/argmin). Several reduced dims (the
// flattened argmax) are indexed row-major over the input's own dims, which
// the plan keeps in order, so no contiguous copy is needed.
template <bool IsMax>
void arg_cuda(const TensorBase& self, uint64_t mask, const TensorBase& values, const TensorBase& indices) {
  TL_DISPATCH_ALL_TYPES(self.scalar_type(), IsMax ? "max" : "min", [&] {
    using Op = rt::ArgOp<scalar_t, IsMax>;
    scalar_t* val = values.defined() ? values.data_ptr<scalar_t>() : nullptr;
    launch_reduce<Op, scalar_t>(IsMax ? "argmax" : "argmin", Op(), self, mask,
                                rt::StoreArg<scalar_t>{val, indices.data_ptr<int64_t>()});
  });
}

TensorBase max_all_cuda(const TensorBase& self) {
  check_nonempty_reduction("max", self, 0, true, false);
  return extreme_cuda<true>(self, make_dim_mask(self, std::nullopt), false);
}
TensorBase min_all_cuda(const TensorBase& self) {
  check_nonempty_reduction("min", self, 0, true, false);
  return extreme_cuda<false>(self, make_dim_mask(self, std::nullopt), false);
}
TensorBase amax_cuda(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction("amax", self, mask, false, false);
  return extreme_cuda<true>(self, mask, keepdim);
}
TensorBase amin_cuda(const TensorBase& self, IntArrayRef dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction("amin", self, mask, false, false);
  return extreme_cuda<false>(self, mask, keepdim);
}

template <bool IsMax>
std::tuple<TensorBase, TensorBase> minmax_dim_cuda(const TensorBase& self, int64_t dim, bool keepdim) {
  uint64_t mask = make_dim_mask(self, dim);
  check_nonempty_reduction(IsMax ? "max" : "min", self, mask, false, false);
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  TensorBase values = make_empty(shape, self.options());
  TensorBase indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  arg_cuda<IsMax>(self, mask, values, indices);
  return {values, indices};
}
std::tuple<TensorBase, TensorBase> max_dim_cuda(const TensorBase& self, int64_t dim, bool keepdim) {
  return minmax_dim_cuda<true>(self, dim, keepdim);
}
std::tuple<TensorBase, TensorBase> min_dim_cuda(const TensorBase& self, int64_t dim, bool keepdim) {
  return minmax_dim_cuda<false>(self, dim, keepdim);
}

template <bool IsMax>
TensorBase arg_reduce_cuda(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  const char* name = IsMax ? "argmax" : "argmin";
  TL_CHECK(self.scalar_type() != ScalarType::Bool, name, "(): does not support bool input");
  uint64_t mask = dim ? make_dim_mask(self, *dim) : make_dim_mask(self, std::nullopt);
  check_nonempty_reduction(name, self, mask, !dim, true);
  DimVector shape = dim ? reduced_shape(self.sizes(), mask, keepdim)
                        : (keepdim ? reduced_shape(self.sizes(), mask, true) : DimVector());
  TensorBase indices = make_empty(shape, self.options().with_dtype(ScalarType::Long));
  arg_cuda<IsMax>(self, mask, TensorBase(), indices);
  return indices;
}
TensorBase argmax_cuda(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce_cuda<true>(self, dim, keepdim);
}
TensorBase argmin_cuda(const TensorBase& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce_cuda<false>(self, dim, keepdim);
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("max", TL_KERNEL(max_all_cuda));
  m.impl("min", TL_KERNEL(min_all_cuda));
  m.impl("amax", TL_KERNEL(amax_cuda));
  m.impl("amin", TL_KERNEL(amin_cuda));
  m.impl("max.dim", TL_KERNEL(max_dim_cuda));
  m.impl("min.dim", TL_KERNEL(min_dim_cuda));
  m.impl("argmax", TL_KERNEL(argmax_cuda));
  m.impl("argmin", TL_KERNEL(argmin_cuda));
}

}  // namespace at::native
