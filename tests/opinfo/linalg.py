"""Linear algebra: matrix products checked against NumPy (float64 references).

Integer references wrap around like the kernels (NumPy integer matmul wraps
too); floating references are computed in float64 and compared with the
dtype's tolerance scaled for the length of the inner sums.
"""
import numpy as np

from .core import FLOATING, INTEGRAL, NUMERIC, ErrorCase, OpInfo, Sample, make

F64 = np.float64
F32 = np.float32

# Inner sums of up to ~20 terms of values in [-5, 5): absolute error grows with
# the sum's magnitude, so float tolerances are looser than pointwise ones.
TOL = {"float16": (1e-2, 5e-2), "bfloat16": (2e-2, 0.5), "float32": (1e-5, 1e-4), "float64": (1e-10, 1e-10)}


def _ref(fn):
    """NumPy reference: float inputs in float64, integers in their own dtype
    (NumPy's integer matmul wraps around like the kernels)."""
    def ref(*args, **kw):
        conv = [a.astype(F64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return fn(*conv, **kw)
    return ref


def _mats(dtype, *shapes, low=-5, high=5):
    return tuple(make(s, dtype, low, high, seed=i) for i, s in enumerate(shapes))


def mm_samples(dtype):
    return [Sample(_mats(dtype, (3, 4), (4, 5)), desc="3x4 @ 4x5"),
            Sample(_mats(dtype, (1, 7), (7, 1)), desc="row @ col"),
            Sample(_mats(dtype, (6, 1), (1, 5)), desc="k=1"),
            Sample(_mats(dtype, (17, 19), (19, 13)), desc="odd sizes"),
            Sample(_mats(dtype, (2, 0), (0, 3)), desc="k=0 gives zeros"),
            Sample(_mats(dtype, (0, 4), (4, 3)), desc="m=0"),
            Sample(_mats(dtype, (3, 4), (4, 0)), desc="n=0")]


def bmm_samples(dtype):
    return [Sample(_mats(dtype, (2, 3, 4), (2, 4, 5)), desc="2x(3x4 @ 4x5)"),
            Sample(_mats(dtype, (5, 1, 6), (5, 6, 1)), desc="batched dot"),
            Sample(_mats(dtype, (3, 2, 0), (3, 0, 4)), desc="k=0"),
            Sample(_mats(dtype, (0, 2, 3), (0, 3, 4)), desc="empty batch"),
            Sample(_mats(dtype, (4, 9, 7), (4, 7, 11)), desc="4x(9x7 @ 7x11)")]


# (self shape, other shape) covering every branch of matmul
MATMUL_SHAPES = [
    ((5,), (5,)),              # dot
    ((3, 5), (5,)),            # mv
    ((5,), (5, 4)),            # vector @ matrix
    ((3, 5), (5, 4)),          # mm
    ((2, 3, 5), (5, 4)),       # batch folded into rows
    ((2, 3, 5), (5,)),         # batch @ vector
    ((5,), (2, 5, 4)),         # vector @ batch
    ((3, 5), (2, 5, 4)),       # matrix @ batch
    ((2, 3, 5), (2, 5, 4)),    # bmm
    ((2, 1, 3, 5), (4, 5, 6)),  # broadcast batch dims
    ((1, 3, 5), (2, 2, 5, 4)),  # broadcast the other way
    ((2, 2, 3, 5), (2, 5, 4)),  # 4-D @ 3-D: batch (2,) broadcast against (2, 2)
    ((0, 3, 5), (5, 4)),       # empty batch
    ((2, 3, 0), (0, 4)),       # k=0
    ((3, 0), (0,)),            # mv with k=0
]


def matmul_samples(dtype):
    return [Sample(_mats(dtype, a, b), desc=f"{a} @ {b}") for a, b in MATMUL_SHAPES]


def addmm_samples(dtype):
    s = [Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), desc="full self"),
         Sample(_mats(dtype, (5,), (3, 4), (4, 5)), desc="row bias"),
         Sample(_mats(dtype, (3, 1), (3, 4), (4, 5)), desc="column bias"),
         Sample(_mats(dtype, (), (3, 4), (4, 5)), desc="0-dim self"),
         Sample(_mats(dtype, (2, 3), (2, 0), (0, 3)), desc="k=0 gives beta*self"),
         Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), {"beta": 2, "alpha": 3}, desc="beta=2 alpha=3"),
         Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), {"beta": 0}, desc="beta=0"),
         Sample(_mats(dtype, (2, 3), (2, 0), (0, 3)), {"beta": 3}, desc="k=0 beta=3")]
    if dtype in FLOATING:
        s.append(Sample(_mats(dtype, (3, 5), (3, 4), (4, 5)), {"beta": 0.5, "alpha": -1.5}, desc="float beta/alpha"))
    return s


def _addmm_ref(self, m1, m2, beta=1, alpha=1):
    r = alpha * np.matmul(m1, m2)
    return r if beta == 0 else r + beta * self


def dot_samples(dtype):
    return [Sample(_mats(dtype, (7,), (7,)), desc="7"),
            Sample(_mats(dtype, (1,), (1,)), desc="1"),
            Sample(_mats(dtype, (0,), (0,)), desc="empty gives 0"),
            Sample(_mats(dtype, (100,), (100,), low=-2, high=2), desc="100")]


def mv_samples(dtype):
    return [Sample(_mats(dtype, (3, 4), (4,)), desc="3x4 @ 4"),
            Sample(_mats(dtype, (1, 6), (6,)), desc="1x6 @ 6"),
            Sample(_mats(dtype, (3, 0), (0,)), desc="k=0"),
            Sample(_mats(dtype, (0, 3), (3,)), desc="m=0")]


def outer_samples(dtype):
    return [Sample(_mats(dtype, (3,), (4,)), desc="3 x 4"),
            Sample(_mats(dtype, (0,), (4,)), desc="empty")]


def _f32(*shapes):
    return tuple(np.ones(s, F32) for s in shapes)


