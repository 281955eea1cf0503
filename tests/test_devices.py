"""Devices as a first-class model (issue 9 §2): device normalisation, the
DeviceGuard registry, Stream/Event, the allocator and copy registries, one
generator per device, and 0-dim CPU tensors in a loop on another device.

There is no GPU here, so most accelerator paths run against a fake
PrivateUse1 backend whose "devices" are host memory, installed through the
same public registries a real backend uses (csrc/python/DeviceTesting.cpp)."""
import pickle
import threading
import time

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C, _cuda_lib
from conftest import HAS_TORCH, requires_torch

if HAS_TORCH:
    import torch


@pytest.fixture
def fake():
    """A fake 'privateuseone' backend with 3 devices; removed afterwards."""
    _C._device_testing_install_fake_privateuse1(3)
    _C._device_testing_log()
    try:
        yield
    finally:
        _C._device_testing_uninstall_fake_privateuse1()
        _C._device_testing_log()


def fake_empty(n, device="privateuseone"):
    return _C._device_testing_empty(n, device)


# ------------------------------------------------------------------ torchlike.device

def test_device_index_normalisation_of_device_objects():
    assert tl.device("cuda").index is None and tl.device("cuda").type == "cuda"
    assert tl.device("cuda:1").index == 1
    assert tl.device("cpu").index is None
    assert tl.device("cpu", 0).index == 0  # kept, as PyTorch keeps it
    assert tl.device("cpu", 0) != tl.device("cpu")
    assert tl.device("cuda", 3) == tl.device("cuda:3")
    assert hash(tl.device("cuda", 3)) == hash(tl.device("cuda:3"))
    assert len({tl.device("cpu"), tl.device("cpu", 0), tl.device("cuda"), tl.device("cuda:0")}) == 4
    assert str(tl.device("cuda:2")) == "cuda:2" and repr(tl.device("cuda:2")) == "device(type='cuda', index=2)"
    assert str(tl.device("meta")) == "meta" and repr(tl.device("meta")) == "device(type='meta')"
    assert tl.device(tl.device("cuda:1")) == tl.device("cuda:1")
    assert tl.device(type="cuda", index=2).index == 2
    assert (tl.device("cpu") == "cpu") is False  # no str comparison, as in PyTorch
    for d in (tl.device("cpu"), tl.device("cuda:1"), tl.device("cpu", 0)):
        assert pickle.loads(pickle.dumps(d)) == d


BAD_STRINGS = ["cuda:-1", "cud", "cpu:0:1", "cuda:01", "cuda: 1", " cuda", "cuda:", "CUDA", "cuda:+1", "cuda:0x1",
               "cuda:1e", "", ":0", "cuda:1000"]


@pytest.mark.parametrize("spec", BAD_STRINGS)
def test_device_rejects_bad_strings(spec):
    with pytest.raises(RuntimeError, match="Invalid device string|Expected one of cpu, cuda"):
        tl.device(spec)


def test_device_bad_arguments():
    with pytest.raises(RuntimeError, match="must not include an index"):
        tl.device("cuda:1", 1)
    with pytest.raises(RuntimeError, match="must not be negative"):
        tl.device("cuda", -1)
    with pytest.raises(TypeError, match="must be int"):
        tl.device("cuda", 1.0)
    with pytest.raises(TypeError, match="must be int"):
        tl.device("cpu", True)
    with pytest.raises(TypeError):
        tl.device(None)
    # A bare integer is an index on the current accelerator; there is none.
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        tl.device(1)


GOOD_SPECS = ["cpu", "cpu:0", "cpu:1", "cuda", "cuda:0", "cuda:7", "meta", "meta:0", "privateuseone:2"]


@requires_torch
@pytest.mark.parametrize("spec", GOOD_SPECS + BAD_STRINGS[:-1])  # PyTorch wraps "cuda:1000" around int8
def test_device_parsing_matches_pytorch(spec):
    try:
        want = torch.device(spec)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            tl.device(spec)
        return
    got = tl.device(spec)
    assert (got.type, got.index, str(got)) == (want.type, want.index, str(want))
    assert repr(got) == repr(want)


@requires_torch
@pytest.mark.parametrize("args", [("cpu", 0), ("cpu", 1), ("cuda", 3), ("meta", 0)])
def test_device_with_index_matches_pytorch(args):
    got, want = tl.device(*args), torch.device(*args)
    assert (got.type, got.index, str(got), repr(got)) == (want.type, want.index, str(want), repr(want))
    assert (got == tl.device(args[0])) == (want == torch.device(args[0]))


