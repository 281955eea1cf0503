"""quantile, nanquantile, logcumsumexp, histogram, histogramdd and gradient
against NumPy (np.quantile, np.nanquantile, np.logaddexp.accumulate,
np.histogram, np.histogramdd, np.gradient)."""
import numpy as np

from .core import FLOATING, NP_DTYPE, ErrorCase, OpInfo, Sample, make

F32 = np.ones((2, 3), np.float32)
GRADIENT_DTYPES = ("int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")


def _f64(x):
    return np.asarray(x, np.float64)


# ---------------------------------------------------------------- quantile

def _quantile_ref(nan):
    def ref(x, q, dim=None, keepdim=False, *, interpolation="linear"):
        f = np.nanquantile if nan else np.quantile
        qq = _f64(q)
        r = f(_f64(x), qq, axis=dim, keepdims=keepdim, method=interpolation)
        if keepdim and dim is None and np.ndim(r) > 0 and x.ndim == 0:
            r = r.reshape(np.shape(qq))
        return np.asarray(r).astype(x.dtype)
    return ref


def _q(values, d):
    # Dyadic q values: the same number in every dtype, bfloat16 included.
    return np.array(values, NP_DTYPE[d])


def _quantile_samples(nan):
    def samples(d):
        # Rows of 6 (5 with a NaN): q * 5 and q * 4 are never integers for
        # these q, so every rank lies strictly between two samples, where the
        # result is differentiable in q (gradcheck perturbs q too).
        x = make((4, 6), d)
        y = make((3, 6, 2), d, seed=1)
        if nan:
            x[1, 2] = np.nan
            y[0, 1, 1] = np.nan
            if d != "float64":
                x[3, :] = np.nan  # an all-NaN row gives NaN (no derivative to check there)
        out = [Sample((x, 0.5), {}, "scalar q, all dims"),
               Sample((x, _q([0.3125, 0.5625, 0.875], d), 1), {}, "q tensor, dim 1"),
               Sample((x, _q(0.6875, d), -1, True), {}, "0-dim q tensor, keepdim"),
               Sample((y, _q([0.125, 0.625], d), 1), {"keepdim": True}, "3-d, dim 1, keepdim"),
               Sample((y, 0.375), {"keepdim": True}, "all dims, keepdim")]
        for mode in ("lower", "higher", "midpoint", "nearest"):
            out.append(Sample((x, _q([0.3125, 0.5625], d), 1), {"interpolation": mode}, mode))
        if d != "float64":  # exact ranks and the ends (not differentiable in q there)
            out.append(Sample((make((5, 3), d, seed=3), _q([0.0, 0.5, 1.0], d), 0), {}, "ends, integer ranks"))
        return out
    return samples


def _quantile_errors(op):
    return [ErrorCase((F32, 1.5), {}, RuntimeError, r"q must be in the range \[0, 1\]"),
            ErrorCase((F32, np.array([0.5, 1.5], np.float32)), {}, RuntimeError, r"q values must be in the range"),
            ErrorCase((F32, np.array(0.5, np.float64)), {}, RuntimeError, "q tensor must be same dtype"),
            ErrorCase((np.ones(3, np.int64), 0.5), {}, RuntimeError, "input tensor must be a floating point"),
            ErrorCase((F32, np.ones((2, 2), np.float32) / 2), {}, RuntimeError, "q must be a scalar or 1D"),
            ErrorCase((np.ones((0,), np.float32), 0.5), {}, RuntimeError, "input tensor must be non-empty"),
            ErrorCase((F32, 0.5), {"interpolation": "cubic"}, RuntimeError, "interpolation must be one of"),
            ErrorCase((F32, 0.5, 2), {}, IndexError, "Dimension out of range")]


# ---------------------------------------------------------------- logcumsumexp

def _lcse_ref(x, dim):
    x64 = _f64(x)
    if x64.ndim == 0:
        return x.copy()
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(x64, axis=dim).astype(x.dtype)


