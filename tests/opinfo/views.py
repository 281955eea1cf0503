"""View and shape operators, checked against their NumPy equivalents.

Views never copy; storage sharing, version counters and strides are checked in
tests/test_views.py. Here: values, shapes and dtypes for every dtype, the
method form, Meta shapes, and the bad calls.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided as np_as_strided

from .core import ALL_DTYPES, ErrorCase, OpInfo, Sample, make

F32 = np.float32


def _s(*specs):
    """samples(dtype) from (shape, args, kwargs, desc) tuples: the tensor is made per dtype."""
    def samples(dtype):
        return [Sample((make(shape, dtype, seed=i),) + tuple(args), dict(kw), desc)
                for i, (shape, args, kw, desc) in enumerate(specs)]
    return samples


def _a(*shape):
    return np.zeros(shape, F32)


def _unflatten(a, dim, sizes):
    dim = dim % a.ndim
    sizes = list(sizes)
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        sizes[sizes.index(-1)] = a.shape[dim] // known
    return a.reshape(a.shape[:dim] + tuple(sizes) + a.shape[dim + 1:])


def _flatten(a, start_dim=0, end_dim=-1):
    if a.ndim == 0:
        return a.reshape(1)
    s, e = start_dim % a.ndim, end_dim % a.ndim
    return a.reshape(a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:])


def _squeeze(a, dim=None):
    if dim is None:
        return np.squeeze(a)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if a.ndim == 0:
        return a
    dims = tuple(d % a.ndim for d in dims if a.shape[d] == 1)
    return np.squeeze(a, axis=dims)


def _narrow(a, dim, start, length):
    start = start % a.shape[dim] if start < 0 else start
    return np.take(a, np.arange(start, start + length), axis=dim)


def _as_strided(a, size, stride, storage_offset=0):
    flat = np.ascontiguousarray(a).ravel()[storage_offset:]
    return np_as_strided(flat, shape=size, strides=[s * flat.itemsize for s in stride]).copy()


def _split(a, split_size, dim=0):
    n = a.shape[dim]
    if isinstance(split_size, int):
        edges = list(range(split_size, n, split_size)) if n else []
    else:
        edges = list(np.cumsum(split_size)[:-1])
    return tuple(np.split(a, edges, axis=dim))


def _chunk(a, chunks, dim=0):
    n = a.shape[dim]
    size = -(-n // chunks)
    return _split(a, size, dim) if size else tuple(np.split(a, [0] * (chunks - 1), axis=dim))


def _unbind(a, dim=0):
    return tuple(np.moveaxis(a, dim, 0))


def _diagonal(a, offset=0, dim1=0, dim2=1):
    # np.diagonal agrees with torch.diagonal (diag dim last).
    return np.diagonal(a, offset, dim1, dim2)


def _t(a):
    return a.T


def _adjoint(a):
    return np.swapaxes(a, -2, -1)



def _cat_ref(tensors, dim=0):
    # A 1-D empty input is skipped whatever the others' rank (PyTorch's legacy rule).
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]
    return np.concatenate(kept, axis=dim) if kept else np.concatenate(tensors)


def _join_samples(stack):
    def samples(dtype):
        def m(shape, seed):
            return make(shape, dtype, seed=seed)
        if stack:
            return [Sample(([m((2, 3), 0), m((2, 3), 1)],), {}, "two 2-d"),
                    Sample(([m((2, 3), 0), m((2, 3), 1), m((2, 3), 2)], 1), {}, "three, dim 1"),
                    Sample(([m((4,), 0), m((4,), 1)],), {"dim": -1}, "dim -1 (new last dim)"),
                    Sample(([m((), 0), m((), 1)],), {}, "0-dim inputs"),
                    Sample(([m((3, 2), 0)], 2), {}, "single, dim = ndim")]
        return [Sample(([m((2, 3), 0), m((4, 3), 1)],), {}, "dim 0"),
                Sample(([m((2, 3), 0), m((2, 1), 1), m((2, 2), 2)], 1), {}, "three, dim 1"),
                Sample(([m((2, 3, 2), 0), m((2, 3, 2), 1)],), {"dim": -1}, "dim -1"),
                Sample(([m((0, 3), 0), m((2, 3), 1)],), {}, "empty part"),
                Sample(([m((0,), 0), m((2, 3), 1)],), {}, "1-d empty skipped"),
                Sample(([m((3,), 0)],), {}, "single")]
    return samples

OPS = [
    OpInfo("reshape", lambda a, shape: a.reshape(shape),
           _s(((2, 3, 4), ((4, -1),), {}, "to 4x6"), ((2, 3, 4), ((24,),), {}, "flat"),
              ((), ((1, 1),), {}, "0-dim to 1x1"), ((0, 3), ((3, 0),), {}, "empty"),
              ((2, 3), ((6, 1),), {}, "trailing 1")),
           errors=[ErrorCase((_a(2, 3), (4, 2)), {}, RuntimeError, r"shape '\[4, 2\]' is invalid for input of size 6"),
                   ErrorCase((_a(2, 3), (-1, -1)), {}, RuntimeError, "only one dimension can be inferred"),
                   ErrorCase((_a(2, 3), (-2, 3)), {}, RuntimeError, "invalid shape dimension -2"),
                   ErrorCase((_a(0, 3), (0, -1)), {}, RuntimeError, "cannot reshape tensor of 0 elements")]),
    OpInfo("ravel", lambda a: a.ravel(), _s(((2, 3, 4), (), {}, "3-d"), ((), (), {}, "0-dim"))),
    OpInfo("permute", lambda a, dims: np.transpose(a, dims),
           _s(((2, 3, 4), ((2, 0, 1),), {}, "3-d"), ((2, 3, 4), ((-1, 0, 1),), {}, "negative"),
              ((), ((),), {}, "0-dim"), ((0, 3), ((1, 0),), {}, "empty")),
           errors=[ErrorCase((_a(2, 3), (0,)), {}, RuntimeError, r"input.dim\(\) = 2 is not equal to len\(dims\) = 1"),
                   ErrorCase((_a(2, 3), (0, 0)), {}, RuntimeError, "duplicate dims are not allowed"),
                   ErrorCase((_a(2, 3), (0, 2)), {}, IndexError, "Dimension out of range")]),
    OpInfo("transpose", lambda a, d0, d1: a if a.ndim == 0 else np.swapaxes(a, d0, d1),
           _s(((2, 3, 4), (0, 2), {}, "0<->2"), ((2, 3), (-1, -2), {}, "negative"), ((), (0, -1), {}, "0-dim"),
              ((3,), (0, 0), {}, "1-d")),
           errors=[ErrorCase((_a(2, 3), 0, 3), {}, IndexError, r"Dimension out of range \(expected to be in range of "
                                                                r"\[-2, 1\], but got 3\)")]),
    OpInfo("swapaxes", lambda a, d0, d1: np.swapaxes(a, d0, d1), _s(((2, 3, 4), (0, 2), {}, "3-d"))),
    OpInfo("swapdims", lambda a, d0, d1: np.swapaxes(a, d0, d1), _s(((2, 3, 4), (1, -1), {}, "3-d"))),
    OpInfo("t", _t, _s(((2, 3), (), {}, "2-d"), ((3,), (), {}, "1-d"), ((), (), {}, "0-dim")),
           errors=[ErrorCase((_a(2, 2, 2),), {}, RuntimeError,
                             r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D")]),
    OpInfo("adjoint", _adjoint, _s(((2, 3, 4), (), {}, "batch"))),
    OpInfo("squeeze", _squeeze,
           _s(((1, 3, 1, 2), (), {}, "all"), ((1, 3, 1), (2,), {}, "dim"), ((1, 3, 1), (1,), {}, "dim not 1"),
              ((1, 3, 1), ((0, -1),), {}, "dims"), ((), (), {}, "0-dim"), ((), (0,), {}, "0-dim dim"),
              ((1, 1), (), {}, "all ones")),
           errors=[ErrorCase((_a(1, 2), (0, 0)), {}, RuntimeError, "dim 0 appears multiple times in the list of dims"),
                   ErrorCase((_a(1, 2), 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("unsqueeze", np.expand_dims,
           _s(((2, 3), (0,), {}, "front"), ((2, 3), (-1,), {}, "back"), ((2, 3), (1,), {}, "middle"),
              ((), (0,), {}, "0-dim")),
           errors=[ErrorCase((_a(2, 3), 3), {}, IndexError, "Dimension out of range")]),
    OpInfo("broadcast_to", np.broadcast_to,
           _s(((3, 1), ((2, 3, 4),), {}, "new leading + expand"), ((), ((2, 2),), {}, "0-dim"),
              ((1,), ((0,),), {}, "to empty")),
           errors=[ErrorCase((_a(2, 3), (3, 3)), {}, RuntimeError,
                             r"The expanded size of the tensor \(3\) must match the existing size \(2\) at "
                             r"non-singleton dimension 0"),
                   ErrorCase((_a(2, 3), (3,)), {}, RuntimeError, "the number of sizes provided"),
                   ErrorCase((_a(2, 3), (-1, 2, 3)), {}, RuntimeError, "isn't allowed in a leading, non-existing")]),
    OpInfo("flatten", _flatten,
           _s(((2, 3, 4), (), {}, "all"), ((2, 3, 4), (1,), {}, "from 1"), ((2, 3, 4, 5), (1, 2), {}, "middle"),
              ((), (), {}, "0-dim"), ((2, 3), (1, 1), {}, "single dim")),
           errors=[ErrorCase((_a(2, 3), 1, 0), {}, RuntimeError, "start_dim cannot come after end_dim")]),
    OpInfo("unflatten", _unflatten,
           _s(((2, 12), (1, (3, 4)), {}, "split dim"), ((2, 12), (-1, (2, -1, 3)), {}, "inferred")),
           errors=[ErrorCase((_a(2, 3), 1, (2, 2)), {}, RuntimeError,
                             r"unflatten: Provided sizes \[2, 2\] don't multiply up to the size of dim 1 \(3\)"),
                   ErrorCase((_a(2, 3), 1, ()), {}, RuntimeError, "sizes must be non-empty")]),
    OpInfo("narrow", _narrow,
           _s(((4, 5), (1, 1, 3), {}, "cols"), ((4, 5), (0, -2, 2), {}, "negative start"),
              ((4, 5), (0, 4, 0), {}, "empty at end")),
           errors=[ErrorCase((_a(2, 3), 1, 2, 2), {}, RuntimeError, r"start \(2\) \+ length \(2\) exceeds dimension "
                                                                    r"size \(3\)"),
                   ErrorCase((_a(2, 3), 1, 0, -1), {}, RuntimeError, "length must be non-negative"),
                   ErrorCase((_a(2, 3), 1, 4, 0), {}, IndexError, "start out of range"),
                   ErrorCase((np.zeros((), F32), 0, 0, 1), {}, RuntimeError, "cannot be applied to a 0-dim tensor")]),
    OpInfo("as_strided", _as_strided,
           _s(((3, 4), ((3, 3), (1, 2)), {}, "overlapping"), ((3, 4), ((2, 2), (4, 1), 5), {}, "offset"),
              ((6,), ((2, 3), (0, 1)), {}, "stride 0"), ((6,), ((0, 5), (1, 100)), {}, "empty"),
              ((6,), ((), ()), {"storage_offset": 5}, "0-dim at last element")),
           errors=[ErrorCase((_a(2, 3), (3, 3), (3, 1)), {}, RuntimeError,
                             "requiring a storage size of 36 are out of bounds for storage of size 24"),
                   ErrorCase((_a(2, 3), (1,), (1,), 6), {}, RuntimeError, "out of bounds for storage of size 24"),
                   ErrorCase((_a(2, 3), (2,), (-1,)), {}, RuntimeError, "Negative strides are not supported"),
                   ErrorCase((_a(2, 3), (2,), (1,), -1), {}, RuntimeError, "invalid storage offset -1"),
                   ErrorCase((_a(2, 3), (2,), (1, 1)), {}, RuntimeError, "mismatch in length of strides and shape")]),
    OpInfo("unbind", _unbind, _s(((3, 4), (), {}, "dim 0"), ((3, 4), (1,), {}, "dim 1"), ((0, 2), (), {}, "empty")),
           errors=[ErrorCase((np.zeros((), F32),), {}, IndexError, "tensor has no dimensions")]),
    OpInfo("split", _split,
           _s(((5, 4), (2,), {}, "uneven"), ((5, 4), (2, 1), {}, "dim 1"), ((5, 4), ([1, 4],), {}, "sizes"),
              ((5, 4), ([1, 0, 3], -1), {}, "sizes with 0"), ((5, 4), (10,), {}, "bigger than dim"),
              ((0, 4), (0,), {}, "empty, size 0")),
           errors=[ErrorCase((_a(2, 3), 0), {}, RuntimeError, "split_size can only be 0 if dimension size is 0"),
                   ErrorCase((_a(2, 3), -1), {}, RuntimeError, "split_size be non-negative"),
                   ErrorCase((_a(2, 3), [1, 1], 1), {}, RuntimeError,
                             r"split_with_sizes expects split_sizes to sum exactly to 3")]),
    OpInfo("split_with_sizes", lambda a, s, dim=0: _split(a, list(s), dim), _s(((5, 4), ((2, 2), 1), {}, "dim 1"))),
    OpInfo("chunk", _chunk,
           _s(((5, 4), (2,), {}, "uneven"), ((6, 4), (3,), {}, "even"), ((5, 4), (3, 1), {}, "dim 1"),
              ((2, 4), (5,), {}, "more chunks than rows"), ((0, 4), (3,), {}, "empty")),
           errors=[ErrorCase((_a(2, 3), 0), {}, RuntimeError, "chunk expects `chunks` to be greater than 0")]),
    OpInfo("movedim", lambda a, s, d: a if a.ndim == 0 else np.moveaxis(a, s, d),
           _s(((2, 3, 4), (0, -1), {}, "int"), ((2, 3, 4, 5), ((0, 1), (3, 0)), {}, "lists"),
              ((), (0, 0), {}, "0-dim")),
           errors=[ErrorCase((_a(2, 3), (0, 1), (0,)), {}, RuntimeError,
                             r"should contain the same number of dims as destination"),
                   ErrorCase((_a(2, 3), (0, 0), (0, 1)), {}, RuntimeError, r"repeated dim in `source`"),
                   ErrorCase((_a(2, 3), (0, 1), (1, 1)), {}, RuntimeError, r"repeated dim in `destination`")]),
    OpInfo("moveaxis", np.moveaxis, _s(((2, 3, 4), ((0, 2), (2, 1)), {}, "lists"))),
    OpInfo("diagonal", _diagonal,
           _s(((4, 5), (), {}, "main"), ((4, 5), (2,), {}, "above"), ((4, 5), (-2,), {}, "below"),
              ((2, 4, 5), (1, 2, 0), {}, "3-d dims 2,0"), ((3, 3), (5,), {}, "empty"), ((0, 3), (), {}, "empty in")),
           errors=[ErrorCase((_a(2, 3), 0, 1, 1), {}, RuntimeError, "diagonal dimensions cannot be identical 1, 1"),
                   ErrorCase((_a(3),), {}, IndexError, "Dimension out of range")]),
    OpInfo("select", lambda a, dim, i: np.take(a, i, axis=dim),
           _s(((3, 4), (0, 1), {}, "row"), ((3, 4), (1, -1), {}, "last col")),
           errors=[ErrorCase((_a(2, 3), 0, 5), {}, IndexError, r"select\(\): index 5 out of range for tensor of size "
                                                               r"\[2, 3\] at dimension 0"),
                   ErrorCase((np.zeros((), F32), 0, 0), {}, IndexError, "cannot be applied to a 0-dim tensor")]),
    # grad=False: detach's output is cut from the graph by definition.
    OpInfo("detach", lambda a: a, _s(((2, 3), (), {}, "2-d"), ((), (), {}, "0-dim")), grad=False),
    OpInfo("alias", lambda a: a, _s(((2, 3), (), {}, "2-d")), method=False),
    # Joining: cat and stack take a Tensor[]; gradcheck gives each element its own gradient.
    OpInfo("cat", _cat_ref, _join_samples(stack=False), method=False, out=True,
           errors=[ErrorCase(([_a(2, 3), _a(3, 3)], 1), {}, RuntimeError,
                             r"Sizes of tensors must match except in dimension 1\. Expected size 2 but got size 3 "
                             r"for tensor number 1 in the list\."),
                   ErrorCase(([_a(2, 3)], 2), {}, IndexError,
                             r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
                   ErrorCase(([_a(2, 3)], -3), {}, IndexError, r"Dimension out of range"),
                   ErrorCase(([_a(2, 3), _a(2)],), {}, RuntimeError,
                             "Tensors must have same number of dimensions: got 2 and 1"),
                   ErrorCase(([_a(2), np.zeros((), F32)],), {}, RuntimeError,
                             r"zero-dimensional tensor \(at position 1\) cannot be concatenated")]),
    OpInfo("stack", lambda tensors, dim=0: np.stack(tensors, axis=dim), _join_samples(stack=True), method=False,
           out=True,
           errors=[ErrorCase(([_a(2, 3), _a(3, 3)],), {}, RuntimeError,
                             r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 and \[3, 3\] "
                             r"at entry 1"),
                   ErrorCase(([_a(2, 3)], 3), {}, IndexError,
                             r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)")]),
]


# ---- one bad call for every op above that has none.
_DIM5 = r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 5\)"
_TYPICAL_ERRORS = {
    "ravel": ErrorCase(([1, 2],), {}, TypeError, r"ravel\(\): argument 'input' .*must be Tensor, not list"),
    "swapaxes": ErrorCase((np.ones((2, 3, 4), np.float32), 0, 5), {}, IndexError, _DIM5),
    "swapdims": ErrorCase((np.ones((2, 3, 4), np.float32), 5, 0), {}, IndexError, _DIM5),
    "moveaxis": ErrorCase((np.ones((2, 3, 4), np.float32), 0, 5), {}, IndexError, _DIM5),
    "adjoint": ErrorCase((np.ones(3, np.float32),), {}, RuntimeError,
                         r"adjoint\(\) is only supported on matrices or batches of matrices. Got 1-D tensor"),
    "split_with_sizes": ErrorCase((np.ones((2, 3), np.float32), [1, 2]), {}, RuntimeError,
                                  r"split_with_sizes expects split_sizes to sum exactly to 2"),
    "detach": ErrorCase((3,), {}, TypeError, r"detach\(\): argument 'input' .*must be Tensor, not int"),
    "alias": ErrorCase(("x",), {}, TypeError, r"alias\(\): argument 'input' .*must be Tensor, not str"),
}
for _op in OPS:
    if not _op.errors and _op.name in _TYPICAL_ERRORS:
        _op.errors = [_TYPICAL_ERRORS[_op.name]]
