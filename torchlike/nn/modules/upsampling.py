"""Upsample and its two fixed-mode 2-D variants, over F.interpolate."""
from torchlike.nn import functional as F
from torchlike.nn.modules._functional_layer import _FunctionalLayer

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


def _float_scale(scale_factor):
    """Scale factors are stored as floats (a tuple of them per spatial dim);
    None and 0 both mean "not given", which leaves `size` in charge."""
    if isinstance(scale_factor, tuple):
        return tuple(map(float, scale_factor))
    if not scale_factor:
        return None
    return float(scale_factor)


class Upsample(_FunctionalLayer):
    """Resizes a (N, C, *spatial) input to `size` or by `scale_factor` with the
    given interpolation mode. `name` is the class name (PyTorch keeps it too)."""

    _fn = staticmethod(F.interpolate)
    _fn_args = ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size, self.scale_factor = size, _float_scale(scale_factor)
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return self._run(input)

    def extra_repr(self):
        # Whichever of scale_factor / size drives the resize is shown, then the mode.
        leading = "scale_factor" if self.scale_factor is not None else "size"
        return f"{leading}={getattr(self, leading)!r}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Upsample with mode='nearest' on (N, C, H, W) inputs."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Upsample with mode='bilinear' and align_corners=True on (N, C, H, W) inputs."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
