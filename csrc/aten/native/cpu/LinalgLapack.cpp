// CPU kernels of the LAPACK primitives behind torchlike.linalg: LU (getrf),
// solve (gesv), triangular solve (trsm), Cholesky (potrf), QR (geqrf/orgqr),
// symmetric eigendecomposition (syevd), SVD (gesdd) and the general
// eigendecomposition (geev), batched over leading dimensions.
//
// LAPACK is column-major; torchlike tensors here are row-major contiguous.
// Each matrix is copied into a column-major scratch buffer, factored there and
// copied back: O(n^2) copies next to O(n^3) factorizations. The routines come
// from scipy-openblas32, whose Fortran symbols carry a scipy_ prefix (declared
// below with gfortran's hidden string-length arguments for the char flags).
// Errors LAPACK reports through `info` (singular, not positive-definite, no
// convergence) are returned per matrix; torchlike/linalg.py raises on them.
#include <cblas.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "../Copy.h"
#include "../LinalgLapack.h"
#include "ops/_linalg_geev.h"
#include "ops/_linalg_geqrf.h"
#include "ops/_linalg_gesdd.h"
#include "ops/_linalg_gesv.h"
#include "ops/_linalg_getrf.h"
#include "ops/_linalg_lu_perm.h"
#include "ops/_linalg_orgqr.h"
#include "ops/_linalg_potrf.h"
#include "ops/_linalg_syevd.h"
#include "ops/_linalg_sytrf.h"
#include "ops/_linalg_sytrs.h"
#include "ops/_linalg_trsm.h"

extern "C" {
using lp_int = int;  // scipy-openblas32: 32-bit LAPACK integers
#define TL_DECL_LAPACK(p, T)                                                                                         \
  void scipy_##p##getrf_(const lp_int*, const lp_int*, T*, const lp_int*, lp_int*, lp_int*);                         \
  void scipy_##p##gesv_(const lp_int*, const lp_int*, T*, const lp_int*, lp_int*, T*, const lp_int*, lp_int*);       \
  void scipy_##p##geqrf_(const lp_int*, const lp_int*, T*, const lp_int*, T*, T*, const lp_int*, lp_int*);           \
  void scipy_##p##orgqr_(const lp_int*, const lp_int*, const lp_int*, T*, const lp_int*, const T*, T*, const lp_int*, \
                         lp_int*);                                                                                   \
  void scipy_##p##potrf_(const char*, const lp_int*, T*, const lp_int*, lp_int*, size_t);                           \
  void scipy_##p##syevd_(const char*, const char*, const lp_int*, T*, const lp_int*, T*, T*, const lp_int*, lp_int*, \
                         const lp_int*, lp_int*, size_t, size_t);                                                    \
  void scipy_##p##gesdd_(const char*, const lp_int*, const lp_int*, T*, const lp_int*, T*, T*, const lp_int*, T*,    \
                         const lp_int*, T*, const lp_int*, lp_int*, lp_int*, size_t);                                \
  void scipy_##p##sytrf_(const char*, const lp_int*, T*, const lp_int*, lp_int*, T*, const lp_int*, lp_int*,        \
                         size_t);                                                                                    \
  void scipy_##p##sytrs_(const char*, const lp_int*, const lp_int*, const T*, const lp_int*, const lp_int*, T*,      \
                         const lp_int*, lp_int*, size_t);                                                            \
  void scipy_##p##geev_(const char*, const char*, const lp_int*, T*, const lp_int*, T*, T*, T*, const lp_int*, T*,   \
                        const lp_int*, T*, const lp_int*, lp_int*, size_t, size_t);
TL_DECL_LAPACK(s, float)
TL_DECL_LAPACK(d, double)
#undef TL_DECL_LAPACK
}

