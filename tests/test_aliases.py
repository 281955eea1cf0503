"""torchlike/_aliases.py: aliases agree with their base op and with NumPy;
the small compositions (fmax, windows, trapezoid, promotion, flags, ...)
against NumPy or exact values, their errors, and PyTorch parity on top."""
import math
import warnings

import numpy as np
import pytest

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")

DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16, tl.bfloat16, tl.float32, tl.float64]


def _t(dtype):
    return getattr(torch, str(dtype).split(".")[1])


def _np(x):
    return x.detach().numpy()


X = np.array([[0.3, -0.7, 0.9], [0.1, 0.5, -0.2]])
Y = np.array([[0.2, 0.6, -0.4], [0.1, -0.5, 0.8]])

BINARY = [("greater", "gt", np.greater), ("greater_equal", "ge", np.greater_equal), ("less", "lt", np.less),
          ("less_equal", "le", np.less_equal), ("not_equal", "ne", np.not_equal), ("multiply", "mul", np.multiply),
          ("divide", "div", np.divide), ("true_divide", "div", np.divide), ("subtract", "sub", np.subtract),
          ("arctan2", "atan2", np.arctan2)]
UNARY = [("absolute", "abs", np.abs), ("arccos", "acos", np.arccos), ("arcsin", "asin", np.arcsin),
         ("arctan", "atan", np.arctan)]


@pytest.mark.parametrize("alias,base,ref", UNARY)
def test_unary_aliases(alias, base, ref):
    x = tl.tensor(X)
    for r in (getattr(tl, alias)(x), getattr(x, alias)()):
        np.testing.assert_allclose(_np(r), ref(X), rtol=1e-12)
        assert tl.equal(r, getattr(tl, base)(x))
    y = x.clone()
    assert getattr(y, alias + "_")() is y
    np.testing.assert_allclose(_np(y), ref(X), rtol=1e-12)
    out = tl.empty(2, 3, dtype=tl.float64)
    getattr(tl, alias)(x, out=out)
    np.testing.assert_allclose(_np(out), ref(X), rtol=1e-12)
    with pytest.raises(TypeError):
        getattr(tl, alias)("a")


@pytest.mark.parametrize("alias,base,ref", BINARY)
def test_binary_aliases(alias, base, ref):
    x, y = tl.tensor(X), tl.tensor(Y)
    for r in (getattr(tl, alias)(x, y), getattr(x, alias)(y)):
        np.testing.assert_allclose(_np(r), ref(X, Y), rtol=1e-12)
        assert tl.equal(r, getattr(tl, base)(x, y))
    z = x.clone()
    assert getattr(z, alias + "_")(y) is z
    np.testing.assert_allclose(_np(z), ref(X, Y).astype(np.float64), rtol=1e-12)
    with pytest.raises(RuntimeError):
        getattr(tl, alias)(tl.ones(2), tl.ones(3))


def test_alias_keywords_and_promotion():
    a, b = tl.tensor([7, -7, 5]), tl.tensor([2, 2, -3])
    assert tl.divide(a, b, rounding_mode="floor").tolist() == [3, -4, -2]
    assert tl.divide(a, b, rounding_mode="trunc").tolist() == [3, -3, -1]
    assert tl.divide(a, b).dtype == tl.float32 and tl.true_divide(a, b).dtype == tl.float32
    assert tl.subtract(a, b, alpha=2).tolist() == [3, -11, 11]
    assert tl.multiply(a, 2.5).dtype == tl.float32
    assert tl.arctan2(tl.tensor([1]), tl.tensor([1])).dtype == tl.float32
    with pytest.raises(RuntimeError):
        tl.subtract(tl.tensor([True]), tl.tensor([False]))


def test_cat_and_outer_aliases():
    a, b = tl.arange(6).reshape(2, 3), tl.arange(6, 12).reshape(2, 3)
    for f in (tl.concat, tl.concatenate):
        assert tl.equal(f((a, b), dim=1), tl.cat((a, b), dim=1))
        np.testing.assert_array_equal(_np(f([a, b])), np.concatenate([_np(a), _np(b)]))
    u, v = tl.tensor([1.0, 2.0]), tl.tensor([3.0, 4.0, 5.0])
    np.testing.assert_array_equal(_np(tl.ger(u, v)), np.outer([1, 2], [3, 4, 5]))
    assert tl.equal(u.ger(v), tl.outer(u, v))
    with pytest.raises(RuntimeError):
        tl.concat([a, tl.ones(3)])


