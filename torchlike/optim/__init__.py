"""torchlike.optim: optimizers over torchlike tensors with PyTorch's
interface, defaults and state-dict format."""

from . import optimizer
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD"]

from . import lr_scheduler, swa_utils
