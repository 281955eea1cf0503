// Meta kernels for unique and mode. mode's shapes follow from its arguments;
// unique's output length is the number of distinct values, which Meta tensors
// do not have: after the same argument checks as the CPU kernels, these raise
// NotImplementedError, as PyTorch's unique does on Meta.
#include <optional>
#include <tuple>

#include "../UniqueMode.h"

namespace at::native {
using namespace unique_mode;

using UniqueResult = std::tuple<TensorBase, TensorBase, TensorBase>;

static void no_data_dependent_shape(const char* op) {
  TL_CHECK_NOT_IMPLEMENTED(false, op, ": the output shape depends on the input's values, which Meta tensors do not have");
}

UniqueResult unique2_meta(const TensorBase& self, bool, bool, bool) {
  (void)self;
  no_data_dependent_shape("_unique2");
  return {};
}

UniqueResult unique_dim_meta(const TensorBase& self, int64_t dim, bool, bool, bool) {
  check_unique_dim(self, dim);
  no_data_dependent_shape("unique_dim");
  return {};
}

UniqueResult unique_consecutive_meta(const TensorBase& self, bool, bool, std::optional<int64_t> dim) {
  if (dim) check_unique_dim(self, *dim);
  no_data_dependent_shape("unique_consecutive");
  return {};
}

std::tuple<TensorBase, TensorBase> mode_meta(const TensorBase& self, int64_t dim, bool keepdim) {
  dim = check_mode_dim(self, dim);
  DimVector shape = mode_result_shape(self, dim, keepdim);
  return {make_empty(shape, self.options()), make_empty(shape, self.options().with_dtype(ScalarType::Long))};
}

}  // namespace at::native
