"""The nn module classes. Each layer family lives in its own file; this package
re-exports them all, as torch.nn.modules does."""
from torchlike.nn.modules.module import Module  # noqa: F401
from torchlike.nn.modules.container import (  # noqa: F401
    Container, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict)
from torchlike.nn.modules.linear import Identity, Linear  # noqa: F401
from torchlike.nn.modules.rnn import *  # noqa: F401,F403
from torchlike.nn.modules.activation_mha import *  # noqa: F401,F403
from torchlike.nn.modules.transformer import *  # noqa: F401,F403
