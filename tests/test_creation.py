"""Creation behaviour that does not fit the op table: dtype inference of
tensor()/full()/arange(), memory sharing with NumPy, errors, meta devices,
*_like / new_* inheritance."""
import warnings

import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch


# ---------------------------------------------------------------- tensor(): dtype inference

@pytest.mark.parametrize("data,dtype", [
    (True, tl.bool), ([True, False], tl.bool),
    (3, tl.int64), ([1, 2, 3], tl.int64), ([[1], [2]], tl.int64),
    (2.5, tl.float32), ([1, 2.0], tl.float32), ([True, 2], tl.int64), ([True, 2.0], tl.float32),
    ([], tl.float32), ([[], []], tl.float32),
    (np.float64(1.5), tl.float64), ([np.float32(1), 2.0], tl.float32), ([np.int32(1), 2], tl.int64),
    ([np.int32(1), np.int32(2)], tl.int32),
    (np.arange(3, dtype=np.int16), tl.int16), (np.ones(2, np.uint8), tl.uint8), (np.ones(2, np.bool_), tl.bool),
    (np.ones(2, np.float16), tl.float16), (np.ones(2, np.int64), tl.int64), (np.ones(2, np.float64), tl.float64),
])
def test_tensor_dtype_inference(data, dtype):
    t = tl.tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(np.asarray(t), np.asarray(data, dtype=np.asarray(t).dtype))


def test_tensor_default_dtype_follows_set_default_dtype():
    old = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float64)
        assert tl.tensor([1.5]).dtype == tl.float64
        assert tl.tensor([1, 2]).dtype == tl.int64
        assert tl.zeros(2).dtype == tl.float64
        assert tl.arange(0, 1, 0.5).dtype == tl.float64
        assert tl.full((1,), 2.0).dtype == tl.float64
    finally:
        tl.set_default_dtype(old)


def test_tensor_shapes_and_values():
    t = tl.tensor([[1, 2, 3], [4, 5, 6]])
    assert tuple(t.shape) == (2, 3)
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert tl.tensor(((1.5, 2), (3, 4))).tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert tl.tensor(7).dim() == 0 and tl.tensor(7).item() == 7
    # nested arrays and tensors: a tensor inside a list is one element (its
    # dims do not count), unless the shape already has a dim for it
    t = tl.tensor([np.array([1, 2]), tl.tensor([3, 4])])
    assert t.tolist() == [[1, 2], [3, 4]] and t.dtype == tl.int64
    t = tl.tensor([tl.ones(1, 1), tl.tensor(2.0), tl.ones(1)])
    assert t.shape == (3,) and t.tolist() == [1.0, 2.0, 1.0]
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        tl.tensor([tl.tensor([1, 2]), tl.tensor([3, 4])])
    with pytest.raises(ValueError, match="only one element tensors"):
        tl.tensor([tl.ones(0)])
    assert tl.tensor([1, 2], dtype=tl.float16).dtype == tl.float16
    assert tl.tensor(np.arange(4.0).reshape(2, 2).T).tolist() == [[0.0, 2.0], [1.0, 3.0]]


def test_tensor_copies():
    a = np.zeros(3)
    t = tl.tensor(a)
    a[0] = 5
    assert t.tolist() == [0.0, 0.0, 0.0]
    src = tl.zeros(2)
    c = tl.tensor(src)
    c.fill_(1)
    assert src.tolist() == [0.0, 0.0]


def test_tensor_errors():
    with pytest.raises(ValueError, match=r"expected sequence of length 3 at dim 1 \(got 2\)"):
        tl.tensor([[1, 2, 3], [4, 5]])
    with pytest.raises(TypeError, match="str"):
        tl.tensor("abc")
    with pytest.raises(TypeError, match="str"):
        tl.tensor([1, "a"])
    with pytest.raises(TypeError):
        tl.tensor([[1, 2], 3])
    with pytest.raises(TypeError):
        tl.tensor([object()])
    with pytest.raises(TypeError, match="dtype"):
        tl.tensor([1], dtype="float32")


@requires_torch
@pytest.mark.parametrize("data", [[1, 2.5], [True, 1], [[1], [2]], 3.0, [np.float32(1), 2], [np.int8(1), True],
                                  np.arange(3, dtype=np.int32), [[]], [1, np.float64(2)]])
def test_tensor_dtype_matches_torch(data):
    import torch
    assert str(tl.tensor(data).dtype).split(".")[-1] == str(torch.tensor(data).dtype).split(".")[-1]


# ---------------------------------------------------------------- as_tensor / from_numpy / numpy()

def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tl.from_numpy(a)
    assert t.dtype == tl.float32 and tuple(t.shape) == (2, 3)
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    t.fill_(-1)
    assert (a == -1).all()


