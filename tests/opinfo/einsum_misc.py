"""einsum and the torch-namespace leftovers (frobenius/nuclear norm,
norm_except_dim, unravel_index, channel_shuffle, grid_sampler*,
affine_grid_generator, native embedding_bag, as_strided_scatter, the
SyncBatchNorm statistics ops) against NumPy / exact math."""
import itertools

import numpy as np

from .core import ALL_DTYPES, FLOATING, NUMERIC, ErrorCase, OpInfo, Sample, make

F64 = np.float64
FL = ("float32", "float64")
M = np.ones((3, 4), np.float32)


def _cast_ref(fn):
    """Compute in float64 (or int64), hand back the first array's dtype."""
    def ref(*a, **k):
        dt = next(x.dtype for x in a if isinstance(x, np.ndarray))
        wide = [x.astype(F64 if x.dtype.kind == "f" else np.int64) if isinstance(x, np.ndarray) else x for x in a]
        return np.asarray(fn(*wide, **k)).astype(dt)
    return ref


# ---------------------------------------------------------------- einsum

def _einsum_samples(d):
    return [Sample(("ij,jk->ik", make((3, 4), d), make((4, 5), d, seed=1)), {}, "matmul"),
            Sample(("ij,kj->ki", make((9, 10), d), make((5, 10), d, seed=1)), {}, "matmul through bmm"),
            Sample(("bij,bkj", make((2, 3, 4), d), make((2, 2, 4), d, seed=1)), {}, "batched, implicit output"),
            Sample(("ii->i", make((4, 4), d)), {}, "diagonal"),
            Sample(("...ij->...ji", make((2, 3, 4), d)), {}, "ellipsis transpose"),
            Sample(("i,i->", make((5,), d), make((5,), d, seed=1)), {}, "dot"),
            Sample(("aB,Bc,cD->Da", make((2, 3), d), make((3, 4), d, seed=1), make((4, 2), d, seed=2)), {},
                   "three operands, both cases"),
            Sample(("ijj,jk->ik", make((2, 3, 3), d), make((3, 2), d, seed=1)), {}, "repeated label")]


def _einsum_ref(eq, *ops):
    return np.einsum(eq, *ops)


# ---------------------------------------------------------------- norms

def _fro_ref(x, dim, keepdim=False):
    ax = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    ax = None if ax == () else ax
    return np.sqrt((x.astype(F64) ** 2).sum(axis=ax, keepdims=keepdim)).astype(x.dtype)


def _nuc_ref(x, dim=None, keepdim=False):
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    d0, d1 = [d % x.ndim for d in (dim or (-2, -1))]
    m = np.moveaxis(x.astype(F64), (d0, d1), (-2, -1))
    r = np.linalg.svd(m, compute_uv=False).sum(-1)
    if keepdim:
        r = np.expand_dims(r, (d0, d1))
    return np.asarray(r).astype(x.dtype)


def _ned_ref(v, pow=2, dim=0):
    a = np.abs(v.astype(F64))
    if dim == -1:
        return np.asarray((a ** pow).sum() ** (1 / pow)).astype(v.dtype)
    dd = dim % v.ndim
    axes = tuple(i for i in range(v.ndim) if i != dd)
    return ((a ** pow).sum(axes, keepdims=True) ** (1 / pow)).astype(v.dtype)


# ---------------------------------------------------------------- unravel_index, channel_shuffle

def _unravel_samples(d):
    return [Sample((np.array([[5], [11], [0]], dtype=d), (3, 4)), {}, "2-d indices"),
            Sample((np.array(7, dtype=d), (2, 2, 2)), {}, "0-dim index"),
            Sample((np.array([4, 1], dtype=d), 5), {}, "int shape")]


def _unravel_ref(idx, shape):
    shape = (shape,) if isinstance(shape, int) else shape
    return tuple(np.asarray(c).astype(np.int64) for c in np.unravel_index(idx, shape))


def _channel_shuffle_ref(x, groups):
    n, c = x.shape[:2]
    return x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


