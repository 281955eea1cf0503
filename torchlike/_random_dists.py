"""torchlike.normal with PyTorch's Python-level options: `requires_grad=`
(normal(mean, std, size) is a factory) and dtype=/device= given together
with out=, which must agree with out (the out= overloads' schemas carry
neither). The sampling itself is the generated operator."""
from torchlike import _C
from torchlike._creation import _check_out_options

_normal = _C._VariableFunctions.normal


def normal(*args, requires_grad=False, **kwargs):
    if kwargs.get("out") is not None:
        _check_out_options("normal", kwargs["out"], kwargs)
    t = _normal(*args, **kwargs)
    if requires_grad:
        t.requires_grad_(True)
    return t


normal.__doc__ = _normal.__doc__

__all__ = ["normal"]
