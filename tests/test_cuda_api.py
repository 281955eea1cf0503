"""torchlike.cuda and torchlike.backends.cuda without a GPU: what a CPU-only
build answers (PyTorch's CPU-build behaviour), what a CUDA build without a
driver answers, and the switches that reach the C++ core's GlobalContext.
GPU-only behaviour is at the end, skipped without a GPU."""
import collections
import inspect
import warnings

import pytest

import torchlike as tl

BUILT = tl.backends.cuda.is_built()
GPU = tl.cuda.is_available()
needs_gpu = pytest.mark.skipif(not GPU, reason="needs a CUDA GPU")
not_built_only = pytest.mark.skipif(BUILT, reason="this build has CUDA")


def _no_cuda_error():
    if BUILT:
        return pytest.raises(RuntimeError)
    return pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled")


# ---------------------------------------------------------------- no GPU

@pytest.mark.skipif(GPU, reason="a GPU is present")
@pytest.mark.parametrize("call", [
    lambda: tl.cuda.current_device(),
    lambda: tl.cuda.get_device_name(),
    lambda: tl.cuda.get_device_properties(0),
    lambda: tl.cuda.get_device_capability(),
    lambda: tl.cuda.synchronize(),
    lambda: tl.cuda.init(),
    lambda: tl.cuda.Stream(),
    lambda: tl.cuda.Event(enable_timing=True),
    lambda: tl.cuda.current_stream(),
    lambda: tl.cuda.default_stream(),
    lambda: tl.cuda.memory_summary(),
    lambda: tl.cuda.mem_get_info(),
    lambda: tl.cuda.set_per_process_memory_fraction(0.5),
    lambda: tl.cuda.get_per_process_memory_fraction(),
    lambda: tl.cuda.caching_allocator_alloc(16),
    lambda: tl.cuda.initial_seed(),
    lambda: tl.cuda.get_rng_state(),
    lambda: tl.cuda.set_sync_debug_mode("warn"),
    lambda: tl.cuda.get_sync_debug_mode(),
    lambda: tl.cuda.can_device_access_peer(0, 0),
    lambda: tl.cuda.profiler.start(),
])
def test_calls_that_need_a_device_raise(call):
    with _no_cuda_error():
        call()


@pytest.mark.skipif(GPU, reason="a GPU is present")
def test_queries_without_a_device_answer_nothing():
    assert tl.cuda.is_available() is False and tl.cuda.device_count() == 0
    assert tl.cuda.is_initialized() is False
    assert tl.cuda.memory_allocated() == 0 and tl.cuda.max_memory_allocated() == 0
    assert tl.cuda.memory_reserved() == 0 and tl.cuda.max_memory_reserved() == 0
    stats = tl.cuda.memory_stats()
    assert isinstance(stats, collections.OrderedDict) and len(stats) == 0
    assert tl.cuda.memory_stats_as_nested_dict() == {}
    assert tl.cuda.memory_snapshot() == [] and len(tl.cuda.host_memory_stats()) == 0
    assert tl.cuda.get_arch_list() == [] and tl.cuda.get_gencode_flags() == ""
    assert tl.cuda.is_bf16_supported() is False and tl.cuda.is_tf32_supported() is False
    assert tl.cuda.default_generators == () and tl.cuda.get_rng_state_all() == []
    tl.cuda.set_rng_state_all([])
    tl.cuda.empty_cache()
    tl.cuda.reset_peak_memory_stats()
    tl.cuda.reset_accumulated_memory_stats()
    tl.cuda.reset_peak_host_memory_stats()
    tl.cuda.reset_accumulated_host_memory_stats()
    tl.cuda.caching_allocator_enable(True)
    with tl.cuda.caching_allocator_disabled():
        pass
    # Seeding without a device does nothing, so seed-everything scripts run.
    tl.cuda.manual_seed(3)
    tl.cuda.manual_seed_all(3)
    tl.cuda.seed()
    tl.cuda.seed_all()
    # None as a stream or device changes nothing.
    with tl.cuda.stream(None):
        pass
    tl.cuda.set_stream(None)
    with tl.cuda.device(None):
        pass


@pytest.mark.skipif(GPU, reason="a GPU is present")
def test_deprecated_memory_names_warn_and_answer():
    with pytest.warns(FutureWarning, match="memory_reserved"):
        assert tl.cuda.memory_cached() == 0
    with pytest.warns(FutureWarning, match="max_memory_reserved"):
        assert tl.cuda.max_memory_cached() == 0
    with pytest.warns(FutureWarning, match="resets /all/ peak"):
        tl.cuda.reset_max_memory_allocated()
    with pytest.warns(FutureWarning, match="resets /all/ peak"):
        tl.cuda.reset_max_memory_cached()


