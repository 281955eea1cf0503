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

// Branch-free (selects, not jumps), so loops over keys vectorize: a negative
// value's bits are complemented, a non-negative one's sign bit set; both
// zeros map to +0.0's key, and every NaN to the largest key.
TL_HOST_DEVICE inline uint32_t float_key(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  const uint32_t flip = uint32_t(int32_t(u) >> 31) | 0x80000000u;
  const uint32_t key = v == 0.0f ? 0x80000000u : u ^ flip;
  return v != v ? 0xFFFFFFFFu : key;  // every NaN sorts last
}

TL_HOST_DEVICE inline uint64_t double_key(double v) {
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  const uint64_t sign = uint64_t(1) << 63;
  const uint64_t flip = uint64_t(int64_t(u) >> 63) | sign;
  const uint64_t key = v == 0.0 ? sign : u ^ flip;
  return v != v ? ~uint64_t(0) : key;
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

// Inverse of sort_key for bool and integer types (exact: every integer has
// one key). Floating values are not rebuilt from keys: the key merges -0.0
// with 0.0 and all NaN payloads, so they are read back from the input.
template <class T, class K>
TL_HOST_DEVICE inline T integer_from_key(K key) {
  static_assert(std::is_integral_v<T>, "floating values are gathered, not rebuilt from keys");
  if constexpr (std::is_same_v<T, bool>) {
    return key != 0;
  } else if constexpr (std::is_signed_v<T>) {
    constexpr K bias = K(1) << (sizeof(K) * 8 - 1);
    return static_cast<T>(static_cast<std::make_signed_t<K>>(key ^ bias));
  } else {
    return static_cast<T>(key);
  }
}

// A (key, position) pair packed into one uint64 when the key's range above
// the row minimum and the position fit together: ordering the packed words
// orders by key, then by position, i.e. a stable order; one integer compare
// or one radix digit replaces a pair, and moving 8 bytes replaces 16.
TL_HOST_DEVICE inline uint64_t pack_key_index(uint64_t key_above_min, int64_t index, int index_bits) {
  return (key_above_min << index_bits) | static_cast<uint64_t>(index);
}
TL_HOST_DEVICE inline int64_t packed_index(uint64_t packed, int index_bits) {
  return static_cast<int64_t>(index_bits >= 64 ? packed : packed & ((uint64_t(1) << index_bits) - 1));
}
TL_HOST_DEVICE inline uint64_t packed_key_above_min(uint64_t packed, int index_bits) {
  return index_bits >= 64 ? 0 : packed >> index_bits;
}

// Number of bits needed to write v (0 for 0).
TL_HOST_DEVICE inline int bit_width(uint64_t v) {
  int w = 0;
  while (v) {
    ++w;
    v >>= 1;
  }
  return w;
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
