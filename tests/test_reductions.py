"""Reduction behaviour the OpInfo table can't express: named-tuple results,
NaN propagation and tie-breaking, accuracy of long float32 sums, every loop
shape of the engine on non-contiguous inputs, and parity with PyTorch."""
import math

import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch

NAN = float("nan")


def t(a, dtype=None):
    return tl.tensor(np.asarray(a), dtype=dtype)


def npy(x):
    return np.asarray(x)


# ---------------------------------------------------------------- named tuples

def test_max_min_dim_return_named_tuples():
    x = t([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]])
    r = tl.max(x, 1)
    assert type(r).__name__ == "max" and "return_types" in type(r).__module__ + type(r).__qualname__ + repr(type(r))
    values, indices = r
    np.testing.assert_array_equal(npy(r.values), [5.0, 7.0])
    np.testing.assert_array_equal(npy(r.indices), [1, 0])  # tie at 7: first index
    assert r.indices.dtype == tl.int64 and values is not None and indices is not None
    m = x.min(dim=0, keepdim=True)
    assert tuple(m.values.shape) == (1, 3)
    np.testing.assert_array_equal(npy(m.indices), [[0, 1, 0]])


def test_max_of_two_tensors_is_maximum():
    np.testing.assert_array_equal(npy(tl.max(t([1.0, 4.0]), t([3.0, 2.0]))), [3.0, 4.0])
    np.testing.assert_array_equal(npy(tl.min(t([1.0, 4.0]), t([3.0, 2.0]))), [1.0, 2.0])


# ---------------------------------------------------------------- NaN and ties

def test_nan_propagates_in_max_min_amax_amin():
    x = t([[1.0, NAN, 3.0], [4.0, 5.0, 6.0]])
    assert math.isnan(x.max().item()) and math.isnan(x.min().item())
    r = npy(x.amax(1))
    assert math.isnan(r[0]) and r[1] == 6.0
    r = npy(x.amin(1))
    assert math.isnan(r[0]) and r[1] == 4.0
    v = x.max(1)
    assert math.isnan(npy(v.values)[0]) and npy(v.indices)[0] == 1


def test_argmax_picks_first_nan_and_first_tie():
    assert x_item(t([1.0, NAN, 3.0, NAN]).argmax()) == 1
    assert x_item(t([1.0, NAN, 3.0, NAN]).argmin()) == 1
    assert x_item(t([2, 7, 7, 1]).argmax()) == 1
    assert x_item(t([2, 1, 7, 1]).argmin()) == 1


def x_item(x):
    return int(npy(x).reshape(-1)[0]) if npy(x).size == 1 else int(npy(x))


def test_ties_first_index_in_parallel_split():
    # Long reductions are split across threads; the combine must keep the first index.
    a = np.zeros(1 << 20, np.float32)
    a[[1000, 300000, 900000]] = 5.0
    assert x_item(t(a).argmax()) == 1000
    assert x_item(tl.max(t(a.reshape(1, -1)), 1).indices) == 1000


def test_nan_in_sum_and_logsumexp():
    assert math.isnan(t([1.0, NAN]).sum().item())
    assert math.isnan(t([1.0, NAN]).logsumexp(0).item())
    assert t([-math.inf, -math.inf]).logsumexp(0).item() == -math.inf
    assert t([math.inf, 1.0]).logsumexp(0).item() == math.inf
    np.testing.assert_allclose(t([1000.0, 1000.0]).logsumexp(0).item(), 1000 + math.log(2), rtol=1e-6)


def test_empty_reductions():
    e = tl.tensor(np.zeros((0, 3), np.float32))
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert math.isnan(e.mean().item())
    np.testing.assert_array_equal(npy(e.sum(0)), [0, 0, 0])
    assert tuple(e.sum(1).shape) == (0,)
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        e.max()
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        e.max(0)
    assert tuple(e.amax(1).shape) == (0,)