namespace at::native {
namespace {

using lp_int = int;

template <class T>
struct Lapack;

#define TL_LAPACK_STRUCT(p, T)                                                                                        \
  template <>                                                                                                         \
  struct Lapack<T> {                                                                                                  \
    static void getrf(lp_int m, lp_int n, T* a, lp_int lda, lp_int* ipiv, lp_int* info) {                             \
      scipy_##p##getrf_(&m, &n, a, &lda, ipiv, info);                                                                 \
    }                                                                                                                 \
    static void gesv(lp_int n, lp_int nrhs, T* a, lp_int lda, lp_int* ipiv, T* b, lp_int ldb, lp_int* info) {         \
      scipy_##p##gesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, info);                                                      \
    }                                                                                                                 \
    static void geqrf(lp_int m, lp_int n, T* a, lp_int lda, T* tau, T* work, lp_int lwork, lp_int* info) {            \
      scipy_##p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                    \
    }                                                                                                                 \
    static void orgqr(lp_int m, lp_int n, lp_int k, T* a, lp_int lda, const T* tau, T* work, lp_int lwork,            \
                      lp_int* info) {                                                                                 \
      scipy_##p##orgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);                                                \
    }                                                                                                                 \
    static void potrf(char uplo, lp_int n, T* a, lp_int lda, lp_int* info) {                                          \
      scipy_##p##potrf_(&uplo, &n, a, &lda, info, 1);                                                                 \
    }                                                                                                                 \
    static void syevd(char jobz, char uplo, lp_int n, T* a, lp_int lda, T* w, T* work, lp_int lwork, lp_int* iwork,   \
                      lp_int liwork, lp_int* info) {                                                                  \
      scipy_##p##syevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);                      \
    }                                                                                                                 \
    static void gesdd(char jobz, lp_int m, lp_int n, T* a, lp_int lda, T* s, T* u, lp_int ldu, T* vt, lp_int ldvt,    \
                      T* work, lp_int lwork, lp_int* iwork, lp_int* info) {                                           \
      scipy_##p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);                 \
    }                                                                                                                 \
    static void sytrf(lp_int n, T* a, lp_int lda, lp_int* ipiv, T* work, lp_int lwork, lp_int* info) {                \
      const char uplo = 'L';                                                                                          \
      scipy_##p##sytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);                                             \
    }                                                                                                                 \
    static void sytrs(lp_int n, lp_int nrhs, const T* a, lp_int lda, const lp_int* ipiv, T* b, lp_int ldb,            \
                      lp_int* info) {                                                                                 \
      const char uplo = 'L';                                                                                          \
      scipy_##p##sytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);                                           \
    }                                                                                                                 \
    static void geev(char jobvl, char jobvr, lp_int n, T* a, lp_int lda, T* wr, T* wi, T* vl, lp_int ldvl, T* vr,     \
                     lp_int ldvr, T* work, lp_int lwork, lp_int* info) {                                              \
      scipy_##p##geev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, work, &lwork, info, 1, 1);          \
    }                                                                                                                 \
  };
TL_LAPACK_STRUCT(s, float)
TL_LAPACK_STRUCT(d, double)
#undef TL_LAPACK_STRUCT

void trsm_blas(float, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, blasint m, blasint n, const float* a,
               blasint lda, float* b, blasint ldb) {
  scipy_cblas_strsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0f, a, lda, b, ldb);
}
void trsm_blas(double, CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, blasint m, blasint n, const double* a,
               blasint lda, double* b, blasint ldb) {
  scipy_cblas_dtrsm(CblasRowMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0, a, lda, b, ldb);
}

// LAPACK indexes with 32-bit ints: refuse what it cannot address.
void check_int_range(const char* op, int64_t m, int64_t n) {
  constexpr int64_t kMax = std::numeric_limits<lp_int>::max();
  TL_CHECK(m <= kMax && n <= kMax && m * n <= kMax, op, ": matrix of size ", m, "x", n,
           " exceeds what the LAPACK library can index");
}

inline lp_int ld(int64_t rows) { return static_cast<lp_int>(std::max<int64_t>(rows, 1)); }

// Row-major m x n (src) -> column-major with leading dimension ldc (dst).
template <class T>
void load_cm(const T* src, T* dst, int64_t m, int64_t n, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) dst[j * ldc + i] = src[i * n + j];
}

