"""Convolution and pooling beyond the op registry (tests/opinfo/nn_conv_pool.py):
second derivatives, non-contiguous inputs, reduced-precision compute, the
threaded large-batch path, front-end argument errors, and parity with PyTorch
over option combinations (skipped when torch is not installed)."""
import itertools

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck


def _t(shape, seed=0, grad=False, dtype=np.float64):
    a = np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(dtype)
    return tl.tensor(a, requires_grad=grad)


# ---------------------------------------------------------------- autograd

@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_second_derivatives(transposed):
    x = _t((2, 4, 4, 3), 0, True)
    w = _t((4, 2, 2, 2), 1, True)
    b = _t((4,), 2, True)
    if transposed:
        def f(x, w, b):
            return F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)
    else:
        def f(x, w, b):
            return F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))


@pytest.mark.parametrize("fn", [
    lambda x: F.max_pool2d(x, 2, 1, 1),
    lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
    lambda x: F.adaptive_max_pool2d(x, 2),
    lambda x: F.unfold(x, 2, padding=1, stride=2),
    lambda x: F.fold(F.unfold(x, 2), (4, 5), 2),
])
def test_pooling_second_derivatives(fn):
    x = tl.tensor(np.random.default_rng(3).permutation(40).reshape(1, 2, 4, 5).astype(np.float64) / 7,
                  requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_max_unpool_inverts_max_pool_positions():
    x = tl.tensor(np.random.default_rng(4).permutation(36).reshape(1, 1, 6, 6).astype(np.float32))
    v, i = F.max_pool2d(x, 2, return_indices=True)
    u = F.max_unpool2d(v, i, 2)
    mask = np.asarray(u) != 0
    assert mask.sum() == 9
    np.testing.assert_array_equal(np.asarray(u)[mask], np.asarray(x)[mask])


def test_max_unpool_overlapping_windows_write_once():
    # kernel 3 stride 1: one maximum wins several windows; unpool writes it once, not summed.
    x = tl.tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 16))
    v, i = F.max_pool1d(x, 3, 1, return_indices=True)
    u = F.max_unpool1d(v, i, 3, 1)
    np.testing.assert_array_equal(np.asarray(u)[0, 0, 2:], np.arange(2, 16))


# ---------------------------------------------------------------- layouts, dtypes, threads

