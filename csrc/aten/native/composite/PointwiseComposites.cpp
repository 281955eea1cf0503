// Pointwise ops built from generated pointwise ops: they work on every
// backend that has the parts.
#include "ops/_clamp_both.h"
#include "ops/_div_trunc.h"
#include "../../TypePromotion.h"
#include "ops/_where.h"
#include "ops/clamp.h"
#include "ops/clamp_max.h"
#include "ops/clamp_min.h"
#include "ops/copy.h"
#include "ops/div.h"
#include "ops/floor_divide.h"
#include "ops/where.h"

namespace at::native {

static int rounding_kind(std::optional<std::string_view> mode) {
  if (!mode) return 0;
  if (*mode == "trunc") return 1;
  if (*mode == "floor") return 2;
  TL_CHECK_VALUE(false, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
  return 0;
}

TensorBase div_mode(const TensorBase& self, const TensorBase& other, std::optional<std::string_view> rounding_mode) {
  switch (rounding_kind(rounding_mode)) {
    case 1: return at::_ops::_div_trunc(self, other);
    case 2: return at::_ops::floor_divide(self, other);
    default: return at::_ops::div(self, other);
  }
}

TensorBase div_mode_(const TensorBase& self, const TensorBase& other, std::optional<std::string_view> rounding_mode) {
  switch (rounding_kind(rounding_mode)) {
    case 1: return at::_ops::_div_trunc_(self, other);
    case 2: return at::_ops::floor_divide_(self, other);
    default: return at::_ops::div_(self, other);
  }
}

TensorBase div_mode_out(const TensorBase& out, const TensorBase& self, const TensorBase& other,
                    std::optional<std::string_view> rounding_mode) {
  switch (rounding_kind(rounding_mode)) {
    case 1: return at::_ops::_div_trunc_out(out, self, other);
    case 2: return at::_ops::floor_divide_out(out, self, other);
    default: return at::_ops::div_out(out, self, other);
  }
}

static bool is_number(const TensorBase& t) { return t.unsafeGetTensorImpl()->is_wrapped_number(); }

// A Python number operand as a value of the op's result dtype, through the
// checked conversion: where(c, int8_tensor, 300) and int8.clamp(max=300) are
// errors (as in PyTorch), not a silent 44.
static TensorBase number_as(const TensorBase& t, ScalarType rt) {
  if (!is_number(t) || t.scalar_type() == rt) return t;
  TensorBase v = c10::scalar_to_tensor(c10::item(t), rt, t.device());
  v.unsafeGetTensorImpl()->set_wrapped_number(true);
  return v;
}

// clamp's bounds, Python numbers converted (checked) to the result dtype.
static void check_clamp_args(const TensorBase& self, std::optional<TensorBase>& min, std::optional<TensorBase>& max) {
  if (min && !min->defined()) min.reset();
  if (max && !max->defined()) max.reset();
  TL_CHECK(min || max, "torch.clamp: At least one of 'min' or 'max' must not be None");
  std::vector<TensorBase> all{self};
  if (min) all.push_back(*min);
  if (max) all.push_back(*max);
  ScalarType rt = result_type(ArrayRef<TensorBase>(all));
  if (min) min = number_as(*min, rt);
  if (max) max = number_as(*max, rt);
}

TensorBase clamp(const TensorBase& self, const std::optional<TensorBase>& min_, const std::optional<TensorBase>& max_) {
  std::optional<TensorBase> min = min_, max = max_;
  check_clamp_args(self, min, max);
  if (min && max) return at::_ops::_clamp_both(self, *min, *max);
  if (min) return at::_ops::clamp_min(self, *min);
  return at::_ops::clamp_max(self, *max);
}

TensorBase clamp_(const TensorBase& self, const std::optional<TensorBase>& min_, const std::optional<TensorBase>& max_) {
  std::optional<TensorBase> min = min_, max = max_;
  check_clamp_args(self, min, max);
  if (min && max) return at::_ops::_clamp_both_(self, *min, *max);
  if (min) return at::_ops::clamp_min_(self, *min);
  return at::_ops::clamp_max_(self, *max);
}

TensorBase clamp_out(const TensorBase& out, const TensorBase& self, const std::optional<TensorBase>& min_,
                 const std::optional<TensorBase>& max_) {
  std::optional<TensorBase> min = min_, max = max_;
  check_clamp_args(self, min, max);
  if (min && max) return at::_ops::_clamp_both_out(out, self, *min, *max);
  if (min) return at::_ops::clamp_min_out(out, self, *min);
  return at::_ops::clamp_max_out(out, self, *max);
}

TensorBase where(const TensorBase& condition, const TensorBase& self, const TensorBase& other) {
  TL_CHECK(condition.scalar_type() == ScalarType::Bool,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ", condition.scalar_type());
  if (is_number(self) || is_number(other)) {
    ScalarType rt = result_type(ArrayRef<TensorBase>({self, other}));
    return at::_ops::_where(condition, number_as(self, rt), number_as(other, rt));
  }
  return at::_ops::_where(condition, self, other);
}

}  // namespace at::native