@requires_torch
@pytest.mark.parametrize("spec", ["cpu:0", "cpu:1", "meta:0", "meta:3"])
def test_unindexed_tensor_devices_drop_the_index_like_pytorch(spec):
    t = tl.ones(2, device=spec)
    assert t.device == tl.device(spec.split(":")[0]) and t.device.index is None
    assert str(t.device) == str(torch.ones(2, device=spec).device)
    assert tl.empty(3, device=spec).device.index is None


# ------------------------------------------------------------------ DeviceGuard registry

def test_cuda_reports_no_device_truthfully():
    assert tl.cuda.is_available() is False
    assert tl.cuda.device_count() == 0
    assert tl.cuda.is_initialized() is False
    # PyTorch's two answers: a build without CUDA fails its assertion; a CUDA
    # build on a machine without a driver or GPU raises RuntimeError saying why.
    if tl.backends.cuda.is_built():
        no_cuda = pytest.raises(RuntimeError)
    else:
        no_cuda = pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled")
    with no_cuda:
        tl.cuda.current_device()
    with no_cuda:
        tl.cuda.synchronize()
    with no_cuda:
        tl.cuda.set_device(0)
    tl.cuda.set_device(-1)  # a negative index changes nothing, as in PyTorch
    with tl.cuda.device(None):
        pass
    tl.cuda.manual_seed(1)  # seeding without a device is a no-op, as in PyTorch
    tl.cuda.manual_seed_all(1)
    tl.cuda.seed_all()
    # Factories on CUDA fail cleanly (no kernel, or no backend to make the tensor on).
    with pytest.raises(RuntimeError, match="(?i)cuda"):
        tl.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match="(?i)cuda"):
        tl.empty(2, device="cuda:0")


def test_cpu_device_api():
    assert tl.cpu.is_available() and tl.cpu.device_count() == 1 and tl.cpu.current_device() == "cpu"
    assert tl.cpu.synchronize() is None
    assert _C._device_count("cpu") == 1 and _C._current_device("cpu") == -1  # PyTorch: CPU's index is -1
    assert _C._device_count("meta") == 1
    assert _C._device_count("privateuseone") == 0


def test_fake_backend_counts_and_current_device(fake):
    assert _C._device_count("privateuseone") == 3 and _C._has_device_backend("privateuseone")
    assert _C._current_device("privateuseone") == 0
    _C._set_device(tl.device("privateuseone", 2))
    assert _C._current_device("privateuseone") == 2
    with pytest.raises(RuntimeError, match="Invalid device index privateuseone:5"):
        _C._set_device(tl.device("privateuseone", 5))
    assert _C._current_device("privateuseone") == 2
    # A bare integer device is an index on the (now present) accelerator.
    assert tl.device(1) == tl.device("privateuseone", 1)


def test_device_guard_sets_and_restores(fake):
    assert _C._device_testing_guard("privateuseone:1") == (0, 1, 0)
    assert _C._device_testing_log() == ["set_device:1", "set_device:0"]
    _C._set_device(tl.device("privateuseone", 2))
    assert _C._device_testing_guard("privateuseone:0") == (2, 0, 2)
    assert _C._device_testing_guard("privateuseone") == (2, 2, 2)  # index-less: the current one, no switch
    assert _C._device_testing_log() == ["set_device:2", "set_device:0", "set_device:2"]
    assert _C._device_testing_guard("cpu") == (-1, -1, -1)
    with pytest.raises(RuntimeError, match="'cuda' is not available"):
        _C._device_testing_guard("cuda:0")
    # The registry forgets the backend when it is removed.
    _C._device_testing_uninstall_fake_privateuse1()
    assert _C._device_count("privateuseone") == 0
    with pytest.raises(RuntimeError, match="'privateuseone' is not available"):
        _C._device_testing_guard("privateuseone:1")


def test_registries_tolerate_registration_during_calls(fake):
    # One thread re-registers the guard, allocator and copy kernel while two
    # others look them up and allocate/copy (C++ threads, GIL released).
    assert _C._device_testing_registry_race(20000) >= 200


