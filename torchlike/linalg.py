"""torchlike.linalg: PyTorch's torch.linalg, computed by LAPACK (scipy-openblas32).

The factorizations run in C++ kernels over LAPACK (the `_linalg_*` YAML ops in
native_functions.yaml, csrc/aten/native/cpu/LinalgLapack.cpp), batched over
leading dimensions, for float32 and float64 (PyTorch's CPU linalg refuses
float16/bfloat16 too). This module gives them PyTorch's signatures, checks and
errors, and their backward: each factorization is an autograd Function whose
backward is PyTorch's formula written over differentiable torchlike ops, so
second derivatives work as well. Everything PyTorch builds as a composite
(norms, pinv, lstsq, matrix_exp, lu_solve, ...) is a composite here too.

Differences from PyTorch, all because torchlike has no complex dtype:
`eig`/`eigvals` return real tensors and raise when an eigenvalue is complex.
"""
import collections
import math

import torchlike as _tl
from torchlike.autograd.function import Function
from torchlike.amp.autocast_mode import _float32_policy, _lower_policy  # PyTorch's autocast lists these Python-written ops

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex",
           "lu_solve", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm",
           "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
           "tensorsolve", "vander", "vecdot", "vector_norm", "ldl_factor", "ldl_factor_ex", "ldl_solve"]


class LinAlgError(RuntimeError):
    """Raised when a matrix is singular, not positive-definite, or a
    decomposition does not converge (torch.linalg.LinAlgError)."""


common_notes = {
    "experimental_warning": "This function is \"experimental\" and it may change in a future PyTorch release.",
    "sync_note": "When inputs are on a CUDA device, this function synchronizes that device with the CPU.",
    "sync_note_ex": "When the inputs are on a CUDA device, this function synchronizes only when "
                    ":attr:`check_errors`\\ `= True`.",
    "sync_note_has_ex": "When inputs are on a CUDA device, this function synchronizes that device with the CPU. "
                        "For a version of this function that does not synchronize, see {}.",
}


def _rt(name, fields):
    t = collections.namedtuple(name, fields)
    t.__module__ = "torchlike.return_types"
    return t


