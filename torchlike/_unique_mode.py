"""torchlike.unique and torchlike.unique_consecutive, and their Tensor methods.

The C++ operators (_unique2, unique_dim, unique_consecutive) always return
(values, inverse, counts), as PyTorch's aten ops do; like torch.functional,
these pick what the flags ask for: the values alone, or a tuple of the values
followed by the inverse indices and/or the counts. `mode` needs nothing here:
its generated binding already returns the (values, indices) named tuple.
"""
import sys

from torchlike import _C
from torchlike._tensor import Tensor

__all__ = ["unique", "unique_consecutive"]

_VF = _C._VariableFunctions


def _pick(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The unique elements of `input` in ascending order (flattened), or with
    `dim` the unique slices along `dim` in lexicographic order.

    return_inverse adds, for each element (or slice) of the input, the index of
    its value in the output; return_counts adds how often each value occurs.
    -0.0 and 0.0 are one value; every NaN is a value of its own. On CPU the
    output is sorted whatever `sorted` says, as in PyTorch. Not differentiable.
    """
    if dim is None:
        output, inverse, counts = _VF._unique2(input, sorted, return_inverse, return_counts)
    else:
        output, inverse, counts = _VF.unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _pick(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of consecutive equal elements (or, with `dim`, equal
    slices along `dim`) to one, keeping input order (unlike unique, which
    sorts). return_inverse / return_counts as in unique. Not differentiable."""
    output, inverse, counts = _VF.unique_consecutive(input, return_inverse, return_counts, dim)
    return _pick(output, inverse, counts, return_inverse, return_counts)


def _tensor_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _tensor_unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


for _method, _fn in ((_tensor_unique, unique), (_tensor_unique_consecutive, unique_consecutive)):
    _method.__name__ = _method.__qualname__ = _fn.__name__
    _method.__doc__ = _fn.__doc__
    setattr(Tensor, _fn.__name__, _method)

# PyTorch keeps the unique_dim operator out of the torch namespace (PRIVATE_OPS
# in torch/__init__.py): torchlike.unique(x, dim=d) is the public way in.
sys.modules["torchlike"].__dict__.pop("unique_dim", None)
