"""Layers of slice A: convolution, pooling, padding, normalisation, dropout,
embeddings, lazy modules and Bilinear.

The torch-free tests check forward values against NumPy (or exact math), the
default initialisation statistics, train/eval behaviour, state-dict formats,
errors and float64 gradients. The PyTorch parity tests (skipped without torch)
run one table of constructor calls through both libraries: same weights (torch's
state_dict loaded into ours through NumPy), same inputs, then outputs, input and
parameter gradients, updated buffers, reprs and signatures compared."""
import inspect
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn
import torchlike.nn.functional as F
from torchlike.autograd import gradcheck
from torchlike.nn.parameter import UninitializedParameter, is_lazy
from conftest import requires_torch

try:
    import torch
except ImportError:  # the parity tests are skipped
    torch = None

RNG = np.random.default_rng(1234)


def tl(a, requires_grad=False):
    t = torchlike.from_numpy(np.ascontiguousarray(a))
    return t.requires_grad_(requires_grad) if requires_grad else t


def arr(t):
    return t.detach().numpy()


# ============================================================================ reference math (NumPy)

def np_conv2d(x, w, b, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    """Direct-sum 2-d convolution (cross-correlation), zero padding."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    per_group = o // groups
    for oc in range(o):
        g = oc // per_group
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, g * cg:(g + 1) * cg,
                           i * stride[0]: i * stride[0] + dilation[0] * (kh - 1) + 1: dilation[0],
                           j * stride[1]: j * stride[1] + dilation[1] * (kw - 1) + 1: dilation[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
        if b is not None:
            out[:, oc] += b[oc]
    return out


def np_conv_transpose1d(x, w, b, stride, padding, output_padding, dilation):
    n, cin, length = x.shape
    _, cout, k = w.shape
    full = (length - 1) * stride + dilation * (k - 1) + 1 + output_padding
    out = np.zeros((n, cout, full))
    for i in range(length):
        for t in range(k):
            out[:, :, i * stride + t * dilation] += x[:, :, i] @ w[:, :, t]
    out = out[:, :, padding: full - padding]
    return out + (b[None, :, None] if b is not None else 0)


def np_batch_norm_train(x, weight, bias, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * weight.reshape(shape) + bias.reshape(shape)


def np_cross_map_lrn(x, size, alpha, beta, k):
    """PyTorch's legacy CrossMapLRN2d, observed as: window c-h..c+h with
    h = (size-1)//2, plus the first channel's square for every c > h."""
    channels = x.shape[1]
    h = (size - 1) // 2
    out = np.empty_like(x)
    for c in range(channels):
        s = (x[:, max(0, c - h):min(channels, c + h + 1)] ** 2).sum(axis=1)
        if c > h:
            s = s + x[:, 0] ** 2
        out[:, c] = x[:, c] * (k + alpha / size * s) ** (-beta)
    return out


# ============================================================================ convolution

def test_conv2d_matches_direct_sum():
    x = RNG.standard_normal((2, 4, 7, 6))
    m = nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2).double()
    got = arr(m(tl(x)))
    want = np_conv2d(x, arr(m.weight), arr(m.bias), (2, 1), (1, 2), (1, 2), 2)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode, np_mode", [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")])
def test_conv2d_padding_modes_pad_then_convolve(mode, np_mode):
    x = RNG.standard_normal((1, 2, 5, 6))
    m = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode).double()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), mode=np_mode)
    want = np_conv2d(padded, arr(m.weight), arr(m.bias))
    np.testing.assert_allclose(arr(m(tl(x))), want, rtol=1e-10, atol=1e-12)


def test_conv_padding_same_and_valid():
    x = RNG.standard_normal((1, 2, 7, 8))
    # An even kernel pads one more after than before, as F.pad would be given.
    m = nn.Conv2d(2, 3, (2, 4), padding="same", dilation=(1, 1)).double()
    assert m._reversed_padding_repeated_twice == [1, 2, 0, 1]
    out = m(tl(x))
    assert tuple(out.shape) == (1, 3, 7, 8)
    reflect = nn.Conv2d(2, 3, (3, 4), padding="same", dilation=2, padding_mode="reflect").double()
    assert tuple(reflect(tl(x)).shape) == (1, 3, 7, 8)
    valid = nn.Conv3d(2, 4, 3, padding="valid")
    assert tuple(valid(torchlike.randn(1, 2, 5, 5, 5)).shape) == (1, 4, 3, 3, 3)
    # Unbatched inputs keep their rank.
    assert tuple(nn.Conv1d(2, 3, 3)(torchlike.randn(2, 9)).shape) == (3, 7)


def test_conv_transpose1d_matches_scatter_sum():
    x = RNG.standard_normal((2, 3, 5))
    m = nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1, dilation=2).double()
    want = np_conv_transpose1d(x, arr(m.weight), arr(m.bias), 2, 1, 1, 2)
    np.testing.assert_allclose(arr(m(tl(x))), want, rtol=1e-10, atol=1e-12)


def test_conv_transpose_output_size():
    m = nn.ConvTranspose2d(4, 6, 3, stride=2)
    x = torchlike.randn(1, 4, 5, 5)
    assert tuple(m(x).shape) == (1, 6, 11, 11)
    assert tuple(m(x, output_size=[12, 12]).shape) == (1, 6, 12, 12)
    assert tuple(m(x, output_size=[1, 6, 11, 12]).shape) == (1, 6, 11, 12)
    assert tuple(m(x[0], output_size=[12, 11]).shape) == (6, 12, 11)
    with pytest.raises(ValueError, match=r"requested an output size of \[14, 14\], but valid sizes range from "
                                         r"\[11, 11\] to \[12, 12\]"):
        m(x, output_size=[14, 14])
    with pytest.raises(ValueError, match=r"ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements "
                                         r"\(got 1\)"):
        m(x, output_size=[12])


def test_conv_shapes_repr_and_init_bounds():
    m = nn.Conv2d(16, 32, 3)
    assert tuple(m.weight.shape) == (32, 16, 3, 3) and tuple(m.bias.shape) == (32,)
    bound = 1 / math.sqrt(16 * 9)
    w = arr(m.weight)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.mean()) < 0.05 * bound
    assert np.abs(arr(m.bias)).max() <= bound
    t = nn.ConvTranspose2d(6, 4, 3, groups=2)
    assert tuple(t.weight.shape) == (6, 2, 3, 3)
    # The transposed weight's fan_in is its dim 1 times the kernel.
    assert np.abs(arr(t.bias)).max() <= 1 / math.sqrt(2 * 9)
    assert repr(nn.Conv1d(4, 6, 3)) == "Conv1d(4, 6, kernel_size=(3,), stride=(1,))"
    assert repr(nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, dilation=2, groups=2, bias=False,
                          padding_mode="reflect")) == (
        "Conv2d(4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), groups=2, bias=False, "
        "padding_mode=reflect)")
    assert repr(nn.Conv2d(4, 6, 3, padding="same")) == "Conv2d(4, 6, kernel_size=(3, 3), stride=(1, 1), padding=same)"
    assert repr(nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1)) == (
        "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))")


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: nn.Conv2d(4, 6, 3, groups=3), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Conv2d(4, 6, 3, groups=4), ValueError, "out_channels must be divisible by groups"),
    (lambda: nn.Conv2d(4, 6, 3, groups=0), ValueError, "groups must be a positive integer"),
    (lambda: nn.Conv2d(4, 6, 3, padding="foo"), ValueError, "Invalid padding string 'foo'"),
    (lambda: nn.Conv2d(4, 6, 3, stride=2, padding="same"), ValueError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: nn.Conv2d(4, 6, 3, padding_mode="x"), ValueError, "padding_mode must be one of"),
    (lambda: nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
    (lambda: nn.Conv2d(4, 6, 3)(torchlike.randn(2, 3, 5, 5)), RuntimeError, "expected input"),
])
def test_conv_errors(call, exc, msg):
    with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
        call()


# ============================================================================ pooling and padding

