"""torchlike.cuda: CUDA devices, streams, events, memory and random state.

Every answer comes from the CUDA backend registered in the C++ core: the
CUDA DeviceGuard (devices, streams, events) and c10::cuda::CUDAHooks
(properties, allocator, pinned memory), which libtorchlike_cuda.so installs
when this build has it (torchlike/_cuda_lib.py). Three situations:

* built without CUDA: is_available() is False and device_count() 0; calls
  that need a device raise AssertionError("Torch not compiled with CUDA
  enabled"), as a CPU-only PyTorch does;
* built with CUDA but no driver or no GPU: is_available() is False, quietly;
  calls that need a device raise RuntimeError saying why;
* a GPU: everything works.

Seeding without a device is a no-op, as in PyTorch, so scripts that seed
everything run unchanged on CPU-only machines.
"""
import contextlib
import ctypes

from torchlike import _C
from torchlike import _cuda_lib
from torchlike._legacy_api import OutOfMemoryError  # noqa: F401  (torch.cuda.OutOfMemoryError is torch.OutOfMemoryError)

__all__ = [
    "is_available", "device_count", "current_device", "set_device", "synchronize", "device", "device_of",
    "init", "is_initialized", "get_device_name", "get_device_properties", "get_device_capability",
    "get_arch_list", "get_gencode_flags", "is_bf16_supported", "is_tf32_supported", "has_half", "has_magma",
    "can_device_access_peer", "CudaError", "DeferredCudaCallError", "check_error", "OutOfMemoryError",
    "Stream", "ExternalStream", "Event", "StreamContext", "stream", "current_stream", "default_stream",
    "set_stream", "get_sync_debug_mode", "set_sync_debug_mode", "default_generators",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "get_rng_state_all",
    "set_rng_state", "set_rng_state_all",
]

has_half = True   # float16 tensors and kernels exist on CUDA
has_magma = False  # linear algebra on CUDA does not use MAGMA

_state = {"initialized": False}


class CudaError(RuntimeError):
    """A CUDA runtime error code (check_error raises it)."""

    def __init__(self, code):
        self.code = int(code)
        super().__init__(f"{_error_string(self.code)} ({self.code})")


class DeferredCudaCallError(Exception):
    """A call queued before CUDA initialised failed when it ran."""


def _error_string(code):
    lib = _cuda_lib.load()
    if lib is None:
        return "CUDA error"
    lib.tl_cuda_error_string.restype = ctypes.c_char_p
    lib.tl_cuda_error_string.argtypes = [ctypes.c_int]
    return lib.tl_cuda_error_string(int(code)).decode("utf-8", "replace")


def check_error(res):
    """Raises CudaError for a nonzero CUDA runtime result code."""
    if int(res) != 0:
        raise CudaError(res)


def is_available():
    """True when the CUDA backend is built and sees at least one device."""
    return _C._device_count("cuda") > 0


def device_count():
    """Number of CUDA devices (0 without a driver, a GPU or a CUDA build)."""
    return _C._device_count("cuda")


def _lazy_init():
    """Raises, as PyTorch's initialisation does, when CUDA cannot be used."""
    if _state["initialized"]:
        return
    if not _C._cuda_is_built():
        raise AssertionError("Torch not compiled with CUDA enabled")
    if device_count() == 0:
        raise RuntimeError(_C._cuda_unavailable_reason() or "No CUDA GPUs are available")
    _state["initialized"] = True


def init():
    """Initialises CUDA; raises when it cannot be used (it is otherwise lazy)."""
    _lazy_init()


def is_initialized():
    """True once CUDA has been used (or init() called) in this process."""
    if not _state["initialized"] and is_available() and _C._cuda_memory_stats(0):
        _state["initialized"] = True
    return _state["initialized"]


def _index(dev, optional=True):
    """A CUDA device index from an int, "cuda:i" string or torchlike.device;
    None (or an index-less "cuda") means the current device, -1 when optional."""
    if dev is None:
        return -1 if optional else current_device()
    if isinstance(dev, int) and not isinstance(dev, bool):
        return dev
    d = _C.device(dev)
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    if d.index is None:
        return -1 if optional else current_device()
    return d.index


def _checked_index(device):
    _lazy_init()
    idx = _index(device)
    if idx < 0:
        return current_device()
    if idx >= device_count():
        raise AssertionError("Invalid device id")
    return idx


def current_device():
    """Index of the current CUDA device."""
    _lazy_init()
    return _C._current_device("cuda")


def set_device(device):
    """Makes `device` current; a negative index (or None) is a no-op, as in PyTorch."""
    idx = _index(device)
    if idx >= 0:
        _lazy_init()
        _C._set_device(_C.device("cuda", idx))


def synchronize(device=None):
    """Waits for all work on `device` (default: the current CUDA device)."""
    _lazy_init()
    with globals()["device"](device):
        _C._synchronize(_C.device("cuda", current_device()))


class device:
    """Context manager that makes a CUDA device current and restores the
    previous one on exit. None or a negative index changes nothing."""

    def __init__(self, device):
        self.idx = _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                _C._set_device(_C.device("cuda", self.idx))
        return self

    def __exit__(self, *exc):
        if self.idx >= 0 and self.prev_idx != self.idx:
            _C._set_device(_C.device("cuda", self.prev_idx))
        return False