def test_current_device_is_per_thread_in_the_fake_backend(fake):
    # The interface leaves "current" to the backend; PyTorch's is per thread.
    seen = []
    t = threading.Thread(target=lambda: (_C._set_device(tl.device("privateuseone", 2)),
                                         seen.append(_C._current_device("privateuseone"))))
    t.start()
    t.join()
    assert seen == [2] and _C._current_device("privateuseone") == 0


# ------------------------------------------------------------------ tensors on indexed devices, allocator

def test_tensors_on_indexed_devices_always_carry_an_index(fake):
    t = fake_empty(4)
    assert t.device == tl.device("privateuseone", 0) and t.device.index == 0
    _C._set_device(tl.device("privateuseone", 2))
    t2 = fake_empty(4, "privateuseone")
    assert t2.device.index == 2 and str(t2.device) == "privateuseone:2"
    t1 = fake_empty(4, "privateuseone:1")
    assert t1.device.index == 1
    log = _C._device_testing_log()
    assert [e for e in log if e.startswith("allocate")] == ["allocate:0:stream0", "allocate:2:stream0",
                                                            "allocate:1:stream0"]
    with pytest.raises(RuntimeError, match="Invalid device index privateuseone:3"):
        fake_empty(1, "privateuseone:3")
    # Views and results keep the index.
    assert t1[1:].device == tl.device("privateuseone", 1)


def test_cpu_allocator_still_caches():
    tl.cpu.empty_cache()
    before = tl.cpu.memory_stats()
    a = tl.empty(1000)
    del a
    b = tl.empty(1000)
    after = tl.cpu.memory_stats()
    assert after["hits"] >= before["hits"] + 1
    del b


# ------------------------------------------------------------------ copy registry

def to_numpy(t):
    return t.to("cpu").numpy()


def test_copies_cross_devices_through_the_registry(fake):
    x = fake_empty(4, "privateuseone:1")
    v = x._version
    x.copy_(tl.arange(4.0))
    assert x._version == v + 1
    np.testing.assert_array_equal(to_numpy(x), [0, 1, 2, 3])
    log = _C._device_testing_log()
    assert "copy:cpu->privateuseone:1" in log and "copy:privateuseone:1->cpu" in log
    # Broadcasting and dtype conversion: the kernel gets equal sizes.
    x.copy_(tl.tensor(5))
    np.testing.assert_array_equal(to_numpy(x), [5, 5, 5, 5])
    x.copy_(tl.tensor([[7], [8]])[1])
    np.testing.assert_array_equal(to_numpy(x), [8, 8, 8, 8])
    # Between two devices of the backend.
    x.copy_(tl.tensor([1.5, -2.0, 3.25, 4.0]))
    y = x.to("privateuseone:0")
    assert y.device == tl.device("privateuseone", 0)
    assert "copy:privateuseone:1->privateuseone:0" in _C._device_testing_log()
    np.testing.assert_array_equal(to_numpy(y), [1.5, -2.0, 3.25, 4.0])
    np.testing.assert_array_equal(to_numpy(x.to(tl.float64)), [1.5, -2.0, 3.25, 4.0])
    # Non-blocking reaches the kernel.
    x.copy_(tl.zeros(4), non_blocking=True)
    assert "copy:cpu->privateuseone:1:non_blocking" in _C._device_testing_log()
    with pytest.raises(RuntimeError, match="must match the size"):
        x.copy_(tl.zeros(3))
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        x.copy_(tl.zeros(2, 4))


def test_missing_copy_pair_raises(fake):
    x = fake_empty(2, "privateuseone:0")
    x.copy_(tl.ones(2))
    _C._device_testing_unregister_copy("privateuseone", "cpu")
    with pytest.raises(RuntimeError, match=r"copy from privateuseone:0 to cpu is not supported"):
        x.to("cpu")
    with pytest.raises(RuntimeError, match=r"copy from privateuseone:0 to cpu is not supported"):
        tl.zeros(2).copy_(x)


def test_meta_copies_keep_their_behaviour(fake):
    m = tl.ones(3, device="meta")
    assert m.copy_(tl.arange(3.0)).device == tl.device("meta")
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        tl.zeros(3).copy_(m)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        fake_empty(3).copy_(m)
    with pytest.raises(RuntimeError, match="must match the size"):
        m.copy_(tl.zeros(4))
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        m.copy_(tl.zeros(2, 3))


@requires_torch
def test_meta_copy_matches_pytorch():
    assert tuple(torch.ones(3, device="meta").copy_(torch.ones(3)).shape) == (3,)
    with pytest.raises(NotImplementedError):
        torch.ones(3).copy_(torch.ones(3, device="meta"))


