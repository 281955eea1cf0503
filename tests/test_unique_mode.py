"""unique / unique_consecutive / mode details the registry does not reach:
which tuple each flag combination returns (function and method), the dim
forms on non-contiguous inputs, NaN and signed zeros, empty and 0-dim inputs,
long inputs (the radix-sorted path) against NumPy, gradients and their
absence, Meta, and PyTorch parity where installed."""
import numpy as np
import pytest

import torchlike as tl
from opinfo.unique_mode import mode_ref, unique_consecutive_ref, unique_ref

try:
    import torch
except ImportError:
    torch = None

NAN = float("nan")
ALL = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16, tl.bfloat16, tl.float32, tl.float64]


def arr(t):
    return np.asarray(t.float() if t.dtype == tl.bfloat16 else t)


def check(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == np.shape(w)
        np.testing.assert_array_equal(arr(g), w)


# ---- return forms

@pytest.mark.parametrize("fn", ["function", "method"])
@pytest.mark.parametrize("inv,cnt", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_return_forms(fn, inv, cnt, dim):
    x = tl.tensor([[2, 1, 2], [0, 5, 0], [2, 1, 2]])
    call = tl.unique if fn == "function" else tl.Tensor.unique
    r = call(x, return_inverse=inv, return_counts=cnt, dim=dim)
    n = 1 + inv + cnt
    if n == 1:
        assert isinstance(r, tl.Tensor)
    else:
        assert type(r) is tuple and len(r) == n
    check(r, unique_ref(np.asarray(x), return_inverse=inv, return_counts=cnt, dim=dim))


def test_unique_positional_arguments():
    x = tl.tensor([3, 1, 3])
    v, i, c = tl.unique(x, True, True, True)
    assert v.tolist() == [1, 3] and i.tolist() == [1, 0, 1] and c.tolist() == [1, 2]
    v, c = tl.unique(x, False, False, True)  # sorted=False still sorts on CPU, as in PyTorch
    assert v.tolist() == [1, 3] and c.tolist() == [1, 2]
    v, i = x.unique_consecutive(True)
    assert v.tolist() == [3, 1, 3] and i.tolist() == [0, 1, 2]


@pytest.mark.parametrize("inv,cnt", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_consecutive_return_forms(inv, cnt, dim):
    x = np.array([[1, 1, 2], [1, 1, 2], [0, 0, 2], [1, 1, 2]], np.int64)
    for r in (tl.unique_consecutive(tl.tensor(x), return_inverse=inv, return_counts=cnt, dim=dim),
              tl.tensor(x).unique_consecutive(return_inverse=inv, return_counts=cnt, dim=dim)):
        assert isinstance(r, tl.Tensor) if not (inv or cnt) else len(r) == 1 + inv + cnt
        check(r, unique_consecutive_ref(x, return_inverse=inv, return_counts=cnt, dim=dim))


def test_unique_dim_is_not_public():
    # PyTorch keeps the operator private (torch/__init__.py PRIVATE_OPS).
    assert not hasattr(tl, "unique_dim")


# ---- dim forms, strides

@pytest.mark.parametrize("dtype", ALL)
def test_unique_dim_on_transposed_and_strided_inputs(dtype):
    rng = np.random.default_rng(0)
    base = rng.integers(0, 2, (8, 6, 5))
    x = tl.tensor(base).to(dtype)
    for t in (x.transpose(0, 2), x[::2, :, 1:]):
        assert not t.is_contiguous()
        ref = np.asarray(arr(t))
        for dim in range(3):
            check(tl.unique(t, dim=dim, return_inverse=True, return_counts=True),
                  unique_ref(ref, dim=dim, return_inverse=True, return_counts=True))
            check(tl.unique_consecutive(t, dim=dim, return_inverse=True, return_counts=True),
                  unique_consecutive_ref(ref, dim=dim, return_inverse=True, return_counts=True))
        check(tl.unique(t, return_inverse=True, return_counts=True),
              unique_ref(ref, return_inverse=True, return_counts=True))
        check(tl.unique_consecutive(t, return_inverse=True), unique_consecutive_ref(ref, return_inverse=True))


def test_unique_dim_order_is_lexicographic_over_remaining_dims():
    # Slices of a 3-d tensor compare element by element in the order of their
    # remaining dims (dim 0 first), negative values and -inf included.
    x = np.array([[[1.0, -np.inf]], [[-1.0, 5.0]], [[1.0, -3.0]], [[-1.0, 5.0]]])
    v, i, c = tl.unique(tl.tensor(x), dim=0, return_inverse=True, return_counts=True)
    assert arr(v).reshape(3, 2).tolist() == [[-1.0, 5.0], [1.0, -np.inf], [1.0, -3.0]]
    assert i.tolist() == [1, 0, 2, 0] and c.tolist() == [2, 1, 1]


# ---- NaN, signed zeros, 0-dim, empty

@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float32, tl.float64])
def test_nan_is_never_equal(dtype):
    x = tl.tensor([3.0, NAN, 1.0, NAN, 3.0, -0.0, 0.0], dtype=dtype)
    v, i, c = tl.unique(x, return_inverse=True, return_counts=True)
    assert arr(v)[:3].tolist() == [0.0, 1.0, 3.0] and np.isnan(arr(v)[3:]).all() and len(v) == 5
    assert i.tolist() == [2, 3, 1, 4, 2, 0, 0] and c.tolist() == [2, 1, 2, 1, 1]
    v, i, c = tl.unique_consecutive(tl.tensor([NAN, NAN, 1.0, 1.0], dtype=dtype), return_inverse=True,
                                    return_counts=True)
    assert i.tolist() == [0, 1, 2, 2] and c.tolist() == [1, 1, 2]
    # Slices holding NaN are all distinct.
    v, c = tl.unique(tl.tensor([[1.0, NAN], [1.0, NAN]], dtype=dtype), dim=0, return_counts=True)
    assert tuple(v.shape) == (2, 2) and c.tolist() == [1, 1]


def test_one_element_slices_match_the_flattened_form():
    # Slices of one element take the flattened (radix-sorted) path: same
    # values, inverse and counts, in the dim form's shapes. (PyTorch's dim form
    # sorts NaN with an inconsistent comparator and leaves such inputs
    # unsorted, so it is no reference here.)
    data = tl.tensor([3.0, NAN, 1.0, NAN, 3.0, -0.0, 0.0, 1.0])
    fv, fi, fc = tl.unique(data, return_inverse=True, return_counts=True)
    for shape, dim in (((8,), 0), ((8, 1), 0), ((1, 8), 1), ((1, 8, 1), -2)):
        v, i, c = tl.unique(data.reshape(shape), dim=dim, return_inverse=True, return_counts=True)
        want = list(shape)
        want[dim] = 5  # {0, 1, 3} and two NaNs
        assert tuple(v.shape) == tuple(want) and tuple(i.shape) == (8,)
        np.testing.assert_array_equal(arr(v).reshape(-1), arr(fv))
        assert i.tolist() == fi.tolist() and c.tolist() == fc.tolist()


def test_signed_zeros_are_one_value():
    x = tl.tensor([0.0, -0.0, 2.0, -0.0])
    v, c = tl.unique(x, return_counts=True)
    assert v.tolist() == [0.0, 2.0] and c.tolist() == [3, 1]
    assert np.signbit(arr(v)[0]) == np.signbit(0.0)  # the first occurrence's zero
    assert tl.unique_consecutive(tl.tensor([-0.0, 0.0, 1.0])).tolist() == [0.0, 1.0]
    m = tl.mode(tl.tensor([0.0, -0.0, -0.0, 1.0]))
    assert m.values.item() == 0.0 and m.indices.item() == 2 and np.signbit(m.values.item())


def test_mode_with_nan():
    x = tl.tensor([[NAN, NAN, NAN, 1.0], [NAN, NAN, NAN, NAN], [2.0, NAN, 2.0, 1.0]])
    v, i = tl.mode(x, 1)
    # every NaN counts once, like unique's counts: 1.0 beats three NaNs; a row of NaN gives its first
    assert arr(v)[0] == 1.0 and np.isnan(arr(v)[1]) and arr(v)[2] == 2.0
    assert i.tolist() == [3, 0, 2]
    check(tuple(tl.mode(x, 1)), mode_ref(np.asarray(x), 1))


def test_zero_dim():
    x = tl.tensor(7)
    check(tl.unique(x, return_inverse=True, return_counts=True), (np.array([7]), np.array(0), np.array([1])))
    check(tl.unique_consecutive(x, return_inverse=True, return_counts=True),
          (np.array([7]), np.array(0), np.array([1])))
    m = tl.mode(x)
    assert m.values.shape == () and m.values.item() == 7 and m.indices.item() == 0
    m = tl.mode(x, 0, True)
    assert m.values.shape == () and m.indices.item() == 0
    for call in (lambda: tl.unique(x, dim=0), lambda: tl.unique_consecutive(x, dim=-1)):
        with pytest.raises(IndexError, match="Dimension specified as"):
            call()
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.mode(x, 1)


def test_empty():
    e = tl.empty((0, 3))
    v, i, c = tl.unique(e, return_inverse=True, return_counts=True)
    assert v.shape == (0,) and i.shape == (0, 3) and c.shape == (0,) and i.dtype == tl.int64
    v, i, c = tl.unique(e, dim=0, return_inverse=True, return_counts=True)
    assert v.shape == (0, 3) and i.shape == (0,) and c.shape == (0,)
    v, i, c = tl.unique(tl.empty((2, 0, 3)), dim=1, return_inverse=True, return_counts=True)
    assert v.shape == (2, 0, 3) and i.shape == (0,) and c.shape == (0,)
    with pytest.raises(RuntimeError, match="Number of zero sized dimensions is more than one"):
        tl.unique(tl.empty((0, 0)), dim=1)
    with pytest.raises(RuntimeError, match="they aren't selected"):
        tl.unique_consecutive(e, dim=1)
    v, i = tl.mode(e, 1)
    assert v.shape == (0,) and i.shape == (0,)
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 0 to have non-zero size"):
        tl.mode(e, 0)


# ---- long inputs: the radix-sorted and counted paths against NumPy

def check_unique(got, x):
    """unique's values and counts against NumPy, and the inverse by what it
    means: NumPy orders NaNs among themselves arbitrarily (quicksort), so
    NaN positions are checked to map, one each, to the NaN values at the end."""
    v, inv, cnt = got
    want_v, want_inv, want_c = unique_ref(x, return_inverse=True, return_counts=True)
    check((v, cnt), (want_v, want_c))
    inv = np.asarray(inv)
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    np.testing.assert_array_equal(inv[~nan], want_inv[~nan])
    assert sorted(inv[nan].tolist()) == list(range(len(want_v) - nan.sum(), len(want_v)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64", "int16", "uint8", "int8", "bool"])
def test_long_inputs_against_numpy(dtype):
    rng = np.random.default_rng(1)
    if dtype == "bool":
        x = rng.integers(0, 2, 200_000).astype(bool)
    elif dtype.startswith("float"):
        x = np.round(rng.standard_normal(200_000) * 300).astype(dtype)
        x[rng.integers(0, x.size, 50)] = np.nan
    else:
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -5000), min(info.max, 5000), 200_000, endpoint=True).astype(dtype)
    t = tl.tensor(x)
    check_unique(tl.unique(t, return_inverse=True, return_counts=True), x)
    check_unique(tl.unique(t[::3], return_inverse=True, return_counts=True), x[::3])  # strided input
    check(tl.unique_consecutive(t, return_inverse=True, return_counts=True),
          unique_consecutive_ref(x, return_inverse=True, return_counts=True))


@pytest.mark.parametrize("dtype", ["int16", "int32", "int64"])
@pytest.mark.parametrize("wide", [False, True])
def test_integer_paths(dtype, wide):
    # Narrow value ranges are counted, wide ones sorted: both give NumPy's answer.
    rng = np.random.default_rng(4)
    info = np.iinfo(dtype)
    pool = rng.integers(info.min, info.max, 3000, endpoint=True) if wide else np.arange(-1500, 1500)
    x = pool[rng.integers(0, pool.size, 20_000)].astype(dtype)
    for t, ref in ((tl.tensor(x), x), (tl.tensor(x.reshape(100, 200)).t(), x.reshape(100, 200).T)):
        check(tl.unique(t, return_inverse=True, return_counts=True),
              unique_ref(np.ascontiguousarray(ref), return_inverse=True, return_counts=True))
    check(tl.unique(tl.tensor(x), dim=0, return_inverse=True), unique_ref(x, dim=0, return_inverse=True))


def test_integer_extremes():
    x = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max], np.int64)
    check(tl.unique(tl.tensor(x), return_counts=True), unique_ref(x, return_counts=True))
    y = np.array([-128, 127, -128, 0], np.int8)
    check(tl.unique(tl.tensor(y), return_inverse=True), unique_ref(y, return_inverse=True))
    check(tuple(tl.mode(tl.tensor(y))), mode_ref(y))


