"""torchlike.Tensor: the Python class every tensor is an instance of.

It subclasses the C++ TensorBase, which carries the data and the fast paths
(operators, attributes, generated methods); what is here is the Python-level
protocol that needs no speed: printing, iteration, NumPy conversion.
"""
from torchlike import _C


class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as torchlike.Size([...])."""

    def __repr__(self):
        return f"torchlike.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))


class Tensor(_C.TensorBase):
    def __repr__(self, *, tensor_contents=None):
        from torchlike import _tensor_str
        return _tensor_str._str(self)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self[i] for i in range(self.shape[0]))

    def __array__(self, dtype=None, copy=None):
        import numpy as np
        arr = np.asarray(self)
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def numpy(self, *, force=False):
        """A NumPy array sharing this tensor's memory (CPU tensors only). A
        tensor that requires grad raises unless force=True (which detaches)."""
        import numpy as np
        return np.asarray(self.detach() if force else self)

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __contains__(self, element):
        return bool((self == element).any().item())

    def __rmatmul__(self, other):
        import torchlike
        return torchlike.matmul(other, self)

    def __matmul__(self, other):
        import torchlike
        if not isinstance(other, Tensor):
            return NotImplemented
        return torchlike.matmul(self, other)


    # ---- views and conversions that PyTorch exposes as properties or thin
    # wrappers over `to` (the ops themselves are generated from the YAML).
    @property
    def T(self):
        if self.dim() > 2:
            import warnings
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                          "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
                          "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(range(self.dim() - 1, -1, -1)))

    @property
    def H(self):
        if self.dim() == 2:
            return self.adjoint()
        if self.dim() > 2:
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.")
        return self.T

    @property
    def mT(self):
        if self.dim() < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def mH(self):
        if self.dim() < 2:
            raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. "
                               f"Got {self.dim()}-D tensor.")
        return self.adjoint()

    def cpu(self, memory_format=_C.preserve_format):
        return self.to("cpu", memory_format=memory_format)

    def float(self, memory_format=_C.preserve_format):
        return self.to(_C.float32, memory_format=memory_format)

    def double(self, memory_format=_C.preserve_format):
        return self.to(_C.float64, memory_format=memory_format)

    def half(self, memory_format=_C.preserve_format):
        return self.to(_C.float16, memory_format=memory_format)

    def bfloat16(self, memory_format=_C.preserve_format):
        return self.to(_C.bfloat16, memory_format=memory_format)

    def long(self, memory_format=_C.preserve_format):
        return self.to(_C.int64, memory_format=memory_format)

    def int(self, memory_format=_C.preserve_format):
        return self.to(_C.int32, memory_format=memory_format)

    def short(self, memory_format=_C.preserve_format):
        return self.to(_C.int16, memory_format=memory_format)

    def char(self, memory_format=_C.preserve_format):
        return self.to(_C.int8, memory_format=memory_format)

    def byte(self, memory_format=_C.preserve_format):
        return self.to(_C.uint8, memory_format=memory_format)

    def bool(self, memory_format=_C.preserve_format):
        return self.to(_C.bool, memory_format=memory_format)

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """With no dtype: the legacy type name ('torch.FloatTensor'). Otherwise
        a conversion, accepting a dtype or such a name."""
        if dtype is None:
            prefix = "torch." if self.device.type == "cpu" else f"torch.{self.device.type}."
            return prefix + _LEGACY_TYPE_NAMES[self.dtype]
        if isinstance(dtype, str):
            name = dtype.split(".")[-1]
            match = [d for d, n in _LEGACY_TYPE_NAMES.items() if n == name]
            if not match or not dtype.startswith(("torch.", "torchlike.")):
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = match[0]
        if dtype == self.dtype:
            return self
        return self.to(dtype, non_blocking=non_blocking)

    __hash__ = _C.TensorBase.__hash__

    # ---- autograd
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the leaves' .grad."""
        from torchlike import autograd
        autograd.backward(self, gradient, retain_graph, create_graph, inputs)

    def register_hook(self, hook):
        """hook(grad) -> Tensor or None, called when the gradient for this tensor
        is computed; a returned tensor replaces the gradient."""
        from torchlike.autograd._hooks import RemovableHandle
        hid, leaf = self._register_hook(hook)
        return RemovableHandle(lambda: self._remove_hook(hid, leaf))


_LEGACY_TYPE_NAMES = {
    _C.float32: "FloatTensor", _C.float64: "DoubleTensor", _C.float16: "HalfTensor", _C.bfloat16: "BFloat16Tensor",
    _C.int64: "LongTensor", _C.int32: "IntTensor", _C.int16: "ShortTensor", _C.int8: "CharTensor",
    _C.uint8: "ByteTensor", _C.bool: "BoolTensor",
}

_C._set_tensor_class(Tensor)
_C.TensorBase._set_size_class(Size)
