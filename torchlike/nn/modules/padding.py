"""Padding layers: constant (and zero), reflection, replication and circular
padding of the last 1, 2 or 3 dims. `padding` is an int (the same amount on
every side) or a tuple in F.pad's order (last dim first, before/after)."""
from torchlike.nn import functional as F
from torchlike.nn.modules.module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
           "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _padding_tuple(padding, dims):
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return (padding,) * (2 * dims)


class _PadBase(Module):
    """Holds `padding` and pads with F.pad in the class's `mode`."""
    mode = "constant"
    dims = 0

    def __init__(self, padding):
        super().__init__()
        self.padding = _padding_tuple(padding, self.dims)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


# ---------------------------------------------------------------- constant

class _ConstantPadNd(_PadBase):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with `value`."""
    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with `value`."""
    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with `value`."""
    dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


# ---------------------------------------------------------------- reflection / replication

class ReflectionPad1d(_PadBase):
    """Pads the last dim with its mirror image (the edge element not repeated)."""
    mode, dims = "reflect", 1


class ReflectionPad2d(_PadBase):
    """Pads the last two dims with their mirror image (the edge not repeated)."""
    mode, dims = "reflect", 2


class ReflectionPad3d(_PadBase):
    """Pads the last three dims with their mirror image (the edge not repeated)."""
    mode, dims = "reflect", 3


class ReplicationPad1d(_PadBase):
    """Pads the last dim by repeating its edge element."""
    mode, dims = "replicate", 1


class ReplicationPad2d(_PadBase):
    """Pads the last two dims by repeating their edge elements."""
    mode, dims = "replicate", 2


class ReplicationPad3d(_PadBase):
    """Pads the last three dims by repeating their edge elements."""
    mode, dims = "replicate", 3


# ---------------------------------------------------------------- circular

class _CircularPadNd(_PadBase):
    mode = "circular"

    def forward(self, input):
        # The padded dims plus a channel dim, with an optional batch dim in front.
        low = self.dims + 1
        if input.dim() not in (low, low + 1):
            raise ValueError(f"expected {low}D or {low + 1}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dim by wrapping around: the right end continues from the left."""
    dims = 1


class CircularPad2d(_CircularPadNd):
    """Pads the last two dims by wrapping around (a torus)."""
    dims = 2


class CircularPad3d(_CircularPadNd):
    """Pads the last three dims by wrapping around."""
    dims = 3