_QR = _rt("linalg_qr", ["Q", "R"])
_Eigh = _rt("linalg_eigh", ["eigenvalues", "eigenvectors"])
_Eig = _rt("linalg_eig", ["eigenvalues", "eigenvectors"])
_SVD = _rt("linalg_svd", ["U", "S", "Vh"])
_Slogdet = _rt("linalg_slogdet", ["sign", "logabsdet"])
_InvEx = _rt("linalg_inv_ex", ["inverse", "info"])
_SolveEx = _rt("linalg_solve_ex", ["result", "info"])
_CholEx = _rt("linalg_cholesky_ex", ["L", "info"])
_LUFactor = _rt("linalg_lu_factor", ["LU", "pivots"])
_LUFactorEx = _rt("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_LU = _rt("linalg_lu", ["P", "L", "U"])
_LDL = _rt("linalg_ldl_factor", ["LD", "pivots"])
_LDLEx = _rt("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
_Lstsq = _rt("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])

# ---------------------------------------------------------------- checks

_C10_NAME = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _dtname(t):
    return _C10_NAME.get(str(t.dtype).split(".")[-1], str(t.dtype))


def _check_float(op, A, half_ok=False):
    """half_ok: the op has a float16/bfloat16 path (no LAPACK call), as in PyTorch."""
    if not A.is_floating_point():
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {_dtname(A)}")
    if not half_ok and A.dtype in (_tl.float16, _tl.bfloat16):
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {_dtname(A)}")


def _check_matrix(op, A, name="A", square=False):
    if not isinstance(A, _tl.Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    _check_float(op, A)
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: {name} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _check_same_dtype(op, A, B, names=("A", "B")):
    if A.dtype != B.dtype:
        raise RuntimeError(f"{op}: Expected {names[0]} and {names[1]} to have the same dtype, but found "
                           f"{names[0]} of type {_dtname(A)} and {names[1]} of type {_dtname(B)} instead")


def _is_meta(t):
    return t.device.type == "meta"


def _raise_info(op, info, message):
    """Raise LinAlgError for the first matrix whose LAPACK info is nonzero;
    message(code) words the failure, prefixed by the batch element when batched."""
    if _is_meta(info) or info.numel() == 0 or not bool((info != 0).any()):
        return
    flat = info.reshape(-1).tolist()
    for i, code in enumerate(flat):
        if code != 0:
            prefix = f"{op}: (Batch element {i}): " if info.dim() > 0 else f"{op}: "
            raise LinAlgError(prefix + message(code))


def _write_out(op, out, result):
    """out= for a function returning one tensor or a tuple of tensors: copy
    into same-shaped outputs (as PyTorch does when out has the right shape)."""
    if out is None:
        return result
    res = tuple(result) if isinstance(result, tuple) else (result,)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if len(outs) != len(res):
        raise TypeError(f"{op}(): argument 'out' must be a tuple of {len(res)} Tensors")
    for o, r in zip(outs, res):
        if tuple(o.shape) != tuple(r.shape):
            raise RuntimeError(f"{op}: Expected out tensor to have shape {list(r.shape)}, but got {list(o.shape)}")
        if o.dtype != r.dtype:
            raise RuntimeError(f"{op}: Expected out tensor to have dtype {r.dtype}, but got {o.dtype} instead")
        with _tl.no_grad():
            o.copy_(r)
    if isinstance(result, tuple):
        return type(result)(*outs) if hasattr(result, "_fields") else tuple(outs)
    return outs[0]


# ---------------------------------------------------------------- small matrix helpers

def _tri_mask(A, k, upper):
    """Boolean (rows, cols) mask of the triangle of A's last two dims: j - i >= k
    (upper) or j - i <= k (lower)."""
    m, n = A.shape[-2], A.shape[-1]
    i = _tl.arange(m, device=A.device).unsqueeze(-1)
    j = _tl.arange(n, device=A.device).unsqueeze(0)
    return (j - i >= k) if upper else (j - i <= k)


def _triu(A, k=0):
    return _tl.where(_tri_mask(A, k, True), A, _tl.zeros((), dtype=A.dtype, device=A.device))


def _tril(A, k=0):
    return _tl.where(_tri_mask(A, k, False), A, _tl.zeros((), dtype=A.dtype, device=A.device))


def _eye(n, like):
    return _tl.eye(n, dtype=like.dtype, device=like.device)


def _diag_embed(v):
    return v.unsqueeze(-1) * _eye(v.shape[-1], v)


def _diag(A):
    return A.diagonal(0, -2, -1)


def _batch_broadcast(op, A, B, b_is_matrix=True):
    """Expand A (*, n, n) and B (*, n, k) (or (*, n) when not b_is_matrix) to a
    common batch shape; the expands are differentiable (gradients sum back)."""
    ab, bb = tuple(A.shape[:-2]), tuple(B.shape[:-2] if b_is_matrix else B.shape[:-1])
    if ab == bb:
        return A, B
    nd = max(len(ab), len(bb))
    pa, pb = (1,) * (nd - len(ab)) + ab, (1,) * (nd - len(bb)) + bb
    batch = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"{op}: The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        batch.append(y if x == 1 else x)
    batch = tuple(batch)
    A = A.expand(batch + tuple(A.shape[-2:]))
    B = B.expand(batch + (tuple(B.shape[-2:]) if b_is_matrix else tuple(B.shape[-1:])))
    return A, B


def _perm_matrix(pivots, m, like):
    """P with A = P L U from getrf's 1-based row swaps."""
    perm = _tl._linalg_lu_perm(pivots, m)
    rows = _tl.arange(m, device=like.device).unsqueeze(-1)
    return (rows == perm.unsqueeze(-2)).to(like.dtype)


# ---------------------------------------------------------------- LU

class _GetrfFn(Function):
    @staticmethod
    def forward(ctx, A):
        LU, pivots, info = _tl._linalg_getrf(A)
        ctx.save_for_backward(LU, pivots)
        ctx.mark_non_differentiable(pivots, info)
        return LU, pivots, info

    @staticmethod
    def backward(ctx, gLU, _gp=None, _gi=None):
        LU, pivots = ctx.saved_tensors
        return _lu_factor_backward(gLU, LU, pivots)


def _unpack_lu(LU):
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = _tril(LU.narrow(-1, 0, k), -1) + _eye(m, LU).narrow(-1, 0, k)
    U = _triu(LU.narrow(-2, 0, k))
    return L, U


def _lu_factor_backward(gLU, LU, pivots):
    # PyTorch's linalg_lu_backward with L_grad = tril(gLU, -1), U_grad = triu(gLU).
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L, U = _unpack_lu(LU)
    P = _perm_matrix(pivots, m, LU)
    gL = _tril(gLU.narrow(-1, 0, k), -1)
    gU = _triu(gLU.narrow(-2, 0, k))
    if m == n:
        gA = _tril(L.mT @ gL, -1) + _triu(gU @ U.mT)
        gA = solve_triangular(U.mT, gA, upper=False, left=False)
        gA = solve_triangular(L.mT, gA, upper=True, left=True, unitriangular=True)
    elif m < n:
        U1, U2 = U.narrow(-1, 0, k), U.narrow(-1, k, n - k)
        gA = L.mT @ gL - gU @ U.mT
        gA = solve_triangular(U1.mT, _tril(gA, -1), upper=False, left=False)
        gA = _tl.cat([gA + _triu(gU.narrow(-1, 0, k)), gU.narrow(-1, k, n - k)], -1)
        gA = solve_triangular(L.mT, gA, upper=True, left=True, unitriangular=True)
        del U2
    else:
        L1 = L.narrow(-2, 0, k)
        gA = gU @ U.mT - L.mT @ gL
        gA = solve_triangular(L1.mT, _triu(gA), upper=True, left=True, unitriangular=True)
        gA = _tl.cat([gA + _tril(gL.narrow(-2, 0, k), -1), gL.narrow(-2, k, m - k)], -2)
        gA = solve_triangular(U.mT, gA, upper=False, left=False)
    return P @ gA


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    _check_matrix("torch.linalg.lu_factor_ex", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, pivots, info = _GetrfFn.apply(A)
    if check_errors:
        _raise_info("torch.linalg.lu_factor_ex", info,
                    lambda c: f"U[{c},{c}] is zero and using it on lu_solve would result in a division by zero.")
    return _write_out("linalg.lu_factor_ex", out, _LUFactorEx(LU, pivots, info))


def lu_factor(A, *, pivot=True, out=None):
    _check_matrix("torch.linalg.lu_factor", A)
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    _raise_info("torch.linalg.lu_factor", info,
                lambda c: f"U[{c},{c}] is zero and using it on lu_solve would result in a division by zero. If you "
                          "still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                          "linalg.lu_factor_ex(A, pivot)")
    return _write_out("linalg.lu_factor", out, _LUFactor(LU, pivots))


def lu(A, *, pivot=True, out=None):
    _check_matrix("linalg.lu", A)
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)
    L, U = _unpack_lu(LU)
    P = _perm_matrix(pivots, A.shape[-2], A)
    return _write_out("linalg.lu", out, _LU(P, L, U))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    op = "linalg.lu_solve"
    _check_matrix(op, LU, "LU", square=True)
    _check_matrix(op, B, "B")
    _check_same_dtype(op, LU, B, ("LU", "B"))
    if pivots.dtype != _tl.int32:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type int32. Got {_dtname(pivots)}")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"{op}: Incompatible shapes of LU and pivots: {list(LU.shape)} and {list(pivots.shape)}")
    if not left:
        # X A = B  <=>  A^T X^T = B^T
        X = lu_solve(LU, pivots, B.mT, left=True, adjoint=not adjoint).mT
        return _write_out(op, out, X)
    L, U = _unpack_lu(LU)
    P = _perm_matrix(pivots, n, LU)
    LU_b, B = _batch_broadcast(op, LU, B)
    if LU_b is not LU:
        L, U, P = (t.expand(tuple(B.shape[:-2]) + tuple(t.shape[-2:])) for t in (L, U, P))
    if not adjoint:  # A = P L U:  X = U^-1 L^-1 P^T B
        X = solve_triangular(L, P.mT @ B, upper=False, unitriangular=True)
        X = solve_triangular(U, X, upper=True)
    else:  # A^T = U^T L^T P^T:  X = P L^-T U^-T B
        X = solve_triangular(U.mT, B, upper=False)
        X = P @ solve_triangular(L.mT, X, upper=True, unitriangular=True)
    return _write_out(op, out, X)


# ---------------------------------------------------------------- det / slogdet

def _lu_det_parts(LU, pivots):
    """(sign of the permutation) and diag(U) from getrf."""
    k = pivots.shape[-1]
    idx = _tl.arange(1, k + 1, dtype=_tl.int32, device=pivots.device)
    swaps = (pivots != idx).sum(-1)
    perm_sign = 1 - 2 * (swaps % 2).to(LU.dtype)
    return perm_sign, _diag(LU)


class _DetFn(Function):
    @staticmethod
    def forward(ctx, A):
        LU, pivots, _ = _tl._linalg_getrf(A)
        sign, d = _lu_det_parts(LU, pivots)
        det_ = sign * d.prod(-1)
        ctx.save_for_backward(A, det_)
        return det_

    @staticmethod
    def backward(ctx, g):
        A, det_ = ctx.saved_tensors
        return _det_backward(g, A, det_)


def _det_backward(g, A, det_):
    # d det / dA = adj(A)^T. Where A is invertible adj(A) = det * A^-1; for a
    # singular A the adjugate comes from the SVD (A = U S Vh:
    # adj(A) = det(U) det(Vh) Vh^T diag(prod_{j != i} s_j) U^T), as PyTorch does.
    n = A.shape[-1]
    if n == 0:
        return _tl.zeros_like(A)
    singular = det_ == 0
    if _is_meta(A) or not bool(singular.any()):
        return (g * det_).unsqueeze(-1).unsqueeze(-1) * inv(A).mT
    U, S, Vh = svd(A)
    ones = _tl.ones_like(S.narrow(-1, 0, 1))
    left = _tl.cat([ones, S.narrow(-1, 0, n - 1)], -1).cumprod(-1)
    right = _suffix_prod(S)
    prod_others = left * right
    sgn = det(U) * det(Vh)
    adjT = (U * prod_others.unsqueeze(-2)) @ Vh  # = adj(A)^T
    return (g * sgn).unsqueeze(-1).unsqueeze(-1) * adjT


def _suffix_prod(S):
    """[prod(s[i+1:]) for i]: products of the later entries (no flip op needed)."""
    n = S.shape[-1]
    cols = [_tl.ones_like(S.narrow(-1, 0, 1))]
    acc = cols[0]
    for i in range(n - 1, 0, -1):
        acc = acc * S.narrow(-1, i, 1)
        cols.append(acc)
    return _tl.cat(cols[::-1], -1)


def det(A, *, out=None):
    _check_matrix("linalg.det", A, square=True)
    return _write_out("linalg.det", out, _DetFn.apply(A))


class _SlogdetFn(Function):
    @staticmethod
    def forward(ctx, A):
        LU, pivots, _ = _tl._linalg_getrf(A)
        sign, d = _lu_det_parts(LU, pivots)
        sign = sign * _tl.sign(d).prod(-1)
        logabs = _tl.log(_tl.abs(d)).sum(-1)
        ctx.save_for_backward(A)
        ctx.mark_non_differentiable(sign)
        return sign, logabs

    @staticmethod
    def backward(ctx, _gsign, glogabs):
        (A,) = ctx.saved_tensors
        return glogabs.unsqueeze(-1).unsqueeze(-1) * inv(A).mT


def slogdet(A, *, out=None):
    _check_matrix("linalg.slogdet", A, square=True)
    return _write_out("linalg.slogdet", out, _Slogdet(*_SlogdetFn.apply(A)))


# ---------------------------------------------------------------- solve / inv

class _GesvFn(Function):
    @staticmethod
    def forward(ctx, A, B):
        X, info = _tl._linalg_gesv(A, B)
        ctx.save_for_backward(A, X)
        ctx.mark_non_differentiable(info)
        return X, info

    @staticmethod
    def backward(ctx, gX, _gi=None):
        A, X = ctx.saved_tensors
        gB = _solve_checked(A.mT, gX)
        gA = -(gB @ X.mT)
        return gA, gB


def _solve_checked(A, B):
    X, _ = _GesvFn.apply(A, B)
    return X


def _solve_impl(op, A, B, left):
    _check_matrix(op, A, square=True)
    _check_float(op, B)
    _check_same_dtype(op, A, B)
    # B is a batch of vectors when it is 1-D or has A's shape minus the last dim (PyTorch's rule).
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    n = A.shape[-1]
    Bm = B.unsqueeze(-1) if vector else B
    if not vector and B.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor B must have at least 2 dimensions.")
    if not left:
        Bm = Bm.mT if not vector else Bm
        A = A.mT
    if Bm.shape[-2] != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{n} and {Bm.shape[-2]}x{Bm.shape[-1]})")
    A, Bm = _batch_broadcast(op, A, Bm)
    X, info = _GesvFn.apply(A, Bm)
    if vector:
        X = X.squeeze(-1)
    elif not left:
        X = X.mT
    return X, info


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    X, info = _solve_impl("linalg.solve_ex", A, B, left)
    if check_errors:
        _raise_info("torch.linalg.solve_ex", info,
                    lambda c: "The solver failed because the input matrix is singular.")
    return _write_out("linalg.solve_ex", out, _SolveEx(X, info))


@_float32_policy("cpu")
def solve(A, B, *, left=True, out=None):
    X, info = _solve_impl("linalg.solve", A, B, left)
    _raise_info("torch.linalg.solve", info, lambda c: "The solver failed because the input matrix is singular.")
    return _write_out("linalg.solve", out, X)


class _InvFn(Function):
    @staticmethod
    def forward(ctx, A):
        X, info = _tl._linalg_gesv(A, _eye(A.shape[-1], A).expand(tuple(A.shape)))
        ctx.save_for_backward(X)
        ctx.mark_non_differentiable(info)
        return X, info

    @staticmethod
    def backward(ctx, gX, _gi=None):
        (X,) = ctx.saved_tensors
        return -(X.mT @ gX @ X.mT)


@_float32_policy("cpu")
def inv_ex(A, *, check_errors=False, out=None):
    _check_matrix("linalg.inv_ex", A, square=True)
    X, info = _InvFn.apply(A)
    if check_errors:
        _raise_info("linalg.inv_ex", info, _inv_message)
    return _write_out("linalg.inv_ex", out, _InvEx(X, info))


def _inv_message(c):
    return (f"The diagonal element {c} is zero, the inversion could not be completed because the input matrix "
            "is singular.")


@_float32_policy("cpu")
def inv(A, *, out=None):
    _check_matrix("linalg.inv", A, square=True)
    X, info = _InvFn.apply(A)
    _raise_info("linalg.inv", info, _inv_message)
    return _write_out("linalg.inv", out, X)


# ---------------------------------------------------------------- triangular solve

class _TrsmFn(Function):
    @staticmethod
    def forward(ctx, A, B, upper, left, unitriangular):
        X = _tl._linalg_trsm(A, B, upper, left, unitriangular)
        ctx.save_for_backward(A, X)
        ctx.flags = (upper, left, unitriangular)
        return X

    @staticmethod
    def backward(ctx, gX):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.flags
        gB = solve_triangular(A.mT, gX, upper=not upper, left=left, unitriangular=unit)
        gA = -(gB @ X.mT) if left else -(X.mT @ gB)
        k = 1 if unit else 0
        gA = _triu(gA, k) if upper else _tril(gA, -k)
        return gA, gB, None, None, None


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    op = "linalg.solve_triangular"
    _check_matrix(op, A, square=True)
    _check_matrix(op, B, "B")
    _check_same_dtype(op, A, B, ("A", "B"))
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    A, B = _batch_broadcast(op, A, B)
    return _write_out(op, out, _TrsmFn.apply(A, B, bool(upper), bool(left), bool(unitriangular)))


# ---------------------------------------------------------------- Cholesky

class _PotrfFn(Function):
    @staticmethod
    def forward(ctx, A, upper):
        L, info = _tl._linalg_potrf(A, upper)
        ctx.save_for_backward(L)
        ctx.upper = upper
        ctx.mark_non_differentiable(info)
        return L, info

    @staticmethod
    def backward(ctx, gL, _gi=None):
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, gL = L.mT, gL.mT
        # PyTorch's cholesky_backward: gA = L^-H phi(L^H gL) L^-1, symmetrized,
        # phi = lower triangle with the diagonal halved.
        phi = _tril(L.mT @ gL)
        phi = phi - 0.5 * _diag_embed(_diag(phi))
        gA = solve_triangular(L.mT, phi, upper=True, left=True)
        gA = solve_triangular(L, gA, upper=False, left=False)
        return 0.5 * (gA + gA.mT), None


def _chol_message(c):
    return ("The factorization could not be completed because the input is not positive-definite (the leading "
            f"minor of order {c} is not positive-definite).")


@_float32_policy("cpu")
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    _check_matrix("linalg.cholesky_ex", A, square=True)
    L, info = _PotrfFn.apply(A, bool(upper))
    if check_errors:
        _raise_info("linalg.cholesky_ex", info, _chol_message)
    return _write_out("linalg.cholesky_ex", out, _CholEx(L, info))


@_float32_policy("cpu")
def cholesky(A, *, upper=False, out=None):
    _check_matrix("linalg.cholesky", A, square=True)
    L, info = _PotrfFn.apply(A, bool(upper))
    _raise_info("linalg.cholesky", info, _chol_message)
    return _write_out("linalg.cholesky", out, L)


# ---------------------------------------------------------------- QR

class _QRFn(Function):
    @staticmethod
    def forward(ctx, A, mode):
        m, n = A.shape[-2], A.shape[-1]
        k = min(m, n)
        a, tau = _tl._linalg_geqrf(A)
        if mode == "complete":
            R = _triu(a)
            if m > n:
                pad = _tl.zeros(tuple(A.shape[:-1]) + (m - n,), dtype=A.dtype, device=A.device)
                Q = _tl._linalg_orgqr(_tl.cat([a, pad], -1), tau)
            else:
                Q = _tl._linalg_orgqr(a.narrow(-1, 0, m), tau)
        else:
            R = _triu(a.narrow(-2, 0, k))
            Q = _tl._linalg_orgqr(a.narrow(-1, 0, k), tau) if mode == "reduced" else \
                _tl.zeros((0,), dtype=A.dtype, device=A.device)
        ctx.save_for_backward(Q, R)
        ctx.mode = mode
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                               "through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                               "nrows > ncols.")
        return _qr_backward(gQ, gR, Q, R), None


def _qr_backward(gQ, gR, Q, R):
    # PyTorch's linalg_qr_backward (real case).
    m, n = Q.shape[-2], R.shape[-1]
    if m >= n:
        gA = gR @ R.mT - Q.mT @ gQ
        gA = _triu(gA)
        gA = gA + gA.mT - _diag_embed(_diag(gA))  # syminvadj
        gA = Q @ gA + gQ
        return solve_triangular(R.mT, gA, upper=False, left=False)
    # Wide: A = Q [X | Y] with X square; Y = Q^T A2 adds A2 gY^T = Q Y gY^T to Q's gradient.
    X, Y = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    gX, gY = gR.narrow(-1, 0, m), gR.narrow(-1, m, n - m)
    gQ2 = gQ + Q @ (Y @ gY.mT)
    gA1 = _qr_backward(gQ2, gX, Q, X)
    return _tl.cat([gA1, Q @ gY], -1)


@_float32_policy("cpu")
def qr(A, mode="reduced", *, out=None):
    _check_matrix("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    return _write_out("linalg.qr", out, _QR(*_QRFn.apply(A, mode)))


def _householder_composite(A, tau):
    """Q = H_1 ... H_k with H_i = I - tau_i v_i v_i^T (v_i: column i of A below
    the diagonal, 1 on it): the differentiable form of orgqr."""
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    V = _tril(A, -1) + _eye(m, A).narrow(-1, 0, n)
    Q = _eye(m, A).expand(tuple(A.shape[:-2]) + (m, m))
    for i in range(k):
        v = V.narrow(-1, i, 1)
        t = tau.narrow(-1, i, 1).unsqueeze(-1)
        Q = Q - (Q @ v) @ (t * v.mT)
    return Q.narrow(-1, 0, n)


@_float32_policy("cpu")
def householder_product(A, tau, *, out=None):
    op = "torch.linalg.householder_product"
    _check_matrix(op, A, "input")
    if tau.dim() != A.dim() - 1:
        raise RuntimeError(f"{op}: input.dim() must be greater than or equal to 2 and tau.dim() must be "
                           "input.dim() - 1")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(A.shape[:-2]) != tuple(tau.shape[:-1]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2]")
    _check_same_dtype(op, A, tau, ("input", "tau"))
    if _tl.is_grad_enabled() and (A.requires_grad or tau.requires_grad):
        # LAPACK's orgqr has no derivative: differentiate the explicit product of reflectors.
        return _write_out(op, out, _householder_composite(A, tau))
    return _write_out(op, out, _tl._linalg_orgqr(A, tau))


# ---------------------------------------------------------------- symmetric eigendecomposition

class _EighFn(Function):
    @staticmethod
    def forward(ctx, A, upper):
        w, V, info = _tl._linalg_syevd(A, upper, True)
        ctx.save_for_backward(w, V)
        ctx.mark_non_differentiable(info)
        return w, V, info

    @staticmethod
    def backward(ctx, gw, gV, _gi=None):
        w, V = ctx.saved_tensors
        # PyTorch's linalg_eig_backward, Hermitian case:
        # gA = V (diag(gw) + (V^T gV) / E) V^T with E_ij = w_j - w_i.
        E = w.unsqueeze(-2) - w.unsqueeze(-1)
        E = E + _diag_embed(_tl.ones_like(w))
        inner = (V.mT @ gV) / E
        inner = inner - _diag_embed(_diag(inner)) + _diag_embed(gw)
        return V @ inner @ V.mT, None


def _check_uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _eigh_message(c):
    return ("The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
            f"eigenvalues (error code: {c}).")


@_float32_policy("cpu")
def eigh(A, UPLO="L", *, out=None):
    _check_matrix("linalg.eigh", A, square=True)
    _check_uplo(UPLO)
    w, V, info = _EighFn.apply(A, UPLO == "U")
    _raise_info("linalg.eigh", info, _eigh_message)
    return _write_out("linalg.eigh", out, _Eigh(w, V))


@_float32_policy("cpu")
def eigvalsh(A, UPLO="L", *, out=None):
    _check_matrix("linalg.eigvalsh", A, square=True)
    _check_uplo(UPLO)
    if _tl.is_grad_enabled() and A.requires_grad:
        w, V, info = _EighFn.apply(A, UPLO == "U")
    else:
        w, _, info = _tl._linalg_syevd(A, UPLO == "U", False)
    _raise_info("linalg.eigvalsh", info, _eigh_message)
    return _write_out("linalg.eigvalsh", out, w)


# ---------------------------------------------------------------- SVD

class _SvdFn(Function):
    @staticmethod
    def forward(ctx, A, full_matrices):
        U, S, Vh = _tl._linalg_gesdd(A, full_matrices, True)
        ctx.save_for_backward(U, S, Vh)
        ctx.full = full_matrices
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        if ctx.full:
            U, Vh, gU, gVh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k), gU.narrow(-1, 0, k), gVh.narrow(-2, 0, k)
        return _svd_backward(gU, gS, gVh, U, S, Vh), None


def _svd_backward(gU, gS, gVh, U, S, Vh):
    # PyTorch's svd_backward (real case), reduced U (m, k), Vh (k, n).
    m, n = U.shape[-2], Vh.shape[-1]
    k = S.shape[-1]
    if k == 0:
        return _tl.zeros(tuple(U.shape[:-2]) + (m, n), dtype=U.dtype, device=U.device)

    def skew(X):
        return X - X.mT
    UhgU = skew(U.mT @ gU)
    VhgV = skew(Vh @ gVh.mT)
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1)
    E = E + _diag_embed(_tl.ones_like(S))
    gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    gA = gA + _diag_embed(gS)
    if m > k:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mT @ gUSinv)
        gA = gA @ Vh
    elif n > k:
        gA = gA @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mT) @ Vh
        gA = U @ gA
    else:
        gA = U @ gA @ Vh
    return gA


def _svd_message(op, S):
    if _is_meta(S) or S.numel() == 0:
        return
    bad = _tl.isnan(S)
    if bool(bad.any()):
        raise LinAlgError(f"{op}: The algorithm failed to converge because the input matrix is ill-conditioned or "
                          "has too many repeated singular values (the input may contain NaN).")


@_float32_policy("cpu")
def svd(A, full_matrices=True, *, driver=None, out=None):
    _check_matrix("linalg.svd", A)
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    U, S, Vh = _SvdFn.apply(A, bool(full_matrices))
    _svd_message("linalg.svd", S)
    return _write_out("linalg.svd", out, _SVD(U, S, Vh))


@_float32_policy("cpu")
def svdvals(A, *, driver=None, out=None):
    _check_matrix("linalg.svdvals", A)
    if driver is not None:
        raise RuntimeError("torch.linalg.svdvals: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    if _tl.is_grad_enabled() and A.requires_grad:
        # The gradient needs the singular vectors (and second derivatives
        # need them differentiable): the full reduced SVD, as PyTorch does.
        S = svd(A, full_matrices=False)[1]
    else:
        S = _tl._linalg_gesdd(A, False, False)[1]
    _svd_message("linalg.svdvals", S)
    return _write_out("linalg.svdvals", out, S)


# ---------------------------------------------------------------- general eigendecomposition (real spectra only)

class _EigFn(Function):
    @staticmethod
    def forward(ctx, A):
        w2, V, info = _tl._linalg_geev(A)
        w, wi = w2.select(-2, 0).clone(), w2.select(-2, 1).clone()
        ctx.save_for_backward(w, V)
        ctx.mark_non_differentiable(wi, info)
        return w, wi, V, info

    @staticmethod
    def backward(ctx, gw, _gwi, gV, _gi=None):
        w, V = ctx.saved_tensors
        # PyTorch's linalg_eig_backward (real eigenvalues): with V's columns of
        # unit norm, gA = V^-T (diag(gw) + (V^T gV - V^T V diag(V^T gV)) / E) V^T,
        # E_ij = w_j - w_i.
        VhgV = V.mT @ gV
        E = w.unsqueeze(-2) - w.unsqueeze(-1)
        E = E + _diag_embed(_tl.ones_like(w))
        inner = (VhgV - (V.mT @ V) * _diag(VhgV).unsqueeze(-2)) / E
        inner = inner - _diag_embed(_diag(inner)) + _diag_embed(gw)
        return solve(V.mT, inner @ V.mT)


def _eig_real(op, A):
    _check_matrix(op, A, square=True)
    w, wi, V, info = _EigFn.apply(A)
    _raise_info(op, info, lambda c: f"The algorithm failed to converge because the input matrix is "
                                    f"ill-conditioned or has too many repeated eigenvalues (error code: {c}).")
    if not _is_meta(wi) and wi.numel() and bool((wi != 0).any()):
        raise RuntimeError(f"{op}: the input has complex eigenvalues, and torchlike has no complex dtype: only "
                           "matrices with a real spectrum are supported")
    return w, V


@_float32_policy("cpu")
def eig(A, *, out=None):
    """Eigenvalues and right eigenvectors of a matrix with a real spectrum.
    PyTorch returns complex tensors; torchlike (no complex dtype) returns real
    ones and raises RuntimeError when an eigenvalue is complex."""
    return _write_out("linalg.eig", out, _Eig(*_eig_real("linalg.eig", A)))


@_float32_policy("cpu")
def eigvals(A, *, out=None):
    """Eigenvalues of a matrix with a real spectrum (real tensor; see eig)."""
    return _write_out("linalg.eigvals", out, _eig_real("linalg.eigvals", A)[0])


# ---------------------------------------------------------------- LDL^T (symmetric indefinite)
# Not differentiable in PyTorch either: the primitives' autograd raises
# "derivative for aten::_linalg_sytrf is not implemented" on backward.

def _ldl_message(c):
    return (f"The factorization could not be completed because the block diagonal matrix D is exactly singular "
            f"(D[{c},{c}] is zero).")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    op = "torch.linalg.ldl_factor_ex"
    _check_matrix(op, A, square=True)
    LD, pivots, info = _tl._linalg_sytrf(A)
    if check_errors:
        _raise_info(op, info, _ldl_message)
    return _write_out("linalg.ldl_factor_ex", out, _LDLEx(LD, pivots, info))


def ldl_factor(A, *, hermitian=False, out=None):
    op = "torch.linalg.ldl_factor"
    _check_matrix(op, A, square=True)
    LD, pivots, info = _tl._linalg_sytrf(A)
    _raise_info(op, info, _ldl_message)
    return _write_out("linalg.ldl_factor", out, _LDL(LD, pivots))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    op = "torch.linalg.ldl_solve"
    _check_matrix(op, LD, "LD", square=True)
    _check_matrix(op, B, "B")
    _check_same_dtype(op, LD, B, ("LD", "B"))
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} but each b matrix is "
                           f"{B.shape[-2]} by {B.shape[-1]}")
    if pivots.dtype != _tl.int32:
        pivots = pivots.to(_tl.int32)
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")
    LDb, Bb = _batch_broadcast(op, LD, B)
    if LDb is not LD:
        pivots = pivots.expand(tuple(Bb.shape[:-2]) + (n,))
    return _write_out("linalg.ldl_solve", out, _tl._linalg_sytrs(LDb, pivots, Bb))


