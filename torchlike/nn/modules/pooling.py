"""Pooling layers: max, average, power-average (LP), adaptive max/average and
max-unpooling, each in 1, 2 and 3 spatial dims. Every class stores its
arguments and calls the matching torchlike.nn.functional op; the family base
classes own the shared constructor and the repr text."""
from torchlike.nn import functional as F
from torchlike.nn.modules.module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d"]


def _as_tuple(value, n):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * n


# ---------------------------------------------------------------- max pooling

class _MaxPoolNd(Module):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        # No stride means non-overlapping windows.
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Maximum over sliding windows of an (N, C, L) or (C, L) input."""
    _fn = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Maximum over sliding windows of an (N, C, H, W) or (C, H, W) input."""
    _fn = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Maximum over sliding windows of an (N, C, D, H, W) or (C, D, H, W) input."""
    _fn = staticmethod(F.max_pool3d)


# ---------------------------------------------------------------- average pooling

class _AvgPoolNd(Module):
    """Common base of the average-pooling layers (for isinstance checks)."""

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mean over sliding windows of an (N, C, L) or (C, L) input. Unlike the 2-d
    and 3-d forms it keeps its sizes as 1-tuples (visible in the repr)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _as_tuple(kernel_size, 1)
        self.stride = _as_tuple(kernel_size if stride is None else stride, 1)
        self.padding = _as_tuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolWithDivisor(_AvgPoolNd):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def __setstate__(self, state):
        super().__setstate__(state)
        # Modules pickled before these options existed.
        self.__dict__.setdefault("padding", 0)
        self.__dict__.setdefault("ceil_mode", False)
        self.__dict__.setdefault("count_include_pad", True)


class AvgPool2d(_AvgPoolWithDivisor):
    """Mean over sliding windows of an (N, C, H, W) or (C, H, W) input;
    divisor_override replaces the window size as the divisor."""
    _fn = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolWithDivisor):
    """Mean over sliding windows of an (N, C, D, H, W) or (C, D, H, W) input;
    divisor_override replaces the window size as the divisor."""
    _fn = staticmethod(F.avg_pool3d)


# ---------------------------------------------------------------- power-average pooling

class _LPPoolNd(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """(sum of x^p over each window)^(1/p) over an (N, C, L) or (C, L) input."""
    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """(sum of x^p over each window)^(1/p) over an (N, C, H, W) or (C, H, W) input."""
    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """(sum of x^p over each window)^(1/p) over an (N, C, D, H, W) or (C, D, H, W) input."""
    _fn = staticmethod(F.lp_pool3d)


# ---------------------------------------------------------------- adaptive pooling

class _AdaptiveMaxPoolNd(Module):
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling whose windows are chosen to give an output of length output_size."""
    _fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling whose windows are chosen to give an (H_out, W_out) output; None keeps a size."""
    _fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling whose windows are chosen to give a (D_out, H_out, W_out) output; None keeps a size."""
    _fn = staticmethod(F.adaptive_max_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _fn = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return type(self)._fn(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling whose windows are chosen to give an output of length output_size."""
    _fn = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling whose windows are chosen to give an (H_out, W_out) output; None keeps a size."""
    _fn = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling whose windows are chosen to give a (D_out, H_out, W_out) output; None keeps a size."""
    _fn = staticmethod(F.adaptive_avg_pool3d)


# ---------------------------------------------------------------- max unpooling

class _MaxUnpoolNd(Module):
    _fn = None
    _dims = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._dims
        self.kernel_size = _as_tuple(kernel_size, n)
        self.stride = _as_tuple(kernel_size if stride is None else stride, n)
        self.padding = _as_tuple(padding, n)

    def forward(self, input, indices, output_size=None):
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Puts each value back at the position max_pool1d's indices name; zeros elsewhere."""
    _fn = staticmethod(F.max_unpool1d)
    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Puts each value back at the position max_pool2d's indices name; zeros elsewhere."""
    _fn = staticmethod(F.max_unpool2d)
    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Puts each value back at the position max_pool3d's indices name; zeros elsewhere."""
    _fn = staticmethod(F.max_unpool3d)
    _dims = 3


# ---------------------------------------------------------------- fractional max pooling

class _FractionalMaxPoolNd(Module):
    """Max pooling over windows placed at pseudo-random fractional strides.
    Exactly one of output_size and output_ratio (each in (0, 1)) is given;
    _random_samples, when given, fixes the window offsets (a buffer)."""
    _fn = None
    _dims = 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n = self._dims
        self.kernel_size = _as_tuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else _as_tuple(output_size, n)
        self.output_ratio = None if output_ratio is None else _as_tuple(output_ratio, n)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                              _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of an (N, C, H, W) or (C, H, W) input."""
    _fn = staticmethod(F.fractional_max_pool2d)
    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of an (N, C, D, H, W) or (C, D, H, W) input."""
    _fn = staticmethod(F.fractional_max_pool3d)
    _dims = 3
