"""Statistics ops beyond the registry (tests/opinfo/statistics.py): second
derivatives of logcumsumexp, quantile gradients through q, NaN handling,
histogram's out= and edge handling, histogramdd on Meta, gradient with
coordinates, and parity with PyTorch where it is installed."""
import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck


def _t(a, dtype=tl.float64, grad=False):
    return tl.tensor(np.asarray(a), dtype=dtype, requires_grad=grad)


def _rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- logcumsumexp

@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp_gradgradcheck(dim):
    x = _t(_rng(dim + 3).uniform(-3, 3, (3, 4)), grad=True)
    assert gradcheck(lambda a: tl.logcumsumexp(a, dim), (x,))
    assert gradgradcheck(lambda a: tl.logcumsumexp(a, dim), (x,))


def test_logcumsumexp_large_values_stay_finite():
    x = tl.tensor([1000.0, 1000.0, -1000.0, 1001.0])
    got = tl.logcumsumexp(x, 0).numpy()
    want = np.logaddexp.accumulate(np.array([1000.0, 1000.0, -1000.0, 1001.0]))
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # float16 accumulates in float32: values whose exp overflows float16 are fine
    h = tl.logcumsumexp(tl.tensor([20.0, 20.0, 19.0], dtype=tl.float16), 0)
    np.testing.assert_allclose(h.float().numpy(), np.logaddexp.accumulate([20.0, 20.0, 19.0]), rtol=2e-3)


def test_logcumsumexp_gradient_with_neg_inf_grad_signs():
    # Mixed-sign upstream gradients go through both log-space branches.
    x = _t(_rng(1).uniform(-2, 2, (6,)), grad=True)
    w = _t([1.0, -2.0, 0.0, 3.0, -0.5, 1.5])
    (g,) = tl.autograd.grad((tl.logcumsumexp(x, 0) * w).sum(), x)
    xs = x.detach().numpy()
    out = np.logaddexp.accumulate(xs)
    want = np.array([sum(w.numpy()[j] * np.exp(xs[k] - out[j]) for j in range(k, 6)) for k in range(6)])
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-10)


def test_logcumsumexp_out_dtype_mismatch():
    with pytest.raises(RuntimeError, match="expected out tensor to have dtype"):
        tl.logcumsumexp(tl.ones(3), 0, out=tl.empty(3, dtype=tl.float64))


# ---------------------------------------------------------------- quantile

def test_quantile_gradient_through_q_and_input():
    x = _t(_rng(2).uniform(-1, 1, (3, 6)), grad=True)
    q = _t([0.3, 0.55], grad=True)
    assert gradcheck(lambda a, b: tl.quantile(a, b, dim=1), (x, q))
    assert gradcheck(lambda a, b: tl.nanquantile(a, b, dim=0, keepdim=True), (x, q))
    assert gradcheck(lambda a: tl.quantile(a, 0.3, interpolation="midpoint"), (x,))


@pytest.mark.parametrize("mode", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_interpolation_modes(mode):
    x = np.array([3.0, 1.0, 4.0, 1.5, 9.0, 2.6, 5.0])
    q = np.array([0.0, 0.1, 0.25, 0.5, 0.75, 1 / 3, 1.0])
    got = tl.quantile(tl.tensor(x), tl.tensor(q), interpolation=mode).numpy()
    np.testing.assert_allclose(got, np.quantile(x, q, method=mode), rtol=1e-12)


def test_quantile_nan_rows():
    x = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan] * 4, [4.0, 3.0, 2.0, 1.0]])
    q = np.array([0.2, 0.5])
    got = tl.quantile(tl.tensor(x), tl.tensor(q), dim=1).numpy()
    assert np.isnan(got[:, :2]).all() and not np.isnan(got[:, 2]).any()
    got_nan = tl.nanquantile(tl.tensor(x), tl.tensor(q), dim=1).numpy()
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanquantile(x, q, axis=1)
    np.testing.assert_allclose(got_nan, want, rtol=1e-12, equal_nan=True)


def test_quantile_meta_and_too_large():
    m = tl.empty((4, 7), device="meta")
    assert tuple(tl.quantile(m, tl.tensor([0.1, 0.5], device="meta"), dim=1).shape) == (2, 4)
    assert tuple(tl.nanquantile(m, 0.5, dim=0, keepdim=True).shape) == (1, 7)
    big = tl.empty(2 ** 24 + 1, device="meta")
    with pytest.raises(RuntimeError, match="input tensor is too large"):
        tl.quantile(big, 0.5)