# ---------------------------------------------------------------- composites over the factorizations

def _default_rtol(A, atol, rtol):
    if rtol is None:
        eps = _tl.finfo(A.dtype).eps
        return 0.0 if atol is not None and _nonzero_tol(atol) else eps * max(A.shape[-2], A.shape[-1])
    return rtol


def _nonzero_tol(t):
    # PyTorch sets rtol to 0 when atol is given and positive (a tensor atol counts as given).
    return isinstance(t, _tl.Tensor) or t > 0


def _threshold(S, A, atol, rtol):
    """max(atol, rtol * largest singular value) per matrix, shaped (*, 1)."""
    rtol = _default_rtol(A, atol, rtol)
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else _tl.zeros(tuple(S.shape[:-1]) + (1,), dtype=S.dtype,
                                                                   device=S.device)
    thr = smax * (rtol.unsqueeze(-1) if isinstance(rtol, _tl.Tensor) else rtol)
    if atol is not None:
        a = atol.unsqueeze(-1) if isinstance(atol, _tl.Tensor) else atol
        thr = _tl.maximum(thr, a if isinstance(a, _tl.Tensor) else _tl.full_like(thr, a))
    return thr


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    _check_matrix("linalg.pinv", A)
    if hermitian:
        w, V = eigh(A)
        S = _tl.abs(w)
        thr = _threshold(S, A, atol, rtol)
        keep = S > thr
        winv = _tl.where(keep, 1.0 / _tl.where(keep, w, _tl.ones_like(w)), _tl.zeros_like(w))
        return _write_out("linalg.pinv", out, (V * winv.unsqueeze(-2)) @ V.mT)
    U, S, Vh = svd(A, full_matrices=False)
    thr = _threshold(S, A, atol, rtol)
    keep = S > thr
    Sinv = _tl.where(keep, 1.0 / _tl.where(keep, S, _tl.ones_like(S)), _tl.zeros_like(S))
    return _write_out("linalg.pinv", out, (Vh.mT * Sinv.unsqueeze(-2)) @ U.mT)


