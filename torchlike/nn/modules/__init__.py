from torchlike.nn.modules.module import Module  # noqa: F401
from torchlike.nn.modules.container import (  # noqa: F401
    ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential,
)

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]
