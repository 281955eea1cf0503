// unique, unique_consecutive and mode: what every backend shares.
//
// Order: values are ordered by Sorting.h's sort keys (integers by value,
// -0.0 with 0.0, every NaN after +inf), so a sort groups equal values together.
// Equality: two elements are one value when they compare equal as numbers, so
// -0.0 and 0.0 are one value and a NaN equals nothing, not even another NaN:
// each NaN is a value of its own with count 1, as in PyTorch's unique,
// unique_consecutive and mode (which compare with ==).
//
// Slices (the dim forms) are walked on a contiguous input seen as
// (outer, n, inner): slice i of n holds the elements (o, i, k), in (o, k)
// order, which is the order of the slice's remaining dims, so comparing slices
// element by element in that order is PyTorch's lexicographic order.
#pragma once
#include <cstdint>
#include <type_traits>

#include "Sorting.h"
#include "c10/Half.h"
#include "c10/Tensor.h"

namespace at::native::unique_mode {

template <class T>
TL_HOST_DEVICE inline bool same_value(T a, T b) {
  if constexpr (std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>) {
    return static_cast<float>(a) == static_cast<float>(b);
  } else {
    return a == b;
  }
}

// A contiguous tensor seen as (outer, n, inner) around the unique dim.
struct SliceGeometry {
  int64_t outer = 1, n = 1, inner = 1;
  // Offset of element j (in (o, k) order) of slice i.
  TL_HOST_DEVICE int64_t at(int64_t i, int64_t j) const {
    int64_t o = j / inner, k = j - o * inner;
    return (o * n + i) * inner + k;
  }
  TL_HOST_DEVICE int64_t slice_numel() const { return outer * inner; }
};

// Slices i and a of `x` hold the same values (NaN never does).
template <class T>
TL_HOST_DEVICE inline bool same_slice(const T* x, const SliceGeometry& g, int64_t i, int64_t a) {
  for (int64_t o = 0; o < g.outer; ++o) {
    const T* p = x + (o * g.n + i) * g.inner;
    const T* q = x + (o * g.n + a) * g.inner;
    for (int64_t k = 0; k < g.inner; ++k)
      if (!same_value(p[k], q[k])) return false;
  }
  return true;
}

// Slice i orders before slice a (lexicographic by sort key; 0 when equal keys).
// Returns -1, 0 or 1.
template <class T>
TL_HOST_DEVICE inline int compare_slices(const T* x, const SliceGeometry& g, int64_t i, int64_t a) {
  for (int64_t o = 0; o < g.outer; ++o) {
    const T* p = x + (o * g.n + i) * g.inner;
    const T* q = x + (o * g.n + a) * g.inner;
    for (int64_t k = 0; k < g.inner; ++k) {
      auto kp = sorting::sort_key<T>(p[k]);
      auto kq = sorting::sort_key<T>(q[k]);
      if (kp != kq) return kp < kq ? -1 : 1;
    }
  }
  return 0;
}

// Checks shared by the CPU and Meta kernels (UniqueMode.cpp).

// The wrapped dim of a dim form of unique / unique_consecutive: a 0-dim input
// has no dim to name (IndexError), and zero-sized dims other than `dim` leave
// slices with no elements to compare (RuntimeError), as in PyTorch.
int64_t check_unique_dim(const TensorBase& self, int64_t dim);

SliceGeometry slice_geometry(IntArrayRef sizes, int64_t dim);

// The wrapped dim of mode; the reduced dim must hold at least one element.
int64_t check_mode_dim(const TensorBase& self, int64_t dim);

// The shape of mode's outputs: `dim` dropped, or kept with size 1.
DimVector mode_result_shape(const TensorBase& self, int64_t dim, bool keepdim);

}  // namespace at::native::unique_mode