# ---------------------------------------------------------------- accuracy

def test_large_float32_sum_is_accurate():
    rng = np.random.default_rng(0)
    a = (rng.random(1 << 24, dtype=np.float32) + 1.0).astype(np.float32)
    exact = a.astype(np.float64).sum()
    got = float(t(a).sum().item())
    # naive serial float32 accumulation is off by ~1e-3 relative here
    assert abs(got - exact) / exact < 1e-6
    # outer-dim reduction (row path) is cascaded too
    b = a.reshape(1 << 16, 256)
    np.testing.assert_allclose(npy(t(b).sum(0)), b.astype(np.float64).sum(0), rtol=1e-6)
    np.testing.assert_allclose(npy(t(b).mean(0)), b.astype(np.float64).mean(0), rtol=1e-6)


def test_var_is_stable_with_large_mean():
    a = (np.random.default_rng(1).standard_normal(100000) + 1e4).astype(np.float32)
    np.testing.assert_allclose(t(a).var().item(), a.astype(np.float64).var(ddof=1), rtol=1e-4)


def test_half_accumulates_in_float():
    a = np.full(4096, 1.0, np.float16)
    assert t(a).sum().item() == 4096.0  # float16 serial accumulation would stall at 2048
    assert t(a).sum().dtype == tl.float16


# ---------------------------------------------------------------- loop shapes / layouts

