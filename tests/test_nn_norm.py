"""What the op registry cannot express for the nn norm area: running-stat
updates, dropout statistics and determinism, embedding padding_idx / max_norm /
scale_grad_by_freq gradients, attention against NumPy with masks, causal and
GQA (forward and backward), second derivatives of softmax, and PyTorch parity
(skipped when torch is absent)."""
import math

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck

try:
    import torch
    import torch.nn.functional as TF
except Exception:  # pragma: no cover
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


def rnd(*shape, seed=0, dtype=np.float64, low=-2, high=2):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def T(a, grad=False):
    t = tl.tensor(a)
    if grad:
        t.requires_grad_(True)
    return t


# ---------------------------------------------------------------- batch / instance norm running stats

def test_batch_norm_updates_running_stats_with_unbiased_variance():
    x = rnd(6, 3, 4, seed=1, dtype=np.float32)
    rm, rv = np.full(3, 0.5, np.float32), np.full(3, 2.0, np.float32)
    trm, trv = T(rm), T(rv)
    F.batch_norm(T(x), trm, trv, training=True, momentum=0.2)
    n = 6 * 4
    mean = x.mean(axis=(0, 2))
    var_unbiased = x.var(axis=(0, 2)) * n / (n - 1)
    np.testing.assert_allclose(np.asarray(trm), 0.8 * rm + 0.2 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(trv), 0.8 * rv + 0.2 * var_unbiased, rtol=1e-5, atol=1e-6)


def test_batch_norm_eval_leaves_running_stats_and_uses_them():
    x = rnd(4, 3, seed=2, dtype=np.float32)
    trm, trv = T(np.array([0.1, -0.2, 0.3], np.float32)), T(np.array([1.5, 0.5, 2.0], np.float32))
    y = F.batch_norm(T(x), trm, trv, training=False)
    np.testing.assert_array_equal(np.asarray(trm), np.array([0.1, -0.2, 0.3], np.float32))
    want = (x - np.array([0.1, -0.2, 0.3])) / np.sqrt(np.array([1.5, 0.5, 2.0]) + 1e-5)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-5, atol=1e-6)


def test_batch_norm_single_value_per_channel_raises():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.batch_norm(T(np.ones((1, 3), np.float32)), None, None, training=True)


def test_batch_norm_eval_gradients():
    x, w, b = T(rnd(3, 2, 4, seed=3), True), T(rnd(2, seed=4), True), T(rnd(2, seed=5), True)
    rm, rv = T(np.array([0.3, -0.1])), T(np.array([1.2, 0.7]))
    assert gradcheck(lambda a, c, d: F.batch_norm(a, rm, rv, c, d, training=False), (x, w, b))


def test_layer_norm_weight_bias_gradients_only():
    x = T(rnd(3, 5, seed=6))
    w, b = T(rnd(5, seed=7), True), T(rnd(5, seed=8), True)
    assert gradcheck(lambda c, d: F.layer_norm(x, (5,), c, d), (w, b))
    y = F.layer_norm(T(rnd(3, 5, seed=6), True), (5,), w, None)
    y.sum().backward()
    assert w.grad is not None and b.grad is None


def test_instance_norm_running_stats_are_batch_means():
    x = rnd(2, 3, 5, seed=9, dtype=np.float32)
    trm, trv = T(np.zeros(3, np.float32)), T(np.ones(3, np.float32))
    F.instance_norm(T(x), trm, trv, momentum=0.5)
    mean = x.mean(axis=2)            # (N, C)
    var = x.var(axis=2) * 5 / 4
    np.testing.assert_allclose(np.asarray(trm), (0.5 * mean).mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(trv), (0.5 + 0.5 * var).mean(0), rtol=1e-5, atol=1e-6)


def test_group_norm_and_rms_norm_gradients():
    x, w, b = T(rnd(2, 4, 3, seed=10), True), T(rnd(4, seed=11), True), T(rnd(4, seed=12), True)
    assert gradcheck(lambda a, c, d: F.group_norm(a, 2, c, d), (x, w, b))
    x2, w2 = T(rnd(3, 4, seed=13), True), T(rnd(4, seed=14), True)
    assert gradcheck(lambda a, c: F.rms_norm(a, (4,), c), (x2, w2))


# ---------------------------------------------------------------- softmax

def test_softmax_second_derivatives():
    x = T(rnd(3, 4, seed=15), True)
    assert gradgradcheck(lambda a: tl.softmax(a, 1), (x,))
    assert gradgradcheck(lambda a: tl.log_softmax(a, 0), (x,))