# ---------------------------------------------------------------- grid sampling (zeros padding)

def _grid_ref(x, grid, interpolation_mode, padding_mode, align_corners):
    """Linear (0) or nearest (1) sampling with zeros padding, any number of
    spatial dims, one output point at a time."""
    assert padding_mode == 0
    x64, g64 = x.astype(F64), grid.astype(F64)
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    nd = len(sizes)
    out = np.zeros((n, c) + grid.shape[1:-1])
    for b in range(n):
        for pos in itertools.product(*[range(s) for s in grid.shape[1:-1]]):
            # grid[..., 0] is x (the last dim): coordinates outermost first
            coords = []
            for k in range(nd):
                g = g64[(b,) + pos + (nd - 1 - k,)]
                s = sizes[k]
                coords.append((g + 1) * (s - 1) / 2 if align_corners else ((g + 1) * s - 1) / 2)
            if interpolation_mode == 1:
                corners = [(tuple(int(np.round(cc)) for cc in coords), 1.0)]  # half to even, as nearbyint
            else:
                lo = [int(np.floor(cc)) for cc in coords]
                corners = []
                for bits in itertools.product((0, 1), repeat=nd):
                    idx = tuple(l + bt for l, bt in zip(lo, bits))
                    wgt = np.prod([(cc - l) if bt else (1 - (cc - l)) for cc, l, bt in zip(coords, lo, bits)])
                    corners.append((idx, wgt))
            for idx, wgt in corners:
                if all(0 <= i < s for i, s in zip(idx, sizes)):
                    out[(b, slice(None)) + pos] += wgt * x64[(b, slice(None)) + idx]
    return out.astype(x.dtype)


def _grid_points(shape, d, seed):
    # Points away from the half-way spots, where nearest's rounding would be a tie.
    return make(shape, d, low=-1.1, high=1.1, seed=seed)


def _grid2d_samples(d):
    x = make((2, 2, 4, 5), d)
    g = _grid_points((2, 3, 2, 2), d, 1)
    return [Sample((x, g, 0, 0, False), {}, "bilinear"), Sample((x, g, 0, 0, True), {}, "bilinear align_corners"),
            Sample((x, g, 1, 0, False), {}, "nearest")]


def _grid3d_samples(d):
    x = make((1, 2, 3, 4, 3), d)
    g = _grid_points((1, 2, 2, 2, 3), d, 2)
    return [Sample((x, g, 0, 0, False), {}, "trilinear"), Sample((x, g, 1, 0, True), {}, "nearest align_corners")]


def _affine_ref(theta, size, align_corners):
    spatial = list(size[2:])
    nd = len(spatial)

    def axis(s):
        if s <= 1:
            return np.zeros(max(s, 0))
        r = np.linspace(-1, 1, s)
        return r if align_corners else r * (s - 1) / s
    axes = [axis(s) for s in reversed(spatial)]  # x, y(, z)
    cols = []
    for k, ax in enumerate(axes):
        shp = [1] * nd
        shp[nd - 1 - k] = -1
        cols.append(np.broadcast_to(ax.reshape(shp), spatial))
    base = np.stack(cols + [np.ones(spatial)], -1)
    return np.einsum("...k,njk->n...j", base, theta.astype(F64)).astype(theta.dtype)


# ---------------------------------------------------------------- embedding_bag

IDX = np.array([0, 2, 1, 5, 3, 4, 4])
OFF = np.array([0, 2, 2, 5])


def _bag_samples(d):
    w = make((6, 3), d)
    psw = make((7,), d, low=0.5, high=1.5, seed=1)
    return [Sample((w, IDX, OFF, False, 0), {}, "sum"),
            Sample((w, IDX, OFF, False, 1, False, None, False, 4), {}, "mean, padding_idx"),
            Sample((w, IDX, OFF, False, 2), {}, "max"),
            Sample((w, IDX, np.append(OFF, 7), False, 0, False, psw, True), {}, "sum, weights, include_last_offset")]


