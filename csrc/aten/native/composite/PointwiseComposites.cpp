// Pointwise ops built from generated pointwise ops: they work on every
// backend that has the parts.
#include "ops/_clamp_both.h"
#include "ops/_div_trunc.h"
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

static void check_clamp_args(const std::optional<TensorBase>& min, const std::optional<TensorBase>& max) {
  TL_CHECK((min && min->defined()) || (max && max->defined()),
           "torch.clamp: At least one of 'min' or 'max' must not be None");
}

TensorBase clamp(const TensorBase& self, const std::optional<TensorBase>& min, const std::optional<TensorBase>& max) {
  check_clamp_args(min, max);
  if (min && max) return at::_ops::_clamp_both(self, *min, *max);
  if (min) return at::_ops::clamp_min(self, *min);
  return at::_ops::clamp_max(self, *max);
}

TensorBase clamp_(const TensorBase& self, const std::optional<TensorBase>& min, const std::optional<TensorBase>& max) {
  check_clamp_args(min, max);
  if (min && max) return at::_ops::_clamp_both_(self, *min, *max);
  if (min) return at::_ops::clamp_min_(self, *min);
  return at::_ops::clamp_max_(self, *max);
}

TensorBase clamp_out(const TensorBase& out, const TensorBase& self, const std::optional<TensorBase>& min,
                 const std::optional<TensorBase>& max) {
  check_clamp_args(min, max);
  if (min && max) return at::_ops::_clamp_both_out(out, self, *min, *max);
  if (min) return at::_ops::clamp_min_out(out, self, *min);
  return at::_ops::clamp_max_out(out, self, *max);
}

TensorBase where(const TensorBase& condition, const TensorBase& self, const TensorBase& other) {
  TL_CHECK(condition.scalar_type() == ScalarType::Bool,
           "where expected condition to be a boolean tensor, but got a tensor with dtype ", condition.scalar_type());
  return at::_ops::_where(condition, self, other);
}

}  // namespace at::native