def test_softmax_dtype_argument_and_half_accumulation():
    x = rnd(4, 300, seed=16, dtype=np.float32, low=-30, high=30)
    y = tl.softmax(T(x), 1, dtype=tl.float64)
    assert y.dtype == tl.float64
    h = tl.softmax(T(x).to(tl.float16), 1)
    ref = np.exp(x - x.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    np.testing.assert_allclose(np.asarray(h.float()), ref, atol=2e-3)
    g = T(x, True)
    tl.log_softmax(g, 1, dtype=tl.float64).sum().backward()
    assert g.grad.dtype == tl.float32


def test_softmax_nan_and_inf_rows():
    x = np.array([[1.0, np.nan, 0.0], [-np.inf, 0.0, -np.inf], [-np.inf, -np.inf, -np.inf]], np.float32)
    y = np.asarray(tl.softmax(T(x), 1))
    assert np.isnan(y[0]).all()
    np.testing.assert_array_equal(y[1], [0, 1, 0])
    assert np.isnan(y[2]).all()


def test_softmin_and_gumbel_softmax():
    x = rnd(3, 5, seed=17, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(F.softmin(T(x), 1)), np.asarray(tl.softmax(T(-x), 1)), rtol=1e-6)
    tl.manual_seed(0)
    a = F.gumbel_softmax(T(x), tau=0.5)
    tl.manual_seed(0)
    b = F.gumbel_softmax(T(x), tau=0.5)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_allclose(np.asarray(a).sum(1), 1, rtol=1e-5)
    logits = T(x, True)
    h = F.gumbel_softmax(logits, hard=True)
    hv = np.asarray(h.detach())
    assert set(np.unique(hv)) <= {0.0, 1.0} and (hv.sum(1) == 1).all()
    (h * T(rnd(3, 5, seed=18, dtype=np.float32))).sum().backward()
    assert logits.grad is not None and np.abs(np.asarray(logits.grad)).sum() > 0  # straight-through


def test_gumbel_softmax_follows_the_softmax_distribution():
    tl.manual_seed(1)
    logits = tl.tensor(np.log(np.array([0.2, 0.3, 0.5], np.float32))).expand(20000, 3).contiguous()
    picks = np.asarray(F.gumbel_softmax(logits, hard=True)).argmax(1)
    freq = np.bincount(picks, minlength=3) / picks.size
    np.testing.assert_allclose(freq, [0.2, 0.3, 0.5], atol=0.02)


# ---------------------------------------------------------------- dropout

@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_statistics(p):
    tl.manual_seed(3)
    x = tl.ones(200000)
    y = np.asarray(F.dropout(x, p))
    zero = (y == 0).mean()
    assert abs(zero - p) < 4 * math.sqrt(p * (1 - p) / y.size) + 1e-3
    np.testing.assert_allclose(y[y != 0], 1 / (1 - p), rtol=1e-6)
    assert abs(y.mean() - 1) < 0.02


def test_dropout_determinism_and_inplace():
    x = T(rnd(50, 40, seed=19, dtype=np.float32))
    tl.manual_seed(7)
    a = np.asarray(F.dropout(x, 0.3))
    tl.manual_seed(7)
    b = np.asarray(F.dropout(x, 0.3))
    np.testing.assert_array_equal(a, b)
    c = np.asarray(F.dropout(x, 0.3))
    assert not np.array_equal(a, c)
    y = x.clone()
    tl.manual_seed(7)
    r = F.dropout(y, 0.3, inplace=True)
    assert r is y
    np.testing.assert_array_equal(np.asarray(y), a)
    assert F.dropout(x, 0.3, training=False) is x


def test_dropout_gradient_uses_the_mask():
    x = T(rnd(30, 30, seed=20), True)
    tl.manual_seed(5)
    y = F.dropout(x, 0.4)
    y.sum().backward()
    yv, gv = np.asarray(y.detach()), np.asarray(x.grad)
    np.testing.assert_allclose(gv, np.where(yv != 0, 1 / 0.6, 0.0), rtol=1e-12)


def test_feature_dropout_zeroes_whole_channels():
    tl.manual_seed(11)
    y = np.asarray(F.dropout2d(tl.ones(8, 16, 5, 5), 0.5))
    per_channel = y.reshape(8, 16, 25)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    assert 0 < (per_channel == 0).all(-1).mean() < 1
    u = np.asarray(F.dropout1d(tl.ones(4, 6), 0.5))  # unbatched (C, L)
    assert ((u == 0).all(-1) | (u == 2).all(-1)).all()


def test_alpha_dropout_keeps_mean_and_variance():
    tl.manual_seed(2)
    x = tl.randn(400000)
    y = np.asarray(F.alpha_dropout(x, 0.3, training=True))
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    z = np.asarray(F.feature_alpha_dropout(tl.randn(64, 512, 4), 0.2, training=True))
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05


# ---------------------------------------------------------------- embedding

def test_embedding_padding_idx_gets_no_gradient():
    w = T(rnd(5, 3, seed=21), True)
    F.embedding(T(np.array([0, 2, 2, 4])), w, padding_idx=2).sum().backward()
    g = np.asarray(w.grad)
    np.testing.assert_array_equal(g[2], 0)
    np.testing.assert_array_equal(g[[0, 4]], 1)
    np.testing.assert_array_equal(g[[1, 3]], 0)


def test_embedding_scale_grad_by_freq():
    w = T(rnd(4, 2, seed=22), True)
    F.embedding(T(np.array([1, 1, 1, 3])), w, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(np.asarray(w.grad), [[0, 0], [1, 1], [0, 0], [1, 1]])


def test_embedding_max_norm_renormalises_in_place():
    wn = rnd(6, 4, seed=23, low=-3, high=3)
    w = T(wn.copy())
    F.embedding(T(np.array([1, 3, 3])), w, max_norm=1.0)
    got = np.asarray(w)
    for i in range(6):
        if i in (1, 3):
            assert np.linalg.norm(got[i]) <= 1.0 + 1e-6
            np.testing.assert_allclose(got[i] / np.linalg.norm(got[i]), wn[i] / np.linalg.norm(wn[i]))
        else:
            np.testing.assert_array_equal(got[i], wn[i])


def test_embedding_half_gradient_accumulates_in_float():
    w = T(np.zeros((2, 1), np.float32)).to(tl.float16).requires_grad_(True)
    idx = T(np.zeros(3000, np.int64))
    F.embedding(idx, w).backward(tl.full((3000, 1), 0.1, dtype=tl.float16))
    assert abs(float(w.grad[0, 0]) - 300) < 1  # float16 running sums would stall at 256


def test_embedding_bag_gradients():
    w = T(rnd(6, 3, seed=24), True)
    idx, off = T(np.array([0, 2, 2, 5, 1])), T(np.array([0, 2]))
    for mode in ("sum", "mean", "max"):
        assert gradcheck(lambda a: F.embedding_bag(idx, a, off, mode=mode), (w,))


# ---------------------------------------------------------------- attention

def np_attention(q, k, v, mask=None, causal=False, scale=None):
    s = (scale if scale is not None else 1 / math.sqrt(q.shape[-1])) * q @ np.swapaxes(k, -1, -2)
    if causal:
        mask = np.tril(np.ones(s.shape[-2:], bool))
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True) @ v


@pytest.mark.parametrize("L,S", [(5, 5), (37, 70), (70, 37), (1, 130)])
def test_sdpa_block_edges(L, S):
    q, k, v = rnd(2, 3, L, 8, seed=25), rnd(2, 3, S, 8, seed=26), rnd(2, 3, S, 5, seed=27)
    for causal in (False, True):
        got = F.scaled_dot_product_attention(T(q), T(k), T(v), is_causal=causal)
        want = np_attention(q, k, v, causal=causal)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-12)