@not_built_only
def test_cpu_only_build_facts():
    assert tl.version.cuda is None
    assert tl._cuda_lib.load() is None and "without CUDA" in tl._cuda_lib.load_error()
    with pytest.raises(RuntimeError, match="NVTX functions not installed"):
        tl.cuda.nvtx.range_push("x")
    with pytest.raises(RuntimeError, match="NVTX functions not installed"):
        tl.cuda.nvtx.mark("x")


@pytest.mark.skipif(not BUILT or GPU, reason="needs a CUDA build on a machine without a GPU")
def test_cuda_build_without_driver_is_quiet_and_truthful():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", "import torchlike; print(torchlike.cuda.is_available(), "
                        "torchlike.cuda.device_count(), torchlike.version.cuda is not None)"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "0", "True"]
    assert r.stderr == ""
    assert tl._C._cuda_unavailable_reason() != ""
    # NVTX is header-only: it works (as a no-op without a profiler) even with no driver.
    depth = tl.cuda.nvtx.range_push("torchlike")
    assert isinstance(depth, int)
    tl.cuda.nvtx.range_pop()
    with tl.cuda.nvtx.range("step {}", 3):
        tl.cuda.nvtx.mark("inside")


# ---------------------------------------------------------------- errors and helpers

def test_check_error_and_cuda_error():
    tl.cuda.check_error(0)
    with pytest.raises(tl.cuda.CudaError, match=r"\(2\)") as e:
        tl.cuda.check_error(2)
    assert e.value.code == 2 and isinstance(e.value, RuntimeError)
    if BUILT:
        assert "out of memory" in str(e.value)
    assert issubclass(tl.cuda.DeferredCudaCallError, Exception)
    assert tl.cuda.OutOfMemoryError is tl.OutOfMemoryError
    assert tl.cuda.has_half is True and tl.cuda.has_magma is False


def test_gencode_flags_follow_the_arch_list(monkeypatch):
    monkeypatch.setattr(tl.cuda, "get_arch_list", lambda: ["sm_80", "sm_90"])
    assert tl.cuda.get_gencode_flags() == "-gencode compute=compute_80,code=sm_80 -gencode compute=compute_90,code=sm_90"


def test_nested_memory_stats(monkeypatch):
    flat = collections.OrderedDict([("allocated_bytes.all.current", 512), ("allocated_bytes.all.peak", 1024),
                                    ("allocated_bytes.small_pool.current", 512), ("num_ooms", 0)])
    monkeypatch.setattr(tl.cuda.memory, "memory_stats", lambda device=None: flat)
    nested = tl.cuda.memory_stats_as_nested_dict()
    assert nested == {"allocated_bytes": {"all": {"current": 512, "peak": 1024}, "small_pool": {"current": 512}},
                      "num_ooms": 0}


def test_raw_allocations_through_a_device_allocator():
    # caching_allocator_alloc's C++ half is device-neutral: exercised here on the CPU allocator.
    addr = tl._C._raw_alloc("cpu", 4096, -1, 0)
    assert addr != 0
    tl._C._raw_delete(addr)
    with pytest.raises(ValueError, match="not allocated by caching_allocator_alloc"):
        tl._C._raw_delete(addr)
    tl.cuda.caching_allocator_delete(0)  # freeing null does nothing


def test_sync_debug_mode_rejects_unknown_names():
    if not GPU:
        with _no_cuda_error():
            tl.cuda.set_sync_debug_mode("loud")
    else:
        with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
            tl.cuda.set_sync_debug_mode("loud")


# ---------------------------------------------------------------- torchlike.backends.cuda

@pytest.fixture
def restore_flags():
    prec = tl.get_float32_matmul_precision()
    fp16 = tl.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
    bf16 = tl.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
    cudnn = {k: getattr(tl.backends.cudnn, k) for k in ("enabled", "benchmark", "deterministic", "allow_tf32")}
    yield
    tl.set_float32_matmul_precision(prec)
    tl.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = fp16
    tl.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = bf16
    for k, v in cudnn.items():
        setattr(tl.backends.cudnn, k, v)
    for b in ("flash", "mem_efficient", "math", "cudnn"):
        getattr(tl.backends.cuda, f"enable_{b}_sdp")(True)


def test_matmul_tf32_is_the_float32_matmul_precision(restore_flags):
    m = tl.backends.cuda.matmul
    tl.set_float32_matmul_precision("highest")
    assert m.allow_tf32 is False and tl._C._global_get("float32_matmul_precision") == 0
    tl.set_float32_matmul_precision("medium")
    assert m.allow_tf32 is True and tl._C._global_get("float32_matmul_precision") == 2
    m.allow_tf32 = False
    assert tl.get_float32_matmul_precision() == "highest"
    m.allow_tf32 = True
    assert tl.get_float32_matmul_precision() == "high" and tl._C._global_get("float32_matmul_precision") == 1
    m.allow_fp16_reduced_precision_reduction = False
    assert tl._C._global_get("allow_fp16_reduced_precision_reduction") is False
    m.allow_bf16_reduced_precision_reduction = False
    assert m.allow_bf16_reduced_precision_reduction is False
    with pytest.raises(AttributeError, match="Unknown attribute foo"):
        m.foo
    with pytest.raises(AttributeError, match="Unknown attribute foo"):
        m.foo = 1


