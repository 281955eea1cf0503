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
        """A NumPy array sharing this tensor's memory (CPU tensors only)."""
        import numpy as np
        return np.asarray(self)

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

    __hash__ = _C.TensorBase.__hash__


_C._set_tensor_class(Tensor)
_C.TensorBase._set_size_class(Size)
