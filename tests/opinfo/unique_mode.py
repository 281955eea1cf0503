"""unique, unique_consecutive and mode, checked against NumPy: np.unique
(equal_nan=False, so every NaN is its own value as in PyTorch) with
return_inverse/return_counts/axis, a run scan for unique_consecutive, and
per-row counts for mode (the smallest most frequent value; its largest index).

unique's output length depends on the values, so on Meta it raises
(meta_raises). mode's float64 samples hold distinct values: with ties, a
finite-difference step splits a run of equal values and moves the selection,
so gradcheck runs where the selection is stable (the minimum of each row);
ties are checked in the other dtypes and in tests/test_unique_mode.py.
"""
import numpy as np

from .core import ALL_DTYPES, NP_DTYPE, ErrorCase, OpInfo, Sample, make

M = np.arange(6, dtype=np.float32).reshape(2, 3)


def dups(shape, dtype, seed=0, low=-3, high=3):
    """Values with many repeats: small integers in the dtype (bool: 0/1)."""
    if dtype == "bool":
        return make(shape, "bool", seed=seed)
    lo = 0 if dtype == "uint8" else low
    a = np.random.default_rng(seed).integers(lo, high + 1, size=shape)
    return np.asarray(a.astype(NP_DTYPE[dtype]))


def repeated_slices(dtype, seed, dim, shape):
    """A tensor whose slices along `dim` repeat: a few distinct slices, each
    used several times in mixed order."""
    base = dups(shape[:dim] + (3,) + shape[dim + 1:], dtype, seed, -1, 1)
    pick = np.random.default_rng(seed + 100).integers(0, 3, size=shape[dim])
    return np.ascontiguousarray(np.take(base, pick, axis=dim))


def _pick(vals, inv, cnt, return_inverse, return_counts):
    out = (vals,) + ((inv.astype(np.int64),) if return_inverse else ()) + ((cnt.astype(np.int64),) if return_counts else ())
    return out if len(out) > 1 else vals


