// Meta kernels for the indexing ops: shapes and checks only. Ops whose result
// shape depends on values (nonzero, masked_select, a bool mask in x[...])
// cannot say it without data and raise NotImplementedError, as PyTorch's do.
#include "../Indexing.h"

namespace at::native {

static void no_data_dependent_shape(const char* op) {
  TL_CHECK_NOT_IMPLEMENTED(false, op, ": the output shape depends on the input's values, which Meta tensors do not have");
}

static bool has_mask(TensorBaseList indices) {
  for (const TensorBase& t : indices)
    if (t.defined() && (t.scalar_type() == kBool || t.scalar_type() == kByte)) return true;
  return false;
}

TensorBase index_meta(const TensorBase& self, TensorBaseList indices) {
  if (has_mask(indices)) {
    (void)expand_index_masks(self, {}, "index");  // no mask expanded: dtype and count checks only
    no_data_dependent_shape("index (with a boolean mask)");
  }
  IndexPlan plan = make_index_plan(self, expand_index_masks(self, indices, "index"));
  return make_empty(plan.result_sizes, self.options());
}

TensorBase index_put_meta_(const TensorBase& self, TensorBaseList indices, const TensorBase& values, bool accumulate) {
  (void)accumulate;
  TL_CHECK(self.scalar_type() == values.scalar_type(), "Index put requires the source and destination dtypes match, got ",
           c10::toString(self.scalar_type()), " for the destination and ", c10::toString(values.scalar_type()),
           " for the source.");
  if (!has_mask(indices)) {
    IndexPlan plan = make_index_plan(self, expand_index_masks(self, indices, "index_put_"));
    check_index_put_values(plan, values);
  }
  self.bump_version();
  return self;
}

TensorBase nonzero_meta(const TensorBase& self) {
  (void)self;
  no_data_dependent_shape("nonzero");
  return TensorBase();
}

TensorBase masked_select_meta(const TensorBase& self, const TensorBase& mask) {
  TL_CHECK(mask.scalar_type() == kBool, "masked_select: expected BoolTensor for mask");
  (void)masked_broadcast_shape(self, mask);
  no_data_dependent_shape("masked_select");
  return TensorBase();
}

static void check_mask_fits_meta(const TensorBase& self, const TensorBase& mask) {
  DimVector shape = masked_broadcast_shape(self, mask);
  TL_CHECK(IntArrayRef(shape) == self.sizes(), "output with shape ", self.sizes(), " doesn't match the broadcast shape ",
           IntArrayRef(shape));
}

TensorBase masked_fill_meta_(const TensorBase& self, const TensorBase& mask, const Scalar& value) {
  (void)value;
  check_bool_mask(mask, "masked_fill_");
  check_mask_fits_meta(self, mask);
  self.bump_version();
  return self;
}

TensorBase masked_fill_tensor_meta_(const TensorBase& self, const TensorBase& mask, const TensorBase& value) {
  TL_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
           " dimension(s).");
  check_bool_mask(mask, "masked_fill_");
  check_mask_fits_meta(self, mask);
  self.bump_version();
  return self;
}

TensorBase masked_scatter_meta_(const TensorBase& self, const TensorBase& mask, const TensorBase& source) {
  check_bool_mask(mask, "masked_scatter_");
  TL_CHECK(self.scalar_type() == source.scalar_type(), "masked_scatter_: expected self and source to have same dtypes but got ",
           c10::toString(self.scalar_type()), " and ", c10::toString(source.scalar_type()));
  check_mask_fits_meta(self, mask);
  self.bump_version();
  return self;
}

TensorBase take_meta(const TensorBase& self, const TensorBase& index) {
  check_long_index(index, "take");
  return make_empty(index.sizes(), self.options());
}

TensorBase put_meta_(const TensorBase& self, const TensorBase& index, const TensorBase& source, bool accumulate) {
  (void)accumulate;
  check_long_index(index, "put_");
  check_same_dtype(self, source, "put_");
  TL_CHECK(index.numel() == source.numel(), "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
           source.numel(), ", index.numel() = ", index.numel());
  self.bump_version();
  return self;
}

}  // namespace at::native
