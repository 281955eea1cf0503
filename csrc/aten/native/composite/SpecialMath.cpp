// Special-function and pointwise-extra operators built from other operators:
// aliases (fix, negative, clip, sgn), number-first forms (pow(2, x)), and ops
// whose extra non-tensor arguments select or feed a generated pointwise
// kernel (polygamma's order, logit's eps, nan_to_num's replacements, round's
// decimals). They run on every backend that has the parts.
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "c10/ScalarType.h"
#include "c10/Tensor.h"
#include "ops/_frexp_exponent.h"
#include "ops/_frexp_mantissa.h"
#include "ops/_logit.h"
#include "ops/_nan_to_num.h"
#include "ops/_polygamma.h"
#include "ops/_round_decimals.h"
#include "ops/_to_copy.h"
#include "ops/add.h"
#include "ops/clamp.h"
#include "ops/clip.h"
#include "ops/clone.h"
#include "ops/copy.h"
#include "ops/exp2.h"
#include "ops/fix.h"
#include "ops/float_power.h"
#include "ops/frexp.h"
#include "ops/ldexp.h"
#include "ops/lgamma.h"
#include "ops/logit.h"
#include "ops/mul.h"
#include "ops/mvlgamma.h"
#include "ops/nan_to_num.h"
#include "ops/neg.h"
#include "ops/negative.h"
#include "ops/polygamma.h"
#include "ops/positive.h"
#include "ops/pow.h"
#include "ops/remainder.h"
#include "ops/round.h"
#include "ops/sgn.h"
#include "ops/sign.h"
#include "ops/special_chebyshev_polynomial_t.h"
#include "ops/special_chebyshev_polynomial_u.h"
#include "ops/special_chebyshev_polynomial_v.h"
#include "ops/special_chebyshev_polynomial_w.h"
#include "ops/special_hermite_polynomial_h.h"
#include "ops/special_hermite_polynomial_he.h"
#include "ops/special_laguerre_polynomial_l.h"
#include "ops/special_legendre_polynomial_p.h"
#include "ops/special_shifted_chebyshev_polynomial_t.h"
#include "ops/special_shifted_chebyshev_polynomial_u.h"
#include "ops/special_shifted_chebyshev_polynomial_v.h"
#include "ops/special_shifted_chebyshev_polynomial_w.h"
#include "ops/special_xlog1py.h"
#include "ops/special_zeta.h"
#include "ops/square.h"
#include "ops/trunc.h"
#include "ops/xlogy.h"

