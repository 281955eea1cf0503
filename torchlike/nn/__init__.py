"""torchlike.nn: the functional layer, init, and the Module API (Module,
Parameter, Buffer, containers); the layers come with the rest of the
training-stack issue."""
from torchlike.nn import functional  # noqa: F401
from torchlike.nn import init  # noqa: F401
from torchlike.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from torchlike.nn.modules import (  # noqa: F401
    Container, Module, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential,
)
from torchlike.nn import modules, parameter  # noqa: F401
