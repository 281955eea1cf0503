"""The host/device building blocks of the CUDA nn kernels
(csrc/aten/native/CudaNnPlan.h), run on the CPU through torchlike._C test
hooks (csrc/python/CudaNnTesting.cpp): the same code the kernels run, checked
against NumPy, against c10's host Philox generator and against the CPU
kernels (dropout's mask, sort's order). Also the fused norm backward ops the
autograd helpers dispatch to on a device (_native_layer_norm_backward,
_native_batch_norm_backward), on CPU and Meta. No GPU needed."""
import math
import random

import numpy as np
import pytest

import torchlike
from torchlike import _C


# ---------------------------------------------------------------- Philox and dropout

def test_philox_matches_host_generator():
    rng = random.Random(7)
    cases = [(0, 0, 0), (67280421310721, 0, 0), (2**64 - 1, 2**64 - 1, 2**64 - 1), (1, 0, 2**32), (5, 3, 2**32 - 1)]
    cases += [(rng.getrandbits(64), rng.getrandbits(64), rng.getrandbits(64)) for _ in range(200)]
    for seed, hi, lo in cases:
        plan, host = _C._cuda_nn_philox(seed, hi, lo)
        assert plan == host


@pytest.mark.parametrize("n", [1, 2, 7, 64, 1001])
@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_bernoulli_mask_matches_cpu(n, p):
    # The CUDA kernel's draw for element i (counter base + i/2) must give the
    # CPU kernel's mask for the same seed and counter offset.
    torchlike.manual_seed(2024)
    first = torchlike.empty(n).bernoulli_(p)
    second = torchlike.empty(3, n).bernoulli_(p)   # the next fill starts after the first's counters
    mask1, used1 = _C._cuda_nn_bernoulli_mask(2024, 0, n, p)
    mask2, _ = _C._cuda_nn_bernoulli_mask(2024, used1, 3 * n, p)
    assert used1 == (n + 1) // 2
    assert first.tolist() == [float(b) for b in mask1]
    assert second.reshape(-1).tolist() == [float(b) for b in mask2]


def test_dropout_mask_matches_counter_scheme():
    # nn.functional.dropout is bernoulli_(1 - p) scaled: its zero pattern is the scheme's mask.
    torchlike.manual_seed(99)
    x = torchlike.ones(4, 33)
    y = torchlike.nn.functional.dropout(x, p=0.25, training=True)
    mask, _ = _C._cuda_nn_bernoulli_mask(99, 0, x.numel(), 0.75)
    keep = np.frombuffer(mask, dtype=np.uint8).astype(bool).reshape(4, 33)
    got = y.numpy()
    assert np.array_equal(got != 0, keep)
    np.testing.assert_allclose(got[keep], 1 / 0.75, rtol=1e-6)


def test_bernoulli_mask_statistics():
    mask, _ = _C._cuda_nn_bernoulli_mask(31337, 12345, 200000, 0.3)
    frac = np.frombuffer(mask, dtype=np.uint8).mean()
    assert abs(frac - 0.3) < 0.005


# ---------------------------------------------------------------- online softmax

def _ref_max_sum(v):
    v = np.asarray(v, dtype=np.float64)
    m = v.max()
    return m, np.exp(v - m).sum()


@pytest.mark.parametrize("threads", [1, 2, 32, 256])
@pytest.mark.parametrize("n", [1, 5, 31, 1000])
def test_online_softmax_combine(threads, n):
    rng = np.random.default_rng(n * 1000 + threads)
    v = (rng.standard_normal(n) * 20).tolist()
    m, s = _C._cuda_nn_online_softmax(v, threads, False)
    rm, rs = _ref_max_sum(v)
    assert m == pytest.approx(rm, rel=1e-6)
    assert s == pytest.approx(rs, rel=1e-5)
    m, s = _C._cuda_nn_online_softmax(v, threads, True)
    assert m == rm
    assert s == pytest.approx(rs, rel=1e-12)