# ------------------------------------------------------------------ generators

def test_cpu_default_generator_is_the_devices_generator():
    g = _C._default_generator(tl.device("cpu"))
    g0 = _C._default_generator("cpu:0")
    tl.default_generator.manual_seed(1234)
    assert g.initial_seed() == 1234 and g0.initial_seed() == 1234
    g.manual_seed(99)
    assert tl.initial_seed() == 99
    assert g.device == tl.device("cpu")


def test_generator_construction_per_device():
    assert tl.Generator(device="cpu:0").device == tl.device("cpu")
    assert tl.Generator().device == tl.device("cpu")
    with pytest.raises(RuntimeError, match="'meta' has no random number generator"):
        tl.Generator(device="meta")
    with pytest.raises(RuntimeError, match="'cuda' (is not available|has no random number generator)"):
        tl.Generator(device="cuda")
    with pytest.raises(RuntimeError, match="has no random number generator"):
        _C._default_generator("meta")


def test_manual_seed_seeds_every_device(fake):
    gens = [_C._default_generator(f"privateuseone:{i}") for i in range(3)]
    assert [g.device for g in gens] == [tl.device("privateuseone", i) for i in range(3)]
    for i, g in enumerate(gens):
        g.manual_seed(10 + i)
    # One generator per device, and the same one on every lookup.
    assert [_C._default_generator(f"privateuseone:{i}").initial_seed() for i in range(3)] == [10, 11, 12]
    _C._set_device(tl.device("privateuseone", 2))
    assert _C._default_generator("privateuseone").initial_seed() == 12  # index-less: the current device
    assert tl.manual_seed(4242) is tl.default_generator
    assert [g.initial_seed() for g in gens] == [4242] * 3
    assert tl.default_generator.initial_seed() == 4242
    g = tl.Generator(device="privateuseone:1")
    assert g.device == tl.device("privateuseone", 1)
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'privateuseone'"):
        tl.rand(3, generator=g)


def test_manual_seed_reproduces_cpu_streams():
    tl.manual_seed(7)
    a = tl.rand(5)
    tl.manual_seed(7)
    b = tl.rand(5)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    s = tl.seed()
    assert tl.initial_seed() == s


# ------------------------------------------------------------------ Stream and Event

def test_cpu_stream_is_a_no_op():
    s = tl.Stream(device="cpu")
    assert s.query() is True and s.synchronize() is None
    assert (s.device, s.device_index, s.device_type, s.stream_id) == (tl.device("cpu"), -1, 0, 0)
    assert s == tl.Stream() and hash(s) == hash(tl.Stream("cpu"))
    assert repr(s) == "torchlike.Stream device_type=cpu, device_index=-1, stream_id=0"
    assert s.wait_stream(s) is None
    e = s.record_event()
    assert isinstance(e, tl.Event) and e.query()
    assert s.wait_event(e) is None
    assert tl.cpu.current_stream() == s
    assert tl.Stream(device="meta").device == tl.device("meta")
    with pytest.raises(RuntimeError, match="'cuda' is not available"):
        tl.Stream(device="cuda")


@requires_torch
def test_cpu_stream_matches_pytorch():
    s, ts = tl.Stream(device="cpu"), torch.Stream(device="cpu")
    assert (s.device_index, s.device_type, s.stream_id, s.query()) == (ts.device_index, ts.device_type,
                                                                         ts.stream_id, ts.query())
    assert repr(s).replace("torchlike", "torch") == repr(ts)


def test_cpu_event_is_complete_once_recorded():
    e = tl.Event()
    assert e.query() is True and e.device == tl.device("cpu")
    e.record()
    assert e.query() is True and e.synchronize() is None and e.wait() is None
    with pytest.raises(ValueError, match="enable_timing=True"):
        e.elapsed_time(tl.Event())
    a, b = tl.Event(enable_timing=True), tl.Event(enable_timing=True)
    with pytest.raises(RuntimeError, match="must be recorded"):
        a.elapsed_time(b)
    a.record()
    time.sleep(0.03)
    b.record(tl.Stream("cpu"))
    ms = a.elapsed_time(b)
    assert 25.0 <= ms < 5000.0  # real host time between the two records
    if _cuda_lib.load() is None:  # a registered CUDA backend makes its events lazily, as PyTorch does
        with pytest.raises(RuntimeError, match="'cuda' is not available"):
            tl.Event(device="cuda")


