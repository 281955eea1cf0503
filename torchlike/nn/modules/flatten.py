"""Flatten and Unflatten: reshape layers over Tensor.flatten / Tensor.unflatten."""
from torchlike.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merges dims start_dim..end_dim into one (by default all but the batch dim)."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dimension `dim` into `unflattened_size` (a tuple, list or Size of ints)."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self._check_sizes(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    @staticmethod
    def _check_sizes(sizes):
        if not isinstance(sizes, (tuple, list)):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(sizes).__name__}")
        for pos, item in enumerate(sizes):
            # bool is an int subclass that PyTorch lets through too.
            if not isinstance(item, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                f"{type(item).__name__} at pos {pos}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