@pytest.mark.parametrize("dtype", ALL)
def test_mode_ties_and_strided_rows(dtype):
    rng = np.random.default_rng(2)
    base = rng.integers(0, 4, (7, 33, 5))
    x = tl.tensor(base).to(dtype)
    ref = arr(x)
    for dim in (0, 1, 2, -1):
        for keepdim in (False, True):
            check(tuple(tl.mode(x, dim, keepdim)), mode_ref(ref, dim, keepdim))
    t = x.transpose(0, 1)[:, ::2]
    check(tuple(tl.mode(t, 1)), mode_ref(np.asarray(arr(t)), 1))


# ---- gradients

def test_mode_backward_goes_to_the_selected_index():
    x = tl.tensor([[1.0, 2.0, 2.0, 1.0, 3.0], [4.0, 4.0, 0.0, 4.0, 0.0]], dtype=tl.float64, requires_grad=True)
    v, i = tl.mode(x, 1)
    assert i.tolist() == [3, 3] and v.tolist() == [1.0, 4.0]
    (v * tl.tensor([10.0, 20.0], dtype=tl.float64)).sum().backward()
    assert x.grad.tolist() == [[0, 0, 0, 10, 0], [0, 0, 0, 20, 0]]
    assert not i.requires_grad
    y = tl.tensor([[5.0, 5.0], [6.0, 7.0]], requires_grad=True)
    v, _ = tl.mode(y, 0, keepdim=True)
    v.sum().backward()
    assert v.shape == (1, 2) and y.grad.tolist() == [[1, 1], [0, 0]]  # all counts 1: the smaller value


