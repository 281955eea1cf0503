"""Activation layers. Each is a thin stateful wrapper over torchlike.nn.functional:
the module keeps the hyper-parameters (and PReLU its learnable slopes) and its
extra_repr prints them in PyTorch's format."""
import warnings

import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
           "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
           "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


def _describe(*fields, inplace=False):
    """Joins "name=value" fields and appends "inplace=True" only when set, which
    is how PyTorch's activation reprs read."""
    parts = [f"{name}={value}" for name, value in fields]
    if inplace:
        parts.append("inplace=True")
    return ", ".join(parts)


class _Stateless(Module):
    """An activation with no hyper-parameters: forward applies `_fn`. Accepts and
    ignores constructor arguments, as PyTorch's parameter-free activations do."""

    _fn = None

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return type(self)._fn(input)


class Sigmoid(_Stateless):
    """1 / (1 + exp(-x))."""
    _fn = staticmethod(torchlike.sigmoid)


class Tanh(_Stateless):
    """Hyperbolic tangent."""
    _fn = staticmethod(torchlike.tanh)


class Tanhshrink(_Stateless):
    """x - tanh(x)."""
    _fn = staticmethod(F.tanhshrink)


class Softsign(_Stateless):
    """x / (1 + |x|)."""
    _fn = staticmethod(F.softsign)


class LogSigmoid(_Stateless):
    """log(sigmoid(x)), computed without overflow."""
    _fn = staticmethod(F.logsigmoid)


class _InplaceOnly(Module):
    """An activation whose only option is `inplace`; forward is `_fn(x, inplace)`."""

    __constants__ = ["inplace"]
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._fn(input, inplace=self.inplace)

    def extra_repr(self):
        return _describe(inplace=self.inplace)


class ReLU(_InplaceOnly):
    """max(0, x)."""
    _fn = staticmethod(F.relu)


class SELU(_InplaceOnly):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) with the self-normalising constants."""
    _fn = staticmethod(F.selu)


class SiLU(_InplaceOnly):
    """x * sigmoid(x)."""
    _fn = staticmethod(F.silu)


class Mish(_InplaceOnly):
    """x * tanh(softplus(x))."""
    _fn = staticmethod(F.mish)


class Hardsigmoid(_InplaceOnly):
    """relu6(x + 3) / 6. Its repr stays empty even when inplace (as in PyTorch)."""
    _fn = staticmethod(F.hardsigmoid)

    def extra_repr(self):
        return ""


class Hardswish(_InplaceOnly):
    """x * relu6(x + 3) / 6. Its repr stays empty even when inplace (as in PyTorch)."""
    _fn = staticmethod(F.hardswish)

    def extra_repr(self):
        return ""


class Threshold(Module):
    """y = x where x > threshold, otherwise `value`."""

    __constants__ = ["threshold", "value", "inplace"]

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return _describe(("threshold", self.threshold), ("value", self.value), inplace=self.inplace)


class RReLU(Module):
    """Leaky ReLU whose negative slope is drawn per element from U(lower, upper)
    while training and fixed to (lower + upper) / 2 in eval mode."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return _describe(("lower", self.lower), ("upper", self.upper), inplace=self.inplace)


class Hardtanh(Module):
    """Clamps to [min_val, max_val]. The old keyword names min_value/max_value are
    still accepted, with PyTorch's FutureWarning."""

    __constants__ = ["min_val", "max_val", "inplace"]

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        for old, new in (("min_value", "min_val"), ("max_value", "max_val")):
            given = min_value if old == "min_value" else max_value
            if given is not None:
                warnings.warn(f"keyword argument `{old}` is deprecated and renamed to `{new}`",
                              FutureWarning, stacklevel=2)
        if min_value is not None:
            min_val = min_value
        if max_value is not None:
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        assert self.max_val > self.min_val, f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return _describe(("min_val", self.min_val), ("max_val", self.max_val), inplace=self.inplace)


class ReLU6(Hardtanh):
    """min(max(0, x), 6): a Hardtanh fixed to [0, 6]."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _describe(inplace=self.inplace)


class ELU(Module):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    __constants__ = ["alpha", "inplace"]

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return _describe(("alpha", self.alpha), inplace=self.inplace)


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class LeakyReLU(Module):
    """x for x >= 0, negative_slope * x otherwise."""

    __constants__ = ["inplace", "negative_slope"]

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return _describe(("negative_slope", self.negative_slope), inplace=self.inplace)


class GLU(Module):
    """Gated linear unit: splits `dim` in halves a, b and returns a * sigmoid(b)."""

    __constants__ = ["dim"]

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """x * Phi(x); approximate='tanh' uses the tanh formula instead of erf."""

    __constants__ = ["approximate"]

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """x where |x| > lambd, 0 elsewhere."""

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """x - lambd for x > lambd, x + lambd for x < -lambd, 0 between."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear once beta * x exceeds `threshold`."""

    __constants__ = ["beta", "threshold"]

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return _describe(("beta", self.beta), ("threshold", self.threshold))


class PReLU(Module):
    """Leaky ReLU with a learnable negative slope: one shared slope, or one per
    channel (num_parameters = number of channels), all starting at `init`."""

    __constants__ = ["num_parameters"]

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(torchlike.empty(num_parameters, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class _SoftmaxFamily(Module):
    """Softmax, Softmin and LogSoftmax: normalise over `dim` (None means PyTorch's
    deprecated implicit choice, which warns)."""

    __constants__ = ["dim"]
    _fn = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._fn(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxFamily):
    """exp(x) / sum(exp(x)) along dim."""
    _fn = staticmethod(F.softmax)


class Softmin(_SoftmaxFamily):
    """softmax(-x) along dim."""
    _fn = staticmethod(F.softmin)


class LogSoftmax(_SoftmaxFamily):
    """log(softmax(x)) along dim, computed stably."""
    _fn = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Softmax over the channel dimension of a (C, H, W) or (N, C, H, W) input."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)
