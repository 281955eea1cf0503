"""gather/scatter/index_* beyond the op registry: duplicate indices,
include_self, every reduce mode, half-precision accumulation, in-place
autograd, overlap and argument errors, large inputs that take the parallel
paths, and parity with PyTorch (skipped when torch is not installed)."""
import warnings

import numpy as np
import pytest

import torchlike as tl
from opinfo.scatter_gather import (gather_ref, index_add_ref, index_reduce_ref, index_select_ref,
                                   scatter_reduce_ref)
from torchlike.autograd.gradcheck import gradcheck

try:
    import torch
except ImportError:  # parity tests are optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


def _rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- values

def test_scatter_duplicates_last_write_wins():
    x = tl.zeros(5)
    r = x.scatter(0, tl.tensor([1, 1, 1, 3]), tl.tensor([1.0, 2.0, 3.0, 4.0]))
    assert r.tolist() == [0.0, 3.0, 0.0, 4.0, 0.0]


def test_scatter_add_duplicates_accumulate():
    r = tl.zeros(3, dtype=tl.int64).scatter_add(0, tl.tensor([0, 0, 2, 0]), tl.tensor([1, 2, 3, 4]))
    assert r.tolist() == [7, 0, 3]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16"])
def test_scatter_reduce_modes(reduce, include_self, dtype):
    rng = _rng(1)
    x = rng.integers(-4, 5, size=(5, 6)).astype(dtype)
    src = rng.integers(-4, 5, size=(7, 6)).astype(dtype)
    idx = rng.integers(0, 5, size=(7, 6)).astype(np.int64)
    got = tl.tensor(x).scatter_reduce(0, tl.tensor(idx), tl.tensor(src), reduce, include_self=include_self)
    np.testing.assert_allclose(np.asarray(got), scatter_reduce_ref(x, 0, idx, src, reduce, include_self), rtol=1e-6)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_modes(reduce, include_self):
    rng = _rng(2)
    x = rng.uniform(-2, 2, size=(4, 6))
    src = rng.uniform(-2, 2, size=(4, 9))
    idx = rng.integers(0, 6, size=9).astype(np.int64)
    got = tl.tensor(x).index_reduce(1, tl.tensor(idx), tl.tensor(src), reduce, include_self=include_self)
    np.testing.assert_allclose(np.asarray(got), index_reduce_ref(x, 1, idx, src, reduce, include_self), rtol=1e-12)


def test_integer_mean_floors():
    x = tl.tensor([[0, 0], [0, 0]])
    r = x.scatter_reduce(0, tl.tensor([[0, 0], [0, 0]]), tl.tensor([[1, -10], [2, 1]]), "mean", include_self=False)
    assert r.tolist() == [[1, -5], [0, 0]]  # 3 // 2 and -9 // 2


def test_amax_propagates_nan():
    r = tl.zeros(2).scatter_reduce(0, tl.tensor([0, 0, 1]), tl.tensor([1.0, float("nan"), 2.0]), "amax")
    assert np.isnan(r.tolist()[0]) and r.tolist()[1] == 2.0


def test_bool_reductions_are_logical():
    x = tl.tensor([False, True, True])
    src = tl.tensor([True, False, False, False])
    idx = tl.tensor([0, 0, 1, 2])
    assert x.scatter_add(0, idx, src).tolist() == [True, True, True]
    assert x.scatter_reduce(0, idx, src, "prod").tolist() == [False, False, False]
    assert x.scatter_reduce(0, idx, src, "amax", include_self=False).tolist() == [True, False, False]
    with pytest.raises(NotImplementedError, match="mean"):
        x.scatter_reduce(0, idx, src, "mean")


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_half_types_accumulate_in_float(dtype):
    # 4096 additions of 1 into one element: a half-precision running sum stalls
    # at 2048 (float16) or 256 (bfloat16); accumulating in float32 gives 4096.
    n = 4096
    r = tl.zeros(1, dtype=dtype).scatter_add(0, tl.zeros(n, dtype=tl.int64), tl.ones(n, dtype=dtype))
    assert r.dtype == dtype and float(r.tolist()[0]) == 4096.0
    r = tl.zeros(1, dtype=dtype).index_add(0, tl.zeros(n, dtype=tl.int64), tl.ones(n, dtype=dtype))
    assert float(r.tolist()[0]) == 4096.0
    m = tl.zeros(1, dtype=dtype).scatter_reduce(0, tl.zeros(n, dtype=tl.int64), tl.ones(n, dtype=dtype), "mean",
                                                  include_self=False)
    assert float(m.tolist()[0]) == 1.0


