"""PixelShuffle / PixelUnshuffle: move factor^2 channels into (or out of) a
factor-times larger spatial grid."""
from torchlike.nn import functional as F
from torchlike.nn.modules._functional_layer import _FunctionalLayer

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(_FunctionalLayer):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r) with r = upscale_factor."""

    _fn = staticmethod(F.pixel_shuffle)
    _fn_args = ("upscale_factor",)

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return self._run(input)


class PixelUnshuffle(_FunctionalLayer):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W) with r = downscale_factor."""

    _fn = staticmethod(F.pixel_unshuffle)
    _fn_args = ("downscale_factor",)

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return self._run(input)
