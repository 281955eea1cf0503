"""nn: convolution, pooling, fold/unfold, against NumPy references written
from the definitions (not from the kernels' algorithms):

- convolution: sliding windows over the zero-padded input (dilation by
  subsampling the window, stride by subsampling the positions), contracted
  with einsum per group; transposed convolution scatters every input element
  times the kernel into the output, then crops the padding;
- pooling: explicit loops over output positions and their clipped windows
  (PyTorch's divisor and ceil_mode rules), first maximum wins for indices;
- unfold/fold: loops over blocks and kernel taps.

Names that exist only in torch.nn.functional are registered as
"nn.functional.<name>" (tests/test_ops.py resolves dotted names).
"""
import itertools

import numpy as np

from .core import FLOATING, NUMERIC, ErrorCase, OpInfo, Sample, make

F64 = np.float64
# Sums of up to ~50 products of values in [-2, 2]: float16/bfloat16 round the result once.
CONV_TOL = {"float16": (3e-3, 3e-2), "bfloat16": (2e-2, 0.25), "float32": (1e-5, 1e-5), "float64": (1e-10, 1e-10)}
POOL_TOL = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v) if len(v) == n else tuple(v) * n


def _f(x, dtype_kind):
    return x.astype(F64) if x.dtype.kind == "f" else x.astype(np.int64)


def _cast(r, like):
    # Integer convolutions wrap around in the input's type, as the kernels do.
    return r.astype(like.dtype) if like.dtype.kind in "iu" else r


# ---------------------------------------------------------------- convolution references