def test_streams_and_events_on_an_indexed_backend(fake):
    s = tl.Stream(device="privateuseone:1")
    assert (s.device, s.stream_id) == (tl.device("privateuseone", 1), 0)
    assert _C._device_testing_stream_guard("privateuseone:1", 7) == (0, 7, 0)
    e = tl.Event(device="privateuseone")
    e.record(s)
    assert e.device == tl.device("privateuseone", 1)
    assert "record_event:1" in _C._device_testing_log()
    with pytest.raises(RuntimeError, match="does not match recording stream's device index"):
        e.record(tl.Stream(device="privateuseone:2"))
    with pytest.raises(RuntimeError, match="does not match recording stream's device type"):
        e.record(tl.Stream(device="cpu"))
    s.synchronize()
    assert _C._device_testing_log() == ["synchronize_stream:0"]
    _C._synchronize(tl.device("privateuseone", 2))
    assert _C._device_testing_log() == ["synchronize:2"]


# ------------------------------------------------------------------ 0-dim CPU tensors with another device

def test_zero_dim_cpu_tensor_joins_a_meta_loop():
    r = tl.ones(3, device="meta") + tl.tensor(2.0)
    assert r.device == tl.device("meta") and tuple(r.shape) == (3,) and r.dtype == tl.float32
    r = tl.tensor(2.0) + tl.ones(3, device="meta")
    assert r.device == tl.device("meta") and tuple(r.shape) == (3,)
    m = tl.ones(3, device="meta")
    assert m.add_(tl.tensor(2.0)) is m
    assert tl.where(tl.ones(3, device="meta") > 0, tl.tensor(1.0), tl.tensor(2.0)).device == tl.device("meta")
    # 0-dim tensors don't raise a category's dtype; they do lift int to float.
    assert (tl.ones(3, device="meta", dtype=tl.float16) * tl.tensor(2, dtype=tl.float64)).dtype == tl.float16
    assert (tl.ones(3, device="meta", dtype=tl.int32) * tl.tensor(2.5)).dtype == tl.float32


def test_cpu_tensor_with_dims_does_not_join_another_device():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        tl.ones(3, device="meta") + tl.ones(3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        tl.ones(3) + tl.ones(3, device="meta")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        tl.ones((), device="meta") + tl.ones(3)  # only a CPU 0-dim tensor is a scalar
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        tl.add(tl.ones(3, device="meta"), tl.tensor(2.0), out=tl.empty(3))  # outputs are never scalars


@requires_torch
def test_zero_dim_cpu_rule_matches_pytorch_on_meta():
    for a, b in [(lambda m: m.ones(3, device="meta"), lambda m: m.tensor(2.0)),
                 (lambda m: m.tensor(2.0), lambda m: m.ones(3, device="meta"))]:
        r, w = a(tl) + b(tl), a(torch) + b(torch)
        assert (str(r.device), tuple(r.shape), str(r.dtype).split(".")[-1]) == \
               (str(w.device), tuple(w.shape), str(w.dtype).split(".")[-1])
    with pytest.raises(RuntimeError):
        torch.ones(3, device="meta") + torch.ones(3)


def test_zero_dim_cpu_tensor_is_read_as_a_scalar_on_an_indexed_device(fake):
    x = fake_empty(3, "privateuseone:2")
    dev, flags, value, out = _C._device_testing_iter(x, tl.tensor(2.5))
    assert dev == tl.device("privateuseone", 2) and flags == [False, True] and value == 2.5
    assert out.device == tl.device("privateuseone", 2) and tuple(out.shape) == (3,)
    # Converted to the loop's dtype in host memory: int 3 is read as 3.0.
    dev, flags, value, _ = _C._device_testing_iter(tl.tensor(3), x)
    assert flags == [True, False] and value == 3.0
    # No host-to-device copy was made for the scalar.
    assert not any(e.startswith("copy:") for e in _C._device_testing_log())
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        _C._device_testing_iter(x, tl.ones(3))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        _C._device_testing_iter(x, fake_empty(3, "privateuseone:0"))
    # On CPU nothing is a "CPU scalar": the loop reads every operand in place.
    _, flags, value, _ = _C._device_testing_iter(tl.ones(3), tl.tensor(2.5))
    assert flags == [False, False] and value is None