def test_legacy_reduce_value_overload():
    x = tl.ones(2, 3)
    r = x.scatter(1, tl.tensor([[0, 0], [2, 1]]), 3.0, reduce="multiply")
    assert r.tolist() == [[9.0, 1.0, 1.0], [1.0, 3.0, 3.0]]
    r = x.scatter(1, tl.tensor([[0, 0], [2, 1]]), 3.0, reduce="add")
    assert r.tolist() == [[7.0, 1.0, 1.0], [1.0, 4.0, 4.0]]


def test_scalar_values_convert_like_pytorch():
    assert tl.zeros(3, dtype=tl.int64).index_fill(0, tl.tensor([1]), 3.5).tolist() == [0, 3, 0]
    assert tl.zeros(2, dtype=tl.uint8).scatter(0, tl.tensor([0]), -1).tolist() == [255, 0]
    with pytest.raises(RuntimeError, match="overflow"):
        tl.zeros(2, dtype=tl.uint8).index_fill(0, tl.tensor([0]), 300)


def test_large_inputs_parallel_paths():
    rng = _rng(3)
    x = rng.standard_normal((300, 700)).astype(np.float32)
    for dim in (0, 1):
        idx = rng.integers(0, x.shape[dim], size=(300, 700)).astype(np.int64)
        np.testing.assert_array_equal(np.asarray(tl.tensor(x).gather(dim, tl.tensor(idx))), gather_ref(x, dim, idx))
        got = tl.zeros(300, 700).scatter_add(dim, tl.tensor(idx), tl.tensor(x))
        want = scatter_reduce_ref(np.zeros_like(x), dim, idx, x, "sum")
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    sel = rng.integers(0, 300, size=5000).astype(np.int64)
    np.testing.assert_array_equal(np.asarray(tl.tensor(x).index_select(0, tl.tensor(sel))), index_select_ref(x, 0, sel))
    got = tl.zeros(300, 700).index_add(0, tl.tensor(sel), tl.tensor(x[sel % 300]), alpha=0.5)
    np.testing.assert_allclose(np.asarray(got), index_add_ref(np.zeros_like(x), 0, sel, x[sel % 300], 0.5),
                               rtol=1e-5, atol=1e-5)
    # one long row: gather splits along dim itself
    v = rng.standard_normal(200000).astype(np.float32)
    j = rng.integers(0, v.size, size=300000).astype(np.int64)
    np.testing.assert_array_equal(np.asarray(tl.tensor(v).gather(0, tl.tensor(j))), v[j])


def test_out_of_range_index_in_a_parallel_loop_raises():
    x = tl.zeros(1000, 1000)
    raw = np.zeros((1000, 1000), np.int64)
    raw[999, 999] = 1000  # the last element: found by whichever thread gets the last chunk
    idx = tl.tensor(raw)
    with pytest.raises(RuntimeError, match="index 1000 is out of bounds for dimension 1 with size 1000"):
        x.gather(1, idx)
    with pytest.raises(RuntimeError, match="index 1000 is out of bounds"):
        x.scatter_add_(1, idx, x.clone())


# ---------------------------------------------------------------- autograd

def test_inplace_autograd_and_versions():
    base = tl.tensor(_rng(4).standard_normal((4, 5)), requires_grad=True)
    src = tl.tensor(_rng(5).standard_normal((4, 5)), requires_grad=True)
    idx = tl.tensor([[0, 1, 2, 3, 0]] * 4)

    def f(b, s):
        y = b * 1.0
        y.scatter_reduce_(1, idx, s, "amax", include_self=False)
        return y
    assert gradcheck(f, (base, src))
    y = base * 1.0
    v = y._version
    y.index_add_(0, tl.tensor([1, 1]), src[:2])
    assert y._version > v
    assert "IndexAddBackward0" in repr(y.grad_fn)


def test_gather_double_backward():
    from torchlike.autograd.gradcheck import gradgradcheck
    x = tl.tensor(_rng(6).standard_normal((3, 4)), requires_grad=True)
    idx = tl.tensor([[0, 0, 3], [1, 2, 2], [3, 3, 3]])
    assert gradgradcheck(lambda t: t.gather(1, idx) ** 2, (x,))
    assert gradgradcheck(lambda t: t.index_select(1, tl.tensor([3, 3, 0])) ** 2, (x,))