def test_unsafe_split_chunk():
    x = tl.arange(7)
    assert [p.tolist() for p in tl.unsafe_chunk(x, 3)] == [p.tolist() for p in tl.chunk(x, 3)]
    assert [p.tolist() for p in x.unsafe_split(3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [p.tolist() for p in tl.unsafe_split_with_sizes(x, [2, 5])] == [[0, 1], [2, 3, 4, 5, 6]]


@pytest.mark.parametrize("name,ref", [("exp_", np.exp), ("sin_", np.sin), ("abs_", np.abs), ("sqrt_", np.sqrt),
                                      ("floor_", np.floor), ("tanh_", np.tanh), ("arccos_", np.arccos),
                                      ("log1p_", np.log1p), ("neg_", np.negative)])
def test_torch_level_inplace(name, ref):
    data = np.array([0.25, 0.5, 0.75])
    x = tl.tensor(data)
    assert getattr(tl, name)(x) is x
    np.testing.assert_allclose(_np(x), ref(data), rtol=1e-12)
    with pytest.raises(RuntimeError):
        getattr(tl, name)(tl.ones(2, requires_grad=True))


def test_torch_level_inplace_with_args():
    x = tl.tensor([1.0, 5.0, 9.0])
    tl.clamp_max_(x, 6.0)
    tl.clamp_min_(x, 2.0)
    assert x.tolist() == [2.0, 5.0, 6.0]
    g = tl.tensor([12, 18])
    tl.gcd_(g, tl.tensor([8, 27]))
    assert g.tolist() == [4, 9]
    v = tl.zeros(3)
    tl.addmv_(v, tl.eye(3), tl.tensor([1.0, 2.0, 3.0]))
    assert v.tolist() == [1.0, 2.0, 3.0]
    f = tl.ones(2, 2)
    r = tl.fill(f, 3.5)
    assert r.tolist() == [[3.5, 3.5], [3.5, 3.5]] and f.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_fused_inplace_methods():
    rng = np.random.default_rng(0)
    M, a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 2)), rng.standard_normal((2, 4))
    m = tl.tensor(M)
    assert m.addmm_(tl.tensor(a), tl.tensor(b), beta=2.0, alpha=0.5) is m
    np.testing.assert_allclose(_np(m), 2 * M + 0.5 * a @ b, rtol=1e-12)
    r = tl.tensor(M[:, :2].copy())
    r.addr_(tl.tensor(a[:, 0]), tl.tensor(b[0, :2]))
    np.testing.assert_allclose(_np(r), M[:, :2] + np.outer(a[:, 0], b[0, :2]), rtol=1e-12)
    B1, B2 = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 2, 4))
    s = tl.tensor(M)
    s.addbmm_(tl.tensor(B1), tl.tensor(B2))
    np.testing.assert_allclose(_np(s), M + (B1 @ B2).sum(0), rtol=1e-12)
    bb = tl.tensor(np.stack([M, M]))
    bb.baddbmm_(tl.tensor(B1), tl.tensor(B2))
    np.testing.assert_allclose(_np(bb), np.stack([M, M]) + B1 @ B2, rtol=1e-12)
    with pytest.raises(RuntimeError):
        tl.ones(3, 3).addmm_(tl.ones(3, 2), tl.ones(3, 3))


def test_constants():
    assert tl.pi == math.pi and tl.e == math.e and tl.inf == math.inf and math.isnan(tl.nan)
    assert tl.newaxis is None and tl.ones(3)[tl.newaxis].shape == (1, 3)


