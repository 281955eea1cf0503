"""Reductions and scans, checked against NumPy (float64 references, cast to the
result dtype torchlike should produce)."""
import numpy as np

from .core import ALL_DTYPES, FLOATING, INTEGRAL, NUMERIC, ErrorCase, OpInfo, Sample, make

F64 = np.float64
F32 = np.ones(3, np.float32)
M32 = np.ones((2, 3), np.float32)
I64 = np.ones(3, np.int64)


def _dims(d):
    return None if d is None else (tuple(d) if isinstance(d, (list, tuple)) else (d,))


def _wrap(x):
    return np.asarray(x)


def _sum_dtype(dtype):
    return "int64" if dtype in INTEGRAL or dtype == "bool" else dtype


# Shapes and dim choices every dim-taking reduction is sampled with:
# full reduction, single dims (incl. negative), dim lists, keepdim, 0-dim, empty.
def dim_samples(dtype, full=True, lists=True, empty=True, **mk):
    out = []
    x = make((3, 4, 5), dtype, **mk)
    if full:
        out.append(Sample((x,), {}, "full"))
    out += [Sample((x, 0), {}, "dim0"), Sample((x, -1), {"keepdim": True}, "dim-1 keepdim"),
            Sample((x, 1), {}, "dim1")]
    if lists:
        out += [Sample((x, [0, 2]), {}, "dims[0,2]"), Sample((x, (-1, 0)), {"keepdim": True}, "dims(-1,0) keepdim")]
    out.append(Sample((make((), dtype, seed=3, **mk), 0), {}, "0-dim"))
    out.append(Sample((make((7, 1), dtype, seed=4, **mk), 0), {}, "7x1 dim0"))
    if empty:
        out.append(Sample((make((0, 4), dtype, **mk), 1), {}, "empty kept"))
    return out


def np_reduce(fn, cast=None):
    def ref(x, dim=None, keepdim=False, dtype=None):
        x = np.asarray(x)
        ax = _dims(dim)
        if x.ndim == 0:
            ax = None
        r = fn(x, ax, keepdim)
        return _wrap(r if cast is None else cast(r, x))
    return ref


def _sum(x, ax, kd):
    return np.sum(x.astype(F64) if x.dtype.kind == "f" else x.astype(np.int64), axis=ax, keepdims=kd)


def _prod(x, ax, kd):
    return np.prod(x.astype(F64) if x.dtype.kind == "f" else x.astype(np.int64), axis=ax, keepdims=kd)


def _mean(x, ax, kd):
    return np.mean(x.astype(F64), axis=ax, keepdims=kd)


def _amax(x, ax, kd):
    return np.max(x, axis=ax, keepdims=kd)


def _amin(x, ax, kd):
    return np.min(x, axis=ax, keepdims=kd)


def prod_samples(dtype):
    x = make((3, 4), dtype, -2, 2, seed=5)
    return [Sample((x,), {}, "full"), Sample((x, 0), {}, "dim0"), Sample((x, -1), {"keepdim": True}, "dim-1 kd"),
            Sample((make((), dtype, seed=1),), {}, "0-dim"), Sample((make((0, 3), dtype),), {}, "empty")]


def amax_samples(dtype):
    return [s for s in dim_samples(dtype) if s.desc != "empty kept"] + \
        [Sample((make((0, 4), dtype), 1), {}, "empty, reduce non-empty dim")]


def max_dim_ref(op):
    def ref(x, dim, keepdim=False):
        x = np.asarray(x)
        if x.ndim == 0:
            return x.copy(), np.array(0, np.int64)
        idx = (np.argmax if op == "max" else np.argmin)(x, axis=dim)
        val = (np.max if op == "max" else np.min)(x, axis=dim)
        if keepdim:
            idx, val = np.expand_dims(idx, dim), np.expand_dims(val, dim)
        return val, idx.astype(np.int64)
    return ref


def max_dim_samples(dtype):
    # distinct values so the index is unique (ties are tested in test_reductions.py)
    x = np.random.default_rng(7).permutation(60).reshape(3, 4, 5)
    if dtype == "bool":
        x = x % 2 == 0
    else:
        x = x.astype({"bfloat16": np.float32}.get(dtype, dtype))
    return [Sample((x, 0), {}, "dim0"), Sample((x, -1), {"keepdim": True}, "dim-1 kd"), Sample((x, 1), {}, "dim1"),
            Sample((np.asarray(x[0, 0, 0]), 0), {}, "0-dim")]


