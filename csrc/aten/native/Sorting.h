// Sorting and selection along one dim (sort, topk, kthvalue, median): the
// order every backend shares and the row walk, as host/device code.
//
// Values are compared through an unsigned "sort key" whose unsigned order is
// PyTorch's order for the dtype: integers by value, floating values by value
// with -0.0 == 0.0 kept apart only by a stable tie, and every NaN (whatever
// its sign or payload) after +inf, as PyTorch sorts NaN last ascending and
// first descending. A radix sort over these keys is stable and needs no
// comparator; a descending sort uses the complemented key.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "c10/Half.h"

namespace at::native::sorting {

template <class T>
struct KeyOf {
  // bool, unsigned and signed integers up to 32 bits, half types and float: 32-bit keys.
  using type = std::conditional_t<(sizeof(T) == 8), uint64_t, uint32_t>;
};

TL_HOST_DEVICE inline uint32_t float_key(float v) {
  if (v != v) return 0xFFFFFFFFu;  // every NaN sorts last
  if (v == 0.0f) v = 0.0f;         // -0.0 and 0.0 compare equal
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

TL_HOST_DEVICE inline uint64_t double_key(double v) {
  if (v != v) return ~uint64_t(0);
  if (v == 0.0) v = 0.0;
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return (u >> 63) ? ~u : (u | (uint64_t(1) << 63));
}

template <class T>
TL_HOST_DEVICE inline typename KeyOf<T>::type sort_key(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return double_key(v);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, c10::Half> ||
                       std::is_same_v<T, c10::BFloat16>) {
    return float_key(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? 1u : 0u;
  } else if constexpr (std::is_signed_v<T>) {
    using U = typename KeyOf<T>::type;
    constexpr U bias = U(1) << (sizeof(U) * 8 - 1);
    return static_cast<U>(static_cast<std::conditional_t<sizeof(T) == 8, int64_t, int32_t>>(v)) ^ bias;
  } else {
    return static_cast<typename KeyOf<T>::type>(v);
  }
}

// Offset of row `r` when the rows are all dims but the last of a view with
// `nd` dims (sizes/strides, the sorted dim moved last).
TL_HOST_DEVICE inline int64_t row_offset(int64_t r, int nd, const int64_t* sizes, const int64_t* strides) {
  int64_t off = 0;
  for (int d = nd - 2; d >= 0; --d) {
    int64_t i = r % sizes[d];
    r /= sizes[d];
    off += i * strides[d];
  }
  return off;
}

}  // namespace at::native::sorting