OPS = [
    OpInfo("mm", _ref(np.matmul), mm_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
                   ErrorCase((np.ones((2, 3), F32), np.ones((3, 5), F64)), {}, RuntimeError,
                             "expected m1 and m2 to have the same dtype, but got: float != double"),
                   ErrorCase((np.ones((2, 3), np.int32), np.ones((3, 5), np.int64)), {}, RuntimeError,
                             "expected m1 and m2 to have the same dtype, but got: int != long int"),
                   ErrorCase(_f32((3,), (3, 5)), {}, RuntimeError, "self must be a matrix"),
                   ErrorCase(_f32((2, 3), (3,)), {}, RuntimeError, "mat2 must be a matrix"),
                   ErrorCase((np.ones((2, 3), np.bool_), np.ones((3, 5), np.bool_)), {}, RuntimeError,
                             "not implemented for 'Bool'")]),
    OpInfo("bmm", _ref(np.matmul), bmm_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (2, 3, 4)), {}, RuntimeError, "batch1 must be a 3D tensor"),
                   ErrorCase(_f32((2, 2, 3), (2, 4, 5)), {}, RuntimeError,
                             r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: "
                             r"\[2, 4\]"),
                   ErrorCase((np.ones((2, 2, 3), np.int32), np.ones((2, 3, 5), F32)), {}, RuntimeError,
                             "expected scalar type Int but found Float")]),
    OpInfo("matmul", _ref(np.matmul), matmul_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase((np.array(1.0, F32), np.ones(3, F32)), {}, RuntimeError,
                             "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
                   ErrorCase(_f32((2, 3), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
                   ErrorCase(_f32((3,), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"),
                   ErrorCase(_f32((2, 2, 3), (3, 3, 5)), {}, RuntimeError,
                             r"The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton "
                             "dimension 0"),
                   ErrorCase((np.ones((2, 3), F32), np.ones((3, 5), F64)), {}, RuntimeError,
                             "expected m1 and m2 to have the same dtype, but got: float != double"),
                   ErrorCase(_f32((3,), (4,)), {}, RuntimeError, "inconsistent tensor size"),
                   ErrorCase(_f32((2, 3), (4,)), {}, RuntimeError,
                             r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)")]),
    OpInfo("addmm", _ref(_addmm_ref), addmm_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (2, 3), (4, 5)), {}, RuntimeError,
                             r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
                   ErrorCase(_f32((4, 3), (2, 3), (3, 5)), {}, RuntimeError,
                             r"The expanded size of the tensor \(5\) must match the existing size \(3\) at "
                             r"non-singleton dimension 1.  Target sizes: \[2, 5\].  Tensor sizes: \[4, 3\]"),
                   ErrorCase((np.ones((2, 5), F64), np.ones((2, 3), F32), np.ones((3, 5), F32)), {}, RuntimeError,
                             "self and mat2 must have the same dtype, but got Double and Float")]),
    OpInfo("dot", _ref(np.dot), dot_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (3,)), {}, RuntimeError, "1D tensors expected, but got 2D and 1D tensors"),
                   ErrorCase(_f32((3,), (4,)), {}, RuntimeError,
                             r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"),
                   ErrorCase((np.ones(3, F32), np.ones(3, F64)), {}, RuntimeError,
                             "dot : expected both vectors to have same dtype, but found Float and Double")]),
    OpInfo("mv", _ref(np.matmul), mv_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (4,)), {}, RuntimeError,
                             r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
                   ErrorCase(_f32((2, 3), (3, 1)), {}, RuntimeError, "vector \\+ matrix @ vector expected, got 1, 2, 2"),
                   ErrorCase((np.ones((2, 3), F32), np.ones(3, F64)), {}, RuntimeError,
                             "addmv input tensors must have the same dtype")]),
    OpInfo("outer", _ref(np.outer), outer_samples, dtypes=NUMERIC, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (3,)), {}, RuntimeError, "outer: Expected 1-D argument self, but got 2-D")]),
]


# ================================================================ torchlike.linalg (LAPACK-backed)
#
# Inputs are well-conditioned (random entries in [-1, 1) plus n * I for the
# square solvers, A A^T + n I where positive-definite matrices are needed), so
# float32 results agree with float64 NumPy to ~1e-4 and gradcheck is stable.
# Decompositions whose factors are defined up to signs (qr, svd, eigh, eig)
# are compared directly: NumPy calls the same LAPACK routines (geqrf/orgqr,
# gesdd, syevd, geev), which fix the signs the same way; identities that do
# not depend on the signs are checked in tests/test_linalg_ext.py.
# cholesky/eigh/eigvalsh read one triangle, so finite differences over a
# general matrix differ from PyTorch's symmetric gradient: they are
# gradchecked through symmetric parametrizations in test_linalg_ext.py.

LA = ("float32", "float64")
LA_TOL = {"float32": (2e-4, 2e-4), "float64": (1e-8, 1e-8)}


def _sq(dtype, shape, seed=0, shift=None):
    a = make(shape, dtype, -1, 1, seed=seed).astype(np.float64)
    n = shape[-1]
    a = a + (n if shift is None else shift) * np.eye(n)
    return a.astype(NP[dtype])


NP = {"float32": F32, "float64": F64}


def _spd(dtype, shape, seed=0):
    a = make(shape, dtype, -1, 1, seed=seed).astype(np.float64)
    a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    return a.astype(NP[dtype])


def _sym(dtype, shape, seed=0):
    a = make(shape, dtype, -1, 1, seed=seed).astype(np.float64)
    return (a + np.swapaxes(a, -1, -2)).astype(NP[dtype])


def _m(dtype, shape, seed=0, low=-1, high=1):
    return make(shape, dtype, low, high, seed=seed)


def _same(fn):
    """Reference in the input's own precision, for factors fixed only up to
    sign: the same-precision LAPACK routine makes the same sign choices."""
    return fn


