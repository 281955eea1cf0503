"""The hand-written CUDA nn kernels (csrc/aten/native/cuda/{Softmax,Norm,
Dropout,Embedding,Loss,ScatterGather,Indexing,Sort}.cu) against the CPU
kernels, forward and backward. Needs a GPU: skipped where
torchlike.cuda.is_available() is False (the host/device pieces they share
are tested without one in test_cuda_nn_host.py)."""
import math

import numpy as np
import pytest

import torchlike
import torchlike.nn.functional as F

pytestmark = pytest.mark.skipif(not torchlike.cuda.is_available(), reason="needs a CUDA device")
DEV = "cuda"

FLOATS = [torchlike.float32, torchlike.float64, torchlike.float16, torchlike.bfloat16]
TOL = {torchlike.float32: (1e-5, 1e-6), torchlike.float64: (1e-12, 1e-12),
       torchlike.float16: (2e-3, 2e-3), torchlike.bfloat16: (2e-2, 2e-2)}


def _close(cuda_t, cpu_t, dtype=None):
    dtype = dtype or cpu_t.dtype
    rtol, atol = TOL.get(dtype, (0, 0))
    cuda_t, cpu_t = cuda_t.detach(), cpu_t.detach()
    a = cuda_t.cpu().to(torchlike.float64).numpy() if cuda_t.is_floating_point() else cuda_t.cpu().numpy()
    b = cpu_t.to(torchlike.float64).numpy() if cpu_t.is_floating_point() else cpu_t.numpy()
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _fwd_bwd(fn, *inputs, grad_seed=0):
    """fn on CPU and on CUDA copies of `inputs` (floating ones require grad);
    returns ((cpu_out, cpu_grads), (cuda_out, cuda_grads))."""
    results = []
    for dev in ("cpu", DEV):
        xs = [t.detach().to(dev).requires_grad_(t.is_floating_point()) if isinstance(t, torchlike.Tensor) else t
              for t in inputs]
        out = fn(*xs)
        torchlike.manual_seed(grad_seed)
        g = torchlike.randn(out.shape, dtype=out.dtype).to(dev)
        out.backward(g)
        results.append((out, [x.grad for x in xs if isinstance(x, torchlike.Tensor) and x.requires_grad]))
    return results


def _check_fwd_bwd(fn, *inputs, dtype=None):
    (co, cg), (go, gg) = _fwd_bwd(fn, *inputs)
    _close(go, co.detach(), dtype)
    for a, b in zip(gg, cg):
        _close(a, b, dtype)


# ---------------------------------------------------------------- softmax family

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", [((7, 33), 1), ((7, 33), 0), ((3, 5, 4000), -1), ((2, 1025, 3), 1), ((6,), 0)])
@pytest.mark.parametrize("log", [False, True])
def test_softmax(dtype, shape, dim, log):
    x = (torchlike.randn(shape) * 4).to(dtype)
    fn = (lambda t: torchlike.log_softmax(t, dim)) if log else (lambda t: torchlike.softmax(t, dim))
    _check_fwd_bwd(fn, x, dtype=dtype)


def test_softmax_special_values_and_dtype_arg():
    x = torchlike.tensor([[0.0, -math.inf, 1.0], [math.nan, 1.0, 2.0], [-math.inf, -math.inf, -math.inf]])
    for f in (torchlike.softmax, torchlike.log_softmax):
        a, b = f(x, 1), f(x.to(DEV), 1).cpu()
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, equal_nan=True)
    h = torchlike.randn(4, 9).half()
    _close(torchlike.softmax(h.to(DEV), 1, dtype=torchlike.float32), torchlike.softmax(h, 1, dtype=torchlike.float32))


# ---------------------------------------------------------------- normalisation

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(dtype, affine):
    x = (torchlike.randn(4, 6, 130) + 3).to(dtype)
    w = torchlike.randn(6, 130).to(dtype) if affine else None
    b = torchlike.randn(6, 130).to(dtype) if affine else None
    if affine:
        _check_fwd_bwd(lambda t, ww, bb: F.layer_norm(t, (6, 130), ww, bb), x, w, b, dtype=dtype)
    else:
        _check_fwd_bwd(lambda t: F.layer_norm(t, (6, 130)), x, dtype=dtype)


