"""Flatten and Unflatten: reshape layers over torchlike.flatten / unflatten."""
import torchlike
from torchlike.nn.modules._functional_layer import _FunctionalLayer

__all__ = ["Flatten", "Unflatten"]


class Flatten(_FunctionalLayer):
    """Merges dims start_dim..end_dim into one (by default all but the batch dim)."""

    _fn = staticmethod(torchlike.flatten)
    _fn_args = ("start_dim", "end_dim")

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return self._run(input)


def _check_sizes(sizes):
    """unflattened_size must be a tuple/list (or Size) whose items are ints."""
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(sizes).__name__}")
    for pos, item in enumerate(sizes):
        if not isinstance(item, int):
            raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                            f"{type(item).__name__} at pos {pos}")


class Unflatten(_FunctionalLayer):
    """Splits dimension `dim` into `unflattened_size` (one entry may be -1)."""

    _fn = staticmethod(torchlike.unflatten)
    _fn_args = ("dim", "unflattened_size")

    def __init__(self, dim, unflattened_size):
        super().__init__()
        _check_sizes(unflattened_size)
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return self._run(input)
