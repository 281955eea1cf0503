"""Identity and Linear: the smallest layers, and the pattern the others follow
(factory_kwargs for device/dtype, reset_parameters with PyTorch's initialisation,
extra_repr for the text inside the repr's parentheses)."""
import math

import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter

__all__ = ["Identity", "Linear"]


class Identity(Module):
    """Returns its input; any constructor arguments are accepted and ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x W^T + b, with W of shape (out_features, in_features).

    W and b start uniform in (-1/sqrt(in_features), 1/sqrt(in_features)): kaiming_uniform_
    with a = sqrt(5) for W works out to that bound, and b uses it directly."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torchlike.empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(torchlike.empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"
from torchlike.nn.modules.linear_extra import Bilinear, LazyLinear  # noqa: E402,F401  (torch.nn.modules.linear has them)
