#include "TypePromotion.h"

namespace at {

static ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return c10::promoteTypes(a, b);
}

static ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (c10::isFloatingType(higher)) return higher;
  if (higher == ScalarType::Bool || c10::isFloatingType(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}

void update_result_type_state(const TensorBase& t, ResultTypeState& s) {
  if (!t.defined()) return;
  ScalarType cur = t.scalar_type();
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) {
    if (c10::isFloatingType(cur)) cur = c10::defaultFloatType();
    s.wrappedResult = promote_skip_undefined(s.wrappedResult, cur);
  } else if (t.dim() == 0) {
    s.zeroResult = promote_skip_undefined(s.zeroResult, cur);
  } else {
    s.dimResult = promote_skip_undefined(s.dimResult, cur);
  }
}

void update_result_type_state(const Scalar& v, ResultTypeState& s) {
  ScalarType cur = v.type();
  if (c10::isFloatingType(cur)) cur = c10::defaultFloatType();
  s.wrappedResult = promote_skip_undefined(s.wrappedResult, cur);
}

ScalarType result_type(const ResultTypeState& s) {
  return combine_categories(s.dimResult, combine_categories(s.zeroResult, s.wrappedResult));
}

ScalarType result_type(ArrayRef<TensorBase> tensors) {
  ResultTypeState s;
  for (const TensorBase& t : tensors) update_result_type_state(t, s);
  return result_type(s);
}

}  // namespace at
