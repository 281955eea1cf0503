// Conversions into the 16-bit floating types (issue 12).
//
// Every conversion into float16/bfloat16 ends in the one float -> half
// rounding of c10/Half.h (round to nearest, ties to even). A source wider than
// float (double, 32/64-bit integers) must not be rounded to float first with
// the same rule: a value just above a half-way point between two half values
// can round down onto that half-way point in float, and then ties-to-even
// rounds it the wrong way (1 + 2^-11 + 2^-40 gave 1.0 in float16, not
// 1.0009765625). Rounding to float "to odd" instead -- truncate, and set the
// last bit when anything was dropped -- keeps that information: with float's
// 24 bits at least 2 more than the target's 11 (float16) or 8 (bfloat16), the
// second rounding is then the correctly rounded result of the original value.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../c10/Half.h"
#include "../../c10/Scalar.h"
#include "../../c10/ScalarType.h"

namespace at::native::half_convert {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// v rounded to float toward zero, with the last bit set when inexact.
inline float round_to_odd_float(double v) {
  const float nearest = (float)v;
  if (std::isnan(v)) return nearest;
  if ((double)nearest == v) return nearest;                         // exact, infinities too
  uint32_t bits = float_bits(nearest);
  // Nearest rounding went away from zero: one step back in magnitude. For an
  // overflow to inf this lands on FLT_MAX, whose last bit is already odd.
  if (std::fabs((double)nearest) > std::fabs(v)) bits -= 1;
  return float_from_bits(bits | 1u);
}

inline float round_to_odd_float(int64_t v) {
  const uint64_t mag = v < 0 ? uint64_t(0) - (uint64_t)v : (uint64_t)v;
  if (mag < (uint64_t(1) << 24)) return (float)v;  // exact in float
  int width = 64;
  while (!(mag >> (width - 1))) --width;  // bit length of mag, > 24 here
  const int dropped = width - 24;
  uint64_t kept = mag >> dropped;
  if (mag & ((uint64_t(1) << dropped) - 1)) kept |= 1;
  const float f = std::ldexp((float)kept, dropped);  // kept < 2^24: exact
  return v < 0 ? -f : f;
}
inline float round_to_odd_float(int32_t v) { return round_to_odd_float((int64_t)v); }

// True for the source types whose conversion into a 16-bit float needs the
// round-to-odd step (every other source converts to float exactly).
template <class In>
constexpr bool wider_than_float_v =
    std::is_same<In, double>::value || std::is_same<In, int64_t>::value || std::is_same<In, int32_t>::value;

template <class Out>
constexpr bool is_half_type_v = std::is_same<Out, c10::Half>::value || std::is_same<Out, c10::BFloat16>::value;

// A Scalar as T; into the 16-bit types rounded once (see above), where
// Scalar::to goes through a float rounded to nearest.
template <class T>
inline T fill_value(const c10::Scalar& s) {
  if constexpr (is_half_type_v<T>) {
    if (s.isFloatingPoint()) return T(round_to_odd_float(s.toDouble()));
    if (s.isIntegral(false)) return T(round_to_odd_float((int64_t)s.toLong()));
  }
  return s.to<T>();
}

// n float16 values widened to float on the calling thread (F16C where built for it).
void half_to_float_n(float* dst, const c10::Half* src, int64_t n);
// The other block conversions, on the calling thread too: for kernels that
// stream a 16-bit tensor through a float buffer inside their own parallel loop.
void float_to_half_n(c10::Half* dst, const float* src, int64_t n);
void bfloat16_to_float_n(float* dst, const c10::BFloat16* src, int64_t n);
void float_to_bfloat16_n(c10::BFloat16* dst, const float* src, int64_t n);

// Contiguous conversions between float and the 16-bit types, vectorised where
// the build targets F16C/AVX2 (scalar otherwise) and split over the intra-op
// pool. Return false for a pair they do not cover.
bool convert_contiguous(c10::ScalarType dst_type, void* dst, c10::ScalarType src_type, const void* src, int64_t n);

}  // namespace at::native::half_convert