def _f(fn):
    """Reference in float64 (inputs upcast), like _ref."""
    def ref(*args, **kw):
        conv = [a.astype(F64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return fn(*conv, **kw)
    return ref


SQ_SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (1, 1), (0, 3, 3), (0, 0)]


def inv_samples(dtype):
    return [Sample((_sq(dtype, s, i),), desc=str(s)) for i, s in enumerate(SQ_SHAPES)]


def _np_lu_factor(a):
    """LAPACK getrf in NumPy (partial pivoting, first largest pivot): (LU, 1-based int32 pivots)."""
    a = np.array(a, dtype=F64)
    m, n = a.shape[-2:]
    k = min(m, n)
    lu = a.copy()
    piv = np.zeros(a.shape[:-2] + (k,), np.int32)
    for idx in np.ndindex(*a.shape[:-2]):
        x = lu[idx]
        for j in range(k):
            p = j + int(np.argmax(np.abs(x[j:, j])))
            piv[idx + (j,)] = p + 1
            x[[j, p]] = x[[p, j]]
            if x[j, j] != 0:
                x[j + 1:, j] /= x[j, j]
            x[j + 1:, j + 1:] -= np.outer(x[j + 1:, j], x[j, j + 1:])
    return lu, piv


def _np_unpack(lu, piv):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
    U = np.triu(lu[..., :k, :])
    P = np.zeros(lu.shape[:-2] + (m, m))
    for idx in np.ndindex(*lu.shape[:-2]):
        perm = list(range(m))
        for i, p in enumerate(piv[idx]):
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
        for c, r in enumerate(perm):
            P[idx + (r, c)] = 1
    return P, L, U


def _np_det_ref(a):
    return np.linalg.det(a)


def _np_slogdet(a):
    s, l = np.linalg.slogdet(a)
    return s, l


def _solve_ref(a, b, left=True):
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bm = b[..., None] if vector else b
    if not left:
        return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(bm, -1, -2)), -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    x = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(bm, batch + bm.shape[-2:]))
    return x[..., 0] if vector else x


def solve_samples(dtype):
    return [Sample((_sq(dtype, (3, 3)), _m(dtype, (3, 2), 1)), desc="3x3, 3x2"),
            Sample((_sq(dtype, (2, 4, 4)), _m(dtype, (2, 4, 1), 1)), desc="batched"),
            Sample((_sq(dtype, (2, 3, 3)), _m(dtype, (3, 2), 1)), desc="B broadcast over A's batch"),
            Sample((_sq(dtype, (3, 3)), _m(dtype, (2, 3, 2), 1)), desc="A broadcast over B's batch"),
            Sample((_sq(dtype, (3, 3)), _m(dtype, (3,), 1)), desc="vector B"),
            Sample((_sq(dtype, (2, 3, 3)), _m(dtype, (2, 3), 1)), desc="batch of vectors"),
            Sample((_sq(dtype, (3, 3)), _m(dtype, (2, 3), 1)), {"left": False}, desc="XA = B")]


def _solve_ex_ref(a, b, left=True):
    x = _solve_ref(a, b, left)
    return x, np.zeros(np.broadcast_shapes(a.shape[:-2], (b[..., None] if b.ndim == 1 else b).shape[:-2]
                                           if b.ndim != a.ndim - 1 else b.shape[:-1]), np.int32)


def _tri(dtype, shape, upper, seed=0):
    a = _sq(dtype, shape, seed).astype(F64)
    return (np.triu(a) if upper else np.tril(a)).astype(NP[dtype])


def solve_triangular_samples(dtype):
    return [Sample((_tri(dtype, (3, 3), True), _m(dtype, (3, 2), 1)), {"upper": True}, desc="upper"),
            Sample((_tri(dtype, (2, 4, 4), False), _m(dtype, (2, 4, 3), 1)), {"upper": False}, desc="lower batched"),
            Sample((_tri(dtype, (3, 3), True), _m(dtype, (2, 3), 1)), {"upper": True, "left": False}, desc="right"),
            Sample((_tri(dtype, (3, 3), False), _m(dtype, (2, 3, 2), 1)), {"upper": False, "unitriangular": True},
                   desc="unit, broadcast"),
            Sample((_m(dtype, (3, 3), 2), _m(dtype, (3, 1), 1)), {"upper": False, "unitriangular": True},
                   desc="ignores the other triangle and the diagonal")]


def _solve_triangular_ref(a, b, upper, left=True, unitriangular=False):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:  # the diagonal is taken to be ones, whatever A holds
        t = t * (1 - np.eye(t.shape[-1])) + np.eye(t.shape[-1])
    return _solve_ref(t, b, left)


def cholesky_samples(dtype):
    return [Sample((_spd(dtype, (3, 3)),), desc="3x3"), Sample((_spd(dtype, (2, 4, 4)),), desc="batched"),
            Sample((_spd(dtype, (3, 3)),), {"upper": True}, desc="upper"), Sample((_spd(dtype, (0, 2, 2)),),
                                                                                  desc="empty batch")]


def _cholesky_ref(a, upper=False):
    L = np.linalg.cholesky(a) if a.size else np.zeros_like(a)
    return np.swapaxes(L, -1, -2) if upper else L


QR_SHAPES = [(4, 3), (3, 3), (3, 5), (2, 4, 2)]


def qr_samples(dtype):
    s = [Sample((_m(dtype, sh, i),), {"mode": mode}, desc=f"{sh} {mode}")
         for i, sh in enumerate(QR_SHAPES) for mode in ("reduced", "complete")
         if not (mode == "complete" and sh[-2] > sh[-1] and dtype == "float64")]
    if dtype == "float32":  # mode='r' has no derivative (PyTorch's rule): forward only
        s.append(Sample((_m(dtype, (4, 3)),), {"mode": "r"}, desc="mode r"))
        s.append(Sample((_m(dtype, (4, 3)),), {"mode": "complete"}, desc="tall complete"))
    return s


def _qr_ref(a, mode="reduced"):
    if mode == "r":
        return np.zeros(0), np.linalg.qr(a, mode="r")
    return tuple(np.linalg.qr(a, mode=mode))


def eigh_samples(dtype):
    return [Sample((_sym(dtype, (3, 3)),), desc="3x3"), Sample((_sym(dtype, (2, 4, 4)),), desc="batched"),
            Sample((_m(dtype, (3, 3)),), {"UPLO": "U"}, desc="upper triangle of a general matrix"),
            Sample((_m(dtype, (3, 3)),), {"UPLO": "L"}, desc="lower triangle of a general matrix")]


def _eigh_ref(a, UPLO="L"):
    return tuple(np.linalg.eigh(a, UPLO=UPLO))


SVD_SHAPES = [(4, 3), (3, 3), (3, 5), (2, 3, 2)]


