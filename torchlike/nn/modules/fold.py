"""Fold (col2im) and Unfold (im2col) layers over torchlike.nn.functional."""
from torchlike.nn import functional as F
from torchlike.nn.modules._functional_layer import _FunctionalLayer

__all__ = ["Fold", "Unfold"]

_WINDOW = ("kernel_size", "dilation", "padding", "stride")


class _SlidingWindow(_FunctionalLayer):
    def _set_window(self, kernel_size, dilation, padding, stride):
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return self._run(input)


class Fold(_SlidingWindow):
    """Sums sliding blocks (N, C * prod(kernel_size), L) back into an image of
    spatial size output_size (overlapping entries add up)."""

    _fn = staticmethod(F.fold)
    _fn_args = ("output_size",) + _WINDOW

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self._set_window(kernel_size, dilation, padding, stride)


class Unfold(_SlidingWindow):
    """Extracts sliding blocks of an (N, C, *spatial) input as columns
    (N, C * prod(kernel_size), L)."""

    _fn = staticmethod(F.unfold)
    _fn_args = _WINDOW

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self._set_window(kernel_size, dilation, padding, stride)
