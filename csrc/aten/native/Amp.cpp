// GradScaler's fused operators, registered for CPU and Meta.
//
// _amp_foreach_non_finite_check_and_unscale_ multiplies every gradient of a
// list by inv_scale in place and sets found_inf to 1.0 when one of them held
// an inf or NaN (it never clears the flag: several calls accumulate into one
// found_inf per device). _amp_update_scale_ applies one GradScaler.update()
// to the scale and its clean-step counter.
//
// The argument checks, their order and their messages are PyTorch's (users
// see them when they drive these ops by hand). Meta tensors pass the checks
// and are left alone: there is nothing to compute for a shape-only tensor.
#include "Amp.h"

#include "c10/Exception.h"
#include "c10/ScalarType.h"
#include "ops/_amp_foreach_non_finite_check_and_unscale.h"
#include "ops/_amp_update_scale.h"

namespace at::native {
namespace {

constexpr const char* kUnscaleOp = "_amp_foreach_non_finite_check_and_unscale_";
constexpr const char* kUpdateOp = "_amp_update_scale_";

bool is_floating(ScalarType t) { return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16; }

// The device every real (non-meta) operand of one call must share.
void check_same_device(const char* op, const TensorBase& t, const char* what, Device expected,
                       const char* expected_what) {
  TL_CHECK(t.device() == expected, op, ": expected ", what, " on the same device as ", expected_what, " (",
           expected, "), but it is on ", t.device());
}

}  // namespace

void amp_foreach_non_finite_check_and_unscale_(TensorBaseList self, const TensorBase& found_inf,
                                               const TensorBase& inv_scale) {
  // An empty list is a no-op, before any check (a parameter-less optimizer).
  if (self.empty()) return;
  TL_CHECK(inv_scale.numel() == 1, "inv_scale must be a 1-element tensor.");
  TL_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TL_CHECK(inv_scale.scalar_type() == kFloat, "inv_scale must be a float tensor.");
  TL_CHECK(found_inf.scalar_type() == kFloat, "found_inf must be a float tensor.");
  // Every gradient's dtype is checked before the first one is touched, so a
  // refused list leaves all of them as they were.
  for (const TensorBase& grad : self) {
    TL_CHECK_NOT_IMPLEMENTED(is_floating(grad.scalar_type()), "\"", kUnscaleOp, "cpu\" not implemented for '",
                             c10::toString(grad.scalar_type()), "'");
  }
  if (found_inf.is_meta() || inv_scale.is_meta()) return;
  check_same_device(kUnscaleOp, inv_scale, "inv_scale", found_inf.device(), "found_inf");
  for (const TensorBase& grad : self) {
    if (!grad.is_meta()) check_same_device(kUnscaleOp, grad, "every gradient", found_inf.device(), "found_inf");
  }

  // inv_scale is read once, before any gradient is written: it may be one of them.
  const float inv = *inv_scale.data_ptr<float>();
  bool nonfinite = false;
  for (const TensorBase& grad : self) {
    if (grad.is_meta()) continue;
    // Every gradient is unscaled whatever the verdict, as in PyTorch: the
    // caller may still read them (to log or clip) before the step is skipped.
    nonfinite = amp_unscale_and_check_cpu(grad, inv) || nonfinite;
    grad.bump_version();
  }
  if (nonfinite) {
    *found_inf.data_ptr<float>() = 1.0f;
    found_inf.bump_version();
  }
}

TensorBase amp_update_scale_(const TensorBase& self, const TensorBase& growth_tracker, const TensorBase& found_inf,
                             double scale_growth_factor, double scale_backoff_factor, int64_t growth_interval) {
  TL_CHECK(growth_tracker.numel() == 1, "growth_tracker must be a 1-element tensor.");
  TL_CHECK(self.numel() == 1, "current_scale must be a 1-element tensor.");
  TL_CHECK(found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  TL_CHECK(growth_tracker.scalar_type() == kInt, "growth_tracker must be an int tensor.");
  TL_CHECK(self.scalar_type() == kFloat, "current_scale must be a float tensor.");
  TL_CHECK(found_inf.scalar_type() == kFloat, "found_inf must be a float tensor.");
  if (self.is_meta()) return self;
  check_same_device(kUpdateOp, growth_tracker, "growth_tracker", self.device(), "current_scale");
  check_same_device(kUpdateOp, found_inf, "found_inf", self.device(), "current_scale");

  float* scale = self.data_ptr<float>();
  int32_t* clean_steps = growth_tracker.data_ptr<int32_t>();
  amp_advance_scale(scale, clean_steps, *found_inf.data_ptr<float>(), scale_growth_factor, scale_backoff_factor,
                    growth_interval);
  self.bump_version();
  growth_tracker.bump_version();
  return self;
}

}  // namespace at::native