namespace at::native {

static TensorBase number(const Scalar& s) { return c10::wrapped_scalar_tensor(s); }

// ---- polygamma: the order n is an int argument first, as in PyTorch.
static void check_polygamma_order(int64_t n) {
  TL_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
}
TensorBase polygamma(int64_t n, const TensorBase& self) {
  check_polygamma_order(n);
  return at::_ops::_polygamma(self, Scalar(n));
}
TensorBase polygamma_method(const TensorBase& self, int64_t n) { return at::_ops::polygamma(n, self); }
TensorBase polygamma_(const TensorBase& self, int64_t n) {
  check_polygamma_order(n);
  return at::_ops::_polygamma_(self, Scalar(n));
}
TensorBase polygamma_out(const TensorBase& out, int64_t n, const TensorBase& self) {
  check_polygamma_order(n);
  return at::_ops::_polygamma_out(out, self, Scalar(n));
}

// ---- mvlgamma: log of the multivariate gamma function,
// p (p-1)/4 log(pi) + sum_{j<p} lgamma(x - j/2), meant for x > (p-1)/2.
// PyTorch checks only p; elements at or below (p-1)/2 are left to lgamma
// ("the behavior is undefined" in its documentation), so no value is read here.
static void check_mvlgamma(const TensorBase&, int64_t p) {
  TL_CHECK(p >= 1, "p has to be greater than or equal to 1");
}
static TensorBase mvlgamma_value(const TensorBase& self, int64_t p) {
  TensorBase r = at::_ops::lgamma(self);
  for (int64_t j = 1; j < p; ++j)
    r = at::_ops::add(r, at::_ops::lgamma(at::_ops::add(self, number(Scalar(-0.5 * (double)j)))));
  const double log_pi = 1.1447298858494002;
  return at::_ops::add(r, number(Scalar(log_pi * (double)p * (double)(p - 1) / 4.0)));
}
TensorBase mvlgamma(const TensorBase& self, int64_t p) {
  check_mvlgamma(self, p);
  return mvlgamma_value(self, p);
}
TensorBase mvlgamma_(const TensorBase& self, int64_t p) {
  check_mvlgamma(self, p);
  return at::_ops::copy_(self, mvlgamma_value(self, p));
}
TensorBase mvlgamma_out(const TensorBase& out, const TensorBase& self, int64_t p) {
  check_mvlgamma(self, p);
  TensorBase v = mvlgamma_value(self, p);
  // Through an op with out=, so out is resized and its dtype checked as any out= is.
  return at::_ops::add_out(out, v, number(Scalar(0.0)));
}

// ---- logit(x, eps): x clamped to [eps, 1 - eps] first when eps is given.
static TensorBase logit_input(const TensorBase& self, std::optional<double> eps) {
  if (!eps) return self;
  return at::_ops::clamp(self, number(Scalar(*eps)), number(Scalar(1.0 - *eps)));
}
TensorBase logit(const TensorBase& self, std::optional<double> eps) { return at::_ops::_logit(logit_input(self, eps)); }
TensorBase logit_(const TensorBase& self, std::optional<double> eps) {
  if (eps) at::_ops::clamp_(self, number(Scalar(*eps)), number(Scalar(1.0 - *eps)));
  return at::_ops::_logit_(self);
}
TensorBase logit_out(const TensorBase& out, const TensorBase& self, std::optional<double> eps) {
  return at::_ops::_logit_out(out, logit_input(self, eps));
}

TensorBase xlogy_scalar_self(const Scalar& self, const TensorBase& other) {
  return at::_ops::xlogy(number(self), other);
}
TensorBase special_xlog1py_self_scalar(const Scalar& self, const TensorBase& other) {
  return at::_ops::special_xlog1py(number(self), other);
}
TensorBase special_zeta_self_scalar(const Scalar& self, const TensorBase& other) {
  return at::_ops::special_zeta(number(self), other);
}

// ---- nan_to_num: NaN, +inf and -inf replaced; the infinities default to the
// dtype's largest finite values. Integer and bool tensors hold none of them.
static bool holds_non_finite(const TensorBase& self) { return c10::isFloatingType(self.scalar_type()); }
static std::tuple<Scalar, Scalar, Scalar> nan_to_num_values(const TensorBase& self, std::optional<double> nan,
                                                           std::optional<double> posinf, std::optional<double> neginf) {
  double big;
  switch (self.scalar_type()) {
    case ScalarType::Half: big = 65504.0; break;
    case ScalarType::BFloat16: big = 3.3895313892515355e38; break;
    case ScalarType::Float: big = (double)std::numeric_limits<float>::max(); break;
    default: big = std::numeric_limits<double>::max(); break;
  }
  return {Scalar(nan.value_or(0.0)), Scalar(posinf.value_or(big)), Scalar(neginf.value_or(-big))};
}
TensorBase nan_to_num(const TensorBase& self, std::optional<double> nan, std::optional<double> posinf,
                      std::optional<double> neginf) {
  if (!holds_non_finite(self)) return at::_ops::clone(self);
  auto [n, p, m] = nan_to_num_values(self, nan, posinf, neginf);
  return at::_ops::_nan_to_num(self, n, p, m);
}
TensorBase nan_to_num_(const TensorBase& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  if (!holds_non_finite(self)) {
    self.bump_version();  // an in-place op counts as a write even when nothing changes (as PyTorch)
    return self;
  }
  auto [n, p, m] = nan_to_num_values(self, nan, posinf, neginf);
  return at::_ops::_nan_to_num_(self, n, p, m);
}
TensorBase nan_to_num_out(const TensorBase& out, const TensorBase& self, std::optional<double> nan,
                          std::optional<double> posinf, std::optional<double> neginf) {
  // + False: an out= op that resizes out and keeps the dtype of bool and integer inputs.
  if (!holds_non_finite(self)) return at::_ops::add_out(out, self, number(Scalar(false)));
  auto [n, p, m] = nan_to_num_values(self, nan, posinf, neginf);
  return at::_ops::_nan_to_num_out(out, self, n, p, m);
}

// ---- aliases
TensorBase clip(const TensorBase& self, const std::optional<TensorBase>& min, const std::optional<TensorBase>& max) {
  return at::_ops::clamp(self, min, max);
}
TensorBase clip_(const TensorBase& self, const std::optional<TensorBase>& min, const std::optional<TensorBase>& max) {
  return at::_ops::clamp_(self, min, max);
}
TensorBase clip_out(const TensorBase& out, const TensorBase& self, const std::optional<TensorBase>& min,
                    const std::optional<TensorBase>& max) {
  return at::_ops::clamp_out(out, self, min, max);
}
// sgn is sign for real tensors (it differs only for complex ones).
TensorBase sgn(const TensorBase& self) { return at::_ops::sign(self); }
TensorBase sgn_(const TensorBase& self) { return at::_ops::sign_(self); }
TensorBase sgn_out(const TensorBase& out, const TensorBase& self) { return at::_ops::sign_out(out, self); }
TensorBase fix(const TensorBase& self) { return at::_ops::trunc(self); }
TensorBase fix_(const TensorBase& self) { return at::_ops::trunc_(self); }
TensorBase fix_out(const TensorBase& out, const TensorBase& self) { return at::_ops::trunc_out(out, self); }
TensorBase negative(const TensorBase& self) { return at::_ops::neg(self); }
TensorBase negative_(const TensorBase& self) { return at::_ops::neg_(self); }
TensorBase negative_out(const TensorBase& out, const TensorBase& self) { return at::_ops::neg_out(out, self); }
TensorBase positive(const TensorBase& self) {
  TL_CHECK(self.scalar_type() != ScalarType::Bool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}
// x ** 2 with PyTorch's result types (bool squares to int64).
TensorBase square(const TensorBase& self) { return at::_ops::pow(self, number(Scalar((int64_t)2))); }
TensorBase square_(const TensorBase& self) { return at::_ops::pow_(self, number(Scalar((int64_t)2))); }
TensorBase square_out(const TensorBase& out, const TensorBase& self) {
  return at::_ops::pow_out(out, self, number(Scalar((int64_t)2)));
}

// ---- frexp: mantissa in [0.5, 1) and an int32 exponent.
std::tuple<TensorBase, TensorBase> frexp(const TensorBase& self) {
  TL_CHECK(c10::isFloatingType(self.scalar_type()),
           "torch.frexp() only supports floating-point dtypes");
  TensorBase e = at::_ops::_frexp_exponent(self);
  return {at::_ops::_frexp_mantissa(self), at::_ops::_to_copy(e, ScalarType::Int)};
}

// ---- ldexp: self * 2^other (integer inputs give floats, as PyTorch).
TensorBase ldexp(const TensorBase& self, const TensorBase& other) {
  return at::_ops::mul(self, at::_ops::exp2(other));
}
TensorBase ldexp_(const TensorBase& self, const TensorBase& other) {
  return at::_ops::mul_(self, at::_ops::exp2(other));
}
TensorBase ldexp_out(const TensorBase& out, const TensorBase& self, const TensorBase& other) {
  return at::_ops::mul_out(out, self, at::_ops::exp2(other));
}

// ---- float_power: both operands in float64.
static TensorBase as_double(const TensorBase& t) {
  if (t.scalar_type() == ScalarType::Double) return t;
  TensorBase r = at::_ops::_to_copy(t, ScalarType::Double);
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) r.unsafeGetTensorImpl()->set_wrapped_number(true);
  return r;
}
TensorBase float_power(const TensorBase& self, const TensorBase& exponent) {
  return at::_ops::pow(as_double(self), as_double(exponent));
}
TensorBase float_power_scalar_self(const Scalar& self, const TensorBase& exponent) {
  return at::_ops::pow(c10::scalar_to_tensor(Scalar(self.toDouble()), ScalarType::Double, exponent.device()),
                       as_double(exponent));
}
TensorBase float_power_(const TensorBase& self, const TensorBase& exponent) {
  TL_CHECK(self.scalar_type() == ScalarType::Double, "the base given to float_power_ has dtype ",
           c10::toString(self.scalar_type()), " but the operation's result requires dtype Double");
  return at::_ops::pow_(self, as_double(exponent));
}
TensorBase float_power_out(const TensorBase& out, const TensorBase& self, const TensorBase& exponent) {
  return at::_ops::pow_out(out, as_double(self), as_double(exponent));
}

// ---- number-first forms
TensorBase pow_scalar_self(const Scalar& self, const TensorBase& exponent) {
  return at::_ops::pow(number(self), exponent);
}
TensorBase remainder_scalar_self(const Scalar& self, const TensorBase& other) {
  return at::_ops::remainder(number(self), other);
}

// ---- round(x, decimals=d)
TensorBase round_decimals(const TensorBase& self, int64_t decimals) {
  if (decimals == 0) return at::_ops::round(self);
  return at::_ops::_round_decimals(self, Scalar(decimals));
}
TensorBase round_decimals_(const TensorBase& self, int64_t decimals) {
  if (decimals == 0) return at::_ops::round_(self);
  return at::_ops::_round_decimals_(self, Scalar(decimals));
}
TensorBase round_decimals_out(const TensorBase& out, const TensorBase& self, int64_t decimals) {
  if (decimals == 0) return at::_ops::round_out(out, self);
  return at::_ops::_round_decimals_out(out, self, Scalar(decimals));
}

// ---- orthogonal polynomials with a number for x
#define TL_POLY_X_SCALAR(name) \
  TensorBase name##_x_scalar(const Scalar& x, const TensorBase& n) { return at::_ops::name(number(x), n); }
TL_POLY_X_SCALAR(special_chebyshev_polynomial_t)
TL_POLY_X_SCALAR(special_chebyshev_polynomial_u)
TL_POLY_X_SCALAR(special_chebyshev_polynomial_v)
TL_POLY_X_SCALAR(special_chebyshev_polynomial_w)
TL_POLY_X_SCALAR(special_shifted_chebyshev_polynomial_t)
TL_POLY_X_SCALAR(special_shifted_chebyshev_polynomial_u)
TL_POLY_X_SCALAR(special_shifted_chebyshev_polynomial_v)
TL_POLY_X_SCALAR(special_shifted_chebyshev_polynomial_w)
TL_POLY_X_SCALAR(special_hermite_polynomial_h)
TL_POLY_X_SCALAR(special_hermite_polynomial_he)
TL_POLY_X_SCALAR(special_laguerre_polynomial_l)
TL_POLY_X_SCALAR(special_legendre_polynomial_p)
#undef TL_POLY_X_SCALAR

}  // namespace at::native
