// Arithmetic and comparison operators on at::Tensor for the C++ API
// (a + b * 2, -a, a < b). Each is the operator's at:: function; numbers are
// wrapped as Python wraps them, so `t * 2` keeps t's dtype as `t * 2` does in
// Python. Library code uses the TensorBase operators of FunctionsManual.h.
#pragma once
#include "Functions.h"

namespace at {

#define TL_TENSOR_BINARY_OPERATOR(op, fn)                                                             \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return at::fn(a, b); }               \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return at::fn(a, b); }               \
  inline Tensor operator op(const Scalar& a, const Tensor& b) {                                      \
    return at::fn(Tensor(c10::wrapped_scalar_tensor(a)), b);                                          \
  }
TL_TENSOR_BINARY_OPERATOR(+, add)
TL_TENSOR_BINARY_OPERATOR(-, sub)
TL_TENSOR_BINARY_OPERATOR(*, mul)
TL_TENSOR_BINARY_OPERATOR(/, div)
TL_TENSOR_BINARY_OPERATOR(%, remainder)
TL_TENSOR_BINARY_OPERATOR(&, bitwise_and)
TL_TENSOR_BINARY_OPERATOR(|, bitwise_or)
TL_TENSOR_BINARY_OPERATOR(^, bitwise_xor)
TL_TENSOR_BINARY_OPERATOR(<, lt)
TL_TENSOR_BINARY_OPERATOR(<=, le)
TL_TENSOR_BINARY_OPERATOR(>, gt)
TL_TENSOR_BINARY_OPERATOR(>=, ge)
TL_TENSOR_BINARY_OPERATOR(==, eq)
TL_TENSOR_BINARY_OPERATOR(!=, ne)
#undef TL_TENSOR_BINARY_OPERATOR

inline Tensor operator-(const Tensor& a) { return at::neg(a); }
inline Tensor operator~(const Tensor& a) { return at::bitwise_not(a); }

// Compound assignment: in place, like the *_ methods.
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
inline Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
inline Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
inline Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
inline Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
inline Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
inline Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
inline Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace at
