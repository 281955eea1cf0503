"""torchlike.accelerator: the device-neutral API over "the accelerator this
process has", as PyTorch's torch.accelerator.

The accelerator is the first device type, in PyTorch's order (CUDA, then the
PrivateUse1 backend), whose DeviceGuard implementation is registered in the
C++ core and reports at least one device. On a CPU-only build there is none:
is_available() is False, current_accelerator() is None, device_count() is 0,
and every call that needs a device raises RuntimeError, as PyTorch does. So
the device-selection lines at the top of today's tutorials,

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"

run unchanged.
"""
from collections import OrderedDict as _OrderedDict

from torchlike import _C

__all__ = [
    "Graph", "current_accelerator", "current_device_idx", "current_device_index", "current_stream",
    "device_count", "device_index", "empty_cache", "empty_host_cache", "get_device_capability",
    "get_memory_info", "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
    "memory_reserved", "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
    "set_device_idx", "set_device_index", "set_stream", "synchronize",
]

_NONE = "Cannot access accelerator device when none is available."


def _candidate_types():
    # PrivateUse1 may have been renamed (torchlike.utils.rename_privateuse1_backend):
    # its current name is what the device parser prints for it.
    return ("cuda", _C.device("privateuseone").type)


def _accelerator_type():
    for t in _candidate_types():
        if _C._has_device_backend(t) and _C._device_count(t) > 0:
            return t
    return None


def _require():
    t = _accelerator_type()
    if t is None:
        raise RuntimeError(_NONE)
    return t


def _device_index_of(device, acc):
    """An accelerator device index from None (current), an int, "type:i" or a device."""
    if device is None:
        return _C._current_device(acc)
    if isinstance(device, int) and not isinstance(device, bool):
        idx = device
    else:
        d = _C.device(device)
        if d.type != acc:
            raise ValueError(f"{d.type} doesn't match the current accelerator {acc}.")
        idx = _C._current_device(acc) if d.index is None else d.index
    n = _C._device_count(acc)
    if idx < 0 or idx >= n:
        raise ValueError(f"Invalid device index {idx} for accelerator {acc} with {n} device(s).")
    return idx


def is_available():
    """True when an accelerator backend is registered and sees a device."""
    return _accelerator_type() is not None


def current_accelerator(check_available=False):
    """The accelerator's device type as a torchlike.device, or None without one."""
    t = _accelerator_type()
    if t is None:
        return None
    return _C.device(t)


def device_count():
    """Number of accelerator devices (0 without an accelerator)."""
    t = _accelerator_type()
    return 0 if t is None else _C._device_count(t)


def current_device_index():
    """Index of the current accelerator device."""
    return _C._current_device(_require())


def current_device_idx():
    """Deprecated alias of current_device_index."""
    import warnings
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device):
    """Makes an accelerator device current; a negative index changes nothing."""
    acc = _require()
    if isinstance(device, int) and not isinstance(device, bool) and device < 0:
        return
    _C._set_device(_C.device(acc, _device_index_of(device, acc)))


def set_device_idx(device):
    """Deprecated alias of set_device_index."""
    import warnings
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:
    """Context manager that makes accelerator device `device` current and
    restores the previous one on exit. None changes nothing."""

    def __init__(self, device):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            acc = _require()
            self.prev_idx = _C._current_device(acc)
            if self.prev_idx != self.idx:
                _C._set_device(_C.device(acc, _device_index_of(self.idx, acc)))
        return self

    def __exit__(self, *exc):
        if self.idx is not None and self.prev_idx != self.idx:
            _C._set_device(_C.device(_require(), self.prev_idx))
        return False


def current_stream(device=None, /):
    """The current stream of an accelerator device (default: the current device)."""
    acc = _require()
    return _C.Stream(_C.device(acc, _device_index_of(device, acc)))


def set_stream(stream):
    """Makes `stream` current on its device, and that device current."""
    acc = _require()
    if not isinstance(stream, _C.Stream):
        raise TypeError(f"set_stream(): expected a torchlike.Stream, got {type(stream).__name__}")
    if stream.device.type != acc:
        raise ValueError(f"{stream.device.type} doesn't match the current accelerator {acc}.")
    _C._set_device(stream.device)
    _C._set_stream(stream)


def synchronize(device=None, /):
    """Waits for all work on an accelerator device (default: the current one)."""
    acc = _require()
    _C._synchronize(_C.device(acc, _device_index_of(device, acc)))


def _memory_api(name):
    """The accelerator's module-level memory function (torchlike.cuda.<name>)."""
    acc = _require()
    import importlib
    mod = importlib.import_module(f"torchlike.{acc}") if acc == "cuda" else None
    fn = getattr(mod, name, None) if mod is not None else None
    if fn is None:
        raise RuntimeError(f"torchlike.accelerator.{name}: the {acc} backend does not report memory")
    return fn


def empty_cache():
    """Releases the accelerator's cached, unused memory."""
    _memory_api("empty_cache")()


def empty_host_cache():
    """Releases cached pinned host memory. torchlike's host allocator is the
    CPU caching allocator, so this empties it."""
    _require()
    _C._cpu_empty_cache()


def get_device_capability(device=None, /):
    acc = _require()
    return _memory_api("get_device_capability")(_device_index_of(device, acc))


def get_memory_info(device_index=None, /):
    acc = _require()
    return _memory_api("mem_get_info")(_device_index_of(device_index, acc))


def memory_stats(device_index=None, /):
    acc = _require()
    return _OrderedDict(_memory_api("memory_stats")(_device_index_of(device_index, acc)))


def _stat(name):
    def stat(device_index=None, /):
        acc = _require()
        return _memory_api(name)(_device_index_of(device_index, acc))
    stat.__name__ = name
    stat.__doc__ = f"The accelerator's {name.replace('_', ' ')} (as torchlike.{{accelerator}}.{name})."
    return stat


memory_allocated = _stat("memory_allocated")
max_memory_allocated = _stat("max_memory_allocated")
memory_reserved = _stat("memory_reserved")
max_memory_reserved = _stat("max_memory_reserved")
reset_peak_memory_stats = _stat("reset_peak_memory_stats")
reset_accumulated_memory_stats = _stat("reset_accumulated_memory_stats")


class Graph:
    """Accelerator graph capture (PyTorch's torch.accelerator.Graph). Capture
    needs a backend that records work; without an accelerator, constructing
    one raises, as in PyTorch."""

    def __init__(self, keep_graph=False, *, pool=None, capture_error_mode="default"):
        acc = _require()
        if capture_error_mode not in ("default", "global", "thread_local", "relaxed"):
            raise ValueError(f"Graph: unknown capture_error_mode {capture_error_mode!r}")
        raise RuntimeError(f"torchlike.accelerator.Graph: the {acc} backend does not support graph capture")
