"""torchlike.nn. This package holds the functional layer for now (issue 10).
The modules (Module, Linear, ...) come with the training-stack issue."""
from torchlike.nn import functional  # noqa: F401
from torchlike.nn.parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from torchlike.nn.modules import (  # noqa: F401
    Container, Module, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential,
)
from torchlike.nn import modules, parameter  # noqa: F401