def test_online_softmax_special_values():
    # -inf entries contribute nothing; more threads than elements leave empty lanes.
    m, s = _C._cuda_nn_online_softmax([-math.inf, 1.0, -math.inf, 2.0], 8, True)
    assert m == 2.0 and s == pytest.approx(1 + math.exp(-1.0))
    m, s = _C._cuda_nn_online_softmax([1.0, math.nan, 3.0], 2, True)
    assert math.isnan(s)
    # A row of -inf only stays "empty", so the kernel's exp(x - max) / sum is NaN, as on CPU.
    m, s = _C._cuda_nn_online_softmax([-math.inf, -math.inf], 4, True)
    assert m == -math.inf and s == 0.0
    ref = torchlike.softmax(torchlike.tensor([-math.inf, -math.inf]), 0)
    assert all(math.isnan(x) for x in ref.tolist())


def test_online_softmax_matches_cpu_kernel():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 300)).astype(np.float32) * 4
    ref = torchlike.softmax(torchlike.from_numpy(x), 1).numpy()
    for r in range(6):
        m, s = _C._cuda_nn_online_softmax(x[r].tolist(), 128, False)
        got = np.exp(x[r].astype(np.float64) - m) / s
        np.testing.assert_allclose(got, ref[r], rtol=2e-5, atol=1e-7)


# ---------------------------------------------------------------- Welford

@pytest.mark.parametrize("threads", [1, 4, 32, 1024])
@pytest.mark.parametrize("n", [1, 2, 17, 4096])
def test_welford_combine(threads, n):
    rng = np.random.default_rng(n + threads)
    v = rng.standard_normal(n) * 3 + 1000.0   # a large mean: the case naive sums of squares get wrong
    count, mean, var = _C._cuda_nn_welford(v.tolist(), threads)
    vf = v.astype(np.float32).astype(np.float64)
    assert count == n
    assert mean == pytest.approx(vf.mean(), rel=1e-6)
    assert var == pytest.approx(vf.var(), rel=2e-3, abs=1e-4)


def test_welford_matches_layer_norm_stats():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 257)).astype(np.float32) + 50
    _, mean, rstd = torchlike.native_layer_norm(torchlike.from_numpy(x), [257], None, None, 1e-5)
    for r in range(4):
        _, mu, var = _C._cuda_nn_welford(x[r].tolist(), 256)
        assert mu == pytest.approx(mean[r, 0].item(), rel=1e-6)
        assert 1 / math.sqrt(var + 1e-5) == pytest.approx(rstd[r, 0].item(), rel=1e-3)


# ---------------------------------------------------------------- bitonic sort

