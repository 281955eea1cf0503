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
