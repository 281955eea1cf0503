"""Views: storage and version-counter sharing, strides against PyTorch, Meta
tensors, method-only view ops, `to` and dtype conversions, copy_, indexing.
(Values per dtype are in tests/opinfo/views.py.)"""
import warnings

import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch


def ar(*shape, dtype=np.float32):
    return tl.tensor(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


def npy(t):
    return np.asarray(t)


def geom(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


# Every view op, as (name, fn) taking a (2, 3, 4) tensor; fn works on both
# torchlike and torch tensors.
VIEW_CALLS = [
    ("view", lambda t: t.view(4, -1)),
    ("view_list", lambda t: t.view([6, 4])),
    ("view_as", lambda t: t.view_as(t.reshape(24))),
    ("reshape_view", lambda t: t.reshape(2, 12)),
    ("permute", lambda t: t.permute(2, 0, 1)),
    ("transpose", lambda t: t.transpose(0, 2)),
    ("t", lambda t: t[0].t()),
    ("mT", lambda t: t.mT),
    ("squeeze", lambda t: t[:1].squeeze()),
    ("squeeze_dim", lambda t: t[:, :1].squeeze(1)),
    ("squeeze_dims", lambda t: t[:1, :1].squeeze((0, 1))),
    ("unsqueeze", lambda t: t.unsqueeze(1)),
    ("expand", lambda t: t[:, :1].expand(5, 2, 3, 4)),
    ("expand_neg1", lambda t: t[:, :1].expand(-1, 3, -1)),
    ("expand_as", lambda t: t[:1].expand_as(t)),
    ("flatten", lambda t: t.flatten(0, 1)),
    ("unflatten", lambda t: t.unflatten(2, (2, 2))),
    ("narrow", lambda t: t.narrow(2, 1, 2)),
    ("as_strided", lambda t: t.as_strided((3, 3), (2, 3), 1)),
    ("unfold", lambda t: t.unfold(2, 2, 1)),
    ("unfold_step", lambda t: t.unfold(1, 2, 2)),
    ("diagonal", lambda t: t.diagonal(1, 1, 2)),
    ("diagonal_neg", lambda t: t.diagonal(-1, -1, 0)),
    ("movedim", lambda t: t.movedim(0, 2)),
    ("select", lambda t: t.select(1, 2)),
    ("detach", lambda t: t.detach()),
    ("contiguous_noop", lambda t: t.contiguous()),
    ("getitem", lambda t: t[1, ::2, None, 1:]),
    ("getitem_ellipsis", lambda t: t[..., None, 1]),
    ("getitem_neg", lambda t: t[-1, -2:]),
    ("unbind", lambda t: t.unbind(1)[2]),
    ("split", lambda t: t.split(3, 2)[1]),
    ("split_sizes", lambda t: t.split([1, 2], 1)[1]),
    ("chunk", lambda t: t.chunk(2, 2)[1]),
]


@pytest.mark.parametrize("name,fn", VIEW_CALLS, ids=[n for n, _ in VIEW_CALLS])
def test_view_shares_storage_and_version(name, fn):
    base = ar(2, 3, 4)
    v = fn(base)
    assert v._storage_ptr() == base._storage_ptr(), name
    assert v._version == base._version
    # A write through the view lands in the base ...
    v0 = base._version
    if v.numel():
        # Through a one-element view of the view (expand/unfold views overlap
        # themselves, which in-place ops refuse).
        v.as_strided((1,), (1,), v.storage_offset()).fill_(-7)
        assert (npy(base) == -7).sum() > 0, f"{name}: write through the view not visible in the base"
        assert base._version > v0, f"{name}: in-place on a view must bump the base's version"
    # ... and a write to the base is seen by the view.
    base.fill_(3)
    assert (npy(v) == 3).all()
    assert v._version == base._version


@requires_torch
@pytest.mark.parametrize("name,fn", VIEW_CALLS, ids=[n for n, _ in VIEW_CALLS])
def test_view_geometry_matches_torch(name, fn):
    import torch
    got = fn(ar(2, 3, 4))
    want = fn(torch.arange(24, dtype=torch.float32).reshape(2, 3, 4))
    assert geom(got) == (tuple(want.shape), tuple(want.stride()), want.storage_offset()), name
    np.testing.assert_array_equal(npy(got), want.numpy())


@pytest.mark.parametrize("name,fn", VIEW_CALLS, ids=[n for n, _ in VIEW_CALLS])
def test_view_on_meta(name, fn):
    cpu = fn(ar(2, 3, 4))
    m = fn(tl.empty(2, 3, 4, device="meta"))
    assert m.is_meta and m.device.type == "meta"
    assert geom(m) == geom(cpu)


@requires_torch
def test_views_of_noncontiguous_match_torch():
    import torch
    calls = [lambda t: t.permute(1, 0, 2).reshape(3, 8),          # needs a copy
             lambda t: t.permute(1, 0, 2).view(3, 2, 2, 2),       # splits the last dim only: a view
             lambda t: t.transpose(0, 1)[:, :, 1:3].flatten(1),
             lambda t: t[:, ::2].unflatten(2, (2, 2)).movedim(0, -1),
             lambda t: t.transpose(1, 2).diagonal(0, 0, 1),
             lambda t: t[:, 1].expand(3, 2, 4).reshape(6, 4),
             lambda t: t.as_strided((2, 2), (12, 1), 2).t()]
    for fn in calls:
        got = fn(ar(2, 3, 4))
        want = fn(torch.arange(24, dtype=torch.float32).reshape(2, 3, 4))
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(npy(got), want.numpy())
        if want._base is not None:   # torch made a view: so must we, with the same geometry
            assert tuple(got.stride()) == tuple(want.stride()) and got.storage_offset() == want.storage_offset()


def test_view_of_permuted_raises_but_reshape_copies():
    base = ar(2, 3, 4)
    p = base.permute(1, 0, 2)
    with pytest.raises(RuntimeError, match=r"view size is not compatible with input tensor's size and stride \(at "
                                           r"least one dimension spans across two contiguous subspaces\)\. Use "
                                           r"\.reshape\(\.\.\.\) instead\."):
        p.view(24)
    r = p.reshape(24)
    assert r._storage_ptr() != base._storage_ptr()
    assert r.is_contiguous()
    np.testing.assert_array_equal(npy(r), npy(base).transpose(1, 0, 2).reshape(24))
    # reshape of a contiguous tensor is a view
    assert base.reshape(4, 6)._storage_ptr() == base._storage_ptr()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        base.transpose(0, 2).view(-1)


def test_view_size_errors():
    x = ar(2, 3)
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        x.view(4, 2)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)
    with pytest.raises(RuntimeError, match=r"shape '\[2\]' is invalid for input of size 1"):
        tl.tensor(1.0).view(2)
    assert tuple(tl.tensor(1.0).view(1, 1, 1).shape) == (1, 1, 1)
    assert tuple(tl.tensor(1.0).view(()).shape) == ()
    assert tuple(tl.empty(0, 3).view(3, 0, 5).shape) == (3, 0, 5)


def test_contiguous_returns_self_or_copy():
    x = ar(3, 4)
    assert x.contiguous() is x
    t = x.t()
    c = t.contiguous()
    assert c is not t and c.is_contiguous() and c._storage_ptr() != x._storage_ptr()
    np.testing.assert_array_equal(npy(c), npy(x).T)
    m = tl.empty(3, 4, device="meta").t().contiguous()
    assert m.is_meta and m.is_contiguous() and tuple(m.stride()) == (3, 1)


def test_expand_strides_and_errors():
    x = ar(3, 1)
    e = x.expand(2, 3, 4)
    assert tuple(e.stride()) == (0, 1, 0)
    np.testing.assert_array_equal(npy(e), np.broadcast_to(npy(x), (2, 3, 4)))
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(5\) must match the existing size \(3\) "
                                           r"at non-singleton dimension 0\.  Target sizes: \[5, 4\]\.  Tensor sizes: "
                                           r"\[3, 1\]"):
        x.expand(5, 4)
    with pytest.raises(RuntimeError, match="isn't allowed in a leading, non-existing dimension 0"):
        x.expand(-1, 3, 1)