def svd_samples(dtype):
    s = [Sample((_m(dtype, sh, i),), {"full_matrices": False}, desc=f"{sh} reduced") for i, sh in enumerate(SVD_SHAPES)]
    # The columns full_matrices adds beyond min(m, n) are any orthonormal
    # completion, not a differentiable function of A: float64 (gradcheck)
    # samples take full_matrices only where it adds none.
    s += [Sample((_m(dtype, sh, i),), desc=f"{sh} full") for i, sh in enumerate(SVD_SHAPES)
          if dtype == "float32" or sh[-1] == sh[-2]]
    return s


def _svd_ref(a, full_matrices=True):
    return tuple(np.linalg.svd(a, full_matrices=full_matrices))


def svdvals_samples(dtype):
    return [Sample((_m(dtype, sh, i),)) for i, sh in enumerate(SVD_SHAPES + [(0, 3)])]


def lu_factor_samples(dtype):
    return [Sample((_m(dtype, sh, i, -2, 2),), desc=str(sh)) for i, sh in enumerate([(3, 3), (2, 4, 4), (3, 5), (5, 3)])]


def _lu_factor_ref(a):
    return _np_lu_factor(a)


def _lu_factor_ex_ref(a):
    lu, piv = _np_lu_factor(a)
    return lu, piv, np.zeros(a.shape[:-2], np.int32)


def _lu_ref(a):
    return _np_unpack(*_np_lu_factor(a))


def lu_solve_samples(dtype):
    out = []
    for i, (sh, bsh, kw) in enumerate([((3, 3), (3, 2), {}), ((2, 4, 4), (2, 4, 1), {}),
                                       ((3, 3), (3, 2), {"adjoint": True}), ((3, 3), (2, 3), {"left": False}),
                                       ((3, 3), (2, 3), {"left": False, "adjoint": True})]):
        a = _sq(dtype, sh, i)
        lu, piv = _np_lu_factor(a)
        out.append(Sample((lu.astype(NP[dtype]), piv, _m(dtype, bsh, i + 10)), kw, desc=f"{sh} {kw}"))
    return out


def _lu_solve_ref(lu, piv, b, left=True, adjoint=False):
    P, L, U = _np_unpack(lu, piv)
    a = P @ L @ U
    if adjoint:
        a = np.swapaxes(a, -1, -2)
    return _solve_ref(a, b, left)


def det_samples(dtype):
    return inv_samples(dtype) + [Sample((_m(dtype, (3, 3), 7, -2, 2),), desc="general")]


def norm_samples(dtype):
    x = _m(dtype, (3, 4), 0, -2, 2)
    return [Sample((x,), desc="default"), Sample((x, "fro")), Sample((x, "nuc")), Sample((x, 2)), Sample((x, -2)),
            Sample((x, 1)), Sample((x, -1)), Sample((x, float("inf"))), Sample((x, -float("inf"))),
            Sample((x, 3, 1), desc="vector ord 3 over dim 1"), Sample((x, None, (0, 1), True), desc="keepdim"),
            Sample((_m(dtype, (5,), 1, -2, 2), 1), desc="1-D ord 1"),
            Sample((_m(dtype, (2, 3, 4), 2, -2, 2),), desc="3-D flattened")]


def _np_norm(x, ord=None, dim=None, keepdim=False):
    return np.asarray(np.linalg.norm(x, ord, dim, keepdim))


def vector_norm_samples(dtype):
    x = _m(dtype, (2, 3, 4), 0, -2, 2)
    return [Sample((x,)), Sample((x, 1)), Sample((x, 3.5)), Sample((x, float("inf"))), Sample((x, -float("inf"))),
            Sample((x, 0)), Sample((x, -1, (0, 2))), Sample((x, 2, 1, True)),
            Sample((x,), {"dim": (1, 2), "keepdim": True})]


def _np_vector_norm(x, ord=2, dim=None, keepdim=False):
    axis = tuple(range(x.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    a = np.abs(x)
    if ord == float("inf"):
        return a.max(axis=axis, keepdims=keepdim)
    if ord == -float("inf"):
        return a.min(axis=axis, keepdims=keepdim)
    if ord == 0:
        return (x != 0).sum(axis=axis, keepdims=keepdim).astype(x.dtype)
    return (a ** ord).sum(axis=axis, keepdims=keepdim) ** (1.0 / ord)


def matrix_norm_samples(dtype):
    x = _m(dtype, (2, 3, 4), 0, -2, 2)
    return [Sample((x,)), Sample((x, "nuc")), Sample((x, 2)), Sample((x, -2)), Sample((x, 1)),
            Sample((x, float("inf"))), Sample((x, -1, (0, 2))), Sample((x, "fro", (2, 1), True)),
            Sample((x, -float("inf"), (-1, 0), True))]


def _np_matrix_norm(x, ord="fro", dim=(-2, -1), keepdim=False):
    return np.asarray(np.linalg.norm(x, ord, tuple(dim), keepdim))


def pinv_samples(dtype):
    return [Sample((_m(dtype, (4, 3)),)), Sample((_m(dtype, (2, 3, 5), 1),)),
            Sample((_sq(dtype, (3, 3), 2),), {"hermitian": False, "rtol": 0.1}),
            ] + ([
        # pinv is not continuous where the rank drops, and hermitian=True reads one
        # triangle: forward only (test_linalg_ext.py gradchecks hermitian symmetrized).
        Sample((np.array([[1, 2], [2, 4]], NP[dtype]),), desc="rank 1"),
        Sample((_spd(dtype, (3, 3), 3),), {"hermitian": True}, desc="hermitian")] if dtype == "float32" else [])


def _pinv_ref(a, atol=None, rtol=None, hermitian=False):
    if rtol is None:
        rtol = np.finfo(F64).eps * max(a.shape[-2:]) if atol is None else 0.0
    return np.linalg.pinv(a, rcond=rtol, hermitian=hermitian)


def matrix_rank_samples(dtype):
    r1 = np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], NP[dtype])
    return [Sample((_m(dtype, (4, 3)),)), Sample((r1,)), Sample((np.stack([r1, _sq(dtype, (3, 3))]),)),
            Sample((_spd(dtype, (3, 3)),), {"hermitian": True}), Sample((r1,), {"atol": 10.0})]


def _matrix_rank_ref(a, atol=None, rtol=None, hermitian=False):
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    if rtol is None:
        rtol = np.finfo(F32).eps * max(a.shape[-2:]) if atol is None else 0.0
    thr = np.maximum(atol or 0.0, rtol * s.max(-1, keepdims=True))
    return (s > thr).sum(-1)