def test_fmax_fmin_against_numpy():
    a = np.array([1.0, np.nan, 3.0, np.nan, -0.5, np.inf])
    b = np.array([np.nan, 2.0, 1.0, np.nan, -0.25, 0.0])
    ta, tb = tl.tensor(a), tl.tensor(b)
    np.testing.assert_array_equal(_np(tl.fmax(ta, tb)), np.fmax(a, b))
    np.testing.assert_array_equal(_np(tl.fmin(ta, tb)), np.fmin(a, b))
    np.testing.assert_array_equal(_np(ta.fmax(tb)), np.fmax(a, b))
    np.testing.assert_array_equal(_np(ta.fmin(tb)), np.fmin(a, b))
    # broadcasting and promotion (int32 with float32 -> float32)
    i = tl.tensor([[1], [5]], dtype=tl.int32)
    f = tl.tensor([2.0, float("nan"), 7.0])
    r = tl.fmax(i, f)
    assert r.dtype == tl.float32 and r.shape == (2, 3)
    np.testing.assert_array_equal(_np(r), np.fmax(np.array([[1], [5]]), np.array([2.0, np.nan, 7.0])))
    assert tl.fmin(tl.tensor([3, 1]), tl.tensor([2, 2])).tolist() == [2, 1]
    out = tl.empty(6, dtype=tl.float64)
    assert tl.fmax(ta, tb, out=out) is out
    np.testing.assert_array_equal(_np(out), np.fmax(a, b))
    out32 = tl.empty(6, dtype=tl.float32)
    tl.fmin(ta, tb, out=out32)
    np.testing.assert_array_equal(_np(out32), np.fmin(a, b).astype(np.float32))
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.fmax(ta, tb, out=tl.empty(6, dtype=tl.int64))
    with pytest.raises(RuntimeError):
        tl.fmax(tl.ones(2), tl.ones(3))
    with pytest.raises(TypeError):
        tl.fmax(tl.ones(2), 1.0)
    # gradient flows to the chosen operand
    x = tl.tensor([1.0, 4.0], requires_grad=True)
    y = tl.tensor([3.0, float("nan")], requires_grad=True)
    tl.fmax(x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0] and y.grad.tolist() == [1.0, 0.0]


def test_isposinf_isneginf_isreal():
    a = np.array([np.inf, -np.inf, np.nan, 1.0, 0.0])
    x = tl.tensor(a)
    np.testing.assert_array_equal(_np(tl.isposinf(x)), np.isposinf(a))
    np.testing.assert_array_equal(_np(x.isneginf()), np.isneginf(a))
    np.testing.assert_array_equal(_np(tl.isreal(x)), np.isreal(a))
    assert tl.isposinf(tl.tensor([1, 2])).tolist() == [False, False]
    out = tl.empty(5, dtype=tl.bool)
    assert tl.isneginf(x, out=out) is out and out.tolist() == [False, True, False, False, False]
    with pytest.raises(TypeError):
        tl.isposinf([1.0])


def test_small_predicates():
    assert tl.is_nonzero(tl.tensor([1.5])) is True and tl.is_nonzero(tl.tensor(0)) is False
    assert tl.tensor([[True]]).is_nonzero() is True
    with pytest.raises(RuntimeError, match="more than one value"):
        tl.is_nonzero(tl.ones(2))
    with pytest.raises(RuntimeError, match="no values"):
        tl.is_nonzero(tl.ones(0))
    assert tl.is_same_size(tl.ones(2, 3), tl.zeros(2, 3)) and not tl.ones(2).is_same_size(tl.ones(3))
    signed = {d: tl.is_signed(tl.ones(1, dtype=d)) for d in DTYPES}
    assert [d for d, s in signed.items() if not s] == [tl.bool, tl.uint8]
    assert tl.ones(1, dtype=tl.int8).is_signed()
    x = tl.ones(2)
    assert tl.get_device(x) == -1 and x.get_device() == -1
    assert tl.is_inference(x) is False
    with tl.inference_mode():
        y = tl.ones(2)
    assert tl.is_inference(y) == y.is_inference()


def test_rsub_and_scalar_tensor():
    x = tl.tensor([1, 2, 3])
    assert tl.rsub(x, 10).tolist() == [9, 8, 7] and tl.rsub(x, 10).dtype == tl.int64
    assert tl.rsub(x, tl.tensor([1, 1, 1]), alpha=2).tolist() == [-1, -3, -5]
    r = tl.rsub(x, 0.5, alpha=2)
    assert r.dtype == tl.float32 and r.tolist() == [-1.5, -3.5, -5.5]
    assert tl.rsub(tl.tensor([1], dtype=tl.uint8), 3).dtype == tl.uint8
    with pytest.raises(RuntimeError, match="bool"):
        tl.rsub(tl.tensor([True]), 1)
    s = tl.scalar_tensor(3)
    assert s.shape == () and s.dtype == tl.float32 and s.item() == 3.0
    assert tl.scalar_tensor(2, dtype=tl.int16).dtype == tl.int16
    assert tl.scalar_tensor(1.5, requires_grad=True).requires_grad
    with pytest.raises(TypeError):
        tl.scalar_tensor(tl.ones(1))


