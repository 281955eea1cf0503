"""Core pieces that no single op owns: dtype limits, TensorIterator geometry
(non-contiguous inputs, output layout, threads), the caching allocator, half
and bfloat16 conversions, threads, and registration through the C++ macros."""
import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch


@requires_torch
@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_pytorch(name):
    import torch
    a, b = tl.finfo(getattr(tl, name)), torch.finfo(getattr(torch, name))
    for f in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(a, f) == getattr(b, f), f


@requires_torch
@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_pytorch(name):
    import torch
    a, b = tl.iinfo(getattr(tl, name)), torch.iinfo(getattr(torch, name))
    assert (a.bits, a.min, a.max) == (b.bits, b.min, b.max)


def test_finfo_literals():
    assert tl.finfo(tl.float32).eps == np.finfo(np.float32).eps
    assert tl.finfo().bits == 32
    assert tl.iinfo(tl.int16).max == 32767
    with pytest.raises(TypeError):
        tl.finfo(tl.int32)
    with pytest.raises(TypeError):
        tl.iinfo(tl.float32)


# ---------------------------------------------------------------- TensorIterator geometry

def test_transposed_inputs_and_output_layout():
    a = np.random.rand(64, 48).astype(np.float32)
    ta = tl.from_numpy(a)
    t = ta.t()
    assert not t.is_contiguous()
    r = t * 2 + 1
    np.testing.assert_allclose(np.asarray(r), a.T * 2 + 1, rtol=1e-6)
    # A dense transposed input gives a result with the same (transposed) layout, as PyTorch does.
    assert r.stride() == t.stride()
    # Mixed layouts: contiguous wins for a contiguous + transposed pair.
    b = tl.from_numpy(np.random.rand(48, 64).astype(np.float32))
    np.testing.assert_allclose(np.asarray(t + b), a.T + np.asarray(b), rtol=1e-6)


def test_strided_and_broadcast_inputs():
    a = np.arange(60, dtype=np.float64).reshape(5, 12)
    ta = tl.from_numpy(a)
    s = ta[1:, ::3]
    np.testing.assert_array_equal(np.asarray(s + s), a[1:, ::3] * 2)
    col = tl.from_numpy(np.arange(4.0)).unsqueeze(1)
    np.testing.assert_array_equal(np.asarray(s - col), a[1:, ::3] - np.arange(4.0)[:, None])
    # writing through a strided view
    s.mul_(0)
    assert np.all(a[1:, ::3] == 0) and a[0, 0] == 0 and a[1, 1] == 13


def test_mixed_dtype_inputs_are_cast_once():
    x = tl.tensor([1, 2, 3], dtype=tl.int16)
    y = tl.tensor([0.5, 0.5, 0.5], dtype=tl.float64)
    r = x + y
    assert r.dtype == tl.float64 and r.tolist() == [1.5, 2.5, 3.5]
    assert (tl.tensor([1.5], dtype=tl.float16) * tl.tensor([2], dtype=tl.uint8)).dtype == tl.float16


@pytest.mark.parametrize("shape", [(1 << 20,), (513, 1027), (3, 1, 70000)])
def test_elementwise_results_do_not_depend_on_thread_count(shape):
    rng = np.random.default_rng(0)
    a = tl.from_numpy(rng.standard_normal(shape).astype(np.float32))
    b = tl.from_numpy(rng.standard_normal(shape[-1:]).astype(np.float32))
    old = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        fns = (lambda: a * b + 1, lambda: a.exp(), lambda: (a.t() if a.dim() == 2 else a) * 3)
        one = [np.asarray(f()).copy() for f in fns]
        tl.set_num_threads(2)
        two = [np.asarray(f()).copy() for f in fns]
    finally:
        tl.set_num_threads(old)
    for x, y in zip(one, two):
        np.testing.assert_array_equal(x, y)


def test_zero_size_and_zero_dim():
    e = tl.empty(0, 3)
    assert (e + 1).shape == (0, 3) and (e + tl.ones(3)).shape == (0, 3)
    z = tl.tensor(2.0)
    assert (z * z).dim() == 0 and (z * z).item() == 4.0


# ---------------------------------------------------------------- allocator