def _bag_ref(w, idx, off, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
             include_last_offset=False, padding_idx=None):
    n = len(idx)
    nb = len(off) - (1 if include_last_offset else 0)
    ends = list(off[1:nb]) + [off[nb] if include_last_offset else n]
    pad = None if padding_idx is None else padding_idx % len(w)
    out, sizes, maxi = [], [], []
    for s, e in zip(off[:nb], ends):
        keep = [i for i in range(s, e) if idx[i] != pad]
        rows = np.array([w[idx[i]].astype(F64) * (per_sample_weights[i] if per_sample_weights is not None else 1)
                         for i in keep]).reshape(-1, w.shape[1])
        sizes.append(len(keep))
        if not keep:
            out.append(np.zeros(w.shape[1]))
            maxi.append(np.zeros(w.shape[1], np.int64))
            continue
        out.append([rows.sum(0), rows.mean(0), rows.max(0)][mode])
        maxi.append(np.array([idx[keep[k]] for k in rows.argmax(0)]))
    bag_of = np.searchsorted(off[:nb], np.arange(n), side="right") - 1
    fast = mode == 0 and pad is None and w.dtype != F64  # PyTorch's CPU fast path leaves offset2bag empty
    sizes = np.array(sizes, np.int64)
    return (np.array(out).reshape(-1, w.shape[1]).astype(w.dtype),
            np.zeros(0, np.int64) if fast else bag_of,
            np.zeros(len(off), np.int64) if mode == 0 else sizes,
            [np.zeros(len(off), np.int64), sizes, np.array(maxi)][mode])


# ---------------------------------------------------------------- as_strided_scatter

def _ass_ref(x, src, size, stride, storage_offset=None):
    out = np.ascontiguousarray(x).copy()
    flat = out.reshape(-1)
    off = storage_offset or 0
    for pos in itertools.product(*[range(s) for s in size]):
        flat[off + sum(p * st for p, st in zip(pos, stride))] = src[pos]
    return out


def _ass_samples(d):
    return [Sample((make((3, 4), d), make((2, 3), d, seed=1), (2, 3), (4, 1)), {}, "rows"),
            Sample((make((3, 4), d), make((2, 3), d, seed=1), (2, 3), (1, 4), 1), {}, "columns, offset"),
            Sample((make((2, 3), d), make((3,), d, seed=1), (3,), (2,)), {}, "strided 1-d")]


# ---------------------------------------------------------------- SyncBatchNorm pieces

def _stats(x, eps=1e-5):
    ax = (0,) + tuple(range(2, x.ndim))
    x64 = x.astype(F64)
    return x64.mean(ax), 1 / np.sqrt(x64.var(ax) + eps)


