// The element functions pointwise formulas in native_functions.yaml call.
// Written once as host/device templates so the CPU loops and CUDA kernels
// instantiate the same code. Integer division by zero sets a flag instead of
// trapping; the kernel raises after the loop.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include "../../c10/Half.h"

namespace tl_math {

// Where integer division by zero is reported. The CPU loop driver points this
// at the flag of the kernel call it runs (on every thread that runs a chunk),
// so the error reaches the call that made it, never another thread's call.
inline std::atomic<int>*& zero_division_slot() {
  static thread_local std::atomic<int>* slot = nullptr;
  return slot;
}
TL_HOST_DEVICE inline void flag_zero_division() {
#ifndef __CUDA_ARCH__
  if (std::atomic<int>* f = zero_division_slot()) f->store(1, std::memory_order_relaxed);
#endif
}

template <class T> constexpr bool is_int = std::is_integral<T>::value && !std::is_same<T, bool>::value;

using std::abs;
using std::acos; using std::asin; using std::atan; using std::atan2;
using std::cos; using std::cosh; using std::exp2; using std::expm1;
using std::log; using std::log10; using std::log1p; using std::log2;
using std::sin; using std::sinh; using std::sqrt; using std::tan; using std::tanh;
using std::erf; using std::erfc; using std::lgamma; using std::asinh; using std::acosh; using std::atanh;
using std::copysign;

// exp for float, branch-free so loops over it vectorise (std::exp is an opaque
// call that blocks SIMD). exp(x) = 2^n * exp(r), n = round(x / ln2), |r| <= ln2/2,
// exp(r) by Cephes' minimax polynomial; 2^n is applied in two halves so
// results in the subnormal range are right. Within 1 ulp of the true value.
TL_HOST_DEVICE inline float exp(float x) {
  const float hi = 88.7228394f, lo = -103.972084f;
  float xc = x < lo ? lo : (x > hi ? hi : x);
  float n = std::nearbyint(xc * 1.44269504088896341f);
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t ni = (int32_t)n;
  int32_t n1 = ni >> 1, n2 = ni - n1;
  uint32_t b1 = (uint32_t)(n1 + 127) << 23, b2 = (uint32_t)(n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  float res = p * s1 * s2;
  res = x > hi ? std::numeric_limits<float>::infinity() : res;
  res = x < lo ? 0.0f : res;
  return x != x ? x : res;
}
template <class T> TL_HOST_DEVICE inline T exp(T x) { return std::exp(x); }

TL_HOST_DEVICE inline bool abs(bool x) { return x; }
TL_HOST_DEVICE inline uint8_t abs(uint8_t x) { return x; }
TL_HOST_DEVICE inline int8_t abs(int8_t x) { return x < 0 ? (int8_t)-x : x; }
TL_HOST_DEVICE inline int16_t abs(int16_t x) { return x < 0 ? (int16_t)-x : x; }

template <class T> TL_HOST_DEVICE inline T sign(T x) {
  if constexpr (std::is_same<T, bool>::value) return x;
  else if constexpr (std::is_unsigned<T>::value) return T(x > 0);
  else return T((T(0) < x) - (x < T(0)));
}
template <class T> TL_HOST_DEVICE inline T rsqrt(T x) { return T(1) / std::sqrt(x); }
template <class T> TL_HOST_DEVICE inline T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }
template <class T> TL_HOST_DEVICE inline T relu(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::isnan(x) ? x : (x > T(0) ? x : T(0));
  else return x > T(0) ? x : T(0);
}
// Rounding returns integers unchanged: going through double would lose
// everything past 2^53 and wrap 2^63 - 1.
template <class T> TL_HOST_DEVICE inline T floor(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::floor(x);
  else return x;
}
template <class T> TL_HOST_DEVICE inline T ceil(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::ceil(x);
  else return x;
}
template <class T> TL_HOST_DEVICE inline T trunc(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::trunc(x);
  else return x;
}
// sqrt(a^2 + b^2) without overflow or underflow in the squares (std::hypot
// scales): hypot(3e38f, 1) is 3e38, not inf.
template <class T> TL_HOST_DEVICE inline T hypot(T a, T b) { return std::hypot(a, b); }
template <class T> TL_HOST_DEVICE inline T round(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::nearbyint(x);  // half to even
  else return x;
}
template <class T> TL_HOST_DEVICE inline T frac(T x) { return x - std::trunc(x); }
template <class T> TL_HOST_DEVICE inline T reciprocal(T x) { return T(1) / x; }
template <class T> TL_HOST_DEVICE inline T silu(T x) { return x / (T(1) + exp(-x)); }
template <class T> TL_HOST_DEVICE inline T gelu(T x) { return T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2))); }
template <class T> TL_HOST_DEVICE inline T softplus(T x) { return x > T(20) ? x : std::log1p(std::exp(x)); }
// erf that vectorizes: std::erf has no SIMD variant, so a float loop calling
// it runs one element at a time (gelu 3x slower than PyTorch). For float this
// is Abramowitz-Stegun 7.1.26 over exp (|error| <= 1.5e-7, float's own
// precision near 1), branch-free so `omp simd` vectorizes it; double and the
// rest keep std::erf.
template <class T> TL_HOST_DEVICE inline T erf_simd(T x) {
  if constexpr (std::is_same<T, float>::value) {
    const float ax = std::fabs(x);
    const float t = 1.0f / (1.0f + 0.3275911f * ax);
    const float poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t +
                        0.254829592f) * t;
    // exp, not std::exp: the float overload above vectorizes, std::exp is a
    // scalar call that kept this whole loop scalar (gelu 6x slower than PyTorch).
    return std::copysign(1.0f - poly * exp(-ax * ax), x);
  } else {
    return std::erf(x);
  }
}