def test_non_contiguous_inputs_match_contiguous():
    x = _t((2, 6, 5, 3), 5).transpose(1, 3)  # (2, 3, 5, 6), channels last in memory
    w = _t((4, 3, 3, 3), 6).transpose(2, 3)
    assert not x.is_contiguous()
    ref = F.conv2d(x.contiguous(), w.contiguous(), padding=1)
    np.testing.assert_allclose(np.asarray(F.conv2d(x, w, padding=1)), np.asarray(ref), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.asarray(F.max_pool2d(x, 2)), np.asarray(F.max_pool2d(x.contiguous(), 2)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_conv_accumulates_in_float(dtype):
    # 64 products of 1.0 + 2**-9: float16 accumulation would round every partial sum.
    x = tl.ones((1, 64, 1, 1), dtype=getattr(tl, dtype))
    w = tl.full((1, 64, 1, 1), 1 + 2 ** -9, dtype=getattr(tl, dtype))
    y = F.conv2d(x, w)
    assert y.dtype == getattr(tl, dtype)
    exact = 64 * float(tl.tensor(1 + 2 ** -9, dtype=getattr(tl, dtype)))
    assert abs(float(y) - exact) <= abs(exact) * (2 ** -8 if dtype == "bfloat16" else 2 ** -11)


def test_large_batch_threaded_path_matches_per_image():
    # Big enough to take the images-over-threads path (>= 2**24 multiply-adds).
    x = _t((8, 16, 24, 24), 7, dtype=np.float32)
    w = _t((32, 16, 3, 3), 8, dtype=np.float32)
    y = F.conv2d(x, w, padding=1)
    per_image = [np.asarray(F.conv2d(x[i:i + 1], w, padding=1)) for i in range(8)]
    np.testing.assert_allclose(np.asarray(y), np.concatenate(per_image), rtol=1e-5, atol=1e-5)
    xg, wg = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    F.conv2d(xg, wg, padding=1).sum().backward()
    gw = sum(np.asarray(tl.autograd.grad(F.conv2d(x[i:i + 1], wr, padding=1).sum(), wr)[0])
             for i in range(8) for wr in [w.clone().requires_grad_(True)])
    np.testing.assert_allclose(np.asarray(wg.grad), gw, rtol=1e-4, atol=1e-3)


def test_meta_shapes_through_front_ends():
    x = tl.empty((2, 3, 9, 9), device="meta")
    w = tl.empty((4, 3, 3, 2), device="meta")
    assert tuple(F.conv2d(x, w, padding="same").shape) == (2, 4, 9, 9)
    assert tuple(F.conv_transpose2d(x, tl.empty((3, 2, 3, 3), device="meta"), stride=2).shape) == (2, 2, 19, 19)
    v, i = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    assert tuple(v.shape) == (2, 3, 5, 5) and i.dtype == tl.int64


# ---------------------------------------------------------------- errors

def test_front_end_errors():
    x = _t((1, 2, 5, 5))
    with pytest.raises(RuntimeError, match="Invalid padding string: 'full'"):
        F.conv2d(x, _t((2, 2, 3, 3)), padding="full")
    with pytest.raises(RuntimeError, match="kernel_size must either be a single int, or a tuple of 2 ints"):
        F.max_pool2d(x, (2, 2, 2))
    with pytest.raises(TypeError, match="padding"):
        F.conv_transpose2d(x, _t((2, 2, 3, 3)), padding="same")
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.avg_pool2d(tl.ones((1, 1, 4, 4), dtype=tl.int64), 2)
    with pytest.raises(RuntimeError, match="non-empty"):
        F.max_pool2d(tl.ones((1, 0, 4, 4)), 2)


# ---------------------------------------------------------------- PyTorch parity

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # pragma: no cover - parity tests skip
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


def _both(shape, seed):
    a = np.random.default_rng(seed).uniform(-1, 1, size=shape)
    return tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a.detach()), b.detach().numpy(), rtol=tol, atol=tol)


# Half the combinations (the suite's time budget): those with an even sum of
# option indices, so every value of every option still meets the others.
def _half(space):
    return [c for c in itertools.product(*space)
            if sum(v.index(x) for v, x in zip(space, c)) % 2 == 0]


CONV_CASES = [dict(stride=s, padding=p, dilation=d, groups=g)
              for s, p, d, g in _half([[1, 2], [0, 1, "same", "valid"], [1, 2], [1, 2]])
              if not (p == "same" and s != 1)]