def test_unfold_matches_sliding_window():
    x = ar(3, 7)
    got = x.unfold(1, 3, 2)
    want = np.lib.stride_tricks.sliding_window_view(npy(x), 3, axis=1)[:, ::2]
    np.testing.assert_array_equal(npy(got), want)
    assert tuple(tl.tensor(5.0).unfold(0, 1, 1).shape) == (1,)
    with pytest.raises(RuntimeError, match="maximum size for tensor at dimension 1 is 7 but size is 8"):
        x.unfold(1, 8, 1)
    with pytest.raises(RuntimeError, match="step is 0 but must be > 0"):
        x.unfold(1, 2, 0)


def test_as_strided_never_reads_out_of_bounds():
    x = ar(2, 3)
    for size, stride, off in [((3, 3), (3, 1), 0), ((7,), (1,), 0), ((1,), (1,), 6), ((2, 2), (1, 5), 1)]:
        with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
            x.as_strided(size, stride, off)
    # Bounds are checked against the storage, not the view: a narrow view may reach the rest.
    v = x[1:, 1:]
    full = v.as_strided((6,), (1,), 0)
    np.testing.assert_array_equal(npy(full), np.arange(6))
    with pytest.raises(RuntimeError, match="out of bounds"):
        tl.empty(2, 3, device="meta").as_strided((4, 4), (4, 1))
    assert tuple(x.as_strided((0, 100), (100, 100), 6).shape) == (0, 100)


