"""interpolate / upsample / affine_grid / grid_sample / channel_shuffle: what the
op registry (tests/opinfo/nn_conv_pool.py) cannot express: deprecation and
align_corners warnings, antialiasing, gradients of the grid, and PyTorch
parity over modes x align_corners x sizes / scale factors (skipped without torch)."""
import itertools
import warnings

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # parity tests only
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")
RNG = np.random.default_rng(1234)

MODES = {1: ["nearest", "nearest-exact", "linear", "area"],
         2: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
         3: ["nearest", "nearest-exact", "trilinear", "area"]}
SIZE_KWARGS = [dict(size=1), dict(size=3), dict(size=10), dict(scale_factor=2), dict(scale_factor=1.7),
               dict(scale_factor=0.6), dict(scale_factor=0.3), dict(scale_factor=2.5, recompute_scale_factor=True),
               dict(scale_factor=1.3, recompute_scale_factor=False)]


def _interp_cases():
    for nd, modes in MODES.items():
        for mode in modes:
            for kw in SIZE_KWARGS:
                for ac in ([None] if mode in ("nearest", "nearest-exact", "area") else [False, True]):
                    yield nd, mode, kw, ac


@needs_torch
@pytest.mark.parametrize("nd,mode,kw,ac", list(_interp_cases()),
                         ids=lambda v: str(v).replace(" ", ""))
def test_interpolate_matches_torch(nd, mode, kw, ac):
    for insz, dtype in ((5, np.float32), (7, np.float64)):
        shape = (2, 3) + tuple(insz + i for i in range(nd))  # unequal spatial sizes
        x = RNG.standard_normal(shape).astype(dtype)
        want = TF.interpolate(torch.from_numpy(x), mode=mode, align_corners=ac, **kw).numpy()
        got = F.interpolate(tl.tensor(x), mode=mode, align_corners=ac, **kw).numpy()
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("ac", [False, True])
@pytest.mark.parametrize("kw", [dict(size=(4, 5)), dict(size=(20, 7)), dict(scale_factor=0.3), dict(size=(13, 11))])
def test_interpolate_antialias_matches_torch(mode, ac, kw):
    x = RNG.standard_normal((2, 3, 13, 11))
    want = TF.interpolate(torch.from_numpy(x), mode=mode, align_corners=ac, antialias=True, **kw).numpy()
    got = F.interpolate(tl.tensor(x), mode=mode, align_corners=ac, antialias=True, **kw).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("mode,nd", [("nearest", 2), ("nearest-exact", 1), ("linear", 1), ("bilinear", 2),
                                     ("bicubic", 2), ("trilinear", 3), ("area", 2)])
def test_interpolate_backward_matches_torch(mode, nd):
    x = RNG.standard_normal((2, 2) + (5,) * nd)
    kw = {} if mode in ("nearest", "nearest-exact", "area") else {"align_corners": False}
    size = (3,) * nd if mode == "area" else (8,) * nd
    g = RNG.standard_normal((2, 2) + size)
    tx = torch.from_numpy(x).requires_grad_()
    TF.interpolate(tx, size=size, mode=mode, **kw).backward(torch.from_numpy(g))
    lx = tl.tensor(x, requires_grad=True)
    F.interpolate(lx, size=size, mode=mode, **kw).backward(tl.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_interpolate_antialias_gradcheck():
    x = tl.tensor(RNG.standard_normal((1, 1, 6, 5)), requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: F.interpolate(t, size=(3, 2), mode="bicubic", antialias=True), (x,))


def test_lanczos_not_implemented_and_rejections():
    x = tl.zeros(1, 1, 4, 4)
    with pytest.raises(ValueError, match="Lanczos mode requires antialias=True"):
        F.interpolate(x, size=2, mode="lanczos")
    with pytest.raises(NotImplementedError, match="lanczos"):
        F.interpolate(x, size=2, mode="lanczos", antialias=True)
    with pytest.raises(ValueError, match="Anti-alias option is restricted"):
        F.interpolate(tl.zeros(1, 1, 4), size=2, mode="linear", antialias=True)
    with pytest.raises(NotImplementedError, match="Got 3D input, but bilinear mode needs 4D input"):
        F.interpolate(tl.zeros(1, 1, 4), size=2, mode="bilinear")


def test_upsample_aliases_warn_and_match_interpolate():
    x = tl.tensor(RNG.standard_normal((1, 2, 3, 4)))
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        y = F.upsample_bilinear(x, scale_factor=2)
    np.testing.assert_array_equal(
        y.numpy(), F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True).numpy())
    with pytest.warns(UserWarning, match="upsample_nearest` is deprecated"):
        y = F.upsample_nearest(x, size=(5, 6))
    np.testing.assert_array_equal(y.numpy(), F.interpolate(x, size=(5, 6)).numpy())
    with pytest.warns(UserWarning, match="`nn.functional.upsample` is deprecated"):
        y = F.upsample(x, size=5, mode="bicubic", align_corners=False)
    np.testing.assert_array_equal(y.numpy(), F.interpolate(x, size=5, mode="bicubic").numpy())