@needs_torch
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", CONV_CASES, ids=[str(c) for c in CONV_CASES])
def test_conv_parity_with_torch(nd, kw):
    sp = {1: (9,), 2: (7, 6), 3: (5, 4, 6)}[nd]
    x, tx = _both((2, 4) + sp, 0)
    w, tw = _both((6, 4 // kw["groups"]) + (3, 2, 3)[:nd], 1)
    b, tb = _both((6,), 2)
    y = getattr(F, f"conv{nd}d")(x, w, b, **kw)
    ty = getattr(TF, f"conv{nd}d")(tx, tw, tb, **kw)
    _close(y, ty)
    g = np.random.default_rng(3).uniform(-1, 1, size=tuple(ty.shape))
    y.backward(tl.tensor(g))
    ty.backward(torch.tensor(g))
    for a, t in ((x, tx), (w, tw), (b, tb)):
        _close(a.grad, t.grad)


CONVT_CASES = [dict(stride=s, padding=p, output_padding=o, dilation=d, groups=g)
               for s, p, o, d, g in _half([[1, 2, 3], [0, 1], [0, 1], [1, 2], [1, 2]])
               if o < max(s, d)]


@needs_torch
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", CONVT_CASES, ids=[str(c) for c in CONVT_CASES])
def test_conv_transpose_parity_with_torch(nd, kw):
    sp = {1: (5,), 2: (4, 3), 3: (3, 2, 3)}[nd]
    x, tx = _both((2, 4) + sp, 0)
    w, tw = _both((4, 6 // kw["groups"]) + (3, 2, 2)[:nd], 1)
    y = getattr(F, f"conv_transpose{nd}d")(x, w, None, **kw)
    ty = getattr(TF, f"conv_transpose{nd}d")(tx, tw, None, **kw)
    _close(y, ty)
    g = np.random.default_rng(3).uniform(-1, 1, size=tuple(ty.shape))
    y.backward(tl.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad)
    _close(w.grad, tw.grad)


POOL_CASES = [dict(kernel_size=k, stride=s, padding=p, ceil_mode=c)
              for k, s, p, c in itertools.product([2, 3], [None, 1, 2], [0, 1], [False, True])]


@needs_torch
@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("kw", POOL_CASES, ids=[str(c) for c in POOL_CASES])
def test_pool_parity_with_torch(nd, kw):
    sp = {1: (11,), 2: (7, 8), 3: (5, 6, 5)}[nd]
    x, tx = _both((2, 3) + sp, 0)
    for dil in (1, 2):
        if kw["padding"] > (dil * (kw["kernel_size"] - 1) + 1) // 2 or kw["padding"] > kw["kernel_size"] // 2:
            continue
        v, i = getattr(F, f"max_pool{nd}d")(x, dilation=dil, return_indices=True, **kw)
        tv, ti = getattr(TF, f"max_pool{nd}d")(tx, dilation=dil, return_indices=True, **kw)
        _close(v, tv)
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    for cip in (True, False):
        a = getattr(F, f"avg_pool{nd}d")(x, count_include_pad=cip, **kw)
        ta = getattr(TF, f"avg_pool{nd}d")(tx, count_include_pad=cip, **kw)
        _close(a, ta)
    g = np.random.default_rng(1).uniform(-1, 1, size=tuple(ta.shape))
    a.backward(tl.tensor(g))
    ta.backward(torch.tensor(g))
    _close(x.grad, tx.grad)


@needs_torch
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_lp_unpool_parity_with_torch(nd):
    sp = {1: (11,), 2: (7, 8), 3: (5, 6, 4)}[nd]
    x, tx = _both((2, 3) + sp, 0)
    for size in [1, 3, tuple(s + 2 for s in sp)]:
        _close(getattr(F, f"adaptive_avg_pool{nd}d")(x, size), getattr(TF, f"adaptive_avg_pool{nd}d")(tx, size))
        v, i = getattr(F, f"adaptive_max_pool{nd}d")(x, size, return_indices=True)
        tv, ti = getattr(TF, f"adaptive_max_pool{nd}d")(tx, size, return_indices=True)
        _close(v, tv)
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    xa, txa = x.abs() + 0.1, tx.abs() + 0.1
    for p, k, s in [(2, 2, None), (3, 3, 2), (1.5, 2, 1)]:
        _close(getattr(F, f"lp_pool{nd}d")(xa, p, k, s), getattr(TF, f"lp_pool{nd}d")(txa, p, k, s))
    v, i = getattr(F, f"max_pool{nd}d")(x, 2, return_indices=True)
    tv, ti = getattr(TF, f"max_pool{nd}d")(tx, 2, return_indices=True)
    _close(getattr(F, f"max_unpool{nd}d")(v, i, 2, output_size=sp),
           getattr(TF, f"max_unpool{nd}d")(tv, ti, 2, output_size=sp))


@needs_torch
def test_fold_unfold_parity_with_torch():
    x, tx = _both((2, 3, 7, 6), 0)
    for kw in [dict(kernel_size=2), dict(kernel_size=(3, 2), dilation=(2, 1), padding=(1, 2), stride=(2, 3))]:
        u, tu = F.unfold(x, **kw), TF.unfold(tx, **kw)
        _close(u, tu)
        _close(F.fold(u, (7, 6), **kw), TF.fold(tu, (7, 6), **kw))
