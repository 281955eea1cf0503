"""torchlike.optim: optimizers over torchlike tensors with PyTorch's
interface, defaults and state-dict format."""

from . import optimizer
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .adaptive import Adadelta, Adagrad, RMSprop
from .optimizer import Optimizer
from .sgd import ASGD, SGD, Rprop

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD"]

from . import lr_scheduler, swa_utils
