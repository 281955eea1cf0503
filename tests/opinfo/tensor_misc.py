"""Tensor methods that change a tensor's own geometry or storage: the in-place
views (transpose_, t_, squeeze_, unsqueeze_, swapaxes_, swapdims_,
as_strided_), set_, resize_/resize_as_ and fill_diagonal_, against NumPy.

Most are methods only: their entries are named "Tensor.<name>" (the unbound
method, called with the tensor first). They all write self, and an in-place
op on a leaf that requires grad raises (as in PyTorch), so the registry's
gradcheck, which perturbs leaves, cannot call them: grad=False here, and
tests/test_tensor_misc.py gradchecks each differentiable one through a
non-leaf (x * 1), in float64, with second derivatives. Version counters,
storage sharing, views of views and PyTorch parity are checked there too.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided as np_as_strided

from .core import ALL_DTYPES, ErrorCase, OpInfo, Sample, make
from .views import _a, _s  # the views registry's sample helpers: same spec format

F32 = np.float32




def _squeeze(a, dim=None):
    if dim is None:
        return np.squeeze(a)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if a.ndim == 0:
        return a
    return np.squeeze(a, axis=tuple(d % a.ndim for d in dims if a.shape[d] == 1))


def _as_strided(a, size, stride, storage_offset=0):
    flat = np.ascontiguousarray(a).ravel()
    return np_as_strided(flat[storage_offset:], shape=size, strides=[s * flat.itemsize for s in stride]).copy()


def _resize(a, *size, memory_format=None):
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    n = int(np.prod(size))
    return np.ascontiguousarray(a).ravel()[:n].reshape(size)


def _set_window(a, source, storage_offset, size, stride=()):
    flat = np.ascontiguousarray(source).ravel()
    stride = stride or tuple(int(np.prod(size[i + 1:])) for i in range(len(size)))
    return np_as_strided(flat[storage_offset:], shape=size, strides=[s * flat.itemsize for s in stride]).copy()


def _fill_value(dtype):
    return True if dtype == "bool" else (3 if dtype in ("uint8", "int8", "int16", "int32", "int64") else -2.5)


def _fill_diagonal(a, fill_value, wrap=False):
    out = a.copy()
    np.fill_diagonal(out, fill_value, wrap=wrap)
    return out


def _fill_diagonal_samples(dtype):
    v = _fill_value(dtype)
    specs = [((4, 4), (v,), {}, "square"), ((3, 5), (v,), {}, "wide"), ((7, 3), (v,), {}, "tall, no wrap"),
             ((7, 3), (v,), {"wrap": True}, "tall, wrap"), ((5, 2), (v,), {"wrap": True}, "wrap, partial period"),
             ((4, 3), (v,), {"wrap": True}, "height = width + 1: nothing to wrap"),
             ((3, 3, 3), (v,), {}, "3-d cube"), ((0, 3), (v,), {}, "empty")]
    return [Sample((make(shape, dtype, seed=i),) + args, kw, desc) for i, (shape, args, kw, desc) in enumerate(specs)]


def _set_samples(dtype):
    src = make((12,), dtype, seed=7)
    return [Sample((make((2, 3), dtype, seed=1), src), {}, "whole source"),
            Sample((make((5,), dtype, seed=2), src, 2, (2, 3)), {}, "window, contiguous strides"),
            Sample((make((1,), dtype, seed=3), src, 1, (3, 2), (1, 4)), {}, "window, explicit strides"),
            Sample((make((1,), dtype, seed=4), src), {"storage_offset": 0, "size": (4,), "stride": (3,)}, "keywords")]


def _resize_as_samples(dtype):
    return [Sample((make((3, 4), dtype, seed=0), _a(2, 6)), {}, "same numel, new shape"),
            Sample((make((3, 4), dtype, seed=1), _a(5)), {}, "shrink"),
            Sample((make((2, 3), dtype, seed=2), _a(6)), {"memory_format": None}, "memory_format=None")]


OPS = [
    OpInfo("Tensor.transpose_", lambda a, d0, d1: np.swapaxes(a, d0, d1),
           _s(((2, 3, 4), (0, 2), {}, "outer"), ((2, 3), (-1, 0), {}, "negative dims"), ((3,), (0, 0), {}, "same dim"),
              ((2, 0, 3), (1, 2), {}, "empty")),
           method=False, grad=False,
           errors=[ErrorCase((_a(2, 3), 0, 2), {}, IndexError, "Dimension out of range"),
                   ErrorCase((_a(2, 3), -3, 0), {}, IndexError, "Dimension out of range")]),
    OpInfo("Tensor.swapaxes_", lambda a, axis0, axis1: np.swapaxes(a, axis0, axis1),
           _s(((2, 3, 4), (2, 0), {}, "positional"), ((2, 3), (), {"axis0": 0, "axis1": 1}, "keywords")),
           method=False, grad=False,
           errors=[ErrorCase((_a(2, 3), 0, 5), {}, IndexError, "Dimension out of range")]),
    OpInfo("Tensor.swapdims_", lambda a, dim0, dim1: np.swapaxes(a, dim0, dim1),
           _s(((2, 3, 4), (1, -1), {}, "positional"), ((2, 3), (), {"dim0": 1, "dim1": 0}, "keywords")),
           method=False, grad=False,
           errors=[ErrorCase((_a(2, 3), 2, 0), {}, IndexError, "Dimension out of range")]),
    OpInfo("Tensor.t_", lambda a: a.T,
           _s(((2, 3), (), {}, "matrix"), ((4,), (), {}, "vector"), ((), (), {}, "0-dim")),
           method=False, grad=False,
           errors=[ErrorCase((_a(2, 3, 4),), {}, RuntimeError, r"t_\(\) expects a tensor with <= 2 dimensions, but "
                                                               r"self is 3D")]),
    OpInfo("Tensor.squeeze_", _squeeze,
           _s(((2, 1, 3, 1), (), {}, "all"), ((2, 1, 3), (1,), {}, "dim"), ((1, 3, 1), (-1,), {}, "negative dim"),
              ((2, 3), (0,), {}, "dim of size > 1 stays"), ((1, 3, 1), ((0, 2),), {}, "dims"),
              ((1, 3, 1), (), {"dim": (0, 2)}, "dims keyword"), ((), (), {}, "0-dim"), ((), (0,), {}, "0-dim, dim 0")),
           method=False, grad=False,
           errors=[ErrorCase((_a(5,), 3), {}, IndexError, "Dimension out of range"),
                   ErrorCase((_a(1, 1), (0, 0)), {}, RuntimeError, "appears multiple times")]),
    OpInfo("Tensor.unsqueeze_", lambda a, dim: np.expand_dims(a, dim),
           _s(((2, 3), (0,), {}, "front"), ((2, 3), (2,), {}, "back"), ((2, 3), (-1,), {}, "negative"),
              ((), (0,), {}, "0-dim"), ((3, 1), (), {"dim": 1}, "keyword")),
           method=False, grad=False,
           errors=[ErrorCase((_a(2, 3), 3), {}, IndexError, "Dimension out of range"),
                   ErrorCase((_a(2, 3), -4), {}, IndexError, "Dimension out of range")]),
    OpInfo("as_strided_", _as_strided,
           _s(((3, 4), ((2, 2), (1, 2)), {}, "window"), ((12,), ((3, 2), (4, 1), 2), {}, "storage offset"),
              ((2, 6), ((4,), (3,)), {"storage_offset": 0}, "keyword offset"),
              ((2, 3), ((2, 3, 2), (0, 1, 0)), {}, "zero strides (overlapping)"),
              ((4,), ((0,), (1,)), {}, "empty")),
           grad=False,
           errors=[ErrorCase((_a(2, 2), (3, 3), (3, 1)), {}, RuntimeError, "out of bounds for storage"),
                   ErrorCase((_a(4,), (2,), (-1,)), {}, RuntimeError, "Negative strides"),
                   ErrorCase((_a(4,), (2,), (1,), -1), {}, RuntimeError, "invalid storage offset"),
                   ErrorCase((_a(4,), (2, 2), (1,)), {}, RuntimeError, "mismatch in length of strides and shape")]),
    OpInfo("Tensor.set_", lambda a, source, storage_offset=None, size=None, stride=(): (
               source.copy() if storage_offset is None else _set_window(a, source, storage_offset, size, stride)),
           _set_samples, method=False, grad=False,
           errors=[ErrorCase((_a(2), np.zeros(3, np.int64)), {}, RuntimeError, "could not set a tensor of type"),
                   ErrorCase((_a(2), _a(6), -1, (2,)), {}, RuntimeError, "invalid storage offset -1"),
                   ErrorCase((_a(2), _a(6), 0, (2, 3), (1,)), {}, RuntimeError,
                             r"unequal size length \(2\) and stride length \(1\)"),
                   ErrorCase((_a(2), _a(6), 0, (2, 3), (1, -1)), {}, RuntimeError, "negative strides"),
                   ErrorCase((_a(2), _a(6), 0, (2, -3)), {}, RuntimeError, "negative dimension")]),
    OpInfo("Tensor.resize_", _resize,
           _s(((3, 4), ((2, 6),), {}, "same numel"), ((3, 4), (5,), {}, "shrink, varargs"),
              ((3, 4), (2, 2, 3), {}, "varargs"), ((3, 4), ((3, 4),), {}, "unchanged"),
              ((2, 3), ((0, 3),), {}, "to empty"), ((4,), ((2, 2),), {"memory_format": None}, "memory_format=None")),
           method=False, grad=False,
           errors=[ErrorCase((_a(6), (2, -1)), {}, RuntimeError, "negative dimension")]),
    OpInfo("resize_as_", lambda a, t, memory_format=None: _resize(a, t.shape), _resize_as_samples, grad=False,
           errors=[ErrorCase((_a(6), (2, 3)), {}, TypeError, "resize_as_")]),
    OpInfo("Tensor.fill_diagonal_", _fill_diagonal, _fill_diagonal_samples, method=False, grad=False,
           errors=[ErrorCase((_a(2, 2, 3), 1.0), {}, RuntimeError, "all dimensions of input must be of equal length"),
                   ErrorCase((_a(3), 1.0), {}, RuntimeError, "dimensions must larger than 1")]),
]
