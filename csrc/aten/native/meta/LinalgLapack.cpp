// Meta kernels of the LAPACK primitives: the CPU kernels' checks, then empty
// results of the shapes and dtypes the CPU kernels return (no data).
#include <algorithm>

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

namespace at::native {
namespace {
inline int64_t rows(const TensorBase& t) { return t.sizes()[t.dim() - 2]; }
inline int64_t cols(const TensorBase& t) { return t.sizes()[t.dim() - 1]; }
TensorOptions int_opts(const TensorBase& A) { return A.options().with_dtype(ScalarType::Int); }
TensorBase like_matrix(const TensorBase& A) { return empty_shaped(batch_shape(A, {rows(A), cols(A)}), A.options()); }
TensorBase info_of(const TensorBase& A) { return empty_shaped(batch_shape(A, {}), int_opts(A)); }
}  // namespace

std::tuple<TensorBase, TensorBase, TensorBase> linalg_getrf_meta(const TensorBase& A) {
  check_lapack_input("_linalg_getrf", A);
  return {like_matrix(A), empty_shaped(batch_shape(A, {std::min(rows(A), cols(A))}), int_opts(A)), info_of(A)};
}

std::tuple<TensorBase, TensorBase> linalg_gesv_meta(const TensorBase& A, const TensorBase& B) {
  check_square("_linalg_gesv", A);
  check_rhs("_linalg_gesv", A, B, true);
  return {like_matrix(B), info_of(A)};
}

TensorBase linalg_trsm_meta(const TensorBase& A, const TensorBase& B, bool, bool left, bool) {
  check_square("_linalg_trsm", A);
  check_rhs("_linalg_trsm", A, B, left);
  return like_matrix(B);
}

std::tuple<TensorBase, TensorBase> linalg_potrf_meta(const TensorBase& A, bool) {
  check_square("_linalg_potrf", A);
  return {like_matrix(A), info_of(A)};
}

std::tuple<TensorBase, TensorBase> linalg_geqrf_meta(const TensorBase& A) {
  check_lapack_input("_linalg_geqrf", A);
  return {like_matrix(A), empty_shaped(batch_shape(A, {std::min(rows(A), cols(A))}), A.options())};
}

TensorBase linalg_orgqr_meta(const TensorBase& A, const TensorBase& tau) {
  check_householder("_linalg_orgqr", A, tau);
  return like_matrix(A);
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_syevd_meta(const TensorBase& A, bool, bool compute_v) {
  check_square("_linalg_syevd", A);
  const int64_t n = rows(A);
  return {empty_shaped(batch_shape(A, {n}), A.options()),
          compute_v ? like_matrix(A) : empty_shaped(DimVector{0}, A.options()), info_of(A)};
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_gesdd_meta(const TensorBase& A, bool full_matrices,
                                                                bool compute_uv) {
  check_lapack_input("_linalg_gesdd", A);
  auto s = svd_shapes(A, full_matrices, compute_uv);
  return {empty_shaped(s[0], A.options()), empty_shaped(s[1], A.options()), empty_shaped(s[2], A.options())};
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_geev_meta(const TensorBase& A) {
  check_square("_linalg_geev", A);
  const int64_t n = rows(A);
  return {empty_shaped(batch_shape(A, {2, n}), A.options()), like_matrix(A), info_of(A)};
}

std::tuple<TensorBase, TensorBase, TensorBase> linalg_sytrf_meta(const TensorBase& A) {
  check_square("_linalg_sytrf", A);
  return {like_matrix(A), empty_shaped(batch_shape(A, {rows(A)}), int_opts(A)), info_of(A)};
}

TensorBase linalg_sytrs_meta(const TensorBase& LD, const TensorBase& pivots, const TensorBase& B) {
  check_sytrs("_linalg_sytrs", LD, pivots, B);
  return like_matrix(B);
}

TensorBase linalg_lu_perm_meta(const TensorBase& pivots, int64_t m) {
  check_lu_perm("_linalg_lu_perm", pivots, m);
  return empty_shaped(batch_shape(pivots, {m}, 1), pivots.options().with_dtype(ScalarType::Long));
}

}  // namespace at::native
