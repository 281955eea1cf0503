"""The torch-namespace linear-algebra functions (torch.det, torch.inverse,
torch.cholesky_solve, ...), written over torchlike.linalg as PyTorch writes
them over torch.linalg. Importing this module also makes torchlike.linalg
available as an attribute of the package."""
import collections

import torchlike as _tl
from torchlike import linalg as _la
from torchlike.amp.autocast_mode import _float32_policy  # PyTorch's CPU autocast runs these linear algebra functions in float32

__all__ = ["det", "inverse", "logdet", "slogdet", "matrix_power", "matrix_exp", "pinverse", "cholesky",
           "cholesky_solve", "cholesky_inverse", "svd", "qr", "triangular_solve", "lu_unpack", "chain_matmul"]

_SVD = collections.namedtuple("svd", ["U", "S", "V"])
_QR = collections.namedtuple("qr", ["Q", "R"])
_Slogdet = collections.namedtuple("slogdet", ["sign", "logabsdet"])
_TriSolve = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
_LUUnpack = collections.namedtuple("lu_unpack", ["P", "L", "U"])
for _t in (_SVD, _QR, _Slogdet, _TriSolve, _LUUnpack):
    _t.__module__ = "torchlike.return_types"


def det(input):
    return _la.det(input)


@_float32_policy("cpu")
def inverse(input, *, out=None):
    return _la.inv(input, out=out)


def slogdet(input):
    return _Slogdet(*_la.slogdet(input))


def logdet(input):
    """log(det(A)): NaN where the determinant is negative, -inf where it is 0."""
    sign, logabs = _la.slogdet(input)
    return _tl.where(sign < 0, _tl.full_like(logabs, float("nan")), logabs)


def matrix_power(input, n):
    return _la.matrix_power(input, n)


def matrix_exp(input):
    return _la.matrix_exp(input)


@_float32_policy("cpu")
def pinverse(input, rcond=1e-15):
    return _la.pinv(input, rtol=rcond)


@_float32_policy("cpu")
def cholesky(input, upper=False, *, out=None):
    return _la.cholesky(input, upper=upper, out=out)


@_float32_policy("cpu")
def cholesky_solve(input, input2, upper=False, *, out=None):
    """Solves A X = B for A = L L^T (or U^T U) given its Cholesky factor input2."""
    L = input2.mT if upper else input2
    _la._check_matrix("cholesky_solve", L, "input2", square=True)
    _la._check_matrix("cholesky_solve", input, "input")
    _la._check_same_dtype("cholesky_solve", input, L, ("input", "input2"))
    Y = _la.solve_triangular(L, input, upper=False)
    return _la._write_out("cholesky_solve", out, _la.solve_triangular(L.mT, Y, upper=True))


@_float32_policy("cpu")
def cholesky_inverse(input, upper=False, *, out=None):
    _la._check_matrix("cholesky_inverse", input, square=True)
    eye = _tl.eye(input.shape[-1], dtype=input.dtype, device=input.device).expand(tuple(input.shape))
    return _la._write_out("cholesky_inverse", out, cholesky_solve(eye, input, upper))


@_float32_policy("cpu")
def svd(input, some=True, compute_uv=True, *, out=None):
    """The older SVD API: returns V (not V^H); without compute_uv, U and V are
    zero-filled (m, m) and (n, n) matrices, as PyTorch documents."""
    if compute_uv:
        U, S, Vh = _la.svd(input, full_matrices=not some)
        return _la._write_out("svd", out, _SVD(U, S, Vh.mT))
    S = _la.svdvals(input)
    m, n = input.shape[-2], input.shape[-1]
    batch = tuple(input.shape[:-2])
    U = _tl.zeros(batch + (m, m), dtype=input.dtype, device=input.device)
    V = _tl.zeros(batch + (n, n), dtype=input.dtype, device=input.device)
    return _la._write_out("svd", out, _SVD(U, S, V))


@_float32_policy("cpu")
def qr(input, some=True, *, out=None):
    return _la._write_out("qr", out, _QR(*_la.qr(input, "reduced" if some else "complete")))


@_float32_policy("cpu")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Solves op(A) X = input (the older API; returns X and a copy of A)."""
    M = A.mT if transpose else A
    X = _la.solve_triangular(M, input, upper=upper != transpose, unitriangular=unitriangular)
    return _la._write_out("triangular_solve", out, _TriSolve(X, A.clone()))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    m = LU_data.shape[-2]
    empty = _tl.zeros((0,), dtype=LU_data.dtype, device=LU_data.device)
    L, U = _la._unpack_lu(LU_data) if unpack_data else (empty, empty)
    P = _la._perm_matrix(LU_pivots, m, LU_data) if unpack_pivots else empty
    return _la._write_out("lu_unpack", out, _LUUnpack(P, L, U))


def chain_matmul(*matrices, out=None):
    if len(matrices) == 1:
        return matrices[0].clone()
    return _la.multi_dot(matrices, out=out)