def test_align_corners_default_warns():
    theta = tl.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        grid = F.affine_grid(theta, (1, 1, 3, 3))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        out = F.grid_sample(tl.ones(1, 1, 3, 3), grid)
    # identity transform at pixel centres reproduces the input
    np.testing.assert_allclose(out.numpy(), np.ones((1, 1, 3, 3)), atol=1e-6)
    assert F.GRID_SAMPLE_INTERPOLATION_MODES == {"bilinear": 0, "nearest": 1, "bicubic": 2}
    assert F.GRID_SAMPLE_PADDING_MODES == {"zeros": 0, "border": 1, "reflection": 2}


def _grid_cases():
    for nd, modes in ((2, ["bilinear", "nearest", "bicubic"]), (3, ["bilinear", "nearest"])):
        for mode, pm, ac in itertools.product(modes, ["zeros", "border", "reflection"], [False, True]):
            yield nd, mode, pm, ac


@needs_torch
@pytest.mark.parametrize("nd,mode,pm,ac", list(_grid_cases()), ids=lambda v: str(v))
def test_grid_sample_matches_torch_forward_and_backward(nd, mode, pm, ac):
    x = RNG.standard_normal((2, 3) + tuple(4 + i for i in range(nd)))
    g = RNG.uniform(-1.7, 1.7, (2,) + (3,) * nd + (nd,))
    up = RNG.standard_normal((2, 3) + (3,) * nd)
    tx, tg = torch.from_numpy(x).requires_grad_(), torch.from_numpy(g).requires_grad_()
    tout = TF.grid_sample(tx, tg, mode=mode, padding_mode=pm, align_corners=ac)
    tout.backward(torch.from_numpy(up))
    lx, lg = tl.tensor(x, requires_grad=True), tl.tensor(g, requires_grad=True)
    lout = F.grid_sample(lx, lg, mode=mode, padding_mode=pm, align_corners=ac)
    lout.backward(tl.tensor(up))
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(lg.grad.numpy(), tg.grad.numpy(), rtol=1e-8, atol=1e-8)


@needs_torch
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 3, 1, 5), (2, 1, 3, 4, 5), (1, 1, 1, 2, 1)])
@pytest.mark.parametrize("ac", [False, True])
def test_affine_grid_matches_torch(size, ac):
    nd = len(size) - 2
    th = RNG.standard_normal((size[0], nd, nd + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids with align_corners=True warn in both
        want = TF.affine_grid(torch.from_numpy(th), size, align_corners=ac).numpy()
        got = F.affine_grid(tl.tensor(th), size, align_corners=ac).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@needs_torch
def test_channel_shuffle_matches_torch():
    x = RNG.standard_normal((2, 12, 3))
    for groups in (1, 2, 3, 4, 12):
        np.testing.assert_array_equal(F.channel_shuffle(tl.tensor(x), groups).numpy(),
                                      TF.channel_shuffle(torch.from_numpy(x), groups).numpy())
