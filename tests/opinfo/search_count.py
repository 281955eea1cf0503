"""searchsorted, bucketize, isin, bincount, histc, cummax/cummin against NumPy."""
import numpy as np

from .core import ALL_DTYPES, FLOATING, INTEGRAL, NUMERIC, ErrorCase, OpInfo, Sample, make

M = np.ones((2, 3), np.float32)


def _ss_ref(seq, v, out_int32=False, right=False, side=None, sorter=None):
    side = side or ("right" if right else "left")
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter, -1)
    if seq.ndim == 1:
        r = np.searchsorted(seq, v, side=side)
    else:
        r = np.stack([np.searchsorted(s, x, side=side) for s, x in zip(seq.reshape(-1, seq.shape[-1]),
                                                                         v.reshape(-1, v.shape[-1]))]).reshape(v.shape)
    return np.asarray(r).astype(np.int32 if out_int32 else np.int64)


def _ss_samples(d):
    seq = np.sort(make((7,), d), kind="stable")
    seq2 = np.sort(make((3, 6), d, seed=1), axis=-1, kind="stable")
    perm = make((6,), d, seed=2)
    return [Sample((seq, make((4, 5), d, seed=3)), {}, "1-d left"),
            Sample((seq, make((4, 5), d, seed=3)), {"right": True}, "1-d right"),
            Sample((seq2, make((3, 4), d, seed=4)), {"side": "right"}, "batched"),
            ]  # sorter= (a keyword tensor) is covered in tests/test_search_count.py


def _bucketize_ref(x, b, out_int32=False, right=False):
    # bucketize(right=False) is searchsorted's left side, as PyTorch documents.
    return _ss_ref(b, x, out_int32, right)


def _isin_ref(a, b, assume_unique=False, invert=False):
    return np.isin(a, b, invert=invert)


def _bincount_ref(x, weights=None, minlength=0):
    r = np.bincount(x.astype(np.int64), weights=None if weights is None else weights.astype(np.float64),
                    minlength=minlength)
    if weights is None:
        return r.astype(np.int64)
    return r.astype(np.float32 if weights.dtype == np.float32 else np.float64)


def _histc_ref(x, bins=100, min=0, max=0):
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(x.astype(np.float64), bins=bins, range=(lo, hi))[0].astype(x.dtype)


def _cum_ref(op):
    def ref(x, dim):
        x = np.asarray(x)
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        xm = np.moveaxis(x, dim, -1)
        vals, idx = np.empty_like(xm), np.empty(xm.shape, np.int64)
        for r in np.ndindex(xm.shape[:-1]):
            best, bi = None, 0
            for j, v in enumerate(xm[r]):
                vf = float(v)
                if best is None or (not np.isnan(best) and (np.isnan(vf) or (vf >= best if op == "max" else vf <= best))):
                    best, bi = vf, j
                vals[r + (j,)] = xm[r + (bi,)]
                idx[r + (j,)] = bi
        return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
    return ref


def _cum_samples(d):
    x = make((3, 6), d)
    out = [Sample((x, 1), {}, "dim 1"), Sample((make((5, 4), d, seed=1), 0), {}, "dim 0"),
           Sample((make((), d, seed=2), 0), {}, "0-dim")]
    if d == "float32":
        y = make((2, 5), d, seed=3)
        y[0, 2] = np.nan
        out.append(Sample((y, 1), {}, "NaN"))
    return out