// Column-major (leading dimension ldc) -> row-major m x n.
template <class T>
void store_cm(const T* src, T* dst, int64_t m, int64_t n, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) dst[i * n + j] = src[j * ldc + i];
}

int64_t batch_count(const TensorBase& A) {
  int64_t b = 1;
  for (int64_t i = 0; i + 2 < A.dim(); ++i) b *= A.sizes()[i];
  return b;
}

// Workspace size from a LAPACK query (lwork = -1 writes it to work[0]).
template <class T>
lp_int query_size(T w) {
  return std::max<lp_int>(1, static_cast<lp_int>(w));
}

inline int64_t rows(const TensorBase& t) { return t.sizes()[t.dim() - 2]; }
inline int64_t cols(const TensorBase& t) { return t.sizes()[t.dim() - 1]; }

TensorOptions int_opts(const TensorBase& A) { return A.options().with_dtype(ScalarType::Int); }

// ---------------------------------------------------------------- getrf

template <class T>
void getrf_impl(const TensorBase& A, const TensorBase& LU, const TensorBase& piv, const TensorBase& info) {
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n), B = batch_count(A);
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T* plu = LU.data_ptr<T>();
  lp_int* pp = piv.data_ptr<lp_int>();
  lp_int* pi = info.data_ptr<lp_int>();
  std::vector<T> buf(static_cast<size_t>(std::max<int64_t>(m * n, 1)));
  for (int64_t b = 0; b < B; ++b) {
    pi[b] = 0;
    if (k == 0) continue;
    load_cm(pa + b * m * n, buf.data(), m, n, m);
    Lapack<T>::getrf(m, n, buf.data(), ld(m), pp + b * k, pi + b);
    store_cm(buf.data(), plu + b * m * n, m, n, m);
  }
}

// ---------------------------------------------------------------- gesv

template <class T>
void gesv_impl(const TensorBase& A, const TensorBase& Bm, const TensorBase& X, const TensorBase& info) {
  const int64_t n = rows(A), k = cols(Bm), B = batch_count(A);
  TensorBase a = contiguous(A), rhs = contiguous(Bm);
  const T* pa = a.data_ptr<T>();
  const T* pb = rhs.data_ptr<T>();
  T* px = X.data_ptr<T>();
  lp_int* pi = info.data_ptr<lp_int>();
  std::vector<lp_int> piv(static_cast<size_t>(std::max<int64_t>(n, 1)));
  std::vector<T> abuf(static_cast<size_t>(std::max<int64_t>(n * n, 1)));
  std::vector<T> bbuf(static_cast<size_t>(std::max<int64_t>(n * k, 1)));
  for (int64_t b = 0; b < B; ++b) {
    pi[b] = 0;
    if (n == 0) continue;
    load_cm(pa + b * n * n, abuf.data(), n, n, n);
    load_cm(pb + b * n * k, bbuf.data(), n, k, n);
    Lapack<T>::gesv(n, k, abuf.data(), ld(n), piv.data(), bbuf.data(), ld(n), pi + b);
    store_cm(bbuf.data(), px + b * n * k, n, k, n);
  }
}

// ---------------------------------------------------------------- trsm

template <class T>
void trsm_impl(const TensorBase& A, const TensorBase& X, bool upper, bool left, bool unit) {
  const int64_t n = rows(A), m = rows(X), k = cols(X), B = batch_count(A);
  if (B == 0 || m == 0 || k == 0) return;
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T* px = X.data_ptr<T>();
  for (int64_t b = 0; b < B; ++b)
    trsm_blas(T(), left ? CblasLeft : CblasRight, upper ? CblasUpper : CblasLower, unit ? CblasUnit : CblasNonUnit,
              static_cast<blasint>(m), static_cast<blasint>(k), pa + b * n * n, static_cast<blasint>(std::max<int64_t>(n, 1)),
              px + b * m * k, static_cast<blasint>(std::max<int64_t>(k, 1)));
}

