// GEMM on torchlike's intra-op thread pool.
//
// OpenBLAS keeps its own pthread pool, whose idle threads spin after each call;
// alternating with the OpenMP pool of the elementwise kernels, the two pools
// fight over the cores (a small CNN step went from 18 ms to 670 ms on 2 busy
// cores). So OpenBLAS runs single-threaded (Parallel.cpp sets it to 1 thread)
// and a large product is split here instead: the longer of C's two dimensions
// is cut into one block per thread (multiples of 16 rows/columns, a multiple
// of every register block), each block one single-threaded BLAS call. Only the
// shared operand is packed twice, which is small next to the product.
#pragma once
#include <cblas.h>

#include <algorithm>
#include <cstdint>

#include "../../Parallel.h"

namespace at::native::cpu_gemm {

inline void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, float alpha,
                      const float* a, blasint lda, const float* b, blasint ldb, float beta, float* c, blasint ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, double alpha,
                      const double* a, blasint lda, const double* b, blasint ldb, double beta, double* c,
                      blasint ldc) {
  scipy_cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// Below this many multiply-adds one thread does the whole product: a split
// costs a fork/join and a second packing of the shared operand.
constexpr int64_t kSplitMacs = int64_t(1) << 18;
constexpr int64_t kBlock = 16;

// Row-major C (m x n, ldc) = alpha * op(A) @ op(B) + beta * C.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  const CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
  const int nt = at::get_num_threads();
  const bool by_rows = m >= n;
  const int64_t len = by_rows ? m : n;
  int64_t parts = std::min<int64_t>(nt, (len + kBlock - 1) / kBlock);
  if (nt <= 1 || parts <= 1 || m * n * k < kSplitMacs || at::in_parallel_region()) {
    blas_gemm(TA, TB, (blasint)m, (blasint)n, (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb, beta, c,
              (blasint)ldc);
    return;
  }
  const int64_t per = ((len + parts - 1) / parts + kBlock - 1) / kBlock * kBlock;
  parts = (len + per - 1) / per;
  at::parallel_for(0, parts, 1, [&](int64_t s, int64_t e) {
    for (int64_t p = s; p < e; ++p) {
      const int64_t lo = p * per, cnt = std::min(len, lo + per) - lo;
      if (by_rows)  // rows lo.. of op(A) and C
        blas_gemm(TA, TB, (blasint)cnt, (blasint)n, (blasint)k, alpha, ta ? a + lo : a + lo * lda, (blasint)lda, b,
                  (blasint)ldb, beta, c + lo * ldc, (blasint)ldc);
      else  // columns lo.. of op(B) and C
        blas_gemm(TA, TB, (blasint)m, (blasint)cnt, (blasint)k, alpha, a, (blasint)lda, tb ? b + lo * ldb : b + lo,
                  (blasint)ldb, beta, c + lo, (blasint)ldc);
    }
  });
}

}  // namespace at::native::cpu_gemm
