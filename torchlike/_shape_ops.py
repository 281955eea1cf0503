"""The shape ops PyTorch defines in Python (torch.functional): the ones that
take tensors as varargs (meshgrid, broadcast_tensors, block_diag,
cartesian_prod, atleast_*d), and the ``Tensor.data`` property. Each calls the
generated operator of the same name, which does the work in C++."""
import warnings

from torchlike import _C
from torchlike._tensor import Tensor

__all__ = ["split", "meshgrid", "broadcast_tensors", "block_diag", "cartesian_prod", "atleast_1d", "atleast_2d", "atleast_3d"]

_VF = _C._VariableFunctions


def _tensor_args(tensors):
    # f(a, b) and f([a, b]) / f((a, b)) mean the same, as in PyTorch.
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def split(tensor, split_size_or_sections, dim=0):
    """Views of `tensor` along `dim`: pieces of split_size_or_sections
    elements (an int; the last may be smaller) or of the listed sizes."""
    return _VF.split(tensor, split_size_or_sections, dim)


def meshgrid(*tensors, indexing=None):
    """Grids of coordinates from 1-D (or 0-D) tensors; each grid is a view
    (an expanded view of its input). indexing='ij' (matrix, the default) or
    'xy' (Cartesian: the first two grid dims swapped)."""
    tensors = _tensor_args(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    return tuple(_VF.meshgrid(tensors, indexing=indexing))


def broadcast_tensors(*tensors):
    """Expanded views of the tensors to their common broadcast shape."""
    return tuple(_VF.broadcast_tensors(_tensor_args(tensors)))


def block_diag(*tensors):
    """A block-diagonal matrix from 0-D, 1-D or 2-D tensors (dtype promoted)."""
    return _VF.block_diag(list(tensors))


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, one per row."""
    return _VF.cartesian_prod(list(tensors))


def _atleast(op, tensors):
    if len(tensors) == 1:
        t = tensors[0]
        # A list or tuple is the sequence form; anything else goes to the
        # single-tensor form, whose binding rejects a non-tensor with TypeError.
        return tuple(op(list(t))) if isinstance(t, (list, tuple)) else op(t)
    return tuple(op(list(tensors)))


def atleast_1d(*tensors):
    return _atleast(_VF.atleast_1d, tensors)


def atleast_2d(*tensors):
    return _atleast(_VF.atleast_2d, tensors)


def atleast_3d(*tensors):
    return _atleast(_VF.atleast_3d, tensors)


def _get_data(self):
    # A tensor outside the graph over the same storage, with its own version
    # counter (unlike detach()), as PyTorch's .data.
    return _VF._variable_data(self)


def _set_data(self, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    if self.requires_grad and not (value.is_floating_point() or value.is_complex()):
        raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
    self._set_data(value)


Tensor.data = property(_get_data, _set_data, doc="The tensor's data, detached from autograd; assignable.")
