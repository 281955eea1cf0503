"""Upsample and its two fixed-mode 2-D variants, over F.interpolate."""
from torchlike.nn import functional as F
from torchlike.nn.modules.module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


def _float_scale(scale_factor):
    """Scale factors are stored as floats (a tuple of them per spatial dim);
    None and 0 both mean "not given", which leaves `size` in charge."""
    if isinstance(scale_factor, tuple):
        return tuple(map(float, scale_factor))
    if not scale_factor:
        return None
    return float(scale_factor)


class Upsample(Module):
    """Resizes a (N, C, *spatial) input to `size` or by `scale_factor` with the
    given interpolation mode. scale_factor is kept as float(s)."""

    __constants__ = ["size", "scale_factor", "mode", "align_corners", "name", "recompute_scale_factor"]

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = _float_scale(scale_factor)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            shown = f"scale_factor={self.scale_factor!r}"
        else:
            shown = f"size={self.size!r}"
        return f"{shown}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Upsample with mode='nearest' on (N, C, H, W) inputs."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Upsample with mode='bilinear' and align_corners=True on (N, C, H, W) inputs."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
