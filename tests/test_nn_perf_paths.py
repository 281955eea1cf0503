"""The register-tiled and fused fast paths of the nn kernels (issue 10's
speed slice), checked where their tiling changes: attention with query/key
counts at and around the 6-row tile, the 16-column tile and the 64-row/key
blocks, head sizes that are not a multiple of the tile, masks that blank a
row inside one key block, non-contiguous inputs, float16/bfloat16 against a
float32 reference, and float64 gradcheck. Convolution: the stride-1
transposed convolution (every stride-1 input gradient) run as a plain one with
the flipped kernel, the cases that must not take it (stride, padding past the
kernel's reach, output_padding), and the row-chunked columns of the forward
with a chunk count that does not divide the output rows."""
import math

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F
from torchlike.autograd.gradcheck import gradcheck
from opinfo.nn_conv_pool import conv_ref


def rnd(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


def np_attention(q, k, v, mask=None, causal=False, scale=None):
    s = (scale if scale is not None else 1 / math.sqrt(q.shape[-1])) * q @ np.swapaxes(k, -1, -2)
    if causal:
        mask = np.tril(np.ones(s.shape[-2:], bool))
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + mask
    m = s.max(-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(m), m, 0))
    with np.errstate(invalid="ignore"):
        return e / e.sum(-1, keepdims=True) @ v


# ---------------------------------------------------------------- scaled_dot_product_attention

@pytest.mark.parametrize("L,S", [(1, 1), (5, 6), (6, 6), (7, 17), (63, 64), (64, 64), (65, 63), (130, 129)])
@pytest.mark.parametrize("E,Ev", [(64, 64), (8, 20), (17, 5)])
def test_sdpa_tiles_and_blocks(L, S, E, Ev):
    q, k, v = rnd(2, L, E, seed=1), rnd(2, S, E, seed=2), rnd(2, S, Ev, seed=3)
    for causal in (False, True):
        want = np_attention(q, k, v, causal=causal)
        got = F.scaled_dot_product_attention(tl.tensor(q), tl.tensor(k), tl.tensor(v), is_causal=causal)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)
        got32 = F.scaled_dot_product_attention(*(tl.tensor(a.astype(np.float32)) for a in (q, k, v)),
                                               is_causal=causal)
        np.testing.assert_allclose(np.asarray(got32), want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("L,S", [(7, 70), (70, 130)])
def test_sdpa_masks_blank_rows_inside_a_block(L, S):
    q, k, v = rnd(3, L, 16, seed=4), rnd(3, S, 16, seed=5), rnd(3, S, 20, seed=6)
    bm = np.random.default_rng(7).integers(0, 2, (3, L, S)).astype(bool)
    bm[:, 2, :] = False            # a fully masked row: NaN, as PyTorch's math path
    bm[:, 3, :64] = False          # a row masked for the whole first key block only
    bm[:, 4, :] = False
    bm[:, 4, S - 1] = True         # ... and one that sees a single key
    got = np.asarray(F.scaled_dot_product_attention(tl.tensor(q), tl.tensor(k), tl.tensor(v), tl.tensor(bm)))
    want = np_attention(q, k, v, bm)
    assert np.isnan(got[:, 2]).all()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    fm = rnd(1, L, S, seed=8)
    got = F.scaled_dot_product_attention(tl.tensor(q), tl.tensor(k), tl.tensor(v), tl.tensor(fm), scale=0.3)
    np.testing.assert_allclose(np.asarray(got), np_attention(q, k, v, fm, scale=0.3), rtol=1e-10, atol=1e-12)


def test_sdpa_non_contiguous_inputs():
    q = rnd(2, 70, 3, 16, seed=9).transpose(0, 2, 1, 3)      # (2, 3, 70, 16) read through strides
    k = rnd(2, 3, 16, 67, seed=10)
    v = rnd(2, 3, 67, 24, seed=11)
    tq, tk = tl.tensor(rnd(2, 70, 3, 16, seed=9)).transpose(1, 2), tl.tensor(k).transpose(-1, -2)
    for causal in (False, True):
        got = F.scaled_dot_product_attention(tq, tk, tl.tensor(v)[..., ::2], is_causal=causal)
        want = np_attention(q, k.swapaxes(-1, -2), v[..., ::2], causal=causal)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_sdpa_reduced_precision_matches_float32(dtype):
    q, k, v = rnd(2, 2, 70, 64, seed=12), rnd(2, 2, 70, 64, seed=13), rnd(2, 2, 70, 24, seed=14)
    for causal in (False, True):
        args = [tl.tensor(a.astype(np.float32)).to(dtype) for a in (q, k, v)]
        got = F.scaled_dot_product_attention(*args, is_causal=causal)
        assert got.dtype == dtype
        ref = F.scaled_dot_product_attention(*(a.float() for a in args), is_causal=causal)
        tol = 1e-2 if dtype == tl.float16 else 3e-2
        np.testing.assert_allclose(np.asarray(got.float()), np.asarray(ref), rtol=tol, atol=tol)


def test_sdpa_gradcheck_across_tiles():
    q = tl.tensor(rnd(1, 13, 5, seed=15)).requires_grad_(True)
    k = tl.tensor(rnd(1, 9, 5, seed=16)).requires_grad_(True)
    v = tl.tensor(rnd(1, 9, 18, seed=17)).requires_grad_(True)
    for causal in (False, True):
        assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=causal), (q, k, v))