def test_sdpa_backward_masks_causal_gqa():
    q, k, v = T(rnd(1, 4, 3, 4, seed=28), True), T(rnd(1, 2, 5, 4, seed=29), True), T(rnd(1, 2, 5, 3, seed=30), True)
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), (q, k, v))
    q2, k2, v2 = T(rnd(2, 4, 4, seed=31), True), T(rnd(2, 6, 4, seed=32), True), T(rnd(2, 6, 3, seed=33), True)
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), (q2, k2, v2))
    bm = np.random.default_rng(1).integers(0, 2, (4, 6)).astype(bool)
    bm[:, 0] = True
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, T(bm)), (q2, k2, v2))
    fm = T(rnd(2, 1, 6, seed=34))
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, fm, scale=0.7), (q2, k2, v2))


def test_sdpa_fully_masked_row_is_nan_and_dropout_path():
    q, k, v = rnd(1, 2, 4, seed=35), rnd(1, 3, 4, seed=36), rnd(1, 3, 2, seed=37)
    m = np.ones((2, 3), bool)
    m[1] = False
    y = np.asarray(F.scaled_dot_product_attention(T(q), T(k), T(v), T(m)))
    assert np.isnan(y[0, 1]).all() and not np.isnan(y[0, 0]).any()
    tl.manual_seed(0)
    d = F.scaled_dot_product_attention(T(q), T(k), T(v), dropout_p=0.5)
    assert d.shape == (1, 2, 2)


def test_sdpa_errors():
    with pytest.raises(RuntimeError, match="same embedding size"):
        F.scaled_dot_product_attention(tl.ones(2, 3), tl.ones(2, 4), tl.ones(2, 3))
    with pytest.raises(RuntimeError, match="heads"):
        F.scaled_dot_product_attention(tl.ones(1, 3, 2, 4), tl.ones(1, 2, 2, 4), tl.ones(1, 2, 2, 4),
                                       enable_gqa=True)


