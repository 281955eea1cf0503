"""torchlike.nn.init.

The random initialisers draw from torchlike's generator, not PyTorch's stream,
so they are checked by distribution with fixed seeds: bounds from the fan
rules, moments within 5 standard errors, a Kolmogorov-Smirnov distance for
trunc_normal_, orthogonality, exact zero counts for sparse_. The deterministic
parts (gains, fans, eye_, dirac_, errors) are checked against exact math and
NumPy, and against PyTorch when it is installed.
"""
import inspect
import math
import re
import warnings

import numpy as np
import pytest

import torchlike as tl
import torchlike.nn as nn
from torchlike.nn import init

try:
    import torch
    import torch.nn.init as tinit
    HAS_TORCH = True
except Exception:  # pragma: no cover
    HAS_TORCH = False

requires_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (parity reference) is not installed")

FLOATS = [tl.float16, tl.bfloat16, tl.float32, tl.float64]
# Relative resolution of each dtype, for bounds checks after rounding.
EPS = {tl.float16: 2.0 ** -10, tl.bfloat16: 2.0 ** -7, tl.float32: 2.0 ** -23, tl.float64: 2.0 ** -52}
N = 40000


def gen(seed=0):
    return tl.Generator().manual_seed(seed)


def np64(t):
    return t.double().numpy()


