// Shared front half of every reduction: which dims are reduced, the result
// shape, the result dtype, and the checks PyTorch makes. Device-agnostic, so
// the CPU kernels and the Meta shape functions agree by construction.
#pragma once
#include <cstdint>
#include <optional>
#include "../../c10/Tensor.h"

namespace at::native {

// Bit d set = dim d is reduced. dim=None reduces every dim; an empty list
// does too when `empty_means_all` (sum/mean/amax...), and reduces nothing
// otherwise (any/all). Wraps negative dims, rejects repeats.
uint64_t make_dim_mask(const TensorBase& self, std::optional<IntArrayRef> dim, bool empty_means_all = true);
uint64_t make_dim_mask(const TensorBase& self, int64_t dim);

// sizes with reduced dims dropped (or kept as 1 with keepdim).
DimVector reduced_shape(IntArrayRef sizes, uint64_t mask, bool keepdim);

// Number of input elements that fold into each output.
int64_t reduced_numel(IntArrayRef sizes, uint64_t mask);

// max/min/amax/argmax...: an empty reduced range has no identity.
void check_nonempty_reduction(const char* op, const TensorBase& self, uint64_t mask, bool full, bool index_error);

// out= helpers shared by the composite *_out kernels: resize `out` to the
// result's shape when it differs and copy the values in.
TensorBase copy_to_out(const TensorBase& out, const TensorBase& result);
void check_out_dtype(const char* op, const TensorBase& out, ScalarType want);

// Result dtype of sum/prod/cumsum: an explicit dtype wins, bool and integers
// widen to int64, everything else keeps its dtype.
inline ScalarType sum_result_dtype(ScalarType in, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return c10::isIntegralType(in, true) ? ScalarType::Long : in;
}
ScalarType mean_result_dtype(const TensorBase& self, std::optional<ScalarType> dtype);
void check_var_dtype(const TensorBase& self);
void check_norm_dtype(const TensorBase& self, std::optional<ScalarType> dtype);
// logsumexp computes integer inputs in the default float dtype.
inline ScalarType float_result_dtype(ScalarType in) {
  return c10::isFloatingType(in) ? in : c10::defaultFloatType();
}

}  // namespace at::native