class device_of(device):
    """Makes the device of tensor `obj` current (nothing for a CPU tensor)."""

    def __init__(self, obj):
        super().__init__(obj.device.index if obj.device.type == "cuda" else -1)


# ---------------------------------------------------------------- properties

class _CudaDeviceProperties:
    """torch.cuda.get_device_properties(i): what the driver reports about a GPU."""

    def __init__(self, fields):
        self.__dict__.update(fields)

    def __repr__(self):
        mb = 1024 * 1024
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // mb}MB, multi_processor_count={self.multi_processor_count}, "
                f"uuid={self.uuid}, pci_bus_id={self.pci_bus_id}, pci_device_id={self.pci_device_id}, "
                f"pci_domain_id={self.pci_domain_id}, L2_cache_size={self.L2_cache_size // mb}MB)")


def get_device_properties(device=None):
    return _CudaDeviceProperties(_C._cuda_device_properties(_checked_index(device)))


def get_device_name(device=None):
    return get_device_properties(device).name


def get_device_capability(device=None):
    p = get_device_properties(device)
    return (p.major, p.minor)


def get_arch_list():
    """The architectures this build compiled kernels for ("sm_80", "sm_90", ...); [] without CUDA."""
    if not is_available():
        return []
    return list(_C._cuda_arch_list())


def get_gencode_flags():
    """The nvcc -gencode flags of the compiled architectures."""
    out = []
    for arch in get_arch_list():
        kind, num = arch.split("_", 1)
        out.append(f"-gencode compute=compute_{num},code={kind}_{num}")
    return " ".join(out)


def is_bf16_supported(including_emulation=True):
    """bfloat16 needs compute capability 8.0 (Ampere) or later; no emulated path here."""
    if not is_available():
        return False
    return get_device_capability()[0] >= 8


def is_tf32_supported():
    """TF32 tensor cores: compute capability 8.0 or later."""
    if not is_available():
        return False
    return get_device_capability()[0] >= 8


def can_device_access_peer(device, peer_device):
    """True when `device` can read and write `peer_device`'s memory directly."""
    d, p = _checked_index(device), _checked_index(peer_device)
    if p < 0 or p >= device_count():
        raise AssertionError("Invalid peer device id")
    return _C._cuda_can_device_access_peer(d, p)


def get_sync_debug_mode():
    """0: default, 1: warn, 2: error on synchronizing operations."""
    _lazy_init()
    return _C._cuda_get_sync_debug_mode()


def set_sync_debug_mode(debug_mode):
    """"default"/0, "warn"/1 or "error"/2: what happens on an operation that
    synchronizes the host with the device."""
    _lazy_init()
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`")
        debug_mode = modes[debug_mode]
    _C._cuda_set_sync_debug_mode(int(debug_mode))


# ---------------------------------------------------------------- streams

from torchlike.cuda.streams import Stream, ExternalStream, Event  # noqa: E402


def current_stream(device=None):
    """The calling thread's current stream on `device` (default: the current device)."""
    idx = _checked_index(device)
    base = _C.Stream(_C.device("cuda", idx))
    return Stream(stream_id=base.stream_id, device_type=base.device_type, device_index=base.device_index)


def default_stream(device=None):
    """The default (legacy null) stream of `device`."""
    idx = _checked_index(device)
    return Stream(stream_id=0, device_type=1, device_index=idx)


def set_stream(stream):
    """Makes `stream` current on its device; None changes nothing."""
    if stream is None:
        return
    _lazy_init()
    _C._set_stream(stream)


class StreamContext:
    """Context manager: `stream` is current on its device inside, and the
    previous current streams (of that device and of the current device) are
    restored on exit. None changes nothing."""

    def __init__(self, stream):
        self.stream = stream
        self.src_prev_stream = None
        self.dst_prev_stream = None

    def __enter__(self):
        cur = self.stream
        if cur is None:
            return
        self.src_prev_stream = current_stream(None)
        if self.src_prev_stream.device != cur.device:
            with device(cur.device):
                self.dst_prev_stream = current_stream(cur.device)
        set_stream(cur)

    def __exit__(self, *exc):
        cur = self.stream
        if cur is None or self.src_prev_stream is None:
            return False
        if self.dst_prev_stream is not None:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)
        return False


def stream(stream):
    """Context manager making `stream` current (torch.cuda.stream)."""
    return StreamContext(stream)


# ---------------------------------------------------------------- memory and random state

from torchlike.cuda import memory, random, streams, nvtx, profiler  # noqa: E402,F401
from torchlike.cuda.memory import *  # noqa: E402,F401,F403
from torchlike.cuda.random import *  # noqa: E402,F401,F403

__all__ += memory.__all__


def __getattr__(name):
    if name == "default_generators":
        # One Philox generator per device, made on first use.
        return tuple(_C._default_generator(_C.device("cuda", i)) for i in range(device_count()))
    raise AttributeError(f"module 'torchlike.cuda' has no attribute '{name}'")


from torchlike.cuda import amp  # noqa: E402,F401  (torch.cuda.amp: deprecated autocast spellings)
