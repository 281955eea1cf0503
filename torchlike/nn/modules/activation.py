"""Activation layers. Each is a thin stateful wrapper over torchlike.nn.functional:
the module keeps the hyper-parameters (and PReLU its learnable slopes); which
function runs and which attributes it receives is declared per class (see
_functional_layer.py), and the repr follows PyTorch's format."""
import warnings

import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules._functional_layer import _FunctionalLayer
from torchlike.nn.parameter import Parameter

__all__ = ["Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
           "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus",
           "Softshrink", "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax"]


class _Activation(_FunctionalLayer):
    """One-input activation: forward(input) runs `_fn` with the stored options."""

    def forward(self, input):
        return self._run(input)


class _Stateless(_Activation):
    """No hyper-parameters. Constructor arguments are accepted and ignored, as
    PyTorch's parameter-free activations do."""

    def __init__(self, *args, **kwargs):
        super().__init__()


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


class _InplaceOnly(_Activation):
    """An activation whose only option is `inplace`."""

    _fn_args = ("inplace",)

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


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
    """relu6(x + 3) / 6. PyTorch's repr leaves `inplace` out for this one."""
    _fn = staticmethod(F.hardsigmoid)
    _show_inplace = False


class Hardswish(_InplaceOnly):
    """x * relu6(x + 3) / 6. PyTorch's repr leaves `inplace` out for this one."""
    _fn = staticmethod(F.hardswish)
    _show_inplace = False


class Threshold(_Activation):
    """y = x where x > threshold, otherwise `value`."""

    _fn = staticmethod(F.threshold)
    _fn_args = ("threshold", "value", "inplace")

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace


class RReLU(_Activation):
    """Leaky ReLU whose negative slope is drawn per element from U(lower, upper)
    while training and fixed to (lower + upper) / 2 in eval mode."""

    _fn = staticmethod(F.rrelu)
    _fn_args = ("lower", "upper", "training", "inplace")
    _shown = ("lower", "upper")

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace


class Hardtanh(_Activation):
    """Clamps to [min_val, max_val]. The old keyword names min_value/max_value are
    still accepted, with PyTorch's FutureWarning."""

    _fn = staticmethod(F.hardtanh)
    _fn_args = ("min_val", "max_val", "inplace")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        renamed = {"min_val": ("min_value", min_value), "max_val": ("max_value", max_value)}
        bounds = {"min_val": min_val, "max_val": max_val}
        for new_name, (old_name, old_value) in renamed.items():
            if old_value is not None:
                warnings.warn(f"keyword argument `{old_name}` is deprecated and renamed to `{new_name}`",
                              FutureWarning, stacklevel=2)
                bounds[new_name] = old_value
        self.min_val, self.max_val, self.inplace = bounds["min_val"], bounds["max_val"], inplace
        assert self.max_val > self.min_val, f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"


class ReLU6(Hardtanh):
    """min(max(0, x), 6): a Hardtanh fixed to [0, 6]."""

    _shown = ()

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)


class _AlphaActivation(_Activation):
    """ELU and CELU: one `alpha` plus `inplace`."""

    _fn_args = ("alpha", "inplace")

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace


class ELU(_AlphaActivation):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    _fn = staticmethod(F.elu)


class CELU(_AlphaActivation):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _fn = staticmethod(F.celu)


class LeakyReLU(_Activation):
    """x for x >= 0, negative_slope * x otherwise."""

    _fn = staticmethod(F.leaky_relu)
    _fn_args = ("negative_slope", "inplace")

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace


class GLU(_Activation):
    """Gated linear unit: splits `dim` in halves a, b and returns a * sigmoid(b)."""

    _fn = staticmethod(F.glu)
    _fn_args = ("dim",)

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim


class GELU(_Activation):
    """x * Phi(x); approximate='tanh' uses the tanh formula instead of erf."""

    _fn = staticmethod(F.gelu)
    _fn_args = ("approximate",)

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def extra_repr(self):
        # The only activation whose option is a string, and PyTorch quotes it.
        return f"approximate={self.approximate!r}"


class _Shrink(_Activation):
    """Hardshrink and Softshrink: one threshold `lambd`, shown bare in the repr."""

    _fn_args = ("lambd",)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(_Shrink):
    """x where |x| > lambd, 0 elsewhere."""
    _fn = staticmethod(F.hardshrink)


class Softshrink(_Shrink):
    """x - lambd for x > lambd, x + lambd for x < -lambd, 0 between."""
    _fn = staticmethod(F.softshrink)


class Softplus(_Activation):
    """log(1 + exp(beta * x)) / beta, linear once beta * x exceeds `threshold`."""

    _fn = staticmethod(F.softplus)
    _fn_args = ("beta", "threshold")

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold


class PReLU(_Activation):
    """Leaky ReLU with a learnable negative slope: one shared slope, or one per
    channel (num_parameters = number of channels), all starting at `init`."""

    _fn = staticmethod(F.prelu)
    _fn_args = ("weight",)
    _shown = ("num_parameters",)

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(torchlike.empty(num_parameters, **factory_kwargs))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)


class _Normalizer(_Activation):
    """Softmax, Softmin and LogSoftmax over `dim`. dim=None is PyTorch's
    deprecated implicit choice (0 for 0-, 1- and 3-D inputs, else 1), which warns."""

    _fn_args = ("dim",)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim


class Softmax(_Normalizer):
    """exp(x) / sum(exp(x)) along dim."""
    _fn = staticmethod(F.softmax)


class Softmin(_Normalizer):
    """softmax(-x) along dim."""
    _fn = staticmethod(F.softmin)


class LogSoftmax(_Normalizer):
    """log(softmax(x)) along dim, computed stably."""
    _fn = staticmethod(F.log_softmax)


class Softmax2d(_Stateless):
    """Softmax over the channel dimension of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)
