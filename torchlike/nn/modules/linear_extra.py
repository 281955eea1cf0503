"""Bilinear and LazyLinear (kept apart from linear.py, which holds the
Identity/Linear pattern the other layers follow)."""
import math

import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.lazy import LazyModuleMixin
from torchlike.nn.modules.linear import Linear
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter, UninitializedParameter

__all__ = ["Bilinear", "LazyLinear"]


class Bilinear(Module):
    """y_k = x1^T W_k x2 + b_k, with W of shape (out_features, in1_features,
    in2_features). W and b start uniform in +-1/sqrt(in1_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(torchlike.empty((out_features, in1_features, in2_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(torchlike.empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        limit = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -limit, limit)
        if self.bias is not None:
            init.uniform_(self.bias, -limit, limit)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the last dim of the first input; it becomes
    a Linear once initialised."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # Built as a 0-by-0 Linear (nothing to initialise), then given placeholders.
        super().__init__(0, 0, False, device=device, dtype=dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.in_features = input.shape[-1]
        with torchlike.no_grad():
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()