// d/dx gelu(x) = Phi(x) + x phi(x). For float, erf_simd's exp(-z^2) with
// z = x/sqrt(2) is exp(-x^2/2), phi's own factor, so one exp serves both and the
// loop stays small enough to vectorize (written as two calls it did not: the
// backward ran scalar, 7x slower than PyTorch).
template <class T> TL_HOST_DEVICE inline T gelu_erf_grad(T x) {
  if constexpr (std::is_same<T, float>::value) {
    const float z = x * 0.70710678118654752440f;
    const float az = std::fabs(z);
    const float t = 1.0f / (1.0f + 0.3275911f * az);
    const float poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t +
                        0.254829592f) * t;
    const float e = exp(-az * az);
    const float erf_z = std::copysign(1.0f - poly * e, z);
    return 0.5f * (1.0f + erf_z) + x * 0.39894228040143267794f * e;
  } else {
    return T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2))) + x * T(0.39894228040143267794) * std::exp(T(-0.5) * x * x);
  }
}

template <class T> TL_HOST_DEVICE inline bool isnan(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::isnan(x);
  else return false;
}
template <class T> TL_HOST_DEVICE inline bool isinf(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::isinf(x);
  else return false;
}
template <class T> TL_HOST_DEVICE inline bool isfinite(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::isfinite(x);
  else return true;
}
template <class T> TL_HOST_DEVICE inline bool signbit(T x) {
  if constexpr (std::is_floating_point<T>::value) return std::signbit(x);
  else if constexpr (std::is_signed<T>::value) return x < 0;
  else return false;
}

// NaN-propagating min/max, as torch.minimum/maximum and clamp.
template <class T> TL_HOST_DEVICE inline T maximum(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return a > b ? a : b;
}
template <class T> TL_HOST_DEVICE inline T minimum(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return a < b ? a : b;
}
template <class T> TL_HOST_DEVICE inline T clamp(T x, T lo, T hi) { return minimum(maximum(x, lo), hi); }
template <class T> TL_HOST_DEVICE inline T clamp_min(T x, T lo) { return maximum(x, lo); }
template <class T> TL_HOST_DEVICE inline T clamp_max(T x, T hi) { return minimum(x, hi); }