def test_T_and_mT():
    x = ar(2, 3)
    assert tuple(x.T.shape) == (3, 2) and x.T._storage_ptr() == x._storage_ptr()
    assert tuple(x.H.shape) == (3, 2) and tuple(x.mH.shape) == (3, 2)
    assert tuple(ar(3).T.shape) == (3,)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert tuple(ar(2, 3, 4).T.shape) == (4, 3, 2)
    assert any("deprecated" in str(m.message) for m in w)
    assert tuple(ar(5, 2, 3).mT.shape) == (5, 3, 2)
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches of matrices. Got 1-D"):
        ar(3).mT


def test_split_chunk_unbind_are_tuples_of_views():
    x = ar(5, 4)
    for parts in (x.split(2), x.split([1, 4]), x.chunk(3), x.unbind(1), tl.split(x, 2, 1), tl.chunk(x, 2)):
        assert isinstance(parts, tuple)
        assert all(p._storage_ptr() == x._storage_ptr() for p in parts)
    assert [tuple(p.shape) for p in x.chunk(3)] == [(2, 4), (2, 4), (1, 4)]
    assert [tuple(p.shape) for p in tl.empty(0, 2).chunk(3)] == [(0, 2)] * 3


# ---------------------------------------------------------------- to / conversions

def test_to_returns_self_when_nothing_changes():
    x = ar(2, 3)
    assert x.to(tl.float32) is x
    assert x.to("cpu") is x
    assert x.to(x) is x
    assert x.to() is x
    assert x.to(device="cpu", dtype=tl.float32) is x
    assert x.float() is x and x.cpu() is x and x.type(tl.float32) is x and x.type_as(x) is x
    c = x.to(tl.float32, copy=True)
    assert c is not x and c._storage_ptr() != x._storage_ptr()
    np.testing.assert_array_equal(npy(c), npy(x))


@pytest.mark.parametrize("method,dtype", [("float", "float32"), ("double", "float64"), ("half", "float16"),
                                          ("bfloat16", "bfloat16"), ("long", "int64"), ("int", "int32"),
                                          ("short", "int16"), ("char", "int8"), ("byte", "uint8"), ("bool", "bool")])
def test_conversion_methods(method, dtype):
    x = tl.tensor(np.array([[0.0, 1.5, -2.0], [3.25, 0.0, 7.0]], np.float64))
    y = getattr(x, method)()
    assert y.dtype == getattr(tl, dtype)
    ref = npy(x)
    want = ref.astype(np.bool_) if dtype == "bool" else ref.astype({"bfloat16": np.float32}.get(dtype, dtype))
    got = npy(y.float()) if dtype == "bfloat16" else npy(y)
    if dtype == "uint8":
        want = np.array([[0, 1, 254], [3, 0, 7]], np.uint8)  # -2 wraps modulo 256, as in C and PyTorch
    np.testing.assert_array_equal(got, want)
    assert (y is x) == (dtype == "float64")
    assert x.to(y).dtype == y.dtype and x.type_as(y).dtype == y.dtype


def test_to_overloads_and_type_names():
    x = ar(2, 3)
    assert x.to(tl.float64).dtype == tl.float64
    assert x.to("cpu", tl.int16).dtype == tl.int16
    assert x.to(dtype=tl.int8, non_blocking=True).dtype == tl.int8
    assert x.type() == "torch.FloatTensor"
    assert x.type("torch.DoubleTensor").dtype == tl.float64
    assert x.long().type() == "torch.LongTensor"
    with pytest.raises(ValueError, match="invalid type"):
        x.type("torch.NopeTensor")


def test_to_preserves_dense_strides():
    x = ar(3, 4).t()
    y = x.to(tl.float64)
    assert tuple(y.stride()) == (1, 4)
    z = x.to(tl.float64, memory_format=tl.contiguous_format)
    assert z.is_contiguous()
    np.testing.assert_array_equal(npy(y), npy(x))
    np.testing.assert_array_equal(npy(z), npy(x))
    s = ar(4, 6)[:, ::2].double()   # not dense: becomes contiguous
    assert s.is_contiguous()