def test_deterministic_setting_reaches_the_core():
    try:
        tl.use_deterministic_algorithms(True, warn_only=True)
        assert tl._C._global_get("deterministic") and tl._C._global_get("deterministic_warn_only")
    finally:
        tl.use_deterministic_algorithms(False)
    assert not tl._C._global_get("deterministic")


def test_cudnn_flags_are_core_flags(restore_flags):
    cudnn = tl.backends.cudnn
    cudnn.benchmark = True
    assert tl._C._global_get("cudnn_benchmark") is True and cudnn.benchmark is True
    with cudnn.flags(enabled=False, deterministic=True):
        assert tl._C._global_get("cudnn_enabled") is False and cudnn.deterministic is True
    assert cudnn.enabled is True and cudnn.deterministic is False and cudnn.benchmark is True


def test_sdp_switches_agree_with_sdpa_kernel(restore_flags):
    c = tl.backends.cuda
    from torchlike.nn.attention import SDPBackend, sdpa_kernel
    assert c.flash_sdp_enabled() and c.math_sdp_enabled() and c.mem_efficient_sdp_enabled() and c.cudnn_sdp_enabled()
    c.enable_flash_sdp(False)
    assert not c.flash_sdp_enabled() and c.math_sdp_enabled()
    c.enable_flash_sdp(True)
    with sdpa_kernel(SDPBackend.MATH):
        assert c.math_sdp_enabled() and not c.flash_sdp_enabled()
    with pytest.warns(FutureWarning, match="sdp_kernel"):
        with c.sdp_kernel(enable_flash=False, enable_mem_efficient=False, enable_cudnn=False):
            assert c.math_sdp_enabled() and not c.flash_sdp_enabled()
    assert c.flash_sdp_enabled()
    # With only MATH allowed, CPU attention still runs through it.
    q = tl.randn(1, 2, 4, 8)
    with sdpa_kernel(SDPBackend.MATH):
        out = tl.nn.functional.scaled_dot_product_attention(q, q, q)
    assert out.shape == (1, 2, 4, 8)
    assert c.fp16_bf16_reduction_math_sdp_allowed() is False
    c.allow_fp16_bf16_reduction_math_sdp(True)
    assert c.fp16_bf16_reduction_math_sdp_allowed() is True
    c.allow_fp16_bf16_reduction_math_sdp(False)
    params = c.SDPAParams(q, q, q, None, 0.0, False)
    assert c.can_use_flash_attention(params) is False and c.is_flash_attention_available() is False
    with pytest.warns(UserWarning, match="not on a CUDA device"):
        c.can_use_efficient_attention(params, debug=True)


def test_blas_preferences_and_workspaces(monkeypatch):
    c = tl.backends.cuda
    assert c.preferred_blas_library() == "cublas"
    assert c.preferred_blas_library("cublaslt") == "cublaslt"
    assert c.preferred_blas_library("default") == "cublas"
    with pytest.raises(RuntimeError, match="Unknown input value"):
        c.preferred_blas_library("mkl")
    assert c.preferred_linalg_library("cusolver") == "cusolver"
    c.preferred_linalg_library("default")
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    assert c.cublas_workspace_size() == 4096 * 1024 * 8
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8:4096:2")
    assert c.cublas_workspace_size() == 16 * 1024 * 8 + 4096 * 1024 * 2
    monkeypatch.setenv("CUBLASLT_WORKSPACE_SIZE", "1024")
    assert c.cublaslt_workspace_size() == 1024 * 1024
    assert c.cufft_plan_cache.size == 0 and c.cufft_plan_cache[0].max_size == 4096


# ---------------------------------------------------------------- PyTorch parity (signatures)

try:
    import torch as _torch
except ImportError:
    _torch = None

SIGNATURE_NAMES = [
    "current_device", "set_device", "synchronize", "get_device_name", "get_device_properties",
    "get_device_capability", "is_bf16_supported", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_stats", "memory_summary", "empty_cache", "reset_peak_memory_stats",
    "mem_get_info", "set_per_process_memory_fraction", "get_rng_state", "set_rng_state", "manual_seed",
    "manual_seed_all", "current_stream", "default_stream", "set_stream", "stream", "caching_allocator_alloc",
    "caching_allocator_delete", "caching_allocator_enable", "memory_snapshot", "set_sync_debug_mode",
    "can_device_access_peer", "check_error",
]


