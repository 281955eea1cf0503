#include "ScalarType.h"

#include <atomic>

namespace c10 {

const char* toString(ScalarType t) {
  static const char* names[] = {"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"};
  return t < ScalarType::Undefined ? names[(int)t] : "Undefined";
}

const char* toPythonName(ScalarType t) {
  static const char* names[] = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"};
  return t < ScalarType::Undefined ? names[(int)t] : "undefined";
}

ScalarType promoteTypes(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Undefined || b == S::Undefined) return S::Undefined;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  bool fa = isFloatingType(a), fb = isFloatingType(b);
  if (fa && fb) {
    if (isReducedFloatingType(a) && isReducedFloatingType(b)) return S::Float;  // half + bfloat16
    return elementSize(a) >= elementSize(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral: uint8 meets a signed type of equal or smaller size -> next wider signed.
  if (a == S::Byte || b == S::Byte) {
    S other = a == S::Byte ? b : a;
    return other == S::Char ? S::Short : other;
  }
  return elementSize(a) >= elementSize(b) ? a : b;
}

bool canCast(ScalarType from, ScalarType to) {
  if (isFloatingType(from) && isIntegralType(to, false)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

static std::atomic<ScalarType> g_default_float{ScalarType::Float};
ScalarType defaultFloatType() { return g_default_float.load(std::memory_order_relaxed); }
void setDefaultFloatType(ScalarType t) {
  TL_CHECK_TYPE(isFloatingType(t), "only floating-point types are supported as the default type");
  g_default_float.store(t);
}

[[noreturn]] void throw_error(ErrorKind kind, const std::string& msg) { throw Error(kind, msg); }

}  // namespace c10
