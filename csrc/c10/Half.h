// 16-bit floating types stored as bits and computed in float. The conversions
// are plain bit manipulation so the same code can later compile for CUDA.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>

#ifdef __CUDACC__
#define TL_HOST_DEVICE __host__ __device__
#else
#define TL_HOST_DEVICE
#endif

namespace c10 {

namespace detail {
TL_HOST_DEVICE inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
TL_HOST_DEVICE inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TL_HOST_DEVICE inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (mant << 13));  // inf/nan
  if (exp == 0) {
    if (mant == 0) return f32_from_bits(sign);
    // subnormal: value = mant * 2^-24
    float v = (float)mant * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
}

TL_HOST_DEVICE inline uint16_t float_to_half_bits(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0));
  if (absx >= 0x477ff000u) return (uint16_t)(sign | 0x7c00);  // rounds to inf
  if (absx < 0x38800000u) {
    // subnormal or zero in half: round(value / 2^-24) with ties to even
    float a = f32_from_bits(absx);
    float scaled = a * 16777216.0f;  // exact: power of two
    uint32_t m = (uint32_t)scaled;
    float rem = scaled - (float)m;
    if (rem > 0.5f || (rem == 0.5f && (m & 1))) ++m;
    return (uint16_t)(sign | m);
  }
  // normal: rebias exponent, round mantissa to nearest even
  uint32_t mant_odd = (absx >> 13) & 1;
  absx += 0xfff + mant_odd;
  return (uint16_t)(sign | (((absx >> 13) - (112 << 10)) & 0x7fff));
}

TL_HOST_DEVICE inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffff) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);  // quiet nan
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return (uint16_t)(x >> 16);
}
}  // namespace detail

struct alignas(2) Half {
  uint16_t x;
  Half() = default;
  struct from_bits_t {};
  TL_HOST_DEVICE constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  TL_HOST_DEVICE Half(float v) : x(detail::float_to_half_bits(v)) {}
  TL_HOST_DEVICE operator float() const { return detail::half_bits_to_float(x); }
};

struct alignas(2) BFloat16 {
  uint16_t x;
  BFloat16() = default;
  struct from_bits_t {};
  TL_HOST_DEVICE constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  TL_HOST_DEVICE BFloat16(float v) : x(detail::float_to_bf16_bits(v)) {}
  TL_HOST_DEVICE operator float() const { return detail::f32_from_bits((uint32_t)x << 16); }
};

inline std::ostream& operator<<(std::ostream& os, Half h) { return os << (float)h; }
inline std::ostream& operator<<(std::ostream& os, BFloat16 h) { return os << (float)h; }

}  // namespace c10
