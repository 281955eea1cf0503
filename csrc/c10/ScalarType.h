// The ten dtypes, their C++ types, and PyTorch's promotion lattice.
#pragma once
#include <cstdint>
#include <ostream>
#include "Exception.h"
#include "Half.h"

namespace c10 {

// Order matters: it is the index into the promotion table and the Python dtype objects.
#define TL_FORALL_SCALAR_TYPES(_) \
  _(bool, Bool)                   \
  _(uint8_t, Byte)                \
  _(int8_t, Char)                 \
  _(int16_t, Short)               \
  _(int, Int)                     \
  _(int64_t, Long)                \
  _(c10::Half, Half)              \
  _(c10::BFloat16, BFloat16)      \
  _(float, Float)                 \
  _(double, Double)

enum class ScalarType : int8_t {
#define TL_DEFINE_ENUM(t, name) name,
  TL_FORALL_SCALAR_TYPES(TL_DEFINE_ENUM)
#undef TL_DEFINE_ENUM
  Undefined,
  NumOptions = Undefined
};

constexpr int kNumScalarTypes = static_cast<int>(ScalarType::NumOptions);

// PyTorch's short names: at::kFloat, at::kLong, ...
#define TL_DEFINE_CONSTANT(ctype, name) constexpr ScalarType k##name = ScalarType::name;
TL_FORALL_SCALAR_TYPES(TL_DEFINE_CONSTANT)
#undef TL_DEFINE_CONSTANT

inline size_t elementSize(ScalarType t) {
  switch (t) {
#define TL_CASE(ctype, name) \
  case ScalarType::name:     \
    return sizeof(ctype);
    TL_FORALL_SCALAR_TYPES(TL_CASE)
#undef TL_CASE
    default:
      TL_ERROR("elementSize: undefined dtype");
  }
}

// PyTorch-facing names: "torch.float32" style.
const char* toString(ScalarType t);   // "Float"
const char* toPythonName(ScalarType t);  // "float32"
inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }

inline bool isIntegralType(ScalarType t, bool includeBool) {
  return (includeBool && t == ScalarType::Bool) ||
         (t >= ScalarType::Byte && t <= ScalarType::Long);
}
inline bool isFloatingType(ScalarType t) { return t >= ScalarType::Half && t <= ScalarType::Double; }
inline bool isReducedFloatingType(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }
inline bool isSignedType(ScalarType t) { return t != ScalarType::Bool && t != ScalarType::Byte; }

// 0 = bool, 1 = integer, 2 = floating: scalars and 0-dim tensors promote by category only.
inline int typeCategory(ScalarType t) {
  return t == ScalarType::Bool ? 0 : (isFloatingType(t) ? 2 : 1);
}

ScalarType promoteTypes(ScalarType a, ScalarType b);
// Whether `from` may be written into `to` by an in-place op without losing category.
bool canCast(ScalarType from, ScalarType to);

ScalarType defaultFloatType();
void setDefaultFloatType(ScalarType t);

template <class T> struct CppTypeToScalarType;
#define TL_SPECIALIZE(ctype, name) \
  template <> struct CppTypeToScalarType<ctype> { static constexpr ScalarType value = ScalarType::name; };
TL_FORALL_SCALAR_TYPES(TL_SPECIALIZE)
#undef TL_SPECIALIZE

// The type kernels accumulate in: half/bfloat16 compute in float.
template <class T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <class T> using opmath_t = typename OpMath<T>::type;

}  // namespace c10

// Dispatch a runtime dtype to a lambda that sees `scalar_t`. Each macro names
// the op for the error message when the dtype is unsupported.
#define TL_PRIVATE_CASE(ctype, name, ...) \
  case ::c10::ScalarType::name: {         \
    using scalar_t = ctype;               \
    return __VA_ARGS__();                 \
  }

#define TL_DISPATCH_SWITCH(TYPE, NAME, CASES)                                                     \
  [&] {                                                                                           \
    ::c10::ScalarType _st = (TYPE);                                                               \
    switch (_st) {                                                                                \
      CASES                                                                                       \
      default:                                                                                    \
        ::c10::throw_error(::c10::ErrorKind::NotImplemented,                                      \
                           ::c10::str("\"", NAME, "\" not implemented for '", ::c10::toString(_st), "'")); \
    }                                                                                             \
  }()

#define TL_CASES_INTEGRAL(...)                 \
  TL_PRIVATE_CASE(uint8_t, Byte, __VA_ARGS__)  \
  TL_PRIVATE_CASE(int8_t, Char, __VA_ARGS__)   \
  TL_PRIVATE_CASE(int16_t, Short, __VA_ARGS__) \
  TL_PRIVATE_CASE(int, Int, __VA_ARGS__)       \
  TL_PRIVATE_CASE(int64_t, Long, __VA_ARGS__)
#define TL_CASES_FLOATING(...)                           \
  TL_PRIVATE_CASE(c10::Half, Half, __VA_ARGS__)          \
  TL_PRIVATE_CASE(c10::BFloat16, BFloat16, __VA_ARGS__)  \
  TL_PRIVATE_CASE(float, Float, __VA_ARGS__)             \
  TL_PRIVATE_CASE(double, Double, __VA_ARGS__)
#define TL_CASES_BOOL(...) TL_PRIVATE_CASE(bool, Bool, __VA_ARGS__)

#define TL_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_CASES_BOOL(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__) TL_CASES_FLOATING(__VA_ARGS__))
#define TL_DISPATCH_NUMERIC_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_CASES_INTEGRAL(__VA_ARGS__) TL_CASES_FLOATING(__VA_ARGS__))
#define TL_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_CASES_INTEGRAL(__VA_ARGS__))
#define TL_DISPATCH_INTEGRAL_AND_BOOL_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_CASES_BOOL(__VA_ARGS__) TL_CASES_INTEGRAL(__VA_ARGS__))
#define TL_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_CASES_FLOATING(__VA_ARGS__))
#define TL_DISPATCH_BOOL_TYPES(TYPE, NAME, ...) \
  TL_DISPATCH_SWITCH(TYPE, NAME, TL_CASES_BOOL(__VA_ARGS__))
