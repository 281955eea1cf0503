"""CUDA matmul (cuBLAS), convolution (im2col + cuBLAS), attention (math path)
and GradScaler's fused kernels, each against the CPU result. They need a GPU
and skip without one; the host-side logic is tested in test_cuda_blas_host.py."""
import pytest

import torchlike
import torchlike.nn.functional as F

pytestmark = pytest.mark.skipif(not torchlike.cuda.is_available(), reason="needs a CUDA GPU")

FLOATS = [torchlike.float32, torchlike.float64, torchlike.float16, torchlike.bfloat16]
TOL = {torchlike.float32: 1e-4, torchlike.float64: 1e-10, torchlike.float16: 1e-2, torchlike.bfloat16: 5e-2}


@pytest.fixture(autouse=True)
def _full_fp32():
    # Compare float32 at full precision; TF32 is tested on its own.
    old = torchlike.get_float32_matmul_precision()
    torchlike.set_float32_matmul_precision("highest")
    yield
    torchlike.set_float32_matmul_precision(old)


def _close(got, want, dtype):
    assert got.device.type == "cuda"
    assert got.dtype == want.dtype
    tol = TOL[dtype]
    torchlike.testing.assert_close(got.cpu().double(), want.double(), rtol=tol, atol=tol)


def _rand(*shape, dtype=torchlike.float32):
    return torchlike.randn(*shape, dtype=torchlike.float64).to(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_mm_layouts(dtype):
    a, b = _rand(33, 17, dtype=dtype), _rand(17, 29, dtype=dtype)
    for x, y in [(a, b), (a.t().contiguous().t(), b), (a, b.t().contiguous().t()), (a[:, :16], b[:16])]:
        _close(torchlike.mm(x.cuda(), y.cuda()), torchlike.mm(x.double(), y.double()).to(dtype), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_addmm_bmm_baddbmm_matmul_linear(dtype):
    bias, a, b = _rand(29, dtype=dtype), _rand(8, 17, dtype=dtype), _rand(17, 29, dtype=dtype)
    want = torchlike.addmm(bias.double(), a.double(), b.double(), beta=0.5, alpha=2.0).to(dtype)
    _close(torchlike.addmm(bias.cuda(), a.cuda(), b.cuda(), beta=0.5, alpha=2.0), want, dtype)
    x, y = _rand(4, 6, 5, dtype=dtype), _rand(4, 5, 7, dtype=dtype)
    _close(torchlike.bmm(x.cuda(), y.cuda()), torchlike.bmm(x.double(), y.double()).to(dtype), dtype)
    c = _rand(4, 6, 7, dtype=dtype)
    _close(torchlike.baddbmm(c.cuda(), x.cuda(), y.cuda(), alpha=0.5),
           torchlike.baddbmm(c.double(), x.double(), y.double(), alpha=0.5).to(dtype), dtype)
    _close(torchlike.matmul(x.cuda(), y[0].cuda()), torchlike.matmul(x.double(), y[0].double()).to(dtype), dtype)
    w = _rand(7, 5, dtype=dtype)
    _close(F.linear(x.cuda(), w.cuda(), y[0, 0].cuda()), F.linear(x.double(), w.double(), y[0, 0].double()).to(dtype),
           dtype)
    v = _rand(5, dtype=dtype)
    _close(torchlike.mv(x[0].cuda(), v.cuda()), torchlike.mv(x[0].double(), v.double()).to(dtype), dtype)
    _close(torchlike.dot(v.cuda(), v.cuda()), torchlike.dot(v.double(), v.double()).to(dtype), dtype)


def test_empty_inner_dimension_and_beta_zero_ignores_nan():
    a, b = torchlike.randn(3, 0).cuda(), torchlike.randn(0, 4).cuda()
    assert torchlike.mm(a, b).cpu().eq(0).all()
    nan = torchlike.full((3, 4), float("nan")).cuda()
    out = torchlike.addmm(nan, torchlike.ones(3, 2).cuda(), torchlike.ones(2, 4).cuda(), beta=0)
    assert out.cpu().eq(2).all()


def test_matmul_autograd_on_cuda():
    a = torchlike.randn(5, 3, dtype=torchlike.float64, requires_grad=True)
    b = torchlike.randn(3, 4, dtype=torchlike.float64, requires_grad=True)
    (a @ b).sum().backward()
    ga, gb = a.grad, b.grad
    ac, bc = a.detach().cuda().requires_grad_(), b.detach().cuda().requires_grad_()
    (ac @ bc).sum().backward()
    torchlike.testing.assert_close(ac.grad.cpu(), ga)
    torchlike.testing.assert_close(bc.grad.cpu(), gb)


def test_errors():
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        torchlike.mm(torchlike.ones(2, 2, dtype=torchlike.int64).cuda(), torchlike.ones(2, 2, dtype=torchlike.int64).cuda())
    with pytest.raises(RuntimeError, match="same device"):
        torchlike.mm(torchlike.ones(2, 2).cuda(), torchlike.ones(2, 2))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        torchlike.mm(torchlike.ones(2, 3).cuda(), torchlike.ones(2, 3).cuda())


def test_tf32_follows_float32_matmul_precision():
    a, b = torchlike.randn(256, 256), torchlike.randn(256, 256)
    want = (a.double() @ b.double())
    torchlike.set_float32_matmul_precision("highest")
    exact = (a.cuda() @ b.cuda()).cpu().double()
    torchlike.set_float32_matmul_precision("high")
    fast = (a.cuda() @ b.cuda()).cpu().double()
    assert (exact - want).abs().max() < 1e-3
    # TF32 keeps 10 mantissa bits: visibly less exact, still close.
    assert (fast - want).abs().max() < 0.5


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding=2, dilation=2), dict(groups=2)])
def test_conv2d_forward_and_backward(dtype, kw):
    x = _rand(3, 4, 9, 8, dtype=torchlike.float64)
    w = _rand(6, 4 // kw.get("groups", 1), 3, 3, dtype=torchlike.float64)
    bias = _rand(6, dtype=torchlike.float64)
    xs = [t.clone().requires_grad_() for t in (x, w, bias)]
    F.conv2d(*xs, **kw).pow(2).sum().backward()
    xc = [t.to(dtype).cuda().requires_grad_() for t in (x, w, bias)]
    y = F.conv2d(*xc, **kw)
    _close(y, F.conv2d(x, w, bias, **kw).to(dtype), dtype)
    y.double().pow(2).sum().backward()
    tol = 10 * TOL[dtype]
    for got, ref in zip(xc, xs):
        torchlike.testing.assert_close(got.grad.cpu().double(), ref.grad, rtol=tol, atol=tol)


@pytest.mark.parametrize("kw", [dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(groups=2)])
def test_conv_transpose2d_and_conv1d_conv3d(kw):
    x, w = torchlike.randn(2, 4, 5, 6, dtype=torchlike.float64), torchlike.randn(4, 3, 3, 3, dtype=torchlike.float64)
    torchlike.testing.assert_close(F.conv_transpose2d(x.cuda(), w.cuda(), **kw).cpu(), F.conv_transpose2d(x, w, **kw))
    x1, w1 = torchlike.randn(2, 3, 11, dtype=torchlike.float64), torchlike.randn(5, 3, 4, dtype=torchlike.float64)
    torchlike.testing.assert_close(F.conv1d(x1.cuda(), w1.cuda(), stride=2).cpu(), F.conv1d(x1, w1, stride=2))
    x3, w3 = torchlike.randn(1, 2, 5, 6, 4, dtype=torchlike.float64), torchlike.randn(3, 2, 2, 3, 2, dtype=torchlike.float64)
    torchlike.testing.assert_close(F.conv3d(x3.cuda(), w3.cuda(), padding=1).cpu(), F.conv3d(x3, w3, padding=1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("mask_kind", [None, "bool", "float", "causal"])
def test_sdpa_math_path(dtype, mask_kind):
    q, k, v = (_rand(2, 3, n, 8, dtype=dtype) for n in (5, 7, 7))
    mask, causal = None, False
    if mask_kind == "bool":
        mask = torchlike.rand(5, 7) > 0.3
        mask[:, 0] = True
    elif mask_kind == "float":
        mask = _rand(5, 7, dtype=dtype)
    elif mask_kind == "causal":
        causal = True
    want = F.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                          attn_mask=None if mask is None else (mask if mask.dtype == torchlike.bool else mask.double()),
                                          is_causal=causal).to(dtype)
    got = F.scaled_dot_product_attention(q.cuda(), k.cuda(), v.cuda(),
                                         attn_mask=None if mask is None else mask.cuda(), is_causal=causal)
    _close(got, want, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_amp_unscale_and_update(dtype):
    grads = [torchlike.randn(100).to(dtype), torchlike.randn(3, 4).to(dtype).t()]
    cuda_grads = [g.cuda() for g in grads]
    found, inv = torchlike.zeros(1), torchlike.full((1,), 0.25)
    found_c, inv_c = found.cuda(), inv.cuda()
    torchlike._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
    torchlike._amp_foreach_non_finite_check_and_unscale_(cuda_grads, found_c, inv_c)
    for g, gc in zip(grads, cuda_grads):
        torchlike.testing.assert_close(gc.cpu(), g)
    assert found_c.item() == 0.0
    cuda_grads[0][3] = float("inf")
    torchlike._amp_foreach_non_finite_check_and_unscale_(cuda_grads, found_c, inv_c)
    assert found_c.item() == 1.0
    for found_inf in (0.0, 1.0):
        scale, tracker = torchlike.full((1,), 1024.0), torchlike.full((1,), 1, dtype=torchlike.int32)
        sc, tc = scale.cuda(), tracker.cuda()
        f = torchlike.full((1,), found_inf)
        torchlike._amp_update_scale_(scale, tracker, f, 2.0, 0.5, 2)
        torchlike._amp_update_scale_(sc, tc, f.cuda(), 2.0, 0.5, 2)
        assert sc.item() == scale.item() and tc.item() == tracker.item()


def test_autocast_cuda_runs_matmul_in_float16():
    a, b = torchlike.randn(8, 8).cuda(), torchlike.randn(8, 8).cuda()
    with torchlike.autocast("cuda"):
        y = a @ b
    assert y.dtype == torchlike.float16
    torchlike.testing.assert_close(y.float().cpu(), (a.cpu() @ b.cpu()), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("cudnn", ["0", "1"])
def test_conv_with_and_without_cudnn(monkeypatch, cudnn):
    # TORCHLIKE_CUDNN=0 forces the im2col + cuBLAS path; 1 takes cuDNN where installed.
    monkeypatch.setenv("TORCHLIKE_CUDNN", cudnn)
    x, w = torchlike.randn(2, 4, 9, 9, dtype=torchlike.float64), torchlike.randn(6, 2, 3, 3, dtype=torchlike.float64)
    torchlike.testing.assert_close(F.conv2d(x.cuda(), w.cuda(), stride=2, padding=1, groups=2).cpu(),
                                   F.conv2d(x, w, stride=2, padding=1, groups=2))
    xt = x.cuda().requires_grad_()
    F.conv2d(xt, w.cuda(), groups=2).sum().backward()
    xr = x.clone().requires_grad_()
    F.conv2d(xr, w, groups=2).sum().backward()
    torchlike.testing.assert_close(xt.grad.cpu(), xr.grad)
    import torchlike.backends.cudnn as cudnn_mod
    with cudnn_mod.flags(enabled=True, benchmark=True, deterministic=True):
        torchlike.testing.assert_close(F.conv1d(x[:, :, 0].cuda(), w[:, :, 0].cuda(), groups=2).cpu(),
                                       F.conv1d(x[:, :, 0], w[:, :, 0], groups=2))


def test_cudnn_version_when_installed():
    import torchlike.backends.cudnn as cudnn_mod
    v = cudnn_mod.version()
    assert v is None or v >= 90000  # cuDNN 9
    assert cudnn_mod.is_available() == (v is not None)
