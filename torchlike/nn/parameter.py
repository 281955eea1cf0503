"""Parameter, Buffer and their lazy (uninitialized) forms.

A Parameter is a leaf tensor of its own Python class, which is how Module.__setattr__
tells weights from other tensors. A Buffer is only a marker: Buffer(t) hands back a
plain tensor flagged `_is_buffer` (and `persistent`), so that a module stores an
ordinary tensor, as PyTorch does, while `isinstance(x, Buffer)` still answers for
the flagged ones.
"""
import torchlike
from torchlike._tensor import Tensor
from torchlike._tensor_copy import _as_subclass

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer",
           "UninitializedTensorMixin", "is_lazy"]


class Parameter(Tensor):
    """A tensor that a Module registers as a parameter when assigned as an attribute."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = torchlike.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, "
                            f"not {type(data).__name__}")
        return _as_subclass(cls, data.detach(), requires_grad)

    @classmethod
    def _rebuild_from_data(cls, data, requires_grad):
        return cls(data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        import copy
        data = copy.deepcopy(self.data, memo)
        # As PyTorch's: a copied parameter starts without a gradient.
        new = type(self)(data, self.requires_grad)
        if self.__dict__:
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new


class _BufferMeta(type(Tensor)):
    # isinstance(t, Buffer) is true for tensors that Buffer(...) flagged.
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return type.__instancecheck__(cls, instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as a buffer: `module.name = Buffer(t, persistent=False)` registers it.

    Returns a detached tensor over t's storage (keeping t's requires_grad) with the
    attributes `persistent` and `_is_buffer` set."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = torchlike.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """Shared behaviour of the lazy placeholders: no shape yet, most ops refused
    until `materialize(shape)` turns the object into an ordinary Parameter/tensor."""

    _cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        if isinstance(shape, int):
            shape = (shape,)
        self.data = torchlike.empty(tuple(shape), device=device, dtype=dtype)
        self.__class__ = self._cls_to_become

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


def is_lazy(param):
    """True for an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (lazy modules)."""

    _cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = torchlike.empty(0, device=device, dtype=dtype)
        return _as_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = new
        return new


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (lazy modules)."""

    _cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = torchlike.empty(0, device=device, dtype=dtype)
        t = _as_subclass(cls, data, requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = new
        return new
