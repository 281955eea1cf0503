"""The CUDA runtime in libtorchlike_cuda.so (csrc/c10/cuda/*.cu).

Three groups:
* always: the _C bindings behave in any build (no pinned memory without CUDA);
* CUDA library built and loaded, no usable device (a machine without a
  driver, like the CI): the library loads silently, reports zero devices and
  why, and device="cuda" raises a clear RuntimeError;
* a GPU: devices, streams, events, the caching allocator, pinned memory and
  copies, each compared against the CPU result.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlike as tl
from torchlike import _C, _cuda_lib

HAS_LIB = _cuda_lib.load() is not None and _cuda_lib.load_error() is None
HAS_GPU = HAS_LIB and tl.cuda.is_available()

needs_lib = pytest.mark.skipif(not HAS_LIB, reason=f"no CUDA library: {_cuda_lib.load_error()}")
needs_lib_no_gpu = pytest.mark.skipif(not HAS_LIB or HAS_GPU, reason="needs the CUDA library without a usable GPU")
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs a CUDA GPU")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16, tl.bfloat16, tl.float32,
          tl.float64]


# ---------------------------------------------------------------- any build

def test_status_is_consistent_with_the_library():
    st = _C._cuda_backend_status()
    assert set(st) == {"is_built", "unavailable_reason", "runtime_version", "driver_version", "arch_list"}
    assert st["is_built"] is HAS_LIB
    if not HAS_LIB:
        assert st["runtime_version"] == "" and st["arch_list"] == []
        assert "not compiled with CUDA" in st["unavailable_reason"]


def test_is_pinned_false_for_ordinary_tensors():
    x = tl.arange(6.0)
    assert x.is_pinned() is False
    assert tl.empty(0).is_pinned() is False
    assert x[2:].is_pinned() is False


def test_pin_memory_bindings_reject_bad_arguments():
    with pytest.raises(TypeError, match="expected a Tensor"):
        _C._cuda_is_pinned(3)
    with pytest.raises(TypeError, match="expected a Tensor"):
        _C._cuda_pin_memory("x")


# ---------------------------------------------------------------- library, no device

@needs_lib_no_gpu
def test_import_is_quiet_without_a_driver():
    code = "import torchlike; print(torchlike.cuda.is_available(), torchlike.cuda.device_count())"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False 0"
    assert r.stderr == ""


@needs_lib_no_gpu
def test_hooks_say_built_and_why_unavailable():
    st = _C._cuda_backend_status()
    assert st["is_built"] is True
    major, minor = st["runtime_version"].split(".")
    assert int(major) >= 11 and int(minor) >= 0
    assert st["arch_list"] and all(a.startswith("sm_") and a[3:].isdigit() for a in st["arch_list"])
    assert st["unavailable_reason"]  # driver missing, too old, or no GPU
    assert tl.cuda.is_available() is False and tl.cuda.device_count() == 0


@needs_lib_no_gpu
def test_cuda_tensors_raise_runtime_error_without_a_device():
    for make in (lambda: tl.zeros(2, device="cuda"), lambda: tl.empty(3, device="cuda:0"),
                 lambda: tl.ones(2).to("cuda"), lambda: tl.tensor([1.0], device="cuda")):
        with pytest.raises(RuntimeError, match="cuda"):
            make()


@needs_lib_no_gpu
def test_device_queries_raise_runtime_error_without_a_device():
    with pytest.raises(RuntimeError):
        tl.cuda.current_device()
    with pytest.raises(RuntimeError):
        tl.cuda.synchronize()
    with pytest.raises(RuntimeError, match="'cuda' is not available"):
        _C._cuda_stream_from_pool(False, 0)
    with pytest.raises(RuntimeError, match="'cuda' is not available"):
        _C._cuda_external_stream(0x1000, 0)
    with pytest.raises(RuntimeError):
        tl.Stream(device="cuda")
    tl.cuda.manual_seed_all(3)  # no devices: nothing to seed, no error


@needs_lib_no_gpu
def test_pinned_memory_unavailable_without_a_device():
    x = tl.ones(4)
    assert x.is_pinned() is False
    with pytest.raises(RuntimeError):
        x.pin_memory()
    stats = _C._cuda_host_memory_stats()
    assert stats["allocations.current"] == 0 and stats["num_host_alloc"] == 0
    assert {"allocated_bytes.peak", "reserved_bytes.current", "segment.allocated", "host_alloc_time.count"} <= set(stats)
    assert _C._cuda_memory_stats(0) == {}
    _C._cuda_empty_cache()
    _C._cuda_host_empty_cache()


@needs_lib_no_gpu
def test_dataloader_pin_memory_without_a_device_warns_and_does_not_pin():
    from torchlike.utils.data import DataLoader, TensorDataset
    ds = TensorDataset(tl.arange(4.0))
    with pytest.warns(UserWarning, match="no accelerator is found"):
        (batch,) = next(iter(DataLoader(ds, batch_size=2, pin_memory=True)))
    assert batch.is_pinned() is False


# ---------------------------------------------------------------- GPU

def _values(dtype, n=24, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == tl.bool:
        return tl.tensor(rng.integers(0, 2, n).astype(bool))
    if dtype.is_floating_point:
        v = rng.normal(scale=40.0, size=n)
        v[:3] = [0.0, -0.0, 1e-3]
        return tl.tensor(v, dtype=tl.float64).to(dtype)
    info = tl.iinfo(dtype)
    return tl.tensor(rng.integers(max(info.min, -1000), min(info.max, 1000), n), dtype=tl.int64).to(dtype)


def _same(a, b):
    assert a.device.type == "cpu" and b.device.type == "cpu"
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.to(tl.float64).numpy() if a.dtype in (tl.float16, tl.bfloat16) else a.numpy(),
                                  b.to(tl.float64).numpy() if b.dtype in (tl.float16, tl.bfloat16) else b.numpy())


@needs_gpu
def test_device_switching():
    n = tl.cuda.device_count()
    assert n >= 1
    assert 0 <= tl.cuda.current_device() < n
    with tl.cuda.device(n - 1):
        assert tl.cuda.current_device() == n - 1
        assert tl.empty(2, device="cuda").device.index == n - 1
    with pytest.raises(RuntimeError):
        tl.empty(1, device=f"cuda:{n}")


@needs_gpu
@pytest.mark.parametrize("src", DTYPES, ids=str)
def test_copy_roundtrip_and_casts_match_cpu(src):
    x = _values(src)
    on_gpu = x.to("cuda")
    assert on_gpu.device.type == "cuda"
    _same(on_gpu.cpu(), x)
    for dst in DTYPES:
        _same(on_gpu.to(dst).cpu(), x.to(dst))   # cast on the device
        _same(x.to("cuda", dtype=dst).cpu(), x.to(dst))  # host -> device with a cast
        _same(on_gpu.to("cpu", dtype=dst), x.to(dst))  # device -> host with a cast


@needs_gpu
def test_strided_and_broadcast_copies_match_cpu():
    x = tl.arange(60.0).reshape(3, 4, 5)
    g = x.to("cuda")
    _same(g.transpose(0, 2).contiguous().cpu(), x.transpose(0, 2).contiguous())
    _same(g.transpose(0, 2).cpu(), x.transpose(0, 2))
    _same(x.transpose(0, 2).to("cuda").cpu(), x.transpose(0, 2))
    dst = tl.zeros(5, 4, 3, device="cuda").transpose(0, 2)  # a strided destination
    dst.copy_(g)
    _same(dst.cpu(), x)
    row = tl.arange(5.0)
    b = tl.zeros(3, 4, 5, device="cuda", dtype=tl.float16)
    b.copy_(row)  # broadcast + cast, host -> device
    _same(b.cpu(), row.expand(3, 4, 5).to(tl.float16))
    host = tl.zeros(5, 4, 3).transpose(0, 2)
    host.copy_(g.to(tl.int32))  # device -> strided host
    _same(host, x.to(tl.int32))


@needs_gpu
def test_half_rounding_from_wide_types_matches_cpu():
    v = tl.tensor([1 + 2.0 ** -11 + 2.0 ** -40, 65519.99, -1e-8, 3.0e38, float("inf"), float("nan")],
                  dtype=tl.float64)
    for dst in (tl.float16, tl.bfloat16):
        got = v.to("cuda").to(dst).cpu().to(tl.float64).numpy()
        np.testing.assert_array_equal(got, v.to(dst).to(tl.float64).numpy())
    big = tl.tensor([2 ** 62 + 2 ** 40 + 1, -(2 ** 53) - 1, 2049], dtype=tl.int64)
    _same(big.to("cuda").to(tl.float16).cpu(), big.to(tl.float16))


@needs_gpu
def test_factories_fill_and_item():
    _same(tl.zeros(2, 3, device="cuda").cpu(), tl.zeros(2, 3))
    _same(tl.full((4,), 2.5, device="cuda", dtype=tl.bfloat16).cpu(), tl.full((4,), 2.5, dtype=tl.bfloat16))
    t = tl.ones(3, device="cuda", dtype=tl.int64)
    t[1:].fill_(7)
    _same(t.cpu(), tl.tensor([1, 7, 7]))
    assert tl.tensor(3.5, device="cuda").item() == 3.5


@needs_gpu
def test_pinned_memory_and_non_blocking_copies():
    x = tl.arange(1000.0)
    p = x.pin_memory()
    assert p.is_pinned() and not x.is_pinned() and p.pin_memory() is p
    _same(p, x)
    g = p.to("cuda", non_blocking=True)
    back = tl.empty(1000).pin_memory()
    back.copy_(g, non_blocking=True)
    tl.cuda.synchronize()
    _same(back, x)
    before = _C._cuda_host_memory_stats()
    del p, back
    q = tl.zeros(1000).pin_memory()  # the same size class: served from the cache once the copies are done
    tl.cuda.synchronize()
    after = _C._cuda_host_memory_stats()
    assert q.is_pinned()
    assert after["num_host_alloc"] <= before["num_host_alloc"] + 1
    assert after["allocations.current"] <= before["allocations.current"]


@needs_gpu
def test_dataloader_pins_batches():
    from torchlike.utils.data import DataLoader, TensorDataset
    ds = TensorDataset(tl.arange(8.0), tl.arange(8))
    xb, yb = next(iter(DataLoader(ds, batch_size=4, pin_memory=True)))
    assert xb.is_pinned() and yb.is_pinned()
    _same(xb, tl.arange(4.0))


@needs_gpu
def test_streams_and_events():
    dt = tl.Stream(device="cuda").device_type
    idx, sid = _C._cuda_stream_from_pool(False, -1)
    assert sid != 0
    side = tl.Stream(stream_id=sid, device_type=dt, device_index=idx)
    idx_h, sid_h = _C._cuda_stream_from_pool(True, idx)
    least, greatest = _C._cuda_stream_priority_range()
    assert _C._cuda_stream_priority(idx_h, sid_h) == greatest
    assert _C._cuda_stream_priority(idx, sid) == least
    assert _C._cuda_stream_handle(idx, 0) == 0 and _C._cuda_stream_handle(idx, sid) != 0
    ext_idx, ext_id = _C._cuda_external_stream(_C._cuda_stream_handle(idx, sid), idx)
    assert _C._cuda_stream_handle(ext_idx, ext_id) == _C._cuda_stream_handle(idx, sid)

    x = tl.arange(1 << 20, dtype=tl.float32, device="cuda")
    start = tl.Event(device="cuda", enable_timing=True)
    end = tl.Event(device="cuda", enable_timing=True)
    prev = tl.Stream(device="cuda")
    _C._set_stream(side)
    try:
        assert tl.Stream(device="cuda").stream_id == sid
        start.record()
        y = x.to(tl.float64)  # runs on the side stream
        end.record()
    finally:
        _C._set_stream(prev)
    end.synchronize()
    assert end.query() and side.query()
    assert start.elapsed_time(end) >= 0.0
    tl.Stream(device="cuda").wait_stream(side)
    _same(y.cpu(), tl.arange(1 << 20, dtype=tl.float64))


@needs_gpu
def test_caching_allocator_reuses_blocks_and_reports_oom():
    dev = tl.cuda.current_device()
    a = tl.empty(1 << 20, dtype=tl.uint8, device="cuda")
    s1 = _C._cuda_memory_stats(dev)
    assert s1["allocated_bytes.all.current"] >= 1 << 20
    del a
    b = tl.empty(1 << 20, dtype=tl.uint8, device="cuda")
    s2 = _C._cuda_memory_stats(dev)
    assert s2["segment.all.current"] == s1["segment.all.current"]  # the freed block came back
    assert s2["num_device_alloc"] == s1["num_device_alloc"]
    del b
    _C._cuda_empty_cache()
    with pytest.raises(tl.cuda.OutOfMemoryError, match="CUDA out of memory"):
        tl.empty(1 << 50, dtype=tl.uint8, device="cuda")
    assert issubclass(tl.cuda.OutOfMemoryError, RuntimeError)


@needs_gpu
def test_cuda_generators_are_per_device_philox():
    tl.cuda.manual_seed_all(123)
    g = _C._default_generator(_C.device("cuda", 0))
    assert g.initial_seed() == 123
