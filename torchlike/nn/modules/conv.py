"""Convolution layers: Conv1d/2d/3d and ConvTranspose1d/2d/3d.

One base class (_ConvNd) holds what both directions share: argument checks,
the weight/bias parameters and their initialisation, and the repr. The
direction-specific classes only differ in weight layout and forward."""
import math

import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_PADDING_STRINGS = ("valid", "same")


def _expand(value, n):
    """An int (or any scalar) repeated n times; an iterable kept as a tuple
    (so a wrong length shows up later, as in PyTorch)."""
    if isinstance(value, (list, tuple)) or (hasattr(value, "__iter__") and not isinstance(value, torchlike.Tensor)):
        return tuple(value)
    return (value,) * n


def _same_pad_pairs(kernel_size, dilation):
    """For padding='same': per spatial dim, the (before, after) amounts that keep
    the length, with the odd element going after, listed last dim first as
    F.pad wants them."""
    flat = []
    for k, d in zip(reversed(kernel_size), reversed(dilation)):
        total = d * (k - 1)
        before = total // 2
        flat.extend((before, total - before))
    return flat


class _ConvNd(Module):
    """Shared state of every convolution. `spatial` is the number of spatial dims,
    `transposed` picks the weight layout (in, out/groups, *k) instead of
    (out, in/groups, *k)."""

    spatial = 0
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, output_padding=0, device=None, dtype=None):
        super().__init__()
        n = self.spatial
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, "
                             f"but got padding_mode='{padding_mode}'")
        stride = _expand(stride, n)
        if isinstance(padding, str) and not self.transposed:
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {set(_PADDING_STRINGS)}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _expand(padding, n)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _expand(kernel_size, n)
        self.stride = stride
        self.padding = padding
        self.dilation = _expand(dilation, n)
        self.output_padding = _expand(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # The explicit F.pad amounts used when padding_mode is not 'zeros'
        # (F.pad lists the last dim first, each as a before/after pair).
        if padding == "valid":
            self._reversed_padding_repeated_twice = [0] * (2 * n)
        elif padding == "same":
            self._reversed_padding_repeated_twice = _same_pad_pairs(self.kernel_size, self.dilation)
        else:
            pairs = []
            for p in reversed(padding):
                pairs += [p, p]
            self._reversed_padding_repeated_twice = tuple(pairs)
        factory_kwargs = {"device": device, "dtype": dtype}
        self.weight = Parameter(torchlike.empty(self._weight_shape(in_channels), **factory_kwargs))
        if bias:
            self.bias = Parameter(torchlike.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _weight_shape(self, in_channels):
        """(out, in/groups, *k), or (in, out/groups, *k) for a transposed convolution."""
        if self.transposed:
            return (in_channels, self.out_channels // self.groups) + tuple(self.kernel_size)
        return (self.out_channels, in_channels // self.groups) + tuple(self.kernel_size)

    def reset_parameters(self):
        # kaiming_uniform_ with a = sqrt(5) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in));
        # the bias takes the same bound.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                limit = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -limit, limit)

    def extra_repr(self):
        n = self.spatial
        parts = [f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"]
        if self.padding != (0,) * n:
            parts.append(f"padding={self.padding}")
        if self.dilation != (1,) * n:
            parts.append(f"dilation={self.dilation}")
        if self.output_padding != (0,) * n:
            parts.append(f"output_padding={self.output_padding}")
        if self.groups != 1:
            parts.append(f"groups={self.groups}")
        if self.bias is None:
            parts.append("bias=False")
        if self.padding_mode != "zeros":
            parts.append(f"padding_mode={self.padding_mode}")
        return ", ".join(parts)

    def __setstate__(self, state):
        super().__setstate__(state)
        # Modules pickled before padding_mode existed.
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _Conv(_ConvNd):
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, 0, device, dtype)

    def _conv_forward(self, input, weight, bias):
        conv = type(self)._functional
        if self.padding_mode == "zeros":
            return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return conv(padded, weight, bias, self.stride, 0, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-d convolution over an input of shape (N, C_in, L) or (C_in, L)."""
    spatial = 1
    _functional = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-d convolution over an input of shape (N, C_in, H, W) or (C_in, H, W)."""
    spatial = 2
    _functional = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-d convolution over an input of shape (N, C_in, D, H, W) or (C_in, D, H, W)."""
    spatial = 3
    _functional = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    transposed = True
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, output_padding, device, dtype)

    def _padding_for_size(self, input, output_size):
        """The output_padding that makes the output exactly output_size (which may
        also carry the batch/channel sizes in front), checked against the range of
        sizes this stride can reach."""
        if output_size is None:
            return self.output_padding
        num_spatial_dims = self.spatial
        stride, padding, kernel_size, dilation = self.stride, self.padding, self.kernel_size, self.dilation
        wanted = [int(s) for s in output_size]
        leading = input.dim() - num_spatial_dims
        if len(wanted) == num_spatial_dims + leading:
            wanted = wanted[leading:]
        if len(wanted) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {num_spatial_dims + leading} elements (got {len(output_size)})")
        smallest, largest = [], []
        for i in range(num_spatial_dims):
            length = input.size(leading + i)
            lo = (length - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel_size[i] - 1) + 1
            smallest.append(lo)
            largest.append(lo + stride[i] - 1)
        for i in range(num_spatial_dims):
            if not smallest[i] <= wanted[i] <= largest[i]:
                raise ValueError(f"requested an output size of {wanted}, but valid sizes range from {smallest} to "
                                 f"{largest} (for an input of {input.size()[2:]})")
        return tuple(w - lo for w, lo in zip(wanted, smallest))

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        out_pad = self._padding_for_size(input, output_size)
        return type(self)._functional(input, self.weight, self.bias, self.stride, self.padding, out_pad, self.groups,
                                      self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-d transposed convolution (the gradient of conv1d with respect to its input)."""
    spatial = 1
    _functional = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-d transposed convolution (the gradient of conv2d with respect to its input)."""
    spatial = 2
    _functional = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-d transposed convolution (the gradient of conv3d with respect to its input)."""
    spatial = 3
    _functional = staticmethod(F.conv_transpose3d)