def test_pooling_values():
    x = RNG.standard_normal((2, 3, 6, 8))
    got = arr(nn.MaxPool2d(2)(tl(x)))
    np.testing.assert_allclose(got, x.reshape(2, 3, 3, 2, 4, 2).max(axis=(3, 5)))
    got = arr(nn.AvgPool2d((2, 4))(tl(x)))
    np.testing.assert_allclose(got, x.reshape(2, 3, 3, 2, 2, 4).mean(axis=(3, 5)), rtol=1e-12)
    got = arr(nn.AvgPool2d(2, divisor_override=3)(tl(x)))
    np.testing.assert_allclose(got, x.reshape(2, 3, 3, 2, 4, 2).sum(axis=(3, 5)) / 3, rtol=1e-12)
    got = arr(nn.AvgPool1d(4)(tl(x[:, :, 0])))
    np.testing.assert_allclose(got, x[:, :, 0].reshape(2, 3, 2, 4).mean(axis=3), rtol=1e-12)
    pos = np.abs(x)  # a negative window sum has no real p-th root (NaN, as in PyTorch)
    got = arr(nn.LPPool2d(3, 2)(tl(pos)))
    np.testing.assert_allclose(got, np.cbrt((pos ** 3).reshape(2, 3, 3, 2, 4, 2).sum(axis=(3, 5))), rtol=1e-10)
    got = arr(nn.AdaptiveAvgPool2d((3, None))(tl(x)))
    np.testing.assert_allclose(got, x.reshape(2, 3, 3, 2, 8).mean(axis=3), rtol=1e-12)
    values, idx = nn.AdaptiveMaxPool1d(2, return_indices=True)(tl(x[:, :, 0]))
    np.testing.assert_allclose(arr(values), x[:, :, 0].reshape(2, 3, 2, 4).max(axis=3))
    assert idx.dtype == torchlike.int64
    assert tuple(nn.MaxPool3d(2)(torchlike.randn(1, 2, 4, 4, 4)).shape) == (1, 2, 2, 2, 2)


def test_max_unpool_inverts_max_pool():
    x = tl(RNG.standard_normal((1, 2, 4, 6)))
    pooled, idx = nn.MaxPool2d(2, return_indices=True)(x)
    restored = nn.MaxUnpool2d(2)(pooled, idx)
    r, xv = arr(restored), arr(x)
    mask = r != 0
    np.testing.assert_allclose(r[mask], xv[mask])
    assert mask.sum() == pooled.numel()
    assert tuple(nn.MaxUnpool2d(2)(pooled, idx, output_size=[5, 7]).shape) == (1, 2, 5, 7)
    p1, i1 = nn.MaxPool1d(2, return_indices=True)(x[0])
    assert tuple(nn.MaxUnpool1d(2)(p1, i1).shape) == (2, 4, 6)


def test_pooling_reprs():
    assert repr(nn.MaxPool2d(3)) == "MaxPool2d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.AvgPool2d(3)) == "AvgPool2d(kernel_size=3, stride=3, padding=0)"
    assert repr(nn.LPPool1d(2.5, 3, 2, True)) == "LPPool1d(norm_type=2.5, kernel_size=3, stride=2, ceil_mode=True)"
    assert repr(nn.AdaptiveMaxPool2d((3, None))) == "AdaptiveMaxPool2d(output_size=(3, None))"
    assert repr(nn.MaxUnpool1d(2, 3, 1)) == "MaxUnpool1d(kernel_size=(2,), stride=(3,), padding=(1,))"


def np_fractional_starts(n_in, n_out, k, u):
    if n_out == 1:
        return [n_in - k]
    alpha = (n_in - k) / (n_out - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(n_out - 1)] + [n_in - k]


def test_fractional_max_pool2d_matches_reference():
    x = RNG.standard_normal((2, 3, 7, 9))
    samples = RNG.random((2, 3, 2))
    k, out = (2, 3), (4, 5)
    values, idx = F.fractional_max_pool2d(tl(x), k, output_size=out, return_indices=True,
                                          _random_samples=tl(samples))
    for n in range(2):
        for c in range(3):
            # Column 1 of the samples drives the height, column 0 the width.
            rows = np_fractional_starts(7, out[0], k[0], samples[n, c, 1])
            cols = np_fractional_starts(9, out[1], k[1], samples[n, c, 0])
            for i, r in enumerate(rows):
                for j, q in enumerate(cols):
                    win = x[n, c, r:r + k[0], q:q + k[1]]
                    pos = np.unravel_index(np.argmax(win), win.shape)
                    assert arr(values)[n, c, i, j] == win[pos]
                    assert arr(idx)[n, c, i, j] == (r + pos[0]) * 9 + q + pos[1]


def test_fractional_max_pool3d_and_modules():
    x = RNG.standard_normal((1, 2, 6, 7, 8))
    samples = RNG.random((1, 2, 3))
    k, out = (2, 3, 2), (3, 4, 5)
    values = arr(F.fractional_max_pool3d(tl(x), k, output_size=out, _random_samples=tl(samples)))
    for c in range(2):
        st = [np_fractional_starts(size, o, kk, samples[0, c, col])
              for size, o, kk, col in zip((6, 7, 8), out, k, (0, 1, 2))]
        for a, t0 in enumerate(st[0]):
            for b, h0 in enumerate(st[1]):
                for d, w0 in enumerate(st[2]):
                    assert values[0, c, a, b, d] == x[0, c, t0:t0 + 2, h0:h0 + 3, w0:w0 + 2].max()
    pool = nn.FractionalMaxPool2d(2, output_ratio=0.5)
    assert repr(pool) == "FractionalMaxPool2d()" and pool.output_ratio == (0.5, 0.5)
    assert tuple(pool(torchlike.randn(1, 2, 6, 8)).shape) == (1, 2, 3, 4)
    pooled, idx = nn.FractionalMaxPool3d(2, output_size=2, return_indices=True)(torchlike.randn(2, 5, 5, 5))
    assert tuple(pooled.shape) == (2, 2, 2, 2) and idx.dtype == torchlike.int64
    fixed = nn.FractionalMaxPool2d(2, output_size=3, _random_samples=torchlike.rand(1, 2, 2))
    assert list(fixed.state_dict()) == ["_random_samples"]
    y = torchlike.randn(1, 2, 6, 6)
    assert np.array_equal(arr(fixed(y)), arr(fixed(y)))


@pytest.mark.parametrize("call, exc, msg", [
    (lambda: nn.FractionalMaxPool2d(2), ValueError,
     "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"),
    (lambda: nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5), ValueError,
     "only one of output_size and output_ratio may be specified"),
    (lambda: nn.FractionalMaxPool2d(2, output_ratio=1.0), ValueError, "output_ratio must be between 0 and 1"),
    (lambda: F.fractional_max_pool2d(torchlike.randn(1, 2, 5, 5), 2), ValueError,
     "fractional_max_pool2d requires specifying either an output_size or an output_ratio"),
    (lambda: F.fractional_max_pool2d(torchlike.randn(1, 2, 5, 5), 4, output_size=3), RuntimeError,
     "fractional_max_pool2d(): pool height 4 too large relative to input height 5"),
    (lambda: F.fractional_max_pool3d(torchlike.randn(1, 2, 5, 5, 5), 2, output_size=(3, 3, 5)), RuntimeError,
     "fractional_max_pool3d_out(): pool width 2 too large relative to input width 5"),
    (lambda: F.fractional_max_pool2d(torchlike.randn(1, 2, 5, 5), 2, output_size=3,
                                     _random_samples=torchlike.rand(1, 2, 3)), RuntimeError,
     "Expect _random_samples.size(2) equals to 2; got 3."),
    (lambda: F.fractional_max_pool2d(torchlike.randn(1, 2, 5, 5), 2, output_size=3,
                                     _random_samples=torchlike.rand(1, 2, 2).double()), RuntimeError,
     "Expect _random_samples to have the same dtype as input"),
    (lambda: F.fractional_max_pool2d(torchlike.randn(1, 1, 1, 5, 5), 2, output_size=3), RuntimeError,
     "fractional_max_pool2d(): Expected 3D or 4D tensor"),
])
def test_fractional_max_pool_errors(call, exc, msg):
    with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_fractional_max_pool_gradcheck():
    samples = tl(RNG.random((2, 2, 2)))
    x = tl(RNG.standard_normal((2, 2, 6, 5)), requires_grad=True)
    assert gradcheck(lambda t: F.fractional_max_pool2d(t, 2, output_size=(4, 3), _random_samples=samples), (x,))