def test_from_numpy_keeps_array_alive_and_strides():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    t = tl.from_numpy(a)
    del a
    assert t.tolist() == [[0, 2], [4, 6], [8, 10]]
    assert t.stride() == (4, 2)


def test_from_numpy_negative_strides_and_readonly():
    with pytest.raises(ValueError, match="negative"):
        tl.from_numpy(np.arange(4)[::-1])
    ro = np.arange(3.0)
    ro.flags.writeable = False
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = tl.from_numpy(ro)
    assert any("not writable" in str(x.message) for x in w)
    assert t.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="expected np.ndarray"):
        tl.from_numpy([1, 2])
    with pytest.raises(TypeError):
        tl.from_numpy(np.zeros(2, np.complex64))


@pytest.mark.parametrize("npdt,dt", [(np.bool_, tl.bool), (np.uint8, tl.uint8), (np.int8, tl.int8),
                                     (np.int16, tl.int16), (np.int32, tl.int32), (np.int64, tl.int64),
                                     (np.float16, tl.float16), (np.float32, tl.float32), (np.float64, tl.float64)])
def test_numpy_dtype_round_trip(npdt, dt):
    a = (np.arange(5) % 2).astype(npdt)
    t = tl.from_numpy(a)
    assert t.dtype == dt
    b = t.numpy()
    assert b.dtype == npdt
    assert np.shares_memory(a, b)


def test_as_tensor():
    a = np.arange(4, dtype=np.float64)
    t = tl.as_tensor(a)
    a[1] = 9
    assert t[1].item() == 9 and t.dtype == tl.float64
    c = tl.as_tensor(a, dtype=tl.float32)  # dtype change: a copy
    a[2] = 7
    assert c[2].item() == 2 and c.dtype == tl.float32
    x = tl.ones(3)
    assert tl.as_tensor(x) is x
    assert tl.as_tensor(x, dtype=tl.float32, device="cpu") is x
    y = tl.as_tensor(x, dtype=tl.float64)
    assert y.dtype == tl.float64 and y is not x
    assert tl.as_tensor([1, 2]).dtype == tl.int64
    assert tl.as_tensor([1.5], dtype=tl.float64).dtype == tl.float64
    m = tl.as_tensor(x, device="meta")
    assert m.device.type == "meta" and tuple(m.shape) == (3,)


def test_numpy_shares_memory_noncontiguous():
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    tt = tl.from_numpy(src.T)  # (4, 3), strides (1, 4) elements: not contiguous
    a = tt.numpy()
    assert a.shape == (4, 3) and a.strides == (4, 16)
    np.testing.assert_array_equal(a, src.T)
    a[0, 1] = 42
    assert tt[0, 1].item() == 42 and src[1, 0] == 42
    sl = tl.from_numpy(src)[1]  # a view with a storage offset
    b = np.asarray(sl)
    assert np.shares_memory(b, src) and b.tolist() == src[1].tolist()
    b[0] = -5
    assert sl[0].item() == -5


def test_numpy_errors():
    with pytest.raises(TypeError, match="BFloat16|bfloat16"):
        tl.zeros(2, dtype=tl.bfloat16).numpy()
    with pytest.raises(TypeError):
        tl.zeros(2, device="meta").numpy()


def test_numpy_of_empty_and_scalar():
    e = tl.zeros(0, 3).numpy()
    assert e.shape == (0, 3) and e.dtype == np.float32
    s = tl.tensor(2.5).numpy()
    assert s.shape == () and s == 2.5


# ---------------------------------------------------------------- factories

def test_size_forms():
    for t in (tl.zeros(2, 3), tl.zeros((2, 3)), tl.zeros([2, 3]), tl.zeros(tl.Size([2, 3])),
              tl.ones(2, 3), tl.empty(2, 3), tl.rand(2, 3), tl.randn((2, 3))):
        assert tuple(t.shape) == (2, 3)
    assert tuple(tl.zeros(()).shape) == () and tuple(tl.zeros(0).shape) == (0,)


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
def test_negative_size(fn):
    with pytest.raises(RuntimeError, match="negative dimension"):
        getattr(tl, fn)(2, -3)


def test_full_dtype_inference():
    assert tl.full((2,), 3).dtype == tl.int64
    assert tl.full((2,), True).dtype == tl.bool
    assert tl.full((2,), 1.5).dtype == tl.float32
    assert tl.full((2,), 3, dtype=tl.float64).tolist() == [3.0, 3.0]
    assert tl.full((2,), 3.7, dtype=tl.int32).tolist() == [3, 3]