@_float32_policy("cpu")
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    _check_matrix("linalg.matrix_rank", A)
    if tol is not None:
        atol, rtol = tol, 0.0
    S = _tl.abs(eigvalsh(A)) if hermitian else svdvals(A)
    thr = _threshold(S, A, atol, rtol)
    return _write_out("linalg.matrix_rank", out, (S > thr).sum(-1))


@_float32_policy("cpu")
def lstsq(A, B, rcond=None, *, driver=None):
    op = "torch.linalg.lstsq"
    _check_matrix(op, A, "input")
    _check_float(op, B)
    _check_same_dtype(op, A, B, ("input", "other"))
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{op}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError(f"{op}: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2], A.shape[-1]
    A_, Bm = _batch_broadcast(op, A, Bm)
    # Minimum-norm least-squares solution through the SVD: X = V diag(1/s) U^T B
    # over the singular values above rcond * s_max (what gelsd computes; for
    # full-rank inputs every driver returns this solution).
    if rcond is None:
        rcond = _tl.finfo(A.dtype).eps * max(m, n)
    U, S, Vh = svd(A_, full_matrices=False)
    thr = _threshold(S, A_, None, rcond)
    keep = S > thr
    Sinv = _tl.where(keep, 1.0 / _tl.where(keep, S, _tl.ones_like(S)), _tl.zeros_like(S))
    X = (Vh.mT * Sinv.unsqueeze(-2)) @ (U.mT @ Bm)
    rank = keep.sum(-1)
    empty = _tl.zeros((0,), dtype=A.dtype, device=A.device)
    residuals = empty
    # Residuals exist only for full-rank tall systems (data-dependent); a Meta
    # call assumes full rank, as PyTorch's meta function does.
    if driver != "gelsy" and m > n and (_is_meta(rank) or bool((rank == n).all())):
        residuals = ((A_ @ X - Bm) ** 2).sum(-2)
        if vector:
            residuals = residuals.squeeze(-1)
    if vector:
        X = X.squeeze(-1)
    rank_out = _tl.zeros((0,), dtype=_tl.int64, device=A.device) if driver == "gels" else rank
    sv = S if driver in ("gelsd", "gelss") else empty
    return _Lstsq(X, residuals, rank_out, sv)


def matrix_power(A, n, *, out=None):
    _check_matrix_any("linalg.matrix_power", A)
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        I = _eye(A.shape[-1], A).expand(tuple(A.shape))
        return _write_out("linalg.matrix_power", out, I.clone())
    if n < 0:
        A = inv(A)
        n = -n
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return _write_out("linalg.matrix_power", out, result if result is not A else A.clone())


def _check_matrix_any(op, A):
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


# Padé [13/13] coefficients (Higham 2005, "The scaling and squaring method for
# the matrix exponential revisited").
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    _check_matrix_any("linalg.matrix_exp", A)
    _check_float("linalg.matrix_exp", A, half_ok=True)
    n = A.shape[-1]
    if A.numel() == 0 or _is_meta(A):  # nothing to compute (meta: only the shape)
        return A.clone()
    if A.dtype in (_tl.float16, _tl.bfloat16):  # computed in float32 (the solve needs it), rounded once
        return matrix_exp(A.float()).to(A.dtype)
    if n == 1:
        return _tl.exp(A)
    # Scaling: one power of two for the whole batch (the largest any matrix
    # needs), from the 1-norm; squaring undoes it.
    norm1 = _tl.abs(A).sum(-2).amax(-1)
    nmax = float(norm1.max()) if norm1.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(nmax / _THETA13)))) if nmax > _THETA13 else 0
    X = A / (2.0 ** s) if s else A
    b = _PADE13
    I = _eye(n, A)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * I)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * I
    R = solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