def lstsq_samples(dtype):
    return [Sample((_m(dtype, (5, 3)), _m(dtype, (5, 2), 1)), desc="tall"),
            Sample((_m(dtype, (2, 5, 3)), _m(dtype, (2, 5, 2), 1)), {"driver": "gelsd"}, desc="gelsd"),
            Sample((_m(dtype, (5, 3)), _m(dtype, (5, 2), 1)), {"driver": "gelss"}, desc="gelss"),
            Sample((_m(dtype, (5, 3)), _m(dtype, (5, 2), 1)), {"driver": "gels"}, desc="gels")]


def _lstsq_ref(a, b, rcond=None, driver=None):
    x = np.linalg.lstsq(a, b, rcond=None)[0] if a.ndim == 2 else np.stack(
        [np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(a.shape[0])])
    m, n = a.shape[-2:]
    s = np.linalg.svd(a, compute_uv=False)
    rank = np.full(a.shape[:-2], n)
    res = ((a @ x - b) ** 2).sum(-2) if driver in ("gelsd", "gelss", "gels") and m > n else np.zeros(0)
    rank = np.zeros(0) if driver == "gels" else rank
    return x, res, rank, s if driver in ("gelsd", "gelss") else np.zeros(0)


def matrix_power_samples(dtype):
    a = _sq(dtype, (3, 3), 0, shift=1.5)
    return [Sample((a, n), desc=f"n={n}") for n in (0, 1, 2, 5, -1, -3)] + [
        Sample((_sq(dtype, (2, 2, 2), 1, shift=1.5), 3), desc="batched")]


def _matrix_power_ref(a, n):
    return np.linalg.matrix_power(a, n)


def _np_expm(a):
    a = np.asarray(a, F64)
    norm = np.abs(a).sum(-2).max() if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm))) + 1) if norm > 0.5 else 0
    x = a / 2.0 ** s
    r = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    term = r.copy()
    for k in range(1, 30):
        term = term @ x / k
        r = r + term
    for _ in range(s):
        r = r @ r
    return r


def matrix_exp_samples(dtype):
    return [Sample((_m(dtype, (3, 3)),), desc="small norm"), Sample((_m(dtype, (2, 4, 4), 1, -3, 3),), desc="large"),
            Sample((_m(dtype, (1, 1), 2),), desc="1x1"), Sample((_m(dtype, (0, 2, 2), 2),), desc="empty")]


def multi_dot_samples(dtype):
    return [Sample(([_m(dtype, (3, 4)), _m(dtype, (4, 2), 1)],), desc="2 matrices"),
            Sample(([_m(dtype, (4,)), _m(dtype, (4, 6), 1), _m(dtype, (6, 2), 2), _m(dtype, (2,), 3)],),
                   desc="vector ends"),
            Sample(([_m(dtype, (10, 2)), _m(dtype, (2, 8), 1), _m(dtype, (8, 3), 2)],), desc="reordered")]


def _multi_dot_ref(ts):
    return np.linalg.multi_dot(ts)


def cross_samples(dtype):
    return [Sample((_m(dtype, (3,)), _m(dtype, (3,), 1))), Sample((_m(dtype, (2, 3)), _m(dtype, (1, 3), 1)),
                                                                  desc="broadcast"),
            Sample((_m(dtype, (3, 2)), _m(dtype, (3, 2), 1)), {"dim": 0}, desc="dim 0")]


def _cross_ref(a, b, dim=-1):
    return np.cross(a, b, axis=dim)


def vecdot_samples(dtype):
    return [Sample((_m(dtype, (3, 4)), _m(dtype, (4,), 1))), Sample((_m(dtype, (3, 4)), _m(dtype, (3, 4), 1)),
                                                                    {"dim": 0})]


def cond_samples(dtype):
    a = _sq(dtype, (3, 3), 0)
    return [Sample((a,)), Sample((a, "fro")), Sample((a, "nuc")), Sample((a, 1)), Sample((a, -2)),
            Sample((a, float("inf"))), Sample((_m(dtype, (2, 4, 3), 1),), desc="rectangular, p=None")]


def _cond_ref(a, p=None):
    return np.linalg.cond(a, p)


def diagonal_samples(dtype):
    x = _m(dtype, (2, 3, 4))
    return [Sample((x,)), Sample((x,), {"offset": 1}), Sample((x,), {"offset": -1, "dim1": 0, "dim2": 2})]


def _diagonal_ref(a, offset=0, dim1=-2, dim2=-1):
    return np.diagonal(a, offset, dim1, dim2)


def householder_samples(dtype):
    return [Sample((_m(dtype, (4, 3)), _m(dtype, (3,), 1, 0.5, 1.5))),
            Sample((_m(dtype, (2, 5, 3)), _m(dtype, (2, 2), 1, 0.5, 1.5)), desc="batched, k < n"),
            Sample((_m(dtype, (3, 3)), _m(dtype, (3,), 1, 0.5, 1.5)), desc="square")]


def _householder_ref(a, tau):
    m, n = a.shape[-2:]
    out = np.zeros(a.shape)
    for idx in np.ndindex(*a.shape[:-2]):
        v = np.tril(a[idx], -1) + np.eye(m, n)
        q = np.eye(m)
        for i in range(tau.shape[-1]):
            q = q @ (np.eye(m) - tau[idx + (i,)] * np.outer(v[:, i], v[:, i]))
        out[idx] = q[:, :n]
    return out


def tensorinv_samples(dtype):
    return [Sample((_sq(dtype, (6, 6)).reshape(6, 2, 3),), {"ind": 1}),
            Sample((_sq(dtype, (6, 6), 1).reshape(2, 3, 6),), desc="ind=2")]


def _tensorinv_ref(a, ind=2):
    return np.linalg.tensorinv(a, ind)


def tensorsolve_samples(dtype):
    return [Sample((_sq(dtype, (6, 6)).reshape(6, 2, 3), _m(dtype, (6,), 1))),
            Sample((_sq(dtype, (6, 6), 1).reshape(2, 3, 6), _m(dtype, (2, 3), 2)), desc="2-D B"),
            Sample((_sq(dtype, (6, 6), 2).reshape(2, 3, 6).transpose(0, 2, 1).copy(), _m(dtype, (2, 3), 3)),
                   {"dims": (1,)}, desc="dims")]