def test_base_classes_for_isinstance_checks():
    from torchlike.nn.modules import batchnorm, conv, dropout, instancenorm, pooling
    assert isinstance(nn.BatchNorm2d(3), batchnorm._BatchNorm) and isinstance(nn.SyncBatchNorm(3), batchnorm._BatchNorm)
    inorm = nn.InstanceNorm1d(3)
    assert isinstance(inorm, instancenorm._InstanceNorm) and isinstance(inorm, batchnorm._NormBase)
    assert not isinstance(inorm, batchnorm._BatchNorm)
    assert isinstance(nn.ConvTranspose2d(2, 2, 1), conv._ConvNd) and isinstance(nn.Conv3d(1, 1, 1), conv._ConvNd)
    assert isinstance(nn.Dropout2d(), dropout._DropoutNd)
    assert isinstance(nn.AvgPool1d(2), pooling._AvgPoolNd) and isinstance(nn.AvgPool3d(2), pooling._AvgPoolNd)
    assert isinstance(nn.MaxPool1d(2), pooling._MaxPoolNd)


@pytest.mark.parametrize("cls, np_mode, kw", [
    (nn.ZeroPad2d, "constant", {}), (nn.ReflectionPad2d, "reflect", {}), (nn.ReplicationPad2d, "edge", {}),
    (nn.CircularPad2d, "wrap", {})])
def test_padding_2d_matches_numpy(cls, np_mode, kw):
    x = RNG.standard_normal((2, 3, 4, 5))
    got = arr(cls((1, 2, 3, 0))(tl(x)))
    np.testing.assert_allclose(got, np.pad(x, ((0, 0), (0, 0), (3, 0), (1, 2)), mode=np_mode))


def test_padding_other_ranks_and_reprs():
    x = RNG.standard_normal((2, 3, 4, 5, 6))
    got = arr(nn.ConstantPad3d(1, 3.5)(tl(x)))
    np.testing.assert_allclose(got, np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), constant_values=3.5))
    got = arr(nn.ReplicationPad1d((2, 1))(tl(x[0, 0])))
    np.testing.assert_allclose(got, np.pad(x[0, 0], ((0, 0), (0, 0), (2, 1)), mode="edge"))
    got = arr(nn.CircularPad3d(1)(tl(x)))
    np.testing.assert_allclose(got, np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode="wrap"))
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.ConstantPad3d(1, 3.5)) == "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=3.5)"
    assert repr(nn.ReflectionPad2d((1, 2, 3, 4))) == "ReflectionPad2d((1, 2, 3, 4))"
    assert nn.ZeroPad1d(1).value == 0.0
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 1D input\)"):
        nn.CircularPad2d(1)(torchlike.randn(5))


# ============================================================================ batch / instance norm

def test_batch_norm_training_and_running_stats():
    x = RNG.standard_normal((6, 3, 4)) * 2 + 1
    m = nn.BatchNorm1d(3, momentum=0.3).double()
    with torchlike.no_grad():
        m.weight.copy_(tl(np.array([1.0, 2.0, 0.5])))
        m.bias.copy_(tl(np.array([0.0, -1.0, 3.0])))
    out = arr(m(tl(x)))
    np.testing.assert_allclose(out, np_batch_norm_train(x, arr(m.weight), arr(m.bias), 1e-5), rtol=1e-9, atol=1e-10)
    mean = x.mean(axis=(0, 2))
    var_unbiased = x.var(axis=(0, 2), ddof=1)
    np.testing.assert_allclose(arr(m.running_mean), 0.3 * mean, rtol=1e-12)
    np.testing.assert_allclose(arr(m.running_var), 0.7 + 0.3 * var_unbiased, rtol=1e-12)
    assert int(m.num_batches_tracked) == 1 and m.num_batches_tracked.dtype == torchlike.int64
    # Eval mode normalises with the running statistics and updates nothing.
    m.eval()
    before = arr(m.running_mean).copy()
    got = arr(m(tl(x)))
    shape = (1, 3, 1)
    want = (x - arr(m.running_mean).reshape(shape)) / np.sqrt(arr(m.running_var).reshape(shape) + 1e-5) \
        * arr(m.weight).reshape(shape) + arr(m.bias).reshape(shape)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_array_equal(arr(m.running_mean), before)
    assert int(m.num_batches_tracked) == 1


def test_batch_norm_momentum_none_is_cumulative_average():
    m = nn.BatchNorm2d(2, momentum=None).double()
    batches = [RNG.standard_normal((3, 2, 2, 2)) + i for i in range(4)]
    for b in batches:
        m(tl(b))
    means = np.mean([b.mean(axis=(0, 2, 3)) for b in batches], axis=0)
    np.testing.assert_allclose(arr(m.running_mean), means, rtol=1e-12)
    assert int(m.num_batches_tracked) == 4


def test_batch_norm_without_running_stats():
    m = nn.BatchNorm1d(3, affine=False, track_running_stats=False).double()
    assert m.running_mean is None and m.num_batches_tracked is None and m.weight is None
    assert list(m.state_dict().keys()) == []
    m.eval()  # still batch statistics: nothing else exists
    x = RNG.standard_normal((5, 3))
    np.testing.assert_allclose(arr(m(tl(x))), np_batch_norm_train(x, np.ones(3), np.zeros(3), 1e-5), rtol=1e-9)
    assert repr(m) == "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"