// ---------------------------------------------------------------- potrf

template <class T>
void potrf_impl(const TensorBase& A, bool upper, const TensorBase& L, const TensorBase& info) {
  const int64_t n = rows(A), B = batch_count(A);
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T* pl = L.data_ptr<T>();
  lp_int* pi = info.data_ptr<lp_int>();
  std::vector<T> buf(static_cast<size_t>(std::max<int64_t>(n * n, 1)));
  for (int64_t b = 0; b < B; ++b) {
    pi[b] = 0;
    if (n == 0) continue;
    load_cm(pa + b * n * n, buf.data(), n, n, n);
    Lapack<T>::potrf(upper ? 'U' : 'L', n, buf.data(), ld(n), pi + b);
    T* out = pl + b * n * n;
    store_cm(buf.data(), out, n, n, n);
    // potrf leaves the other triangle as it was: the factor is triangular.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (upper ? j < i : j > i) out[i * n + j] = T(0);
  }
}

// ---------------------------------------------------------------- geqrf / orgqr

template <class T>
void geqrf_impl(const TensorBase& A, const TensorBase& R, const TensorBase& tau) {
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n), B = batch_count(A);
  if (k == 0) {
    if (R.numel() > 0) std::memcpy(R.data_ptr<T>(), contiguous(A).data_ptr<T>(), R.numel() * sizeof(T));
    return;
  }
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T *pr = R.data_ptr<T>(), *pt = tau.data_ptr<T>();
  std::vector<T> buf(static_cast<size_t>(m * n));
  T wq{};
  lp_int info = 0;
  Lapack<T>::geqrf(m, n, buf.data(), ld(m), pt, &wq, -1, &info);
  std::vector<T> work(static_cast<size_t>(query_size(wq)));
  for (int64_t b = 0; b < B; ++b) {
    load_cm(pa + b * m * n, buf.data(), m, n, m);
    Lapack<T>::geqrf(m, n, buf.data(), ld(m), pt + b * k, work.data(), static_cast<lp_int>(work.size()), &info);
    store_cm(buf.data(), pr + b * m * n, m, n, m);
  }
}

template <class T>
void orgqr_impl(const TensorBase& A, const TensorBase& tau, const TensorBase& Q) {
  const int64_t m = rows(A), n = cols(A), k = cols(tau), B = batch_count(A);
  if (B == 0 || m == 0 || n == 0) return;
  TensorBase a = contiguous(A), t = contiguous(tau);
  const T *pa = a.data_ptr<T>(), *pt = t.data_ptr<T>();
  T* pq = Q.data_ptr<T>();
  std::vector<T> buf(static_cast<size_t>(m * n));
  T wq{};
  lp_int info = 0;
  Lapack<T>::orgqr(m, n, k, buf.data(), ld(m), pt, &wq, -1, &info);
  std::vector<T> work(static_cast<size_t>(query_size(wq)));
  for (int64_t b = 0; b < B; ++b) {
    load_cm(pa + b * m * n, buf.data(), m, n, m);
    Lapack<T>::orgqr(m, n, k, buf.data(), ld(m), pt + b * k, work.data(), static_cast<lp_int>(work.size()), &info);
    store_cm(buf.data(), pq + b * m * n, m, n, m);
  }
}

// ---------------------------------------------------------------- syevd

template <class T>
void syevd_impl(const TensorBase& A, bool upper, bool compute_v, const TensorBase& w, const TensorBase& V,
                const TensorBase& info) {
  const int64_t n = rows(A), B = batch_count(A);
  lp_int* pi = info.data_ptr<lp_int>();
  for (int64_t b = 0; b < B; ++b) pi[b] = 0;
  if (n == 0 || B == 0) return;
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T* pw = w.data_ptr<T>();
  const char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  std::vector<T> buf(static_cast<size_t>(n * n));
  T wq{};
  lp_int iwq = 0;
  Lapack<T>::syevd(jobz, uplo, n, buf.data(), ld(n), pw, &wq, -1, &iwq, -1, pi);
  std::vector<T> work(static_cast<size_t>(query_size(wq)));
  std::vector<lp_int> iwork(static_cast<size_t>(std::max<lp_int>(iwq, 1)));
  for (int64_t b = 0; b < B; ++b) {
    load_cm(pa + b * n * n, buf.data(), n, n, n);
    Lapack<T>::syevd(jobz, uplo, n, buf.data(), ld(n), pw + b * n, work.data(), static_cast<lp_int>(work.size()),
                     iwork.data(), static_cast<lp_int>(iwork.size()), pi + b);
    if (compute_v) store_cm(buf.data(), V.data_ptr<T>() + b * n * n, n, n, n);
  }
}