def test_typename():
    assert tl.typename(tl.ones(2)) == tl.ones(2).type()
    assert tl.typename(3) == "int" and tl.typename(int) == "int"
    assert tl.typename(np.float64) == "numpy.float64"

    class K:
        pass
    K.__module__ = "pkg.mod"
    assert tl.typename(K) == "pkg.mod.test_typename.<locals>.K"
    assert tl.typename(K()) == "pkg.mod.test_typename.<locals>.K"


# PyTorch's promotion lattice, written out: the smallest type holding both
# (uint8 with int8 -> int16; float16 with bfloat16 -> float32; bool lowest).
_INT_ORDER = [tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64]


def _expected_promotion(a, b):
    if a == b:
        return a
    if a == tl.bool or b == tl.bool:
        return b if a == tl.bool else a
    fa, fb = a.is_floating_point, b.is_floating_point
    if fa and fb:
        if {a, b} == {tl.float16, tl.bfloat16}:
            return tl.float32
        order = [tl.float16, tl.bfloat16, tl.float32, tl.float64]
        return max(a, b, key=order.index)
    if fa or fb:
        return a if fa else b
    if {a, b} == {tl.uint8, tl.int8}:
        return tl.int16
    return max(a, b, key=_INT_ORDER.index)


def test_promote_types_table():
    for a in DTYPES:
        for b in DTYPES:
            assert tl.promote_types(a, b) == _expected_promotion(a, b), (a, b)
    with pytest.raises(TypeError):
        tl.promote_types(tl.float32, "float64")


def test_result_type_and_can_cast():
    f16 = tl.ones(2, dtype=tl.float16)
    assert tl.result_type(f16, 2.5) == tl.float16
    assert tl.result_type(tl.ones(2, dtype=tl.int32), 2.5) == tl.float32
    assert tl.result_type(tl.ones(2, dtype=tl.int32), tl.tensor(1.0, dtype=tl.float64)) == tl.float64
    assert tl.result_type(tl.ones(2, dtype=tl.int8), tl.tensor(1000)) == tl.int8
    assert tl.result_type(tl.tensor(1, dtype=tl.uint8), 5) == tl.uint8
    assert tl.result_type(tl.tensor([True]), 5) == tl.int64
    assert tl.result_type(2, 3.0) == tl.float32 and tl.result_type(True, False) == tl.bool
    # result_type is what an op actually gives
    for a, b in [(tl.ones(3, dtype=tl.int16), tl.tensor(2.0)), (tl.ones(3, dtype=tl.uint8), tl.ones(3, dtype=tl.int8))]:
        assert tl.result_type(a, b) == (a + b).dtype
    with pytest.raises(TypeError):
        tl.result_type(tl.ones(1), "x")
    assert tl.can_cast(tl.int32, tl.float16) and tl.can_cast(tl.bool, tl.uint8)
    assert not tl.can_cast(tl.float32, tl.int64) and not tl.can_cast(tl.int8, tl.bool)
    assert tl.can_cast(tl.float64, tl.float16) and tl.can_cast(tl.int64, tl.uint8)


def test_logspace():
    np.testing.assert_allclose(_np(tl.logspace(0, 2, 3, dtype=tl.float64)), np.logspace(0, 2, 3), rtol=1e-12)
    np.testing.assert_allclose(_np(tl.logspace(-1, 1, 7, base=2.0, dtype=tl.float64)),
                               np.logspace(-1, 1, 7, base=2.0), rtol=1e-12)
    assert tl.logspace(0, 1, 4).dtype == tl.float32
    assert tl.logspace(0, 2, 3, dtype=tl.int64).tolist() == [1, 10, 100]
    assert tl.logspace(0, 1, 0).shape == (0,) and tl.logspace(2, 5, 1).tolist() == [100.0]
    out = tl.empty(3, dtype=tl.float64)
    assert tl.logspace(0, 2, 3, out=out) is out and out.tolist() == [1.0, 10.0, 100.0]
    with pytest.raises(RuntimeError):
        tl.logspace(0, 1, -1)