@pytest.mark.parametrize("n", [1, 2, 3, 8, 13, 100, 257])
@pytest.mark.parametrize("descending", [False, True])
def test_bitonic_network_is_the_stable_sort(n, descending):
    rng = np.random.default_rng(n)
    v = rng.integers(-5, 5, n).astype(np.float64)   # many ties: stability matters
    if n > 4:
        v[[1, n // 2]] = np.nan
        v[2] = np.inf
        v[3] = -np.inf
    vals, idx = _C._cuda_nn_bitonic_sort(v.tolist(), descending)
    ref = torchlike.sort(torchlike.from_numpy(v), stable=True, descending=descending)
    assert idx == ref.indices.tolist()
    np.testing.assert_array_equal(np.array(vals), ref.values.numpy())
    # and NumPy's stable argsort ascending (NaN last, as torchlike)
    if not descending:
        assert idx == np.argsort(v, kind="stable").tolist()


def test_row_block_threads():
    for n, t in [(1, 32), (128, 32), (129, 64), (4096, 1024), (10**7, 1024)]:
        assert _C._cuda_nn_row_block_threads(n) == t


# ---------------------------------------------------------------- fused norm backward ops

def _layer_norm_grads(x, w, b, shape):
    x = x.detach().requires_grad_()
    w = w.detach().requires_grad_() if w is not None else None
    b = b.detach().requires_grad_() if b is not None else None
    y = torchlike.nn.functional.layer_norm(x, shape, w, b)
    g = torchlike.randn(y.shape, dtype=y.dtype)
    y.backward(g)
    return g, x.grad, (w.grad if w is not None else None), (b.grad if b is not None else None)


@pytest.mark.parametrize("affine", [True, False])
def test_native_layer_norm_backward_op(affine):
    torchlike.manual_seed(0)
    x = torchlike.randn(3, 5, 6, dtype=torchlike.float64)
    w = torchlike.randn(5, 6, dtype=torchlike.float64) if affine else None
    b = torchlike.randn(5, 6, dtype=torchlike.float64) if affine else None
    g, dx, dw, db = _layer_norm_grads(x, w, b, [5, 6])
    _, mean, rstd = torchlike.native_layer_norm(x, [5, 6], w, b, 1e-5)
    gx, gw, gb = torchlike._native_layer_norm_backward(g, x, [5, 6], mean, rstd, w, b, True, True, True)
    np.testing.assert_allclose(gx.numpy(), dx.numpy(), rtol=1e-10, atol=1e-12)
    if affine:
        np.testing.assert_allclose(gw.numpy(), dw.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(gb.numpy(), db.numpy(), rtol=1e-10, atol=1e-12)
    else:
        assert gw is None
    # the flags pick the outputs
    gx, gw, gb = torchlike._native_layer_norm_backward(g, x, [5, 6], mean, rstd, w, b, False, False, True)
    assert gx is None and gw is None and gb is not None


def test_native_batch_norm_backward_op():
    torchlike.manual_seed(1)
    x = torchlike.randn(4, 3, 5, dtype=torchlike.float64)
    w = torchlike.randn(3, dtype=torchlike.float64)
    b = torchlike.randn(3, dtype=torchlike.float64)
    rm, rv = torchlike.zeros(3, dtype=torchlike.float64), torchlike.ones(3, dtype=torchlike.float64)
    xr, wr, br = (t.clone().requires_grad_() for t in (x, w, b))
    y = torchlike.nn.functional.batch_norm(xr, rm.clone(), rv.clone(), wr, br, training=True)
    g = torchlike.randn(y.shape, dtype=y.dtype)
    y.backward(g)
    _, save_mean, save_invstd = torchlike.native_batch_norm(x, w, b, rm.clone(), rv.clone(), True, 0.1, 1e-5)
    gx, gw, gb = torchlike._native_batch_norm_backward(g, x, w, rm, rv, save_mean, save_invstd, True, 1e-5,
                                                       True, True, True)
    np.testing.assert_allclose(gx.numpy(), xr.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw.numpy(), wr.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), br.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_norm_backward_ops_meta_and_errors():
    m = dict(device="meta")
    x = torchlike.empty(2, 3, 4, **m)
    stats = torchlike.empty(2, 1, 1, **m)
    gx, gw, gb = torchlike._native_layer_norm_backward(x, x, [3, 4], stats, stats, torchlike.empty(3, 4, **m), None,
                                                       True, True, True)
    assert gx.shape == (2, 3, 4) and gw.shape == (3, 4) and gb.shape == (3, 4) and gx.device.type == "meta"
    gx, gw, gb = torchlike._native_batch_norm_backward(x, x, None, None, None, None, None, True, 1e-5,
                                                       True, True, True)
    assert gx.shape == (2, 3, 4) and gw is None and gb.shape == (3,)
    with pytest.raises(RuntimeError, match="grad_out has shape"):
        torchlike._native_layer_norm_backward(torchlike.empty(2, 3, **m), x, [3, 4], stats, stats, None, None,
                                              True, False, False)
    with pytest.raises(RuntimeError, match="grad_out has shape"):
        torchlike._native_batch_norm_backward(torchlike.empty(2, 3), torchlike.empty(2, 3, 4), None, None, None,
                                              None, None, False, 1e-5, True, False, False)
