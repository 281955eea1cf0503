// float <-> float16/bfloat16 over contiguous buffers: the .to()/copy_ fast path.
//
// The generic cast loop converts one element at a time through c10/Half.h's
// bit manipulation; for 16M elements that was twice PyTorch's time. Here:
// float16 uses the F16C instructions (hardware round-to-nearest-even, NaN,
// infinities and subnormals included), bfloat16 does its rounding in AVX2
// integer lanes (add 0x7fff plus the kept part's last bit, keep the top 16 bits;
// NaNs are kept quiet instead). Both are compiled in only when the build
// targets those instruction sets (-march, see setup.py); a build for an older
// CPU gets the scalar loops, which give the same values (NaN payloads aside).
#include "../HalfConvert.h"

#include "../../Parallel.h"

#if defined(__AVX2__) || defined(__F16C__)
#include <immintrin.h>
#endif

namespace at::native::half_convert {
namespace {

void float_to_half(c10::Half* dst, const float* src, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; i + 16 <= n; i += 16) {
    __m128i lo = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    __m128i hi = _mm256_cvtps_ph(_mm256_loadu_ps(src + i + 8), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), lo);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i + 8), hi);
  }
#endif
  for (; i < n; ++i) dst[i] = c10::Half(src[i]);
}

void half_to_float(float* dst, const c10::Half* src, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__) && defined(__AVX__)
  for (; i + 16 <= n; i += 16) {
    __m256 lo = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    __m256 hi = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 8)));
    _mm256_storeu_ps(dst + i, lo);
    _mm256_storeu_ps(dst + i + 8, hi);
  }
#endif
  for (; i < n; ++i) dst[i] = (float)src[i];
}

#if defined(__AVX2__)
// Eight floats to eight bfloat16 bit patterns, each in the low half of a 32-bit lane.
inline __m256i bf16_round8(__m256 x) {
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i kept_lsb = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(bits, _mm256_add_epi32(kept_lsb, _mm256_set1_epi32(0x7fff))), 16);
  const __m256i quiet_nan = _mm256_or_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x40));
  const __m256 is_nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_epi8(rounded, quiet_nan, _mm256_castps_si256(is_nan));
}
#endif

void float_to_bf16(c10::BFloat16* dst, const float* src, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__)
  for (; i + 16 <= n; i += 16) {
    // packus narrows within each 128-bit half: (a0-3, b0-3, a4-7, b4-7);
    // the 64-bit permute puts the quarters back in order.
    __m256i packed = _mm256_packus_epi32(bf16_round8(_mm256_loadu_ps(src + i)),
                                         bf16_round8(_mm256_loadu_ps(src + i + 8)));
    packed = _mm256_permute4x64_epi64(packed, 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
#endif
  for (; i < n; ++i) dst[i] = c10::BFloat16(src[i]);
}

void bf16_to_float(float* dst, const c10::BFloat16* src, int64_t n) {
  int64_t i = 0;
#if defined(__AVX2__)
  for (; i + 16 <= n; i += 16) {
    __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    __m256i lo = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(w)), 16);
    __m256i hi = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(w, 1)), 16);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 8), hi);
  }
#endif
  for (; i < n; ++i) dst[i] = (float)src[i];
}

template <class Out, class In>
void run_parallel(void (*fn)(Out*, const In*, int64_t), void* dst, const void* src, int64_t n) {
  Out* d = static_cast<Out*>(dst);
  const In* s = static_cast<const In*>(src);
  // The same grain as the same-dtype memcpy path: a chunk is worth a thread
  // only when it streams far more than the fork/join costs.
  at::parallel_for(0, n, at::kGrainSize * 4, [&](int64_t b, int64_t e) { fn(d + b, s + b, e - b); });
}

}  // namespace

void half_to_float_n(float* dst, const c10::Half* src, int64_t n) { half_to_float(dst, src, n); }
void float_to_half_n(c10::Half* dst, const float* src, int64_t n) { float_to_half(dst, src, n); }
void bfloat16_to_float_n(float* dst, const c10::BFloat16* src, int64_t n) { bf16_to_float(dst, src, n); }
void float_to_bfloat16_n(c10::BFloat16* dst, const float* src, int64_t n) { float_to_bf16(dst, src, n); }

bool convert_contiguous(c10::ScalarType dst_type, void* dst, c10::ScalarType src_type, const void* src, int64_t n) {
  using c10::ScalarType;
  if (src_type == ScalarType::Float && dst_type == ScalarType::Half)
    run_parallel(&float_to_half, dst, src, n);
  else if (src_type == ScalarType::Half && dst_type == ScalarType::Float)
    run_parallel(&half_to_float, dst, src, n);
  else if (src_type == ScalarType::Float && dst_type == ScalarType::BFloat16)
    run_parallel(&float_to_bf16, dst, src, n);
  else if (src_type == ScalarType::BFloat16 && dst_type == ScalarType::Float)
    run_parallel(&bf16_to_float, dst, src, n);
  else
    return false;
  return true;
}

}  // namespace at::native::half_convert
