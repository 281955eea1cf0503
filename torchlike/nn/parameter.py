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

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
           "UninitializedTensorMixin"]


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


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: no shape yet;
    materialize() gives them one (lazy modules call it on their first forward).

    PyTorch refuses every op on such a tensor through __torch_function__;
    torchlike has no __torch_function__, so the refusal covers the tensor's own
    methods and attributes (p.add(...), p.shape, ...), and a free function
    (torchlike.add(p, ...)) sees the empty placeholder instead."""

    _allowed = frozenset({
        "materialize", "cls_to_become", "data", "requires_grad", "requires_grad_", "grad", "dtype", "device",
        "is_floating_point", "is_complex", "size", "copy_", "half", "float", "double", "char", "short", "int",
        "long", "cuda", "cpu", "to", "get_device", "share_memory_", "is_leaf", "grad_fn", "detach", "type",
        "is_meta", "is_cuda", "layout", "_is_buffer", "persistent",
    })

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor `shape` (new, uninitialised memory) and turn it into a
        cls_to_become (Parameter or Tensor). The dtype and device are those
        given at construction (torchlike cannot change them in place)."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        if dtype != self.data.dtype or torchlike.device(device) != self.data.device:
            raise RuntimeError(f"{type(self).__name__}.materialize: torchlike cannot change the dtype or device of a "
                               f"tensor in place ({self.data.dtype} on {self.data.device} -> {dtype} on {device}); "
                               "pass device= and dtype= when creating the uninitialized tensor")
        self.data = torchlike.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __getattribute__(self, name):
        cls = object.__getattribute__(self, "__class__")
        if (issubclass(cls, UninitializedTensorMixin) and not name.startswith("_") and name != "shape"
                and name not in UninitializedTensorMixin._allowed and hasattr(Tensor, name)):
            raise ValueError(
                f"Attempted to use an uninitialized parameter in {getattr(Tensor, name)}. "
                "This error happens when you are using a `LazyModule` or "
                f"explicitly manipulating `torch.nn.parameter.{cls.__name__}` "
                "objects. When using LazyModules Call `forward` with a dummy batch "
                "to initialize the parameters before calling torch functions")
        return super().__getattribute__(name)


def is_lazy(param):
    """Whether `param` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter without a shape yet; materialize() turns it into a Parameter."""
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = torchlike.empty(0, device=device, dtype=dtype)
        param = Tensor._make_subclass(cls, data)
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer without a shape yet; materialize() turns it into a Tensor."""
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = torchlike.empty(0, device=device, dtype=dtype)
        buf = Tensor._make_subclass(cls, data)
        buf.requires_grad_(requires_grad)
        buf.persistent = persistent
        buf._is_buffer = True
        return buf

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype, self.persistent)
        memo[id(self)] = result
        return result