@pytest.mark.skipif(_torch is None, reason="PyTorch not installed")
@pytest.mark.parametrize("name", SIGNATURE_NAMES)
def test_parameter_names_and_defaults_match_pytorch(name):
    ours = inspect.signature(getattr(tl.cuda, name)).parameters
    theirs = inspect.signature(getattr(_torch.cuda, name)).parameters
    assert list(ours) == list(theirs)
    for p in ours:
        assert ours[p].default == theirs[p].default, p


@pytest.mark.skipif(_torch is None, reason="PyTorch not installed")
def test_cpu_only_answers_match_pytorch():
    if BUILT or _torch.cuda.is_available():
        pytest.skip("compares two CPU-only builds")
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "get_arch_list",
                 "is_bf16_supported", "get_gencode_flags"):
        assert getattr(tl.cuda, name)() == getattr(_torch.cuda, name)(), name
    for call in ("current_device", "get_device_name", "initial_seed"):
        with pytest.raises(AssertionError):
            getattr(_torch.cuda, call)()
        with pytest.raises(AssertionError):
            getattr(tl.cuda, call)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tl.backends.cuda.is_built() == _torch.backends.cuda.is_built()


# ---------------------------------------------------------------- with a GPU

@needs_gpu
def test_gpu_device_facts():
    n = tl.cuda.device_count()
    assert n >= 1 and 0 <= tl.cuda.current_device() < n
    p = tl.cuda.get_device_properties(0)
    assert p.total_memory > 0 and p.multi_processor_count > 0 and p.warp_size == 32
    assert tl.cuda.get_device_capability(0) == (p.major, p.minor)
    assert tl.cuda.get_device_name(0) == p.name and "_CudaDeviceProperties(name=" in repr(p)
    assert any(a.startswith("sm_") for a in tl.cuda.get_arch_list())
    free, total = tl.cuda.mem_get_info()
    assert 0 < free <= total
    assert isinstance(tl.version.cuda, str)


@needs_gpu
def test_gpu_streams_and_events():
    s = tl.cuda.Stream()
    assert s != tl.cuda.default_stream() and s.cuda_stream != 0
    start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
    with tl.cuda.stream(s):
        assert tl.cuda.current_stream() == s
        start.record()
        x = tl.ones(1 << 20, device="cuda")
        y = (x * 2).sum()
        end.record()
    assert tl.cuda.current_stream() == tl.cuda.default_stream()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) >= 0
    tl.cuda.current_stream().wait_stream(s)
    assert y.item() == 2 * (1 << 20)


@needs_gpu
def test_gpu_memory_statistics():
    tl.cuda.empty_cache()
    tl.cuda.reset_peak_memory_stats()
    before = tl.cuda.memory_allocated()
    x = tl.empty(1 << 20, device="cuda")
    assert tl.cuda.memory_allocated() - before == 4 << 20
    assert tl.cuda.max_memory_allocated() >= tl.cuda.memory_allocated()
    assert tl.cuda.memory_reserved() >= tl.cuda.memory_allocated()
    assert "allocated_bytes.all.current" in tl.cuda.memory_stats()
    assert "Allocated memory" in tl.cuda.memory_summary() or "allocated" in tl.cuda.memory_summary().lower()
    del x
    assert tl.cuda.memory_allocated() == before
    addr = tl.cuda.caching_allocator_alloc(1000)
    assert addr != 0
    tl.cuda.caching_allocator_delete(addr)
    assert tl.cuda.is_initialized()


@needs_gpu
def test_gpu_out_of_memory_is_clear():
    with pytest.raises(tl.cuda.OutOfMemoryError, match="(?i)tried to allocate"):
        tl.empty(1 << 50, dtype=tl.uint8, device="cuda")


@needs_gpu
def test_gpu_rng_state_round_trip():
    tl.cuda.manual_seed(7)
    state = tl.cuda.get_rng_state()
    a = tl.rand(8, device="cuda")
    tl.cuda.set_rng_state(state)
    b = tl.rand(8, device="cuda")
    assert tl.equal(a, b) and tl.cuda.initial_seed() == 7


def test_nondeterministic_alert_follows_the_setting():
    tl._C._global_alert_not_deterministic("index_add_cuda_")  # determinism off: nothing happens
    try:
        tl.use_deterministic_algorithms(True)
        with pytest.raises(RuntimeError, match=r"index_add_cuda_ does not have a deterministic implementation"):
            tl._C._global_alert_not_deterministic("index_add_cuda_")
        tl.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match="does not have a deterministic implementation"):
            tl._C._global_alert_not_deterministic("index_add_cuda_")
    finally:
        tl.use_deterministic_algorithms(False)