def test_arange_dtypes_and_lengths():
    assert tl.arange(5).dtype == tl.int64
    assert tl.arange(0, 5, 1).dtype == tl.int64
    assert tl.arange(0.0, 5).dtype == tl.float32
    assert tl.arange(0, 5, 0.5).dtype == tl.float32
    assert tl.arange(0, 1, 0.1).numel() == 10
    assert tl.arange(0, 5.5, dtype=tl.int64).tolist() == [0, 1, 2, 3, 4]
    assert tl.arange(10, 0, -3).tolist() == [10, 7, 4, 1]
    assert tl.arange(2**40, 2**40 + 3).tolist() == [2**40, 2**40 + 1, 2**40 + 2]
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tl.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tl.arange(0.0, 1.0, 0.0)


@requires_torch
@pytest.mark.parametrize("args,kw", [((0, 1, 0.1), {}), ((1, 2.5, 0.3), {}), ((-1, 1, 0.7), {"dtype": "float64"}),
                                     ((0, 10, 3), {}), ((-0.5, 3), {"dtype": "int32"}), ((0.5, 5), {"dtype": "int64"}),
                                     ((1.0, 1.9, 0.1), {"dtype": "float16"}), ((5,), {"dtype": "bfloat16"})])
def test_arange_matches_torch(args, kw):
    import torch
    a = tl.arange(*args, **{k: getattr(tl, v) for k, v in kw.items()})
    b = torch.arange(*args, **{k: getattr(torch, v) for k, v in kw.items()})
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(np.asarray(tl.tensor(a, dtype=tl.float64)), b.double().numpy(), rtol=1e-6)


@requires_torch
@pytest.mark.parametrize("args", [(0, 1, 11), (-2.5, 7.25, 100), (3, -3, 4), (0, 1, 1), (1e-3, 1e3, 1000)])
def test_linspace_matches_torch(args):
    import torch
    a = tl.linspace(*args)
    b = torch.linspace(*args)
    np.testing.assert_array_equal(np.asarray(a), b.numpy())
    assert np.asarray(a)[-1] == np.float32(args[1]) or args[2] == 1


def test_linspace_endpoints_exact():
    t = tl.linspace(0.1, 0.7, 13, dtype=tl.float64).tolist()
    assert t[0] == 0.1 and t[-1] == 0.7
    assert tl.linspace(0, 1, 5).dtype == tl.float32


def test_eye():
    assert tl.eye(3).tolist() == np.eye(3).tolist()
    assert tl.eye(2, 3, dtype=tl.int64).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert tl.eye(3, m=1).tolist() == [[1.0], [0.0], [0.0]]
    assert tl.eye(2, dtype=tl.bool).tolist() == [[True, False], [False, True]]


@pytest.mark.parametrize("fn,args", [("empty", ((2, 3),)), ("zeros", ((2, 3),)), ("ones", ((2, 3),)),
                                     ("full", ((2, 3), 1.5)), ("arange", (0, 6)), ("linspace", (0, 1, 6)),
                                     ("eye", (2, 3)), ("rand", ((2, 3),)), ("randn", ((2, 3),)),
                                     ("randint", (0, 5, (2, 3))), ("randperm", (6,)), ("empty_strided", ((2, 3), (1, 2)))])
def test_factories_on_meta(fn, args):
    cpu = getattr(tl, fn)(*args)
    m = getattr(tl, fn)(*args, device="meta")
    assert m.device.type == "meta"
    assert tuple(m.shape) == tuple(cpu.shape) and m.dtype == cpu.dtype
    m2 = getattr(tl, fn)(*args, device=tl.device("meta"), dtype=tl.float64)
    assert m2.dtype == tl.float64


def test_meta_errors_match_cpu():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tl.arange(0, 3, 0, device="meta")
    with pytest.raises(RuntimeError, match="negative dimension"):
        tl.zeros(-1, device="meta")


def test_empty_strided():
    t = tl.empty_strided((2, 3), (1, 2))
    assert t.stride() == (1, 2) and tuple(t.shape) == (2, 3)
    with pytest.raises(RuntimeError, match="mismatch in length"):
        tl.empty_strided((2, 3), (1,))


# ---------------------------------------------------------------- *_like and new_*

@pytest.mark.parametrize("fn,extra", [("empty_like", ()), ("zeros_like", ()), ("ones_like", ()), ("full_like", (2,)),
                                      ("rand_like", ()), ("randn_like", ()), ("randint_like", (5,))])
