"""torchlike.nn: modules, parameters, the functional layer and initialisation."""
from torchlike.nn import functional  # noqa: F401
from torchlike.nn import init  # noqa: F401
from torchlike.nn.parameter import (  # noqa: F401
    Parameter, Buffer, UninitializedParameter, UninitializedBuffer)
from torchlike.nn.modules import *  # noqa: F401,F403
from torchlike.nn.modules import Module, Container, Sequential, ModuleList, ModuleDict  # noqa: F401
from torchlike.nn.modules import ParameterList, ParameterDict, Identity, Linear  # noqa: F401
from torchlike.nn import modules  # noqa: F401
from torchlike.nn import utils  # noqa: F401
from torchlike.nn import parallel  # noqa: F401
from torchlike.nn.parallel import DataParallel  # noqa: F401


def factory_kwargs(kwargs):
    """The device/dtype/memory_format entries of kwargs (None when absent), for
    modules that take `factory_kwargs` as one argument; other keys are an error."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    expected = simple | {"factory_kwargs"}
    if not kwargs.keys() <= expected:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected}")
    out = dict(kwargs)
    out.update(kwargs.get("factory_kwargs", {}))
    out.pop("factory_kwargs", None)
    for k in simple:
        if k in kwargs and k in kwargs.get("factory_kwargs", {}):
            raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
    return out
