"""Normalisation layers without running statistics: LayerNorm, GroupNorm,
RMSNorm, LocalResponseNorm and the legacy CrossMapLRN2d."""
import numbers

import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _register_affine(module, shape, with_weight, with_bias, factory_kwargs):
    """Registers `weight` and `bias` of the given shape on module, each either a
    Parameter (left for reset_parameters to fill) or None."""
    for name, wanted in (("weight", with_weight), ("bias", with_weight and with_bias)):
        value = Parameter(torchlike.empty(shape, **factory_kwargs)) if wanted else None
        module.register_parameter(name, value)


def _ones_and_zeros(module):
    """The identity affine transform: weight 1, bias 0 (either may be None)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if getattr(module, "bias", None) is not None:
        init.zeros_(module.bias)


def _shape_tuple(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Normalises over the trailing `normalized_shape` dims of each sample, with an
    optional elementwise weight (ones) and bias (zeros) of that shape."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, self.normalized_shape, elementwise_affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self):
        _ones_and_zeros(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Splits the channels into num_groups groups and normalises each group of
    each sample; the affine weight/bias are per channel."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, (num_channels,), affine, bias, factory_kwargs)
        self.reset_parameters()

    def reset_parameters(self):
        _ones_and_zeros(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """x / sqrt(mean(x^2 over the trailing dims) + eps) times an optional weight;
    eps=None uses the dtype's machine epsilon."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        # RMSNorm has a scale only.
        self.register_parameter("weight", Parameter(torchlike.empty(self.normalized_shape, **factory_kwargs))
                                if elementwise_affine else None)
        self.reset_parameters()

    def reset_parameters(self):
        _ones_and_zeros(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Divides each element by (k + alpha/size * sum of squares over `size`
    neighbouring channels)^beta."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """The legacy (Lua Torch) cross-channel LRN of 4-d inputs.

    Its window over channels is c - h .. c + h with h = (size - 1) // 2 (so an
    even size behaves like the odd size below it), and, as in PyTorch, the
    squared first channel also stays in the sum of every channel past c = h:
    the legacy running-sum implementation never subtracts it. The gradient
    here is the exact derivative of this forward."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels = input.size(1)
        half = (self.size - 1) // 2
        squares = input * input
        # Window sums from a cumulative sum over the zero-padded channel dim.
        padded = F.pad(squares, (0, 0, 0, 0, half + 1, half))
        running = torchlike.cumsum(padded, 1)
        window = running[:, 2 * half + 1:] - running[:, :channels]
        if channels > half + 1:
            keeps_first = (torchlike.arange(channels, device=input.device) > half).to(input.dtype)
            window = window + squares[:, :1] * keeps_first.reshape(1, channels, 1, 1)
        scale = window * (self.alpha / self.size) + self.k
        return input * scale.pow(-self.beta)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