# ---------------------------------------------------------------- convolution

def _conv_args(shape, seed, grad=False):
    t = tl.tensor(rnd(*shape, seed=seed))
    return t.requires_grad_(True) if grad else t


# (stride, padding, output_padding, dilation, groups): the first ones take the
# flipped-kernel path, the rest fall back to the column scatter.
CONVT = [(1, 0, 0, 1, 1), (1, 1, 0, 1, 2), (1, 2, 0, 2, 1), (1, 2, 0, 1, 1), (1, 1, 1, 2, 1),
         (2, 1, 1, 1, 2)]


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("s,p,op,d,g", CONVT)
def test_conv_transpose_flipped_kernel_path(nd, s, p, op, d, g):
    sp = {1: (7,), 2: (6, 5), 3: (4, 3, 5)}[nd]
    ks = (3, 2, 3)[:nd]
    x = rnd(2, 4, *sp, seed=20)
    w = rnd(4, 6 // g, *ks, seed=21)
    b = rnd(6, seed=22)
    f = getattr(F, f"conv_transpose{nd}d")
    got = f(tl.tensor(x), tl.tensor(w), tl.tensor(b), stride=s, padding=p, output_padding=op, groups=g, dilation=d)
    want = conv_ref(x, w, b, s, p, d, g, True, op)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-10)
    got32 = f(tl.tensor(x.astype(np.float32)), tl.tensor(w.astype(np.float32)), None, stride=s, padding=p,
              output_padding=op, groups=g, dilation=d)
    np.testing.assert_allclose(np.asarray(got32), conv_ref(x, w, None, s, p, d, g, True, op), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("oh", [1, 3, 10])
def test_conv_forward_row_chunks(oh):
    # 64 channels x 3x3 taps x 60 columns is 138 KB of float32 columns per
    # output row: the forward takes 3 rows per chunk, so 10 rows end on a
    # partial chunk. The input gradient (stride 1) goes through the same path.
    x = rnd(2, 64, oh, 60, seed=23, dtype=np.float32)
    w = rnd(8, 64, 3, 3, seed=24, dtype=np.float32) * 0.1
    tx = tl.tensor(x).requires_grad_(True)
    y = F.conv2d(tx, tl.tensor(w), padding=1)
    want = conv_ref(x.astype(np.float64), w.astype(np.float64), None, 1, 1, 1, 1)
    np.testing.assert_allclose(np.asarray(y.detach()), want, rtol=1e-4, atol=1e-4)
    g = rnd(*want.shape, seed=25, dtype=np.float32)
    y.backward(tl.tensor(g))
    want_dx = conv_ref(g.astype(np.float64), w.astype(np.float64), None, 1, 1, 1, 1, True, 0)
    np.testing.assert_allclose(np.asarray(tx.grad), want_dx, rtol=1e-4, atol=1e-4)
    # Non-contiguous input (a channels-last view) gives the same result.
    xc = tl.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
    np.testing.assert_allclose(np.asarray(F.conv2d(xc, tl.tensor(w), padding=1)), np.asarray(y.detach()), rtol=1e-6,
                               atol=1e-6)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_conv_stride1_backward_reduced_precision(dtype):
    x = rnd(2, 3, 6, 7, seed=26, dtype=np.float32)
    w = rnd(5, 3, 3, 3, seed=27, dtype=np.float32) * 0.3
    tx = tl.tensor(x).to(dtype).requires_grad_(True)
    y = F.conv2d(tx, tl.tensor(w).to(dtype), padding=1)
    y.backward(tl.ones_like(y))
    ref = conv_ref(np.ones(tuple(y.shape)), w.astype(np.float64), None, 1, 1, 1, 1, True, 0)
    tol = 2e-2 if dtype == tl.float16 else 1e-1
    assert tx.grad.dtype == dtype
    np.testing.assert_allclose(np.asarray(tx.grad.float()), ref, rtol=tol, atol=tol)


def test_conv_gradcheck_stride1_and_dilated():
    x, w = _conv_args((1, 2, 5, 4), 28, True), _conv_args((3, 2, 2, 3), 29, True)
    assert gradcheck(lambda a, b: F.conv2d(a, b, padding=1, dilation=(2, 1)), (x, w))
    wt = _conv_args((2, 3, 2, 3), 30, True)
    assert gradcheck(lambda a, b: F.conv_transpose2d(a, b, padding=(1, 2)), (x, wt))


# ---------------------------------------------------------------- layer_norm (lane reductions)

def np_layer_norm(x, n, w, b, eps=1e-5):
    axes = tuple(range(x.ndim - n, x.ndim))
    mu = x.mean(axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    return y * w + b


@pytest.mark.parametrize("N", [1, 7, 31, 32, 33, 64, 65, 100])
def test_layer_norm_row_lengths_around_lanes(N):
    x, w, b = rnd(5, N, seed=40) + 3.0, rnd(N, seed=41), rnd(N, seed=42)
    tx, tw, tb = (tl.tensor(a).requires_grad_(True) for a in (x, w, b))
    y = F.layer_norm(tx, (N,), tw, tb)
    np.testing.assert_allclose(np.asarray(y.detach()), np_layer_norm(x, 1, w, b), rtol=1e-10, atol=1e-10)
    if N in (7, 33):  # one row length below and one past a full set of lanes (gradcheck is slow)
        gx = tl.tensor(x[:2]).requires_grad_(True)
        assert gradcheck(lambda a, c, d: F.layer_norm(a, (N,), c, d), (gx, tw, tb))
    x32 = tl.tensor(x.astype(np.float32))
    np.testing.assert_allclose(np.asarray(F.layer_norm(x32, (N,), tl.tensor(w.astype(np.float32)),
                                                       tl.tensor(b.astype(np.float32)))),
                               np_layer_norm(x, 1, w, b), rtol=1e-4, atol=1e-4)


def test_layer_norm_backward_float32_and_non_contiguous():
    x, w, b, g = rnd(3, 4, 70, seed=43), rnd(4, 70, seed=44), rnd(4, 70, seed=45), rnd(3, 4, 70, seed=46)
    t64 = [tl.tensor(a).requires_grad_(True) for a in (x, w, b)]
    F.layer_norm(t64[0], (4, 70), t64[1], t64[2]).backward(tl.tensor(g))
    # float32, with the input read through a transposed view.
    xt = tl.tensor(np.ascontiguousarray(x.astype(np.float32).transpose(1, 0, 2))).transpose(0, 1).requires_grad_(True)
    w32, b32 = (tl.tensor(a.astype(np.float32)).requires_grad_(True) for a in (w, b))
    F.layer_norm(xt, (4, 70), w32, b32).backward(tl.tensor(g.astype(np.float32)))
    for a, r in ((xt, t64[0]), (w32, t64[1]), (b32, t64[2])):
        np.testing.assert_allclose(np.asarray(a.grad), np.asarray(r.grad), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_layer_norm_reduced_precision(dtype):
    x, w, b = rnd(6, 65, seed=47), rnd(65, seed=48), rnd(65, seed=49)
    tx = tl.tensor(x.astype(np.float32)).to(dtype).requires_grad_(True)
    tw, tb = (tl.tensor(a.astype(np.float32)).to(dtype).requires_grad_(True) for a in (w, b))
    y = F.layer_norm(tx, (65,), tw, tb)
    assert y.dtype == dtype
    ref = np_layer_norm(np.asarray(tx.detach().float()).astype(np.float64), 1, np.asarray(tw.detach().float()),
                        np.asarray(tb.detach().float()))
    tol = 2e-2 if dtype == tl.float16 else 1e-1
    np.testing.assert_allclose(np.asarray(y.detach().float()), ref, rtol=tol, atol=tol)
    y.sum().backward()
    assert tx.grad.dtype == dtype and np.isfinite(np.asarray(tx.grad.float())).all()
    # The sum of a normalised row's input gradient is 0 up to rounding.
    np.testing.assert_allclose(np.asarray(tx.grad.float()).sum(-1), 0, atol=tol * 10)


# ---------------------------------------------------------------- max pooling (row-at-a-time interior)

def np_max_pool2d(x, k, s, p, d):
    N, C, H, W = x.shape
    OH, OW = (H + 2 * p - d * (k - 1) - 1) // s + 1, (W + 2 * p - d * (k - 1) - 1) // s + 1
    y = np.empty((N, C, OH, OW), x.dtype)
    idx = np.empty((N, C, OH, OW), np.int64)
    for oh in range(OH):
        for ow in range(OW):
            best = None
            for kh in range(k):
                for kw in range(k):
                    ih, iw = oh * s - p + kh * d, ow * s - p + kw * d
                    if not (0 <= ih < H and 0 <= iw < W):
                        continue
                    v = x[:, :, ih, iw]
                    i = ih * W + iw
                    if best is None:
                        best, bi = v.copy(), np.full(v.shape, i)
                    else:
                        take = (v > best) | np.isnan(v)
                        best, bi = np.where(take, v, best), np.where(take, i, bi)
            y[:, :, oh, ow], idx[:, :, oh, ow] = best, bi
    return y, idx


@pytest.mark.parametrize("k,s,p,d,W", [(3, 2, 1, 1, 9), (2, 2, 0, 1, 8), (3, 1, 1, 2, 7), (3, 2, 1, 1, 3),
                                       (2, 1, 1, 1, 1), (3, 3, 0, 1, 12)])
def test_max_pool2d_interior_rows(k, s, p, d, W):
    x = np.round(rnd(2, 3, 6, W, seed=50), 1)  # rounded: ties, where the first maximum must win
    x[0, 0, 2, :] = np.nan
    x[1, 2, 3, W // 2] = np.nan
    want, want_i = np_max_pool2d(x, k, s, p, d)
    for dt, tol in ((np.float64, 0), (np.float32, 1e-6)):
        y, i = F.max_pool2d(tl.tensor(x.astype(dt)), k, s, p, d, return_indices=True)
        np.testing.assert_allclose(np.asarray(y), want, rtol=tol, atol=tol)
        np.testing.assert_array_equal(np.asarray(i), want_i)
    # Non-contiguous input: the same windows through a transposed view.
    xt = tl.tensor(np.ascontiguousarray(x.swapaxes(2, 3))).transpose(2, 3)
    y, i = F.max_pool2d(xt, k, s, p, d, return_indices=True)
    np.testing.assert_array_equal(np.asarray(i), want_i)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.int32])
def test_max_pool2d_interior_rows_dtypes(dtype):
    x = np.round(rnd(1, 2, 7, 11, seed=51) * 4)
    want, want_i = np_max_pool2d(x, 3, 2, 1, 1)
    y, i = F.max_pool2d(tl.tensor(x.astype(np.float32)).to(dtype), 3, 2, 1, return_indices=True)
    assert y.dtype == dtype
    np.testing.assert_allclose(np.asarray(y.to(tl.float64)), want)
    np.testing.assert_array_equal(np.asarray(i), want_i)


def np_max_pool_nd(x, k, s, p):
    nd = x.ndim - 2
    xp = np.pad(x, ((0, 0), (0, 0)) + ((p, p),) * nd, constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(xp, (k,) * nd, axis=tuple(range(2, 2 + nd)))
    win = win[(slice(None), slice(None)) + (slice(None, None, s),) * nd]
    return win.max(axis=tuple(range(-nd, 0)))


def test_max_pool_1d_3d_and_gradcheck():
    x3 = rnd(1, 2, 4, 5, 9, seed=52)
    np.testing.assert_allclose(np.asarray(F.max_pool3d(tl.tensor(x3), 3, 2, 1)), np_max_pool_nd(x3, 3, 2, 1))
    x1 = rnd(2, 3, 10, seed=53)
    np.testing.assert_allclose(np.asarray(F.max_pool1d(tl.tensor(x1), 3, 2, 1)), np_max_pool_nd(x1, 3, 2, 1))
    xg = tl.tensor(rnd(1, 2, 5, 7, seed=54)).requires_grad_(True)
    assert gradcheck(lambda a: F.max_pool2d(a, 3, 2, 1), (xg,))