def _np_window(name, n, periodic, **kw):
    m = n + 1 if periodic else n
    if name == "hann_window":
        w = np.hanning(m)
    elif name == "hamming_window":
        w = np.hamming(m)
    elif name == "blackman_window":
        w = np.blackman(m)
    elif name == "bartlett_window":
        w = np.bartlett(m)
    else:
        w = np.kaiser(m, kw.get("beta", 12.0))
    return w[:n]


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_windows_against_numpy(name):
    f = getattr(tl, name)
    for n in (2, 5, 8, 17):
        for periodic in (True, False):
            np.testing.assert_allclose(_np(f(n, periodic, dtype=tl.float64)), _np_window(name, n, periodic),
                                       atol=1e-12)
        # periodic=True is the default
        np.testing.assert_allclose(_np(f(n, dtype=tl.float64)), _np_window(name, n, True), atol=1e-12)
    assert f(0).shape == (0,) and f(1).tolist() == [1.0]
    assert f(6).dtype == tl.float32 and f(6, dtype=tl.float16).dtype == tl.float16
    assert f(4, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        f(5, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="non-negative"):
        f(-1)


def test_window_parameters():
    np.testing.assert_allclose(_np(tl.kaiser_window(9, False, beta=5.0, dtype=tl.float64)), np.kaiser(9, 5.0),
                               atol=1e-12)
    n = np.arange(7)
    ref = 0.6 - 0.4 * np.cos(2 * np.pi * n / 7)  # periodic: N - 1 = 7
    np.testing.assert_allclose(_np(tl.hamming_window(7, alpha=0.6, beta=0.4, dtype=tl.float64)), ref, atol=1e-12)


def test_trapezoid_against_numpy():
    rng = np.random.default_rng(1)
    y = rng.standard_normal((3, 5))
    x = np.array([0.0, 0.5, 1.5, 2.0, 4.0])
    ty, tx = tl.tensor(y), tl.tensor(x)
    np.testing.assert_allclose(_np(tl.trapezoid(ty)), np.trapezoid(y), rtol=1e-12)
    np.testing.assert_allclose(_np(tl.trapezoid(ty, tx)), np.trapezoid(y, x), rtol=1e-12)
    np.testing.assert_allclose(_np(tl.trapezoid(ty, dx=0.5, dim=0)), np.trapezoid(y, dx=0.5, axis=0), rtol=1e-12)
    np.testing.assert_allclose(_np(tl.trapz(ty, tx)), np.trapezoid(y, x), rtol=1e-12)
    X2 = np.cumsum(rng.random((3, 5)), axis=1)
    np.testing.assert_allclose(_np(tl.trapezoid(ty, tl.tensor(X2))), np.trapezoid(y, X2), rtol=1e-12)
    assert tl.trapezoid(tl.arange(5)).item() == 8
    assert tl.trapezoid(tl.ones(2, 0)).tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="one `x` value"):
        tl.trapezoid(ty, tl.ones(4))
    with pytest.raises(IndexError):
        tl.trapezoid(ty, dim=2)


def test_cumulative_trapezoid():
    rng = np.random.default_rng(2)
    y = rng.standard_normal((2, 6))
    x = np.cumsum(rng.random(6))
    ref_x = np.stack([[np.trapezoid(r[:k + 1], x[:k + 1]) for k in range(1, 6)] for r in y])
    ref_dx = np.stack([[np.trapezoid(r[:k + 1], dx=2.0) for k in range(1, 6)] for r in y])
    np.testing.assert_allclose(_np(tl.cumulative_trapezoid(tl.tensor(y), tl.tensor(x))), ref_x, rtol=1e-12)
    np.testing.assert_allclose(_np(tl.cumulative_trapezoid(tl.tensor(y), dx=2.0)), ref_dx, rtol=1e-12)
    assert tl.cumulative_trapezoid(tl.arange(5)).tolist() == [0.5, 2.0, 4.5, 8.0]
    # autograd through the composition
    t = tl.tensor(y, requires_grad=True)
    tl.trapezoid(t).sum().backward()
    np.testing.assert_allclose(_np(t.grad), np.tile([0.5, 1, 1, 1, 1, 0.5], (2, 1)))