def _lcse_samples(d):
    big = make((3, 7), d, -40, 40, seed=4)  # exp() of these overflows float16: the scan must not
    out = [Sample((make((3, 6), d), 1), {}, "dim 1"), Sample((make((5, 4), d, seed=1), 0), {}, "dim 0"),
           Sample((make((2, 5, 3), d, seed=2), -2), {}, "strided dim"), Sample((make((), d, seed=3), 0), {}, "0-dim"),
           Sample((big, 1), {}, "wide range")]
    if d != "float64":
        z = make((3, 5), d, seed=5)
        z[0, :2] = -np.inf  # a -inf prefix stays -inf
        z[1, 2] = np.inf    # +inf sticks
        z[2, 1] = np.nan    # NaN poisons the rest of the line
        out.append(Sample((z, 1), {}, "infinities and NaN"))
    return out


# ---------------------------------------------------------------- histogram

def _hist_ref(x, bins=100, *, range=None, weight=None, density=False):
    x64 = _f64(x).reshape(-1)
    w = None if weight is None else _f64(weight).reshape(-1)
    if isinstance(bins, np.ndarray):
        edges = _f64(bins)
    else:
        lo, hi = (float(range[0]), float(range[1])) if range is not None else \
            ((float(x64.min()), float(x64.max())) if x64.size else (0.0, 1.0))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        # The edges are rounded to the dtype; values are binned against those edges.
        edges = np.linspace(lo, hi, bins + 1).astype(x.dtype).astype(np.float64)
    h, e = np.histogram(x64, bins=edges, weights=w, density=density)
    return h.astype(x.dtype), e.astype(x.dtype)


def _hist_samples(d):
    x = make((6, 9), d)
    out = [Sample((x, 8), {"range": (-4.0, 4.0)}, "int bins, exact edges"),
           Sample((x, np.array([-4, -1.5, 0, 0.5, 3, 4.5], NP_DTYPE[d])), {}, "edge tensor"),
           Sample((x, np.array([-6, -2, 0, 2, 6], NP_DTYPE[d])), {"density": True}, "edge tensor, density"),
           Sample((x, 4), {"range": (-4.0, 4.0), "density": True}, "density"),
           Sample((np.array([0, 1, 2, 2, 3, 4], NP_DTYPE[d]), 4), {}, "values on edges, last bin closed")]
    if d in ("float32", "float64"):
        out.append(Sample((make((50,), d, seed=2), 7), {}, "data range"))
    return out


def _hdd_ref(x, bins=10, *, range=None, weight=None, density=False):
    n = x.shape[-1]
    pts = _f64(x).reshape(-1, n)
    w = None if weight is None else _f64(weight).reshape(-1)
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], np.ndarray):
        edges = [_f64(b) for b in bins]
    else:
        counts = [bins] * n if isinstance(bins, int) else list(bins)
        edges = []
        for k in np.arange(n):
            lo, hi = (range[2 * k], range[2 * k + 1]) if range is not None else (pts[:, k].min(), pts[:, k].max())
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            edges.append(np.linspace(lo, hi, counts[k] + 1).astype(x.dtype).astype(np.float64))
    h, e = np.histogramdd(pts, bins=edges, weights=w, density=density)
    return h.astype(x.dtype), tuple(a.astype(x.dtype) for a in e)


def _hdd_samples(d):
    pts = make((40, 2), d)
    p3 = make((4, 5, 3), d, seed=1)
    return [Sample((pts, [4, 2]), {"range": [-4.0, 4.0, -5.0, 5.0]}, "int bins per dim, range"),
            Sample((p3, 2), {"range": [-4.0, 4.0] * 3}, "3-d points, one int"),
            Sample((pts, [np.array([-5, 0, 5], NP_DTYPE[d]), np.array([-4, -1, 1, 4], NP_DTYPE[d])]), {},
                   "edge tensors"),
            Sample((pts, [2, 2]), {"range": [-4.0, 4.0, -4.0, 4.0], "density": True}, "density")]


# ---------------------------------------------------------------- gradient