def test_quantile_out_dtype_checked():
    with pytest.raises(RuntimeError, match="out tensor must be same dtype"):
        tl.quantile(tl.ones(3), 0.5, out=tl.empty((), dtype=tl.float64))


# ---------------------------------------------------------------- histogram

def test_histogram_out_and_last_bin_closed():
    x = tl.tensor([0.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    hist, edges = tl.empty(0), tl.empty(0)
    r = tl.histogram(x, 5, range=(0.0, 4.0), out=(hist, edges))
    assert r.hist is hist and r.bin_edges is edges
    np.testing.assert_array_equal(hist.numpy(), [1, 2, 1, 1, 1])  # 4.0 in the closed last bin, 5.0 outside
    np.testing.assert_array_equal(hist.numpy(), np.histogram(x.numpy(), 5, range=(0, 4))[0])
    np.testing.assert_allclose(edges.numpy(), np.linspace(0, 4, 6))
    assert type(r).__name__ == "histogram" and r._fields == ("hist", "bin_edges")


def test_histogram_values_equal_to_inner_edges_go_right():
    edges = tl.tensor([0.0, 0.5, 1.0, 1.5])
    x = tl.tensor([0.5, 1.0, 1.5, 0.0, 0.49])
    h, _ = tl.histogram(x, edges)
    np.testing.assert_array_equal(h.numpy(), np.histogram(x.numpy(), edges.numpy())[0])


def test_histogram_empty_input_and_constant_input():
    h, e = tl.histogram(tl.tensor([], dtype=tl.float32), 4)
    np.testing.assert_array_equal(h.numpy(), np.zeros(4))
    np.testing.assert_allclose(e.numpy(), np.linspace(0, 1, 5))
    h, e = tl.histogram(tl.full((5,), 2.0), 2)  # an empty range widens by 0.5 each side
    np.testing.assert_allclose(e.numpy(), [1.5, 2.0, 2.5])
    np.testing.assert_array_equal(h.numpy(), [0, 5])


def test_histogram_large_parallel_matches_numpy():
    x = _rng(5).normal(size=300_000).astype(np.float32)
    h, e = tl.histogram(tl.tensor(x), 64)
    want, _ = np.histogram(x.astype(np.float64), bins=e.numpy().astype(np.float64))
    np.testing.assert_array_equal(h.numpy(), want)
    assert h.numpy().sum() == x.size


def test_histogram_meta_shapes():
    m = tl.empty((3, 5), device="meta")
    h, e = tl.histogram(m, 7)
    assert h.device.type == "meta" and tuple(h.shape) == (7,) and tuple(e.shape) == (8,)
    h, e = tl.histogram(m, tl.empty(4, device="meta"))
    assert tuple(h.shape) == (3,) and tuple(e.shape) == (4,)


def test_histogramdd_meta_shapes_and_tuple_edges():
    m = tl.empty((10, 3), device="meta")
    r = tl.histogramdd(m, [2, 3, 4])
    assert tuple(r.hist.shape) == (2, 3, 4) and [tuple(e.shape) for e in r.bin_edges] == [(3,), (4,), (5,)]
    assert isinstance(r.bin_edges, tuple)
    r = tl.histogramdd(m, [tl.empty(3, device="meta")] * 3)
    assert tuple(r.hist.shape) == (2, 2, 2)


def test_histogram_does_not_track_grad():
    x = tl.tensor([0.1, 0.5, 0.7], requires_grad=True)
    h, e = tl.histogram(x, 2)
    assert not h.requires_grad and not e.requires_grad


# ---------------------------------------------------------------- gradient

def test_gradient_coordinates_gradcheck_and_edge_order():
    x = _t(_rng(6).uniform(-1, 1, (5, 4)), grad=True)
    c = _t([0.0, 0.3, 1.0, 1.2, 2.0])
    for eo in (1, 2):
        assert gradcheck(lambda a: tl.gradient(a, spacing=[c], dim=0, edge_order=eo), (x,))
        assert gradcheck(lambda a: tl.gradient(a, spacing=(0.5, 2.0), edge_order=eo), (x,))


def test_gradient_second_order_exact_on_quadratics():
    # edge_order=2 differentiates a quadratic exactly, ends included, even on uneven samples.
    xs = np.array([0.0, 0.4, 1.0, 1.7, 3.0, 3.2])
    f = 3 * xs ** 2 - 2 * xs + 1
    (g,) = tl.gradient(tl.tensor(f), spacing=[tl.tensor(xs)], edge_order=2)
    np.testing.assert_allclose(g.numpy(), 6 * xs - 2, rtol=1e-10, atol=1e-10)


def test_gradient_int_input_gives_float():
    (g,) = tl.gradient(tl.tensor([1, 4, 9, 16]))
    assert g.dtype == tl.float32
    np.testing.assert_allclose(g.numpy(), np.gradient(np.array([1, 4, 9, 16.0])))


# ---------------------------------------------------------------- PyTorch parity

try:
    import torch as _torch
except ImportError:  # PyTorch is an optional reference
    _torch = None
needs_torch = pytest.mark.skipif(_torch is None, reason="PyTorch not installed")


@needs_torch
def test_parity_with_pytorch():
    rng = _rng(9)
    x = rng.normal(size=(6, 11)).astype(np.float32)
    x[2, 3] = np.nan
    q = np.array([0.1, 0.5, 0.93], np.float32)
    for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
        for f in ("quantile", "nanquantile"):
            got = getattr(tl, f)(tl.tensor(x), tl.tensor(q), dim=1, interpolation=mode).numpy()
            want = getattr(_torch, f)(_torch.tensor(x), _torch.tensor(q), dim=1, interpolation=mode).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True, err_msg=f"{f} {mode}")
    y = rng.normal(size=(4, 9)).astype(np.float32) * 30
    y[1, 2], y[2, :3] = np.inf, -np.inf
    np.testing.assert_allclose(tl.logcumsumexp(tl.tensor(y), 1).numpy(),
                               _torch.logcumsumexp(_torch.tensor(y), 1).numpy(), rtol=1e-6)
    z = rng.normal(size=10_000).astype(np.float32)
    for bins, kw in ((13, {}), (8, {"range": (-1.0, 2.0)}), (5, {"density": True})):
        h, e = tl.histogram(tl.tensor(z), bins, **kw)
        th, te = _torch.histogram(_torch.tensor(z), bins, **kw)
        np.testing.assert_array_equal(e.numpy(), te.numpy())
        np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-6)
    p = rng.normal(size=(500, 2)).astype(np.float32)
    r, tr = tl.histogramdd(tl.tensor(p), [3, 4]), _torch.histogramdd(_torch.tensor(p), [3, 4])
    np.testing.assert_array_equal(r.hist.numpy(), tr.hist.numpy())
    for a, b in zip(r.bin_edges, tr.bin_edges):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    g = rng.normal(size=(5, 6))
    c = np.cumsum(rng.uniform(0.1, 1, 6))
    for kw, tkw in (({"edge_order": 2}, {"edge_order": 2}),
                    ({"spacing": [tl.tensor(c)], "dim": 1}, {"spacing": [_torch.tensor(c)], "dim": 1})):
        for a, b in zip(tl.gradient(tl.tensor(g), **kw), _torch.gradient(_torch.tensor(g), **tkw)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


# ---------------------------------------------------------------- weight= and coordinates (keyword tensors)

_FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]


