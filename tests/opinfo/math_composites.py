"""Math composites (isclose, trace, diff, kron, tensordot, inner, vdot,
addmv/addr/addbmm/baddbmm, nansum/nanmean, count_nonzero, var_mean/std_mean,
aminmax, cov, corrcoef, dist) against NumPy."""
import numpy as np

from .core import ALL_DTYPES, FLOATING, NUMERIC, ErrorCase, OpInfo, Sample, make

F64 = np.float64
M = np.ones((2, 3), np.float32)
FL = ("float32", "float64")


def _isclose_samples(d):
    a = make((3, 4), d)
    b = a.copy()
    if d in FLOATING:
        b = (a.astype(np.float64) + np.array([0, 1e-9, 1e-3, 1])[None, :]).astype(a.dtype)
        a = a.copy()
        a[0, 0] = np.nan
        b[0, 0] = np.nan
    else:
        b[:, 1] = b[:, 1] + (1 if d != "bool" else 0)
    return [Sample((a, b), {}, "defaults"), Sample((a, b), {"rtol": 1e-2, "atol": 0.5, "equal_nan": True}, "loose")]


def _isclose_ref(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if a.dtype == np.bool_:
        return a == b
    return np.isclose(a.astype(F64), b.astype(F64), rtol=rtol, atol=atol, equal_nan=equal_nan)


def _sum_dtype(d):
    return "int64" if d not in FLOATING else d


def _trace_ref(a):
    return np.asarray(np.trace(a.astype(F64) if a.dtype.kind == "f" else a.astype(np.int64)))


def _diff_ref(a, n=1, dim=-1, prepend=None, append=None):
    parts = [p for p in (prepend, a, append) if p is not None]
    x = np.concatenate(parts, axis=dim) if len(parts) > 1 else a
    for _ in range(n):
        x = np.diff(x, axis=dim) if x.dtype != np.bool_ else np.logical_xor(
            np.take(x, range(1, x.shape[dim]), dim), np.take(x, range(x.shape[dim] - 1), dim))
    return x


def _diff_samples(d):
    return [Sample((make((3, 6), d),), {}, "n=1"), Sample((make((4, 5), d, seed=1), 2, 0), {}, "n=2 dim 0"),
            Sample((make((2, 4), d, seed=2), 1, -1, make((2, 1), d, seed=3), make((2, 2), d, seed=4)), {},
                   "prepend/append")]


def _cnt(a, dim=None):
    return np.asarray(np.count_nonzero(a, axis=dim)).astype(np.int64)


def _nan_samples(d):
    x = make((3, 5), d)
    x[0, 1] = np.nan
    if d != "float64":  # (an all-NaN row has no derivative for gradcheck)
        x[2, :] = np.nan
    return [Sample((x,), {}, "all"), Sample((x, 1), {}, "dim 1"), Sample((x, 0), {"keepdim": True}, "dim 0 keepdim")]


def _nanmean_ref(x, dim=None, keepdim=False):
    with np.errstate(all="ignore"):
        return np.asarray(np.nanmean(x.astype(F64), axis=dim, keepdims=keepdim)).astype(x.dtype)


def _nansum_ref(x, dim=None, keepdim=False):
    return np.asarray(np.nansum(x.astype(F64), axis=dim, keepdims=keepdim)).astype(x.dtype)


def _varmean_ref(fn):
    def ref(x, dim=None, correction=1, keepdim=False):
        ax = tuple(dim) if isinstance(dim, (list, tuple)) else dim
        v = getattr(np, fn)(x.astype(F64), axis=ax, ddof=correction, keepdims=keepdim)
        m = np.mean(x.astype(F64), axis=ax, keepdims=keepdim)
        return np.asarray(v).astype(x.dtype), np.asarray(m).astype(x.dtype)
    return ref


def _varmean_samples(d):
    x = make((4, 5), d)
    return [Sample((x,), {}, "all"), Sample((x, 1), {"correction": 0}, "dim 1 biased"),
            Sample((x, [0, 1]), {"keepdim": True}, "dims keepdim")]


def _aminmax_ref(x, dim=None, keepdim=False):
    if dim is None:
        mn, mx = np.min(x), np.max(x)
        if keepdim:
            mn, mx = np.reshape(mn, (1,) * x.ndim), np.reshape(mx, (1,) * x.ndim)
        return np.asarray(mn), np.asarray(mx)
    return np.min(x, axis=dim, keepdims=keepdim), np.max(x, axis=dim, keepdims=keepdim)


def _add_ref(kind):
    def ref(s, a, b, beta=1, alpha=1):
        s, a, b = s.astype(F64), a.astype(F64), b.astype(F64)
        p = {"mv": lambda: a @ b, "r": lambda: np.outer(a, b), "bmm": lambda: a @ b,
             "addbmm": lambda: (a @ b).sum(0)}[kind]()
        return ((0 if beta == 0 else beta * s) + alpha * p).astype(np.float64)
    return ref


def _f(fn):
    def ref(*a, **k):
        r = fn(*[x.astype(F64) if isinstance(x, np.ndarray) else x for x in a], **k)
        return r
    return ref


def _cast_ref(fn):
    def ref(*a, **k):
        dt = next(x.dtype for x in a if isinstance(x, np.ndarray))
        return np.asarray(_f(fn)(*a, **k)).astype(dt)
    return ref


OPS = [
    OpInfo("isclose", _isclose_ref, _isclose_samples, dtypes=ALL_DTYPES, ref_dtype=lambda d: "bool", grad=False,
           skip={"bfloat16": "the sample's small offsets round away in bfloat16"},
           errors=[ErrorCase((M, M.astype(np.float64)), {}, RuntimeError,
                             "isclose\\(\\): expected self and other to have the same dtype"),
                   ErrorCase((M, M), {"rtol": -1.0}, RuntimeError, "rtol must be greater than or equal to zero")]),
    OpInfo("trace", _trace_ref, lambda d: [Sample((make((3, 3), d),), {}, "3x3"), Sample((make((2, 4), d),), {}, "2x4")],
           dtypes=NUMERIC, ref_dtype=_sum_dtype,
           errors=[ErrorCase((np.ones(3, np.float32),), {}, RuntimeError, "trace: expected a matrix")]),
    OpInfo("diff", _diff_ref, _diff_samples, dtypes=NUMERIC + ("bool",) if False else ALL_DTYPES,
           skip={"uint8": "NumPy's unsigned diff wraps the same way; covered by int dtypes"},
           errors=[ErrorCase((M, -1), {}, RuntimeError, "order must be non-negative but got -1"),
                   ErrorCase((np.ones((), np.float32),), {}, RuntimeError, "at least one-dimensional")]),
    OpInfo("kron", lambda a, b: np.kron(a, b), lambda d: [Sample((make((2, 3), d), make((3, 2), d, seed=1)), {}, "2-d"),
                                                        Sample((make((2,), d), make((2, 2), d, seed=1)), {}, "1-d x 2-d")],
           dtypes=NUMERIC, errors=[ErrorCase(("x", M), {}, TypeError, "must be Tensor, not str")]),
    OpInfo("tensordot", _cast_ref(lambda a, b, dims=2: np.tensordot(a, b, axes=dims)),
           lambda d: [Sample((make((3, 4, 5), d), make((4, 5, 2), d, seed=1)), {}, "dims=2"),
                      Sample((make((3, 4), d), make((4, 3), d, seed=1)), {"dims": ([0, 1], [1, 0])}, "pair")],
           dtypes=FL, method=False, meta=True,
           errors=[ErrorCase((M, M), {"dims": 1}, RuntimeError, "contracted dimensions need to match")]),
    OpInfo("inner", _cast_ref(np.inner), lambda d: [Sample((make((2, 3), d), make((4, 3), d, seed=1)), {}, "2-d"),
                                                    Sample((make((3,), d), make((), d, seed=1)), {}, "0-dim")],
           dtypes=FL, errors=[ErrorCase((M, np.ones((2, 2), np.float32)), {}, RuntimeError,
                                         "inner\\(\\) the last dimension must match")]),
    OpInfo("vdot", _cast_ref(np.vdot), lambda d: [Sample((make((5,), d), make((5,), d, seed=1)), {}, "1-d")],
           dtypes=FL, errors=[ErrorCase((M, M), {}, RuntimeError, "1D tensors expected")]),
    OpInfo("addmv", _cast_ref(_add_ref("mv")),
           lambda d: [Sample((make((2,), d), make((2, 3), d, seed=1), make((3,), d, seed=2)), {}, "defaults"),
                      Sample((make((2,), d), make((2, 3), d, seed=1), make((3,), d, seed=2)),
                             {"beta": 0.5, "alpha": 2.0}, "beta alpha")],
           dtypes=FL, errors=[ErrorCase((np.ones(2, np.float32), M, M), {}, RuntimeError, "vector \\+ matrix @ vector")]),
    OpInfo("addr", _cast_ref(_add_ref("r")),
           lambda d: [Sample((make((2, 3), d), make((2,), d, seed=1), make((3,), d, seed=2)), {"beta": 0}, "beta=0")],
           dtypes=FL, errors=[ErrorCase((M, M, M), {}, RuntimeError, "addr: Expected 1-D arguments")]),
    OpInfo("baddbmm", _cast_ref(_add_ref("bmm")),
           lambda d: [Sample((make((2, 2, 4), d), make((2, 2, 3), d, seed=1), make((2, 3, 4), d, seed=2)),
                             {"alpha": 0.5}, "alpha")],
           dtypes=FL, errors=[ErrorCase((M, M, M), {}, RuntimeError, "batch1 must be a 3D tensor")]),
    OpInfo("addbmm", _cast_ref(_add_ref("addbmm")),
           lambda d: [Sample((make((2, 4), d), make((3, 2, 3), d, seed=1), make((3, 3, 4), d, seed=2)), {}, "3 batches")],
           dtypes=FL, errors=[ErrorCase((M, M, M), {}, RuntimeError, "batch1 must be a 3D tensor")]),
    OpInfo("nansum", _nansum_ref, _nan_samples, dtypes=FL,
           errors=[ErrorCase((M, 3), {}, IndexError, "Dimension out of range")]),
    OpInfo("nanmean", _nanmean_ref, _nan_samples, dtypes=FL,
           errors=[ErrorCase((np.ones(3, np.int64),), {}, RuntimeError,
                             "nanmean\\(\\): expected input to have floating point dtype")]),
    OpInfo("count_nonzero", _cnt, lambda d: [Sample((make((3, 4), d),), {}, "all"), Sample((make((3, 4), d), 1), {}, "dim")],
           dtypes=ALL_DTYPES, ref_dtype=lambda d: "int64", grad=False,
           errors=[ErrorCase((M, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("var_mean", _varmean_ref("var"), _varmean_samples, dtypes=FL, method=False,
           errors=[ErrorCase((M, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("std_mean", _varmean_ref("std"), _varmean_samples, dtypes=FL, method=False,
           errors=[ErrorCase((M, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("aminmax", _aminmax_ref, lambda d: [Sample((make((3, 4), d),), {}, "all"),
                                               Sample((make((3, 4), d),), {"dim": 1, "keepdim": True}, "dim keepdim")],
           dtypes=NUMERIC, grad=False,
           errors=[ErrorCase((np.ones((0,), np.float32),), {}, RuntimeError, "cannot compute aminmax over an empty")]),
    OpInfo("cov", _cast_ref(lambda x, correction=1: np.cov(x, ddof=correction)),
           lambda d: [Sample((make((3, 6), d),), {}, "3 vars"), Sample((make((3, 6), d, seed=1),), {"correction": 0}, "ddof 0"),
                      Sample((make((7,), d, seed=2),), {}, "1-d")],
           dtypes=FL, errors=[ErrorCase((np.ones((2, 2, 2), np.float32),), {}, RuntimeError,
                                         "cov\\(\\): expected input to have two or fewer dimensions")]),
    OpInfo("corrcoef", _cast_ref(np.corrcoef), lambda d: [Sample((make((3, 6), d),), {}, "3 vars")], dtypes=FL,
           errors=[ErrorCase((np.ones((2, 2, 2), np.float32),), {}, RuntimeError, "two or fewer dimensions")]),
    OpInfo("dist", _cast_ref(lambda a, b, p=2: np.linalg.norm((a - b).ravel(), ord=p)),
           lambda d: [Sample((make((3, 4), d), make((4,), d, seed=1)), {}, "p=2 broadcast"),
                      Sample((make((3, 4), d), make((3, 4), d, seed=1), 1), {}, "p=1")],
           dtypes=FL, errors=[ErrorCase((M, np.ones((4,), np.float32)), {}, RuntimeError, "must match the size")]),
]
