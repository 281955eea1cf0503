"""The autocast controls PyTorch has in the torch namespace (torch.is_autocast_enabled,
torch.set_autocast_dtype, ...), with its signatures, defaults and deprecation warnings.
The region API is torchlike.autocast (torchlike/amp/autocast_mode.py)."""
import warnings

from torchlike import _C
from torchlike.amp.autocast_mode import _AUTOCAST_DEVICE_TYPES, _canonical, autocast

__all__ = [
    "autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "get_autocast_gpu_dtype", "set_autocast_gpu_dtype", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype",
    "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "autocast_increment_nesting",
    "autocast_decrement_nesting", "clear_autocast_cache", "is_autocast_cache_enabled",
    "set_autocast_cache_enabled",
]

_state = _C._VariableFunctions


def _kind(device_type):
    if not isinstance(device_type, str):
        raise TypeError(f"expected a device type string, got {type(device_type).__name__}")
    kind = _canonical(device_type)
    if kind not in _AUTOCAST_DEVICE_TYPES:
        raise RuntimeError("unknown device type for autocast in get_autocast_dispatch_key_from_device_type")
    return kind


def _deprecated(old, new, category=UserWarning):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", category, stacklevel=3)


def _flag(value, fname):
    if not isinstance(value, bool):
        raise TypeError(f"{fname}(): argument 'enabled' must be bool, not {type(value).__name__}")
    return value


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for `device_type`; with no argument, for CUDA (PyTorch's legacy form)."""
    return _state._autocast_is_enabled(_kind("cuda" if device_type is None else device_type))


def set_autocast_enabled(*args):
    """set_autocast_enabled(device_type, enabled), or set_autocast_enabled(enabled) for CUDA."""
    if len(args) == 1:
        _state._autocast_set_enabled("cuda", _flag(args[0], "set_autocast_enabled"))
        return
    if len(args) != 2:
        raise TypeError(f"set_autocast_enabled() takes 1 or 2 positional arguments but {len(args)} were given")
    _state._autocast_set_enabled(_kind(args[0]), _flag(args[1], "set_autocast_enabled"))


def get_autocast_dtype(device_type):
    return _state._autocast_get_dtype(_kind(device_type))


def set_autocast_dtype(device_type, dtype):
    _state._autocast_set_dtype(_kind(device_type), dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return _state._autocast_get_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)", DeprecationWarning)
    _state._autocast_set_dtype("cuda", dtype)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _state._autocast_get_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)", DeprecationWarning)
    _state._autocast_set_dtype("cpu", dtype)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _state._autocast_is_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)", DeprecationWarning)
    _state._autocast_set_enabled("cpu", _flag(enabled, "set_autocast_cpu_enabled"))


def autocast_increment_nesting():
    return _state._autocast_increment_nesting()


def autocast_decrement_nesting():
    return _state._autocast_decrement_nesting()


def clear_autocast_cache():
    _state._autocast_clear_cache()


def is_autocast_cache_enabled():
    return _state._autocast_is_cache_enabled()


def set_autocast_cache_enabled(enabled):
    _state._autocast_set_cache_enabled(_flag(enabled, "set_autocast_cache_enabled"))
