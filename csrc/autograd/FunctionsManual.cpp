#include "FunctionsManual.h"

#include "ops/add.h"
#include "ops/div.h"
#include "ops/eq.h"
#include "ops/ge.h"
#include "ops/gt.h"
#include "ops/le.h"
#include "ops/log.h"
#include "ops/lt.h"
#include "ops/mul.h"
#include "ops/neg.h"
#include "ops/pow.h"
#include "ops/sub.h"
#include "ops/where.h"
#include "ops/zeros_like.h"

namespace c10 {
static Tensor S(const Scalar& s) { return wrapped_scalar_tensor(s); }
Tensor operator+(const Tensor& a, const Tensor& b) { return at::add(a, b, 1); }
Tensor operator-(const Tensor& a, const Tensor& b) { return at::sub(a, b, 1); }
Tensor operator*(const Tensor& a, const Tensor& b) { return at::mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return at::div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return at::add(a, S(b), 1); }
Tensor operator-(const Tensor& a, const Scalar& b) { return at::sub(a, S(b), 1); }
Tensor operator*(const Tensor& a, const Scalar& b) { return at::mul(a, S(b)); }
Tensor operator/(const Tensor& a, const Scalar& b) { return at::div(a, S(b)); }
Tensor operator+(const Scalar& a, const Tensor& b) { return at::add(S(a), b, 1); }
Tensor operator-(const Scalar& a, const Tensor& b) { return at::sub(S(a), b, 1); }
Tensor operator*(const Scalar& a, const Tensor& b) { return at::mul(S(a), b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return at::div(S(a), b); }
Tensor operator-(const Tensor& a) { return at::neg(a); }
Tensor operator>(const Tensor& a, const Tensor& b) { return at::gt(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return at::lt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return at::ge(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return at::le(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return at::eq(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return at::gt(a, S(b)); }
Tensor operator<(const Tensor& a, const Scalar& b) { return at::lt(a, S(b)); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return at::ge(a, S(b)); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return at::le(a, S(b)); }
}  // namespace c10

namespace torchlike::autograd {

static StackProvider g_stack = nullptr;
void set_stack_provider(StackProvider p) { g_stack = p; }
std::string current_stack() { return g_stack ? g_stack() : std::string(); }

void out_variant_requires_grad(const char* op) {
  TL_ERROR(op, "(): functions with out=... arguments don't support automatic differentiation, but one of the "
               "arguments requires grad.");
}

namespace generated {

at::Tensor maybe_multiply(const at::Tensor& t, const at::Scalar& s) {
  bool is_one = s.isFloatingPoint() ? s.toDouble() == 1.0 : s.toLong() == 1;
  return is_one ? t : t * s;
}

// d/dx x^y = y * x^(y-1); where y == 0 the gradient is 0 (even at x == 0).
at::Tensor pow_backward_self(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent) {
  at::Tensor g = grad * exponent * at::pow(self, exponent - 1);
  return at::where(exponent == c10::wrapped_scalar_tensor(0.0), at::zeros_like(g), g);
}

// d/dy x^y = x^y * log(x); where x == 0 and y >= 0 the gradient is 0.
at::Tensor pow_backward_exponent(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& exponent,
                                 const at::Tensor& result) {
  at::Tensor g = grad * result * at::log(self);
  at::Tensor zero_base = at::eq(self, c10::wrapped_scalar_tensor(0.0));
  return at::where(zero_base, at::zeros_like(g), g);
}

at::Tensor threshold_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& threshold) {
  return at::where(self > threshold, grad, at::zeros_like(grad));
}

}  // namespace generated
}  // namespace torchlike::autograd