def conv_ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1, transposed=False, output_padding=0):
    nd = w.ndim - 2
    unbatched = x.ndim == nd + 1
    xx = _f(x, None)[None] if unbatched else _f(x, None)
    ww = _f(w, None)
    s, d = _tup(stride, nd), _tup(dilation, nd)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        else:  # same: total d*(k-1), the odd element at the end
            total = [d[i] * (w.shape[2 + i] - 1) for i in range(nd)]
            xx = np.pad(xx, [(0, 0), (0, 0)] + [(t // 2, t - t // 2) for t in total])
            padding = 0
    p = _tup(padding, nd)
    if not transposed:
        xp = np.pad(xx, [(0, 0), (0, 0)] + [(q, q) for q in p])
        span = [d[i] * (w.shape[2 + i] - 1) + 1 for i in range(nd)]
        win = np.lib.stride_tricks.sliding_window_view(xp, span, axis=tuple(range(2, 2 + nd)))
        win = win[(Ellipsis,) + tuple(slice(None, None, d[i]) for i in range(nd))]  # dilation
        win = win[(slice(None), slice(None)) + tuple(slice(None, None, s[i]) for i in range(nd))]  # stride
        cin_g, cout_g = w.shape[1], w.shape[0] // groups
        sp = "defg"[:nd]
        ks = "uvwz"[:nd]
        outs = [np.einsum(f"nc{sp}{ks},oc{ks}->no{sp}", win[:, g * cin_g:(g + 1) * cin_g],
                          ww[g * cout_g:(g + 1) * cout_g]) for g in range(groups)]
        out = np.concatenate(outs, axis=1)
    else:
        op = _tup(output_padding, nd)
        cin_g, cout_g = w.shape[0] // groups, w.shape[1]
        L = xx.shape[2:]
        full = [(L[i] - 1) * s[i] + d[i] * (w.shape[2 + i] - 1) + 1 + op[i] for i in range(nd)]
        out = np.zeros((xx.shape[0], cout_g * groups) + tuple(full), dtype=xx.dtype)
        for tap in itertools.product(*[range(k) for k in w.shape[2:]]):
            sl = tuple(slice(tap[i] * d[i], tap[i] * d[i] + s[i] * (L[i] - 1) + 1, s[i]) for i in range(nd))
            for g in range(groups):
                contrib = np.einsum("nc...,co->no...", xx[:, g * cin_g:(g + 1) * cin_g],
                                    ww[(slice(g * cin_g, (g + 1) * cin_g), slice(None)) + tap])
                out[(slice(None), slice(g * cout_g, (g + 1) * cout_g)) + sl] += contrib
        out = out[(slice(None), slice(None)) + tuple(slice(p[i], full[i] - p[i]) for i in range(nd))]
    if b is not None:
        out = out + _f(b, None).reshape((1, -1) + (1,) * nd)
    out = out[0] if unbatched else out
    return _cast(out, x)


def convolution_ref(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    return conv_ref(x, w, b, stride, padding, dilation, groups, transposed, output_padding)


def _convs(dtype, nd, transposed=False):
    out = []
    # Small: float64 gradcheck costs one backward per output element.
    sp = ({1: (4,), 2: (3, 3), 3: (2, 3, 2)} if transposed else {1: (5,), 2: (4, 3), 3: (3, 3, 2)})[nd]
    k = {1: (3,), 2: (3, 2), 3: (2, 2, 2)}[nd]
    for i, (cin, cout, groups, kw) in enumerate([
            (2, 3, 1, {}),
            (4, 6, 2, {"stride": 2, "padding": 1}),
            (2, 4, 1, {"dilation": 2, "padding": 1}),
            (3, 3, 3, {"stride": (2,) * nd, "dilation": 1}),   # depthwise
    ]):
        if transposed:
            kw = dict(kw)
            if kw.get("stride", 1) != 1:
                kw["output_padding"] = 1
            w = make((cin, cout // groups) + k, dtype, -2, 2, seed=10 + i)
        else:
            w = make((cout, cin // groups) + k, dtype, -2, 2, seed=10 + i)
        x = make((2 if i == 0 else 1, cin) + sp, dtype, -2, 2, seed=i)  # one batched sample is enough
        b = make((cout,), dtype, -2, 2, seed=20 + i) if i % 2 == 0 else None
        args = (x, w, b) if b is not None else (x, w)
        out.append(Sample(args, dict(kw, groups=groups), desc=f"{nd}d {kw} groups={groups} bias={b is not None}"))
    if not transposed:
        out.append(Sample((make((3,) + sp, dtype, -2, 2, seed=5), make((2, 3) + k, dtype, -2, 2, seed=6)),
                          {"padding": "same"}, desc="unbatched, padding='same'"))
        out.append(Sample((make((1, 2) + sp, dtype, -2, 2, seed=7), make((2, 2) + (1,) * nd, dtype, -2, 2, seed=8)),
                          {"padding": "valid"}, desc="1x1 kernel"))
        out.append(Sample((make((0, 2) + sp, dtype, -2, 2, seed=7), make((3, 2) + k, dtype, -2, 2, seed=8)),
                          {}, desc="empty batch"))
    return out


def _conv_errors(nd):
    x = make((2, 4) + (5,) * nd, "float32")
    return [
        ErrorCase((x, make((6, 3) + (3,) * nd, "float32")), {}, RuntimeError, "to have 3 channels, but got 4"),
        ErrorCase((x, make((6, 2) + (3,) * nd, "float32")), {"groups": 4}, RuntimeError,
                  "expected weight to be divisible by 4"),
        ErrorCase((x, make((6, 4) + (7,) * nd, "float32")), {}, RuntimeError,
                  "Kernel size can't be greater than actual input size"),
        ErrorCase((make((5,) * nd, "float32"), make((6, 4) + (3,) * nd, "float32")), {}, RuntimeError,
                  f"Expected {nd + 1}D \\(unbatched\\) or {nd + 2}D \\(batched\\) input"),
        ErrorCase((x, make((6, 4) + (3,) * nd, "float32"), make((5,), "float32")), {}, RuntimeError,
                  "expected bias to be 1-dimensional with 6 elements"),
        ErrorCase((x, make((6, 4) + (3,) * nd, "float32")), {"stride": 2, "padding": "same"}, RuntimeError,
                  "padding='same' is not supported for strided convolutions"),
        ErrorCase((x, make((6, 4) + (3,) * nd, "float64")), {}, RuntimeError, "should be the same"),
    ]


def _convt_errors(nd):
    x = make((2, 4) + (5,) * nd, "float32")
    return [
        ErrorCase((x, make((6, 4) + (3,) * nd, "float32")), {}, RuntimeError, "Given transposed=1"),
        ErrorCase((x, make((4, 4) + (3,) * nd, "float32")), {"output_padding": 1}, RuntimeError,
                  "output padding must be smaller than either stride or dilation"),
    ]


# ---------------------------------------------------------------- pooling references

def _windows(in_sizes, k, s, p, d, ceil_mode, out_sizes=None):
    """Per dim: the output extent, PyTorch's pooling_output_shape."""
    outs = []
    for i, n in enumerate(in_sizes):
        num = n + 2 * p[i] - d[i] * (k[i] - 1) - 1 + (s[i] - 1 if ceil_mode else 0)
        o = num // s[i] + 1
        if ceil_mode and (o - 1) * s[i] >= n + p[i]:
            o -= 1
        outs.append(o)
    return outs


def _pool_args(x, kernel_size, stride, padding, dilation, nd):
    k = _tup(kernel_size, nd)
    s = k if stride is None or stride == () or stride == [] else _tup(stride, nd)
    return k, s, _tup(padding, nd), _tup(dilation, nd)


def _planes(x, nd):
    unbatched = x.ndim == nd + 1
    xx = x[None] if unbatched else x
    return xx, unbatched


def max_pool_ref(nd, with_indices):
    def ref(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        xx, unbatched = _planes(x, nd)
        k, s, p, d = _pool_args(xx, kernel_size, stride, padding, dilation, nd)
        ins = xx.shape[2:]
        outs = _windows(ins, k, s, p, d, ceil_mode)
        vals = np.zeros(xx.shape[:2] + tuple(outs), dtype=x.dtype)
        idx = np.zeros(xx.shape[:2] + tuple(outs), dtype=np.int64)
        for n, c in itertools.product(range(xx.shape[0]), range(xx.shape[1])):
            plane = xx[n, c]
            for o in itertools.product(*[range(v) for v in outs]):
                best, best_i = None, None
                for tap in itertools.product(*[range(v) for v in k]):
                    pos = [o[i] * s[i] - p[i] + tap[i] * d[i] for i in range(nd)]
                    if any(q < 0 or q >= ins[i] for i, q in enumerate(pos)):
                        continue
                    v = plane[tuple(pos)]
                    if best is None or v > best or np.isnan(v):
                        best, best_i = v, int(np.ravel_multi_index(pos, ins))
                vals[(n, c) + o] = best
                idx[(n, c) + o] = best_i
        if unbatched:
            vals, idx = vals[0], idx[0]
        return (vals, idx) if (with_indices or return_indices) else vals
    return ref


def avg_pool_ref(nd):
    def ref(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        xx, unbatched = _planes(x.astype(F64), nd)
        k, s, p, _ = _pool_args(xx, kernel_size, stride, padding, 1, nd)
        ins = xx.shape[2:]
        outs = _windows(ins, k, s, p, (1,) * nd, ceil_mode)
        out = np.zeros(xx.shape[:2] + tuple(outs))
        for o in itertools.product(*[range(v) for v in outs]):
            lo = [o[i] * s[i] - p[i] for i in range(nd)]
            hi = [min(lo[i] + k[i], ins[i] + p[i]) for i in range(nd)]
            padded = np.prod([hi[i] - lo[i] for i in range(nd)])
            lo = [max(v, 0) for v in lo]
            hi = [min(hi[i], ins[i]) for i in range(nd)]
            box = (slice(None), slice(None)) + tuple(slice(lo[i], hi[i]) for i in range(nd))
            cnt = np.prod([hi[i] - lo[i] for i in range(nd)])
            div = divisor_override or (padded if count_include_pad else cnt)
            out[(slice(None), slice(None)) + o] = xx[box].sum(axis=tuple(range(2, 2 + nd))) / div
        return out[0] if unbatched else out
    return ref


def _adaptive_bounds(o, out, n):
    return (o * n) // out, -((-(o + 1) * n) // out)


def adaptive_ref(nd, is_max, with_indices=False):
    def ref(x, output_size, return_indices=False):
        xx, unbatched = _planes(x.astype(F64) if not is_max else x, nd)
        ins = xx.shape[2:]
        outs = _tup(output_size, nd)
        outs = tuple(ins[i] if v is None else v for i, v in enumerate(outs))
        out = np.zeros(xx.shape[:2] + outs, dtype=xx.dtype)
        idx = np.zeros(xx.shape[:2] + outs, dtype=np.int64)
        for o in itertools.product(*[range(v) for v in outs]):
            b = [_adaptive_bounds(o[i], outs[i], ins[i]) for i in range(nd)]
            box = xx[(slice(None), slice(None)) + tuple(slice(lo, hi) for lo, hi in b)]
            flat = box.reshape(box.shape[:2] + (-1,))
            if is_max:
                j = np.argmax(flat, axis=2)
                out[(slice(None), slice(None)) + o] = np.take_along_axis(flat, j[..., None], 2)[..., 0]
                local = np.unravel_index(j, box.shape[2:])
                idx[(slice(None), slice(None)) + o] = np.ravel_multi_index(
                    tuple(local[i] + b[i][0] for i in range(nd)), ins)
            else:
                out[(slice(None), slice(None)) + o] = flat.mean(axis=2)
        if unbatched:
            out, idx = out[0], idx[0]
        return (out, idx) if (with_indices or return_indices) else out
    return ref


def lp_pool_ref(nd):
    def ref(x, norm_type, kernel_size, stride=None, ceil_mode=False):
        k = _tup(kernel_size, nd)
        avg = avg_pool_ref(nd)(x.astype(F64) ** norm_type, kernel_size, stride, 0, ceil_mode)
        return (np.sign(avg) * np.maximum(np.abs(avg), 0) * np.prod(k)) ** (1.0 / norm_type)
    return ref


def max_unpool_ref(nd):
    def ref(x, indices, kernel_size, stride=None, padding=0, output_size=None):
        xx, unbatched = _planes(x, nd)
        ii = indices[None] if unbatched else indices
        k = _tup(kernel_size, nd)
        s = k if stride is None else _tup(stride, nd)
        p = _tup(padding, nd)
        size = [(xx.shape[2 + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(nd)] if output_size is None \
            else list(output_size)[-nd:]
        out = np.zeros(xx.shape[:2] + (int(np.prod(size)),), dtype=x.dtype)
        for n, c in itertools.product(range(xx.shape[0]), range(xx.shape[1])):
            out[n, c, ii[n, c].ravel()] = xx[n, c].ravel()
        out = out.reshape(xx.shape[:2] + tuple(size))
        return out[0] if unbatched else out
    return ref


def unfold_ref(x, kernel_size, dilation=1, padding=0, stride=1):
    k, d, p, s = (_tup(v, 2) for v in (kernel_size, dilation, padding, stride))
    xx, unbatched = _planes(x, 2)
    xp = np.pad(xx, [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])])
    outs = [(xx.shape[2 + i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    cols = np.zeros((xx.shape[0], xx.shape[1], k[0], k[1], outs[0], outs[1]), dtype=x.dtype)
    for a, b in itertools.product(range(k[0]), range(k[1])):
        cols[:, :, a, b] = xp[:, :, a * d[0]:a * d[0] + s[0] * (outs[0] - 1) + 1:s[0],
                              b * d[1]:b * d[1] + s[1] * (outs[1] - 1) + 1:s[1]]
    cols = cols.reshape(xx.shape[0], xx.shape[1] * k[0] * k[1], outs[0] * outs[1])
    return cols[0] if unbatched else cols


def fold_ref(cols, output_size, kernel_size, dilation=1, padding=0, stride=1):
    o, k, d, p, s = (_tup(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    unbatched = cols.ndim == 2
    cc = (cols[None] if unbatched else cols).astype(F64)
    C = cc.shape[1] // (k[0] * k[1])
    outs = [(o[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    cc = cc.reshape(cc.shape[0], C, k[0], k[1], outs[0], outs[1])
    img = np.zeros((cc.shape[0], C, o[0] + 2 * p[0], o[1] + 2 * p[1]))
    for a, b in itertools.product(range(k[0]), range(k[1])):
        img[:, :, a * d[0]:a * d[0] + s[0] * (outs[0] - 1) + 1:s[0],
            b * d[1]:b * d[1] + s[1] * (outs[1] - 1) + 1:s[1]] += cc[:, :, a, b]
    img = img[:, :, p[0]:p[0] + o[0], p[1]:p[1] + o[1]]
    return img[0] if unbatched else img


# ---------------------------------------------------------------- samples

SPATIAL = {1: (9,), 2: (7, 6), 3: (4, 3, 5)}  # at most 512 elements with the batch: see _pool_input


def _pool_input(dtype, nd, seed=0, batched=True):
    shape = ((2, 3) if batched else (3,)) + SPATIAL[nd]
    # Floating samples hold distinct integers (exact in bfloat16 up to 256): a tie
    # would make the max's index and its gradient ambiguous. Integer dtypes keep
    # their ties (the first maximum wins in the reference and the kernel alike).
    a = make(shape, dtype, -50, 50, seed=seed)
    if dtype in FLOATING:
        rng = np.random.default_rng(seed)
        a = (rng.permutation(a.size).reshape(shape) - a.size // 2).astype(a.dtype)
    return a


def max_pool_samples(nd):
    def samples(dtype):
        x = _pool_input(dtype, nd)
        return [Sample((x, 2), desc="k=2"),
                Sample((x, 3), {"stride": 2, "padding": 1}, desc="k3 s2 p1"),
                Sample((x, 2), {"stride": 1, "dilation": 2}, desc="dilation 2"),
                Sample((x, 2), {"stride": 2, "ceil_mode": True}, desc="ceil_mode"),
                Sample((x, (3,) * nd), {"stride": (1,) * nd, "padding": 1}, desc="tuple args"),
                Sample((_pool_input(dtype, nd, 1, batched=False), 2), desc="unbatched")]
    return samples


def avg_pool_samples(nd, divisor=True):
    def samples(dtype):
        x = _pool_input(dtype, nd)
        out = [Sample((x, 2), desc="k=2"),
               Sample((x, 3), {"stride": 2, "padding": 1}, desc="k3 s2 p1 count_include_pad"),
               Sample((x, 3), {"stride": 2, "padding": 1, "count_include_pad": False}, desc="exclude pad"),
               Sample((x, 2), {"stride": 2, "ceil_mode": True, "padding": 1}, desc="ceil_mode"),
               Sample((_pool_input(dtype, nd, 1, batched=False), 2), desc="unbatched")]
        if divisor:
            out.append(Sample((x, 2), {"divisor_override": 3}, desc="divisor_override"))
        return out
    return samples


def adaptive_samples(nd):
    def samples(dtype):
        x = _pool_input(dtype, nd)
        return [Sample((x, 3), desc="3"),
                Sample((x, (1,) * nd), desc="global"),
                Sample((x, tuple(v + 1 for v in SPATIAL[nd])), desc="larger than input"),
                Sample((x, (None,) + (2,) * (nd - 1)), desc="None keeps a dim"),
                Sample((_pool_input(dtype, nd, 1, batched=False), 2), desc="unbatched")]
    return samples


def _pool_errors(name, nd, is_max=True):
    x = make((2, 3) + (5,) * nd, "float32")
    errs = [ErrorCase((make((5,), "float32"), 2), {}, RuntimeError, "tensor expected for input"
                      if nd > 1 else "expected"),
            ErrorCase((x, 7), {}, RuntimeError, "Output size is too small"),
            ErrorCase((x, 3, 1, 2), {}, RuntimeError, "pad should be at most half of"),
            ErrorCase((x, 2, 0), {}, RuntimeError, "stride should not be zero")]
    return errs


def _adaptive_errors(nd):
    return [ErrorCase((make((4,), "float32"), 2), {}, RuntimeError, "Expected"),
            ErrorCase((make((2, 3) + (5,) * nd, "float32"), (2,) * (nd + 1)), {}, RuntimeError,
                      "output_size.size\\(\\) must be")]


def lp_pool_samples(nd):
    def samples(dtype):
        x = make((2, 3) + SPATIAL[nd], dtype, 0.1, 2, seed=4)  # small and positive: x**p stays in float16's range
        return [Sample((x, 2, 2), desc="p=2 k=2"), Sample((x, 3, 3), {"stride": 2}, desc="p=3 k3 s2"),
                Sample((x, 1, 2), {"stride": 1, "ceil_mode": True}, desc="p=1")]
    return samples


def max_unpool_samples(nd):
    def samples(dtype):
        x = _pool_input(dtype, nd)
        ins = SPATIAL[nd]
        k = 2
        outs = [v // 2 for v in ins]
        # Indices a max_pool with kernel 2 could produce: one position per window.
        rng = np.random.default_rng(nd)
        v = make((2, 3) + tuple(outs), dtype, -5, 5, seed=3)
        idx = np.zeros((2, 3) + tuple(outs), dtype=np.int64)
        for o in itertools.product(*[range(q) for q in outs]):
            pos = [o[i] * k + rng.integers(0, k) for i in range(nd)]
            idx[(slice(None), slice(None)) + o] = np.ravel_multi_index(pos, tuple(q * 2 for q in outs))
        del x
        return [Sample((v, idx, k), desc="kernel 2"),
                Sample((v, idx, k), {"output_size": tuple(q * 2 + 1 for q in outs)}, desc="output_size"),
                Sample((v[0], idx[0], k), desc="unbatched")]
    return samples


def _unpool_errors(nd):
    v = make((1, 1) + (2,) * nd, "float32")
    idx = np.zeros((1, 1) + (2,) * nd, dtype=np.int64)
    idx.flat[-1] = 99
    return [ErrorCase((v, idx, 2), {}, RuntimeError, "Found an invalid max index: 99"),
            ErrorCase((v, np.zeros((1, 1) + (2,) * nd, dtype=np.int64), 2), {"output_size": (9,) * nd}, ValueError,
                      "invalid output_size")]


def unfold_samples(dtype):
    x = make((2, 3, 6, 7), dtype, -2, 2)
    return [Sample((x, 2), desc="k=2"),
            Sample((x, (2, 3)), {"dilation": (1, 2), "padding": 1, "stride": (2, 1)}, desc="all options"),
            Sample((make((3, 5, 5), dtype, -2, 2, seed=1), 3), {"stride": 2}, desc="unbatched")]


def fold_samples(dtype):
    return [Sample((make((2, 12, 30), dtype, -2, 2), (6, 7), 2), desc="k=2 (6,7)"),
            Sample((make((2, 18, 20), dtype, -2, 2, seed=1), (6, 7), (2, 3)),
                   {"dilation": (1, 2), "padding": 1, "stride": (2, 1)}, desc="all options"),
            Sample((make((9, 4), dtype, -2, 2, seed=2), (5, 5), 3), {"stride": 2}, desc="unbatched")]


FOLD_ERRORS = [
    ErrorCase((make((2, 3, 5, 5), "float32"), 7), {}, RuntimeError, "calculated shape of the array of sliding blocks"),
]
FOLD_BACK_ERRORS = [
    ErrorCase((make((2, 12, 5), "float32"), (4, 4), 2), {}, RuntimeError,
              "to match the calculated number of sliding blocks 3 \\* 3 = 9"),
    ErrorCase((make((2, 10, 9), "float32"), (4, 4), 2), {}, RuntimeError, "divisible by the product of kernel_size"),
]


def _convolution_samples(dtype):
    return [Sample((make((2, 4, 4, 4), dtype, -2, 2), make((4, 2, 2, 2), dtype, -2, 2, seed=1),
                    make((4,), dtype, -2, 2, seed=2), [2, 1], [1, 0], [1, 2], False, [0, 0], 2), desc="2d groups"),
            Sample((make((2, 3, 4), dtype, -2, 2), make((3, 2, 3), dtype, -2, 2, seed=1), None, [2], [1], [1],
                    True, [1], 1), desc="1d transposed"),
            Sample((make((1, 2, 3, 3, 2), dtype, -2, 2), make((2, 2, 2, 2, 2), dtype, -2, 2, seed=1), None,
                    [1, 1, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1), desc="3d")]


OPS = []
for _nd in (1, 2, 3):
    OPS.append(OpInfo(f"conv{_nd}d", conv_ref, lambda dt, nd=_nd: _convs(dt, nd), dtypes=NUMERIC, method=False,
                      tol=CONV_TOL, errors=_conv_errors(_nd)))
    OPS.append(OpInfo(f"conv_transpose{_nd}d", lambda x, w, b=None, stride=1, padding=0, output_padding=0, groups=1,
                      dilation=1: conv_ref(x, w, b, stride, padding, dilation, groups, True, output_padding),
                      lambda dt, nd=_nd: _convs(dt, nd, transposed=True), dtypes=NUMERIC, method=False,
                      tol=CONV_TOL, errors=_convt_errors(_nd)))
    OPS.append(OpInfo(f"max_pool{_nd}d", max_pool_ref(_nd, False), max_pool_samples(_nd), dtypes=NUMERIC,
                      method=False, tol=POOL_TOL, errors=_pool_errors("max_pool", _nd)))
    OPS.append(OpInfo(f"nn.functional.max_pool{_nd}d_with_indices", max_pool_ref(_nd, True), max_pool_samples(_nd),
                      dtypes=NUMERIC, method=False, tol=POOL_TOL, grad=False))  # gradients: max_pool{_nd}d
    OPS.append(OpInfo(f"nn.functional.avg_pool{_nd}d" if _nd > 1 else "avg_pool1d", avg_pool_ref(_nd),
                      avg_pool_samples(_nd, divisor=_nd > 1), dtypes=FLOATING, method=False, tol=POOL_TOL,
                      errors=[e for e in _pool_errors("avg_pool", _nd) if "half of" not in e.match] + [
                          ErrorCase((make((2, 3) + (5,) * _nd, "float32"), 3, 1, 2), {}, RuntimeError,
                                    "pad should be at most half of kernel size")]))
    OPS.append(OpInfo(f"nn.functional.adaptive_avg_pool{_nd}d", adaptive_ref(_nd, False), adaptive_samples(_nd),
                      dtypes=FLOATING, method=False, tol=POOL_TOL, errors=_adaptive_errors(_nd)))
    OPS.append(OpInfo(f"nn.functional.adaptive_max_pool{_nd}d", adaptive_ref(_nd, True), adaptive_samples(_nd),
                      dtypes=FLOATING, method=False, tol=POOL_TOL, errors=_adaptive_errors(_nd)))
    OPS.append(OpInfo(f"nn.functional.adaptive_max_pool{_nd}d_with_indices", adaptive_ref(_nd, True, True),
                      adaptive_samples(_nd), dtypes=FLOATING, method=False, tol=POOL_TOL, grad=False))
    OPS.append(OpInfo(f"nn.functional.lp_pool{_nd}d", lp_pool_ref(_nd), lp_pool_samples(_nd), dtypes=FLOATING,
                      method=False, tol={"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)},
                      errors=[ErrorCase((make((2, 3) + (5,) * _nd, "float32"), 2, 7), {}, RuntimeError,
                                        "Output size is too small")]))
    OPS.append(OpInfo(f"nn.functional.max_unpool{_nd}d", max_unpool_ref(_nd), max_unpool_samples(_nd),
                      dtypes=FLOATING, method=False, errors=_unpool_errors(_nd)))

OPS += [
    OpInfo("convolution", convolution_ref, _convolution_samples, dtypes=NUMERIC, method=False, tol=CONV_TOL,
           errors=[ErrorCase((make((2, 4, 5, 5), "float32"), make((6, 4, 3, 3), "float32"), None, [0, 1], [0, 0],
                              [1, 1], False, [0, 0], 1), {}, RuntimeError, "non-positive stride is not supported"),
                   ErrorCase((make((2, 4, 5, 5), "float32"), make((6, 4, 3, 3), "float32"), None, [1, 1], [0, 0],
                              [1, 1], False, [0, 0], 0), {}, RuntimeError, "non-positive groups is not supported"),
                   ErrorCase((make((4, 5, 5), "float32"), make((6, 4, 3, 3), "float32"), None, [1, 1], [0, 0],
                              [1, 1], False, [0, 0], 1), {}, RuntimeError,
                             "Expected 4-dimensional input for 4-dimensional weight")]),
    OpInfo("nn.functional.unfold", unfold_ref, unfold_samples, dtypes=FLOATING, method=False, errors=FOLD_ERRORS),
    OpInfo("nn.functional.fold", fold_ref, fold_samples, dtypes=FLOATING, method=False,
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}, errors=FOLD_BACK_ERRORS),
]


# ---- one bad call for the with_indices forms: an input of the wrong rank.
_RANK_ERRORS = {
    "nn.functional.max_pool1d_with_indices": (np.ones(3, np.float32), "non-empty 2D or 3D"),
    "nn.functional.max_pool2d_with_indices": (np.ones(3, np.float32), "non-empty 3D or 4D"),
    "nn.functional.max_pool3d_with_indices": (np.ones((3, 3), np.float32), "non-empty 4D or 5D"),
    "nn.functional.adaptive_max_pool1d_with_indices": (np.ones(3, np.float32), "Expected 2D or 3D tensor"),
    "nn.functional.adaptive_max_pool2d_with_indices": (np.ones(3, np.float32), "Expected 3D or 4D tensor"),
    "nn.functional.adaptive_max_pool3d_with_indices": (np.ones(3, np.float32), "Expected 4D or 5D tensor"),
}
for _op in OPS:
    if not _op.errors and _op.name in _RANK_ERRORS:
        _x, _msg = _RANK_ERRORS[_op.name]
        _op.errors = [ErrorCase((_x, 2), {}, RuntimeError, _msg)]


# ---------------------------------------------------------------- interpolate / grid_sample references
#
# Written point by point from PyTorch's definitions (source-index formulas of
# UpSample.h and GridSampler.h): every output element is the tensor product of
# per-dimension taps, evaluated directly rather than one dimension at a time as
# the composites do. Scales are float32 for float32 and reduced inputs, as in
# PyTorch's CPU kernels, so nearest picks the same pixels at rounding boundaries.

def _interp_taps_1d(mode, n_in, n_out, scale, align_corners, ft):
    """[(index, weight), ...] per output position of one dimension."""
    def scales_value():
        return ft(1.0 / scale) if scale else ft(n_in) / ft(n_out)

    def area_scale():
        if align_corners:
            return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else ft(0)
        return scales_value()
    taps = []
    for o in range(n_out):
        if mode in ("nearest", "nearest-exact"):
            if mode == "nearest" and n_out == n_in:
                i = o
            elif mode == "nearest" and n_out == 2 * n_in:
                i = o // 2
            else:
                pos = (ft(o) + ft(0.5)) * scales_value() if mode == "nearest-exact" else ft(o) * scales_value()
                i = min(int(np.floor(pos)), n_in - 1)
            taps.append([(i, 1.0)])
            continue
        s = area_scale()
        src = s * ft(o) if align_corners else s * (ft(o) + ft(0.5)) - ft(0.5)
        if mode == "bicubic":
            i = min(int(np.floor(src)), n_in - 1)
            t = float(min(max(src - ft(i), 0.0), 1.0))
            a = -0.75

            def k(x):  # Keys' cubic convolution kernel
                x = abs(x)
                return ((a + 2) * x - (a + 3)) * x * x + 1 if x <= 1 else ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
            taps.append([(min(max(i - 1 + j, 0), n_in - 1), k(t - (j - 1))) for j in range(4)])
        else:
            src = max(src, ft(0))
            i = min(int(src), n_in - 1)
            lam = float(src - ft(i))
            taps.append([(i, 1.0 - lam), (min(i + 1, n_in - 1), lam)])
    return taps


def interpolate_ref(x, size=None, scale_factor=None, mode="nearest", align_corners=None,
                    recompute_scale_factor=None, antialias=False):
    nd = x.ndim - 2
    ft = np.float64 if x.dtype == np.float64 else np.float32
    if size is not None:
        out = list(_tup(size, nd))
        scales = [None] * nd
    else:
        scales = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * nd
        out = [int(np.floor(x.shape[2 + i] * scales[i])) for i in range(nd)]
        if recompute_scale_factor or mode == "area":
            scales = [None] * nd
    xx = x.astype(F64)
    if mode == "area":
        return adaptive_ref(nd, False)(x, tuple(out))
    taps = [_interp_taps_1d(mode, x.shape[2 + i], out[i], scales[i], align_corners, ft) for i in range(nd)]
    res = np.zeros(x.shape[:2] + tuple(out))
    for pos in itertools.product(*[range(o) for o in out]):
        for combo in itertools.product(*[taps[i][pos[i]] for i in range(nd)]):
            w = np.prod([c[1] for c in combo])
            res[(Ellipsis,) + pos] += w * xx[(Ellipsis,) + tuple(c[0] for c in combo)]
    return res


def _interp_samples(nd, modes):
    def gen(dtype):
        out = []
        for mode in modes:
            for shape, kw in [((2, 3) + (5,) * nd, {"size": 3}), ((1, 2) + (3,) * nd, {"size": 7}),
                              ((1, 2) + (4,) * nd, {"scale_factor": 2}), ((2, 1) + (5,) * nd, {"scale_factor": 0.7}),
                              ((1, 2) + (3,) * nd, {"scale_factor": 1.5, "recompute_scale_factor": True})]:
                if mode == "area" and "scale_factor" in kw and kw["scale_factor"] > 1:
                    continue
                acs = [None] if mode in ("nearest", "nearest-exact", "area") else [False, True]
                for ac in acs:
                    k = dict(kw, mode=mode)
                    if ac is not None:
                        k["align_corners"] = ac
                    out.append(Sample((make(shape, dtype, -2, 2),), k, desc=f"{mode} {kw} ac={ac}"))
        return out
    return gen


_INTERP_MODES = {1: ("nearest", "nearest-exact", "linear", "area"),
                 2: ("nearest", "nearest-exact", "bilinear", "bicubic", "area"),
                 3: ("nearest", "nearest-exact", "trilinear", "area")}
INTERP_TOL = {"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 5e-2), "float32": (1e-5, 1e-5)}


def _interp_all_samples(dtype):
    return [s for nd in (1, 2, 3) for s in _interp_samples(nd, _INTERP_MODES[nd])(dtype)]


_X4 = make((1, 2, 4, 4), "float32")
INTERP_ERRORS = [
    ErrorCase((_X4,), {"size": 3, "mode": "nearest", "align_corners": True}, ValueError,
              "align_corners option can only be set with the interpolating modes"),
    ErrorCase((_X4,), {"size": (3, 3, 3), "mode": "bilinear"}, ValueError,
              "Input and output must have the same number of spatial dimensions"),
    ErrorCase((_X4,), {"scale_factor": (2, 2, 2)}, ValueError,
              "Input and scale_factor must have the same number of spatial dimensions"),
    ErrorCase((_X4,), {"size": 3, "scale_factor": 2}, ValueError, "only one of size or scale_factor should be defined"),
    ErrorCase((_X4,), {}, ValueError, "either size or scale_factor should be defined"),
    ErrorCase((_X4,), {"size": 3, "recompute_scale_factor": True}, ValueError,
              "recompute_scale_factor is not meaningful with an explicit size"),
    ErrorCase((_X4,), {"size": 3, "mode": "linear"}, NotImplementedError, "Got 4D input, but linear mode needs 3D"),
    ErrorCase((_X4,), {"size": 3, "mode": "nearest", "antialias": True}, ValueError,
              "Anti-alias option is restricted to bilinear, bicubic"),
    ErrorCase((make((2, 4), "float32"),), {"size": 3}, NotImplementedError, "Only 3D, 4D and 5D input"),
    ErrorCase((_X4,), {"size": (3, 3.5)}, TypeError, "expected size to be one of int"),
    ErrorCase((make((1, 2, 4, 4), "int64"),), {"size": 3, "mode": "bilinear"}, RuntimeError,
              "mode 'bilinear' needs a floating-point input"),
]


def _grid_source(c, size, padding_mode, align_corners):
    c = (c + 1) / 2 * (size - 1) if align_corners else ((c + 1) * size - 1) / 2
    if padding_mode == "border":
        c = min(max(c, 0.0), size - 1.0)
    elif padding_mode == "reflection":
        lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
        if hi > lo:  # fold the line onto [lo, hi]: period 2*(hi-lo)
            period = 2 * (hi - lo)
            m = np.mod(c - lo, period)
            c = lo + (m if m <= hi - lo else period - m)
        else:
            c = 0.0
        c = min(max(c, 0.0), size - 1.0)
    return c


def grid_sample_ref(x, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    nd = x.ndim - 2
    xx, gg = x.astype(F64), grid.astype(F64)
    sizes = x.shape[2:]
    out = np.zeros(x.shape[:2] + grid.shape[1:-1])

    def at(n, idx):
        if all(0 <= i < s for i, s in zip(idx, sizes)):
            return xx[(n, slice(None)) + tuple(idx)]
        return 0.0
    for n in range(x.shape[0]):
        for pos in itertools.product(*[range(s) for s in grid.shape[1:-1]]):
            coord = gg[(n,) + pos][::-1]  # grid's last axis lists x (innermost) first
            if mode == "bicubic":
                src = [(c + 1) / 2 * (s - 1) if align_corners else ((c + 1) * s - 1) / 2
                       for c, s in zip(coord, sizes)]
                a = -0.75

                def k(t):
                    t = abs(t)
                    return ((a + 2) * t - (a + 3)) * t * t + 1 if t <= 1 else ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
                acc = 0.0
                for offs in itertools.product(range(-1, 3), repeat=nd):
                    w, idx = 1.0, []
                    for c, o, s in zip(src, offs, sizes):
                        b = np.floor(c)
                        w *= k(c - (b + o))
                        idx.append(int(round(_grid_source_pixel(b + o, s, padding_mode, align_corners))))
                    acc = acc + w * at(n, idx)
                out[(n, slice(None)) + pos] = acc
                continue
            src = [_grid_source(c, s, padding_mode, align_corners) for c, s in zip(coord, sizes)]
            if mode == "nearest":
                out[(n, slice(None)) + pos] = at(n, [int(np.rint(c)) for c in src])
                continue
            acc = 0.0
            for hi in itertools.product((0, 1), repeat=nd):
                w, idx = 1.0, []
                for c, h in zip(src, hi):
                    b = np.floor(c)
                    w *= (c - b) if h else (b + 1 - c)
                    idx.append(int(b) + h)
                acc = acc + w * at(n, idx)
            out[(n, slice(None)) + pos] = acc
    return out


def _grid_source_pixel(p, size, padding_mode, align_corners):
    # bicubic taps: padding applies to each integer tap position (GridSampler.h get_value_bounded)
    if padding_mode == "zeros":
        return p
    if padding_mode == "border":
        return min(max(p, 0.0), size - 1.0)
    lo, hi = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
    if hi > lo:
        period = 2 * (hi - lo)
        m = np.mod(p - lo, period)
        p = lo + (m if m <= hi - lo else period - m)
    else:
        p = 0.0
    return min(max(p, 0.0), size - 1.0)


def _grid_samples(dtype):
    out = []
    for nd, modes in ((2, ("bilinear", "nearest", "bicubic")), (3, ("bilinear", "nearest"))):
        for mode in modes:
            for pm in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    x = make((2, 2) + (4,) * nd, dtype, -2, 2)
                    g = make((2,) + (3,) * nd + (nd,), dtype, -1.4, 1.4, seed=1)
                    out.append(Sample((x, g), {"mode": mode, "padding_mode": pm, "align_corners": ac},
                                      desc=f"{nd}d {mode} {pm} ac={ac}"))
    return out


_G = make((1, 3, 3, 2), "float32")
GRID_ERRORS = [
    ErrorCase((_X4, _G), {"mode": "cubic", "align_corners": False}, ValueError, "expected mode to be 'bilinear'"),
    ErrorCase((_X4, _G), {"padding_mode": "wrap", "align_corners": False}, ValueError, "expected padding_mode"),
    ErrorCase((_X4, make((1, 3, 3, 3), "float32")), {"align_corners": False}, RuntimeError,
              "expected grid to have size 2 in last dimension"),
    ErrorCase((_X4, make((2, 3, 3, 2), "float32")), {"align_corners": False}, RuntimeError,
              "expected grid and input to have same batch size"),
    ErrorCase((_X4, make((1, 3, 3, 3, 3), "float32")), {"align_corners": False}, RuntimeError,
              "expected 4D or 5D input and grid with same number of dimensions"),
    ErrorCase((make((1, 2, 3, 3, 3), "float32"), make((1, 2, 2, 2, 3), "float32")),
              {"mode": "bicubic", "align_corners": False}, RuntimeError, "bicubic interpolation only supports 4D"),
    ErrorCase((make((1, 2, 4, 4), "int64"), make((1, 3, 3, 2), "int64")), {"align_corners": False}, RuntimeError,
              "expected a floating-point input"),
]


def affine_grid_ref(theta, size, align_corners=None):
    nd = len(size) - 2
    sp = list(size[2:])

    def lin(s):
        if s <= 1:
            return np.zeros(1)
        r = np.linspace(-1, 1, s)
        return r if align_corners else r * (s - 1) / s
    axes = [lin(s) for s in sp]  # outermost first
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([m for m in mesh[::-1]] + [np.ones(sp)], -1)  # (x, y[, z], 1)
    return np.einsum("...k,njk->n...j", base, theta.astype(F64))


def _affine_samples(dtype):
    return [Sample((make((2, 2, 3), dtype, -1, 1), (2, 3, 4, 5)), {"align_corners": ac}, desc=f"2d ac={ac}")
            for ac in (False, True)] + \
        [Sample((make((2, 3, 4), dtype, -1, 1), (2, 1, 2, 3, 4)), {"align_corners": ac}, desc=f"3d ac={ac}")
         for ac in (False, True)]


AFFINE_ERRORS = [
    ErrorCase((make((2, 2, 3), "int64"), (2, 3, 4, 5)), {"align_corners": False}, ValueError,
              "Expected theta to have floating point type"),
    ErrorCase((make((2, 3, 3), "float32"), (2, 3, 4, 5)), {"align_corners": False}, ValueError,
              "Expected a batch of 2D affine matrices of shape Nx2x3"),
    ErrorCase((make((2, 2, 3), "float32"), (2, 3, 4)), {"align_corners": False}, NotImplementedError,
              "affine_grid only supports 4D and 5D sizes"),
    ErrorCase((make((2, 2, 3), "float32"), (2, 3, 0, 5)), {"align_corners": False}, ValueError,
              "Expected non-zero, positive output size"),
]


def channel_shuffle_ref(x, groups):
    n, c = x.shape[:2]
    return x.reshape((n, groups, c // groups) + x.shape[2:]).swapaxes(1, 2).reshape(x.shape)


OPS += [
    OpInfo("nn.functional.interpolate", interpolate_ref, _interp_all_samples, dtypes=FLOATING, method=False,
           tol=INTERP_TOL, errors=INTERP_ERRORS),
    OpInfo("nn.functional.grid_sample", grid_sample_ref, _grid_samples, dtypes=FLOATING, method=False,
           tol={"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 1e-1), "float32": (1e-5, 1e-5)}, errors=GRID_ERRORS),
    OpInfo("nn.functional.affine_grid", affine_grid_ref, _affine_samples, dtypes=FLOATING, method=False,
           tol={"float16": (5e-3, 5e-3), "bfloat16": (3e-2, 3e-2)}, errors=AFFINE_ERRORS),
    OpInfo("nn.functional.channel_shuffle", channel_shuffle_ref,
           lambda dt: [Sample((make((2, 6, 3, 2), dt), 3)), Sample((make((1, 4, 5), dt), 2)),
                       Sample((make((2, 6, 2, 2, 2), dt), 2))], dtypes=NUMERIC, method=False,
           errors=[ErrorCase((make((2, 6, 3), "float32"), 4), {}, RuntimeError,
                             "Number of channels must be divisible by groups"),
                   ErrorCase((make((2, 6), "float32"), 2), {}, RuntimeError, "at least 3 dimensions")]),
]