def unique_ref(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    x = np.asarray(x)
    if dim is None:
        vals, inv, cnt = np.unique(x.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        inv = inv.reshape(x.shape)
    else:
        vals, inv, cnt = np.unique(x, axis=dim, return_inverse=True, return_counts=True, equal_nan=False)
        inv = inv.reshape(-1)
    return _pick(vals, inv, cnt, return_inverse, return_counts)


def unique_consecutive_ref(x, return_inverse=False, return_counts=False, dim=None):
    x = np.asarray(x)
    if dim is None:
        flat = x.reshape(-1)
        start = np.ones(flat.size, bool)
        start[1:] = flat[1:] != flat[:-1]  # NaN != NaN: each NaN starts a run
        vals = flat[start]
        inv = (np.cumsum(start) - 1).reshape(x.shape)
    else:
        n = x.shape[dim]
        rows = np.moveaxis(x, dim, 0).reshape(n, x.size // n if n else 0)
        start = np.ones(n, bool)
        start[1:] = np.any(rows[1:] != rows[:-1], axis=1)
        vals = np.take(x, np.flatnonzero(start), axis=dim)
        inv = np.cumsum(start) - 1
    cnt = np.diff(np.append(np.flatnonzero(start), start.size))
    return _pick(vals, inv, cnt, return_inverse, return_counts)


def mode_ref(x, dim=-1, keepdim=False):
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    moved = np.moveaxis(x, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    vals = np.empty(rows.shape[0], x.dtype)
    idx = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        u, c = np.unique(row, return_counts=True, equal_nan=False)
        v = u[np.argmax(c)]  # the first maximum: the smallest most frequent value
        hits = np.flatnonzero(np.isnan(row)) if np.isnan(np.float64(v)) else np.flatnonzero(row == v)
        i = hits[0] if np.isnan(np.float64(v)) else hits[-1]  # NaN wins only when all are NaN: the first
        vals[r], idx[r] = row[i], i
    shape = moved.shape[:-1]
    vals, idx = vals.reshape(shape), idx.reshape(shape)
    if keepdim:
        vals, idx = np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return vals, idx


def _unique_samples(dtype):
    both = {"return_inverse": True, "return_counts": True}
    return [Sample((dups((4, 5), dtype),), {}, "values"),
            Sample((dups((4, 5), dtype, 1),), {"return_inverse": True}, "inverse"),
            Sample((dups((3, 7), dtype, 2),), {"return_counts": True}, "counts"),
            Sample((dups((2, 3, 4), dtype, 3),), dict(both, sorted=False), "sorted=False"),
            Sample((make((3000,), dtype, seed=4),), both, "3000 values"),
            Sample((dups((3000,), dtype, 5, -100, 100),), both, "3000 with repeats"),
            Sample((make((), dtype, seed=6),), both, "0-dim"),
            Sample((make((0, 3), dtype),), both, "empty"),
            Sample((repeated_slices(dtype, 7, 0, (6, 4)),), dict(both, dim=0), "dim 0"),
            Sample((repeated_slices(dtype, 8, 1, (3, 7)),), dict(both, dim=1), "dim 1"),
            Sample((repeated_slices(dtype, 9, 1, (2, 5, 3)),), dict(both, dim=-2), "3-d dim -2"),
            Sample((repeated_slices(dtype, 10, 0, (5, 2)),), {"dim": 0}, "dim 0 values only"),
            Sample((make((0, 3), dtype),), dict(both, dim=0), "empty dim 0"),
            Sample((dups((9, 1), dtype, 11),), dict(both, dim=0), "one-element slices"),
            Sample((dups((3000,), dtype, 12, -50, 50),), dict(both, dim=-1), "1-d dim -1")]


def _unique_consecutive_samples(dtype):
    both = {"return_inverse": True, "return_counts": True}
    runs = np.repeat(dups((12,), dtype, 1, -2, 2), 3)
    return [Sample((dups((4, 6), dtype, 0, -1, 1),), {}, "values"),
            Sample((runs,), {"return_inverse": True}, "runs inverse"),
            Sample((runs,), {"return_counts": True}, "runs counts"),
            Sample((runs.reshape(4, 9),), both, "2-d"),
            Sample((make((), dtype, seed=2),), both, "0-dim"),
            Sample((make((0, 3), dtype),), both, "empty"),
            Sample((np.repeat(repeated_slices(dtype, 3, 0, (4, 3)), 2, axis=0),), dict(both, dim=0), "dim 0"),
            Sample((np.repeat(repeated_slices(dtype, 4, 1, (2, 3, 2)), 2, axis=1),), dict(both, dim=1), "3-d dim 1"),
            Sample((make((3, 0), dtype),), dict(both, dim=1), "empty dim 1")]


def _spread(shape, seed):
    """float64 values at least 0.01 apart (gradcheck's steps cannot reorder them)."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n).astype(np.float64) * 0.01 - n * 0.005).reshape(shape)


def _mode_samples(dtype):
    if dtype == "float64":
        return [Sample((_spread((4, 9), 0),), {}, "rows"),
                Sample((_spread((6, 5), 1), 0), {"keepdim": True}, "dim 0 keepdim"),
                Sample((_spread((2, 3, 17), 2), 1), {}, "3-d dim 1"),
                Sample((_spread((), 3),), {}, "0-dim"),
                Sample((_spread((0, 4), 4), 1), {}, "no rows")]
    return [Sample((dups((4, 9), dtype),), {}, "rows"),
            Sample((dups((6, 5), dtype, 1), 0), {"keepdim": True}, "dim 0 keepdim"),
            Sample((dups((2, 3, 17), dtype, 2), 1), {}, "3-d dim 1"),
            Sample((dups((3, 40), dtype, 3, -9, 9), -1), {}, "long rows"),
            Sample((make((), dtype, seed=4),), {}, "0-dim"),
            Sample((make((0, 4), dtype, seed=5), 1), {}, "no rows")]


_DIM = r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"
_SCALAR = np.array(1.5, np.float32)

OPS = [
    OpInfo("unique", unique_ref, _unique_samples, dtypes=ALL_DTYPES, grad=False, meta=False, meta_raises=True,
           errors=[ErrorCase((M,), {"dim": 2}, IndexError, _DIM),
                   ErrorCase((_SCALAR,), {"dim": 0}, IndexError, "Dimension specified as 0 but tensor has no dimensions"),
                   ErrorCase((np.ones((0, 3), np.float32),), {"dim": 1}, RuntimeError,
                             "There are 0 sized dimensions, and they aren't selected"),
                   ErrorCase((np.ones((0, 0), np.float32),), {"dim": 0}, RuntimeError,
                             "Number of zero sized dimensions is more than one"),
                   ErrorCase(([1, 2],), {}, TypeError, "must be Tensor")]),
    OpInfo("unique_consecutive", unique_consecutive_ref, _unique_consecutive_samples, dtypes=ALL_DTYPES, grad=False,
           meta=False, meta_raises=True,
           errors=[ErrorCase((M,), {"dim": -3}, IndexError, r"Dimension out of range"),
                   ErrorCase((_SCALAR,), {"dim": 0}, IndexError, "Dimension specified as 0 but tensor has no dimensions"),
                   ErrorCase((np.ones((2, 0), np.float32),), {"dim": 0}, RuntimeError,
                             "There are 0 sized dimensions, and they aren't selected")]),
    OpInfo("mode", mode_ref, _mode_samples, dtypes=ALL_DTYPES,
           errors=[ErrorCase((M, 2), {}, IndexError, _DIM),
                   ErrorCase((np.ones((2, 0), np.float32), 1), {}, IndexError,
                             r"mode\(\): Expected reduction dim 1 to have non-zero size"),
                   ErrorCase((np.ones((0,), np.float32),), {}, IndexError,
                             r"mode\(\): Expected reduction dim 0 to have non-zero size")]),
]
