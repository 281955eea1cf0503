// How a row-major batched product C = A @ B (torchlike's layout) is handed to
// a column-major BLAS (cuBLAS): which operand goes first, whether each is
// read transposed, the leading dimensions, and when an operand must be
// copied first. Pure integer logic on sizes and element strides, shared by
// the CUDA matmul/convolution code and the CPU test hooks
// (csrc/python/CudaBlasTesting.cpp), so it is tested without a GPU.
//
// Column-major BLAS computes C' = op(X) op(Y) on column-major storage. Row-
// major C (m x n) stored densely is, read column-major, C^T (n x m); and
// C^T = B^T A^T. So the call is made with dims (n, m, k), X = B, Y = A, and
// each operand's own layout decides its transpose flag:
//   - a row-major operand (unit column stride) read column-major is already
//     its transpose: no transpose flag, ld = its row stride;
//   - a column-major operand (unit row stride) needs the flag, ld = its
//     column stride.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>

namespace at::native::blas_plan {

// cuBLAS counts sizes and leading dimensions in int.
constexpr int64_t kIntMax = std::numeric_limits<int>::max();

// One operand: a logical rows x cols row-major matrix with element strides
// (row_stride, col_stride), as the column-major BLAS sees it.
struct Operand {
  bool usable = false;      // BLAS can read it in place
  bool transposed = false;  // pass the transpose flag
  int64_t ld = 0;           // leading dimension to pass
};

// A dimension of extent 1 places no constraint on its stride, and BLAS wants
// ld >= max(1, extent of the stored leading dim) even when that dim is unused.
inline Operand classify(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  Operand o;
  const int64_t min_row_ld = std::max<int64_t>(cols, 1), min_col_ld = std::max<int64_t>(rows, 1);
  if ((col_stride == 1 || cols <= 1) && (rows <= 1 || row_stride >= min_row_ld)) {
    o.usable = true;
    o.transposed = false;
    o.ld = rows <= 1 ? min_row_ld : row_stride;
  } else if ((row_stride == 1 || rows <= 1) && (cols <= 1 || col_stride >= min_col_ld)) {
    o.usable = true;
    o.transposed = true;
    o.ld = cols <= 1 ? min_col_ld : col_stride;
  }
  if (o.ld > kIntMax) o.usable = false;
  return o;
}

// The whole call for C (m x n, row stride ldc, unit column stride) =
// A (m x k) @ B (k x n). `first` is B, `second` is A (see the top comment).
struct GemmCall {
  int64_t m = 0, n = 0, k = 0;  // BLAS's m, n, k: (n, m, k) of the row-major product
  Operand first;                // B as BLAS's first operand
  Operand second;               // A as BLAS's second operand
  int64_t ldc = 0;
  bool copy_a = false;  // A must be made contiguous first (then re-plan)
  bool copy_b = false;
  bool fits = true;     // m, n, k, ldc fit cuBLAS's int
};

inline GemmCall plan(int64_t m, int64_t n, int64_t k, int64_t a_rs, int64_t a_cs, int64_t b_rs, int64_t b_cs,
                     int64_t ldc) {
  GemmCall c;
  c.m = n;
  c.n = m;
  c.k = k;
  c.first = classify(k, n, b_rs, b_cs);
  c.second = classify(m, k, a_rs, a_cs);
  c.copy_b = !c.first.usable;
  c.copy_a = !c.second.usable;
  c.ldc = std::max<int64_t>(ldc, std::max<int64_t>(n, 1));
  c.fits = m <= kIntMax && n <= kIntMax && k <= kIntMax && c.ldc <= kIntMax;
  return c;
}

// A batch stride must be representable (cuBLAS takes long long) and the
// batch count an int; a zero stride (a broadcast operand) is allowed.
inline bool batch_fits(int64_t batch) { return batch >= 0 && batch <= kIntMax; }

}  // namespace at::native::blas_plan