def test_to_meta_and_back():
    x = ar(2, 3)
    m = x.to("meta")
    assert m.is_meta and tuple(m.shape) == (2, 3) and m.dtype == tl.float32
    assert m.to(tl.float16).is_meta and m.to(tl.float16).dtype == tl.float16
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        m.to("cpu")


# ---------------------------------------------------------------- copy_

def test_copy_broadcasts_and_converts():
    dst = tl.empty(2, 3, dtype=tl.int32)
    src = tl.tensor(np.array([1.7, -2.2, 3.9], np.float64))
    v0 = dst._version
    r = dst.copy_(src)
    assert r is dst and dst._version > v0
    np.testing.assert_array_equal(npy(dst), np.array([[1, -2, 3]] * 2, np.int32))
    # into a non-contiguous view, from a transposed source
    base = tl.tensor(np.zeros((4, 4), np.float32))
    base[::2, 1:3].copy_(ar(2, 2).t())
    want = np.zeros((4, 4), np.float32)
    want[::2, 1:3] = np.arange(4).reshape(2, 2).T
    np.testing.assert_array_equal(npy(base), want)
    # bool <-> float
    b = tl.empty(3, dtype=tl.bool).copy_(tl.tensor([0.0, 0.5, -1.0]))
    np.testing.assert_array_equal(npy(b), [False, True, True])
    with pytest.raises(RuntimeError):
        tl.empty(2, 3).copy_(ar(4))
    # overlapping self-copy through a view keeps the right values
    y = ar(6)
    y[1:].copy_(y[:-1].clone())
    np.testing.assert_array_equal(npy(y), [0, 0, 1, 2, 3, 4])


# ---------------------------------------------------------------- indexing

@requires_torch
@pytest.mark.parametrize("index", [
    1, -1, (1, 2), (-1, -3), slice(None, None, 2), slice(1, None), slice(-2, None), slice(10, 20),
    slice(-100, 100), (slice(None), 1), (Ellipsis, 1), (1, Ellipsis, None), (None, 1, None, slice(None, 2)),
    (slice(None), Ellipsis, slice(None, None, 3)), (0, slice(None), None, Ellipsis), True, False, (None,),
    (Ellipsis,), (1, 2, 3), (slice(3, 1),), (-2, slice(None, None, 5), -1),
], ids=repr)
def test_getitem_matches_torch(index):
    import torch
    got = ar(3, 4, 5)[index]
    want = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)[index]
    assert geom(got) == (tuple(want.shape), tuple(want.stride()), want.storage_offset())
    np.testing.assert_array_equal(npy(got), want.numpy())


def test_getitem_is_a_view():
    x = ar(3, 4)
    v = x[1:, ::2]
    assert v._storage_ptr() == x._storage_ptr()
    v[0, 0] = 100
    assert npy(x)[1, 0] == 100


def test_getitem_errors():
    x = ar(3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x[-4]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        ar(2, 3)[:, 3]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 1"):
        x[0, 0]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        ar(2, 3)[..., ...]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        tl.tensor(1.0)[0]
    with pytest.raises(IndexError, match=r"\(got float\)"):
        x[1.5]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    assert tuple(tl.tensor(1.0)[...].shape) == () and tuple(tl.tensor(1.0)[None].shape) == (1,)
    assert x[tl.tensor(2)].item() == 2  # a 0-dim integer tensor is an int index


def test_setitem_broadcast_and_convert():
    x = tl.tensor(np.zeros((3, 4), np.float32))
    ref = np.zeros((3, 4), np.float32)
    v0 = x._version
    x[0] = tl.tensor([1, 2, 3, 4])                   # int64 -> float32
    ref[0] = [1, 2, 3, 4]
    assert x._version > v0
    x[1:, ::2] = tl.tensor([[7.5], [8.5]], dtype=tl.float64)  # broadcast (2,1) -> (2,2)
    ref[1:, ::2] = [[7.5], [8.5]]
    x[..., -1] = 9                                    # Python scalar
    ref[..., -1] = 9
    x[2, 1] = tl.tensor([[[5.0]]])                    # leading 1-dims dropped
    ref[2, 1] = 5
    x[0, 1:3] = [20, 30]                              # a list
    ref[0, 1:3] = [20, 30]
    x[None, 1, 1] = True
    ref[1, 1] = 1
    np.testing.assert_array_equal(npy(x), ref)
    with pytest.raises(RuntimeError):
        x[0] = tl.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="can't assign a str"):
        x[0] = "a"
    with pytest.raises(IndexError, match="out of bounds"):
        x[3] = 1
    m = tl.empty(3, 4, device="meta")
    m[0] = 1.0
    m[1:] = tl.empty(4, device="meta")
