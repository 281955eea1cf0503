"""Shape ops (issue 10, joining and reshaping), checked against NumPy: the
split family, the stacks, atleast_*d, flip/roll/rot90, tile and
repeat_interleave, tril/triu and their indices, diag and the *_scatter ops,
meshgrid, broadcast_tensors, block_diag, cartesian_prod, combinations, equal.

View semantics (storage shared, writes visible), Tensor.repeat, view(dtype),
Tensor.data and PyTorch parity are in tests/test_shape_ops.py.
"""
import itertools

import numpy as np

from .core import ALL_DTYPES, ErrorCase, OpInfo, Sample, make

F32 = np.float32
I64 = np.int64


def _s(*specs):
    """samples(dtype) from (shape, args, kw, desc): the first argument is made per dtype."""
    def samples(dtype):
        return [Sample((make(shape, dtype, seed=i),) + tuple(args), dict(kw), desc)
                for i, (shape, args, kw, desc) in enumerate(specs)]
    return samples


def _lists(*specs):
    """samples(dtype) from (shapes, args, kw, desc): a list of tensors first."""
    def samples(dtype):
        return [Sample(([make(sh, dtype, seed=10 * i + j) for j, sh in enumerate(shapes)],) + tuple(args), dict(kw),
                       desc) for i, (shapes, args, kw, desc) in enumerate(specs)]
    return samples


def _varargs(*specs):
    """samples(dtype) from (shapes, kw, desc): tensors as separate arguments."""
    def samples(dtype):
        return [Sample(tuple(make(sh, dtype, seed=10 * i + j) for j, sh in enumerate(shapes)), dict(kw), desc)
                for i, (shapes, kw, desc) in enumerate(specs)]
    return samples


def _a(*shape, dtype=F32):
    return np.zeros(shape, dtype)


# ---------------------------------------------------------------- references

def _tensor_split(a, spec, dim=0):
    if isinstance(spec, np.ndarray):
        spec = int(spec) if spec.ndim == 0 else [int(v) for v in spec]
    return tuple(np.array_split(a, spec, axis=dim))


def _tup(f):
    return lambda *a, **k: tuple(f(*a, **k))


def _atleast(f):
    def ref(*arrays):
        if len(arrays) == 1 and isinstance(arrays[0], np.ndarray):
            return f(arrays[0])
        if len(arrays) == 1:
            arrays = arrays[0]
        return tuple(f(x) for x in arrays)
    return ref


def _flip(a, dims):
    return np.flip(a, axis=tuple(dims)) if a.ndim else a


def _roll(a, shifts, dims=()):
    if isinstance(dims, (list, tuple)) and len(dims) == 0:
        return np.roll(a.reshape(-1), shifts).reshape(a.shape)
    return np.roll(a, shifts, axis=dims)


def _rot90(a, k=1, dims=(0, 1)):
    return np.rot90(a, k, axes=tuple(dims))


def _repeat_interleave(a, repeats=None, dim=None, output_size=None):
    if repeats is None:  # the index form: repeat_interleave(repeats)
        return np.repeat(np.arange(len(a)), a)
    if isinstance(repeats, np.ndarray) and repeats.size == 1:
        repeats = int(repeats.reshape(()))
    return np.repeat(a, repeats, axis=dim)


def _tri_indices(np_fn):
    def ref(row, col, offset=0, dtype=None):
        return np.stack(np_fn(row, offset, col)).astype(np.int64 if dtype is None else np.int32)
    return ref


def _diag_embed(a, offset=0, dim1=-2, dim2=-1):
    n = a.ndim + 1
    d1, d2 = dim1 % n, dim2 % n
    m = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (m, m), a.dtype)
    idx = np.arange(a.shape[-1])
    r, c = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., r, c] = a
    # out has the diagonal dims last; move them to (d1, d2).
    return np.moveaxis(out, (-2, -1), (d1, d2)) if d1 < d2 else np.moveaxis(out, (-2, -1), (d2, d1)).swapaxes(d1, d2)