def test_cross():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    with pytest.warns(UserWarning, match="without specifying the dim"):
        r = tl.cross(tl.tensor(a), tl.tensor(b))
    np.testing.assert_allclose(_np(r), np.cross(a, b), rtol=1e-12)
    # dim=None picks the FIRST size-3 dimension (here dim 0), unlike linalg.cross
    c, d = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = tl.tensor(c).cross(tl.tensor(d))
    np.testing.assert_allclose(_np(r), np.cross(c, d, axis=0), rtol=1e-12)
    np.testing.assert_allclose(_np(tl.cross(tl.tensor(c), tl.tensor(d), dim=1)), np.cross(c, d), rtol=1e-12)
    with pytest.raises(RuntimeError):
        tl.cross(tl.ones(2, 4), tl.ones(2, 4), dim=1)
    with pytest.raises(RuntimeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tl.cross(tl.ones(2, 4), tl.ones(2, 4))


def test_vander():
    x = np.array([1.0, 2.0, 3.0, 5.0])
    np.testing.assert_array_equal(_np(tl.vander(tl.tensor(x))), np.vander(x))
    np.testing.assert_array_equal(_np(tl.vander(tl.tensor(x), N=2, increasing=True)), np.vander(x, 2, True))
    r = tl.vander(tl.tensor([2, 3], dtype=tl.int8), N=3)
    assert r.dtype == tl.int64 and r.tolist() == [[4, 2, 1], [9, 3, 1]]
    assert tl.vander(tl.tensor([True, False])).dtype == tl.int64
    assert tl.vander(tl.tensor([1.0, 2.0]), N=0).shape == (2, 0)
    with pytest.raises(RuntimeError, match="one-dimensional"):
        tl.vander(tl.ones(2, 2))
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.vander(tl.ones(2), N=-1)


def test_renorm():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4, 2))
    for p, dim, maxnorm in [(2, 0, 1.0), (1, 1, 0.5), (3, -1, 2.0)]:
        axes = tuple(i for i in range(3) if i != dim % 3)
        norm = (np.abs(x) ** p).sum(axis=axes, keepdims=True) ** (1 / p)
        ref = np.where(norm > maxnorm, x * maxnorm / (norm + 1e-7), x)
        np.testing.assert_allclose(_np(tl.renorm(tl.tensor(x), p, dim, maxnorm)), ref, rtol=1e-10)
        y = tl.tensor(x)
        assert y.renorm_(p, dim, maxnorm) is y
        np.testing.assert_allclose(_np(y), ref, rtol=1e-10)
    with pytest.raises(RuntimeError, match="floating point"):
        tl.renorm(tl.ones(2, 2, dtype=tl.int64), 2, 0, 1.0)
    with pytest.raises(RuntimeError, match="maxnorm"):
        tl.renorm(tl.ones(2, 2), 2, 0, -1.0)
    with pytest.raises(IndexError):
        tl.renorm(tl.ones(2, 2), 2, 3, 1.0)


def test_deterministic_flags():
    try:
        assert tl.are_deterministic_algorithms_enabled() is False and tl.get_deterministic_debug_mode() == 0
        tl.use_deterministic_algorithms(True, warn_only=True)
        assert tl.are_deterministic_algorithms_enabled() and tl.is_deterministic_algorithms_warn_only_enabled()
        assert tl.get_deterministic_debug_mode() == 1
        tl.set_deterministic_debug_mode("error")
        assert tl.get_deterministic_debug_mode() == 2 and not tl.is_deterministic_algorithms_warn_only_enabled()
        tl.set_deterministic_debug_mode(0)
        assert not tl.are_deterministic_algorithms_enabled()
        with pytest.raises(RuntimeError):
            tl.set_deterministic_debug_mode("loud")
        with pytest.raises(RuntimeError):
            tl.set_deterministic_debug_mode(3)
        with pytest.raises(TypeError):
            tl.use_deterministic_algorithms(1)
    finally:
        tl.use_deterministic_algorithms(False)