def multi_dot(tensors, *, out=None):
    op = "multi_dot()"
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"{op}: expected at least 2 tensors but got {len(tensors)}")
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    for i, t in enumerate(tensors):
        want = 2
        if (i == 0 and first_vec) or (i == len(tensors) - 1 and last_vec):
            want = 1
        if t.dim() != want:
            which = "first" if i == 0 else "last" if i == len(tensors) - 1 else None
            if which:
                raise RuntimeError(f"{op}: the {which} tensor must be 1D or 2D but got {t.dim()}D")
            raise RuntimeError(f"{op}: tensor {i} must be 2D but got {t.dim()}D")
    mats = [t for t in tensors]
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"{op}: tensors {i} and {i + 1} with shapes {list(mats[i].shape)} and "
                               f"{list(mats[i + 1].shape)} cannot be multiplied")
    # Cheapest parenthesization (the classic O(k^3) dynamic programme over the chain's shapes).
    dims = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    k = len(mats)
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = None
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s

    def chain(i, j):
        if i == j:
            return mats[i]
        s = split[i][j]
        return chain(i, s) @ chain(s + 1, j)
    r = chain(0, k - 1)
    if first_vec:
        r = r.squeeze(0)
    if last_vec:
        r = r.squeeze(-1)
    return _write_out("linalg.multi_dot", out, r)