// Python-style floor division and modulo; C-style fmod and truncating division.
template <class T> TL_HOST_DEVICE inline T floor_divide(T a, T b) {
  if constexpr (is_int<T>) {
    if (b == 0) { flag_zero_division(); return 0; }
    if constexpr (std::is_signed<T>::value) {
      if (b == -1) return T(0) - a;  // avoids the INT_MIN / -1 trap
      T q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else return a / b;
  } else if constexpr (std::is_same<T, bool>::value) {
    if (!b) { flag_zero_division(); return 0; }
    return a;
  } else {
    if (b == 0) return a / b;
    T m = std::fmod(a, b);
    T d = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) d -= T(1);
    T fd;
    if (d != 0) {
      fd = std::floor(d);
      if (d - fd > T(0.5)) fd += T(1);
    } else {
      fd = std::copysign(T(0), a / b);
    }
    return fd;
  }
}
template <class T> TL_HOST_DEVICE inline T trunc_divide(T a, T b) {
  if constexpr (is_int<T>) {
    if (b == 0) { flag_zero_division(); return 0; }
    if constexpr (std::is_signed<T>::value) if (b == -1) return T(0) - a;
    return a / b;
  } else return std::trunc(a / b);
}
template <class T> TL_HOST_DEVICE inline T true_divide(T a, T b) { return a / b; }
template <class T> TL_HOST_DEVICE inline T remainder(T a, T b) {
  if constexpr (is_int<T>) {
    if (b == 0) { flag_zero_division(); return 0; }
    if constexpr (std::is_signed<T>::value) {
      if (b == -1) return 0;
      T r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else return a % b;
  } else if constexpr (std::is_same<T, bool>::value) {
    return false;
  } else {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}
template <class T> TL_HOST_DEVICE inline T fmod(T a, T b) {
  if constexpr (is_int<T>) {
    if (b == 0) { flag_zero_division(); return 0; }
    if constexpr (std::is_signed<T>::value) if (b == -1) return 0;
    return a % b;
  } else if constexpr (std::is_same<T, bool>::value) {
    return false;
  } else return std::fmod(a, b);
}

template <class T> TL_HOST_DEVICE inline T pow(T base, T e) {
  if constexpr (is_int<T>) {
    if constexpr (std::is_signed<T>::value) {
      if (e < 0) {
        if (base == 1) return 1;
        if (base == -1) return (e & 1) ? -1 : 1;
        return 0;
      }
    }
    T result = 1;
    while (e) {
      if (e & 1) result = (T)(result * base);
      e /= 2;
      base = (T)(base * base);
    }
    return result;
  } else if constexpr (std::is_same<T, bool>::value) {
    return base || !e;
  } else return std::pow(base, e);
}

template <class T> TL_HOST_DEVICE inline T lerp(T self, T end, T w) {
  return std::abs(w) < T(0.5) ? self + w * (end - self) : end - (end - self) * (T(1) - w);
}
template <class T> TL_HOST_DEVICE inline T nan_to_num(T x, T nan, T posinf, T neginf) {
  if constexpr (std::is_floating_point<T>::value) {
    if (std::isnan(x)) return nan;
    if (std::isinf(x)) return x > 0 ? posinf : neginf;
  }
  return x;
}
template <class T> TL_HOST_DEVICE inline bool cast_bool(T x) { return x != T(0); }
template <class T> TL_HOST_DEVICE inline bool logical_not(T x) { return !cast_bool(x); }
template <class C, class T> TL_HOST_DEVICE inline T where(C c, T a, T b) { return c ? a : b; }

}  // namespace tl_math

namespace tl_math {
template <class T> TL_HOST_DEVICE inline T bitwise_not(T x) {
  if constexpr (std::is_same<T, bool>::value) return !x;
  else return ~x;
}
// Shifts by a negative amount or by the type's width give 0 (or -1 for negative
// right shifts), matching PyTorch rather than C++'s undefined behaviour.
template <class T> TL_HOST_DEVICE inline T shift_left(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (b < 0 || b >= (T)(sizeof(T) * 8)) return 0;
  return (T)((U)a << b);
}
template <class T> TL_HOST_DEVICE inline T shift_right(T a, T b) {
  if (b < 0 || b >= (T)(sizeof(T) * 8)) return (std::is_signed<T>::value && a < 0) ? T(-1) : T(0);
  return (T)(a >> b);
}
TL_HOST_DEVICE inline bool logical_xor(bool a, bool b) { return a != b; }
}  // namespace tl_math

// Special functions (erfinv, digamma, Bessel, ...) and pointwise extras (gcd, heaviside, ...).
#include "SpecialFunctions.h"