// ---------------------------------------------------------------- gesdd

template <class T>
void gesdd_impl(const TensorBase& A, bool full, bool compute_uv, const TensorBase& U, const TensorBase& S,
                const TensorBase& Vh) {
  const int64_t m = rows(A), n = cols(A), k = std::min(m, n), B = batch_count(A);
  if (B == 0) return;
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  if (k == 0) {
    // No singular values; full_matrices gives identity bases (what LAPACK's
    // orthonormal completion of an empty set is).
    if (compute_uv && full) {
      T *pu = U.data_ptr<T>(), *pv = Vh.data_ptr<T>();
      for (int64_t b = 0; b < B; ++b) {
        for (int64_t i = 0; i < m * m; ++i) pu[b * m * m + i] = (i % (m + 1) == 0) ? T(1) : T(0);
        for (int64_t i = 0; i < n * n; ++i) pv[b * n * n + i] = (i % (n + 1) == 0) ? T(1) : T(0);
      }
    }
    return;
  }
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T* ps = S.data_ptr<T>();
  const char jobz = compute_uv ? (full ? 'A' : 'S') : 'N';
  std::vector<T> buf(static_cast<size_t>(m * n));
  std::vector<T> ubuf(compute_uv ? static_cast<size_t>(m * ucols) : 1), vbuf(compute_uv ? static_cast<size_t>(vrows * n) : 1);
  std::vector<lp_int> iwork(static_cast<size_t>(8 * k));
  T wq{};
  lp_int qinfo = 0;
  Lapack<T>::gesdd(jobz, m, n, buf.data(), ld(m), ps, ubuf.data(), ld(m), vbuf.data(), ld(vrows), &wq, -1,
                   iwork.data(), &qinfo);
  std::vector<T> work(static_cast<size_t>(query_size(wq)));
  for (int64_t b = 0; b < B; ++b) {
    load_cm(pa + b * m * n, buf.data(), m, n, m);
    lp_int info = 0;
    Lapack<T>::gesdd(jobz, m, n, buf.data(), ld(m), ps + b * k, ubuf.data(), ld(m), vbuf.data(), ld(vrows),
                     work.data(), static_cast<lp_int>(work.size()), iwork.data(), &info);
    if (info != 0)  // no convergence (or a NaN input): NaN singular values tell linalg.py to raise
      for (int64_t i = 0; i < k; ++i) ps[b * k + i] = std::numeric_limits<T>::quiet_NaN();
    if (compute_uv) {
      store_cm(ubuf.data(), U.data_ptr<T>() + b * m * ucols, m, ucols, m);
      store_cm(vbuf.data(), Vh.data_ptr<T>() + b * vrows * n, vrows, n, vrows);
    }
  }
}

// ---------------------------------------------------------------- geev