@pytest.mark.parametrize("dims", [0, 1, (0, 1), 2, (0, 2), (1, 2), None])
@pytest.mark.parametrize("layout", ["contig", "transposed", "sliced"])
def test_non_contiguous_inputs(dims, layout):
    base = np.random.default_rng(2).standard_normal((6, 50, 40)).astype(np.float32)
    if layout == "contig":
        a, x = base, t(base)
    elif layout == "transposed":
        a = base.transpose(2, 0, 1)
        x = tl.from_numpy(a)
    else:
        a = base[:, ::3, 1:]
        x = t(base)[:, ::3, 1:]
    ax = dims if dims is None or isinstance(dims, tuple) else (dims,)
    kw = {} if dims is None else {"dim": dims}
    np.testing.assert_allclose(npy(x.sum(**kw)), a.astype(np.float64).sum(axis=ax), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(npy(x.amax(**({} if dims is None else {"dim": dims}))), a.max(axis=ax))
    np.testing.assert_allclose(npy(x.var(**kw)), a.astype(np.float64).var(axis=ax, ddof=1), rtol=1e-4)
    np.testing.assert_allclose(npy(x.norm(**kw)), np.sqrt((a.astype(np.float64) ** 2).sum(axis=ax)), rtol=1e-5)
    if isinstance(dims, int):
        np.testing.assert_array_equal(npy(x.argmax(dims)), a.argmax(axis=dims))
        np.testing.assert_array_equal(npy(x.min(dims).indices), a.argmin(axis=dims))
        np.testing.assert_allclose(npy(x.cumsum(dims)), np.cumsum(a.astype(np.float64), axis=dims), rtol=1e-5,
                                   atol=1e-4)
    if dims is None:
        assert x_item(x.argmax()) == int(a.argmax())


def test_int_sum_dtype_and_overflow_widening():
    a = np.full(1000, 100, np.int8)
    r = t(a).sum()
    assert r.dtype == tl.int64 and r.item() == 100000
    assert t(a).sum(dtype=tl.int8).dtype == tl.int8
    assert t(np.ones(3, np.bool_)).cumsum(0).dtype == tl.int64
    assert t(np.ones(3, np.int32)).prod(dtype=tl.int32).dtype == tl.int32


def test_sum_to_size():
    x = t(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(npy(x.sum_to_size([3, 1])), a.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_array_equal(npy(x.sum_to_size([1, 4])), a.sum(axis=(0, 1)).reshape(1, 4))
    assert tuple(x.sum_to_size([2, 3, 4]).shape) == (2, 3, 4)
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        x.sum_to_size([2, 4])


def test_out_resizes_and_casts():
    x = t(np.arange(6, dtype=np.int64).reshape(2, 3))
    out = tl.empty((0,), dtype=tl.float32)
    r = tl.sum(x, 0, out=out)
    assert r is out and tuple(out.shape) == (3,) and out.dtype == tl.float32
    with pytest.raises(RuntimeError, match="dtype"):
        tl.amax(t(np.ones(3, np.float32)), 0, out=tl.empty((0,), dtype=tl.float64))


@pytest.mark.parametrize("name", ["max", "min"])
def test_value_index_reductions_with_out_tuple(name):
    a = np.array([[1., 5., 3.], [4., 2., 6.]], dtype=np.float32)
    values, indices = tl.empty((7,)), tl.empty((0,), dtype=tl.int64)   # wrong sizes: resized
    r = getattr(tl, name)(t(a), 1, keepdim=True, out=(values, indices))
    assert type(r).__name__ == name and r.values is values and r.indices is indices
    np.testing.assert_array_equal(npy(values), getattr(a, name)(1, keepdims=True))
    np.testing.assert_array_equal(npy(indices), getattr(a, "arg" + name)(1)[:, None])
    with pytest.raises(RuntimeError, match="dtype int64"):
        getattr(tl, name)(t(a), 0, out=(values, tl.empty(0)))
    with pytest.raises(RuntimeError, match="dtype"):
        getattr(tl, name)(t(a), 0, out=(tl.empty(0, dtype=tl.float64), indices))
    with pytest.raises(TypeError, match="Tensor\\[2\\] out"):
        getattr(tl, name)(t(a), 0, out=(values,))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        getattr(tl, name)(t(a).requires_grad_(), 0, out=(values, indices))
    mv, mi = tl.empty(0, device="meta"), tl.empty(0, dtype=tl.int64, device="meta")
    getattr(tl, name)(tl.empty((3, 4), device="meta"), 1, out=(mv, mi))
    assert tuple(mv.shape) == (3,) and tuple(mi.shape) == (3,)


def test_meta_shapes():
    m = tl.empty((3, 4, 5), device="meta")
    assert tuple(m.sum((0, 2), keepdim=True).shape) == (1, 4, 1)
    v, i = m.max(1)
    assert tuple(v.shape) == (3, 5) and i.dtype == tl.int64
    assert m.any().dtype == tl.bool and tuple(m.argmax(keepdim=True).shape) == (1, 1, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        m.sum(3)


# ---------------------------------------------------------------- parity with PyTorch

@requires_torch
@pytest.mark.parametrize("case", [
    lambda m, x: m.sum(x, dim=(0, 2)),
    lambda m, x: m.mean(x, dim=-1, keepdim=True),
    lambda m, x: m.prod(x[:, :2, :3], 1),
    lambda m, x: m.amax(x, dim=[1]),
    lambda m, x: m.var(x, dim=1, correction=0),
    lambda m, x: m.std(x, 0, True, True),
    lambda m, x: m.norm(x, 3, dim=2),
    lambda m, x: m.norm(x, "fro"),
    lambda m, x: m.logsumexp(x, dim=(0, 1)),
    lambda m, x: m.cumsum(x, 1),
    lambda m, x: m.cumprod(x[:, :, :4], 2),
    lambda m, x: m.argmin(x),
    lambda m, x: m.any(x > 1.5, dim=1),
    lambda m, x: m.all(x > -3, dim=(0, 2)),
    lambda m, x: m.max(x, 2).values,
    lambda m, x: m.max(x, 2).indices,
])
def test_parity_with_torch(case):
    import torch
    a = np.random.default_rng(3).standard_normal((4, 5, 6)).astype(np.float32)
    want = case(torch, torch.from_numpy(a)).numpy()
    got = npy(case(tl, t(a)))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