def test_caching_allocator_reuses_and_releases():
    tl.cpu.empty_cache()
    s0 = tl.cpu.memory_stats()
    for _ in range(5):
        t = tl.empty(1 << 20)
        del t
    s1 = tl.cpu.memory_stats()
    assert s1["hits"] - s0["hits"] >= 4, "freed blocks of the same size must be reused"
    assert s1["cached_bytes"] >= 4 << 20
    tl.cpu.empty_cache()
    assert tl.cpu.memory_stats()["cached_bytes"] == 0


def test_cached_memory_is_not_shared_with_live_tensors():
    a = tl.ones(1000)
    ptr = a.data_ptr()
    del a
    b = tl.zeros(1000)  # may reuse the block: must be really zeroed
    c = tl.ones(1000)
    assert b.sum().item() == 0 and c.sum().item() == 1000 and b.data_ptr() != c.data_ptr()
    assert ptr in (b.data_ptr(), c.data_ptr()) or True


# ---------------------------------------------------------------- reduced precision

def test_float16_conversion_is_exact_for_every_bit_pattern():
    bits = np.arange(1 << 16, dtype=np.uint16)
    h = bits.view(np.float16)
    got = np.asarray(tl.from_numpy(h).float())
    want = h.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    # and back: float32 -> float16 rounds to nearest even like NumPy
    f = np.random.default_rng(1).standard_normal(100000).astype(np.float32) * 1000
    f = np.concatenate([f, np.array([65504, 65520, 1e-8, 6e-8, -0.0, np.inf], np.float32)])
    with np.errstate(over="ignore"):  # 65520 rounds to inf in both
        want16 = f.astype(np.float16)
    np.testing.assert_array_equal(np.asarray(tl.from_numpy(f).half()).view(np.uint16), want16.view(np.uint16))


@requires_torch
def test_bfloat16_rounding_matches_pytorch():
    import torch
    f = np.random.default_rng(2).standard_normal(100000).astype(np.float32) * 100
    got = tl.from_numpy(f).bfloat16().float()
    want = torch.from_numpy(f).bfloat16().float().numpy()
    np.testing.assert_array_equal(np.asarray(got), want)


# ---------------------------------------------------------------- C++ registration macros

def test_library_macros_registered_an_operator():
    # csrc/python/DispatchTesting.cpp defines _test_macro::twice with TL_LIBRARY and
    # its CPU kernel with TL_LIBRARY_IMPL (a kernel without a DispatchKeySet parameter).
    assert "_test_macro::twice" in tl._C._dispatch_list_ops()
    x = tl.tensor([1.0, 2.0])
    r = tl._C._VariableFunctions._dispatch_testing_call("_test_macro::twice", x)
    assert r.tolist() == [2.0, 4.0]
    assert "CPU: twice_cpu [kernel]" in tl._C._dispatch_dump_table("_test_macro::twice")


def test_set_num_threads():
    old = tl.get_num_threads()
    tl.set_num_threads(1)
    assert tl.get_num_threads() == 1
    tl.set_num_threads(old)
    with pytest.raises(ValueError):
        tl.set_num_threads(0)


# ---------------------------------------------------------------- version counter

def _delta(make, act):
    """make(T) -> (watched, target); act(T, target); returns how far watched._version moved."""
    def run(T):
        watched, target = make(T)
        v0 = watched._version
        act(T, target)
        return watched._version - v0
    return run


def _fresh(make):
    return lambda T: make(T)._version


def _plain(T):
    a = T.ones(4)
    return a, a


def _view(T):
    a = T.ones(4)
    return a, a[1:]


def _nonleaf(T):
    y = T.ones(4, requires_grad=True) * 1
    return y, y


def _no_grad(act):
    def run(T, t):
        with T.no_grad():
            act(T, t)
    return run


def _grad_version(backwards):
    def run(T):
        x = T.ones(3, requires_grad=True)
        for _ in range(backwards):
            (x * 2).sum().backward()
        return x.grad._version
    return run


def _watch_view(T):
    v = T.ones(4)[1:]
    return v, v


