// Meta kernels for searchsorted, bincount, histc and cummax/cummin.
#include <optional>
#include <string_view>
#include <tuple>

#include "c10/Tensor.h"

namespace at::native {

TensorBase searchsorted_meta(const TensorBase& sorted_sequence, const TensorBase& self, bool out_int32, bool right,
                             std::optional<std::string_view> side, const std::optional<TensorBase>&) {
  TL_CHECK(!(side && *side == "left" && right), "torch.searchsorted(): side and right can't be set to opposites, ",
           "got side of left while right was True");
  TL_CHECK(sorted_sequence.dim() >= 1, "torch.searchsorted(): boundaries tensor should have positive dimension, but ",
           "got 0 dimension");
  return make_empty(self.sizes(), self.options().with_dtype(out_int32 ? ScalarType::Int : ScalarType::Long));
}

TensorBase bincount_meta(const TensorBase&, const std::optional<TensorBase>&, int64_t) {
  TL_CHECK_NOT_IMPLEMENTED(false, "bincount: the output length depends on the input's values, which Meta tensors ",
                           "do not have");
  return TensorBase();
}

TensorBase histc_meta(const TensorBase& self, int64_t bins, const Scalar&, const Scalar&) {
  TL_CHECK(bins > 0, "torch.histc(): bins must be > 0, but got ", bins, " for bins");
  TL_CHECK(c10::isFloatingType(self.scalar_type()), "torch.histc(): input tensor must be a floating point tensor, "
           "but got ", c10::toString(self.scalar_type()));
  return make_empty({bins}, self.options());
}

static std::tuple<TensorBase, TensorBase> cum_meta(const TensorBase& self, int64_t dim) {
  maybe_wrap_dim(dim, self.dim());
  return {make_empty(self.sizes(), self.options()),
          make_empty(self.sizes(), self.options().with_dtype(ScalarType::Long))};
}
std::tuple<TensorBase, TensorBase> cummax_meta(const TensorBase& self, int64_t dim) { return cum_meta(self, dim); }
std::tuple<TensorBase, TensorBase> cummin_meta(const TensorBase& self, int64_t dim) { return cum_meta(self, dim); }

}  // namespace at::native