# ---------------------------------------------------------------- PyTorch parity

@needs_torch
def test_parity_with_pytorch():
    rng = np.random.default_rng(40)
    x = rng.standard_normal((4, 6, 5)).astype(np.float32)
    w6, b6 = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    tx, px = tl.tensor(x), torch.tensor(x)

    def same(a, b, tol=1e-5):
        np.testing.assert_allclose(np.asarray(a.detach() if hasattr(a, "detach") else a), b.detach().numpy(),
                                   rtol=tol, atol=tol)

    same(F.softmax(tx, 1), TF.softmax(px, 1))
    same(F.log_softmax(tx, 2), TF.log_softmax(px, 2))
    same(F.softmin(tx, 0), TF.softmin(px, 0))
    same(F.layer_norm(tx, (6, 5)), TF.layer_norm(px, (6, 5)))
    same(F.group_norm(tx, 3, tl.tensor(w6), tl.tensor(b6)), TF.group_norm(px, 3, torch.tensor(w6), torch.tensor(b6)))
    same(F.instance_norm(tx), TF.instance_norm(px))
    same(F.rms_norm(tx, (5,)), TF.rms_norm(px, (5,)))
    same(F.local_response_norm(tx, 3), TF.local_response_norm(px, 3))
    same(F.local_response_norm(tl.tensor(x[:, :, :, None]), 4), TF.local_response_norm(torch.tensor(x[:, :, :, None]), 4))
    same(F.normalize(tx, p=3.0, dim=2), TF.normalize(px, p=3.0, dim=2))
    trm, trv = tl.zeros(6), tl.ones(6)
    prm, prv = torch.zeros(6), torch.ones(6)
    same(F.batch_norm(tx, trm, trv, training=True), TF.batch_norm(px, prm, prv, training=True))
    same(trm, prm)
    same(trv, prv)
    # gradients of the fused norms
    gx, gw, gb = (tl.tensor(a).requires_grad_(True) for a in (x, rng.standard_normal(5).astype(np.float32),
                                                               rng.standard_normal(5).astype(np.float32)))
    hx, hw, hb = (torch.tensor(np.asarray(a.detach())).requires_grad_(True) for a in (gx, gw, gb))
    go = rng.standard_normal(x.shape).astype(np.float32)
    F.layer_norm(gx, (5,), gw, gb).backward(tl.tensor(go))
    TF.layer_norm(hx, (5,), hw, hb).backward(torch.tensor(go))
    for a, b in ((gx, hx), (gw, hw), (gb, hb)):
        same(a.grad, b.grad, 1e-4)
    bx = tl.tensor(x).requires_grad_(True)
    cx = torch.tensor(x).requires_grad_(True)
    bw, cw = tl.tensor(w6).requires_grad_(True), torch.tensor(w6).requires_grad_(True)
    F.batch_norm(bx, None, None, bw, None, training=True).backward(tl.tensor(go))
    TF.batch_norm(cx, None, None, cw, None, training=True).backward(torch.tensor(go))
    same(bx.grad, cx.grad, 1e-4)
    same(bw.grad, cw.grad, 1e-4)
    # embedding / embedding_bag / bilinear / attention
    table = rng.standard_normal((10, 4)).astype(np.float32)
    idx = np.array([1, 4, 4, 9, 0, 2], np.int64)
    off = np.array([0, 3, 3], np.int64)
    for mode in ("sum", "mean", "max"):
        same(F.embedding_bag(tl.tensor(idx), tl.tensor(table), tl.tensor(off), mode=mode, padding_idx=4),
             TF.embedding_bag(torch.tensor(idx), torch.tensor(table), torch.tensor(off), mode=mode, padding_idx=4))
    t1, t2 = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 2)).astype(np.float32)
    bw3 = rng.standard_normal((5, 4, 2)).astype(np.float32)
    same(F.bilinear(tl.tensor(t1), tl.tensor(t2), tl.tensor(bw3)), TF.bilinear(torch.tensor(t1), torch.tensor(t2),
                                                                               torch.tensor(bw3)))
    q, k, v = (rng.standard_normal((2, 4, 7, 8)).astype(np.float32) for _ in range(3))
    kg, vg = k[:, :2], v[:, :2]
    same(F.scaled_dot_product_attention(tl.tensor(q), tl.tensor(kg), tl.tensor(vg), is_causal=True, enable_gqa=True),
         TF.scaled_dot_product_attention(torch.tensor(q), torch.tensor(kg), torch.tensor(vg), is_causal=True,
                                         enable_gqa=True))
    am = rng.standard_normal((7, 7)).astype(np.float32)
    same(F.scaled_dot_product_attention(tl.tensor(q), tl.tensor(k), tl.tensor(v), tl.tensor(am)),
         TF.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), torch.tensor(am)))