template <class T>
void geev_impl(const TensorBase& A, const TensorBase& w, const TensorBase& V, const TensorBase& info) {
  const int64_t n = rows(A), B = batch_count(A);
  lp_int* pi = info.data_ptr<lp_int>();
  for (int64_t b = 0; b < B; ++b) pi[b] = 0;
  if (n == 0 || B == 0) return;
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T* pw = w.data_ptr<T>();  // (B, 2, n): real parts, then imaginary parts
  std::vector<T> buf(static_cast<size_t>(n * n)), vr(static_cast<size_t>(n * n));
  T dummy{};
  T wq{};
  lp_int qinfo = 0;
  Lapack<T>::geev('N', 'V', n, buf.data(), ld(n), pw, pw + n, &dummy, 1, vr.data(), ld(n), &wq, -1, &qinfo);
  std::vector<T> work(static_cast<size_t>(query_size(wq)));
  for (int64_t b = 0; b < B; ++b) {
    load_cm(pa + b * n * n, buf.data(), n, n, n);
    Lapack<T>::geev('N', 'V', n, buf.data(), ld(n), pw + 2 * b * n, pw + 2 * b * n + n, &dummy, 1, vr.data(), ld(n),
                    work.data(), static_cast<lp_int>(work.size()), pi + b);
    store_cm(vr.data(), V.data_ptr<T>() + b * n * n, n, n, n);
  }
}

// ---------------------------------------------------------------- sytrf / sytrs

template <class T>
void sytrf_impl(const TensorBase& A, const TensorBase& LD, const TensorBase& piv, const TensorBase& info) {
  const int64_t n = rows(A), B = batch_count(A);
  lp_int* pi = info.data_ptr<lp_int>();
  for (int64_t b = 0; b < B; ++b) pi[b] = 0;
  if (n == 0 || B == 0) return;
  TensorBase a = contiguous(A);
  const T* pa = a.data_ptr<T>();
  T* pld = LD.data_ptr<T>();
  lp_int* pp = piv.data_ptr<lp_int>();
  std::vector<T> buf(static_cast<size_t>(n * n));
  T wq{};
  lp_int qinfo = 0;
  Lapack<T>::sytrf(n, buf.data(), ld(n), pp, &wq, -1, &qinfo);
  std::vector<T> work(static_cast<size_t>(query_size(wq)));
  for (int64_t b = 0; b < B; ++b) {
    load_cm(pa + b * n * n, buf.data(), n, n, n);
    Lapack<T>::sytrf(n, buf.data(), ld(n), pp + b * n, work.data(), static_cast<lp_int>(work.size()), pi + b);
    T* out = pld + b * n * n;
    store_cm(buf.data(), out, n, n, n);
    for (int64_t i = 0; i < n; ++i)  // the factor lives in the lower triangle; the rest is A's, cleared
      for (int64_t j = i + 1; j < n; ++j) out[i * n + j] = T(0);
  }
}

template <class T>
void sytrs_impl(const TensorBase& LD, const TensorBase& piv, const TensorBase& X) {
  const int64_t n = rows(LD), k = cols(X), B = batch_count(LD);
  if (n == 0 || k == 0 || B == 0) return;
  TensorBase a = contiguous(LD), p = contiguous(piv);
  const T* pa = a.data_ptr<T>();
  const lp_int* pp = p.data_ptr<lp_int>();
  T* px = X.data_ptr<T>();
  std::vector<T> abuf(static_cast<size_t>(n * n)), bbuf(static_cast<size_t>(n * k));
  for (int64_t b = 0; b < B; ++b) {
    // LAPACK reads pivots it did not write as row indices: refuse ones out of range.
    for (int64_t i = 0; i < n; ++i) {
      const lp_int v = pp[b * n + i];
      TL_CHECK(v != 0 && v <= n && v >= -n, "_linalg_sytrs: pivots must be in [-", n, ", ", n,
               "] and nonzero, but got ", v);
    }
    load_cm(pa + b * n * n, abuf.data(), n, n, n);
    load_cm(px + b * n * k, bbuf.data(), n, k, n);
    lp_int info = 0;
    Lapack<T>::sytrs(n, k, abuf.data(), ld(n), pp + b * n, bbuf.data(), ld(n), &info);
    store_cm(bbuf.data(), px + b * n * k, n, k, n);
  }
}

template <class F>
void dispatch_fd(const TensorBase& A, F&& f) {
  if (A.scalar_type() == ScalarType::Double)
    f(double());
  else
    f(float());
}

}  // namespace

