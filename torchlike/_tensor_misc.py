"""Tensor methods of the tensor-misc area written in Python: the deprecated
out-of-place Tensor.resize / Tensor.resize_as.

PyTorch 2.13 still has them: each warns "non-inplace resize is deprecated"
and reshapes through an autograd Function (ResizeBackward) that keeps the
number of elements; they are not resize_ (which may grow storage).
"""
import functools
import operator
import warnings

from torchlike._tensor import Tensor
from torchlike.autograd.function import Function

__all__ = []


class Resize(Function):
    @staticmethod
    def forward(ctx, tensor, sizes):
        # PyTorch's own arithmetic, quirks included: only the varargs form
        # resize(2, 3) is accepted; resize((2, 3)) fails the element count.
        ctx.sizes = sizes
        ctx.numel = functools.reduce(operator.mul, sizes, 1)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                ("requested resize to {} ({} elements in total), but the given tensor has a size of {} ({} elements). "
                 "autograd's resize can only change the shape of a given tensor, while preserving the number of "
                 "elements. ").format("x".join(map(str, sizes)), ctx.numel, "x".join(map(str, tensor.size())),
                                      tensor.numel()))
        ctx.input_sizes = tensor.size()
        # A contiguous input is reshaped without a copy: the result shares its memory.
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None


def _resize(self, *sizes):
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return Resize.apply(self, sizes)


def _resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return Resize.apply(self, tensor.size())


_resize.__name__ = _resize.__qualname__ = "resize"
_resize_as.__name__ = _resize_as.__qualname__ = "resize_as"


def _install_methods(tensor_type):
    tensor_type.resize = _resize
    tensor_type.resize_as = _resize_as


_install_methods(Tensor)