def test_batch_norm_state_dict_and_back_compat():
    m = nn.BatchNorm1d(3)
    sd = m.state_dict()
    assert list(sd.keys()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert sd._metadata[""] == {"version": 2}
    assert tuple(sd["num_batches_tracked"].shape) == ()
    m.num_batches_tracked.fill_(5)
    # A version-1 checkpoint has no counter: ours is kept, nothing is missing.
    old = OrderedDict((k, v) for k, v in sd.items() if k != "num_batches_tracked")
    old._metadata = OrderedDict({"": {"version": 1}})
    result = m.load_state_dict(old)
    assert result.missing_keys == [] and int(m.num_batches_tracked) == 5
    # No metadata at all counts as old too.
    assert m.load_state_dict(OrderedDict(old.items())).missing_keys == []
    current = OrderedDict(old.items())
    current._metadata = OrderedDict({"": {"version": 2}})
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        m.load_state_dict(current)
    # Inside a container the prefix is honoured.
    seq = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    keys = [k for k in seq.state_dict() if k != "1.num_batches_tracked"]
    assert seq.load_state_dict(OrderedDict((k, seq.state_dict()[k]) for k in keys)).missing_keys == []


def test_batch_norm_checks():
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(torchlike.randn(2, 3, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(3)(torchlike.randn(1, 3))
    nn.BatchNorm1d(3).eval()(torchlike.randn(1, 3))  # fine outside training


def test_instance_norm():
    x = RNG.standard_normal((2, 3, 5))
    m = nn.InstanceNorm1d(3).double()
    mean = x.mean(axis=2, keepdims=True)
    want = (x - mean) / np.sqrt(x.var(axis=2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(arr(m(tl(x))), want, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(arr(m(tl(x[0]))), want[0], rtol=1e-9, atol=1e-10)
    tracked = nn.InstanceNorm1d(3, affine=True, track_running_stats=True).double()
    tracked(tl(x))
    np.testing.assert_allclose(arr(tracked.running_mean), 0.1 * x.mean(axis=(0, 2)), rtol=1e-10)
    with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features \(3\), but got: 4"):
        tracked(torchlike.randn(2, 4, 5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.InstanceNorm1d(3)(torchlike.randn(2, 4, 5))
    assert any("does not match num_features" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        nn.InstanceNorm2d(3)(torchlike.randn(4, 5))
    assert repr(m) == "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)"


def test_instance_norm_old_checkpoint_with_running_stats():
    stale = OrderedDict(running_mean=torchlike.zeros(3), running_var=torchlike.ones(3))
    with pytest.raises(RuntimeError, match='Unexpected running stats buffer\\(s\\) "running_mean" and "running_var" '
                                           "for InstanceNorm1d with track_running_stats=False"):
        nn.InstanceNorm1d(3).load_state_dict(stale)
    versioned = OrderedDict(stale.items())
    versioned._metadata = OrderedDict({"": {"version": 1}})
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\) in state_dict"):
        nn.InstanceNorm1d(3).load_state_dict(versioned)


def test_sync_batch_norm_single_process_and_convert():
    x = RNG.standard_normal((4, 3, 2))
    sync = nn.SyncBatchNorm(3).double()
    plain = nn.BatchNorm1d(3).double()
    np.testing.assert_allclose(arr(sync(tl(x))), arr(plain(tl(x))), rtol=1e-12)
    np.testing.assert_allclose(arr(sync.running_var), arr(plain.running_var), rtol=1e-12)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        sync(torchlike.randn(3))
    net = nn.Sequential(nn.Conv2d(3, 3, 1), nn.Sequential(nn.BatchNorm2d(3, momentum=None)))
    net[1][0].running_mean.fill_(2.0)
    net.eval()
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    inner = converted[1][0]
    assert type(inner) is nn.SyncBatchNorm and inner.momentum is None and not inner.training
    assert float(inner.running_mean[0]) == 2.0
    assert repr(inner) == "SyncBatchNorm(3, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)"
    assert type(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2))) is nn.SyncBatchNorm


# ============================================================================ other norms

def test_layer_group_rms_norm_values():
    x = RNG.standard_normal((2, 4, 3, 5))
    ln = nn.LayerNorm((3, 5)).double()
    mean = x.mean(axis=(2, 3), keepdims=True)
    want = (x - mean) / np.sqrt(x.var(axis=(2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(arr(ln(tl(x))), want, rtol=1e-9, atol=1e-10)
    assert tuple(ln.weight.shape) == (3, 5) and np.all(arr(ln.weight) == 1) and np.all(arr(ln.bias) == 0)
    gn = nn.GroupNorm(2, 4).double()
    g = x.reshape(2, 2, -1)
    want = ((g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(arr(gn(tl(x))), want, rtol=1e-9, atol=1e-10)
    rms = nn.RMSNorm(5, eps=1e-6).double()
    want = x / np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(arr(rms(tl(x))), want, rtol=1e-10)
    assert nn.LayerNorm(4, bias=False).bias is None
    assert list(nn.LayerNorm(4, elementwise_affine=False).state_dict()) == []
    assert list(nn.RMSNorm([2, 3], elementwise_affine=False).state_dict()) == []


def test_norm_reprs_and_errors():
    assert repr(nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.LayerNorm((2, 3), elementwise_affine=False)) == \
        "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)"
    assert repr(nn.GroupNorm(2, 4, affine=False)) == "GroupNorm(2, 4, eps=1e-05, affine=False, bias=False)"
    assert repr(nn.RMSNorm(4)) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert repr(nn.LocalResponseNorm(3)) == "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"
    assert repr(nn.CrossMapLRN2d(3)) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    with pytest.raises(ValueError, match=r"num_channels \(4\) must be divisible by num_groups \(3\)"):
        nn.GroupNorm(3, 4)
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        nn.CrossMapLRN2d(3)(torchlike.randn(2, 3, 4))


@pytest.mark.parametrize("channels, size", [(1, 3), (3, 3), (7, 1), (7, 2), (7, 4), (7, 5), (6, 9)])
def test_cross_map_lrn_matches_reference(channels, size):
    x = RNG.standard_normal((2, channels, 3, 2))
    got = arr(nn.CrossMapLRN2d(size, alpha=0.3, beta=0.7, k=1.5)(tl(x)))
    np.testing.assert_allclose(got, np_cross_map_lrn(x, size, 0.3, 0.7, 1.5), rtol=1e-12)


def test_local_response_norm_matches_reference():
    x = RNG.standard_normal((2, 5, 3))
    size, alpha, beta, k = 3, 0.2, 0.75, 2.0
    sq = np.pad(x ** 2, ((0, 0), (1, 1), (0, 0)))
    window = np.stack([sq[:, c:c + size].sum(axis=1) for c in range(5)], axis=1)
    want = x / (k + alpha / size * window) ** beta
    np.testing.assert_allclose(arr(nn.LocalResponseNorm(size, alpha, beta, k)(tl(x))), want, rtol=1e-10)


# ============================================================================ dropout

def test_dropout_train_and_eval():
    x = torchlike.ones(200, 50)
    d = nn.Dropout(0.3)
    y = arr(d(x))
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.03
    np.testing.assert_allclose(y[kept], 1 / 0.7)
    d.eval()
    assert d(x) is x or np.array_equal(arr(d(x)), arr(x))
    channel = arr(nn.Dropout2d(0.5)(torchlike.ones(20, 30, 4, 4)))
    per_channel = channel.reshape(20, 30, 16)
    # Whole channels drop together.
    assert np.all((per_channel == 0).all(axis=2) | (per_channel == 2).all(axis=2))
    assert tuple(nn.Dropout1d()(torchlike.ones(3, 5)).shape) == (3, 5)
    a = nn.AlphaDropout(0.2)
    z = torchlike.randn(400, 400)
    out = arr(a(z))
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.03
    a.eval()
    assert np.array_equal(arr(a(z)), arr(z))
    fa = arr(nn.FeatureAlphaDropout(0.5)(torchlike.ones(10, 20, 6)))
    assert np.all((fa == fa[:, :, :1]).all(axis=2))


def test_dropout_inplace_repr_and_errors():
    x = torchlike.ones(10, 10)
    out = nn.Dropout(0.5, inplace=True)(x)
    assert out.data_ptr() == x.data_ptr()
    assert repr(nn.Dropout2d(0.3, True)) == "Dropout2d(p=0.3, inplace=True)"
    for cls in (nn.Dropout, nn.AlphaDropout, nn.Dropout3d):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            cls(1.5)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        nn.Dropout1d()(torchlike.ones(2, 3, 4, 5))


# ============================================================================ embeddings

def test_embedding_lookup_padding_and_grad():
    e = nn.Embedding(6, 3, padding_idx=-1).double()
    assert e.padding_idx == 5 and np.all(arr(e.weight)[5] == 0)
    idx = tl(np.array([[0, 5, 2], [2, 2, 1]]))
    out = e(idx)
    np.testing.assert_array_equal(arr(out), arr(e.weight)[arr(idx)])
    out.sum().backward()
    g = arr(e.weight.grad)
    np.testing.assert_array_equal(g[:, 0], [1, 1, 3, 0, 0, 0])  # the padding row gets nothing
    big = nn.Embedding(20000, 4)
    w = arr(big.weight)
    assert abs(w.mean()) < 0.02 and abs(w.std() - 1) < 0.02


def test_embedding_max_norm_from_pretrained_and_sparse():
    table = RNG.standard_normal((5, 3)) * 4
    e = nn.Embedding.from_pretrained(tl(table.copy()), max_norm=1.0)
    assert not e.weight.requires_grad
    e(tl(np.array([1, 3])))
    norms = np.linalg.norm(arr(e.weight), axis=1)
    assert norms[1] <= 1 + 1e-6 and norms[3] <= 1 + 1e-6 and norms[0] > 1
    assert nn.Embedding.from_pretrained(tl(table), freeze=False).weight.requires_grad
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(torchlike.zeros(3))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(10, 3, padding_idx=10)
    with pytest.raises(AssertionError, match="Shape of weight does not match num_embeddings and embedding_dim"):
        nn.Embedding(10, 3, _weight=torchlike.zeros(9, 3))
    # torchlike has no sparse tensors: the flag is kept (state, repr) and the lookup says so.
    sparse = nn.Embedding(10, 3, sparse=True)
    assert sparse.sparse is True
    with pytest.raises(NotImplementedError, match="sparse=True gradients are not supported"):
        sparse(tl(np.array([1, 2])))
    assert repr(nn.Embedding(10, 3, padding_idx=0, max_norm=1.0, norm_type=3., scale_grad_by_freq=True,
                             sparse=True)) == ("Embedding(10, 3, padding_idx=0, max_norm=1.0, norm_type=3.0, "
                                               "scale_grad_by_freq=True, sparse=True)")


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_modes(mode):
    table = RNG.standard_normal((8, 3))
    bag = nn.EmbeddingBag.from_pretrained(tl(table), mode=mode)
    flat = np.array([1, 2, 4, 5, 4, 7])
    offsets = np.array([0, 2, 2, 5])
    reduce = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode]
    bounds = list(offsets) + [len(flat)]
    want = np.stack([reduce(table[flat[a:b]], axis=0) if b > a else np.zeros(3) for a, b in zip(bounds, bounds[1:])])
    np.testing.assert_allclose(arr(bag(tl(flat), tl(offsets))), want, rtol=1e-12)
    two_d = np.array([[1, 2, 3], [0, 0, 6]])
    np.testing.assert_allclose(arr(bag(tl(two_d))), reduce(table[two_d], axis=1), rtol=1e-12)


def test_embedding_bag_weights_last_offset_and_padding():
    table = RNG.standard_normal((6, 2))
    bag = nn.EmbeddingBag.from_pretrained(tl(table), mode="sum", include_last_offset=True, padding_idx=0)
    flat = np.array([1, 0, 3, 4, 5])
    w = RNG.standard_normal(5)
    out = arr(bag(tl(flat), tl(np.array([0, 3, 5])), per_sample_weights=tl(w)))
    keep = flat != 0
    contrib = table[flat] * (w * keep)[:, None]
    np.testing.assert_allclose(out, np.stack([contrib[:3].sum(0), contrib[3:].sum(0)]), rtol=1e-12)
    fresh = nn.EmbeddingBag(6, 2, padding_idx=-2)
    assert fresh.padding_idx == 4 and np.all(arr(fresh.weight)[4] == 0)
    assert repr(nn.EmbeddingBag(10, 3)) == "EmbeddingBag(10, 3, mode='mean')"
    assert repr(nn.EmbeddingBag(10, 3, max_norm=2., mode="sum", padding_idx=1, scale_grad_by_freq=True)) == \
        "EmbeddingBag(10, 3, max_norm=2.0, scale_grad_by_freq=True, mode='sum', padding_idx=1)"
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        nn.EmbeddingBag(5, 3, padding_idx=5)
    frozen = nn.EmbeddingBag.from_pretrained(tl(table))
    assert not frozen.weight.requires_grad


# ============================================================================ Bilinear

def test_bilinear():
    m = nn.Bilinear(2, 3, 4).double()
    bound = 1 / math.sqrt(2)
    assert np.abs(arr(m.weight)).max() <= bound and np.abs(arr(m.bias)).max() <= bound
    a, b = RNG.standard_normal((5, 2)), RNG.standard_normal((5, 3))
    want = np.einsum("ni,kij,nj->nk", a, arr(m.weight), b) + arr(m.bias)
    np.testing.assert_allclose(arr(m(tl(a), tl(b))), want, rtol=1e-12)
    assert repr(m) == "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)"
    assert nn.Bilinear(2, 3, 4, bias=False).bias is None
    big = nn.Bilinear(100, 3, 50)
    assert np.abs(arr(big.weight)).max() > 0.95 * 0.1


# ============================================================================ lazy modules

def test_lazy_linear_becomes_linear():
    m = nn.LazyLinear(3)
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert isinstance(m.weight, UninitializedParameter) and m.has_uninitialized_params()
    assert all(is_lazy(v) for v in m.state_dict().values())
    y = m(torchlike.randn(2, 5))
    assert type(m) is nn.Linear and tuple(y.shape) == (2, 3)
    assert tuple(m.weight.shape) == (3, 5) and m.in_features == 5
    assert not m._forward_pre_hooks and not m._load_state_dict_pre_hooks
    bound = 1 / math.sqrt(5)
    assert np.abs(arr(m.weight)).max() <= bound
    assert type(m.weight) is nn.Parameter


def test_lazy_load_state_dict_materialises():
    src = nn.Linear(4, 3)
    m = nn.LazyLinear(3)
    m.load_state_dict(src.state_dict())
    assert type(m) is nn.LazyLinear and tuple(m.weight.shape) == (3, 4)
    np.testing.assert_array_equal(arr(m.weight), arr(src.weight))
    x = torchlike.randn(2, 4)
    np.testing.assert_array_equal(arr(m(x)), arr(src(x)))
    assert type(m) is nn.Linear


@pytest.mark.parametrize("cls, concrete, shape, weight_shape", [
    (nn.LazyConv1d, nn.Conv1d, (2, 4, 9), (6, 2, 3)),
    (nn.LazyConv2d, nn.Conv2d, (4, 7, 7), (6, 2, 3, 3)),          # unbatched: channels at dim 0
    (nn.LazyConv3d, nn.Conv3d, (1, 4, 5, 5, 5), (6, 2, 3, 3, 3)),
    (nn.LazyConvTranspose1d, nn.ConvTranspose1d, (2, 4, 9), (4, 3, 3)),
    (nn.LazyConvTranspose2d, nn.ConvTranspose2d, (1, 4, 5, 5), (4, 3, 3, 3)),
    (nn.LazyConvTranspose3d, nn.ConvTranspose3d, (4, 3, 3, 3), (4, 3, 3, 3, 3)),
])
def test_lazy_convs(cls, concrete, shape, weight_shape):
    m = cls(6, 3, groups=2)
    assert m.in_channels == 0 and repr(m).startswith(f"{cls.__name__}(0, 6, kernel_size=")
    x = torchlike.randn(*shape)
    y = m(x)
    assert type(m) is concrete and tuple(m.weight.shape) == weight_shape and m.in_channels == 4
    fresh = concrete(4, 6, 3, groups=2)
    fresh.load_state_dict(m.state_dict())
    np.testing.assert_allclose(arr(fresh(x)), arr(y), rtol=1e-6)


def test_lazy_conv_group_error_keeps_it_lazy():
    m = nn.LazyConv2d(4, 3, groups=2)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        m(torchlike.randn(1, 3, 5, 5))
    assert type(m) is nn.LazyConv2d and m.has_uninitialized_params()


@pytest.mark.parametrize("cls, concrete, shape", [
    (nn.LazyBatchNorm1d, nn.BatchNorm1d, (4, 3)), (nn.LazyBatchNorm2d, nn.BatchNorm2d, (2, 3, 4, 4)),
    (nn.LazyBatchNorm3d, nn.BatchNorm3d, (2, 3, 2, 2, 2)),
    (nn.LazyInstanceNorm1d, nn.InstanceNorm1d, (2, 3, 5)), (nn.LazyInstanceNorm2d, nn.InstanceNorm2d, (3, 4, 4)),
    (nn.LazyInstanceNorm3d, nn.InstanceNorm3d, (2, 3, 2, 2, 2))])
def test_lazy_norms(cls, concrete, shape):
    m = cls()
    assert repr(m).startswith(f"{cls.__name__}(0, eps=1e-05, momentum=0.1, affine=True, bias=True, ")
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert not is_lazy(m.num_batches_tracked)
    m(torchlike.randn(*shape))
    assert type(m) is concrete and m.num_features == 3
    assert np.all(arr(m.weight) == 1) and tuple(m.running_var.shape) == (3,)
    # Only batch norm counts batches (instance norm keeps the buffer but never advances it).
    assert int(m.num_batches_tracked) == (1 if "Batch" in cls.__name__ else 0)


def test_lazy_norm_without_state_stays_empty():
    m = nn.LazyBatchNorm1d(affine=False, track_running_stats=False)
    assert not m.has_uninitialized_params()
    m(torchlike.randn(3, 5))
    assert type(m) is nn.BatchNorm1d and list(m.state_dict()) == []


def test_custom_lazy_module_and_deepcopy():
    import copy

    class LazyScale(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = UninitializedParameter()

        def initialize_parameters(self, x):
            self.scale.materialize(x.shape[-1:])
            with torchlike.no_grad():
                self.scale.fill_(2.0)

        def forward(self, x):
            return x * self.scale

    m = LazyScale()
    twin = copy.deepcopy(nn.LazyLinear(2))
    assert type(twin) is nn.LazyLinear and twin.has_uninitialized_params()
    assert np.array_equal(arr(m(torchlike.ones(2, 3))), np.full((2, 3), 2.0))
    assert type(m) is LazyScale and not m.has_uninitialized_params()
    twin(torchlike.ones(1, 3))
    assert type(twin) is nn.Linear

    class NeverReady(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

        def initialize_parameters(self, x):
            pass

    with pytest.raises(RuntimeError, match="module NeverReady has not been fully initialized"):
        NeverReady()(torchlike.ones(1))


# ============================================================================ float64 gradients

def _params_gradcheck(module, inputs):
    """gradcheck over the inputs and every parameter of module (the parameters
    are swapped for the checked tensors during each call)."""
    names = [n for n, _ in module.named_parameters()]
    params = [p.detach().clone().requires_grad_() for _, p in module.named_parameters()]
    n_in = len(inputs)

    def fn(*tensors):
        saved = dict(module._parameters)
        for name, t in zip(names, tensors[n_in:]):
            module._parameters[name] = t
        try:
            return module(*tensors[:n_in])
        finally:
            module._parameters.update(saved)

    assert gradcheck(fn, tuple(inputs) + tuple(params))


@pytest.mark.parametrize("make, shape", [
    (lambda: nn.Conv2d(2, 3, 3, stride=2, padding=1, padding_mode="reflect"), (2, 2, 5, 5)),
    (lambda: nn.Conv1d(2, 4, 2, padding="same", dilation=2, groups=2, padding_mode="circular"), (1, 2, 6)),
    (lambda: nn.ConvTranspose2d(2, 2, 3, stride=2, output_padding=1), (1, 2, 3, 3)),
    (lambda: nn.BatchNorm1d(3), (4, 3, 2)),
    (lambda: nn.InstanceNorm1d(2, affine=True), (2, 2, 5)),
    (lambda: nn.GroupNorm(2, 4), (2, 4, 3)),
    (lambda: nn.LayerNorm([3]), (2, 3)),
    (lambda: nn.RMSNorm(3, eps=1e-3), (2, 3)),
    (lambda: nn.CrossMapLRN2d(3, alpha=0.5, beta=0.7, k=2.0), (1, 5, 2, 2)),
    (lambda: nn.LPPool2d(2, 2), (1, 2, 4, 4)),
])
def test_module_gradcheck(make, shape):
    module = make().double()
    x = tl(RNG.standard_normal(shape) + 0.5, requires_grad=True)
    _params_gradcheck(module, [x])


def test_bilinear_and_embedding_bag_gradcheck():
    _params_gradcheck(nn.Bilinear(2, 3, 2).double(),
                      [tl(RNG.standard_normal((3, 2)), True), tl(RNG.standard_normal((3, 3)), True)])
    bag = nn.EmbeddingBag(5, 2, mode="mean").double()
    idx = tl(np.array([0, 2, 2, 4, 1]))
    offsets = tl(np.array([0, 3]))
    _params_gradcheck(bag, [idx, offsets])


# ============================================================================ PyTorch parity (table-driven)

# (class name, constructor args, constructor kwargs, input specs, forward kwargs); an input spec is a
# shape for a float input, or ("long", shape, high) for indices.
PARITY = [
    ("Conv1d", (4, 6, 3), {}, [(2, 4, 9)], {}),
    ("Conv1d", (4, 6, 4), dict(padding="same", padding_mode="circular", dilation=2, groups=2), [(2, 4, 9)], {}),
    ("Conv2d", (4, 6, (3, 2)), dict(stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode="reflect"),
     [(2, 4, 8, 7)], {}),
    ("Conv2d", (3, 4, 3), dict(padding="same", padding_mode="replicate"), [(3, 6, 5)], {}),
    ("Conv2d", (3, 4, 2), dict(padding="valid"), [(1, 3, 5, 5)], {}),
    ("Conv2d", (2, 3, (2, 4)), dict(padding="same", dilation=(2, 1)), [(1, 2, 6, 7)], {}),
    ("Conv3d", (2, 2, 3), dict(padding=1, padding_mode="circular", groups=2), [(1, 2, 3, 4, 5)], {}),
    ("ConvTranspose1d", (3, 2, 3), dict(stride=3, padding=1), [(3, 4)], dict(output_size=[10])),
    ("Conv3d", (2, 4, 3), dict(padding=(1, 0, 1), stride=(1, 2, 1)), [(1, 2, 4, 5, 4)], {}),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, dilation=2, groups=2, output_padding=1), [(2, 4, 5)], {}),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1), [(1, 4, 5, 5)], dict(output_size=[10, 9])),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=2, bias=False), [(1, 2, 2, 3, 2)], {}),
    ("MaxPool1d", (3, 2, 1, 2), dict(ceil_mode=True), [(2, 3, 10)], {}),
    ("MaxPool2d", (3,), dict(stride=2, padding=1, return_indices=True), [(2, 3, 7, 6)], {}),
    ("MaxPool3d", (2,), {}, [(1, 2, 4, 4, 4)], {}),
    ("AvgPool1d", (3,), dict(stride=2, padding=1, count_include_pad=False), [(2, 3, 9)], {}),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True, divisor_override=5), [(2, 3, 8, 7)], {}),
    ("AvgPool3d", ((1, 2, 2),), {}, [(1, 2, 3, 4, 4)], {}),
    ("LPPool1d", (2.5, 3), dict(stride=2), [(2, 3, 9)], {}),
    ("LPPool2d", (2, 2), {}, [(1, 2, 4, 6)], {}),
    ("LPPool3d", (1, 2), {}, [(1, 2, 4, 4, 4)], {}),
    ("AdaptiveMaxPool1d", (4,), dict(return_indices=True), [(2, 3, 10)], {}),
    ("AdaptiveMaxPool2d", ((3, None),), {}, [(2, 3, 7, 5)], {}),
    ("AdaptiveMaxPool3d", (2,), {}, [(1, 2, 5, 4, 3)], {}),
    ("AdaptiveAvgPool1d", (4,), {}, [(2, 3, 10)], {}),
    ("AdaptiveAvgPool2d", ((3, 2),), {}, [(2, 3, 7, 5)], {}),
    ("AdaptiveAvgPool3d", ((None, 2, 1),), {}, [(1, 2, 5, 4, 3)], {}),
    ("ZeroPad1d", ((1, 2),), {}, [(2, 3, 4)], {}),
    ("ZeroPad2d", (2,), {}, [(2, 3, 4, 4)], {}),
    ("ConstantPad2d", ((1, 0, 2, 1), 1.5), {}, [(3, 4, 4)], {}),
    ("ConstantPad3d", (1, -2.0), {}, [(1, 2, 3, 3, 3)], {}),
    ("ReflectionPad1d", (2,), {}, [(2, 3, 5)], {}),
    ("ReflectionPad2d", ((1, 2, 0, 3),), {}, [(1, 2, 5, 5)], {}),
    ("ReflectionPad3d", (1,), {}, [(1, 2, 3, 3, 3)], {}),
    ("ReplicationPad1d", ((0, 3),), {}, [(2, 3, 4)], {}),
    ("ReplicationPad2d", (2,), {}, [(1, 2, 3, 3)], {}),
    ("ReplicationPad3d", ((1, 0, 0, 1, 2, 0),), {}, [(1, 2, 3, 3, 3)], {}),
    ("CircularPad1d", (2,), {}, [(2, 3, 4)], {}),
    ("CircularPad2d", ((1, 2, 2, 1),), {}, [(1, 2, 3, 4)], {}),
    ("CircularPad3d", (1,), {}, [(1, 2, 3, 3, 3)], {}),
    ("BatchNorm1d", (3,), {}, [(5, 3)], {}),
    ("BatchNorm1d", (3,), dict(momentum=None, bias=False), [(4, 3, 6)], {}),
    ("BatchNorm2d", (3,), dict(affine=False, eps=1e-3), [(2, 3, 4, 4)], {}),
    ("BatchNorm3d", (2,), dict(track_running_stats=False), [(2, 2, 3, 2, 2)], {}),
    ("SyncBatchNorm", (3,), {}, [(4, 3, 2)], {}),
    ("SyncBatchNorm", (2,), dict(momentum=None), [(3, 2, 2, 2)], {}),
    ("InstanceNorm1d", (3,), {}, [(2, 3, 6)], {}),
    ("InstanceNorm2d", (3,), dict(affine=True, track_running_stats=True), [(2, 3, 4, 4)], {}),
    ("InstanceNorm3d", (2,), dict(affine=True), [(2, 2, 3, 3, 2)], {}),
    ("LayerNorm", ((4, 5),), {}, [(3, 4, 5)], {}),
    ("LayerNorm", (5,), dict(bias=False, eps=1e-3), [(3, 5)], {}),
    ("GroupNorm", (2, 6), {}, [(3, 6, 4)], {}),
    ("GroupNorm", (3, 6), dict(affine=False), [(2, 6, 2, 2)], {}),
    ("RMSNorm", (5,), {}, [(3, 5)], {}),
    ("RMSNorm", ((2, 5),), dict(eps=1e-4, elementwise_affine=False), [(3, 2, 5)], {}),
    ("LocalResponseNorm", (3,), dict(alpha=0.1, beta=0.6, k=2.0), [(2, 5, 4)], {}),
    ("CrossMapLRN2d", (3,), dict(alpha=0.5, beta=0.7, k=2.0), [(2, 5, 3, 3)], {}),
    ("CrossMapLRN2d", (4,), {}, [(2, 7, 2, 2)], {}),
    ("Dropout", (0.3,), {}, [(3, 4)], {}),
    ("Dropout2d", (0.5, True), {}, [(2, 3, 4, 4)], {}),
    ("AlphaDropout", (0.2,), {}, [(3, 4)], {}),
    ("FeatureAlphaDropout", (), {}, [(2, 3, 4)], {}),
    ("Embedding", (10, 3), dict(padding_idx=0), [("long", (2, 4), 10)], {}),
    ("Embedding", (10, 3), dict(max_norm=1.0, norm_type=3.0), [("long", (5,), 10)], {}),
    ("EmbeddingBag", (10, 3), {}, [("long", (3, 4), 10)], {}),
    ("EmbeddingBag", (10, 3), dict(mode="max"), [("long", (2, 5), 10)], {}),
    ("Bilinear", (2, 3, 4), {}, [(5, 2), (5, 3)], {}),
    ("Bilinear", (3, 3, 2), dict(bias=False), [(4, 3), (4, 3)], {}),
]
# Randomness differs between the libraries: these are compared in eval mode (or for shapes and
# the CrossMapLRN2d gradient, which PyTorch computes with its own legacy formula).
STOCHASTIC = {"Dropout", "Dropout2d", "AlphaDropout", "FeatureAlphaDropout"}


def _make_inputs(specs, rng):
    out = []
    for spec in specs:
        if spec and spec[0] == "long":
            out.append(rng.integers(0, spec[2], size=spec[1]))
        else:
            out.append(rng.standard_normal(spec))
    return out


def _to(lib, a, grad):
    if a.dtype.kind == "i":
        return lib.from_numpy(a.copy())
    t = lib.from_numpy(a.copy())
    return t.requires_grad_() if grad else t


def _first(out):
    return out[0] if isinstance(out, tuple) else out


@requires_torch
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")  # PyTorch's own notice
@pytest.mark.parametrize("entry", PARITY, ids=[f"{e[0]}-{i}" for i, e in enumerate(PARITY)])
def test_parity_with_torch(entry):
    name, args, kwargs, specs, fwd_kwargs = entry
    ours = getattr(nn, name)(*args, **kwargs).double()
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    assert repr(ours) == repr(theirs)
    ref_sd = theirs.state_dict()
    our_sd = ours.state_dict()
    assert list(our_sd) == list(ref_sd)
    for key in ref_sd:
        assert tuple(our_sd[key].shape) == tuple(ref_sd[key].shape), key
        assert str(our_sd[key].dtype).split(".")[-1] == str(ref_sd[key].dtype).split(".")[-1], key
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())
    ours.load_state_dict(OrderedDict((k, torchlike.from_numpy(v.numpy().copy())) for k, v in ref_sd.items()))

    rng = np.random.default_rng(7)
    modes = ["eval"] if name in STOCHASTIC else ["train", "eval"]
    for mode in modes:
        getattr(ours, mode)()
        getattr(theirs, mode)()
        data = _make_inputs(specs, rng)
        x_ours = [_to(torchlike, a, True) for a in data]
        x_theirs = [_to(torch, a, True) for a in data]
        out_ours = ours(*x_ours, **fwd_kwargs)
        out_theirs = theirs(*x_theirs, **fwd_kwargs)
        if isinstance(out_theirs, tuple):
            for a, b in zip(out_ours, out_theirs):
                np.testing.assert_allclose(arr(a), b.detach().numpy(), rtol=1e-7, atol=1e-9)
        primary_ours, primary_theirs = _first(out_ours), _first(out_theirs)
        np.testing.assert_allclose(arr(primary_ours), primary_theirs.detach().numpy(), rtol=1e-7, atol=1e-9)
        if name == "CrossMapLRN2d" or not primary_theirs.requires_grad:
            continue  # PyTorch's CrossMapLRN2d backward is not the derivative of its forward
        g = rng.standard_normal(tuple(primary_theirs.shape))
        (primary_ours * torchlike.from_numpy(g)).sum().backward()
        (primary_theirs * torch.from_numpy(g)).sum().backward()
        for a, b in zip(x_ours, x_theirs):
            if b.grad is not None:
                np.testing.assert_allclose(arr(a.grad), b.grad.numpy(), rtol=1e-6, atol=1e-8)
        for (n_o, p_o), (n_t, p_t) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert n_o == n_t
            np.testing.assert_allclose(arr(p_o.grad), p_t.grad.numpy(), rtol=1e-6, atol=1e-8, err_msg=n_o)
            p_o.grad = None
            p_t.grad = None
        # Updated running statistics (and the batch counter) agree too.
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(arr(ours.state_dict()[key]), value.numpy(), rtol=1e-7, atol=1e-9, err_msg=key)


@requires_torch
def test_parity_init_statistics_and_train_eval_for_dropout():
    torch.manual_seed(0)
    torchlike.manual_seed(0)
    # Bounds and spreads of the default inits agree; the 99th percentile of |w|
    # (not the max, which is noisy for a normal init) and the std, each within
    # what two independent samples of these sizes allow.
    for name, args in [("Conv2d", (8, 16, 3)), ("ConvTranspose1d", (8, 4, 5)), ("Bilinear", (20, 3, 30)),
                       ("Embedding", (500, 40))]:
        w_o = arr(getattr(nn, name)(*args).weight)
        w_t = getattr(torch.nn, name)(*args).weight.detach().numpy()
        q_o, q_t = np.quantile(np.abs(w_o), 0.99), np.quantile(np.abs(w_t), 0.99)
        assert abs(q_o - q_t) < 0.1 * q_t, name
        assert abs(w_o.std() - w_t.std()) < 0.2 * w_t.std(), name
    x = np.ones((400, 300))
    for name in ["Dropout", "AlphaDropout"]:
        y_o = arr(getattr(nn, name)(0.3)(torchlike.from_numpy(x)))
        y_t = getattr(torch.nn, name)(0.3)(torch.from_numpy(x)).numpy()
        assert abs((y_o == y_o.max()).mean() - (y_t == y_t.max()).mean()) < 0.01
        np.testing.assert_allclose(np.unique(y_o), np.unique(y_t), rtol=1e-6)


LAZY_PARITY = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyConv1d", (4, 3), dict(padding=1), (2, 3, 7)),
    ("LazyConv2d", (4, 3), dict(groups=2), (4, 5, 5)),
    ("LazyConv3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), dict(groups=2), (1, 4, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 2, 2, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), dict(momentum=None), (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), dict(affine=False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), dict(track_running_stats=False), (2, 3, 3, 3)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 2, 2)),
]


@requires_torch
@pytest.mark.parametrize("name, args, kwargs, shape", LAZY_PARITY, ids=[e[0] for e in LAZY_PARITY])
def test_lazy_parity_with_torch(name, args, kwargs, shape):
    ours = getattr(nn, name)(*args, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    theirs(torch.from_numpy(x))
    ours(torchlike.from_numpy(x))
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours) == repr(theirs)
    ours.load_state_dict(OrderedDict((k, torchlike.from_numpy(v.numpy().copy()))
                                     for k, v in theirs.state_dict().items()))
    ours.eval()
    theirs.eval()
    x2 = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(arr(ours(torchlike.from_numpy(x2))), theirs(torch.from_numpy(x2)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


SIGNATURE_CLASSES = sorted({e[0] for e in PARITY} | {e[0] for e in LAZY_PARITY} | {
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Dropout1d", "Dropout3d", "LocalResponseNorm",
    "FractionalMaxPool2d", "FractionalMaxPool3d"})


@requires_torch
@pytest.mark.parametrize("name", SIGNATURE_CLASSES)
def test_signatures_match_torch(name):
    def shape_of(fn):
        sig = inspect.signature(fn)
        return [(p.name, p.kind, p.default) for p in sig.parameters.values()]
    assert shape_of(getattr(nn, name).__init__) == shape_of(getattr(torch.nn, name).__init__)
    assert shape_of(getattr(nn, name).forward) == shape_of(getattr(torch.nn, name).forward)


@requires_torch
@pytest.mark.parametrize("nd, shape, kernel, out", [(2, (2, 3, 7, 9), (2, 3), (4, 5)), (2, (3, 10, 10), 3, (5, 2)),
                                                    (3, (1, 2, 9, 10, 11), (2, 3, 2), (4, 5, 6)),
                                                    (3, (2, 5, 6, 7), 2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fractional_max_pool_parity_with_torch(nd, shape, kernel, out, dtype):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape).astype(dtype)
    planes = shape[-nd - 1]
    batch = shape[0] if len(shape) == nd + 2 else 1
    samples = rng.random((batch, planes, nd)).astype(dtype)
    ours = getattr(nn, f"FractionalMaxPool{nd}d")(kernel, output_size=out, return_indices=True,
                                                  _random_samples=tl(samples))
    theirs = getattr(torch.nn, f"FractionalMaxPool{nd}d")(kernel, output_size=out, return_indices=True,
                                                          _random_samples=torch.from_numpy(samples))
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x_o, x_t = tl(x.copy(), True), torch.from_numpy(x.copy()).requires_grad_()
    (v_o, i_o), (v_t, i_t) = ours(x_o), theirs(x_t)
    np.testing.assert_array_equal(arr(v_o), v_t.detach().numpy())
    np.testing.assert_array_equal(arr(i_o), i_t.numpy())
    g = rng.standard_normal(tuple(v_t.shape)).astype(dtype)
    (v_o * tl(g)).sum().backward()
    (v_t * torch.from_numpy(g)).sum().backward()
    np.testing.assert_allclose(arr(x_o.grad), x_t.grad.numpy(), rtol=1e-6)
    # NaNs win their window, and ties keep the first element, as in PyTorch.
    z = rng.standard_normal(shape).astype(dtype)
    z.reshape(-1)[[3, 4, 17]] = np.nan
    z.reshape(-1)[[30, 31]] = 5.0
    _, i_o = ours(tl(z))
    _, i_t = theirs(torch.from_numpy(z))
    np.testing.assert_array_equal(arr(i_o), i_t.numpy())
    # Truncation of the fractional steps in float32 lands on PyTorch's integers.
    for trial in range(50):
        size = int(rng.integers(5, 40))
        o = int(rng.integers(2, size - 1))
        y = rng.standard_normal((1, 1, size, size)).astype(np.float32)
        s = rng.random((1, 1, 2)).astype(np.float32)
        _, a = F.fractional_max_pool2d(tl(y), 2, output_size=o, return_indices=True, _random_samples=tl(s))
        _, b = torch.nn.functional.fractional_max_pool2d(torch.from_numpy(y), 2, output_size=o, return_indices=True,
                                                         _random_samples=torch.from_numpy(s))
        np.testing.assert_array_equal(arr(a), b.numpy())


@requires_torch
def test_from_pretrained_signatures_match_torch():
    for name in ("Embedding", "EmbeddingBag"):
        ours = inspect.signature(getattr(nn, name).from_pretrained)
        theirs = inspect.signature(getattr(torch.nn, name).from_pretrained)
        assert [(p.name, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.default) for p in theirs.parameters.values()]
    ours = inspect.signature(nn.SyncBatchNorm.convert_sync_batchnorm)
    theirs = inspect.signature(torch.nn.SyncBatchNorm.convert_sync_batchnorm)
    assert list(ours.parameters) == list(theirs.parameters)


# Bad constructor arguments and bad inputs: same exception type and message as PyTorch.
BAD_CONSTRUCTORS = [
    ("Conv2d", (4, 6, 3), dict(groups=3)), ("Conv2d", (4, 6, 3), dict(groups=4)), ("Conv1d", (4, 6, 3), dict(groups=0)),
    # (The padding-string and padding_mode messages print a set, whose order is per process; they are
    # checked by prefix in test_conv_errors.)
    ("Conv3d", (4, 6, 3), dict(stride=2, padding="same")), ("ConvTranspose1d", (4, 6, 3), dict(padding_mode="circular")),
    ("GroupNorm", (3, 4), {}), ("Dropout", (1.5,), {}), ("Dropout2d", (-0.1,), {}), ("FeatureAlphaDropout", (2,), {}),
    ("AlphaDropout", (-1,), {}), ("Embedding", (10, 3), dict(padding_idx=10)),
    ("Embedding", (10, 3), dict(padding_idx=-11)), ("EmbeddingBag", (10, 3), dict(padding_idx=12)),
    ("FractionalMaxPool2d", (2,), {}), ("FractionalMaxPool3d", (2,), dict(output_size=2, output_ratio=0.5)),
    ("FractionalMaxPool2d", (2,), dict(output_ratio=1.5)),
]
BAD_INPUTS = [
    ("Conv2d", (4, 6, 3), {}, (2, 3, 5, 5)), ("Conv2d", (4, 6, 3), {}, (4, 5)), ("Conv1d", (4, 6, 3), {}, (2, 4, 2)),
    ("BatchNorm2d", (3,), {}, (2, 3, 4)), ("BatchNorm3d", (3,), {}, (2, 3, 4, 4)),
    ("InstanceNorm1d", (3,), dict(affine=True), (2, 4, 5)), ("InstanceNorm1d", (3,), {}, (2, 4, 5, 6)),
    ("InstanceNorm3d", (3,), {}, (3, 4)), ("SyncBatchNorm", (3,), {}, (3,)), ("GroupNorm", (2, 4), {}, (2, 3, 5)),
    ("CrossMapLRN2d", (3,), {}, (2, 3, 4)), ("CircularPad2d", (1,), {}, (5,)), ("CircularPad3d", (1,), {}, (2, 3)),
    ("Dropout1d", (), {}, (3, 4, 5, 6)), ("ZeroPad2d", (1,), {}, (5,)), ("MaxPool2d", (3,), {}, (1, 1, 2, 2)),
    ("AvgPool2d", (3,), {}, (1, 1, 2, 2)), ("LPPool2d", (2, 3), {}, (1, 1, 2, 2)), ("RMSNorm", (4,), {}, (2, 3)),
    ("FractionalMaxPool2d", (4,), dict(output_size=3), (1, 2, 5, 5)), ("ConvTranspose2d", (4, 6, 3), {}, (1, 3, 5, 5)),
]


def _outcome(call):
    try:
        call()
    except Exception as e:  # the exception itself is what is compared
        return type(e).__name__, str(e)
    return None


@requires_torch
@pytest.mark.parametrize("name, args, kwargs", BAD_CONSTRUCTORS, ids=[e[0] for e in BAD_CONSTRUCTORS])
def test_constructor_errors_match_torch(name, args, kwargs):
    ours = _outcome(lambda: getattr(nn, name)(*args, **kwargs))
    theirs = _outcome(lambda: getattr(torch.nn, name)(*args, **kwargs))
    assert ours is not None and ours == theirs


@requires_torch
@pytest.mark.parametrize("name, args, kwargs, shape", BAD_INPUTS, ids=[e[0] for e in BAD_INPUTS])
def test_input_errors_match_torch(name, args, kwargs, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    ours = _outcome(lambda: getattr(nn, name)(*args, **kwargs).double()(torchlike.from_numpy(x)))
    theirs = _outcome(lambda: getattr(torch.nn, name)(*args, **kwargs).double()(torch.from_numpy(x)))
    assert ours is not None and ours == theirs


@pytest.mark.parametrize("nd, with_indices, plain", [
    (2, "fractional_max_pool2d_with_indices", "fractional_max_pool2d"),
    (3, "fractional_max_pool3d_with_indices", "fractional_max_pool3d")])
def test_fractional_max_pool_with_indices_forms(nd, with_indices, plain):
    # The _with_indices names return (values, indices) whatever return_indices
    # says, and agree with the return_indices=True form for the same samples.
    F = torchlike.nn.functional
    shape = (2, 3) + (7,) * nd
    x = torchlike.from_numpy(np.random.default_rng(nd).standard_normal(shape))
    samples = torchlike.from_numpy(np.random.default_rng(9).random((2, 3, nd)))
    with_indices, plain = getattr(F, with_indices), getattr(F, plain)
    out, idx = with_indices(x, 2, output_size=(3,) * nd, _random_samples=samples)
    ref_out, ref_idx = plain(x, 2, output_size=(3,) * nd, return_indices=True, _random_samples=samples)
    assert out.shape == (2, 3) + (3,) * nd and idx.dtype == torchlike.int64
    np.testing.assert_array_equal(out.numpy(), ref_out.numpy())
    np.testing.assert_array_equal(idx.numpy(), ref_idx.numpy())
    flat = x.reshape(2, 3, -1).numpy()
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.reshape(2, 3, -1).numpy(), 2),
                                  out.reshape(2, 3, -1).numpy())