def check_moments(x, mean, std):
    """Sample mean and std of x within 5 standard errors of (mean, std)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    n = x.size
    assert abs(x.mean() - mean) < 5 * std / math.sqrt(n) + 1e-12, (x.mean(), mean)
    # The standard error of a sample std is about std / sqrt(2n) for a normal
    # sample and smaller for lighter-tailed ones (uniform, truncated normal).
    assert abs(x.std() - std) < 5 * std / math.sqrt(2 * n) + 1e-12, (x.std(), std)


def check_low_precision_moments(x, mean, std, dtype):
    # float16/bfloat16 add rounding of about eps * |value| to each draw.
    slack = 4 * EPS[dtype] * (abs(mean) + 3 * std)
    x = np.asarray(x, dtype=np.float64).ravel()
    assert abs(x.mean() - mean) < 5 * std / math.sqrt(x.size) + slack
    assert abs(x.std() - std) < 5 * std / math.sqrt(2 * x.size) + slack


def moments(x, mean, std, dtype):
    if dtype in (tl.float16, tl.bfloat16):
        check_low_precision_moments(x, mean, std, dtype)
    else:
        check_moments(x, mean, std)


# ---------------------------------------------------------------- calculate_gain

@pytest.mark.parametrize("name", ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                  "conv_transpose3d", "sigmoid"])
def test_calculate_gain_linear_family_is_one(name):
    g = init.calculate_gain(name)
    assert g == 1 and type(g) is int  # PyTorch returns the int 1 here


def test_calculate_gain_values():
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("selu") == 0.75
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / (1 + 0.2 ** 2))
    assert init.calculate_gain("leaky_relu", 0) == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu", -3) == math.sqrt(2.0 / 10)
    # Other nonlinearities ignore param.
    assert init.calculate_gain("tanh", "anything") == 5.0 / 3


@pytest.mark.parametrize("param", [True, False, "0.1", [0.1], 1 + 0j])
def test_calculate_gain_bad_slope(param):
    with pytest.raises(ValueError, match=re.escape(f"negative_slope {param} not a valid number")):
        init.calculate_gain("leaky_relu", param)


@pytest.mark.parametrize("name", ["gelu", "Relu", "", "softmax"])
def test_calculate_gain_unsupported(name):
    with pytest.raises(ValueError, match=f"Unsupported nonlinearity {name}"):
        init.calculate_gain(name)


@requires_torch
def test_calculate_gain_matches_torch():
    cases = [(n, None) for n in ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                 "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]]
    cases += [("leaky_relu", p) for p in (0, 1, -2, 0.2, 0.01, 5.5)]
    for name, param in cases:
        ours, theirs = init.calculate_gain(name, param), tinit.calculate_gain(name, param)
        assert ours == theirs and type(ours) is type(theirs), (name, param)
    for name, param in [("leaky_relu", True), ("leaky_relu", "x"), ("nope", None)]:
        with pytest.raises(ValueError) as ours:
            init.calculate_gain(name, param)
        with pytest.raises(ValueError) as theirs:
            tinit.calculate_gain(name, param)
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- fans

FAN_SHAPES = [(3, 4), (5, 2, 3), (6, 4, 3, 3), (2, 3, 2, 2, 2), (0, 3), (4, 0, 2), (7, 1, 1, 1)]


@pytest.mark.parametrize("shape", FAN_SHAPES)
def test_fan_in_and_fan_out(shape):
    receptive = math.prod(shape[2:])
    assert init._calculate_fan_in_and_fan_out(tl.empty(shape)) == (shape[1] * receptive, shape[0] * receptive)
    assert init._calculate_correct_fan(tl.empty(shape), "fan_in") == shape[1] * receptive
    assert init._calculate_correct_fan(tl.empty(shape), "Fan_Out") == shape[0] * receptive


@pytest.mark.parametrize("shape", [(), (5,)])
def test_fan_needs_two_dims(shape):
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(tl.empty(shape))
    for f in (init.xavier_uniform_, init.xavier_normal_, init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.raises(ValueError, match="fewer than 2 dimensions"):
            f(tl.empty(shape) if shape else tl.empty(()))


def test_correct_fan_bad_mode():
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(tl.empty(3, 4), mode="fan_avg")
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_normal_(tl.empty(3, 4), mode="FAN_AVG")


@requires_torch
@pytest.mark.parametrize("shape", FAN_SHAPES + [(5,)])
def test_fans_match_torch(shape):
    try:
        theirs = tinit._calculate_fan_in_and_fan_out(torch.empty(shape))
    except ValueError as e:
        with pytest.raises(ValueError, match=str(e)):
            init._calculate_fan_in_and_fan_out(tl.empty(shape))
        return
    assert init._calculate_fan_in_and_fan_out(tl.empty(shape)) == theirs


# ---------------------------------------------------------------- uniform_ / normal_ / constants

@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_bounds_and_moments(dtype):
    t = tl.empty(200, 200, dtype=dtype)
    assert init.uniform_(t, -2.0, 3.0, generator=gen(1)) is t
    x = np64(t)
    assert x.min() >= -2.0 and x.max() <= 3.0
    moments(x, 0.5, 5.0 / math.sqrt(12), dtype)
    y = np64(init.uniform_(tl.empty(N, dtype=dtype), generator=gen(2)))  # defaults a=0, b=1
    assert y.min() >= 0.0 and y.max() <= 1.0
    moments(y, 0.5, 1 / math.sqrt(12), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_moments(dtype):
    t = tl.empty(N, dtype=dtype)
    assert init.normal_(t, 3.0, 0.5, generator=gen(3)) is t
    moments(np64(t), 3.0, 0.5, dtype)
    moments(np64(init.normal_(tl.empty(N, dtype=dtype), generator=gen(4))), 0.0, 1.0, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_constant_ones_zeros(dtype):
    t = tl.empty(3, 5, dtype=dtype)
    assert init.constant_(t, 0.25) is t
    assert np.array_equal(np64(t), np.full((3, 5), 0.25))
    assert init.ones_(t) is t and np.array_equal(np64(t), np.ones((3, 5)))
    assert init.zeros_(t) is t and np.array_equal(np64(t), np.zeros((3, 5)))


def test_generator_reproducible():
    for f in (lambda t, g: init.uniform_(t, -1, 1, generator=g), lambda t, g: init.normal_(t, generator=g),
              lambda t, g: init.trunc_normal_(t, generator=g), lambda t, g: init.trunc_normal_(t, 0, 1, 2, 3, g),
              lambda t, g: init.xavier_uniform_(t, generator=g), lambda t, g: init.xavier_normal_(t, generator=g),
              lambda t, g: init.kaiming_uniform_(t, generator=g), lambda t, g: init.kaiming_normal_(t, generator=g),
              lambda t, g: init.orthogonal_(t, generator=g), lambda t, g: init.sparse_(t, 0.5, generator=g)):
        a, b, c = (f(tl.empty(8, 6), gen(s)) for s in (7, 7, 8))
        assert np.array_equal(a.numpy(), b.numpy())
        assert not np.array_equal(a.numpy(), c.numpy())


def test_runs_under_no_grad_on_leaves():
    # In-place ops on a leaf that requires grad are errors outside no_grad.
    fills = [lambda w: init.uniform_(w), lambda w: init.normal_(w), lambda w: init.trunc_normal_(w),
             lambda w: init.constant_(w, 2.0), init.ones_, init.zeros_, init.eye_, init.xavier_uniform_,
             init.xavier_normal_, init.kaiming_uniform_, init.kaiming_normal_, init.orthogonal_,
             lambda w: init.sparse_(w, 0.3)]
    for fill in fills:
        w = tl.empty(4, 5, requires_grad=True)
        assert fill(w) is w
        assert w.requires_grad and w.is_leaf and w.grad_fn is None
    w = tl.empty(4, 2, 3, requires_grad=True)
    assert init.dirac_(w) is w and w.is_leaf and w.grad_fn is None


# ---------------------------------------------------------------- xavier / kaiming

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(300, 200), (64, 32, 3, 3)])
def test_xavier_uniform(dtype, shape):
    gain = 1.7
    fan_in, fan_out = shape[1] * math.prod(shape[2:]), shape[0] * math.prod(shape[2:])
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    t = tl.empty(shape, dtype=dtype)
    assert init.xavier_uniform_(t, gain=gain, generator=gen(5)) is t
    x = np64(t)
    assert np.abs(x).max() <= bound * (1 + EPS[dtype])
    assert np.abs(x).max() > 0.99 * bound  # the whole range is used
    moments(x, 0.0, bound / math.sqrt(3), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(300, 200), (64, 32, 3, 3)])
def test_xavier_normal(dtype, shape):
    fan_in, fan_out = shape[1] * math.prod(shape[2:]), shape[0] * math.prod(shape[2:])
    t = tl.empty(shape, dtype=dtype)
    assert init.xavier_normal_(t, 0.5, generator=gen(6)) is t
    moments(np64(t), 0.0, 0.5 * math.sqrt(2.0 / (fan_in + fan_out)), dtype)


KAIMING = [  # (a, mode, nonlinearity)
    (0, "fan_in", "leaky_relu"), (0.2, "fan_out", "leaky_relu"), (0, "fan_in", "relu"), (0, "FAN_OUT", "tanh"),
    (math.sqrt(5), "fan_in", "leaky_relu"), (0, "fan_in", "linear"), (0, "fan_in", "selu"), (3, "fan_in", "sigmoid"),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("a,mode,nonlinearity", KAIMING)
def test_kaiming_uniform(dtype, a, mode, nonlinearity):
    shape = (128, 40, 3, 3)
    fan = (shape[1] if mode.lower() == "fan_in" else shape[0]) * 9
    gain = init.calculate_gain(nonlinearity, a)
    bound = gain * math.sqrt(3.0 / fan)
    t = tl.empty(shape, dtype=dtype)
    assert init.kaiming_uniform_(t, a=a, mode=mode, nonlinearity=nonlinearity, generator=gen(9)) is t
    x = np64(t)
    assert np.abs(x).max() <= bound * (1 + EPS[dtype])
    assert np.abs(x).max() > 0.99 * bound
    moments(x, 0.0, bound / math.sqrt(3), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("a,mode,nonlinearity", KAIMING)
def test_kaiming_normal(dtype, a, mode, nonlinearity):
    shape = (200, 150)
    fan = shape[1] if mode.lower() == "fan_in" else shape[0]
    t = tl.empty(shape, dtype=dtype)
    assert init.kaiming_normal_(t, a, mode, nonlinearity, generator=gen(10)) is t
    moments(np64(t), 0.0, init.calculate_gain(nonlinearity, a) / math.sqrt(fan), dtype)


@pytest.mark.parametrize("f", [init.kaiming_uniform_, init.kaiming_normal_])
def test_kaiming_zero_element_is_a_warned_noop(f):
    t = tl.full((0, 3), 5.0)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert f(t) is t
    # The warning comes before any fan or mode check.
    with pytest.warns(UserWarning, match="zero-element"):
        f(tl.empty(0), mode="bogus")


def test_kaiming_bad_nonlinearity():
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.kaiming_uniform_(tl.empty(3, 4), nonlinearity="gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.kaiming_normal_(tl.empty(3, 4), a=True)


# ---------------------------------------------------------------- trunc_normal_

def _phi(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _Phi(x):
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def truncated_normal_stats(mean, std, a, b):
    al, be = (a - mean) / std, (b - mean) / std
    z = _Phi(be) - _Phi(al)
    m = mean + std * (_phi(al) - _phi(be)) / z
    var = std ** 2 * (1 + (al * _phi(al) - be * _phi(be)) / z - ((_phi(al) - _phi(be)) / z) ** 2)
    return m, math.sqrt(var), (lambda x: (_Phi((x - mean) / std) - _Phi(al)) / z)


# The first two take the normal-proposal branch (mass in [a, b] > 0.3), the
# others the uniform-proposal one.
TRUNC = [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, -1.0, 5.0), (0.0, 1.0, 2.0, 3.0), (0.0, 0.1, -0.01, 0.03),
         (5.0, 1.0, 4.5, 4.6)]


@pytest.mark.parametrize("mean,std,a,b", TRUNC)
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_trunc_normal_distribution(mean, std, a, b, dtype):
    t = tl.empty(N, dtype=dtype)
    assert init.trunc_normal_(t, mean, std, a, b, generator=gen(11)) is t
    x = np64(t)
    assert x.min() >= a * (1 + np.sign(a) * EPS[dtype]) - EPS[dtype] and x.max() <= b * (1 + EPS[dtype]) + EPS[dtype]
    m, s, cdf = truncated_normal_stats(mean, std, a, b)
    check_moments(x, m, s)
    # Kolmogorov-Smirnov distance against the exact CDF; 1.95/sqrt(n) is the
    # 0.1% critical value.
    xs = np.sort(x)
    f = np.array([cdf(v) for v in xs])
    k = np.arange(1, xs.size + 1) / xs.size
    d = max(np.max(k - f), np.max(f - (k - 1.0 / xs.size)))
    assert d < 1.95 / math.sqrt(xs.size), d


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_trunc_normal_low_precision(dtype):
    for mean, std, a, b in TRUNC[:3]:
        x = np64(init.trunc_normal_(tl.empty(N, dtype=dtype), mean, std, a, b, generator=gen(12)))
        lo = tl.tensor(a, dtype=dtype).item()
        hi = tl.tensor(b, dtype=dtype).item()
        assert x.min() >= lo and x.max() <= hi
        m, s, _ = truncated_normal_stats(mean, std, a, b)
        check_low_precision_moments(x, m, s, dtype)


def test_trunc_normal_defaults_and_warning():
    x = np64(init.trunc_normal_(tl.empty(N), generator=gen(13)))  # mean 0, std 1, [-2, 2]
    assert x.min() >= -2 and x.max() <= 2 and x.min() < -1.9 and x.max() > 1.9
    with pytest.warns(UserWarning, match=r"mean is more than 2 std from \[a, b\] in nn.init.trunc_normal_"):
        y = init.trunc_normal_(tl.empty(500), mean=10.0, std=1.0, a=-2.0, b=2.0, generator=gen(14))
    assert np64(y).min() >= -2 and np64(y).max() <= 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.trunc_normal_(tl.empty(10), mean=3.9, std=1.0, a=-2.0, b=2.0)  # within 2 std: silent


# ---------------------------------------------------------------- eye_ / dirac_

@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (6, 2), (1, 1), (0, 3)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_eye(shape, dtype):
    t = tl.full(shape, 7.0, dtype=dtype)
    assert init.eye_(t) is t
    assert np.array_equal(np64(t), np.eye(*shape))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4)])
def test_eye_needs_two_dims(shape):
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(tl.empty(shape))


def dirac_reference(shape, groups):
    out = np.zeros(shape)
    per_group = shape[0] // groups
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(per_group, shape[1])):
            out[(g * per_group + d, d) + centre] = 1
    return out


DIRAC = [((4, 4, 3), 1), ((6, 3, 5), 1), ((2, 5, 4), 1), ((6, 2, 3, 3), 2), ((8, 3, 2, 4), 4), ((4, 4, 3, 3, 3), 2),
         ((3, 5, 1, 2, 4), 3), ((6, 1, 3), 3), ((0, 2, 3), 1), ((4, 0, 3, 3), 2)]


@pytest.mark.parametrize("shape,groups", DIRAC)
@pytest.mark.parametrize("dtype", FLOATS)
def test_dirac(shape, groups, dtype):
    t = tl.full(shape, 3.0, dtype=dtype)
    assert init.dirac_(t, groups) is t
    assert np.array_equal(np64(t), dirac_reference(shape, groups))


def test_dirac_errors():
    for shape in [(3, 3), (2, 2, 2, 2, 2, 2), (3,)]:
        with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
            init.dirac_(tl.empty(shape))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(tl.empty(4, 6, 3), groups=3)


def test_dirac_preserves_convolution_input():
    import torchlike.nn.functional as F
    x = tl.randn(2, 4, 9, 9, generator=gen(15))
    w = init.dirac_(tl.empty(4, 2, 3, 3), groups=2)
    assert np.allclose(F.conv2d(x, w, padding=1, groups=2).numpy(), x.numpy())


@requires_torch
@pytest.mark.parametrize("shape,groups", DIRAC)
def test_dirac_and_eye_match_torch(shape, groups):
    ours = init.dirac_(tl.empty(shape), groups).numpy()
    theirs = tinit.dirac_(torch.empty(shape), groups).numpy()
    assert np.array_equal(ours, theirs)
    assert np.array_equal(init.eye_(tl.empty(shape[:2])).numpy(), tinit.eye_(torch.empty(shape[:2])).numpy())


# ---------------------------------------------------------------- orthogonal_

@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (7, 3), (4, 2, 3), (6, 2, 2, 2), (1, 6), (6, 1)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_orthogonal(shape, dtype):
    gain = 2.5
    t = tl.empty(shape, dtype=dtype)
    assert init.orthogonal_(t, gain=gain, generator=gen(16)) is t
    rows = shape[0]
    q = np64(t).reshape(rows, -1) / gain
    tol = {tl.float16: 5e-3, tl.bfloat16: 4e-2, tl.float32: 1e-5, tl.float64: 1e-12}[dtype]
    if rows <= q.shape[1]:
        assert np.allclose(q @ q.T, np.eye(rows), atol=tol)  # orthonormal rows
    else:
        assert np.allclose(q.T @ q, np.eye(q.shape[1]), atol=tol)  # orthonormal columns


def test_orthogonal_is_haar_distributed():
    # Without the sign correction, Householder QR makes Q[0, 0] = -|x00| / |x0|
    # always negative; the Haar measure makes every entry symmetric with
    # mean 0 and variance 1/n.
    n, draws = 4, 4000
    g = gen(17)
    first = np.array([init.orthogonal_(tl.empty(n, n, dtype=tl.float64), generator=g)[0, 0].item()
                      for _ in range(draws)])
    check_moments(first, 0.0, 1 / math.sqrt(n))
    wide = np.array([init.orthogonal_(tl.empty(2, 5, dtype=tl.float64), generator=g)[1, 0].item()
                     for _ in range(draws)])
    check_moments(wide, 0.0, 1 / math.sqrt(5))


def test_orthogonal_noops_and_errors():
    for shape in [(), (4,)]:
        with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
            init.orthogonal_(tl.empty(shape))
    t = tl.empty(0, 3)
    assert init.orthogonal_(t) is t and t.shape == (0, 3)
    # A non-contiguous tensor is filled through its strides.
    w = tl.empty(6, 4).t()
    init.orthogonal_(w, generator=gen(18))
    assert np.allclose(w.numpy() @ w.numpy().T, np.eye(4), atol=1e-5)


# ---------------------------------------------------------------- sparse_

@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
@pytest.mark.parametrize("rows,cols,sparsity", [(10, 300, 0.1), (10, 300, 0.35), (7, 50, 0.0), (7, 50, 1.0),
                                               (7, 50, 1.7), (7, 50, -0.2), (1, 20, 0.5)])
def test_sparse_zero_counts(dtype, rows, cols, sparsity):
    t = tl.empty(rows, cols, dtype=dtype)
    assert init.sparse_(t, sparsity, generator=gen(19)) is t
    x = t.numpy()
    # The count PyTorch's row_indices[:num_zeros] gives, negative counts included.
    expected = len(range(rows)[:math.ceil(sparsity * rows)])
    assert ((x == 0).sum(axis=0) == expected).all()


def test_sparse_values_and_randomness():
    rows, cols, std = 50, 400, 0.3
    t = init.sparse_(tl.empty(rows, cols, dtype=tl.float64), 0.2, std=std, generator=gen(20))
    x = t.numpy()
    check_moments(x[x != 0], 0.0, std)
    # Each row is zeroed in about 20% of the columns: the chosen rows differ
    # from column to column and are spread evenly.
    per_row = (x == 0).sum(axis=1)
    p = 0.2
    assert (np.abs(per_row - p * cols) < 5 * math.sqrt(cols * p * (1 - p))).all()


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_sparse_low_precision(dtype):
    t = init.sparse_(tl.empty(10, 40, dtype=dtype), 0.3, std=1.0, generator=gen(21))
    assert t.dtype == dtype
    assert ((np64(t) == 0).sum(axis=0) >= 3).all() and (np64(t) == 0).sum() < 3 * 40 + 3


def test_sparse_errors():
    for shape in [(3,), (2, 3, 4)]:
        with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
            init.sparse_(tl.empty(shape), 0.1)


# ---------------------------------------------------------------- meta, dtypes, aliases, surface

def test_meta_tensors():
    m = tl.empty(6, 4, 3, device="meta")
    for f in (init.uniform_, init.normal_, init.trunc_normal_, init.ones_, init.zeros_, init.xavier_uniform_,
              init.xavier_normal_, init.kaiming_uniform_, init.kaiming_normal_, init.orthogonal_, init.dirac_,
              lambda t: init.constant_(t, 2)):
        out = f(m)
        assert out is m and out.is_meta and out.shape == (6, 4, 3)
    m2 = tl.empty(5, 3, device="meta")
    assert init.eye_(m2) is m2 and init.sparse_(m2, 0.5) is m2


DEPRECATED = {
    "uniform": (init.uniform_, (), {}), "normal": (init.normal_, (), {}), "constant": (init.constant_, (0.5,), {}),
    "eye": (init.eye_, (), {}), "dirac": (init.dirac_, (), {}), "xavier_uniform": (init.xavier_uniform_, (), {}),
    "xavier_normal": (init.xavier_normal_, (), {}), "kaiming_uniform": (init.kaiming_uniform_, (), {}),
    "kaiming_normal": (init.kaiming_normal_, (), {}), "orthogonal": (init.orthogonal_, (), {}),
    "sparse": (init.sparse_, (0.5,), {}),
}


@pytest.mark.parametrize("old", sorted(DEPRECATED))
def test_deprecated_aliases(old):
    new, args, kwargs = DEPRECATED[old]
    alias = getattr(init, old)
    assert alias.__name__ == old and f"init.{old}_" in alias.__doc__
    t = tl.full((4, 4, 3) if old == "dirac" else (4, 6), 9.0)
    with pytest.warns(FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`."):
        assert alias(t, *args, **kwargs) is t
    assert not (t.numpy() == 9.0).all()  # it did fill


def test_deprecated_alias_warns_at_caller():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init.normal(tl.empty(3))
    assert w[0].filename == __file__


def test_reachable_from_nn():
    assert nn.init is init
    import torchlike.nn.init as again
    assert again is init


@requires_torch
def test_surface_and_signatures_match_torch():
    assert init.__all__ == tinit.__all__
    for name in tinit.__all__:
        ours = inspect.signature(getattr(init, name))
        theirs = inspect.signature(getattr(tinit, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()], name


@requires_torch
def test_error_messages_match_torch():
    cases = [
        ("eye_", (3,), ()), ("dirac_", (3, 3), ()), ("dirac_", (4, 6, 3), (3,)), ("orthogonal_", (4,), ()),
        ("sparse_", (2, 3, 4), (0.1,)), ("xavier_uniform_", (4,), ()), ("kaiming_normal_", (3,), ()),
    ]
    for name, shape, args in cases:
        with pytest.raises(ValueError) as theirs:
            getattr(tinit, name)(torch.empty(shape), *args)
        with pytest.raises(ValueError) as ours:
            getattr(init, name)(tl.empty(shape), *args)
        assert str(ours.value) == str(theirs.value), name
    with pytest.raises(ValueError) as theirs:
        tinit.kaiming_uniform_(torch.empty(3, 4), mode="FAN_AVG")
    with pytest.raises(ValueError) as ours:
        init.kaiming_uniform_(tl.empty(3, 4), mode="FAN_AVG")
    assert str(ours.value) == str(theirs.value)
