"""skip_init: build a module without running its parameter initialisation."""
import inspect

import torchlike

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Instantiates module_cls(*args, **kwargs) with uninitialised parameters and
    buffers: the module is built on the meta device (nothing is allocated or filled)
    and then given empty storage on the requested device (default cpu). The class
    must accept a `device` argument."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, torchlike.nn.Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    target = kwargs.pop("device", "cpu")
    target = torchlike.device(target)
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=target)
