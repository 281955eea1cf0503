"""Sorting and selection (sort, argsort, msort, topk, kthvalue, median,
nanmedian), checked against NumPy's stable argsort: ties resolve to the lower
index, NaN sorts last ascending and first descending, as in PyTorch."""
import numpy as np

from .core import ALL_DTYPES, NUMERIC, ErrorCase, OpInfo, Sample, make

M32 = np.arange(6, dtype=np.float32).reshape(2, 3)


def _order_key(x):
    """float64 keys ordering x as torchlike does (NaN last)."""
    k = np.asarray(x).astype(np.float64)
    return np.where(np.isnan(k), np.inf, k), np.isnan(k)


def _stable_argsort(x, axis, descending):
    k, nan = _order_key(x)
    if descending:
        # NaN first, then values from largest; equal values keep their order.
        k = np.where(nan, -np.inf, -k)
    else:
        # +inf must stay before NaN: rank NaN after every finite and infinite value.
        k = np.where(nan, np.nextafter(np.inf, 0) * 0 + np.inf, k)
        order = np.argsort(k, axis=axis, kind="stable")
        # NaN and +inf share the key inf above: put NaN after +inf, stably.
        nan_sorted = np.take_along_axis(nan, order, axis)
        return np.take_along_axis(order, np.argsort(nan_sorted, axis=axis, kind="stable"), axis)
    order = np.argsort(k, axis=axis, kind="stable")
    kk = np.take_along_axis(np.where(nan, -np.inf, -np.asarray(x, np.float64)), order, axis)
    isinf_neg = np.take_along_axis(~nan & np.isinf(np.asarray(x, np.float64)) & (np.asarray(x, np.float64) > 0),
                                   order, axis)
    del kk, isinf_neg
    return order


def sort_ref(x, dim=-1, descending=False, stable=None):
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = _stable_argsort(x, dim, descending)
    return np.take_along_axis(x, idx, dim), idx.astype(np.int64)


def _spread(n, dtype, seed):
    """n values at least 0.01 apart in float64 (random uniform values of a few
    thousand fall within gradcheck's eps of each other), as make() otherwise."""
    if dtype != "float64":
        return make((n,), dtype, seed=seed)
    return np.random.default_rng(seed).permutation(n).astype(np.float64) * 0.01 - n * 0.005


def _sort_samples(dtype):
    return [Sample((make((3, 7), dtype),), {}, "3x7"),
            Sample((make((3, 7), dtype, seed=1), 0), {}, "dim 0"),
            Sample((make((4, 5), dtype, seed=2),), {"descending": True}, "descending"),
            Sample((make((2, 3, 90), dtype, seed=3), 1), {"descending": True}, "3-d dim 1"),
            Sample((_spread(3000, dtype, 4),), {}, "radix path"),
            Sample((_spread(3000, dtype, 5),), {"descending": True}, "radix path descending"),
            Sample((make((), dtype, seed=6),), {}, "0-dim"),
            Sample((make((0, 4), dtype),), {}, "empty")]


def _stable_samples(dtype):
    return [Sample((make((3, 7), dtype),), {"stable": True}, "stable"),
            Sample((make((3, 7), dtype, seed=1),), {"stable": True, "dim": 0, "descending": True}, "stable desc")]


def topk_ref(x, k, dim=-1, largest=True, sorted=True):
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = _stable_argsort(x, dim, largest)
    idx = np.take(idx, np.arange(k), axis=dim)
    return np.take_along_axis(x, idx, dim), idx.astype(np.int64)


def _topk_samples(dtype):
    return [Sample((make((3, 9), dtype), 3), {}, "k=3"),
            Sample((make((3, 9), dtype, seed=1), 2), {"largest": False}, "smallest"),
            Sample((make((5, 4), dtype, seed=2), 2, 0), {}, "dim 0"),
            Sample((make((4, 6), dtype, seed=3), 0), {}, "k=0"),
            Sample((make((4, 6), dtype, seed=4), 6), {}, "k=n"),
            Sample((make((), dtype, seed=5), 1), {}, "0-dim")]


def kth_ref(x, k, dim=-1, keepdim=False):
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = np.take(_stable_argsort(x, dim, False), [k - 1], axis=dim)
    v, i = np.take_along_axis(x, idx, dim), idx.astype(np.int64)
    return (v, i) if keepdim else (v.squeeze(dim), i.squeeze(dim))


def _kth_samples(dtype):
    return [Sample((make((3, 9), dtype), 4), {}, "k=4"),
            Sample((make((5, 4), dtype, seed=1), 1, 0), {"keepdim": True}, "dim 0 keepdim"),
            Sample((make((2, 3, 5), dtype, seed=2), 5, -1), {}, "k=n")]


