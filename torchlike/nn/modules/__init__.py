from torchlike.nn.modules.module import Module  # noqa: F401
from torchlike.nn.modules.container import (  # noqa: F401
    Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential,
)

__all__ = ["Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
