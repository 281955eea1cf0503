"""Shape ops beyond the registry (tests/opinfo/shape_ops.py): which results are
views (storage shared, writes visible both ways, strides as PyTorch's) and
which are copies, Tensor.repeat, view(dtype), Tensor.data, the in-place
triangles on strided tensors, second derivatives, Meta for the index
factories, error messages, and parity with PyTorch where it is installed."""
import warnings

import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck


def ar(*shape, dtype=np.float32):
    return tl.tensor(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


def shares(a, b):
    return a._storage_ptr() == b._storage_ptr()


def f64(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return tl.tensor(rng.standard_normal(shape)).requires_grad_(True)


# ---------------------------------------------------------------- views and copies

VIEW_RESULTS = [
    ("tensor_split", lambda t: t.tensor_split(2, 1)[1]),
    ("tensor_split_indices", lambda t: tl.tensor_split(t, [1, 3], dim=2)[1]),
    ("hsplit", lambda t: t.hsplit(3)[2]),
    ("vsplit", lambda t: tl.vsplit(t, [1])[1]),
    ("dsplit", lambda t: t.dsplit(2)[0]),
    ("atleast_3d", lambda t: tl.atleast_3d(t[0, 0])),
    ("meshgrid", lambda t: tl.meshgrid(t[0, 0], t[1, 1], indexing="xy")[0]),
    ("broadcast_tensors", lambda t: tl.broadcast_tensors(t[:, :1], t)[0]),
    ("broadcast_to", lambda t: tl.broadcast_to(t[:1], (3, 3, 4))),
    ("unfold", lambda t: t.unfold(2, 2, 1)),
    ("movedim", lambda t: t.movedim(0, -1)),
    ("view_dtype", lambda t: t.view(tl.int32)),
    ("data", lambda t: t.data),
]


@pytest.mark.parametrize("name,fn", VIEW_RESULTS, ids=[n for n, _ in VIEW_RESULTS])
def test_views_share_storage_and_see_writes(name, fn):
    base = ar(2, 3, 4)
    v = fn(base)
    assert shares(v, base), name
    before = np.asarray(base).copy()
    # A write through the view shows in the base, and one to the base in the view.
    v.fill_(-1)
    assert not np.array_equal(np.asarray(base), before), name
    base.fill_(7)
    if v.dtype == tl.float32:
        assert np.all(np.asarray(v) == 7), name


COPY_RESULTS = [
    ("flip", lambda t: t.flip(0)), ("fliplr", lambda t: t.fliplr()), ("flipud", lambda t: t.flipud()),
    ("roll", lambda t: t.roll(1, 0)), ("roll_zero", lambda t: t.roll(0, 0)), ("rot90", lambda t: t.rot90()),
    ("rot90_4", lambda t: t.rot90(4)), ("repeat", lambda t: t.repeat(1, 1, 1)), ("tile", lambda t: t.tile((1,))),
    ("tril", lambda t: t.tril()), ("diag", lambda t: t[0].diag()), ("repeat_interleave", lambda t: t.repeat_interleave(1)),
    ("diagonal_scatter", lambda t: t.diagonal_scatter(t.diagonal())),
]


@pytest.mark.parametrize("name,fn", COPY_RESULTS, ids=[n for n, _ in COPY_RESULTS])
def test_copies_do_not_alias(name, fn):
    base = ar(2, 3, 4)
    r = fn(base)
    assert not shares(r, base), name


def test_split_family_results_are_views_of_one_storage():
    x = ar(6, 4)
    for parts in (x.tensor_split(3), x.hsplit([1, 3]), x.vsplit(2), tl.tensor_split(x, tl.tensor([2, 5]))):
        for p in parts:
            assert shares(p, x)


# ---------------------------------------------------------------- Tensor.repeat (method only, as PyTorch)

@pytest.mark.parametrize("shape,reps", [((2, 3), (2, 2)), ((3,), (2, 1, 3)), ((), (4,)), ((2, 1), (1, 0)),
                                        ((2, 3), (1, 1))])
def test_repeat_matches_numpy_tile(shape, reps):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    got = tl.tensor(a).repeat(*reps)
    np.testing.assert_array_equal(np.asarray(got), np.tile(a, reps))
    assert np.array_equal(np.asarray(tl.tensor(a).repeat(reps)), np.tile(a, reps))
    assert not hasattr(tl, "repeat")  # method only, like torch.Tensor.repeat


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float16", "bfloat16", "float64"])
def test_repeat_every_dtype_and_meta(dtype):
    x = tl.ones(2, 3, dtype=getattr(tl, dtype))
    assert tuple(x.repeat(2, 1, 2).shape) == (2, 2, 6) and x.repeat(2, 1, 2).dtype == x.dtype
    m = tl.empty(2, 3, dtype=getattr(tl, dtype), device="meta").repeat(3, 1)
    assert m.device.type == "meta" and tuple(m.shape) == (6, 3)


def test_repeat_errors_and_gradients():
    x = ar(2, 3)
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -2: \[-2, 6\]"):
        x.repeat(-1, 2)
    a = f64(2, 3)
    assert gradcheck(lambda t: t.repeat(2, 1, 3), (a,))
    assert gradgradcheck(lambda t: t.repeat(2, 2), (a,))


# ---------------------------------------------------------------- view(dtype)

def test_view_dtype_same_size_reinterprets_bits():
    x = tl.tensor([1.0, -2.0], dtype=tl.float32)
    v = x.view(tl.int32)
    np.testing.assert_array_equal(np.asarray(v), np.array([1.0, -2.0], np.float32).view(np.int32))
    assert shares(v, x) and v.dtype == tl.int32
    v[0] = 0
    assert float(x[0]) == 0.0
    assert x._version == v._version  # one version counter for both


def test_view_dtype_smaller_and_larger_elements():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = tl.tensor(a)
    v = x.view(tl.uint8)
    assert tuple(v.shape) == (3, 16) and tuple(v.stride()) == (16, 1)
    np.testing.assert_array_equal(np.asarray(v), a.view(np.uint8))
    back = v.view(tl.float32)
    np.testing.assert_array_equal(np.asarray(back), a)
    # A narrowed row keeps its offset in the new element size.
    r = x[1:, 2:].view(tl.int16)
    assert r.storage_offset() == 6 * 2 and tuple(r.shape) == (2, 4) and tuple(r.stride()) == (8, 1)
    np.testing.assert_array_equal(np.asarray(r), a[1:, 2:].copy().view(np.int16))
    h = tl.tensor(np.arange(8, dtype=np.uint8)).view(tl.float16)
    np.testing.assert_array_equal(np.asarray(h), np.arange(8, dtype=np.uint8).view(np.float16))
    assert tl.empty(2, 4, device="meta").view(tl.int8).shape == (2, 16)


@pytest.mark.parametrize("make,dtype,msg", [
    (lambda: ar(2, 3).t(), tl.int8, r"self.stride\(-1\) must be 1 to view Float as Char \(different element sizes\), "
                                    r"but got 3"),
    (lambda: tl.tensor(1.0), tl.int8, r"self.dim\(\) cannot be 0 to view Float as Char"),
    (lambda: tl.ones(3, dtype=tl.uint8), tl.int16, r"self.size\(-1\) must be divisible by 2 to view Byte as Short "
                                                   r"\(different element sizes\), but got 3"),
    (lambda: tl.ones(4, dtype=tl.uint8)[1:3], tl.int16, r"self.storage_offset\(\) must be divisible by 2 to view "
                                                        r"Byte as Short"),
    (lambda: tl.ones(3, 6, dtype=tl.uint8)[:, :4], tl.int32, r"self.stride\(0\) must be divisible by 4 to view Byte "
                                                             r"as Int \(different element sizes\), but got 6"),
])
def test_view_dtype_errors(make, dtype, msg):
    with pytest.raises(RuntimeError, match=msg):
        make().view(dtype)


def test_view_dtype_is_not_differentiable():
    x = tl.ones(2, requires_grad=True)
    v = x.view(tl.int32)
    assert not v.requires_grad


# ---------------------------------------------------------------- Tensor.data

def test_data_is_detached_and_shares_storage():
    x = tl.ones(3, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.grad_fn is None and shares(d, x)
    d.mul_(2)  # the classic optimiser update: no autograd error, visible in x
    np.testing.assert_array_equal(np.asarray(x.detach()), [2, 2, 2])
    # .data has its own version counter: writing through it does not
    # invalidate x saved for backward (detach() would), as in PyTorch.
    y = (x * x).sum()
    v = x._version
    x.data.add_(1)
    assert x._version == v
    y.backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [6, 6, 6])


def test_set_data_swaps_storage_keeps_identity():
    w = tl.zeros(3, requires_grad=True)
    new = tl.arange(4.0).view(2, 2)
    w.data = new
    assert w.requires_grad and tuple(w.shape) == (2, 2) and shares(w, new)
    np.testing.assert_array_equal(np.asarray(w.detach()), [[0, 1], [2, 3]])
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        w.data = 3
    with pytest.raises(RuntimeError, match="data set to a tensor that requires gradients must be floating point"):
        w.data = tl.ones(2, dtype=tl.int64)
    # dtype changes are allowed (PyTorch's set_data): the object keeps its identity
    w.data = tl.tensor([0.5, 1.5], dtype=tl.float16)
    assert w.dtype == tl.float16 and w.requires_grad
    (w.float() * 2).sum().backward()
    assert w.grad.dtype == tl.float16
    np.testing.assert_array_equal(np.asarray(w.grad.float()), [2, 2])
    plain = tl.zeros(2)
    plain.data = tl.tensor([1, 2])  # no grad required: integer data is fine
    assert plain.dtype == tl.int64 and plain.tolist() == [1, 2]


# ---------------------------------------------------------------- triangles, diagonals

def test_inplace_triangles_on_strided_tensor_and_grad():
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    x = tl.tensor(a).t()  # not contiguous
    r = x.tril_(1)
    assert r is x
    np.testing.assert_array_equal(np.asarray(x), np.tril(a.T, 1))
    y = tl.tensor(a)[:, ::2]
    y.triu_(-1)
    np.testing.assert_array_equal(np.asarray(y), np.triu(a[:, ::2], -1))
    b = f64(3, 4)
    assert gradcheck(lambda t: t.clone().tril_(-1) * 2, (b,))
    assert gradgradcheck(lambda t: (t.triu(1) * t).sum(), (b,))


def test_meta_tril_triu_and_indices():
    m = tl.empty(2, 3, 4, device="meta")
    assert m.tril(1).shape == (2, 3, 4) and m.triu_().device.type == "meta"
    for f in (tl.tril_indices, tl.triu_indices):
        cpu, meta = f(5, 4, -1), f(5, 4, -1, device="meta")
        assert meta.device.type == "meta" and meta.shape == cpu.shape and meta.dtype == tl.int64
    i32 = tl.triu_indices(3, 3, dtype=tl.int32)
    assert i32.dtype == tl.int32
    np.testing.assert_array_equal(np.asarray(i32), np.stack(np.triu_indices(3, 0, 3)))


def test_repeat_interleave_index_form_keeps_dtype():
    r = tl.repeat_interleave(tl.tensor([1, 2], dtype=tl.int32))
    assert r.dtype == tl.int32
    np.testing.assert_array_equal(np.asarray(r), [0, 1, 1])
    assert tl.repeat_interleave(tl.empty(3, dtype=tl.int64, device="meta"), output_size=7).shape == (7,)


@pytest.mark.parametrize("name,fn,shapes", [
    ("flip", lambda t: t.flip((0, 1)), [(3, 4)]),
    ("roll", lambda t: t.roll((1, -1), (0, 1)), [(3, 4)]),
    ("rot90", lambda t: t.rot90(1, (0, 1)), [(3, 4)]),
    ("diag_embed", lambda t: tl.diag_embed(t, 1), [(2, 3)]),
    ("diag", lambda t: tl.diag(t, -1), [(3,)]),
    ("diagonal_scatter", lambda a, b: a.diagonal_scatter(b, 1), [(3, 4), (3,)]),
    ("select_scatter", lambda a, b: a.select_scatter(b, 1, 0), [(3, 4), (3,)]),
    ("slice_scatter", lambda a, b: a.slice_scatter(b, 0, 1, 3), [(4, 3), (2, 3)]),
    ("block_diag", lambda a, b: tl.block_diag(a, b), [(2, 2), (3,)]),
    ("combinations", lambda t: tl.combinations(t, 2, True), [(4,)]),
    ("repeat_interleave", lambda t: t.repeat_interleave(tl.tensor([2, 0, 1]), dim=1), [(2, 3)]),
])
def test_second_derivatives(name, fn, shapes):
    inputs = tuple(f64(*s, seed=i) for i, s in enumerate(shapes))
    assert gradgradcheck(lambda *xs: fn(*xs), inputs), name


def test_split_function_keywords_as_pytorch():
    x = ar(5, 2)
    parts = tl.split(x, split_size_or_sections=2)
    assert isinstance(parts, tuple) and [tuple(p.shape) for p in parts] == [(2, 2), (2, 2), (1, 2)]
    parts = tl.split(tensor=x, split_size_or_sections=[1, 1], dim=1)
    assert [tuple(p.shape) for p in parts] == [(5, 1), (5, 1)] and all(shares(p, x) for p in parts)
    assert len(x.split(split_size=4)) == 2


def test_meshgrid_warns_without_indexing_and_accepts_a_list():
    a, b = tl.arange(3), tl.arange(2)
    with pytest.warns(UserWarning, match="indexing argument"):
        g = tl.meshgrid(a, b)
    assert isinstance(g, tuple) and tuple(g[0].shape) == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tuple(tl.meshgrid([a, b], indexing="xy")[0].shape) == (2, 3)


def test_equal_promotes_and_needs_two_arguments():
    assert tl.equal(tl.ones(2), tl.ones(2, dtype=tl.int64)) is True
    assert tl.ones(2).equal(tl.zeros(2)) is False
    assert tl.equal(tl.ones(2, 3)[:, ::2], tl.ones(2, 2))  # strided input
    with pytest.raises(TypeError):
        tl.equal(tl.ones(2))
    # Meta tensors have no values to compare: NotImplementedError, as PyTorch's.
    with pytest.raises(NotImplementedError, match="equal"):
        tl.equal(tl.empty(2, device="meta"), tl.empty(2, device="meta"))


# ---------------------------------------------------------------- PyTorch parity

PARITY = [
    ("tensor_split", lambda m, x: m.tensor_split(x, 3, 1)),
    ("tensor_split_tensor", lambda m, x: m.tensor_split(x, m.tensor([1, 3]), dim=0)),
    ("hsplit", lambda m, x: m.hsplit(x, [1, 2])),
    ("hstack", lambda m, x: m.hstack([x, x])), ("vstack", lambda m, x: m.vstack([x, x[0]])),
    ("dstack", lambda m, x: m.dstack([x, x])), ("column_stack", lambda m, x: m.column_stack([x, x[:, 0]])),
    ("row_stack", lambda m, x: m.row_stack([x, x])),
    ("atleast_3d", lambda m, x: m.atleast_3d(x)), ("atleast_2d_many", lambda m, x: m.atleast_2d(x[0, 0], x[0])),
    ("flip", lambda m, x: m.flip(x, (0, 1))), ("fliplr", lambda m, x: m.fliplr(x)), ("flipud", lambda m, x: m.flipud(x)),
    ("roll", lambda m, x: m.roll(x, 2)), ("roll_dims", lambda m, x: m.roll(x, (1, -2), (0, 1))),
    ("rot90", lambda m, x: m.rot90(x, 1)), ("rot90_3", lambda m, x: m.rot90(x, 3, (1, 0))),
    ("repeat", lambda m, x: x.repeat(2, 1, 2)), ("tile", lambda m, x: m.tile(x, (2,))),
    ("repeat_interleave", lambda m, x: m.repeat_interleave(x, 2, dim=1)),
    ("repeat_interleave_t", lambda m, x: x.repeat_interleave(m.tensor([1, 0, 2, 1]), dim=1)),
    ("repeat_interleave_idx", lambda m, x: m.repeat_interleave(m.tensor([2, 1]))),
    ("tril", lambda m, x: m.tril(x, -1)), ("triu", lambda m, x: x.triu(1)),
    ("tril_indices", lambda m, x: m.tril_indices(4, 3, 1)), ("triu_indices", lambda m, x: m.triu_indices(3, 5, -1)),
    ("diag", lambda m, x: m.diag(x, 1)), ("diag_1d", lambda m, x: m.diag(x[0], -1)),
    ("diag_embed", lambda m, x: m.diag_embed(x, 1, 0, 2)), ("diagflat", lambda m, x: m.diagflat(x[:2, :2], 1)),
    ("diagonal_scatter", lambda m, x: m.diagonal_scatter(x, x[0, :3], 0)),
    ("select_scatter", lambda m, x: m.select_scatter(x, x[1], 0, 0)),
    ("slice_scatter", lambda m, x: m.slice_scatter(x, x[:, :2], 1, 2, 4)),
    ("meshgrid", lambda m, x: m.meshgrid(x[0], x[1, :2], indexing="xy")),
    ("broadcast_tensors", lambda m, x: m.broadcast_tensors(x[:, :1], x[0])),
    ("block_diag", lambda m, x: m.block_diag(x, x[0, :2], x[0, 0])),
    ("block_diag_promote", lambda m, x: m.block_diag(x[:1], m.ones(2, dtype=m.int64))),
    ("cartesian_prod", lambda m, x: m.cartesian_prod(x[0, :2], x[1, :3])),
    ("combinations", lambda m, x: m.combinations(x[0], 3)),
    ("combinations_r0", lambda m, x: m.combinations(x[0], 0)),
    ("combinations_rep", lambda m, x: m.combinations(x[0, :3], 2, with_replacement=True)),
    ("view_dtype", lambda m, x: x.view(m.int16)), ("view_dtype_wide", lambda m, x: x.view(m.float64)),
    ("unflatten", lambda m, x: x.unflatten(1, (2, 2))), ("unfold", lambda m, x: x.unfold(1, 2, 1)),
    ("moveaxis", lambda m, x: m.moveaxis(x, 0, 1)), ("swapdims", lambda m, x: x.swapdims(0, 1)),
]


def _geom_and_values(t):
    if isinstance(t, (list, tuple)):
        return [_geom_and_values(e) for e in t]
    a = t.detach().cpu().numpy() if hasattr(t, "numpy") else np.asarray(t)
    return tuple(t.shape), tuple(t.stride()), str(t.dtype).split(".")[-1], a.tolist()


@requires_torch
@pytest.mark.parametrize("name,fn", PARITY, ids=[n for n, _ in PARITY])
def test_matches_pytorch(name, fn):
    import torch
    a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    got = _geom_and_values(fn(tl, tl.tensor(a)))
    want = _geom_and_values(fn(torch, torch.tensor(a)))
    assert got == want, name


ERRORS = [
    lambda m: m.flip(m.ones(2, 3), (0, 0)), lambda m: m.roll(m.ones(2, 3), (1, 2), (0,)),
    lambda m: m.rot90(m.ones(2, 3), 1, (0, 0)), lambda m: m.ones(2, 3).repeat(2),
    lambda m: m.hsplit(m.ones(2, 3), 2), lambda m: m.tensor_split(m.ones(3), m.tensor([1.0])),
    lambda m: m.tril(m.ones(3)), lambda m: m.tril_indices(-1, 2), lambda m: m.diag(m.ones(2, 2, 2)),
    lambda m: m.diagonal_scatter(m.ones(2, 3), m.ones(3)), lambda m: m.meshgrid([m.ones(2, 2)], indexing="foo"),
    lambda m: m.block_diag(m.ones(2, 2, 2)), lambda m: m.combinations(m.ones(3), -1),
    lambda m: m.repeat_interleave(m.ones(2, 3), m.tensor([1, 2]), dim=1),
    lambda m: m.ones(3, dtype=m.uint8).view(m.int16), lambda m: m.ones(2, 3).t().view(m.int8),
    lambda m: m.select_scatter(m.ones(2, 3), m.ones(3), 0, 5),
    lambda m: m.roll(m.tensor(1.0), 1, 0), lambda m: m.diag_embed(m.tensor(1.0)),
    lambda m: m.repeat_interleave(m.tensor(1.0), m.tensor([2, 1]), dim=0),
    lambda m: m.repeat_interleave(m.tensor(1.0), 2, dim=0),
    lambda m: m.tensor_split(m.ones(3), 2, 1), lambda m: m.flip(m.ones(2), (1,)),
    lambda m: m.tril_indices(3, 3, dtype=m.float32), lambda m: m.combinations(m.ones(2, 2)),
    lambda m: m.cartesian_prod(m.ones(2), m.ones(2, 2)), lambda m: m.dsplit(m.ones(2, 2), 2),
]


@requires_torch
@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_pytorch(i):
    import torch

    def outcome(m):
        try:
            ERRORS[i](m)
        except Exception as e:  # noqa: BLE001 - the type and text are what is compared
            return type(e).__name__, str(e).splitlines()[0]
        return None
    got, want = outcome(tl), outcome(torch)
    assert want is not None and got == want