def _exact(a, dtype):
    """Values the dtype holds exactly (so NumPy bins the same numbers)."""
    return tl.tensor(a, dtype=getattr(tl, dtype)).float().numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", _FLOAT_DTYPES)
def test_histogram_weight_and_density_match_numpy(dtype):
    dt = getattr(tl, dtype)
    rng = _rng(11)
    x = _exact(rng.uniform(-5, 5, 60), dtype)
    w = _exact(rng.uniform(0, 2, 60), dtype)
    tol = {"float16": 2e-3, "bfloat16": 2e-2}.get(dtype, 1e-6)
    for density in (False, True):
        h, e = tl.histogram(tl.tensor(x, dtype=dt), 8, range=(-4.0, 4.0), weight=tl.tensor(w, dtype=dt),
                            density=density)
        want, edges = np.histogram(x, 8, range=(-4.0, 4.0), weights=w, density=density)
        np.testing.assert_allclose(h.float().numpy(), want, rtol=tol, atol=tol)
        np.testing.assert_allclose(e.float().numpy(), edges)
        b = tl.tensor([-5.0, -1.0, 0.0, 2.0, 5.0], dtype=dt)
        h, _ = tl.histogram(tl.tensor(x, dtype=dt), b, weight=tl.tensor(w, dtype=dt), density=density)
        want, _ = np.histogram(x, b.float().numpy().astype(np.float64), weights=w, density=density)
        np.testing.assert_allclose(h.float().numpy(), want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", _FLOAT_DTYPES)
def test_histogramdd_weight_matches_numpy(dtype):
    dt = getattr(tl, dtype)
    rng = _rng(12)
    p = _exact(rng.uniform(-3, 3, (50, 2)), dtype)
    w = _exact(rng.uniform(0, 2, 50), dtype)
    tol = {"float16": 2e-3, "bfloat16": 2e-2}.get(dtype, 1e-6)
    r = tl.histogramdd(tl.tensor(p, dtype=dt), [3, 4], range=[-3.0, 3.0, -2.0, 2.0], weight=tl.tensor(w, dtype=dt),
                       density=True)
    want, edges = np.histogramdd(p, [3, 4], range=[(-3, 3), (-2, 2)], weights=w, density=True)
    np.testing.assert_allclose(r.hist.float().numpy(), want, rtol=tol, atol=tol)
    for a, b in zip(r.bin_edges, edges):
        np.testing.assert_allclose(a.float().numpy(), b, rtol=1e-3)
    be = [tl.tensor([-3.0, 0.0, 3.0], dtype=dt), tl.tensor([-2.0, -1.0, 1.0, 2.0], dtype=dt)]
    r = tl.histogramdd(tl.tensor(p, dtype=dt), be, weight=tl.tensor(w, dtype=dt))
    want, _ = np.histogramdd(p, [b.float().numpy().astype(np.float64) for b in be], weights=w)
    np.testing.assert_allclose(r.hist.float().numpy(), want, rtol=tol, atol=tol)


def test_histogram_weight_errors():
    x = tl.ones((2, 3))
    with pytest.raises(RuntimeError, match="input tensor and weight tensor should have the same dtype"):
        tl.histogram(x, 3, weight=tl.ones((2, 3), dtype=tl.float64))
    with pytest.raises(RuntimeError, match="same shape as the input tensor"):
        tl.histogram(x, 3, weight=tl.ones(6))
    with pytest.raises(RuntimeError, match="same shape as the input tensor excluding its innermost"):
        tl.histogramdd(x, 2, weight=tl.ones(3))
    with pytest.raises(RuntimeError, match="range should have 2 elements"):
        tl.histogram(x, 3, range=(1.0,))


@pytest.mark.parametrize("dtype", _FLOAT_DTYPES)
def test_gradient_coordinates_match_numpy(dtype):
    dt = getattr(tl, dtype)
    f = _exact(_rng(13).uniform(-2, 2, (5, 6)), dtype)
    c = np.array([0.0, 0.5, 1.5, 2.0, 3.5])
    tol = {"float16": 3e-2, "bfloat16": 2e-1}.get(dtype, 1e-6)
    for eo in (1, 2):
        (g,) = tl.gradient(tl.tensor(f, dtype=dt), spacing=[tl.tensor(c, dtype=dt)], dim=0, edge_order=eo)
        np.testing.assert_allclose(g.float().numpy(), np.gradient(f, c, axis=0, edge_order=eo), rtol=tol, atol=tol)
    c1 = np.array([0.0, 1.0, 1.5, 3.0, 4.0, 4.25])
    g0, g1 = tl.gradient(tl.tensor(f, dtype=dt), spacing=(tl.tensor(c, dtype=dt), tl.tensor(c1, dtype=dt)))
    w0, w1 = np.gradient(f, c, c1)
    np.testing.assert_allclose(g0.float().numpy(), w0, rtol=tol, atol=tol)
    np.testing.assert_allclose(g1.float().numpy(), w1, rtol=tol, atol=tol)
    with pytest.raises(RuntimeError, match="coordinate tensor to be 1-D"):
        tl.gradient(tl.tensor(f, dtype=dt), spacing=[tl.tensor(c[:4], dtype=dt)], dim=0)