# PyTorch's counts: every in-place op, out= op, copy_ and setitem moves the
# version by exactly one, however its kernel is built (a composite writing
# through nested in-place ops, a factory filling a fresh tensor); a fresh
# result starts at 0.
VERSION_CASES = [
    # fresh results
    ("ones", _fresh(lambda T: T.ones(3)), 0),
    ("zeros", _fresh(lambda T: T.zeros(3)), 0),
    ("full", _fresh(lambda T: T.full((3,), 2.0)), 0),
    ("eye", _fresh(lambda T: T.eye(3)), 0),
    ("rand", _fresh(lambda T: T.rand(3)), 0),
    ("randn", _fresh(lambda T: T.randn(3)), 0),
    ("randint", _fresh(lambda T: T.randint(0, 3, (3,))), 0),
    ("bernoulli", _fresh(lambda T: T.bernoulli(T.ones(3) * 0.5)), 0),
    ("ones_like", _fresh(lambda T: T.ones_like(T.empty(2))), 0),
    ("full_like", _fresh(lambda T: T.full_like(T.empty(2), 3)), 0),
    ("randn_like", _fresh(lambda T: T.randn_like(T.empty(2))), 0),
    ("new_ones", _fresh(lambda T: T.empty(2).new_ones(3)), 0),
    ("clone", _fresh(lambda T: T.empty(2).clone()), 0),
    ("to", _fresh(lambda T: T.ones(2).to(T.float64)), 0),
    ("contiguous", _fresh(lambda T: T.ones(2, 2).t().contiguous()), 0),
    ("detach of a fresh tensor", _fresh(lambda T: T.ones(2).detach()), 0),
    ("meta ones", _fresh(lambda T: T.ones(3, device="meta")), 0),
    ("x.grad after one backward", _grad_version(1), 0),
    ("x.grad after two backwards", _grad_version(2), 1),
    # in-place ops
    ("add_", _delta(_plain, lambda T, t: t.add_(1)), 1),
    ("add_ on a view (base)", _delta(_view, lambda T, t: t.add_(1)), 1),
    ("add_ on a view (view)", _delta(_watch_view, lambda T, t: t.add_(1)), 1),
    ("add_ on a non-leaf", _delta(_nonleaf, lambda T, t: t.add_(1)), 1),
    ("add_ of a requires-grad tensor", _delta(_plain, lambda T, t: t.add_(T.ones(4, requires_grad=True))), 1),
    ("add_ under no_grad", _delta(_plain, _no_grad(lambda T, t: t.add_(1))), 1),
    ("add_ on a requires-grad leaf under no_grad",
     _delta(lambda T: (lambda x: (x, x))(T.ones(4, requires_grad=True)), _no_grad(lambda T, t: t.add_(1))), 1),
    ("+=", _delta(_plain, lambda T, t: t.__iadd__(1)), 1),
    ("mul_ on a transposed view", _delta(lambda T: (lambda a: (a, a.t()))(T.ones(2, 3)), lambda T, t: t.mul_(2)), 1),
    ("clamp_ (composite)", _delta(_view, lambda T, t: t.clamp_(0, 1)), 1),
    ("clamp_ min only", _delta(_plain, lambda T, t: t.clamp_(min=0)), 1),
    ("div_ rounding_mode (composite)", _delta(_plain, lambda T, t: t.div_(2, rounding_mode="floor")), 1),
    ("cumsum_ (composite)", _delta(_view, lambda T, t: t.cumsum_(0)), 1),
    ("copy_", _delta(_plain, lambda T, t: t.copy_(T.zeros(4))), 1),
    ("copy_ into a view", _delta(_view, lambda T, t: t.copy_(T.zeros(3))), 1),
    ("copy_ casting", _delta(_plain, lambda T, t: t.copy_(T.zeros(4, dtype=T.float64))), 1),
    ("fill_", _delta(_view, lambda T, t: t.fill_(2)), 1),
    ("fill_ 0-dim tensor", _delta(_plain, lambda T, t: t.fill_(T.tensor(2.0))), 1),
    ("uniform_", _delta(_view, lambda T, t: t.uniform_()), 1),
    ("normal_", _delta(_plain, lambda T, t: t.normal_()), 1),
    ("bernoulli_", _delta(_plain, lambda T, t: t.bernoulli_(0.5)), 1),
    ("random_ (composite)", _delta(_plain, lambda T, t: t.random_()), 1),
    ("random_(to) (composite)", _delta(_plain, lambda T, t: t.random_(5)), 1),
    ("random_(from, to)", _delta(_plain, lambda T, t: t.random_(0, 5)), 1),
    ("meta add_", _delta(lambda T: (lambda a: (a, a))(T.ones(4, device="meta")), lambda T, t: t.add_(1)), 1),
    # setitem
    ("setitem int", _delta(_plain, lambda T, t: t.__setitem__(0, 5.0)), 1),
    ("setitem slice", _delta(_plain, lambda T, t: t.__setitem__(slice(1, 3), 5.0)), 1),
    ("setitem tensor", _delta(_plain, lambda T, t: t.__setitem__(slice(0, 2), T.zeros(2))), 1),
    ("setitem ...", _delta(_plain, lambda T, t: t.__setitem__(Ellipsis, 1.0)), 1),
    ("setitem on a view", _delta(_view, lambda T, t: t.__setitem__(0, 1.0)), 1),
    ("a[1:] += 1 (an in-place op, then setitem)", _delta(_plain, lambda T, t: t.__setitem__(
        slice(1, None), t[1:].__iadd__(1))), 2),
    # out=
    ("out= pointwise", _delta(_plain, lambda T, t: T.add(T.ones(4), 1, out=t)), 1),
    ("out= pointwise into a view", _delta(_view, lambda T, t: T.mul(T.ones(3), 2, out=t)), 1),
    ("out= resized", _delta(lambda T: (lambda a: (a, a))(T.empty(0)), lambda T, t: T.add(T.ones(4), 1, out=t)), 1),
    ("out= reduction (composite)", _delta(_plain, lambda T, t: T.sum(T.ones(2, 4), 0, out=t)), 1),
    ("out= cumsum (composite)", _delta(_view, lambda T, t: T.cumsum(T.ones(3), 0, out=t)), 1),
    ("out= clamp (composite)", _delta(_plain, lambda T, t: T.clamp(T.ones(4), 0, 1, out=t)), 1),
    ("out= zeros (composite factory)", _delta(_plain, lambda T, t: T.zeros(4, out=t)), 1),
    ("out= full", _delta(_plain, lambda T, t: T.full((4,), 2.0, out=t)), 1),
    ("out= eye", _delta(lambda T: (lambda a: (a, a))(T.ones(3, 3)), lambda T, t: T.eye(3, out=t)), 1),
    ("out= arange", _delta(_plain, lambda T, t: T.arange(4, out=t)), 1),
    ("out= rand", _delta(_plain, lambda T, t: T.rand(4, out=t)), 1),
    ("out= under no_grad", _delta(_nonleaf, _no_grad(lambda T, t: T.add(T.ones(4), 1, out=t))), 1),
    ("out= two outputs (values)", _delta(lambda T: (lambda a: (a, a))(T.zeros(2)),
                                         lambda T, t: T.max(T.ones(2, 3), 1, out=(t, T.zeros(2, dtype=T.int64)))), 1),
    ("out= two outputs (indices)", _delta(lambda T: (lambda a: (a, a))(T.zeros(2, dtype=T.int64)),
                                          lambda T, t: T.max(T.ones(2, 3), 1, out=(T.zeros(2), t))), 1),
]