def test_scatter_reduce_prod_with_zeros_gradient():
    x = tl.tensor([[1.5, 0.0, 2.0], [0.5, 3.0, -1.0]], dtype=tl.float64, requires_grad=True)
    src = tl.tensor([[0.0, 2.0, 1.0, 0.0], [2.5, 0.0, -2.0, 1.0]], dtype=tl.float64, requires_grad=True)
    idx = tl.tensor([[0, 0, 1, 2], [1, 1, 2, 2]])
    assert gradcheck(lambda a, b: a.scatter_reduce(1, idx, b, "prod"), (x, src))


def test_scatter_src_larger_than_index_gets_padded_gradient():
    src = tl.tensor(_rng(7).standard_normal((3, 3)), requires_grad=True)
    y = tl.zeros(3, 4, dtype=tl.float64).scatter_add(1, tl.tensor([[0, 1], [2, 0]]), src)
    y.sum().backward()
    assert src.grad.tolist() == [[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]


def test_legacy_reduce_has_no_derivative():
    x = tl.ones(2, 3, requires_grad=True)
    y = x.scatter(1, tl.tensor([[0], [1]]), tl.ones(2, 1), reduce="add")
    with pytest.raises(RuntimeError, match="scatter"):
        y.sum().backward()


# ---------------------------------------------------------------- errors

def test_inplace_overlap_is_rejected():
    x = tl.zeros(3, 4)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        x.scatter_(1, tl.tensor([[0, 1], [2, 0]]), x)
    e = tl.zeros(1, 4).expand(3, 4)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.index_fill_(1, tl.tensor([0]), 1.0)


def test_out_dtype_must_match():
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got float64"):
        tl.gather(tl.zeros(3, 4), 1, tl.tensor([[0]]), out=tl.empty(1, 1, dtype=tl.float64))


def test_meta_inplace_checks_shapes():
    x = tl.empty(3, 4, device="meta")
    r = x.index_add_(0, tl.empty(2, dtype=tl.int64, device="meta"), tl.empty(2, 4, device="meta"))
    assert r is x
    with pytest.raises(RuntimeError, match="source tensor shape must match"):
        x.index_add_(0, tl.empty(2, dtype=tl.int64, device="meta"), tl.empty(2, 3, device="meta"))


# ---------------------------------------------------------------- PyTorch parity

def _both(a):
    return tl.tensor(a), torch.tensor(a)


@needs_torch
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_pytorch(reduce, include_self):
    rng = _rng(8)
    x, src = rng.standard_normal((4, 5)), rng.standard_normal((6, 5))
    idx = rng.integers(0, 4, size=(6, 5))
    (tx, px), (ts, ps), (ti, pi) = _both(x), _both(src), _both(idx)
    tx.requires_grad_(True), ts.requires_grad_(True), px.requires_grad_(True), ps.requires_grad_(True)
    t = tx.scatter_reduce(0, ti, ts, reduce, include_self=include_self)
    p = px.scatter_reduce(0, pi, ps, reduce, include_self=include_self)
    np.testing.assert_allclose(np.asarray(t.detach()), p.detach().numpy(), rtol=1e-12)
    g = rng.standard_normal((4, 5))
    t.backward(tl.tensor(g))
    p.backward(torch.tensor(g))
    np.testing.assert_allclose(np.asarray(tx.grad), px.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(ts.grad), ps.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_matches_pytorch(reduce):
    rng = _rng(9)
    x, src = rng.standard_normal((4, 5)), rng.standard_normal((4, 7))
    idx = rng.integers(0, 5, size=7)
    for include_self in (True, False):
        (tx, px), (ts, ps), (ti, pi) = _both(x), _both(src), _both(idx)
        for a in (tx, ts, px, ps):
            a.requires_grad_(True)
        t = tx.index_reduce(1, ti, ts, reduce, include_self=include_self)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = px.index_reduce(1, pi, ps, reduce, include_self=include_self)
        np.testing.assert_allclose(np.asarray(t.detach()), p.detach().numpy(), rtol=1e-12)
        t.sum().backward()
        p.sum().backward()
        np.testing.assert_allclose(np.asarray(tx.grad), px.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(np.asarray(ts.grad), ps.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m, x: m.gather(x, 1, m.tensor([[0, 4]])),
    lambda m, x: m.gather(x, 1, m.zeros(4, 2, dtype=m.int64)),
    lambda m, x: x.scatter(1, m.tensor([[0, 1], [2, 0]]), m.ones(1, 2)),
    lambda m, x: x.scatter(1, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)),
    lambda m, x: x.scatter_reduce(1, m.tensor([[0]]), m.ones(1, 1), "add"),
    lambda m, x: x.index_select(0, m.tensor([0, 3])),
    lambda m, x: x.index_select(0, m.tensor([[0]])),
    lambda m, x: x.index_add(0, m.tensor([0, 1]), m.ones(2, 3)),
    lambda m, x: x.index_add(0, m.tensor([0, 5]), m.ones(2, 4)),
    lambda m, x: x.index_copy(0, m.tensor([0, 3]), m.ones(2, 4)),
    lambda m, x: x.index_copy(0, m.tensor([0, 1]), m.ones(2, 4, 1)),
    lambda m, x: x.index_fill(1, m.tensor([-5]), 2),
    lambda m, x: x.index_fill(0, m.tensor([0]), m.tensor([1.0, 2.0])),
    lambda m, x: x.index_reduce(0, m.tensor([0, 1]), m.ones(2, 4), "sum"),
    lambda m, x: m.take_along_dim(x, m.tensor([[0, 1]], dtype=m.int32), 1),
], ids=lambda c: "")
def test_errors_match_pytorch(call):
    with pytest.raises(Exception) as want:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(torch, torch.zeros(3, 4))
    with pytest.raises(Exception) as got:
        call(tl, tl.zeros(3, 4))
    assert type(got.value).__name__ == type(want.value).__name__, (got.value, want.value)
    assert str(got.value).split("\n")[0] == str(want.value).split("\n")[0]


@needs_torch
def test_forms_and_defaults_match_pytorch():
    rng = _rng(10)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    idx = rng.integers(0, 3, size=(2, 5))
    for name, args, kwargs in [
        ("gather", (0, idx), {"sparse_grad": False}),
        ("take_along_dim", (idx,), {"dim": 0}),
        ("take_along_dim", (idx,), {}),
        ("index_select", (1, np.array([4, 0, 4])), {}),
        ("index_add", (0, np.array([2, 2]), x[:2]), {"alpha": -1.5}),
        ("index_fill", (1, np.array([1, 3])), {"value": 7.0}),
        ("scatter", (0, idx, x[:2]), {}),
        ("scatter", (0, idx), {"value": 2.0}),
        ("scatter_add", (0, idx, x), {}),
    ]:
        targs = [tl.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        pargs = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        t = getattr(tl, name)(tl.tensor(x), *targs, **kwargs)
        p = getattr(torch, name)(torch.tensor(x), *pargs, **kwargs)
        np.testing.assert_allclose(np.asarray(t), p.numpy(), rtol=1e-6, err_msg=name)


def test_scatter_reduce_accepts_max_min_spellings():
    # PyTorch takes max/min as amax/amin (undocumented); so does torchlike, backward included.
    x = tl.tensor([0.0, 5.0], requires_grad=True)
    src = tl.tensor([3.0, -1.0, 7.0], requires_grad=True)
    idx = tl.tensor([0, 0, 1])
    assert x.scatter_reduce(0, idx, src, "max").tolist() == x.scatter_reduce(0, idx, src, "amax").tolist()
    r = x.scatter_reduce(0, idx, src, "min", include_self=False)
    assert r.tolist() == [-1.0, 7.0]
    r.sum().backward()
    assert src.grad.tolist() == [0.0, 1.0, 1.0] and x.grad.tolist() == [0.0, 0.0]


def test_index_fill_value_tensor_gradient():
    x = tl.tensor(_rng(11).standard_normal((3, 4)), requires_grad=True)
    v = tl.tensor(0.5, dtype=tl.float64, requires_grad=True)
    assert gradcheck(lambda a, b: a.index_fill(1, tl.tensor([2, 0, 2]), b) * 3.0, (x, v))


def test_python_number_src_takes_the_value_overload():
    x = tl.zeros(2, 3)
    assert x.scatter(1, tl.tensor([[2], [0]]), 4).tolist() == [[0, 0, 4], [4, 0, 0]]
    y = x.clone()
    y.scatter_(1, tl.tensor([[1], [1]]), 2.5, reduce="add")
    assert y.tolist() == [[0, 2.5, 0], [0, 2.5, 0]]