def argmax_ref(op):
    f = np.argmax if op == "argmax" else np.argmin

    def ref(x, dim=None, keepdim=False):
        x = np.asarray(x)
        if dim is None:
            r = np.asarray(f(x), np.int64)
            return r.reshape((1,) * x.ndim) if keepdim else r
        if x.ndim == 0:
            return np.array(0, np.int64)
        r = f(x, axis=dim).astype(np.int64)
        return np.expand_dims(r, dim) if keepdim else r
    return ref


def argmax_samples(dtype):
    x = np.random.default_rng(8).permutation(60).reshape(3, 4, 5).astype({"bfloat16": np.float32}.get(dtype, dtype))
    return [Sample((x,), {}, "flat"), Sample((x,), {"keepdim": True}, "flat keepdim"), Sample((x, 1), {}, "dim1"),
            Sample((x, -1), {"keepdim": True}, "dim-1 kd"), Sample((np.asarray(x[0, 0, 0]),), {}, "0-dim")]


def var_ref(sq):
    def ref(x, dim=None, unbiased=None, keepdim=False, correction=None):
        x = np.asarray(x).astype(F64)
        c = 1 if correction is None and unbiased is None else (correction if correction is not None else int(unbiased))
        ax = None if x.ndim == 0 else _dims(dim)
        n = x.size if ax is None else int(np.prod([x.shape[a] for a in ax]))
        with np.errstate(all="ignore"):
            v = np.sum((x - np.mean(x, axis=ax, keepdims=True)) ** 2, axis=ax, keepdims=keepdim) / max(n - c, 0)
        return np.sqrt(v) if sq else v
    return ref


def var_samples(dtype):
    x = make((3, 4, 5), dtype)
    return [Sample((x,), {}, "full"), Sample((x, 1), {}, "dim1"), Sample((x, [0, -1]), {"keepdim": True}, "dims kd"),
            Sample((x, 0, False), {}, "dim0 unbiased=False"), Sample((x,), {"dim": 2, "correction": 0}, "correction=0"),
            Sample((x,), {"dim": 2, "correction": 2}, "correction=2"),
            Sample((make((0, 3), dtype), 1), {}, "empty kept")]


def norm_ref(x, p=2, dim=None, keepdim=False, dtype=None):
    x = np.asarray(x).astype(F64)
    ax = None if x.ndim == 0 else _dims(dim)
    a = np.abs(x)
    if p == "fro" or p == 2:
        r = np.sqrt(np.sum(a * a, axis=ax, keepdims=keepdim))
    elif p == np.inf:
        r = np.max(a, axis=ax, keepdims=keepdim)
    elif p == -np.inf:
        r = np.min(a, axis=ax, keepdims=keepdim)
    elif p == 0:
        r = np.sum(a != 0, axis=ax, keepdims=keepdim).astype(F64)
    else:
        r = np.sum(a ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(r)


def norm_samples(dtype):
    x = make((3, 4), dtype)
    return [Sample((x,), {}, "default"), Sample((x, 1), {}, "p=1"), Sample((x, 3), {"dim": 1}, "p=3 dim1"),
            Sample((x, float("inf")), {"dim": 0, "keepdim": True}, "inf"), Sample((x, float("-inf")), {}, "-inf"),
            Sample((x, 0), {}, "p=0"), Sample((x, "fro"), {"dim": (0, 1)}, "fro"),
            Sample((x,), {"dim": [-1]}, "dim list")]


def anyall_ref(op):
    f = np.any if op == "any" else np.all

    def ref(x, dim=None, keepdim=False):
        x = np.asarray(x)
        ax = None if x.ndim == 0 else _dims(dim)
        r = np.asarray(f(x != 0, axis=ax, keepdims=keepdim))
        return r.astype(np.uint8) if x.dtype == np.uint8 else r
    return ref


def anyall_samples(dtype):
    x = make((3, 4, 5), dtype, 0, 1)
    z = np.zeros((2, 3), NP(dtype))
    return [Sample((x,), {}, "full"), Sample((x, 1), {}, "dim1"), Sample((x, (0, 2)), {"keepdim": True}, "dims kd"),
            Sample((z, 0), {}, "zeros"), Sample((make((0, 3), dtype), 1), {}, "empty kept"),
            Sample((make((0, 3), dtype), 0), {}, "empty reduced")]


def NP(dtype):
    from .core import NP_DTYPE
    return NP_DTYPE[dtype]


def scan_ref(op):
    f = np.cumsum if op == "cumsum" else np.cumprod

    def ref(x, dim, dtype=None):
        x = np.asarray(x)
        acc = F64 if x.dtype.kind == "f" else np.int64
        if x.ndim == 0:
            return x.astype(acc)
        return f(x.astype(acc), axis=dim)
    return ref


def scan_samples(dtype):
    lo, hi = (-2, 2)
    return [Sample((make((3, 4), dtype, lo, hi), 1), {}, "dim1"), Sample((make((3, 4), dtype, lo, hi), 0), {}, "dim0"),
            Sample((make((2, 3, 4), dtype, lo, hi), -2), {}, "dim-2 3-d"),
            Sample((make((), dtype, seed=2), 0), {}, "0-dim"), Sample((make((0, 3), dtype), 1), {}, "empty")]


def lse_ref(x, dim, keepdim=False):
    x = np.asarray(x).astype(F64)
    ax = None if x.ndim == 0 else _dims(dim)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=ax, keepdims=True) if x.size else np.zeros([1] * x.ndim)
        m = np.where(np.isfinite(m), m, 0)
        r = np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True)) + m
    return r if keepdim or ax is None and x.ndim == 0 else np.squeeze(r, axis=ax)