def cross(input, other, *, dim=-1, out=None):
    op = "linalg.cross"
    if input.dim() != other.dim():
        raise RuntimeError(f"{op}: inputs must have the same number of dimensions.")
    d = dim + input.dim() if dim < 0 else dim
    if not 0 <= d < input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.dim()}, "
                         f"{input.dim() - 1}], but got {dim})")
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"{op}: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    # The products broadcast the remaining dims (the inputs have equal rank).
    a0, a1, a2 = (input.select(d, i) for i in range(3))
    b0, b1, b2 = (other.select(d, i) for i in range(3))
    r = _tl.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)
    return _write_out(op, out, r)


@_lower_policy("cpu", "cuda")
def vecdot(x, y, *, dim=-1, out=None):
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_dtname(x)} and y of type {_dtname(y)} instead")
    return _write_out("linalg.vecdot", out, (x * y).sum(dim))


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


matmul = _tl.matmul


def vander(x, *, N=None):
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if N is None else N
    if n < 1:
        raise RuntimeError("N must be greater than 1.")
    if n == 1:
        return _tl.ones_like(x).unsqueeze(-1)
    # [1, x, x^2, ...] as a running product, which keeps integer dtypes exact.
    ones = _tl.ones_like(x).unsqueeze(-1)
    powers = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)
    if powers.dtype != x.dtype:  # cumprod of small integers promotes to int64, as sums do
        powers = powers.to(x.dtype)
    return _tl.cat([ones, powers], -1)