def _tensorsolve_ref(a, b, dims=None):
    return np.linalg.tensorsolve(a, b, dims)


def vander_samples(dtype):
    x = make((4,), dtype, -2, 2) if dtype in FLOATING else make((4,), dtype, -3, 3)
    return [Sample((x,)), Sample((x,), {"N": 2}), Sample((make((2, 3), dtype, -2, 2, seed=1),), {"N": 5})]


def _vander_ref(x, N=None):
    n = x.shape[-1] if N is None else N
    return np.stack([x ** i for i in range(n)], -1).astype(x.dtype)


def eig_samples(dtype):
    rng = np.random.default_rng(3)
    p = rng.uniform(-1, 1, (2, 3, 3)) + 2 * np.eye(3)
    a = p @ np.diag([1.0, 2.0, -3.0]) @ np.linalg.inv(p)
    return [Sample((a[0].astype(NP[dtype]),), desc="real spectrum"), Sample((a.astype(NP[dtype]),), desc="batched")]


def _eig_ref(a):
    w, v = np.linalg.eig(a)
    return w.real, v.real


def _eigvals_ref(a):
    return np.linalg.eigvals(a).real


def _dd_spd(dtype, shape, seed=0):
    """Strongly diagonally dominant SPD: Bunch-Kaufman takes only 1x1 pivots
    without interchanges, so sytrf's LD is the plain LDL^T."""
    a = make(shape, dtype, -1, 1, seed=seed).astype(F64)
    return (a + np.swapaxes(a, -1, -2) + 4 * shape[-1] * np.eye(shape[-1])).astype(NP[dtype])


def ldl_samples(dtype):
    return [Sample((_dd_spd(dtype, s, i),), desc=str(s)) for i, s in enumerate([(3, 3), (2, 4, 4), (1, 1)])]


def _ldl_ref(a, hermitian=False):
    c = np.linalg.cholesky(a)
    d = np.diagonal(c, 0, -2, -1)
    L = c / d[..., None, :]
    ld = np.tril(L, -1) + (d[..., None, :] ** 2) * np.eye(a.shape[-1])
    piv = np.broadcast_to(np.arange(1, a.shape[-1] + 1, dtype=np.int32), a.shape[:-1])
    return ld, piv


def ldl_solve_samples(dtype):
    import torchlike as tl  # the factor's compact format comes from ldl_factor itself
    out = []
    for i, (sh, bsh) in enumerate([((3, 3), (3, 2)), ((2, 4, 4), (2, 4, 1)), ((3, 3), (2, 3, 2))]):
        a = _sym(dtype, sh, i) + np.eye(sh[-1], dtype=NP[dtype])  # indefinite: 2x2 pivots happen
        ld, piv = tl.linalg.ldl_factor(tl.tensor(a))
        out.append(Sample((np.asarray(ld), np.asarray(piv), _m(dtype, bsh, i + 5)), desc=str(sh)))
    return out


def ldl_reconstruct(ld, piv):
    """A = M D M^T from sytrf's compact lower form (LAPACK's documentation:
    M = P(1) L(1) P(2) L(2) ..., 1x1 blocks where ipiv > 0, 2x2 where ipiv < 0)."""
    ld = np.asarray(ld, F64)
    n = ld.shape[-1]
    out = np.empty(ld.shape)
    for idx in np.ndindex(*ld.shape[:-2]):
        a, p = ld[idx], piv[idx]
        M, D, k = np.eye(n), np.zeros((n, n)), 0
        while k < n:
            P, Lk = np.eye(n), np.eye(n)
            if p[k] > 0:
                s, r = 1, p[k] - 1
                P[[k, r]] = P[[r, k]]
                Lk[k + 1:, k] = a[k + 1:, k]
                D[k, k] = a[k, k]
            else:
                s, r = 2, -p[k] - 1
                P[[k + 1, r]] = P[[r, k + 1]]
                Lk[k + 2:, k:k + 2] = a[k + 2:, k:k + 2]
                D[k:k + 2, k:k + 2] = [[a[k, k], a[k + 1, k]], [a[k + 1, k], a[k + 1, k + 1]]]
            M = M @ P @ Lk
            k += s
        out[idx] = M @ D @ M.T
    return out


def _ldl_solve_call_ref(ld, piv, b):
    return _solve_ref(ldl_reconstruct(ld, piv), b)


def _i32(*shape):
    return np.zeros(shape, np.int32)


_SING = np.zeros((3, 3), F32)
_NONSQ = np.ones((3, 4), F32)
_INT = np.ones((3, 3), np.int64)
_HALF = np.ones((3, 3), np.float16)


def _square_errors(op):
    return [ErrorCase((_NONSQ,), {}, RuntimeError, f"{op}: A must be batches of square matrices, but they are 3 by 4"),
            ErrorCase((np.ones(3, F32),), {}, RuntimeError, f"{op}: The input tensor A must have at least 2 dimensions"),
            ErrorCase((_INT,), {}, RuntimeError, f"{op}: Expected a floating point or complex tensor as input. Got Long"),
            ErrorCase((_HALF,), {}, RuntimeError, f"{op}: Low precision dtypes not supported. Got Half")]


