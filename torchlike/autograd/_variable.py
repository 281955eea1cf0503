"""Variable: the pre-0.4 wrapper type, kept so that old code runs.

Tensors and Variables were merged long ago: Variable(t) now just returns a new leaf
tensor sharing t's data, and isinstance(x, Variable) is true for every tensor.
"""
import warnings

from torchlike._tensor import Tensor

__all__ = ["Variable", "variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False) -> a leaf tensor over data's storage."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            import torchlike
            data = torchlike.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))


def variable(*args, **kwargs):
    """Removed constructor; PyTorch raises the same error."""
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")