def test_other_global_settings():
    assert tl.get_float32_matmul_precision() == "highest"
    try:
        tl.set_float32_matmul_precision("medium")
        assert tl.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning, match="no effect"):
            tl.set_float32_matmul_precision("low")
        assert tl.get_float32_matmul_precision() == "medium"
    finally:
        tl.set_float32_matmul_precision("highest")
    assert tl.is_warn_always_enabled() is False
    try:
        tl.set_warn_always(True)
        assert tl.is_warn_always_enabled() is True
    finally:
        tl.set_warn_always(False)
    n = tl.get_num_interop_threads()
    assert n >= 1
    try:
        tl.set_num_interop_threads(3)
        assert tl.get_num_interop_threads() == 3
        with pytest.raises(RuntimeError, match="positive"):
            tl.set_num_interop_threads(0)
    finally:
        tl.set_num_interop_threads(n)


def test_linalg_methods_match_functions():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 3))
    spd = a @ a.T + 3 * np.eye(3)
    A, S = tl.tensor(a), tl.tensor(spd)
    np.testing.assert_allclose(A.det().item(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(S.logdet().item(), np.log(np.linalg.det(spd)), rtol=1e-10)
    sign, logabs = A.slogdet()
    ref = np.linalg.slogdet(a)
    assert sign.item() == ref[0] and abs(logabs.item() - ref[1]) < 1e-10
    np.testing.assert_allclose(_np(A.inverse()), np.linalg.inv(a), rtol=1e-9)
    np.testing.assert_allclose(_np(A.pinverse()), np.linalg.pinv(a), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(_np(A.matrix_power(3)), np.linalg.matrix_power(a, 3), rtol=1e-10)
    assert tl.allclose(A.matrix_exp(), tl.matrix_exp(A))
    L = S.cholesky()
    np.testing.assert_allclose(_np(L), np.linalg.cholesky(spd), rtol=1e-10)
    b = rng.standard_normal((3, 2))
    np.testing.assert_allclose(_np(tl.tensor(b).cholesky_solve(L)), np.linalg.solve(spd, b), rtol=1e-9)
    np.testing.assert_allclose(_np(L.cholesky_inverse()), np.linalg.inv(spd), rtol=1e-9)
    Q, R = A.qr()
    np.testing.assert_allclose(_np(Q @ R), a, atol=1e-12)
    U, Sv, V = A.svd()
    np.testing.assert_allclose(_np(Sv), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    X, _ = tl.tensor(b).triangular_solve(tl.tensor(np.triu(a)))
    np.testing.assert_allclose(_np(X), np.linalg.solve(np.triu(a), b), rtol=1e-9)
    LU, piv = A.lu()
    assert tl.equal(LU, tl.linalg.lu_factor(A)[0])
    np.testing.assert_allclose(_np(tl.tensor(b).lu_solve(LU, piv)), np.linalg.solve(a, b), rtol=1e-9)
    np.testing.assert_allclose(_np(tl.lu_solve(tl.tensor(b), *tl.lu(A))), np.linalg.solve(a, b), rtol=1e-9)
    assert len(tl.lu(A, get_infos=True)) == 3
    with pytest.raises(RuntimeError):
        tl.ones(2, 3).det()
    with pytest.raises(RuntimeError):
        tl.ones(2, 3).inverse()


def test_prelu_method():
    x = tl.tensor([[-2.0, 1.0], [3.0, -4.0]])
    assert x.prelu(tl.tensor([0.25])).tolist() == [[-0.5, 1.0], [3.0, -1.0]]


# ---------------------------------------------------------------- PyTorch parity
@needs_torch
@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_windows_match_torch(name):
    for n in (0, 1, 2, 7, 10):
        for periodic in (True, False):
            a = getattr(tl, name)(n, periodic, dtype=tl.float64)
            b = getattr(torch, name)(n, periodic, dtype=torch.float64)
            np.testing.assert_allclose(_np(a), b.numpy(), atol=1e-12)


@needs_torch
def test_promotion_matches_torch():
    for a in DTYPES:
        for b in DTYPES:
            assert str(tl.promote_types(a, b)).split(".")[1] == str(torch.promote_types(_t(a), _t(b))).split(".")[1]
            assert tl.can_cast(a, b) == torch.can_cast(_t(a), _t(b))
            for sa in [(), (2,), 1, 2.5, True]:
                for sb in [(), (2,), 1, 2.5, True]:
                    A = tl.zeros(sa, dtype=a) if isinstance(sa, tuple) else sa
                    B = tl.zeros(sb, dtype=b) if isinstance(sb, tuple) else sb
                    TA = torch.zeros(sa, dtype=_t(a)) if isinstance(sa, tuple) else sa
                    TB = torch.zeros(sb, dtype=_t(b)) if isinstance(sb, tuple) else sb
                    got = str(tl.result_type(A, B)).split(".")[1]
                    assert got == str(torch.result_type(TA, TB)).split(".")[1], (a, b, sa, sb)


@needs_torch
def test_compositions_match_torch():
    rng = np.random.default_rng(6)
    y, x = rng.standard_normal((3, 5)), np.cumsum(rng.random(5))
    np.testing.assert_allclose(_np(tl.trapezoid(tl.tensor(y), tl.tensor(x))),
                               torch.trapezoid(torch.tensor(y), torch.tensor(x)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(_np(tl.cumulative_trapezoid(tl.tensor(y), dx=0.3, dim=0)),
                               torch.cumulative_trapezoid(torch.tensor(y), dx=0.3, dim=0).numpy(), rtol=1e-12)
    assert tl.trapezoid(tl.arange(5)).item() == torch.trapezoid(torch.arange(5)).item()
    v = np.array([1, 2, 3])
    assert tl.vander(tl.tensor(v), N=4).tolist() == torch.vander(torch.tensor(v), N=4).tolist()
    for args in [(0, 2, 3), (-1, 1, 5, 2.0)]:
        np.testing.assert_allclose(_np(tl.logspace(*args, dtype=tl.float64)),
                                   torch.logspace(*args, dtype=torch.float64).numpy(), rtol=1e-12)
    z = rng.standard_normal((3, 4, 2))
    np.testing.assert_allclose(_np(tl.renorm(tl.tensor(z), 2, 1, 0.7)),
                               torch.renorm(torch.tensor(z), 2, 1, 0.7).numpy(), rtol=1e-12)
    a = np.array([1.0, np.nan, 3.0])
    b = np.array([np.nan, 2.0, 1.0])
    np.testing.assert_array_equal(_np(tl.fmin(tl.tensor(a), tl.tensor(b))),
                                  torch.fmin(torch.tensor(a), torch.tensor(b)).numpy())
    assert tl.rsub(tl.tensor([1, 2]), 2.5, alpha=2).tolist() == torch.rsub(torch.tensor([1, 2]), 2.5, alpha=2).tolist()
    assert tl.scalar_tensor(3).dtype == tl.float32 and torch.scalar_tensor(3).dtype == torch.float32
    assert tl.typename(3) == torch.typename(3)


@pytest.mark.parametrize("alias,base", [
    ("absolute_", "abs_"), ("arccos_", "acos_"), ("arcsin_", "asin_"), ("arctan_", "atan_"), ("arctan2_", "atan2_"),
    ("greater_", "gt_"), ("greater_equal_", "ge_"), ("less_", "lt_"), ("less_equal_", "le_"),
    ("not_equal_", "ne_"), ("multiply_", "mul_"), ("divide_", "div_"), ("subtract_", "sub_"),
    ("true_divide_", "div_")])
def test_inplace_alias_methods_match_base(alias, base):
    binary = alias in ("arctan2_", "greater_", "greater_equal_", "less_", "less_equal_", "not_equal_",
                       "multiply_", "divide_", "subtract_", "true_divide_")
    args = (tl.tensor(Y),) if binary else ()
    a, b = tl.tensor(X), tl.tensor(X)
    assert getattr(a, alias)(*args) is a
    getattr(b, base)(*args)
    assert tl.equal(a, b)
    with pytest.raises(RuntimeError):
        getattr(tl.ones(2, requires_grad=True), alias)(*((tl.ones(2),) if binary else ()))
    if binary:  # in-place ops do not broadcast self
        with pytest.raises(RuntimeError):
            getattr(tl.ones(2), alias)(tl.ones(3, 2))


@pytest.mark.parametrize("alias,ref", [("arccos_", np.arccos), ("arcsin_", np.arcsin), ("arctan_", np.arctan)])
def test_torch_level_inplace_arc_aliases(alias, ref):
    data = np.array([-0.5, 0.0, 0.75])
    x = tl.tensor(data)
    assert getattr(tl, alias)(x) is x
    np.testing.assert_allclose(_np(x), ref(data), rtol=1e-12)