OPS += [
    OpInfo("linalg.inv", _f(np.linalg.inv), inv_samples, dtypes=LA, method=False, tol=LA_TOL, out=True,
           errors=_square_errors("linalg.inv") + [
               ErrorCase((_SING,), {}, RuntimeError, "linalg.inv: The diagonal element 1 is zero, the inversion "
                                                     "could not be completed because the input matrix is singular"),
               ErrorCase((np.stack([np.eye(3, dtype=F32), _SING]),), {}, RuntimeError,
                         r"linalg.inv: \(Batch element 1\): The diagonal element 1 is zero")]),
    OpInfo("linalg.inv_ex", _f(lambda a: (np.linalg.inv(a), _i32(*a.shape[:-2]))), inv_samples, dtypes=LA,
           method=False, tol=LA_TOL,
           errors=[ErrorCase((_SING,), {"check_errors": True}, RuntimeError, "input matrix is singular"),
                   ErrorCase((_NONSQ,), {}, RuntimeError, "linalg.inv_ex: A must be batches of square matrices")]),
    OpInfo("linalg.det", _f(_np_det_ref), det_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=_square_errors("linalg.det")),
    OpInfo("linalg.slogdet", _f(_np_slogdet), det_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=_square_errors("linalg.slogdet")),
    OpInfo("linalg.solve", _f(_solve_ref), solve_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((_SING, np.ones((3, 1), F32)), {}, RuntimeError,
                             "torch.linalg.solve: The solver failed because the input matrix is singular"),
                   ErrorCase((np.eye(3, dtype=F32), np.ones(4, F32)), {}, RuntimeError,
                             r"linalg.solve: Incompatible shapes of A and B for the equation AX = B \(3x3 and 4x1\)"),
                   ErrorCase((np.eye(3, dtype=F32), np.ones((3, 1), F64)), {}, RuntimeError,
                             "linalg.solve: Expected A and B to have the same dtype"),
                   ErrorCase((np.ones((2, 3, 3), F32), np.ones((4, 3, 1), F32)), {}, RuntimeError,
                             "linalg.solve: The size of tensor a")]),
    OpInfo("linalg.solve_ex", _f(_solve_ex_ref), lambda d: solve_samples(d)[:2], dtypes=LA, method=False,
           tol=LA_TOL, errors=[ErrorCase((_SING, np.ones((3, 1), F32)), {"check_errors": True}, RuntimeError,
                                         "input matrix is singular")]),
    OpInfo("linalg.solve_triangular", _f(_solve_triangular_ref), solve_triangular_samples, dtypes=LA, method=False,
           tol=LA_TOL,
           errors=[ErrorCase((np.eye(3, dtype=F32), np.ones((4, 2), F32)), {"upper": True}, RuntimeError,
                             "linalg.solve_triangular: Incompatible shapes of A and B"),
                   ErrorCase((np.eye(3, dtype=F32), np.ones((3, 2), F32)), {}, TypeError, "upper")]),
    OpInfo("linalg.cholesky", _f(_cholesky_ref), cholesky_samples, dtypes=LA, method=False, tol=LA_TOL,
           grad=False, out=True,
           errors=_square_errors("linalg.cholesky") + [
               ErrorCase((-np.eye(3, dtype=F32),), {}, RuntimeError,
                         r"linalg.cholesky: The factorization could not be completed because the input is not "
                         r"positive-definite \(the leading minor of order 1 is not positive-definite\)")]),
    OpInfo("linalg.cholesky_ex", _f(lambda a, upper=False: (_cholesky_ref(a, upper), _i32(*a.shape[:-2]))),
           cholesky_samples, dtypes=LA, method=False, tol=LA_TOL, grad=False,
           errors=[ErrorCase((-np.eye(3, dtype=F32),), {"check_errors": True}, RuntimeError, "not positive-definite")]),
    OpInfo("linalg.qr", _same(_qr_ref), qr_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones((3, 3), F32), "x"), {}, RuntimeError, "qr received unrecognized mode 'x'"),
                   ErrorCase((np.ones(3, F32),), {}, RuntimeError, "linalg.qr: The input tensor A must have at least")]),
    OpInfo("linalg.eigh", _same(_eigh_ref), eigh_samples, dtypes=LA, method=False, tol=LA_TOL, grad=False,
           errors=_square_errors("linalg.eigh") + [
               ErrorCase((np.eye(3, dtype=F32),), {"UPLO": "X"}, RuntimeError,
                         "Expected UPLO argument to be 'L' or 'U', but got X")]),
    OpInfo("linalg.eigvalsh", _f(lambda a, UPLO="L": np.linalg.eigvalsh(a, UPLO)), eigh_samples, dtypes=LA,
           method=False, tol=LA_TOL, grad=False, errors=_square_errors("linalg.eigvalsh")),
    OpInfo("linalg.svd", _same(_svd_ref), svd_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones(3, F32),), {}, RuntimeError, "linalg.svd: The input tensor A must have at least"),
                   ErrorCase((np.full((3, 3), np.nan, F32),), {}, RuntimeError, "linalg.svd: The algorithm failed to "
                                                                                "converge"),
                   ErrorCase((np.ones((3, 3), F32),), {"driver": "gesvd"}, RuntimeError, "only supported on CUDA")]),
    OpInfo("linalg.svdvals", _f(lambda a: np.linalg.svd(a, compute_uv=False)), svdvals_samples, dtypes=LA,
           method=False, tol=LA_TOL, errors=[ErrorCase((_INT,), {}, RuntimeError, "Expected a floating point")]),
    OpInfo("linalg.lu_factor", _f(_lu_factor_ref), lu_factor_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((_SING,), {}, RuntimeError, r"torch.linalg.lu_factor: U\[1,1\] is zero"),
                   ErrorCase((np.ones((2, 2), F32),), {"pivot": False}, RuntimeError,
                             "LU without pivoting is not implemented on the CPU")]),
    OpInfo("linalg.lu_factor_ex", _f(_lu_factor_ex_ref), lu_factor_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((_SING,), {"check_errors": True}, RuntimeError, r"U\[1,1\] is zero")]),
    OpInfo("linalg.lu", _f(_lu_ref), lu_factor_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones(3, F32),), {}, RuntimeError, "linalg.lu: The input tensor A must have at")]),
    OpInfo("linalg.lu_solve", _f(_lu_solve_ref), lu_solve_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.eye(3, dtype=F32), np.ones(3, np.int64), np.ones((3, 1), F32)), {}, RuntimeError,
                             "pivots should be a Tensor of scalar type int32"),
                   ErrorCase((np.eye(3, dtype=F32), np.ones(3, np.int32), np.ones((4, 1), F32)), {}, RuntimeError,
                             "linalg.lu_solve: Incompatible shapes of A and B")]),
    OpInfo("linalg.norm", _f(_np_norm), norm_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones((2, 2, 2), F32), 2), {}, RuntimeError, "the input must be 1D or 2D")]),
    OpInfo("linalg.vector_norm", _f(_np_vector_norm), vector_norm_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones(3, np.int64),), {}, RuntimeError,
                             "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long")]),
    OpInfo("linalg.matrix_norm", _f(_np_matrix_norm), matrix_norm_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones(3, F32),), {}, RuntimeError,
                             "linalg.matrix_norm: The input tensor A must have at least 2 dimensions"),
                   ErrorCase((np.ones((2, 2), F32), 3), {}, RuntimeError, "Order 3 not supported")]),
    OpInfo("linalg.pinv", _f(_pinv_ref), pinv_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones(3, F32),), {}, RuntimeError, "linalg.pinv: The input tensor A must have at")]),
    OpInfo("linalg.matrix_rank", _f(_matrix_rank_ref), matrix_rank_samples, dtypes=LA, method=False, grad=False,
           ref_dtype=lambda d: "int64",
           errors=[ErrorCase((_INT,), {}, RuntimeError, "Expected a floating point")]),
    OpInfo("linalg.lstsq", _f(_lstsq_ref), lstsq_samples, dtypes=LA, method=False,
           tol={"float32": (1e-3, 1e-3), "float64": (1e-8, 1e-8)},
           errors=[ErrorCase((np.ones((3, 3), F32), np.ones((4, 2), F32)), {}, RuntimeError,
                             r"torch.linalg.lstsq: input.size\(-2\) should match other.size\(-2\)"),
                   ErrorCase((np.ones((3, 3), F32), np.ones((3, 2), F32)), {"driver": "x"}, RuntimeError,
                             "parameter `driver` should be one of")]),
    OpInfo("linalg.matrix_power", _f(_matrix_power_ref), matrix_power_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((_NONSQ, 2), {}, RuntimeError, "linalg.matrix_power: A must be batches of square")]),
    OpInfo("linalg.matrix_exp", _f(_np_expm), matrix_exp_samples, dtypes=LA, method=False,
           tol={"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10)},
           errors=[ErrorCase((_NONSQ,), {}, RuntimeError, "linalg.matrix_exp: A must be batches of square")]),
    OpInfo("linalg.multi_dot", _f(_multi_dot_ref), multi_dot_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase(([np.ones((3, 3), F32)],), {}, RuntimeError,
                             r"multi_dot\(\): expected at least 2 tensors but got 1"),
                   ErrorCase(([np.ones((3, 3), F32), np.ones((2, 3), F32)],), {}, RuntimeError, "cannot be multiplied")]),
    OpInfo("linalg.cross", _f(_cross_ref), cross_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones((3, 2), F32), np.ones((3, 2), F32)), {}, RuntimeError,
                             "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2")]),
    OpInfo("linalg.vecdot", _f(lambda x, y, dim=-1: (x * y).sum(dim)), vecdot_samples, dtypes=LA, method=False,
           tol=LA_TOL, errors=[ErrorCase((np.ones(3, F32), np.ones(3, F64)), {}, RuntimeError,
                                         "Expected x and y to have the same dtype")]),
    OpInfo("linalg.cond", _f(_cond_ref), cond_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((_NONSQ, 1), {}, RuntimeError, "must be batches of square matrices")]),
    OpInfo("linalg.diagonal", _f(_diagonal_ref), diagonal_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones(3, F32),), {}, (RuntimeError, IndexError), "")]),
    OpInfo("linalg.householder_product", _f(_householder_ref), householder_samples, dtypes=LA, method=False,
           tol=LA_TOL, errors=[ErrorCase((np.ones((2, 3), F32), np.ones(2, F32)), {}, RuntimeError,
                                         "input.shape\\[-2\\] must be greater than or equal to input.shape\\[-1\\]")]),
    OpInfo("linalg.tensorinv", _f(_tensorinv_ref), tensorinv_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones((2, 3), F32),), {"ind": 1}, RuntimeError, "Expected self to satisfy")]),
    OpInfo("linalg.tensorsolve", _f(_tensorsolve_ref), tensorsolve_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.ones((2, 3), F32), np.ones(2, F32)), {}, RuntimeError, "Expected self to satisfy")]),
    OpInfo("linalg.vander", _vander_ref, vander_samples, dtypes=("int64",) + LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.array(1.0, F32),), {}, RuntimeError, "x must have at least one dimension")]),
    OpInfo("linalg.eig", _same(_eig_ref), eig_samples, dtypes=LA, method=False, tol=LA_TOL,
           skip={"float32": "sgeev's eigenvector signs differ between NumPy's and torchlike's OpenBLAS builds; "
                            "test_linalg_ext.py checks A V = V diag(w) in float32"},
           errors=_square_errors("linalg.eig") + [
               ErrorCase((np.array([[0, 1], [-1, 0]], F32),), {}, RuntimeError, "complex eigenvalues")]),
    OpInfo("linalg.eigvals", _f(_eigvals_ref), eig_samples, dtypes=LA, method=False, tol=LA_TOL,
           errors=[ErrorCase((np.array([[0, 1], [-1, 0]], F32),), {}, RuntimeError, "complex eigenvalues")]),
    OpInfo("linalg.ldl_factor", _f(_ldl_ref), ldl_samples, dtypes=LA, method=False, tol=LA_TOL, grad=False,
           errors=[ErrorCase((_NONSQ,), {}, RuntimeError, "torch.linalg.ldl_factor: A must be batches of square"),
                   ErrorCase((np.zeros((2, 2), F32),), {}, RuntimeError, "D is exactly singular")]),
    OpInfo("linalg.ldl_factor_ex", _f(lambda a, **kw: _ldl_ref(a) + (_i32(*a.shape[:-2]),)), ldl_samples, dtypes=LA,
           method=False, tol=LA_TOL, grad=False,
           errors=[ErrorCase((np.zeros((2, 2), F32),), {"check_errors": True}, RuntimeError, "exactly singular")]),
    OpInfo("linalg.ldl_solve", _f(_ldl_solve_call_ref), ldl_solve_samples, dtypes=LA, method=False, tol=LA_TOL,
           grad=False,
           errors=[ErrorCase((np.eye(3, dtype=F32), np.arange(1, 4, dtype=np.int32), np.ones((4, 1), F32)), {},
                             RuntimeError, "Incompatible matrix sizes for torch.linalg.ldl_solve"),
                   ErrorCase((np.eye(3, dtype=F32), np.array([1, 9, 3], np.int32), np.ones((3, 1), F32)), {},
                             RuntimeError, "pivots must be in")]),
    OpInfo("linalg.matmul", _ref(np.matmul), matmul_samples, dtypes=LA, method=False, tol=TOL,
           errors=[ErrorCase(_f32((2, 3), (4, 5)), {}, RuntimeError, "cannot be multiplied")]),
]
