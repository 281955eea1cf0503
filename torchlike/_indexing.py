"""nonzero's `as_tuple` keyword (PyTorch parses it in its binding; here the
generated nonzero / nonzero_numpy operators are chosen in Python)."""
from torchlike import _C
from torchlike._tensor import Tensor

__all__ = ["nonzero"]

_nonzero = _C._VariableFunctions.nonzero
_nonzero_numpy = _C._VariableFunctions.nonzero_numpy


def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements of `input`: a (count, input.dim()) int64
    tensor, or with as_tuple=True one 1-D index tensor per dim (a 0-dim input
    counts as 1-D there, as in PyTorch)."""
    if not isinstance(as_tuple, bool):
        raise TypeError(f"nonzero(): argument 'as_tuple' must be bool, not {type(as_tuple).__name__}")
    if as_tuple:
        return tuple(_nonzero_numpy(input))
    return _nonzero(input)


def _tensor_nonzero(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


_tensor_nonzero.__name__ = "nonzero"
_tensor_nonzero.__doc__ = nonzero.__doc__
Tensor.nonzero = _tensor_nonzero
