#include "PointwiseChecks.h"

#include "../TypePromotion.h"

namespace at::native {

void check_floating_operands(const char* op, std::initializer_list<const TensorBase*> inputs) {
  ResultTypeState st;
  bool any = false;
  for (const TensorBase* t : inputs) {
    if (!t->defined() || t->unsafeGetTensorImpl()->is_wrapped_number()) continue;
    update_result_type_state(*t, st);
    any = true;
  }
  if (!any) return;
  ScalarType r = result_type(st);
  TL_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(r), "\"", op, "\" not implemented for '", c10::toString(r), "'");
}

void sub_check(const char*, const TensorBase& self, const TensorBase& other) {
  bool a = self.scalar_type() == ScalarType::Bool, b = other.scalar_type() == ScalarType::Bool;
  TL_CHECK(!(a && b), "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
           "`logical_xor()` operator instead.");
  TL_CHECK(!(a || b), "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
           "invert a mask, use the `~` or `logical_not()` operator instead.");
}

void neg_check(const char*, const TensorBase& self) {
  TL_CHECK(self.scalar_type() != ScalarType::Bool, "Negation, the `-` operator, on a bool tensor is not supported. "
           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

void pow_check(const char*, const TensorBase& self, const TensorBase& exponent) {
  if (!exponent.unsafeGetTensorImpl()->is_wrapped_number() || exponent.is_meta()) return;
  if (!c10::isIntegralType(self.scalar_type(), false) || !c10::isIntegralType(exponent.scalar_type(), true)) return;
  Scalar e = c10::item(exponent);
  // The exponent must be representable in the tensor's dtype (2**40 would
  // wrap to 0 and give x ** 0 = 1).
  TL_DISPATCH_INTEGRAL_TYPES(self.scalar_type(), "pow", [&] { (void)e.to<scalar_t>(); });
  TL_CHECK(e.toLong() >= 0, "Integers to negative integer powers are not allowed.");
}

}  // namespace at::native