def lse_samples(dtype):
    x = make((3, 4, 5), dtype, -20, 20)
    return [Sample((x, 1), {}, "dim1"), Sample((x, [0, 2]), {"keepdim": True}, "dims kd"),
            Sample((make((3,), dtype) * 0 + 90 if dtype in ("float32", "float64") else make((3,), dtype), 0), {},
                   "large values"),
            Sample((make((), dtype), 0), {}, "0-dim"), Sample((make((2, 0), dtype), 1), {}, "empty reduced")]


def _float_result(dtype):
    return dtype if dtype in FLOATING else "float32"


def dims_errors(name, extra=()):
    return [ErrorCase((M32, 2), {}, IndexError, "Dimension out of range"),
            ErrorCase((M32, -3), {}, IndexError, "Dimension out of range")] + list(extra)


OPS = [
    # full reductions have no out= overload (like PyTorch): separate entries
    OpInfo("sum", np_reduce(_sum), lambda d: dim_samples(d)[:1], dtypes=ALL_DTYPES, ref_dtype=_sum_dtype),
    OpInfo("mean", np_reduce(_mean), lambda d: dim_samples(d)[:1], dtypes=FLOATING),
    OpInfo("sum", np_reduce(_sum), lambda d: dim_samples(d, full=False), dtypes=ALL_DTYPES, ref_dtype=_sum_dtype,
           out=True,
           errors=dims_errors("sum", [ErrorCase((M32, [0, 0]), {}, RuntimeError, "dim 0 appears multiple times")])),
    OpInfo("sum", lambda x, dtype: np.sum(np.asarray(x).astype(F64)),
           lambda d: [Sample((make((3, 4), d),), {"dtype": __import__("torchlike").float64}, "dtype=float64")],
           dtypes=NUMERIC, ref_dtype=lambda d: "float64", method=True, meta=True),
    OpInfo("mean", np_reduce(_mean), lambda d: dim_samples(d, full=False), dtypes=FLOATING, out=True,
           errors=dims_errors("mean", [ErrorCase((I64,), {}, RuntimeError,
                                                 r"mean\(\): could not infer output dtype. Input dtype must be either "
                                                 r"a floating point or complex dtype. Got: Long")])),
    OpInfo("prod", np_reduce(_prod), prod_samples, dtypes=ALL_DTYPES, ref_dtype=_sum_dtype, out=False,
           errors=[ErrorCase((M32, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("amax", np_reduce(_amax), amax_samples, dtypes=ALL_DTYPES, out=True, tol={"float16": (0, 0)},
           errors=dims_errors("amax", [ErrorCase((np.ones((0, 3), np.float32), 0), {}, IndexError,
                                                 r"amax\(\): Expected reduction dim 0 to have non-zero size")])),
    OpInfo("amin", np_reduce(_amin), amax_samples, dtypes=ALL_DTYPES, out=True,
           errors=dims_errors("amin")),
    OpInfo("max", lambda x: np.max(np.asarray(x)), lambda d: [Sample((make((3, 4), d),), {}, "full"),
                                                             Sample((make((), d),), {}, "0-dim")],
           dtypes=ALL_DTYPES,
           errors=[ErrorCase((np.ones((0,), np.float32),), {}, RuntimeError,
                             r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0")]),
    OpInfo("min", lambda x: np.min(np.asarray(x)), lambda d: [Sample((make((3, 4), d),), {}, "full")],
           dtypes=ALL_DTYPES),
    OpInfo("max", max_dim_ref("max"), max_dim_samples, dtypes=ALL_DTYPES,
           errors=[ErrorCase((M32, 2), {}, IndexError, "Dimension out of range"),
                   ErrorCase((np.ones((0, 3), np.float32), 0), {}, IndexError,
                             r"max\(\): Expected reduction dim 0 to have non-zero size")]),
    OpInfo("min", max_dim_ref("min"), max_dim_samples, dtypes=ALL_DTYPES,
           errors=[ErrorCase((M32, -3), {}, IndexError, "Dimension out of range")]),
    # grad=False for argmax/argmin/any/all: integer and bool results are not differentiable.
    OpInfo("argmax", argmax_ref("argmax"), argmax_samples, dtypes=NUMERIC, ref_dtype=lambda d: "int64", out=True,
           grad=False,
           errors=[ErrorCase((M32, 2), {}, IndexError, "Dimension out of range"),
                   ErrorCase((np.ones((0, 3), np.float32),), {}, IndexError,
                             r"argmax\(\): Expected reduction dim to be specified for input.numel\(\) == 0"),
                   ErrorCase((np.ones(3, np.bool_),), {}, RuntimeError, "does not support bool")]),
    OpInfo("argmin", argmax_ref("argmin"), argmax_samples, dtypes=NUMERIC, ref_dtype=lambda d: "int64", out=True,
           grad=False),
    OpInfo("var", var_ref(False), var_samples, dtypes=FLOATING, out=False,
           errors=[ErrorCase((I64,), {}, RuntimeError, "std and var only support floating point"),
                   ErrorCase((M32, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("std", var_ref(True), var_samples, dtypes=FLOATING,
           errors=[ErrorCase((np.ones(3, np.int32), 0), {}, RuntimeError, "std and var only support floating point")]),
    OpInfo("norm", norm_ref, norm_samples, dtypes=FLOATING,
           errors=[ErrorCase((I64,), {}, RuntimeError, "Expected a floating point or complex tensor as input"),
                   ErrorCase((M32, 2, 5), {}, IndexError, "Dimension out of range"),
                   ErrorCase((np.ones((2, 0), np.float32), float("inf"), 1), {}, RuntimeError,
                             "cannot compute the inf norm")]),
    OpInfo("any", anyall_ref("any"), anyall_samples, dtypes=ALL_DTYPES, out=False, grad=False,
           ref_dtype=lambda d: "uint8" if d == "uint8" else "bool",
           errors=[ErrorCase((M32, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("all", anyall_ref("all"), anyall_samples, dtypes=ALL_DTYPES, grad=False,
           ref_dtype=lambda d: "uint8" if d == "uint8" else "bool"),
    OpInfo("cumsum", scan_ref("cumsum"), scan_samples, dtypes=ALL_DTYPES, ref_dtype=_sum_dtype, out=True,
           errors=[ErrorCase((M32, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("cumprod", scan_ref("cumprod"), scan_samples, dtypes=ALL_DTYPES, ref_dtype=_sum_dtype, out=True),
    OpInfo("logsumexp", lse_ref, lse_samples, dtypes=ALL_DTYPES, ref_dtype=_float_result, out=True,
           tol={"float16": (2e-3, 2e-2)},
           errors=[ErrorCase((M32, 2), {}, IndexError, "Dimension out of range")]),
]


# ---- one bad call for every op above that has none: a dim out of range.
for _op in OPS:
    if not _op.errors and _op.name in ("argmin", "all", "cumprod"):
        _op.errors = [ErrorCase((np.ones((2, 3), np.float32),), {"dim": 5}, IndexError,
                                r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)")]