@pytest.mark.parametrize("name,run,expected", VERSION_CASES, ids=[c[0] for c in VERSION_CASES])
def test_version_counter(name, run, expected):
    assert run(tl) == expected


@requires_torch
def test_version_counter_table_matches_pytorch():
    import torch
    assert {name: run(torch) for name, run, _ in VERSION_CASES} == {name: e for name, _, e in VERSION_CASES}


# ---------------------------------------------------------------- NumPy and autograd

def test_numpy_of_a_tensor_requiring_grad():
    x = tl.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        x.numpy()
    assert str(info.value) == "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    a = x.numpy(force=True)  # detaches: shares memory, no graph
    assert a.tolist() == [1.0, 1.0, 1.0] and x.requires_grad
    with tl.no_grad():
        x.mul_(2)
    assert a.tolist() == [2.0, 2.0, 2.0]
    assert (x * 2).numpy(force=True).tolist() == [4.0, 4.0, 4.0]
    assert x.detach().numpy().tolist() == [2.0, 2.0, 2.0]
    assert x.tolist() == [2.0, 2.0, 2.0] and x.sum().item() == 6.0  # tolist/item need no detach
    assert tl.ones(2).numpy(force=True).tolist() == [1.0, 1.0]


@requires_torch
def test_numpy_of_a_tensor_requiring_grad_matches_pytorch():
    import torch

    def msg(mod, f):
        try:
            f(mod.ones(2, requires_grad=True))
            return "ok"
        except RuntimeError as e:
            return str(e)
    for f in (lambda t: t.numpy(), lambda t: np.asarray(t), lambda t: (t * 2).numpy(), lambda t: t.numpy(force=True)):
        assert msg(tl, f) == msg(torch, f)
