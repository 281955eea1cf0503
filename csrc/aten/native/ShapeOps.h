// Shape ops with hand-written kernels (flip, tril/triu): the argument checks
// every backend shares and the index math a CUDA kernel will reuse.
#pragma once
#include <cstdint>
#include <vector>

#include "Math.h"
#include "c10/Tensor.h"

namespace at::native {

// flip's dims, wrapped, as a per-dim mask; raises on a duplicate as PyTorch does.
std::vector<bool> flip_dims_mask(const TensorBase& self, IntArrayRef dims);

// tril/triu need a matrix (or a batch of them).
void check_triangle_input(const TensorBase& self, const char* name);

// The columns [lo, hi) that row `i` keeps: tril keeps j - i <= k, triu keeps
// j - i >= k. Everything else is zero.
TL_HOST_DEVICE inline void triangle_kept_columns(bool lower, int64_t i, int64_t cols, int64_t k, int64_t* lo,
                                                 int64_t* hi) {
  if (lower) {
    int64_t end = i + k + 1;
    *lo = 0;
    *hi = end < 0 ? 0 : (end > cols ? cols : end);
  } else {
    int64_t start = i + k;
    *lo = start < 0 ? 0 : (start > cols ? cols : start);
    *hi = cols;
  }
}

// Element offset in flip's input of output element `linear` (contiguous
// output of `sizes`): a flipped dim reads index size-1-i.
TL_HOST_DEVICE inline int64_t flip_source_offset(int64_t linear, int64_t ndim, const int64_t* sizes,
                                                 const int64_t* in_strides, const bool* flipped) {
  int64_t off = 0;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    int64_t i = linear % sizes[d];
    linear /= sizes[d];
    off += (flipped[d] ? sizes[d] - 1 - i : i) * in_strides[d];
  }
  return off;
}

}  // namespace at::native