def _diagonal_scatter(a, src, offset=0, dim1=0, dim2=1):
    out = np.moveaxis(a.copy(), (dim1, dim2), (-2, -1))
    n = src.shape[-1]
    idx = np.arange(n)
    r, c = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., r, c] = src
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _select_scatter(a, src, dim, index):
    out = a.copy()
    idx = [slice(None)] * a.ndim
    idx[dim] = index
    out[tuple(idx)] = src
    return out


def _slice_scatter(a, src, dim=0, start=None, end=None, step=1):
    out = a.copy()
    idx = [slice(None)] * a.ndim
    idx[dim] = slice(start, end, step)
    out[tuple(idx)] = src
    return out


def _meshgrid(tensors, indexing="ij"):
    return tuple(np.meshgrid(*tensors, indexing=indexing))


def _block_diag(*arrays):
    mats = [np.atleast_2d(a) if a.ndim < 2 else a for a in arrays]
    dt = np.result_type(*mats)
    out = np.zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)), dt)
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _cartesian_prod(*arrays):
    if len(arrays) == 1:
        return arrays[0]
    return np.array(list(itertools.product(*arrays)), dtype=np.result_type(*arrays)).reshape(-1, len(arrays))


def _combinations(a, r=2, with_replacement=False):
    f = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(f(a.tolist(), r))
    if r == 0:
        return np.zeros((0,), a.dtype)
    return np.array(rows, dtype=a.dtype).reshape(-1, r)


def _equal(a, b):
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _int_samples(*specs):
    """Integer-only samples (index arrays), the same for every dtype."""
    return lambda dtype: [Sample(args, kw, desc) for args, kw, desc in specs]


def _equal_samples(dtype):
    a = make((2, 3), dtype, seed=0)
    b = a.copy()
    c = make((2, 3), dtype, seed=1)
    d = a.copy().reshape(-1)
    if a.size:
        c.flat[0] = np.logical_not(a.flat[0]) if dtype == "bool" else a.flat[0] + 1
    return [Sample((a, b), {}, "equal"), Sample((a, c), {}, "one differs"), Sample((a, d), {}, "other shape"),
            Sample((make((0,), dtype), make((0,), dtype)), {}, "empty")]


# ---------------------------------------------------------------- the registry