std::tuple<TensorBase, TensorBase, TensorBase> linalg_getrf_cpu(const TensorBase& A) {
  check_lapack_input("_linalg_getrf", A);
  check_int_range("_linalg_getrf", rows(A), cols(A));
  TensorBase LU = empty_shaped(batch_shape(A, {rows(A), cols(A)}), A.options());
  TensorBase piv = empty_shaped(batch_shape(A, {std::min(rows(A), cols(A))}), int_opts(A));
  TensorBase info = empty_shaped(batch_shape(A, {}), int_opts(A));
  dispatch_fd(A, [&](auto t) { getrf_impl<decltype(t)>(A, LU, piv, info); });
  return {LU, piv, info};
}

std::tuple<TensorBase, TensorBase> linalg_gesv_cpu(const TensorBase& A, const TensorBase& B) {
  check_square("_linalg_gesv", A);
  check_rhs("_linalg_gesv", A, B, true);
  check_int_range("_linalg_gesv", rows(B), cols(B));
  TensorBase X = empty_shaped(batch_shape(B, {rows(B), cols(B)}), B.options());
  TensorBase info = empty_shaped(batch_shape(A, {}), int_opts(A));
  dispatch_fd(A, [&](auto t) { gesv_impl<decltype(t)>(A, B, X, info); });
  return {X, info};
}

TensorBase linalg_trsm_cpu(const TensorBase& A, const TensorBase& B, bool upper, bool left, bool unitriangular) {
  check_square("_linalg_trsm", A);
  check_rhs("_linalg_trsm", A, B, left);
  check_int_range("_linalg_trsm", rows(B), cols(B));
  TensorBase X = empty_shaped(batch_shape(B, {rows(B), cols(B)}), B.options());
  if (X.numel() > 0) std::memcpy(X.data_ptr(), contiguous(B).data_ptr(), X.nbytes());
  dispatch_fd(A, [&](auto t) { trsm_impl<decltype(t)>(A, X, upper, left, unitriangular); });
  return X;
}

std::tuple<TensorBase, TensorBase> linalg_potrf_cpu(const TensorBase& A, bool upper) {
  check_square("_linalg_potrf", A);
  check_int_range("_linalg_potrf", rows(A), cols(A));
  TensorBase L = empty_shaped(batch_shape(A, {rows(A), cols(A)}), A.options());
  TensorBase info = empty_shaped(batch_shape(A, {}), int_opts(A));
  dispatch_fd(A, [&](auto t) { potrf_impl<decltype(t)>(A, upper, L, info); });
  return {L, info};
}

std::tuple<TensorBase, TensorBase> linalg_geqrf_cpu(const TensorBase& A) {
  check_lapack_input("_linalg_geqrf", A);
  check_int_range("_linalg_geqrf", rows(A), cols(A));
  TensorBase R = empty_shaped(batch_shape(A, {rows(A), cols(A)}), A.options());
  TensorBase tau = empty_shaped(batch_shape(A, {std::min(rows(A), cols(A))}), A.options());
  dispatch_fd(A, [&](auto t) { geqrf_impl<decltype(t)>(A, R, tau); });
  return {R, tau};
}