@pytest.mark.parametrize("dtype", [torchlike.float32, torchlike.float64])
def test_group_norm(dtype):
    x = torchlike.randn(3, 6, 5, 5, dtype=dtype)
    w, b = torchlike.randn(6, dtype=dtype), torchlike.randn(6, dtype=dtype)
    _check_fwd_bwd(lambda t, ww, bb: F.group_norm(t, 3, ww, bb), x, w, b, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm(dtype, training):
    x = (torchlike.randn(8, 5, 7, 3) * 2 + 1).to(dtype)
    w, b = torchlike.randn(5).to(dtype), torchlike.randn(5).to(dtype)
    rm_c, rv_c = torchlike.randn(5).to(dtype), torchlike.rand(5).to(dtype) + 0.5
    rm_g, rv_g = rm_c.to(DEV), rv_c.to(DEV)
    (co, cg), (go, gg) = _fwd_bwd(
        lambda t, ww, bb: F.batch_norm(t, rm_c if t.device.type == "cpu" else rm_g,
                                       rv_c if t.device.type == "cpu" else rv_g, ww, bb, training=training),
        x, w, b)
    _close(go, co.detach(), dtype)
    for a, c in zip(gg, cg):
        _close(a, c, dtype)
    # running statistics updated (training) or left alone (eval) the same way
    _close(rm_g, rm_c, dtype)
    _close(rv_g, rv_c, dtype)


# ---------------------------------------------------------------- dropout

@pytest.mark.parametrize("dtype", FLOATS)
def test_dropout_mask_matches_cpu(dtype):
    x = torchlike.ones(37, 129, dtype=dtype)
    torchlike.manual_seed(1234)
    a = F.dropout(x, 0.3)
    torchlike.manual_seed(1234)
    b = F.dropout(x.to(DEV), 0.3)
    assert torchlike.equal(a != 0, b.cpu() != 0)
    _close(b, a, dtype)
    # the next draw continues from the same counters on both devices
    torchlike.manual_seed(1234)
    F.dropout(x.to(DEV), 0.3)
    d = F.dropout(x.to(DEV), 0.5)
    torchlike.manual_seed(1234)
    F.dropout(x, 0.3)
    c = F.dropout(x, 0.5)
    assert torchlike.equal(c != 0, d.cpu() != 0)


def test_bernoulli_non_contiguous_and_generator():
    g_cpu, g_cuda = torchlike.Generator(), torchlike.Generator(device=DEV)
    g_cpu.manual_seed(7)
    g_cuda.manual_seed(7)
    a = torchlike.empty(20, 30).t().bernoulli_(0.4, generator=g_cpu)
    b = torchlike.empty(20, 30, device=DEV).t().bernoulli_(0.4, generator=g_cuda)
    assert torchlike.equal(a, b.cpu())
    with pytest.raises(RuntimeError, match="generator"):
        torchlike.empty(3, device=DEV).bernoulli_(0.5, generator=g_cpu)


def test_dropout_backward():
    x = torchlike.randn(50, 40)
    g = torchlike.randn(50, 40)
    grads = []
    for dev in ("cpu", DEV):
        xd = x.to(dev).requires_grad_()
        torchlike.manual_seed(3)
        y = F.dropout(xd, 0.2)
        y.backward(g.to(dev))
        grads.append((y.detach().cpu(), xd.grad.cpu()))
    _close(grads[1][0], grads[0][0])
    _close(grads[1][1], grads[0][1])


# ---------------------------------------------------------------- embedding

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("padding_idx,scale", [(None, False), (2, False), (None, True)])
def test_embedding(dtype, padding_idx, scale):
    w = torchlike.randn(10, 17).to(dtype)
    idx = torchlike.tensor([[1, 2, 2, 9], [2, 0, 1, 2]])
    _check_fwd_bwd(lambda ww: F.embedding(idx.to(ww.device), ww, padding_idx=padding_idx, scale_grad_by_freq=scale),
                   w, dtype=dtype)


def test_embedding_backward_is_deterministic_and_checks_indices():
    w = torchlike.randn(50, 64, device=DEV, requires_grad=True)
    idx = torchlike.randint(0, 50, (4096,), device=DEV)
    grads = []
    for _ in range(2):
        w.grad = None
        F.embedding(idx, w).sum(0).pow(2).sum().backward()
        grads.append(w.grad.clone())
    assert torchlike.equal(grads[0], grads[1])
    with pytest.raises(IndexError, match="out of range"):
        F.embedding(torchlike.tensor([0, 50], device=DEV), w)


# ---------------------------------------------------------------- losses

@pytest.mark.parametrize("dtype", [torchlike.float32, torchlike.float64, torchlike.float16, torchlike.bfloat16])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_and_nll(dtype, reduction, weighted):
    x = torchlike.randn(13, 7).to(dtype)
    t = torchlike.tensor([0, 1, 6, 3, -100, 2, 2, 5, 4, 1, 0, 6, 3])
    w = (torchlike.rand(7) + 0.5).to(dtype) if weighted else None
    def ce(xx):
        return F.cross_entropy(xx, t.to(xx.device), weight=None if w is None else w.to(xx.device),
                               reduction=reduction)
    _check_fwd_bwd(ce, x, dtype=dtype)
    x4 = torchlike.randn(2, 5, 3, 4, dtype=torchlike.float64)
    t4 = torchlike.randint(0, 5, (2, 3, 4))
    _check_fwd_bwd(lambda xx: F.nll_loss(xx, t4.to(xx.device), reduction=reduction), x4, dtype=torchlike.float64)


def test_nll_loss_bad_target():
    with pytest.raises(IndexError):
        F.nll_loss(torchlike.randn(3, 4, device=DEV), torchlike.tensor([0, 4, 1], device=DEV))


# ---------------------------------------------------------------- gather / scatter / index_select

@pytest.mark.parametrize("dtype", [torchlike.float32, torchlike.float16, torchlike.int64, torchlike.bool])
def test_gather_scatter_index_select(dtype):
    src = (torchlike.randn(5, 6) * 5).to(dtype)
    idx = torchlike.randint(0, 5, (3, 6))
    for f in (lambda s, i: torchlike.gather(s, 0, i),
              lambda s, i: torchlike.index_select(s, 1, i[0, :4] % 6),
              lambda s, i: torchlike.zeros(5, 6, dtype=s.dtype, device=s.device).scatter_(0, i, s[:3]),
              lambda s, i: torchlike.zeros(5, 6, dtype=s.dtype, device=s.device).scatter_(0, i, 2),
              lambda s, i: torchlike.ones(5, 6, dtype=s.dtype, device=s.device).scatter_add_(0, i, s[:3]),
              lambda s, i: torchlike.ones(5, 6, dtype=s.dtype, device=s.device).index_add_(0, i[:, 0], s[:3])):
        a = f(src, idx)
        b = f(src.to(DEV), idx.to(DEV))
        _close(b, a, dtype if dtype.is_floating_point else None)


def test_gather_scatter_backward():
    x = torchlike.randn(4, 7, dtype=torchlike.float64)
    idx = torchlike.randint(0, 7, (4, 5))
    _check_fwd_bwd(lambda t: torchlike.gather(t, 1, idx.to(t.device)), x, dtype=torchlike.float64)
    _check_fwd_bwd(lambda t: torchlike.index_select(t, 1, idx[0].to(t.device)), x, dtype=torchlike.float64)
    _check_fwd_bwd(lambda t: torchlike.zeros(4, 7, dtype=t.dtype, device=t.device).scatter_add(1, idx.to(t.device),
                                                                                               t[:, :5]),
                   x, dtype=torchlike.float64)


def test_gather_scatter_errors():
    s = torchlike.randn(3, 4, device=DEV)
    with pytest.raises(RuntimeError, match="out of bounds"):
        torchlike.gather(s, 1, torchlike.tensor([[4]], device=DEV))
    with pytest.raises(IndexError, match="index out of range in self"):
        torchlike.index_select(s, 0, torchlike.tensor([3], device=DEV))
    with pytest.raises(RuntimeError, match="out of bounds"):
        s.scatter_add_(0, torchlike.tensor([[5]], device=DEV), s.clone())


# ---------------------------------------------------------------- advanced indexing

def test_index_and_index_put():
    x = torchlike.randn(5, 6, 7)
    i = torchlike.tensor([0, 4, 4, -1])
    j = torchlike.tensor([[1], [5]])
    m = torchlike.rand(5, 6) > 0.5
    for key in ((i,), (slice(None), i[:2]), (i[:2], slice(None), j), (m,), (Ellipsis, i)):
        keyg = tuple(k.to(DEV) if isinstance(k, torchlike.Tensor) else k for k in key)
        _close(x.to(DEV)[keyg], x[key])
    for accumulate in (False, True):
        v = torchlike.randn(4, 6, 7)
        a = x.clone().index_put_((i,), v, accumulate=accumulate)
        b = x.to(DEV).index_put_((i.to(DEV),), v.to(DEV), accumulate=accumulate)
        if accumulate:
            _close(b, a)
        else:   # the repeated index 4 has no defined winner; the others must match
            keep = torchlike.tensor([0, 1, 2, 3])
            _close(b.cpu()[keep], a[keep])
    with pytest.raises(IndexError, match="out of bounds"):
        x.to(DEV)[torchlike.tensor([5], device=DEV)]


def test_index_put_accumulate_deterministic():
    torchlike.use_deterministic_algorithms(True)
    try:
        x = torchlike.zeros(100, 3, device=DEV)
        i = torchlike.randint(0, 100, (10000,), device=DEV)
        v = torchlike.randn(10000, 3, device=DEV)
        a = x.clone().index_put_((i,), v, accumulate=True)
        b = x.clone().index_put_((i,), v, accumulate=True)
        assert torchlike.equal(a, b)
        _close(a, torchlike.zeros(100, 3).index_put_((i.cpu(),), v.cpu(), accumulate=True), torchlike.float32)
    finally:
        torchlike.use_deterministic_algorithms(False)


# ---------------------------------------------------------------- sort / topk

@pytest.mark.parametrize("dtype", [torchlike.float32, torchlike.float16, torchlike.float64, torchlike.int64,
                                   torchlike.int32, torchlike.uint8, torchlike.bool])
@pytest.mark.parametrize("n", [1, 5, 100, 2048, 3000])
@pytest.mark.parametrize("descending", [False, True])
def test_sort(dtype, n, descending):
    x = (torchlike.randn(3, n) * 3).to(dtype) if dtype.is_floating_point else torchlike.randint(0, 4, (3, n)).to(dtype)
    if dtype.is_floating_point and n > 4:
        x[0, 2] = math.nan
        x[1, 3] = -0.0
    a = torchlike.sort(x, dim=1, descending=descending, stable=True)
    b = torchlike.sort(x.to(DEV), dim=1, descending=descending, stable=True)
    assert torchlike.equal(b.indices.cpu(), a.indices)
    np.testing.assert_array_equal(b.values.cpu().to(torchlike.float64).numpy(), a.values.to(torchlike.float64).numpy())
    c = torchlike.sort(x.t(), dim=0, descending=descending)   # the sorted dim not last
    assert torchlike.equal(c.indices.cpu(), a.indices.t())


@pytest.mark.parametrize("k", [1, 3, 50])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(k, largest):
    x = torchlike.randint(0, 20, (4, 50)).float()
    a = torchlike.topk(x, k, 1, largest=largest)
    b = torchlike.topk(x.to(DEV), k, 1, largest=largest)
    assert torchlike.equal(b.values.cpu(), a.values)
    assert torchlike.equal(b.indices.cpu(), a.indices)
    with pytest.raises(IndexError, match="k out of range"):
        torchlike.topk(x.to(DEV), 51, 1)


def test_sort_backward():
    x = torchlike.randn(3, 9, dtype=torchlike.float64)
    _check_fwd_bwd(lambda t: torchlike.sort(t, 1).values, x, dtype=torchlike.float64)
    _check_fwd_bwd(lambda t: torchlike.topk(t, 4, 1).values, x, dtype=torchlike.float64)