_I = np.array([0, 1, 1, 3], np.int64)
OPS = [
    OpInfo("searchsorted", _ss_ref, _ss_samples, dtypes=NUMERIC, method=False, grad=False,
           ref_dtype=lambda d: "int64",
           errors=[ErrorCase((np.ones(3, np.float32), np.ones(2, np.float32)), {"side": "left", "right": True},
                             RuntimeError, "side and right can't be set to opposites"),
                   ErrorCase((np.ones(3, np.float32), np.ones(2, np.float64)), {}, RuntimeError, "should have same dtype")]),
    OpInfo("searchsorted", _ss_ref, lambda d: [Sample((np.sort(make((7,), d)), make((5,), d, seed=5)), {"out_int32": True},
                                                      "int32")],
           dtypes=NUMERIC, method=False, grad=False, ref_dtype=lambda d: "int32",
           errors=[ErrorCase((np.ones(()), np.ones(2)), {}, RuntimeError, "should have positive dimension")]),
    OpInfo("bucketize", _bucketize_ref, lambda d: [Sample((make((4, 5), d), np.sort(make((6,), d, seed=1))), {}, "left"),
                                                  Sample((make((4, 5), d), np.sort(make((6,), d, seed=1))), {"right": True}, "right")],
           dtypes=NUMERIC, method=False, grad=False, ref_dtype=lambda d: "int64",
           errors=[ErrorCase((np.ones(3, np.float32), M), {}, RuntimeError, "boundaries tensor must be 1 dimension")]),
    OpInfo("isin", _isin_ref, lambda d: [Sample((make((4, 5), d), make((6,), d, seed=1)), {}, "in"),
                                         Sample((make((4, 5), d), make((2, 3), d, seed=2)), {"invert": True}, "invert")],
           dtypes=NUMERIC, method=False, grad=False, ref_dtype=lambda d: "bool",
           errors=[ErrorCase((np.ones(3, np.float32), np.ones(2, np.float64)), {}, RuntimeError, "same dtype")]),
    OpInfo("bincount", _bincount_ref,
           lambda d: [Sample((make((20,), d, 0, 9),), {}, "counts"),
                      Sample((make((20,), d, 0, 9),), {"minlength": 15}, "minlength"),
                      ],
           dtypes=INTEGRAL, grad=False, meta=False, meta_raises=True,
           ref_dtype=lambda d: "int64",
           errors=[ErrorCase((np.array([-1, 2], np.int64),), {}, RuntimeError, "1-d non-negative integral inputs"),
                   ErrorCase((np.ones((2, 2), np.int64),), {}, RuntimeError, "1-d non-negative integral inputs")]),
    OpInfo("bincount", _bincount_ref,
           lambda d: [Sample((make((6,), d, 0, 4, seed=1), make((6,), "float32", seed=2)), {}, "float32 weights")],
           dtypes=INTEGRAL, grad=False, meta=False, meta_raises=True, ref_dtype=lambda d: "float32",
           errors=[ErrorCase((np.ones(3, np.int64), np.ones(2, np.float32)), {}, RuntimeError, "same length")]),
    OpInfo("bincount", _bincount_ref,
           lambda d: [Sample((make((6,), d, 0, 4, seed=1), make((6,), "float64", seed=3)), {}, "float64 weights")],
           dtypes=INTEGRAL, grad=False, meta=False, meta_raises=True, ref_dtype=lambda d: "float64",
           errors=[ErrorCase((np.ones(3, np.int64),), {"minlength": -1}, RuntimeError, "minlength should be >= 0")]),
    OpInfo("histc", _histc_ref, lambda d: [Sample((make((50,), d),), {"bins": 7, "min": -3, "max": 3}, "range"),
                                           Sample((make((20,), d, seed=1),), {"bins": 5}, "data range")],
           dtypes=("float32", "float64"), grad=False,
           errors=[ErrorCase((np.ones(3, np.int64),), {}, RuntimeError, "must be a floating point tensor"),
                   ErrorCase((np.ones(3, np.float32),), {"bins": 0}, RuntimeError, "bins must be > 0")]),
    OpInfo("cummax", _cum_ref("max"), _cum_samples, dtypes=NUMERIC,
           errors=[ErrorCase((M, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("cummin", _cum_ref("min"), _cum_samples, dtypes=NUMERIC,
           errors=[ErrorCase((M, -3), {}, IndexError, "Dimension out of range")]),
]
