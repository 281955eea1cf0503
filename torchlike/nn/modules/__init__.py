"""The nn module classes. Each layer family lives in its own file; this package
re-exports them all, as torch.nn.modules does."""
from torchlike.nn.modules.module import Module  # noqa: F401
from torchlike.nn.modules.container import (  # noqa: F401
    Container, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict)
from torchlike.nn.modules.linear import Identity, Linear  # noqa: F401
from torchlike.nn.modules.rnn import *  # noqa: F401,F403
from torchlike.nn.modules.activation_mha import *  # noqa: F401,F403
from torchlike.nn.modules.transformer import *  # noqa: F401,F403
from torchlike.nn.modules.activation import *  # noqa: F401,F403
from torchlike.nn.modules.loss import *  # noqa: F401,F403
from torchlike.nn.modules.flatten import *  # noqa: F401,F403
from torchlike.nn.modules.fold import *  # noqa: F401,F403
from torchlike.nn.modules.pixelshuffle import *  # noqa: F401,F403
from torchlike.nn.modules.channelshuffle import *  # noqa: F401,F403
from torchlike.nn.modules.upsampling import *  # noqa: F401,F403
from torchlike.nn.modules.distance import *  # noqa: F401,F403
from torchlike.nn.modules.adaptive import *  # noqa: F401,F403
from torchlike.nn.modules.linear_cross_entropy_options import *  # noqa: F401,F403
from torchlike.nn.modules.conv import *  # noqa: F401,F403
from torchlike.nn.modules.pooling import *  # noqa: F401,F403
from torchlike.nn.modules.padding import *  # noqa: F401,F403
from torchlike.nn.modules.batchnorm import *  # noqa: F401,F403
from torchlike.nn.modules.instancenorm import *  # noqa: F401,F403
from torchlike.nn.modules.normalization import *  # noqa: F401,F403
from torchlike.nn.modules.dropout import *  # noqa: F401,F403
from torchlike.nn.modules.sparse import *  # noqa: F401,F403
from torchlike.nn.modules.lazy import *  # noqa: F401,F403
from torchlike.nn.modules.linear_extra import *  # noqa: F401,F403
