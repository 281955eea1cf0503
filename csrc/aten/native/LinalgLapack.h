// Shape/dtype checks and result shapes shared by the CPU and Meta kernels of
// the LAPACK primitives (_linalg_getrf, _linalg_gesv, ...), so both backends
// accept the same inputs and raise the same messages. torchlike/linalg.py
// checks the user-facing arguments with PyTorch's wording first; these checks
// guard the primitives themselves (they are reachable as torchlike._linalg_*).
#pragma once
#include <algorithm>
#include <array>
#include <initializer_list>
#include <cstdint>

#include "../../c10/Tensor.h"

namespace at::native {

// A batch (*, m, n) of float32/float64 matrices: LAPACK has no half-precision
// or integer routines.
inline void check_lapack_input(const char* op, const TensorBase& A, const char* name = "A") {
  TL_CHECK(A.dim() >= 2, op, ": ", name, " must have at least 2 dimensions, but got ", A.dim(), "-D");
  TL_CHECK(A.scalar_type() == ScalarType::Float || A.scalar_type() == ScalarType::Double, op,
           ": expected a float32 or float64 tensor, but got ", toString(A.scalar_type()));
}

inline void check_square(const char* op, const TensorBase& A, const char* name = "A") {
  check_lapack_input(op, A, name);
  const int64_t n = A.sizes()[A.dim() - 1];
  TL_CHECK(A.sizes()[A.dim() - 2] == n, op, ": ", name, " must be batches of square matrices, but they are ",
           A.sizes()[A.dim() - 2], " by ", n, " matrices");
}

// B is (*, n, k) (left) or (*, k, n) (right) with A's batch dims, same dtype.
inline void check_rhs(const char* op, const TensorBase& A, const TensorBase& B, bool left) {
  check_lapack_input(op, B, "B");
  TL_CHECK(A.scalar_type() == B.scalar_type(), op, ": expected A and B to have the same dtype, but got A with dtype ",
           toString(A.scalar_type()), " and B with dtype ", toString(B.scalar_type()));
  TL_CHECK(A.dim() == B.dim(), op, ": A and B must have the same batch dimensions, but got ", A.sizes(), " and ",
           B.sizes());
  for (int64_t i = 0; i + 2 < A.dim(); ++i)
    TL_CHECK(A.sizes()[i] == B.sizes()[i], op, ": A and B must have the same batch dimensions, but got ", A.sizes(),
             " and ", B.sizes());
  const int64_t n = A.sizes()[A.dim() - 1];
  const int64_t bn = left ? B.sizes()[B.dim() - 2] : B.sizes()[B.dim() - 1];
  TL_CHECK(bn == n, op, ": incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (",
           A.sizes()[A.dim() - 2], "x", n, " and ", B.sizes()[B.dim() - 2], "x", B.sizes()[B.dim() - 1], ")");
}

// A's sizes with the last `drop` dims replaced by `tail`.
inline DimVector batch_shape(const TensorBase& A, std::initializer_list<int64_t> tail, int64_t drop = 2) {
  DimVector s(A.sizes().slice(0, A.dim() - drop));
  for (int64_t t : tail) s.push_back(t);
  return s;
}

inline TensorBase empty_shaped(const DimVector& s, TensorOptions o) {
  return make_empty(IntArrayRef(s.data(), s.size()), o);
}

// householder_product: A (*, m, n) with m >= n, tau (*, k) with k <= n and A's batch dims.
inline void check_householder(const char* op, const TensorBase& A, const TensorBase& tau) {
  check_lapack_input(op, A, "input");
  TL_CHECK(tau.dim() == A.dim() - 1, op, ": input.dim() must be greater than or equal to 2 and tau.dim() must be "
           "input.dim() - 1, but got ", A.dim(), " and ", tau.dim());
  TL_CHECK(A.scalar_type() == tau.scalar_type(), op, ": tau dtype ", toString(tau.scalar_type()),
           " does not match input dtype ", toString(A.scalar_type()));
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1];
  TL_CHECK(m >= n, op, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TL_CHECK(n >= tau.sizes()[tau.dim() - 1], op,
           ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  for (int64_t i = 0; i + 2 < A.dim(); ++i)
    TL_CHECK(A.sizes()[i] == tau.sizes()[i], op, ": Expected batch dimensions of tau to be equal to input.shape[:-2]");
}

// (U, S, Vh) shapes of an SVD of A (*, m, n); U and Vh are (0,) without compute_uv.
inline std::array<DimVector, 3> svd_shapes(const TensorBase& A, bool full, bool compute_uv) {
  const int64_t m = A.sizes()[A.dim() - 2], n = A.sizes()[A.dim() - 1], k = std::min(m, n);
  std::array<DimVector, 3> r;
  r[1] = batch_shape(A, {k});
  if (compute_uv) {
    r[0] = batch_shape(A, {m, full ? m : k});
    r[2] = batch_shape(A, {full ? n : k, n});
  } else {
    r[0] = DimVector{0};
    r[2] = DimVector{0};
  }
  return r;
}

// getrf's pivots: int32 (*, k), k <= m.
inline void check_lu_perm(const char* op, const TensorBase& pivots, int64_t m) {
  TL_CHECK(pivots.dim() >= 1, op, ": pivots must have at least 1 dimension");
  TL_CHECK(pivots.scalar_type() == ScalarType::Int, op, ": pivots must be an int32 tensor, but got ",
           toString(pivots.scalar_type()));
  TL_CHECK(m >= pivots.sizes()[pivots.dim() - 1], op, ": m (", m, ") must be at least the number of pivots (",
           pivots.sizes()[pivots.dim() - 1], ")");
}

// sytrs: LD (*, n, n), int32 pivots (*, n), B (*, n, k), one batch shape.
inline void check_sytrs(const char* op, const TensorBase& LD, const TensorBase& pivots, const TensorBase& B) {
  check_square(op, LD, "LD");
  check_rhs(op, LD, B, true);
  TL_CHECK(pivots.scalar_type() == ScalarType::Int, op, ": pivots must be an int32 tensor, but got ",
           toString(pivots.scalar_type()));
  TL_CHECK(pivots.dim() == LD.dim() - 1, op, ": pivots must have shape LD.shape[:-1]");
  for (int64_t i = 0; i < pivots.dim(); ++i)
    TL_CHECK(pivots.sizes()[i] == LD.sizes()[i], op, ": pivots must have shape LD.shape[:-1], but got ",
             pivots.sizes(), " for LD of shape ", LD.sizes());
}

}  // namespace at::native
