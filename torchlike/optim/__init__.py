"""torchlike.optim: optimizers over torchlike tensors with PyTorch's
interface, defaults and state-dict format."""

from . import optimizer
from ._swap import swap_in_optimizer_params_and_state
from .adafactor import Adafactor
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .adaptive import Adadelta, Adagrad, RMSprop
from .lbfgs import LBFGS
from .muon import Muon
from .optimizer import Optimizer
from .sgd import ASGD, SGD, Rprop
from .sparse_adam import SparseAdam

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS",
           "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam",
           "swap_in_optimizer_params_and_state"]

from . import lr_scheduler, swa_utils