def test_like_inherits_and_overrides(fn, extra):
    base = tl.zeros(2, 3, dtype=tl.float64)
    t = getattr(tl, fn)(base, *extra)
    assert t.dtype == tl.float64 and tuple(t.shape) == (2, 3) and t.device.type == "cpu"
    o = getattr(tl, fn)(base, *extra, dtype=tl.float16)
    assert o.dtype == tl.float16
    m = getattr(tl, fn)(base, *extra, device="meta")
    assert m.device.type == "meta" and tuple(m.shape) == (2, 3) and m.dtype == tl.float64
    mm = getattr(tl, fn)(tl.empty(4, device="meta"), *extra)
    assert mm.device.type == "meta" and tuple(mm.shape) == (4,)


def test_like_preserves_dense_strides():
    a = tl.from_numpy(np.zeros((4, 3), np.float32).T)  # (3, 4) with strides (1, 3)
    assert tl.empty_like(a).stride() == (1, 3)
    assert tl.zeros_like(a).stride() == (1, 3)
    assert tl.empty_like(a, memory_format=tl.contiguous_format).stride() == (4, 1)
    s = tl.from_numpy(np.zeros((4, 6), np.float32)[:, ::2])  # not dense: contiguous result
    assert tl.ones_like(s).stride() == (3, 1)
    assert tl.full_like(s, 7).tolist() == [[7.0] * 3] * 4


def test_full_like_and_randint_like_values():
    base = tl.zeros(3, dtype=tl.int32)
    assert tl.full_like(base, 4).tolist() == [4, 4, 4]
    assert tl.full_like(base, 2.9).tolist() == [2, 2, 2]
    r = tl.randint_like(base, 3, 6)
    assert r.dtype == tl.int32 and all(3 <= v < 6 for v in r.tolist())


def test_new_methods():
    base = tl.ones(2, dtype=tl.int16)
    for t in (base.new_empty(3, 4), base.new_zeros((3, 4)), base.new_ones([3, 4]), base.new_full((3, 4), 5)):
        assert t.dtype == tl.int16 and tuple(t.shape) == (3, 4)
    assert base.new_full((2,), 5).tolist() == [5, 5]
    assert base.new_zeros(2, dtype=tl.float64).dtype == tl.float64
    assert base.new_ones(2, device="meta").device.type == "meta"
    nt = base.new_tensor([1.7, 2.2])
    assert nt.dtype == tl.int16 and nt.tolist() == [1, 2]
    assert base.new_tensor([1, 2], dtype=tl.float32).dtype == tl.float32
    assert base.new_empty_strided((2, 2), (1, 2)).stride() == (1, 2)


def test_requires_grad_keyword_accepted():
    t = tl.zeros(2, requires_grad=False)
    assert tuple(t.shape) == (2,)
    assert not tl.tensor([1.0], requires_grad=False).requires_grad
    for t in (tl.ones(2, requires_grad=True), tl.tensor([1.0, 2.0], requires_grad=True),
              tl.zeros_like(tl.ones(2), requires_grad=True), tl.randn(3, requires_grad=True)):
        assert t.requires_grad and t.is_leaf and t.grad_fn is None
    with pytest.raises(RuntimeError, match="floating point"):
        tl.zeros(2, dtype=tl.int64, requires_grad=True)


def test_out_variants():
    o = tl.empty(0)
    assert tl.zeros(2, 3, out=o) is o and tuple(o.shape) == (2, 3)
    o = tl.empty(5, dtype=tl.int32)
    assert tl.arange(1, 10, 2, out=o).tolist() == [1, 3, 5, 7, 9] and o.dtype == tl.int32
    assert tl.arange(3, out=tl.empty(3)).tolist() == [0.0, 1.0, 2.0]
    assert tl.linspace(0, 1, 5, out=tl.empty(1, dtype=tl.float64)).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert tl.eye(2, 3, out=tl.empty(3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert tl.full((2,), 4, out=tl.empty(2, dtype=tl.int64)).tolist() == [4, 4]
    assert sorted(tl.randperm(6, out=tl.empty(0, dtype=tl.int64)).tolist()) == list(range(6))
    r = tl.randint(2, 5, (50,), out=tl.empty(0, dtype=tl.int16))
    assert r.dtype == tl.int16 and all(2 <= v < 5 for v in r.tolist())
    tl.manual_seed(0)
    a = tl.rand(4).tolist()
    tl.manual_seed(0)
    assert tl.rand(4, out=tl.empty(4)).tolist() == a
    t = tl.from_numpy(np.zeros((3, 2), np.float32).T)  # non-contiguous out of the right shape
    tl.eye(2, 3, out=t)
    assert t.tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(RuntimeError, match="does not match dtype of out"):
        tl.zeros(2, dtype=tl.int32, out=tl.empty(2))
    m = tl.empty(0, device="meta")
    assert tuple(tl.ones(3, 2, out=m).shape) == (3, 2)
