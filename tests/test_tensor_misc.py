"""Tensor methods that change a tensor's own geometry or storage, beyond the
value checks of tests/opinfo/tensor_misc.py: in-place views (self returned,
version counters, storage sharing, views of views, autograd through them,
gradcheck through a non-leaf), set_/is_set_to (shared storage, growth),
resize_/resize_as_ (growth keeps the data, requires-grad errors), the
deprecated out-of-place resize/resize_as, fill_diagonal_ under autograd, and
PyTorch parity (skipped without torch)."""
import warnings

import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck


def ar(*shape, dtype=np.float32):
    return tl.tensor(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


def npy(t):
    return np.asarray(t)


def geom(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


def x64(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return tl.tensor(rng.uniform(-2, 2, size=shape), dtype=tl.float64, requires_grad=True)


# (name, in-place call, out-of-place equivalent) on a (2, 1, 3) tensor
INPLACE_VIEWS = [
    ("transpose_", lambda t: t.transpose_(0, 2), lambda t: t.transpose(0, 2)),
    ("swapaxes_", lambda t: t.swapaxes_(2, 0), lambda t: t.swapaxes(2, 0)),
    ("swapdims_", lambda t: t.swapdims_(-1, 1), lambda t: t.swapdims(-1, 1)),
    ("t_", lambda t: t.squeeze_(1).t_(), lambda t: t.squeeze(1).t()),
    ("squeeze_", lambda t: t.squeeze_(), lambda t: t.squeeze()),
    ("squeeze_dim", lambda t: t.squeeze_(1), lambda t: t.squeeze(1)),
    ("squeeze_dims", lambda t: t.squeeze_((0, 1)), lambda t: t.squeeze((0, 1))),
    ("unsqueeze_", lambda t: t.unsqueeze_(1), lambda t: t.unsqueeze(1)),
    ("as_strided_", lambda t: t.as_strided_((3, 2), (1, 3)), lambda t: t.as_strided((3, 2), (1, 3))),
    ("as_strided_fn", lambda t: tl.as_strided_(t, (2, 2), (1, 2), 1), lambda t: t.as_strided((2, 2), (1, 2), 1)),
]
IDS = [c[0] for c in INPLACE_VIEWS]


# ---------------------------------------------------------------- in-place views: geometry and versions

@pytest.mark.parametrize("name,inplace,outplace", INPLACE_VIEWS, ids=IDS)
def test_inplace_view_returns_self_with_the_views_geometry(name, inplace, outplace):
    t = ar(2, 1, 3)
    want = outplace(ar(2, 1, 3))
    ptr, v0 = t._storage_ptr(), t._version
    r = inplace(t)
    assert r is t
    assert geom(t) == geom(want)
    np.testing.assert_array_equal(npy(t), npy(want))
    assert t._storage_ptr() == ptr  # no copy
    assert t._version > v0


def test_inplace_view_of_a_view_changes_only_the_view():
    base = ar(3, 4)
    v = base[1:]
    v.transpose_(0, 1)
    assert tuple(base.shape) == (3, 4) and tuple(v.shape) == (4, 2)
    v[0, 1] = 100.0  # still a window onto base's memory
    assert float(base[2, 0]) == 100.0
    assert base._version == v._version  # the version counter is shared
    w = v.unsqueeze_(0)[0]  # a view of the changed view
    w[3, 0] = -1.0
    assert float(base[1, 3]) == -1.0


def test_squeeze_unsqueeze_strides_match_out_of_place():
    t = ar(4, 1, 6)[:, :, ::2]
    want = geom(t.squeeze(1).unsqueeze(2))
    t.squeeze_(1).unsqueeze_(2)
    assert geom(t) == want


# ---------------------------------------------------------------- in-place views: autograd

@pytest.mark.parametrize("name,inplace,outplace", INPLACE_VIEWS, ids=IDS)
def test_inplace_view_gradcheck_through_a_non_leaf(name, inplace, outplace):
    x = x64(2, 1, 3)
    assert gradcheck(lambda a: inplace(a * 1), (x,))
    assert gradgradcheck(lambda a: inplace(a * 1), (x,))


@pytest.mark.parametrize("name,inplace,outplace", INPLACE_VIEWS, ids=IDS)
def test_inplace_view_gradient_equals_out_of_place(name, inplace, outplace):
    w = tl.tensor(np.arange(1.0, 7.0))
    x1, x2 = x64(2, 1, 3), x64(2, 1, 3)
    y = x1 * 1
    inplace(y)
    (y * w.view(tuple(y.shape)) if y.numel() == 6 else y * 3).sum().backward()
    z = outplace(x2 * 1)
    (z * w.view(tuple(z.shape)) if z.numel() == 6 else z * 3).sum().backward()
    np.testing.assert_array_equal(npy(x1.grad), npy(x2.grad))


def test_inplace_view_records_its_node_on_self():
    y = x64(2, 3) * 1
    y.transpose_(0, 1)
    assert y.grad_fn.name().startswith("TransposeBackward")
    y.unsqueeze_(0)
    assert y.grad_fn.name().startswith("UnsqueezeBackward")
    y.squeeze_()
    assert y.grad_fn.name().startswith("SqueezeBackward")


@pytest.mark.parametrize("name,inplace,outplace", INPLACE_VIEWS, ids=IDS)
def test_inplace_view_on_a_leaf_requiring_grad_raises(name, inplace, outplace):
    x = x64(2, 1, 3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        inplace(x)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        inplace(x[:])
    with tl.no_grad():
        inplace(x)  # allowed: nothing is recorded
    assert x.grad_fn is None and x.requires_grad


def test_inplace_view_on_a_view_of_a_non_leaf():
    x = x64(3, 4)
    z = x * 1
    v = z[1:]
    v.transpose_(0, 1)
    assert v.grad_fn.name().startswith("TransposeBackward")
    w = tl.tensor(np.arange(8.0).reshape(4, 2))
    (v * w).sum().backward()
    want = np.zeros((3, 4))
    want[1:] = np.arange(8.0).reshape(4, 2).T
    np.testing.assert_array_equal(npy(x.grad), want)


def test_base_modified_after_an_inplace_view_of_its_view():
    """The view's history is replayed from the base with the view's new geometry."""
    x = x64(3, 4)
    z = x * 1
    v = z[1:]
    v.transpose_(0, 1)
    z.mul_(2)  # v's recorded history is now stale
    w = tl.tensor(np.arange(8.0).reshape(4, 2))
    (v * w).sum().backward()
    want = np.zeros((3, 4))
    want[1:] = 2 * np.arange(8.0).reshape(4, 2).T
    np.testing.assert_array_equal(npy(x.grad), want)


def test_inplace_write_after_an_inplace_view_goes_to_the_base():
    x = x64(3, 4)
    z = x * 1
    v = z[1:]
    v.t_()
    v.mul_(3)  # recorded on z (CopySlices) with v's transposed window
    z.sum().backward()
    want = np.ones((3, 4))
    want[1:] = 3
    np.testing.assert_array_equal(npy(x.grad), want)


def test_inplace_view_of_a_saved_tensor_fails_its_version_check():
    x = x64(2, 1, 3)
    y = x * 1
    s = y.sin()  # saves y
    y.squeeze_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


def test_as_strided_inplace_gradient_overlapping_window():
    x = x64(6)
    y = x * 2
    y.as_strided_((2, 2), (1, 2), 1)
    y.sum().backward()
    np.testing.assert_array_equal(npy(x.grad), [0, 2, 2, 2, 2, 0])
    assert gradcheck(lambda a: (a * 1).as_strided_((3, 2), (1, 1)), (x64(5),))


def test_as_strided_inplace_keeps_its_gradient_after_a_data_write():
    """Only the old geometry is saved, not self: a later write does not break backward."""
    x = x64(6)
    y = x * 1
    y.as_strided_((2, 3), (3, 1))
    y.mul_(2)
    y.sum().backward()
    np.testing.assert_array_equal(npy(x.grad), [2.0] * 6)


def test_inplace_views_on_meta():
    t = tl.empty((2, 1, 3), device="meta")
    t.transpose_(0, 2).squeeze_(1).unsqueeze_(0)
    assert t.device.type == "meta" and tuple(t.shape) == (1, 3, 2)
    t.as_strided_((3,), (2,))
    assert tuple(t.shape) == (3,) and tuple(t.stride()) == (2,)


# ---------------------------------------------------------------- set_ / is_set_to

def test_set_shares_storage_both_ways():
    a = ar(6)
    b = tl.zeros(2)
    assert b.set_(a) is b
    assert b.is_set_to(a) and a.is_set_to(b)
    b[0] = 100.0
    assert float(a[0]) == 100.0
    a[5] = -1.0
    assert float(b[5]) == -1.0
    assert b._version == 2 and a._version == 1  # storage shared, version counters not


def test_set_with_a_window():
    a = ar(6)
    b = tl.zeros(2)
    b.set_(a, 1, (2, 2), (1, 2))
    np.testing.assert_array_equal(npy(b), [[1, 3], [2, 4]])
    assert geom(b) == ((2, 2), (1, 2), 1)
    assert not b.is_set_to(a)
    b.set_(a, 1, (2, 2))  # default strides are contiguous
    assert geom(b) == ((2, 2), (2, 1), 1)
    v = a[2:]
    b.set_(v)  # keeps the source's offset
    assert geom(b) == ((4,), (1,), 2) and b.is_set_to(v) and not b.is_set_to(a)
    b.set_(v, 1, (2,))  # an offset counts from the source's own
    np.testing.assert_array_equal(npy(b), [3, 4])
    b.set_(v, -2, (2,))
    np.testing.assert_array_equal(npy(b), [0, 1])
    with pytest.raises(RuntimeError, match="must be contiguous"):
        b.set_(a.view(2, 3).t(), 0, (2,))


def test_set_grows_the_shared_storage():
    a = ar(6)
    b = tl.zeros(1)
    b.set_(a, 4, (4,))
    np.testing.assert_array_equal(npy(b)[:2], [4, 5])
    b[3] = 9.0
    c = tl.zeros(1).set_(a, 0, (8,))  # a's storage itself grew
    assert float(c[7]) == 9.0
    np.testing.assert_array_equal(npy(a), np.arange(6))


def test_set_empty():
    a = ar(2, 3)
    ptr = a._storage_ptr()
    assert a.set_() is a
    assert tuple(a.shape) == (0,) and a.numel() == 0 and a._version == 1
    assert a._storage_ptr() != ptr
    e = tl.zeros(0)
    assert e.is_set_to(e) and not tl.zeros(0).is_set_to(e)


def test_set_errors():
    with pytest.raises(RuntimeError, match="could not set a tensor of type"):
        tl.zeros(2).set_(tl.zeros(2, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        tl.zeros(2).set_(ar(6), -1, (2, 2))
    with pytest.raises(RuntimeError, match="not resizable"):
        tl.zeros(1).set_(tl.from_numpy(np.zeros(3, np.float32)), 0, (10,))


def test_set_autograd():
    x = x64(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.set_(tl.zeros(3, dtype=tl.float64))
    y = x * 1
    y.set_(tl.zeros(3, dtype=tl.float64))
    assert y.requires_grad and y.grad_fn is not None
    a = tl.zeros(3, dtype=tl.float64)
    a.set_(x)  # a plain tensor taking a source that requires grad
    assert a.requires_grad
    with pytest.raises(RuntimeError, match="set_"):
        a.sum().backward()
    with tl.no_grad():
        x.set_(tl.zeros(4, dtype=tl.float64))
    assert tuple(x.shape) == (4,)


# ---------------------------------------------------------------- resize_ / resize_as_

def test_resize_grows_and_keeps_the_data_prefix():
    a = ar(2, 3)
    assert a.resize_(3, 4) is a
    assert geom(a) == ((3, 4), (4, 1), 0) and a._version == 1
    np.testing.assert_array_equal(npy(a).ravel()[:6], np.arange(6))
    a.resize_(2)
    np.testing.assert_array_equal(npy(a), [0, 1])
    a.resize_((2, 5))  # a sequence works as well as varargs
    np.testing.assert_array_equal(npy(a).ravel()[:6], np.arange(6))  # shrinking kept the storage


def test_resize_of_a_view_grows_the_shared_storage():
    a = ar(6)
    b = a[1:]
    b.resize_(10)
    assert b.storage_offset() == 1 and tuple(b.shape) == (10,)
    np.testing.assert_array_equal(npy(b)[:5], [1, 2, 3, 4, 5])
    b[9] = 7.0
    assert float(tl.zeros(1).set_(a, 10, (1,))[0]) == 7.0


def test_resize_to_the_same_size_keeps_strides_and_version():
    t = ar(2, 3).t()
    t.resize_(3, 2)
    assert tuple(t.stride()) == (1, 3) and t._version == 0
    t.resize_(3, 2, memory_format=tl.contiguous_format)
    assert tuple(t.stride()) == (2, 1)


def test_resize_errors():
    x = x64(3)
    for ctx in (tl.enable_grad(), tl.no_grad()):  # refused even without grad mode, as PyTorch
        with ctx, pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            x.resize_(4)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        (x * 1).resize_(3)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        ar(6).resize_(2, 3, memory_format=tl.preserve_format)
    with pytest.raises(RuntimeError, match="negative dimension"):
        ar(6).resize_(-1)
    with pytest.raises(RuntimeError, match="not resizable"):
        tl.from_numpy(np.zeros(3, np.float32)).resize_(10)
    tl.from_numpy(np.zeros(3, np.float32)).resize_(2)  # shrinking needs no new memory


def test_resize_as():
    a = ar(6)
    assert a.resize_as_(tl.zeros(2, 4, dtype=tl.int32)) is a
    assert tuple(a.shape) == (2, 4) and a.dtype == tl.float32
    assert tl.resize_as_(a, tl.zeros(1, 2)) is a and tuple(a.shape) == (1, 2)
    a.resize_as_(tl.zeros(3), memory_format=tl.preserve_format)
    assert tuple(a.shape) == (3,)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        x64(2).resize_as_(tl.zeros(3))


def test_resize_on_meta():
    m = tl.empty((2, 3), device="meta")
    m.resize_(4, 5)
    assert m.device.type == "meta" and tuple(m.shape) == (4, 5)


def test_deprecated_out_of_place_resize():
    a = ar(6)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = a.resize(2, 3)
    assert tuple(r.shape) == (2, 3) and tuple(a.shape) == (6,)
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        r = a.resize_as(tl.zeros(3, 2))
    assert tuple(r.shape) == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match=r"requested resize to 4 \(4 elements in total\), but the given tensor "
                                               r"has a size of 6 \(6 elements\)"):
            a.resize(4)
        x = x64(2, 3)
        r = x.resize(3, 2)
        assert r.grad_fn.name() == "ResizeBackward"
        (r * tl.tensor(np.arange(6.0).reshape(3, 2))).sum().backward()
        np.testing.assert_array_equal(npy(x.grad), np.arange(6.0).reshape(2, 3))
        assert gradcheck(lambda t: t.resize_as(tl.zeros(6)), (x64(2, 3),))


# ---------------------------------------------------------------- fill_diagonal_

def test_fill_diagonal_gradient():
    x = x64(3, 3)
    y = x * 1
    assert y.fill_diagonal_(2.0) is y
    y.sum().backward()
    np.testing.assert_array_equal(npy(x.grad), 1 - np.eye(3))
    assert gradcheck(lambda a: (a * 1).fill_diagonal_(0.5, wrap=True), (x64(7, 3),))
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x.fill_diagonal_(1.0)


def test_fill_diagonal_through_views():
    z = tl.zeros(3, 3)
    z[:, :2].fill_diagonal_(7.0, wrap=True)
    np.testing.assert_array_equal(npy(z), [[7, 0, 0], [0, 7, 0], [0, 0, 0]])
    t = tl.zeros(4, 6).t()  # transposed: wrap counts in elements, as PyTorch
    t.fill_diagonal_(1.0, wrap=True)
    want = np.zeros((6, 4))
    want[np.arange(4), np.arange(4)] = 1
    want[5, 0] = 1
    np.testing.assert_array_equal(npy(t), want)


def test_fill_diagonal_value_conversion():
    np.testing.assert_array_equal(npy(tl.zeros(1, 3, dtype=tl.int64).fill_diagonal_(2.7)), [[2, 0, 0]])
    np.testing.assert_array_equal(npy(tl.zeros(2, 2, dtype=tl.uint8).fill_diagonal_(-1)), [[255, 0], [0, 255]])
    with pytest.raises(RuntimeError):
        tl.zeros(2, 2, dtype=tl.uint8).fill_diagonal_(300)
    m = tl.empty((3, 3, 3), device="meta").fill_diagonal_(1.0)
    assert m.device.type == "meta" and tuple(m.shape) == (3, 3, 3)


# ---------------------------------------------------------------- PyTorch parity

@requires_torch
def test_parity_with_pytorch():
    import torch

    def script(lib, tensor):
        out = []
        a = lib.arange(24.0).reshape(2, 3, 4)
        a.transpose_(0, 2).unsqueeze_(1).squeeze_().swapdims_(0, 1)
        out.append((geom(a), a._version))
        b = tensor(np.arange(6.0, dtype=np.float32))
        b.as_strided_((2, 2), (1, 2), 1)
        out.append((geom(b), b.numpy().tolist()))
        c = lib.zeros(1)
        src = lib.arange(8.0)[1:]
        c.set_(src, 2, (2, 2), (2, 1))
        out.append((geom(c), c.numpy().tolist(), c._version, c.is_set_to(src)))
        c.set_(src, -1, (2,))
        out.append((geom(c), c.numpy().tolist()))
        d = lib.arange(6.0)
        d.resize_(2, 4)
        out.append((geom(d), d._version, d.numpy().ravel()[:6].tolist()))
        d.resize_(2, 4)
        out.append(d._version)
        e = lib.zeros(7, 3).fill_diagonal_(5, wrap=True)
        out.append(e.numpy().tolist())
        x = tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        z = x * 1
        v = z[1:]
        v.transpose_(0, 1)
        z.add_(1)
        v.unsqueeze_(0).mul_(2)
        (z * tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        out.append(x.grad.numpy().tolist())
        for bad in (lambda: lib.zeros(2, 3).transpose_(0, 2), lambda: lib.zeros(2, 3, 4).t_(),
                    lambda: lib.zeros(3).fill_diagonal_(1), lambda: x.resize_(4)):
            try:
                bad()
                out.append(None)
            except Exception as exc:  # the exception type must match
                out.append(type(exc).__name__)
        return out

    got = script(tl, tl.tensor)
    want = script(torch, torch.tensor)
    assert got == want


# ---------------------------------------------------------------- the generator's inplace_view rule

def test_codegen_refuses_an_inplace_view_formula_reading_self_values(tmp_path):
    """An inplace_view op's node would save self before its version bump: only
    its metadata (the old geometry) may be read, or generation fails with file:line."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    y = tmp_path / "native_functions.yaml"
    y.write_text(open(os.path.join(root, "native_functions.yaml")).read() +
                 '\n- func: bad_view_(Tensor(a!) self) -> Tensor(a!)\n  variants: [method]\n  tags: [inplace_view]\n'
                 '  dispatch: {CompositeExplicitAutograd: k}\n  derivatives:\n    self: "grad * self"\n')
    r = subprocess.run([sys.executable, "-m", "codegen.gen", "--yaml", str(y), "--out", str(tmp_path / "gen")],
                       cwd=root, capture_output=True, text=True)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"{y}:") and "may read only the old geometry" in last, r.stderr
