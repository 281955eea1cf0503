"""nn.Parameter and nn.Buffer.

Parameter is a real Python subclass of torchlike.Tensor: Tensor._make_subclass
wraps an alias of the data's TensorImpl in a Python object of the subclass, so
`isinstance(p, Tensor)`, autograd (p is a leaf that accumulates .grad) and
every tensor method work on it, and ops on it return plain Tensors as in
PyTorch. The alias shares storage with `data`, as PyTorch's does.
"""
from collections import OrderedDict

import torchlike
from torchlike._tensor import Tensor

__all__ = ["Parameter", "Buffer"]


def _rebuild_parameter(data, requires_grad, hooks, state=None):
    param = Parameter(data, requires_grad)
    if state:
        param.__dict__.update(state)
    return param


class Parameter(Tensor):
    """A Tensor that is registered as a module parameter when it is assigned as
    a Module attribute. requires_grad defaults to True even under no_grad."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = torchlike.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        # detach: the parameter is a new leaf, whatever graph `data` came from.
        param = Tensor._make_subclass(cls, data.detach())
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(memory_format=torchlike.preserve_format), self.requires_grad)
        if self.__dict__:
            import copy
            result.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        # The data travels as a plain tensor (torchlike's Tensor pickles itself);
        # hooks are not pickled, as in PyTorch.
        state = dict(self.__dict__)
        return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict(), state or None))


class _BufferMeta(type):
    # Buffer(x) returns the tensor itself; isinstance(t, Buffer) is true for a
    # tensor marked by Buffer(), as PyTorch's _BufferMeta does.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a buffer: assigned as a Module attribute it is
    registered with register_buffer(persistent=persistent)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = torchlike.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
