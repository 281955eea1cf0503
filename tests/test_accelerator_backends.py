"""torchlike.accelerator, torchlike.backends.{cpu,cudnn,mps} and
torchlike.nn.attention: truthful answers on a CPU-only build, real behaviour
with a (fake) accelerator backend, PyTorch parity where installed."""
import pytest

import torchlike as tl
from torchlike import _C

try:
    import torch
except ImportError:
    torch = None


@pytest.fixture
def fake():
    _C._device_testing_install_fake_privateuse1(3)
    try:
        yield
    finally:
        _C._device_testing_uninstall_fake_privateuse1()


def test_cpu_only_build_has_no_accelerator():
    A = tl.accelerator
    assert A.is_available() is False
    assert A.current_accelerator() is None
    assert A.device_count() == 0
    # the tutorial line runs
    device = A.current_accelerator().type if A.is_available() else "cpu"
    assert tl.ones(2, device=device).device.type == "cpu"


@pytest.mark.parametrize("call", [
    lambda A: A.current_device_index(), lambda A: A.current_device_idx(), lambda A: A.current_stream(),
    lambda A: A.synchronize(), lambda A: A.empty_cache(), lambda A: A.empty_host_cache(),
    lambda A: A.set_device_index(0), lambda A: A.set_device_idx(0), lambda A: A.memory_allocated(),
    lambda A: A.max_memory_allocated(), lambda A: A.memory_reserved(), lambda A: A.max_memory_reserved(),
    lambda A: A.memory_stats(), lambda A: A.reset_peak_memory_stats(), lambda A: A.get_memory_info(),
    lambda A: A.reset_accumulated_memory_stats(), lambda A: A.get_device_capability(), lambda A: A.Graph(),
    lambda A: A.device_index(0).__enter__(),
])
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_calls_needing_a_device_raise_without_one(call):
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        call(tl.accelerator)
    if torch is not None:
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
            call(torch.accelerator)


def test_deprecated_idx_names_warn(fake):
    with pytest.warns(FutureWarning, match="Use `current_device_index` instead"):
        assert tl.accelerator.current_device_idx() == 0
    with pytest.warns(FutureWarning, match="Use `set_device_index` instead"):
        tl.accelerator.set_device_idx(1)
    assert tl.accelerator.current_device_index() == 1


def test_device_index_none_is_a_no_op_without_a_device():
    with tl.accelerator.device_index(None):
        pass


def test_fake_accelerator_devices_and_streams(fake):
    A = tl.accelerator
    assert A.is_available() and A.device_count() == 3
    assert A.current_accelerator() == tl.device("privateuseone")
    assert A.current_device_index() == 0
    A.set_device_index(2)
    assert A.current_device_index() == 2
    with A.device_index(1):
        assert A.current_device_index() == 1
    assert A.current_device_index() == 2
    A.set_device_index(-1)  # negative: nothing changes
    assert A.current_device_index() == 2
    A.set_device_index("privateuseone:0")
    assert A.current_device_index() == 0
    s = A.current_stream(1)
    assert s.device == tl.device("privateuseone", 1)
    A.set_stream(s)
    assert A.current_device_index() == 1
    A.synchronize()
    A.synchronize(0)
    with pytest.raises(ValueError, match="Invalid device index 7"):
        A.set_device_index(7)
    with pytest.raises(ValueError, match="doesn't match the current accelerator"):
        A.synchronize("cpu")
    with pytest.raises(TypeError, match="expected a torchlike.Stream"):
        A.set_stream(3)
    with pytest.raises(RuntimeError, match="does not report memory"):
        A.memory_allocated()


def test_backends_flags_and_availability():
    c = tl.backends.cudnn
    assert (c.enabled, c.benchmark, c.deterministic, c.allow_tf32) == (True, False, False, True)
    assert c.is_available() is False and c.version() is None
    assert c.is_acceptable(tl.ones(2)) is False
    with c.flags(enabled=False, benchmark=True, deterministic=True):
        assert (c.enabled, c.benchmark, c.deterministic) == (False, True, True)
        assert (c.benchmark_limit, c.fp32_precision, c.depthwise_kernel) == (10, "none", "auto")
    assert (c.enabled, c.benchmark, c.deterministic) == (True, False, False)
    prev = c.set_flags(_benchmark_limit=3)
    try:
        assert c.benchmark_limit == 3 and prev[2] == 10
    finally:
        c.set_flags(*prev)
    assert c.benchmark_limit == 10
    c.benchmark = True
    try:
        assert tl.backends.cudnn.benchmark is True
    finally:
        c.benchmark = False
    assert tl.backends.mps.is_available() is False and tl.backends.mps.is_built() is False
    assert tl.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    if torch is not None:
        assert tl.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()
        tc = torch.backends.cudnn
        assert (c.enabled, c.benchmark, c.deterministic, c.allow_tf32) == \
            (tc.enabled, tc.benchmark, tc.deterministic, tc.allow_tf32)


def test_sdpa_kernel_selects_and_restores():
    from torchlike.nn.attention import SDPBackend, sdpa_kernel, _enabled_backends
    assert [int(b) for b in SDPBackend] == [-1, 0, 1, 2, 3, 4]
    assert SDPBackend.MATH in _enabled_backends()
    with sdpa_kernel(SDPBackend.MATH):
        assert _enabled_backends() == (SDPBackend.MATH,)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
            assert _enabled_backends() == (SDPBackend.MATH, SDPBackend.FLASH_ATTENTION)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True):
            assert _enabled_backends() == (SDPBackend.FLASH_ATTENTION, SDPBackend.MATH)
        assert _enabled_backends() == (SDPBackend.MATH,)
    assert len(_enabled_backends()) == 5
    from torchlike.nn.attention import WARN_FOR_UNFUSED_KERNELS
    assert WARN_FOR_UNFUSED_KERNELS is False
    with pytest.raises(AssertionError, match="SDPBackend"):
        with sdpa_kernel(["MATH"]):
            pass
    if torch is not None:
        assert {b.name: int(b) for b in SDPBackend} == \
            {k: int(v) for k, v in torch.nn.attention.SDPBackend.__members__.items()}


def test_flash_attention_impl_registry():
    import torchlike.nn.attention as A
    assert A.current_flash_attention_impl() is None
    events = []

    class Handle:
        def remove(self):
            events.append("removed")

    A.register_flash_attention_impl("Mine", register_fn=lambda: events.append("installed") or Handle())
    try:
        assert "Mine" in A.list_flash_attention_impls()
        A.activate_flash_attention_impl("Mine")
        assert A.current_flash_attention_impl() == "Mine" and events == ["installed"]
        A.restore_flash_attention_impl()
        assert A.current_flash_attention_impl() is None and events == ["installed", "removed"]
        with pytest.raises(ValueError, match="Unknown flash attention impl 'Nope'"):
            A.activate_flash_attention_impl("Nope")
        with pytest.raises(TypeError):
            A.register_flash_attention_impl("Bad", register_fn=3)
    finally:
        A._FLASH_ATTENTION_IMPLS.pop("Mine", None)