TensorBase linalg_orgqr_cpu(const TensorBase& A, const TensorBase& tau) {
  check_householder("_linalg_orgqr", A, tau);
  check_int_range("_linalg_orgqr", rows(A), cols(A));
  TensorBase Q = empty_shaped(batch_shape(A, {rows(A), cols(A)}), A.options());
  dispatch_fd(A, [&](auto t) { orgqr_impl<decltype(t)>(A, tau, Q); });
  return Q;
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_syevd_cpu(const TensorBase& A, bool upper, bool compute_v) {
  check_square("_linalg_syevd", A);
  check_int_range("_linalg_syevd", rows(A), cols(A));
  const int64_t n = rows(A);
  TensorBase w = empty_shaped(batch_shape(A, {n}), A.options());
  TensorBase V = compute_v ? empty_shaped(batch_shape(A, {n, n}), A.options()) : empty_shaped(DimVector{0}, A.options());
  TensorBase info = empty_shaped(batch_shape(A, {}), int_opts(A));
  dispatch_fd(A, [&](auto t) { syevd_impl<decltype(t)>(A, upper, compute_v, w, V, info); });
  return {w, V, info};
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_gesdd_cpu(const TensorBase& A, bool full_matrices,
                                                               bool compute_uv) {
  check_lapack_input("_linalg_gesdd", A);
  check_int_range("_linalg_gesdd", rows(A), cols(A));
  auto shapes = svd_shapes(A, full_matrices, compute_uv);
  TensorBase U = empty_shaped(shapes[0], A.options()), S = empty_shaped(shapes[1], A.options());
  TensorBase Vh = empty_shaped(shapes[2], A.options());
  dispatch_fd(A, [&](auto t) { gesdd_impl<decltype(t)>(A, full_matrices, compute_uv, U, S, Vh); });
  return {U, S, Vh};
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_geev_cpu(const TensorBase& A) {
  check_square("_linalg_geev", A);
  check_int_range("_linalg_geev", rows(A), cols(A));
  const int64_t n = rows(A);
  TensorBase w = empty_shaped(batch_shape(A, {2, n}), A.options());
  TensorBase V = empty_shaped(batch_shape(A, {n, n}), A.options()), info = empty_shaped(batch_shape(A, {}), int_opts(A));
  dispatch_fd(A, [&](auto t) { geev_impl<decltype(t)>(A, w, V, info); });
  return {w, V, info};
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_sytrf_cpu(const TensorBase& A) {
  check_square("_linalg_sytrf", A);
  check_int_range("_linalg_sytrf", rows(A), cols(A));
  TensorBase LD = empty_shaped(batch_shape(A, {rows(A), cols(A)}), A.options());
  TensorBase piv = empty_shaped(batch_shape(A, {rows(A)}), int_opts(A));
  TensorBase info = empty_shaped(batch_shape(A, {}), int_opts(A));
  dispatch_fd(A, [&](auto t) { sytrf_impl<decltype(t)>(A, LD, piv, info); });
  return {LD, piv, info};
}

TensorBase linalg_sytrs_cpu(const TensorBase& LD, const TensorBase& pivots, const TensorBase& B) {
  check_sytrs("_linalg_sytrs", LD, pivots, B);
  check_int_range("_linalg_sytrs", rows(B), cols(B));
  TensorBase X = empty_shaped(batch_shape(B, {rows(B), cols(B)}), B.options());
  if (X.numel() > 0) std::memcpy(X.data_ptr(), contiguous(B).data_ptr(), X.nbytes());
  dispatch_fd(LD, [&](auto t) { sytrs_impl<decltype(t)>(LD, pivots, X); });
  return X;
}

TensorBase linalg_lu_perm_cpu(const TensorBase& pivots, int64_t m) {
  check_lu_perm("_linalg_lu_perm", pivots, m);
  const int64_t k = pivots.sizes()[pivots.dim() - 1];
  int64_t B = 1;
  for (int64_t i = 0; i + 1 < pivots.dim(); ++i) B *= pivots.sizes()[i];
  TensorBase perm = empty_shaped(batch_shape(pivots, {m}, 1), pivots.options().with_dtype(ScalarType::Long));
  TensorBase piv = contiguous(pivots);
  const lp_int* pp = piv.data_ptr<lp_int>();
  int64_t* out = perm.data_ptr<int64_t>();
  for (int64_t b = 0; b < B; ++b) {
    int64_t* p = out + b * m;
    for (int64_t i = 0; i < m; ++i) p[i] = i;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t j = static_cast<int64_t>(pp[b * k + i]) - 1;
      TL_CHECK(j >= i && j < m, "_linalg_lu_perm: pivots must be 1-based row indices in [", i + 1, ", ", m,
               "] at position ", i, ", but got ", j + 1);
      std::swap(p[i], p[j]);
    }
  }
  return perm;
}

}  // namespace at::native
