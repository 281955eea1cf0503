"""Naming an out-of-tree backend registered on the PrivateUse1 device type.

A backend built as a C++ extension (docs/writing_a_backend.md) registers its
allocator, DeviceGuard, copy kernels and operator kernels under PrivateUse1;
these functions give it a name of its own on the Python side, as PyTorch's do:

    torchlike.utils.rename_privateuse1_backend("npu")        # torchlike.device("npu:0")
    torchlike.utils.generate_methods_for_privateuse1_backend()  # x.npu(), x.is_npu, module.npu()
    torchlike._register_device_module("npu", npu_module)     # torchlike.npu.device_count()
"""
import sys

from torchlike import _C

__all__ = ["rename_privateuse1_backend", "generate_methods_for_privateuse1_backend"]

_DEFAULT_NAME = "privateuseone"
# The attributes generate_methods_for_privateuse1_backend added, per class, so
# a second call for the same name is a no-op instead of an error.
_generated = set()


def _get_privateuse1_backend_name() -> str:
    """The backend's current name ('privateuseone' until renamed)."""
    return _C.device(_DEFAULT_NAME).type


def rename_privateuse1_backend(backend_name: str) -> None:
    """Name the PrivateUse1 backend `backend_name` in device strings, dtype-like
    error messages, autocast and the generated methods. It can be named once per
    process; renaming it again to the same name does nothing."""
    if not isinstance(backend_name, str):
        raise TypeError(f"rename_privateuse1_backend(): expected a str, got {type(backend_name).__name__}")
    current = _get_privateuse1_backend_name()
    if current == backend_name:
        return
    if current != _DEFAULT_NAME:
        raise RuntimeError(f"torch.register_privateuse1_backend() has already been set! Current backend: {current}")
    if not backend_name.isidentifier() or backend_name in ("cpu", "cuda", "meta", "mps", "xla", "xpu", "hpu", "mtia"):
        raise RuntimeError(f"rename_privateuse1_backend(): '{backend_name}' cannot name a PrivateUse1 backend: it "
                           "must be an identifier and not a built-in device type")
    _C._rename_privateuse1_backend(backend_name)


def _reset_privateuse1_backend_name() -> None:
    """Test hook: back to 'privateuseone' (PyTorch has no way back; tests that
    share a process with other device tests need one)."""
    _C._rename_privateuse1_backend(_DEFAULT_NAME)


def _normalization_device(name, device=None) -> int:
    """The device index `x.<name>(device)` moves to: the current device of the
    backend for None, else the index of an int, 'name:i' string or device."""
    def current():
        import torchlike
        mod = getattr(torchlike, name, None)
        if mod is not None and hasattr(mod, "current_device"):
            return int(mod.current_device())
        return _C._current_device(name)

    if device is None:
        return current()
    if isinstance(device, str):
        device = _C.device(device)
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, _C.device) and device.type == name:
        return current() if device.index is None else device.index
    raise RuntimeError(f"Invalid device, must be {name} device")


def _add(cls, attr, value):
    key = (cls, attr)
    if key in _generated:
        return
    if hasattr(cls, attr):
        raise RuntimeError(f"The custom device module of {cls} has already been registered with {attr}")
    setattr(cls, attr, value)
    _generated.add(key)


def generate_methods_for_privateuse1_backend(for_tensor: bool = True, for_module: bool = True,
                                             for_packed_sequence: bool = True, for_storage: bool = False,
                                             unsupported_dtype=None) -> None:
    """Adds `is_<name>` and `<name>(device=None, non_blocking=False)` to Tensor
    (and PackedSequence), and `<name>(device=None)` to nn.Module, for the
    backend's current name. Call it after rename_privateuse1_backend."""
    import torchlike
    name = _get_privateuse1_backend_name()
    if name == _DEFAULT_NAME:
        raise RuntimeError("generate_methods_for_privateuse1_backend(): rename the backend first "
                           "(torchlike.utils.rename_privateuse1_backend)")
    if unsupported_dtype is not None:
        unsupported = tuple(unsupported_dtype)
    else:
        unsupported = ()

    def to_device(self, device=None, non_blocking=False, **kwargs):
        if unsupported and self.dtype in unsupported:
            raise RuntimeError(f"Cannot create tensor with data type {self.dtype} on the {name} backend")
        index = _normalization_device(name, device)
        return self.to(device=_C.device(name, index), non_blocking=non_blocking, **kwargs)

    def is_on(self):
        return self.device.type == name

    to_device.__name__ = name
    to_device.__doc__ = f"A copy of the tensor on the {name} device (itself when it is already there)."
    if for_tensor:
        _add(torchlike.Tensor, f"is_{name}", property(is_on, doc=f"Whether the tensor is on the {name} backend."))
        _add(torchlike.Tensor, name, to_device)
    if for_module:
        from torchlike.nn import Module

        def module_to_device(self, device=None):
            return self._apply(lambda t: getattr(t, name)(device))

        module_to_device.__name__ = name
        _add(Module, name, module_to_device)
    if for_packed_sequence:
        from torchlike.nn.utils.rnn import PackedSequence

        def packed_to_device(self, *args, **kwargs):
            probe = getattr(torchlike.empty(0), name)(*args, **kwargs)
            return self.to(device=probe.device, **{k: v for k, v in kwargs.items() if k == "non_blocking"})

        packed_to_device.__name__ = name
        _add(PackedSequence, f"is_{name}", property(lambda self: getattr(self.data, f"is_{name}")))
        _add(PackedSequence, name, packed_to_device)
    if for_storage:
        raise NotImplementedError("generate_methods_for_privateuse1_backend(for_storage=True): torchlike has no "
                                  "typed storage objects to add methods to")


def _register_device_module(device_type: str, module) -> None:
    """Makes `module` reachable as torchlike.<device_type> (and importable as
    torchlike.<device_type>): is_available(), device_count() and whatever else
    the backend offers. device_type must be a known device type (the
    backend's name after rename_privateuse1_backend)."""
    import torchlike
    device_type = _C.device(device_type).type
    if hasattr(torchlike, device_type) and getattr(torchlike, device_type) is not module:
        raise RuntimeError(f"The runtime module of '{device_type}' has already been registered with "
                           f"'{getattr(torchlike, device_type)}'")
    setattr(torchlike, device_type, module)
    sys.modules[f"torchlike.{device_type}"] = module