def _grad_ref(x, *, spacing=1, dim=None, edge_order=1):
    x64 = _f64(x)
    axes = tuple(range(x64.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if isinstance(spacing, (list, tuple)):
        sp = [_f64(s) if isinstance(s, np.ndarray) else s for s in spacing]
    else:
        sp = [spacing] * len(axes)
    r = np.gradient(x64, *sp, axis=axes, edge_order=edge_order)
    r = r if isinstance(r, (list, tuple)) else [r]
    out_dt = x.dtype if x.dtype.kind == "f" else np.float32
    return tuple(np.asarray(a).astype(out_dt) for a in r)


def _grad_samples(d):
    x = make((5, 6), d)
    out = [Sample((x,), {}, "unit spacing, all dims"),
           Sample((x,), {"spacing": 2.0, "dim": 1}, "scalar spacing, one dim"),
           Sample((x,), {"spacing": [0.5, 2.0], "edge_order": 2}, "spacing per dim, edge_order 2"),
           Sample((make((7,), d, seed=1),), {"edge_order": 2}, "1-d, edge_order 2")]
    # Coordinate tensors (a keyword list of tensors) and weight= are checked in tests/test_statistics.py.
    return out


_grad_tol = {"float16": (1e-2, 5e-2), "bfloat16": (2e-2, 2e-1)}

OPS = [
    OpInfo("quantile", _quantile_ref(False), _quantile_samples(False), dtypes=FLOATING, out=True,
           tol={"float16": (1e-2, 2e-2), "bfloat16": (2e-2, 1e-1)}, errors=_quantile_errors("quantile")),
    OpInfo("nanquantile", _quantile_ref(True), _quantile_samples(True), dtypes=FLOATING, out=True,
           tol={"float16": (1e-2, 2e-2), "bfloat16": (2e-2, 1e-1)}, errors=_quantile_errors("nanquantile")),
    OpInfo("logcumsumexp", _lcse_ref, _lcse_samples, dtypes=FLOATING, out=True,
           tol={"float16": (2e-3, 2e-2), "bfloat16": (1e-2, 1e-1)},
           errors=[ErrorCase((np.ones(3, np.int64), 0), {}, NotImplementedError, "not implemented for 'Long'"),
                   ErrorCase((F32, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("histogram", _hist_ref, _hist_samples, dtypes=FLOATING, grad=False,
           tol={"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)},
           errors=[ErrorCase((F32, np.ones((2, 2), np.float32)), {}, RuntimeError, "bins tensor should have one dim"),
                   ErrorCase((F32, np.array([0, 1], np.float64)), {}, RuntimeError, "should have the same dtype"),
                   ErrorCase((F32, 0), {}, RuntimeError, "bins must be > 0"),
                   ErrorCase((F32, 3), {"range": (1.0, 0.0)}, RuntimeError, "min should not exceed max"),
                   ErrorCase((np.array([1.0, np.nan], np.float32), 3), {}, RuntimeError, "is not finite"),
                   ErrorCase((np.ones(3, np.int64), 3), {}, NotImplementedError, "not implemented for 'Long'")]),
    OpInfo("histogramdd", _hdd_ref, _hdd_samples, dtypes=FLOATING, grad=False, method=False,
           tol={"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)},
           errors=[ErrorCase((np.ones(3, np.float32), 2), {}, RuntimeError, "at least 2 dimensions"),
                   ErrorCase((F32, [2, 2]), {}, RuntimeError, "size of bins must be equal to the innermost"),
                   ErrorCase((F32, 2), {"range": [0.0, 1.0]}, RuntimeError, "range should have 6 elements"),
                   ErrorCase((F32, [np.array([0, 1], np.float32)] * 2), {}, RuntimeError,
                             "expected 3 sequences of bin edges")]),
    OpInfo("gradient", _grad_ref, _grad_samples, dtypes=GRADIENT_DTYPES, method=False, tol=_grad_tol,
           ref_dtype=lambda d: d if d in FLOATING else "float32",
           errors=[ErrorCase((F32,), {"edge_order": 3}, RuntimeError, "only supports edge_order=1 and edge_order=2"),
                   ErrorCase((np.ones((2, 1), np.float32),), {}, RuntimeError, "at least edge_order\\+1"),
                   ErrorCase((F32,), {"spacing": [1.0]}, RuntimeError, "list of length equal to 'self.dim\\(\\) = 2'"),
                   ErrorCase((F32,), {"spacing": [1.0, 2.0], "dim": 0}, RuntimeError, "have the same length"),
                   ErrorCase((np.ones((3, 3), np.uint8),), {}, RuntimeError, "does not support uint8"),
                   ErrorCase((F32,), {"dim": 2}, IndexError, "Dimension out of range")]),
]