def median_dim_ref(ignore_nan):
    def ref(x, dim, keepdim=False):
        x = np.asarray(x)
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        order = _stable_argsort(x, dim, False)
        xs = np.take_along_axis(x, order, dim).astype(np.float64)
        nan = np.isnan(xs)
        n = x.shape[dim]
        count = n - nan.sum(axis=dim, keepdims=True) if ignore_nan else np.full_like(nan.sum(dim, keepdims=True), n)
        pos = np.where(count > 0, (count - 1) // 2, 0)
        if not ignore_nan:  # a NaN anywhere: the first NaN (in index order)
            has_nan = nan.any(axis=dim, keepdims=True)
            first_nan = np.argmax(np.isnan(np.asarray(x, np.float64)), axis=dim)
            idx = np.take_along_axis(order, pos, dim)
            idx = np.where(has_nan, np.expand_dims(first_nan, dim), idx)
        else:
            idx = np.take_along_axis(order, pos, dim)
        v = np.take_along_axis(x, idx, dim)
        idx = idx.astype(np.int64)
        return (v, idx) if keepdim else (v.squeeze(dim), idx.squeeze(dim))
    return ref


def _median_dim_samples(dtype):
    out = [Sample((make((3, 8), dtype), 1), {}, "even n"),
           Sample((make((5, 7), dtype, seed=1), 0), {"keepdim": True}, "odd n keepdim")]
    if dtype == "float32":  # (not float64: gradcheck cannot differentiate NaN)
        x = make((3, 6), dtype, seed=2)
        x[0, 2] = np.nan
        x[1, [1, 4]] = np.nan
        x[2, :] = np.nan
        out.append(Sample((x, 1), {}, "NaN rows"))
    return out


def median_all_ref(ignore_nan):
    def ref(x):
        x = np.asarray(x).reshape(-1)
        if x.size == 0:
            return np.asarray(np.nan, x.dtype)
        return median_dim_ref(ignore_nan)(x, 0)[0]
    return ref


def _median_all_samples(dtype):
    return [Sample((make((3, 8), dtype),), {}, "3x8"), Sample((make((7,), dtype, seed=1),), {}, "odd")]


_DIM = r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"

OPS = [
    OpInfo("sort", sort_ref, _sort_samples, dtypes=ALL_DTYPES,
           errors=[ErrorCase((M32, 2), {}, IndexError, _DIM)]),
    OpInfo("sort", sort_ref, _stable_samples, dtypes=ALL_DTYPES,
           errors=[ErrorCase((M32,), {"stable": True, "dim": -3}, IndexError, r"Dimension out of range")]),
    OpInfo("argsort", lambda x, dim=-1, descending=False, stable=None: sort_ref(x, dim, descending)[1],
           lambda d: _sort_samples(d)[:4] + _stable_samples(d), dtypes=ALL_DTYPES, ref_dtype=lambda d: "int64",
           grad=False, errors=[ErrorCase((M32, 2), {}, IndexError, _DIM)]),
    OpInfo("msort", lambda x: sort_ref(x, 0)[0], lambda d: [Sample((make((4, 3), d),), {}, "4x3")],
           dtypes=ALL_DTYPES, errors=[ErrorCase(("x",), {}, TypeError, "must be Tensor, not str")]),
    OpInfo("topk", topk_ref, _topk_samples, dtypes=NUMERIC,
           errors=[ErrorCase((M32, 4), {}, IndexError, "selected index k out of range"),
                   ErrorCase((M32, 1, 2), {}, IndexError, _DIM)]),
    OpInfo("kthvalue", kth_ref, _kth_samples, dtypes=NUMERIC,
           errors=[ErrorCase((M32, 4), {}, IndexError, "kthvalue\\(\\): selected number k out of range"),
                   ErrorCase((M32, 0), {}, IndexError, "selected number k out of range")]),
    OpInfo("median", median_dim_ref(False), _median_dim_samples, dtypes=NUMERIC,
           errors=[ErrorCase((np.ones((2, 0), np.float32), 1), {}, IndexError,
                             "median\\(\\): Expected reduction dim 1 to have non-zero size")]),
    OpInfo("nanmedian", median_dim_ref(True), _median_dim_samples, dtypes=NUMERIC,
           errors=[ErrorCase((M32, 3), {}, IndexError, r"Dimension out of range")]),
    OpInfo("median", median_all_ref(False), _median_all_samples, dtypes=NUMERIC,
           errors=[ErrorCase(("x",), {}, TypeError, "median\\(\\) received an invalid combination of arguments")]),
    OpInfo("nanmedian", median_all_ref(True), _median_all_samples, dtypes=NUMERIC,
           errors=[ErrorCase(("x",), {}, TypeError, "received an invalid combination of arguments")]),
]