def _pc(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def _bn_stats_ref(x, eps):
    m, inv = _stats(x, eps)
    st = np.float32 if x.dtype in (np.float16,) else x.dtype
    return m.astype(st), inv.astype(st)


def _bn_elemt_ref(x, w, b, mean, invstd, eps):
    y = (x.astype(F64) - _pc(mean, x)) * _pc(invstd, x)
    if w is not None:
        y = y * _pc(w, x)
    if b is not None:
        y = y + _pc(b, x)
    return y.astype(x.dtype)


def _bn_samples(d):
    x = make((4, 3, 5), d)
    m, inv = (a.astype(x.dtype) for a in _stats(x))
    return x, m, inv


def _bn_stats_samples(d):
    return [Sample((make((4, 3, 5), d), 1e-5), {}, "3-d"), Sample((make((6, 2), d, seed=1), 1e-3), {}, "2-d")]


def _bn_elemt_samples(d):
    x, m, inv = _bn_samples(d)
    return [Sample((x, make((3,), d, seed=1), make((3,), d, seed=2), m, inv, 1e-5), {}, "affine"),
            Sample((x, None, None, m, inv, 1e-5), {}, "no affine")]


def _gather_rows(d):
    means = make((2, 3), d, seed=3)
    invstds = make((2, 3), d, low=0.5, high=2.0, seed=4)
    return means, invstds


def _gather_ref(x, means, invstds, rm, rv, momentum, eps, counts):
    c = np.broadcast_to(np.asarray(counts, F64), (means.shape[0],)).reshape(-1, 1)
    n = c.sum()
    mean = (c * means).sum(0) / n
    var = (c * (1 / invstds.astype(F64) ** 2 - eps + (means - mean) ** 2)).sum(0) / n
    return mean.astype(means.dtype), (1 / np.sqrt(var + eps)).astype(means.dtype)


def _gather_samples(d):
    means, invstds = _gather_rows(d)
    return [Sample((make((4, 3, 5), d), means, invstds, None, None, 0.1, 1e-5, 10), {}, "equal counts")]


def _gather_counts_samples(d):
    means, invstds = _gather_rows(d)
    return [Sample((make((4, 3, 5), d), means, invstds, None, None, 0.1, 1e-5, np.array([5, 15])), {},
                   "int counts")]


def _bwd_reduce_ref(go, x, mean, invstd, w, input_g, weight_g, bias_g):
    ax = (0,) + tuple(range(2, x.ndim))
    sum_dy = go.astype(F64).sum(ax)
    sum_dy_xmu = (go.astype(F64) * (x.astype(F64) - _pc(mean, x))).sum(ax)
    st = mean.dtype
    return (sum_dy.astype(st), sum_dy_xmu.astype(st), (sum_dy_xmu * invstd).astype(w.dtype), sum_dy.astype(w.dtype))


def _bwd_reduce_samples(d):
    x, m, inv = _bn_samples(d)
    return [Sample((make((4, 3, 5), d, seed=5), x, m, inv, make((3,), d, seed=1), True, True, True), {}, "all")]


def _bwd_elemt_ref(go, x, mean, invstd, w, sum_dy, sum_dy_xmu, count):
    n = float(np.sum(count))
    f1 = invstd.astype(F64) ** 2 * sum_dy_xmu / n
    f2 = invstd.astype(F64) * (w if w is not None else 1)
    gi = (go.astype(F64) - _pc(sum_dy / n, x) - (x - _pc(mean, x)) * _pc(f1, x)) * _pc(f2, x)
    return gi.astype(x.dtype)


def _bwd_elemt_samples(d):
    x, m, inv = _bn_samples(d)
    return [Sample((make((4, 3, 5), d, seed=5), x, m, inv, make((3,), d, seed=1), make((3,), d, seed=6),
                    make((3,), d, seed=7), np.array([20], np.int32)), {}, "one process"),
            Sample((make((4, 3, 5), d, seed=5), x, m, inv, None, make((3,), d, seed=6), make((3,), d, seed=7),
                    np.array([8, 12], np.int32)), {}, "no weight, two processes")]


def _update_ref(x, rm, rv, momentum):
    ax = (0,) + tuple(range(2, x.ndim))
    return x.astype(F64).mean(ax).astype(x.dtype), x.astype(F64).var(ax).astype(x.dtype)


BN_TOL = {"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2), "float32": (1e-5, 1e-5), "float64": (1e-9, 1e-9)}

OPS = [
    OpInfo("einsum", _cast_ref(_einsum_ref), _einsum_samples, dtypes=NUMERIC, method=False,
           tol={"float16": (1e-2, 5e-2), "bfloat16": (2e-2, 5e-1), "float32": (1e-5, 1e-5)},  # chained 16-bit intermediates
           errors=[ErrorCase(("ij,jk", M, M), {}, RuntimeError, "subscript j has size 3 for operand 1 which does "
                                                                  "not broadcast with previously seen size 4"),
                   ErrorCase(("ij->k", M), {}, RuntimeError, "output subscript k does not appear"),
                   ErrorCase(("ij",), {}, ValueError, "must specify the equation string")]),
    OpInfo("frobenius_norm", _fro_ref, lambda d: [Sample((make((3, 4, 5), d), (0, 1)), {}, "two dims"),
                                                  Sample((make((3, 4), d), [1], True), {}, "one dim keepdim"),
                                                  Sample((make((2, 3), d), []), {}, "all dims")],
           dtypes=FLOATING, method=False, tol={"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 5e-2)},
           errors=[ErrorCase((np.ones((2, 2), np.int32), [0]), {}, RuntimeError,
                             "input dtype should be either floating point or complex"),
                   ErrorCase((M, [0, 1, 1]), {}, RuntimeError, "Expected at most 2 dimensions, but got 3")]),
    OpInfo("nuclear_norm", _nuc_ref, lambda d: [Sample((make((3, 4), d),), {}, "matrix"),
                                                Sample((make((2, 3, 4), d), True), {}, "batched keepdim"),
                                                Sample((make((3, 4, 2), d), (0, 2)), {}, "dims")],
           dtypes=FL, method=False, tol={"float32": (1e-5, 1e-5)},
           errors=[ErrorCase((M, (0,)), {}, RuntimeError, "dim must be a 2-tuple")]),
    OpInfo("norm_except_dim", _ned_ref, lambda d: [Sample((make((3, 4, 5), d),), {}, "defaults"),
                                                   Sample((make((3, 4, 5), d), 3, 1), {}, "pow 3 middle dim"),
                                                   Sample((make((3, 4), d), 2, -1), {}, "dim -1: all")],
           dtypes=FLOATING, method=False, tol={"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 5e-2)},
           errors=[ErrorCase((M, 2, 5), {}, IndexError, "out of range")]),
    OpInfo("unravel_index", _unravel_ref, _unravel_samples, dtypes=("int32", "int64"), method=False, grad=False,
           errors=[ErrorCase((M, (3, 4)), {}, TypeError, "expected 'indices' to be integer dtype"),
                   ErrorCase((np.array([1]), (3, -4)), {}, ValueError, "'shape' cannot have negative values")]),
    OpInfo("channel_shuffle", _channel_shuffle_ref,
           lambda d: [Sample((make((2, 6, 3), d), 3), {}, "3-d"), Sample((make((1, 4, 2, 2), d), 2), {}, "4-d")],
           dtypes=ALL_DTYPES, method=False,
           errors=[ErrorCase((np.ones((1, 4, 2), np.float32), 3), {}, RuntimeError,
                             "Number of channels must be divisible by groups"),
                   ErrorCase((M, 2), {}, RuntimeError, "channel_shuffle expects input with > 2 dims")]),
    OpInfo("grid_sampler", _grid_ref, lambda d: _grid2d_samples(d) + _grid3d_samples(d), dtypes=FL, method=False,
           errors=[ErrorCase((np.ones((1, 1, 2, 2), np.float32), np.zeros((1, 2, 2, 2), np.float32), 5, 0, False),
                             {}, RuntimeError, "interpolation_mode")]),
    OpInfo("grid_sampler_2d", _grid_ref, _grid2d_samples, dtypes=FL, method=False,
           errors=[ErrorCase((np.ones((1, 1, 2, 2, 2), np.float32), np.zeros((1, 1, 1, 1, 3), np.float32), 0, 0,
                              False), {}, RuntimeError, "expected 4D input and grid")]),
    OpInfo("grid_sampler_3d", _grid_ref, _grid3d_samples, dtypes=FL, method=False,
           errors=[ErrorCase((np.ones((1, 1, 2, 2, 2), np.float32), np.zeros((1, 1, 1, 1, 3), np.float32), 2, 0,
                              False), {}, RuntimeError, "bicubic interpolation only supports 4D input")]),
    OpInfo("affine_grid_generator", _affine_ref,
           lambda d: [Sample((make((2, 2, 3), d), (2, 3, 4, 5), False), {}, "2-d"),
                      Sample((make((1, 2, 3), d), [1, 1, 3, 1], True), {}, "2-d align_corners, unit width"),
                      Sample((make((2, 3, 4), d), (2, 1, 2, 3, 4), True), {}, "3-d")],
           dtypes=FL, method=False,
           errors=[ErrorCase((np.ones((2, 2, 3), np.float32), (2, 3, 4), False), {}, RuntimeError,
                             "AffineGridGenerator needs 4d \\(spatial\\) or 5d \\(volumetric\\) inputs")]),
    OpInfo("embedding_bag", _bag_ref, _bag_samples, dtypes=FLOATING, method=False,
           tol={"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 5e-2)},
           errors=[ErrorCase((M, IDX, OFF, False, 3), {}, RuntimeError, "`mode` must be sum, mean, or max"),
                   ErrorCase((M, IDX + 10, OFF), {}, RuntimeError, "not in the valid range"),
                   ErrorCase((M, IDX, np.array([1, 3])), {}, RuntimeError, "offsets\\[0\\] has to be 0")]),
    OpInfo("as_strided_scatter", _ass_ref, _ass_samples, dtypes=ALL_DTYPES,
           errors=[ErrorCase((M, np.ones((2, 3), np.float32), (3, 2), (1, 2)), {}, RuntimeError,
                             "expected src to have a size equal to the slice of self")]),
    OpInfo("batch_norm_stats", _bn_stats_ref, _bn_stats_samples, dtypes=FLOATING, method=False, tol=BN_TOL,
           errors=[ErrorCase((np.ones(3, np.float32), 1e-5), {}, RuntimeError, "at least 2 dims")]),
    OpInfo("batch_norm_elemt", _bn_elemt_ref, _bn_elemt_samples, dtypes=FLOATING, method=False, tol=BN_TOL,
           errors=[ErrorCase((M, None, None, np.zeros(3, np.float32), np.ones(4, np.float32), 1e-5), {},
                             RuntimeError, "expected mean to have shape \\[4\\]")]),
    OpInfo("batch_norm_gather_stats", _gather_ref, _gather_samples, dtypes=FL, method=False, tol=BN_TOL,
           errors=[ErrorCase((M, np.zeros(3, np.float32), np.ones(3, np.float32), None, None, 0.1, 1e-5, 2), {},
                             RuntimeError, "expected mean and invstd of shape \\(world_size, C\\)")]),
    OpInfo("batch_norm_gather_stats_with_counts", _gather_ref, _gather_counts_samples, dtypes=FL, method=False,
           tol=BN_TOL,
           errors=[ErrorCase((M, np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32), None, None, 0.1, 1e-5,
                              np.ones(3, np.float32)), {}, RuntimeError, "one count per row of mean")]),
    OpInfo("batch_norm_backward_reduce", _bwd_reduce_ref, _bwd_reduce_samples, dtypes=FL, method=False, tol=BN_TOL,
           errors=[ErrorCase((np.ones((2, 3), np.float32), M, np.zeros(4, np.float32), np.ones(4, np.float32), None,
                              True, True, True), {}, RuntimeError, "expected grad_out of shape")]),
    OpInfo("batch_norm_backward_elemt", _bwd_elemt_ref, _bwd_elemt_samples, dtypes=FL, method=False, tol=BN_TOL,
           errors=[ErrorCase((M, M, np.zeros(4, np.float32), np.ones(4, np.float32), None, np.zeros(3, np.float32),
                              np.zeros(4, np.float32), np.array([3])), {}, RuntimeError,
                             "expected sum_dy to have shape \\[4\\]")]),
    OpInfo("batch_norm_update_stats", _update_ref,
           lambda d: [Sample((make((4, 3, 5), d), None, None, 0.1), {}, "3-d"),
                      Sample((make((6, 2), d, seed=1), None, None, 0.1), {}, "2-d")],
           dtypes=FLOATING, method=False, tol=BN_TOL,
           errors=[ErrorCase((np.ones((2, 3), np.int32), None, None, 0.1), {}, NotImplementedError,
                             "not implemented for 'Int'"),
                   ErrorCase((np.ones((0, 3), np.float32), None, None, 0.1), {}, RuntimeError,
                             "must have at least one element")]),
]