OPS = [
    OpInfo("tensor_split", _tensor_split,
           _s(((7, 3), (3,), {}, "sections, uneven"), ((7, 3), (2, 1), {}, "sections, dim 1"),
              ((7, 3), ([1, 5],), {}, "indices"), ((7, 3), ([2, 1, 9],), {}, "indices out of order, past end"),
              ((2, 4), ([1, 3], -1), {}, "indices, dim -1"), ((0, 3), (2,), {}, "empty dim")),
           errors=[ErrorCase((_a(2, 3), 0), {}, RuntimeError, "number of sections must be larger than 0, got 0"),
                   ErrorCase((np.zeros((), F32), 2), {}, RuntimeError,
                             "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"),
                   ErrorCase((_a(4, 3), 2, 2), {}, IndexError, "Dimension out of range")]),
    # The tensor_indices_or_sections form reads index values on the host: no Meta.
    OpInfo("tensor_split", _tensor_split,
           lambda dt: [Sample((make((6, 2), dt, seed=7), np.array([1, 4], I64)), {}, "tensor indices"),
                       Sample((make((6, 2), dt, seed=8), np.array(4, I64)), {}, "0-dim tensor sections"),
                       Sample((make((2, 6), dt, seed=9), np.array([3], I64), 1), {}, "tensor indices, dim 1")],
           meta=False,
           errors=[ErrorCase((_a(4, 3), np.array([1.0], F32)), {}, RuntimeError,
                             "expected tensor_indices_or_sections to have dtype of long, but got Float"),
                   ErrorCase((_a(4, 3), np.ones((1, 1), I64)), {}, RuntimeError,
                             "zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims")]),
    OpInfo("hsplit", _tup(np.hsplit),
           _s(((2, 6), (3,), {}, "2-d"), ((6,), (2,), {}, "1-d splits dim 0"), ((2, 6, 2), ([1, 4],), {}, "indices")),
           errors=[ErrorCase((np.zeros((), F32), 2), {}, RuntimeError,
                             "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0"),
                   ErrorCase((_a(2, 3), 2), {}, RuntimeError,
                             "torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 is "
                             "not divisible by the split_size 2!")]),
    OpInfo("vsplit", _tup(np.vsplit),
           _s(((4, 3), (2,), {}, "2-d"), ((5, 2), ([1, 3],), {}, "indices")),
           errors=[ErrorCase((_a(3), 3), {}, RuntimeError, "torch.vsplit requires a tensor with at least 2 dimension"),
                   ErrorCase((_a(2, 3), 3), {}, RuntimeError, "the size of the dimension 2 is not divisible by "
                                                              "the split_size 3")]),
    OpInfo("dsplit", _tup(np.dsplit),
           _s(((2, 2, 4), (2,), {}, "3-d"), ((1, 2, 5), ([2],), {}, "indices")),
           errors=[ErrorCase((_a(2, 3), 3), {}, RuntimeError, "torch.dsplit requires a tensor with at least 3 dimension"),
                   ErrorCase((_a(2, 2, 3), 2), {}, RuntimeError, "split along dimension 2")]),
    OpInfo("hstack", np.hstack,
           _lists((((2, 3), (2, 1)), (), {}, "2-d"), (((3,), (2,)), (), {}, "1-d"), (((), ()), (), {}, "0-dim")),
           method=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "hstack expects a non-empty TensorList")]),
    OpInfo("vstack", np.vstack,
           _lists((((2, 3), (1, 3)), (), {}, "2-d"), (((3,), (3,)), (), {}, "1-d"), (((), ()), (), {}, "0-dim")),
           method=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "vstack expects a non-empty TensorList"),
                   ErrorCase(([_a(2, 3), _a(2, 2)],), {}, RuntimeError, "Sizes of tensors must match")]),
    OpInfo("row_stack", np.vstack, _lists((((2, 3), (3,)), (), {}, "2-d and 1-d")), method=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "vstack expects a non-empty TensorList")]),
    OpInfo("dstack", np.dstack,
           _lists((((2, 3), (2, 3)), (), {}, "2-d"), (((3,), (3,)), (), {}, "1-d"), (((2, 2, 1), (2, 2, 2)), (), {}, "3-d")),
           method=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "dstack expects a non-empty TensorList")]),
    OpInfo("column_stack", np.column_stack,
           _lists((((3,), (3, 2)), (), {}, "1-d and 2-d"), (((), ()), (), {}, "0-dim"), (((2, 2), (2, 1)), (), {}, "2-d")),
           method=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "column_stack expects a non-empty TensorList")]),
    OpInfo("atleast_1d", _atleast(np.atleast_1d),
           lambda dt: [Sample((make((), dt),), {}, "0-dim"), Sample((make((2, 3), dt),), {}, "2-d unchanged"),
                       Sample(([make((), dt), make((3,), dt, seed=1)],), {}, "list"),
                       Sample((make((), dt), make((2,), dt, seed=1)), {}, "varargs")],
           method=False, errors=[ErrorCase((3,), {}, TypeError, r"atleast_1d\(\) received an invalid combination")]),
    OpInfo("atleast_2d", _atleast(np.atleast_2d),
           lambda dt: [Sample((make((), dt),), {}, "0-dim"), Sample((make((3,), dt),), {}, "1-d"),
                       Sample((make((2, 3, 1), dt),), {}, "3-d unchanged"),
                       Sample(((make((), dt), make((3,), dt, seed=1)),), {}, "tuple")],
           method=False, errors=[ErrorCase(("a",), {}, TypeError, r"atleast_2d\(\) received an invalid combination")]),
    OpInfo("atleast_3d", _atleast(np.atleast_3d),
           lambda dt: [Sample((make((), dt),), {}, "0-dim"), Sample((make((3,), dt),), {}, "1-d"),
                       Sample((make((2, 3), dt),), {}, "2-d"), Sample((make((1, 2, 3, 4), dt),), {}, "4-d"),
                       Sample((make((3,), dt), make((2, 2), dt, seed=1)), {}, "varargs")],
           method=False, errors=[ErrorCase((2.5,), {}, TypeError, r"atleast_3d\(\) received an invalid combination")]),
    OpInfo("flip", _flip,
           _s(((3, 4), ((0,),), {}, "dim 0"), ((3, 4), ((1,),), {}, "dim 1"), ((2, 3, 4), ((0, 2),), {}, "two dims"),
              ((2, 3, 4), ((-1, 0, 1),), {}, "all, negative"), ((), ((),), {}, "0-dim"), ((0, 3), ((0,),), {}, "empty"),
              ((5,), ([],), {}, "no dims")),
           errors=[ErrorCase((_a(2, 3), (0, 0)), {}, RuntimeError, "dim 0 appears multiple times in the list of dims"),
                   ErrorCase((_a(2, 3), (2,)), {}, IndexError,
                             r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)")]),
    OpInfo("fliplr", np.fliplr, _s(((3, 4), (), {}, "2-d"), ((2, 3, 2), (), {}, "3-d")),
           errors=[ErrorCase((_a(3),), {}, RuntimeError, r"Input must be >= 2-d\.")]),
    OpInfo("flipud", np.flipud, _s(((3, 4), (), {}, "2-d"), ((5,), (), {}, "1-d")),
           errors=[ErrorCase((np.zeros((), F32),), {}, RuntimeError, r"Input must be >= 1-d\.")]),
    OpInfo("roll", _roll,
           _s(((3, 4), (1, 0), {}, "dim 0"), ((3, 4), (-5, 1), {}, "negative, wraps"),
              ((3, 4), ((1, 2), (0, 1)), {}, "two dims"), ((3, 4), (5,), {}, "flattened"),
              ((), (3,), {}, "0-dim"), ((0, 3), (1, 0), {}, "empty"), ((2, 3), (3, 1), {}, "full turn")),
           errors=[ErrorCase((_a(2, 3), (1, 2), (0,)), {}, RuntimeError,
                             "shifts and dimensions must align. shifts: 2, dims:1"),
                   ErrorCase((_a(2, 3), ()), {}, RuntimeError, "`shifts` required"),
                   ErrorCase((_a(2, 3), 1, 2), {}, IndexError, "Dimension out of range")]),
    OpInfo("rot90", _rot90,
           _s(((3, 4), (), {}, "default"), ((3, 4), (2,), {}, "k=2"), ((3, 4), (-1,), {}, "k=-1"),
              ((2, 3, 4), (1, (2, 0)), {}, "dims (2, 0)"), ((3, 4), (4,), {}, "full turn"),
              ((2, 3, 4), (3, (-1, -2)), {}, "k=3 negative dims")),
           errors=[ErrorCase((_a(2, 3), 1, (0,)), {}, RuntimeError, "expected total rotation dims == 2, but got dims = 1"),
                   ErrorCase((_a(2, 3), 1, (0, 0)), {}, RuntimeError,
                             "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"),
                   ErrorCase((_a(3), 1, (0, 1)), {}, RuntimeError, "expected total dims >= 2, but got total dims = 1"),
                   ErrorCase((_a(2, 3), 1, (0, 5)), {}, IndexError, "Dimension out of range")]),
    OpInfo("tile", np.tile,
           _s(((2, 3), ((2, 2),), {}, "2x2"), ((2, 3), ((2,),), {}, "fewer dims"), ((3,), ((2, 1, 2),), {}, "more dims"),
              ((), ((3,),), {}, "0-dim"), ((2, 3), ((0, 1),), {}, "zero reps"), ((2, 3), ((),), {}, "no reps")),
           errors=[ErrorCase((_a(2, 3), (-1, 2)), {}, RuntimeError,
                             r"Trying to create tensor with negative dimension -2: \[-2, 6\]")]),
    OpInfo("repeat_interleave", _repeat_interleave,
           _s(((2, 3), (2,), {}, "int, flattened"), ((2, 3), (3, 1), {}, "int, dim 1"),
              ((2, 3), (2,), {"dim": 0, "output_size": 4}, "int, output_size"), ((), (2,), {}, "0-dim"),
              ((2, 3), (0, 0), {}, "zero repeats")),
           errors=[ErrorCase((_a(2, 3), -1), {}, RuntimeError, "Repeats must be non-negative"),
                   ErrorCase((_a(2, 3), 2), {"dim": 0, "output_size": 5}, RuntimeError,
                             "Invalid output_size, expected 4 but got 5")]),
    # Tensor repeats are read on the host: no Meta.
    OpInfo("repeat_interleave", _repeat_interleave,
           lambda dt: [Sample((make((3, 2), dt, seed=5), np.array([1, 0, 3], I64)), {"dim": 0}, "tensor repeats"),
                       Sample((make((2, 3), dt, seed=6), np.array([2, 2, 1], I64), -1), {"output_size": 5},
                              "tensor, dim -1"),
                       Sample((make((2, 2), dt, seed=7), np.array([3], I64)), {}, "one-element tensor"),
                       Sample((make((4,), dt, seed=8), np.array([1, 1, 1, 1], I64)), {}, "all ones")],
           meta=False,
           errors=[ErrorCase((_a(2, 3), np.array([1, 2], I64)), {"dim": 1}, RuntimeError,
                             r"repeats must have the same size as input along dim, but got repeats.size\(0\) = 2 "
                             r"and input.size\(1\) = 3"),
                   ErrorCase((np.array([1, -2], I64),), {}, RuntimeError, "repeats can not be negative"),
                   ErrorCase((np.array([[1, 2]], I64),), {}, RuntimeError,
                             "repeat_interleave only accept 1D vector as repeat"),
                   ErrorCase((np.array([1, 2], I64),), {"output_size": 2}, RuntimeError,
                             "allocated size does not match required size")]),
    # repeat_interleave(repeats): the index form, integer in, integer out.
    OpInfo("repeat_interleave", _repeat_interleave,
           _int_samples(((np.array([2, 0, 1, 3], I64),), {}, "int64"),
                        ((np.array([0, 0], I64),), {}, "all zero"), ((np.array([3], I64),), {"output_size": 3}, "size")),
           dtypes=("int64",), method=False, meta=False, grad=False, ref_dtype=lambda dt: "int64",
           errors=[ErrorCase((np.array([1.0, 2.0], F32),), {}, NotImplementedError, "not implemented for 'Float'")]),
    OpInfo("tril", np.tril,
           _s(((4, 5), (), {}, "2-d"), ((4, 5), (1,), {}, "k=1"), ((4, 5), (-2,), {}, "k=-2"),
              ((2, 3, 3), (), {}, "batch"), ((3, 4), (10,), {}, "k past end"), ((3, 4), (-10,), {}, "k before start"),
              ((0, 3), (), {}, "empty")),
           inplace=True,
           errors=[ErrorCase((_a(3),), {}, RuntimeError, "tril: input tensor must have at least 2 dimensions")]),
    OpInfo("triu", np.triu,
           _s(((4, 5), (), {}, "2-d"), ((4, 5), (2,), {}, "k=2"), ((4, 5), (-1,), {}, "k=-1"),
              ((2, 3, 3), (), {}, "batch"), ((3, 4), (10,), {}, "k past end")),
           inplace=True,
           errors=[ErrorCase((_a(3),), {}, RuntimeError, "triu: input tensor must have at least 2 dimensions")]),
    OpInfo("tril_indices", _tri_indices(np.tril_indices),
           _int_samples(((3, 3), {}, "square"), ((4, 3, 1), {}, "offset 1"), ((3, 5, -1), {}, "offset -1"),
                        ((0, 3), {}, "no rows"), ((3, 4), {"dtype": None}, "default dtype")),
           dtypes=("int64",), method=False, meta=False, factory=True, grad=False,
           errors=[ErrorCase((-1, 2), {}, RuntimeError, "row must be non-negative, got-1"),
                   ErrorCase((2, -1), {}, RuntimeError, "col must be non-negative, got-1")]),
    OpInfo("triu_indices", _tri_indices(np.triu_indices),
           _int_samples(((3, 3), {}, "square"), ((4, 3, 1), {}, "offset 1"), ((3, 5, -2), {}, "offset -2"),
                        ((3, 0), {}, "no cols")),
           dtypes=("int64",), method=False, meta=False, factory=True, grad=False,
           errors=[ErrorCase((3, 3), {"dtype": __import__("torchlike").float32}, NotImplementedError,
                             "\"triu_indices\" not implemented for 'Float'")]),
    OpInfo("diag", np.diag,
           _s(((3,), (), {}, "1-d -> matrix"), ((3,), (1,), {}, "1-d, above"), ((3,), (-2,), {}, "1-d, below"),
              ((3, 4), (), {}, "2-d -> diagonal"), ((3, 4), (2,), {}, "2-d, offset"), ((3, 4), (-1,), {}, "2-d, below"),
              ((0,), (), {}, "empty")),
           errors=[ErrorCase((_a(2, 2, 2),), {}, RuntimeError, r"diag\(\): Supports 1D or 2D tensors. Got 3D")]),
    OpInfo("diag_embed", _diag_embed,
           _s(((2, 3), (), {}, "batch"), ((3,), (1,), {}, "offset"), ((2, 3), (-1, 0, 2), {}, "dims 0, 2"),
              ((2, 3), (0, -1, 0), {}, "dims reversed")),
           errors=[ErrorCase((_a(2, 3), 0, 1, 1), {}, RuntimeError, "diagonal dimensions cannot be identical 1, 1")]),
    OpInfo("diagflat", np.diagflat,
           _s(((3,), (), {}, "1-d"), ((2, 2), (1,), {}, "2-d flattened"), ((), (), {}, "0-dim"),
              ((3,), (-1,), {}, "below")),
           errors=[ErrorCase((_a(2), 1.5), {}, TypeError, r"diagflat\(\): argument 'offset'")]),
    OpInfo("diagonal_scatter", _diagonal_scatter,
           lambda dt: [Sample((make((3, 4), dt), make((3,), dt, seed=1)), {}, "main"),
                       Sample((make((3, 4), dt), make((2,), dt, seed=1), 2), {}, "offset 2"),
                       Sample((make((3, 4), dt), make((2,), dt, seed=1), -1), {}, "offset -1"),
                       Sample((make((2, 3, 3), dt), make((2, 3), dt, seed=1), 0, 1, 2), {}, "batched dims")],
           errors=[ErrorCase((_a(2, 3), _a(3)), {}, RuntimeError,
                             r"expected src to have a size equal to the slice of self. src size = \[3\], slice size = "
                             r"\[2\]")]),
    OpInfo("select_scatter", _select_scatter,
           lambda dt: [Sample((make((3, 4), dt), make((4,), dt, seed=1), 0, 1), {}, "row"),
                       Sample((make((3, 4), dt), make((3,), dt, seed=1), 1, -1), {}, "last column"),
                       Sample((make((2, 3, 4), dt), make((2, 4), dt, seed=1), 1, 2), {}, "3-d")],
           errors=[ErrorCase((_a(2, 3), _a(2), 0, 0), {}, RuntimeError, "src size = \\[2\\], slice size = \\[3\\]"),
                   ErrorCase((_a(2, 3), _a(3), 0, 5), {}, IndexError, "index 5 out of range")]),
    OpInfo("slice_scatter", _slice_scatter,
           lambda dt: [Sample((make((4, 3), dt), make((2, 3), dt, seed=1)), {"start": 1, "end": 3}, "rows 1:3"),
                       Sample((make((4, 6), dt), make((4, 3), dt, seed=1), 1, None, None, 2), {}, "every 2nd column"),
                       Sample((make((4, 3), dt), make((4, 3), dt, seed=1)), {}, "whole")],
           errors=[ErrorCase((_a(2, 3), _a(2, 2), 1, 0, 1), {}, RuntimeError,
                             r"src size = \[2, 2\], slice size = \[2, 1\]")]),
    OpInfo("meshgrid", _meshgrid,
           lambda dt: [Sample(([make((3,), dt), make((2,), dt, seed=1)],), {"indexing": "ij"}, "ij"),
                       Sample(([make((3,), dt), make((2,), dt, seed=1), make((4,), dt, seed=2)],), {"indexing": "xy"},
                              "xy, three"),
                       Sample(([make((), dt), make((2,), dt, seed=1)],), {"indexing": "ij"}, "0-dim input"),
                       Sample(([make((3,), dt)],), {"indexing": "xy"}, "one")],
           method=False,
           errors=[ErrorCase(([],), {"indexing": "ij"}, RuntimeError, "meshgrid expects a non-empty TensorList"),
                   ErrorCase(([_a(2, 2)],), {"indexing": "ij"}, RuntimeError,
                             "torch.meshgrid: Expected 0D or 1D tensor in the tensor list"),
                   ErrorCase(([_a(2), _a(2, dtype=I64)],), {"indexing": "ij"}, RuntimeError,
                             "meshgrid expects all tensors to have the same dtype"),
                   ErrorCase(([_a(2)],), {"indexing": "foo"}, RuntimeError,
                             'indexing must be one of "xy" or "ij", but received: foo')]),
    OpInfo("broadcast_tensors", _tup(np.broadcast_arrays),
           _varargs((((3, 1), (4,)), {}, "two"), (((), (2, 3), (3,)), {}, "three with 0-dim"), (((2, 2),), {}, "one")),
           method=False,
           errors=[ErrorCase((_a(2), _a(3)), {}, RuntimeError,
                             r"The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton "
                             r"dimension 0")]),
    OpInfo("block_diag", _block_diag,
           _varargs((((2, 2), (3,), ()), {}, "2-d, 1-d, 0-dim"), (((2, 3), (1, 2)), {}, "rectangular"),
                    (((2, 0), (1, 1)), {}, "empty block")),
           method=False,
           errors=[ErrorCase((_a(2, 2, 2),), {}, RuntimeError,
                             "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions")]),
    OpInfo("cartesian_prod", _cartesian_prod,
           _varargs((((3,), (2,)), {}, "two"), (((2,), (2,), (3,)), {}, "three"), (((4,),), {}, "one")),
           method=False,
           errors=[ErrorCase((_a(2, 2), _a(2)), {}, RuntimeError, r"Expect a 1D vector, but got shape \[2, 2\]")]),
    OpInfo("combinations", _combinations,
           _s(((4,), (), {}, "r=2"), ((5,), (3,), {}, "r=3"), ((3,), (2, True), {}, "with replacement"),
              ((4,), (1,), {}, "r=1"), ((3,), (0,), {}, "r=0"), ((2,), (3,), {}, "r > n"),
              ((3,), (3, True), {}, "r=3 with replacement")),
           method=False,
           errors=[ErrorCase((_a(2, 2),), {}, RuntimeError, r"Expect a 1D vector, but got shape \[2, 2\]"),
                   ErrorCase((_a(3), -1), {}, RuntimeError, "Expect a non-negative number, but got -1")]),
    OpInfo("equal", _equal, _equal_samples, meta=False, meta_raises=True, grad=False,
           errors=[ErrorCase((_a(2),), {}, TypeError, "equal")]),
]