@_float32_policy("cpu")
def tensorinv(A, ind=2, *, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = tuple(A.shape[ind:]) + tuple(A.shape[:ind])
    rows = math.prod(A.shape[:ind])
    cols = math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return _write_out("linalg.tensorinv", out, inv(A.reshape(rows, cols)).reshape(out_shape))


@_float32_policy("cpu")
def tensorsolve(A, B, dims=None, *, out=None):
    if dims is not None:
        nd = A.dim()
        dims = [d + nd if d < 0 else d for d in dims]
        A = A.movedim(dims, list(range(nd - len(dims), nd)))
    rhs = tuple(B.shape)
    rest = tuple(A.shape[B.dim():])
    n = math.prod(rhs)
    if math.prod(rest) != n:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {math.prod(rest)} != {n}")
    X = solve(A.reshape(n, n), B.reshape(n))
    return _write_out("linalg.tensorsolve", out, X.reshape(rest))


# ---------------------------------------------------------------- norms

def _norm_dims(A, dim):
    if dim is None:
        return None
    return [dim] if isinstance(dim, int) else list(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    op = "linalg.vector_norm"
    if not x.is_floating_point():
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {_dtname(x)}")
    if dtype is not None:
        x = x.to(dtype)
    dims = _norm_dims(x, dim)
    if dims is not None and len(dims) == 0:
        dims = None
    if x.numel() == 0 and (ord < 0 or ord == float("inf")):
        raise RuntimeError(f"{op}: Expected a non-empty tensor when ord={ord} and the reduction is over all "
                           "elements" if dims is None else
                           f"{op} cannot compute the {ord} norm on the empty tensor because the operation does not "
                           "have an identity")
    a = _tl.abs(x)
    if dims is None:
        reduce_dims = list(range(x.dim()))
    else:
        reduce_dims = dims
    if ord == float("inf"):
        r = a.amax(reduce_dims, keepdim) if reduce_dims else a
    elif ord == -float("inf"):
        r = a.amin(reduce_dims, keepdim) if reduce_dims else a
    elif ord == 0:
        r = (x != 0).to(x.dtype).sum(reduce_dims, keepdim) if reduce_dims else (x != 0).to(x.dtype)
    elif ord == 2 or ord == 1:
        r = _tl.norm(x, ord, reduce_dims, keepdim) if reduce_dims else a
    else:
        r = (a ** ord).sum(reduce_dims, keepdim) ** (1.0 / ord) if reduce_dims else a
    return _write_out(op, out, r)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    op = "linalg.matrix_norm"
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    _check_float(op, A, half_ok=ord not in ("nuc", 2, -2))  # only the SVD-based orders refuse half
    if dtype is not None:
        A = A.to(dtype)
    dims = list(dim)
    if len(dims) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    nd = A.dim()
    d0, d1 = (d + nd if d < 0 else d for d in dims)
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({dims[0]}, {dims[1]})")
    if ord == "fro":
        r = vector_norm(A, 2, (d0, d1), keepdim)
    elif ord == "nuc" or ord in (2, -2):
        M = A.movedim((d0, d1), (-2, -1))
        S = svdvals(M)
        if ord == "nuc" or S.shape[-1] == 0:  # an empty matrix has norm 0 (PyTorch's convention)
            r = S.sum(-1)
        else:
            r = S.amax(-1) if ord == 2 else S.amin(-1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
    elif ord in (1, -1, float("inf"), -float("inf")):
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = _tl.abs(A).sum(sum_dim, keepdim=True)
        r = s.amax(red_dim, keepdim=True) if ord > 0 else s.amin(red_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    else:
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    return _write_out(op, out, r)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
        raise RuntimeError(f"linalg.norm: If dim is specified, it mut be of length 1 or 2. Got {dims}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.dim() == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if A.dim() == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D.")


@_float32_policy("cpu")
def cond(A, p=None, *, out=None):
    op = "linalg.cond"
    _check_matrix(op, A)
    if min(A.shape[-2], A.shape[-1]) == 0:  # empty matrices: condition number 0, as PyTorch
        return _write_out(op, out, _tl.zeros(tuple(A.shape[:-2]), dtype=A.dtype, device=A.device))
    if p is None or p in (2, -2):
        S = svdvals(A)
        r = S.amax(-1) / S.amin(-1) if p in (None, 2) else S.amin(-1) / S.amax(-1)
        return _write_out(op, out, r)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}(ord={p}): A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    Ainv, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(Ainv, p)
    # A singular matrix has infinite condition number (PyTorch's convention).
    r = _tl.where(info != 0, _tl.full_like(r, float("inf")), r)
    return _write_out(op, out, r)
