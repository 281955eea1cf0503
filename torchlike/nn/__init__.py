"""torchlike.nn. This package holds the functional layer for now (issue 10).
The modules (Module, Linear, ...) come with the training-stack issue."""
from torchlike.nn import functional  # noqa: F401
from torchlike.nn import init  # noqa: F401