def test_unique_is_not_differentiable():
    x = tl.tensor([1.0, 2.0, 1.0], requires_grad=True)
    for out, name in ((tl.unique(x), "_unique2"), (tl.unique(tl.stack([x, x]), dim=0), "unique_dim"),
                      (tl.unique_consecutive(x), "unique_consecutive")):
        with pytest.raises(RuntimeError, match=f"derivative for aten::{name} is not implemented"):
            out.sum().backward()
    _, inv, cnt = tl.unique(x, return_inverse=True, return_counts=True)
    assert inv.dtype == tl.int64 and not inv.requires_grad and not cnt.requires_grad


# ---- Meta

def test_meta():
    m = tl.empty((3, 4), device="meta")
    v, i = tl.mode(m, 0)
    assert v.device.type == "meta" and v.shape == (4,) and i.dtype == tl.int64
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1"):
        tl.mode(tl.empty((3, 0), device="meta"), 1)
    for call in (lambda: tl.unique(m), lambda: tl.unique(m, dim=1), lambda: tl.unique_consecutive(m)):
        with pytest.raises(NotImplementedError, match="depends on the input's values"):
            call()
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.unique(m, dim=3)


# ---- PyTorch parity

def _torch_dtype(d):
    return getattr(torch, str(d).split(".")[-1])


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
@pytest.mark.parametrize("dtype", ALL)
def test_pytorch_parity(dtype):
    rng = np.random.default_rng(3)
    data = rng.integers(-3, 4, (6, 12))
    data[2] = data[4]
    x = tl.tensor(data).to(dtype)
    y = torch.tensor(data).to(_torch_dtype(dtype))

    def same(a, b):
        a = a if isinstance(a, tuple) else (a,)
        b = b if isinstance(b, tuple) else (b,)
        assert len(a) == len(b)
        for s, t in zip(a, b):
            assert tuple(s.shape) == tuple(t.shape)
            np.testing.assert_array_equal(arr(s), t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy())

    for kw in ({}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True}):
        for dim in (None, 0, 1, -1):
            same(tl.unique(x, dim=dim, **kw), torch.unique(y, dim=dim, **kw))
            same(tl.unique_consecutive(x, dim=dim, **kw), torch.unique_consecutive(y, dim=dim, **kw))
    # mode: values always; indices too where PyTorch's row sort is stable (up to 16 elements).
    for dim in (0, 1):
        for keepdim in (False, True):
            a, b = tl.mode(x, dim, keepdim), torch.mode(y, dim, keepdim)
            same(a.values, b.values)
            same(a.indices, b.indices)
    long = rng.integers(-3, 4, (5, 100))
    same(tl.mode(tl.tensor(long).to(dtype)).values, torch.mode(torch.tensor(long).to(_torch_dtype(dtype))).values)


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_pytorch_parity_nan_and_zeros():
    data = [3.0, NAN, 1.0, NAN, 3.0, -0.0, 0.0, 1.0]
    for kw in ({"return_inverse": True, "return_counts": True}, {"return_counts": True}):
        a = tl.unique(tl.tensor(data), **kw)
        b = torch.unique(torch.tensor(data), **kw)
        for s, t in zip(a, b):
            np.testing.assert_array_equal(arr(s), t.numpy())
        a = tl.unique_consecutive(tl.tensor(data), **kw)
        b = torch.unique_consecutive(torch.tensor(data), **kw)
        for s, t in zip(a, b):
            np.testing.assert_array_equal(arr(s), t.numpy())
