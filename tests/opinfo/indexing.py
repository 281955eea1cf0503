"""Advanced indexing and the masked ops, checked against NumPy's fancy indexing.

index(x, [i0, i1, ...]) is x[i0, i1, ...] with index tensors in leading
positions (where NumPy and PyTorch place the result block alike); the Python
x[...] forms, None/slices between indices and PyTorch-only placement are in
tests/test_indexing.py. Ops whose result shape depends on values (masks,
nonzero, masked_select) have no Meta shapes, as in PyTorch.
"""
import numpy as np

from .core import ALL_DTYPES, ErrorCase, OpInfo, Sample, make

I64 = np.int64


def _ix(*vals):
    return np.array(vals, dtype=I64)


def _mask(shape, seed):
    return make(shape, "bool", seed=seed)


# ------------------------------------------------------------ index / index_put

def _np_index(indices):
    # A byte index is a mask for PyTorch (deprecated), an integer array for NumPy.
    return tuple(i.astype(np.bool_) if i.dtype == np.uint8 else i for i in indices)


def _index_ref(x, indices):
    return x[_np_index(indices)]


def _index_int_samples(dtype):
    x = make((4, 5), dtype, seed=1)
    x3 = make((3, 4, 5), dtype, seed=2)
    return [
        Sample((x, [_ix(0, 2, -1, 2)]), desc="rows, repeats, negative"),
        Sample((x, [_ix(3, 0), _ix(-1, 4)]), desc="pairs"),
        Sample((x, [_ix(0, 3).reshape(2, 1), _ix(1, 2, 4)]), desc="broadcast 2x1 with 3"),
        Sample((x3, [_ix(2, 0, 1).reshape(3, 1)]), desc="2-d index, trailing dims kept"),
        Sample((x3, [_ix(1, 2), _ix(0, 3)]), desc="two of three dims"),
        Sample((x, [np.array([3, 1], dtype=np.int32)]), desc="int32 index"),
        Sample((x, [np.zeros((0,), I64)]), desc="empty index"),
        Sample((make((5,), dtype, seed=3), [_ix(4, 4, 0)]), desc="1-d"),
    ]


def _index_mask_samples(dtype):
    x = make((4, 5), dtype, seed=4)
    x3 = make((3, 4, 5), dtype, seed=5)
    return [
        Sample((x, [_mask((4, 5), 6)]), desc="full mask"),
        Sample((x, [_mask((4,), 7)]), desc="mask over rows"),
        Sample((x3, [_mask((3, 4), 8)]), desc="mask over two leading dims"),
        Sample((x, [np.zeros((4, 5), np.bool_)]), desc="empty selection"),
        Sample((x, [_mask((4,), 9).astype(np.uint8)]), desc="byte mask"),
        Sample((x, [_mask((4,), 10), _ix(1, 3)[:1]]), desc="mask and index"),
    ]


def _index_put_ref(x, indices, values, accumulate=False):
    out = x.copy()
    if accumulate:
        np.add.at(out, _np_index(indices), values.astype(out.dtype))
        return out.astype(x.dtype)
    out[_np_index(indices)] = values
    return out


def _index_put_samples(dtype):
    x = make((4, 5), dtype, seed=11)
    x3 = make((3, 4, 5), dtype, seed=12)
    return [
        Sample((x, [_ix(0, 2, -1)], make((3, 5), dtype, seed=13)), desc="rows"),
        Sample((x, [_ix(0, 2, -1)], make((5,), dtype, seed=14)), desc="values broadcast"),
        Sample((x, [_ix(1, 3), _ix(-1, 0)], make((), dtype, seed=15)), desc="0-dim value"),
        Sample((x3, [_ix(2, 0), _ix(1, 3)], make((2, 5), dtype, seed=16)), desc="two dims"),
        Sample((x, [_ix(0, 0, 3, 0)], make((4, 5), dtype, seed=17)), {"accumulate": True},
               desc="accumulate with repeats"),
        Sample((x, [_ix(1, 1), _ix(2, 2)], make((2,), dtype, seed=18)), {"accumulate": True},
               desc="accumulate, repeated element"),
        Sample((x, [_mask((4, 5), 19)], make((), dtype, seed=20)), desc="mask, scalar value"),
        Sample((x, [_mask((4,), 21)], make((5,), dtype, seed=22)), {"accumulate": True},
               desc="row mask accumulate"),
        Sample((x, [np.array([2, 0], dtype=np.int32)], make((2, 5), dtype, seed=23)), desc="int32"),
    ]


_INDEX_ERRORS = [
    ErrorCase((np.zeros((3, 4), np.float32), [_ix(3)]), {}, IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    ErrorCase((np.zeros((3, 4), np.float32), [_ix(0), _ix(-5)]), {}, IndexError, "index -5 is out of bounds for dimension 1"),
    ErrorCase((np.zeros((3, 4), np.float32), [np.ones((2,), np.bool_)]), {}, IndexError,
              r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed tensor \[3, 4\]"),
    ErrorCase((np.zeros((3, 4), np.float32), [np.zeros(1, np.float32)]), {}, IndexError,
              "tensors used as indices must be long, int, byte or bool tensors"),
    ErrorCase((np.zeros((3, 4), np.float32), [_ix(0, 1), _ix(0, 1, 2)]), {}, IndexError,
              r"shape mismatch: indexing tensors could not be broadcast together with shapes \[2\], \[3\]"),
    ErrorCase((np.zeros((3,), np.float32), [_ix(0), _ix(0)]), {}, IndexError, "too many indices"),
]

_INDEX_PUT_ERRORS = [
    ErrorCase((np.zeros((3, 4), np.float32), [_ix(7)], np.ones((4,), np.float32)), {}, IndexError,
              "index 7 is out of bounds for dimension 0 with size 3"),
    ErrorCase((np.zeros((3, 4), np.float32), [_ix(0)], np.ones((4,), np.float64)), {}, RuntimeError,
              "Index put requires the source and destination dtypes match, got Float for the destination and Double"),
    ErrorCase((np.zeros((3, 4), np.float32), [_ix(0)], np.ones((3, 4), np.float32)), {}, RuntimeError,
              r"shape mismatch: value tensor of shape \[3, 4\] cannot be broadcast to indexing result of shape \[1, 4\]"),
    ErrorCase((np.zeros((3, 4), np.float32), [np.ones((3, 5), np.bool_)], np.ones((), np.float32)), {}, IndexError,
              "The shape of the mask"),
]


# ------------------------------------------------------------ nonzero family

def _nz_samples(dtype):
    return [Sample((make((4, 5), dtype, seed=30, low=-1, high=1),), desc="2-d"),
            Sample((make((7,), dtype, seed=31, low=-1, high=1),), desc="1-d"),
            Sample((make((2, 3, 4), dtype, seed=32, low=-1, high=1),), desc="3-d"),
            Sample((np.zeros((3, 0), dtype=make((1,), dtype).dtype),), desc="empty"),
            Sample((make((), dtype, seed=33, nonzero=True),), desc="0-dim")]


def _where_samples(dtype):
    return [s for s in _nz_samples(dtype) if s.desc != "0-dim"]


def _argwhere_ref(x):
    return np.argwhere(x).astype(I64)


def _nonzero_tuple_ref(x):
    return tuple(i.astype(I64) for i in np.nonzero(np.atleast_1d(x)))


# ------------------------------------------------------------ masked ops

def _masked_fill_ref(x, mask, value):
    out = np.broadcast_to(x, np.broadcast_shapes(x.shape, mask.shape)).copy()
    out[np.broadcast_to(mask, out.shape)] = np.asarray(value).astype(x.dtype)
    return out


def _masked_fill_samples(dtype):
    v = True if dtype == "bool" else 3
    return [Sample((make((4, 5), dtype, seed=40), _mask((4, 5), 41), v), desc="same shape"),
            Sample((make((4, 5), dtype, seed=42), _mask((5,), 43), v), desc="mask broadcast"),
            Sample((make((1, 5), dtype, seed=44), _mask((3, 1), 45), v), desc="both broadcast"),
            Sample((make((), dtype, seed=46), np.array(True), v), desc="0-dim")]


def _masked_fill_tensor_samples(dtype):
    return [Sample((make((4, 5), dtype, seed=47), _mask((4, 5), 48), make((), dtype, seed=49)), desc="0-dim value"),
            Sample((make((4, 5), dtype, seed=50), _mask((4, 1), 51), make((), dtype, seed=52)), desc="mask broadcast")]


def _masked_select_ref(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def _masked_select_samples(dtype):
    return [Sample((make((4, 5), dtype, seed=60), _mask((4, 5), 61)), desc="same shape"),
            Sample((make((4, 5), dtype, seed=62), _mask((5,), 63)), desc="mask broadcast"),
            Sample((make((4, 1), dtype, seed=64), _mask((4, 3), 65)), desc="self broadcast"),
            Sample((make((3,), dtype, seed=66), np.zeros(3, np.bool_)), desc="nothing selected")]


def _masked_scatter_ref(x, mask, source):
    out = np.broadcast_to(x, np.broadcast_shapes(x.shape, mask.shape)).copy()
    m = np.broadcast_to(mask, out.shape)
    out[m] = source.ravel()[:int(m.sum())]
    return out


def _masked_scatter_samples(dtype):
    return [Sample((make((4, 5), dtype, seed=70), _mask((4, 5), 71), make((4, 5), dtype, seed=72)), desc="same shape"),
            Sample((make((4, 5), dtype, seed=73), _mask((5,), 74), make((30,), dtype, seed=75)),
                   desc="mask broadcast, longer source"),
            Sample((make((3,), dtype, seed=76), np.zeros(3, np.bool_), make((2,), dtype, seed=77)), desc="no ones")]


# ------------------------------------------------------------ take / put

def _take_ref(x, index):
    return np.take(x.ravel(), index)


def _take_samples(dtype):
    x = make((3, 4), dtype, seed=80)
    return [Sample((x, _ix(0, 5, -1, 11, 5)), desc="repeats, negative"),
            Sample((x, _ix(0, 5, 2, 7).reshape(2, 2)), desc="2-d index"),
            Sample((make((3, 4), dtype, seed=81).T, _ix(1, 4, 6)), desc="transposed self"),
            Sample((x, np.zeros((0,), I64)), desc="empty index")]


def _put_ref(x, index, source, accumulate=False):
    out = x.copy().ravel()
    idx = np.where(index < 0, index + out.size, index).ravel()
    if accumulate:
        np.add.at(out, idx, source.ravel().astype(out.dtype))
    else:
        out[idx] = source.ravel()
    return out.reshape(x.shape).astype(x.dtype)


def _put_samples(dtype):
    x = make((3, 4), dtype, seed=90)
    return [Sample((x, _ix(0, 5, -1), make((3,), dtype, seed=91)), desc="distinct"),
            Sample((x, _ix(0, 5, 0, 5).reshape(2, 2), make((4,), dtype, seed=92)), {"accumulate": True},
                   desc="accumulate repeats, source of another shape"),
            Sample((x, _ix(1, 2), make((2, 1), dtype, seed=93)), desc="source 2x1")]


_F = np.zeros((3, 4), np.float32)
_M = np.ones((3, 4), np.bool_)

OPS = [
    OpInfo("index", _index_ref, _index_int_samples, method=False, errors=_INDEX_ERRORS),
    OpInfo("index", _index_ref, _index_mask_samples, method=False, meta=False),
    OpInfo("index_put", _index_put_ref, _index_put_samples, inplace=True, errors=_INDEX_PUT_ERRORS),
    OpInfo("nonzero", _argwhere_ref, _nz_samples, meta=False, meta_raises=True, grad=False,
           ref_dtype=lambda d: "int64", errors=[
               ErrorCase((np.zeros((2, 2), np.float32),), {"as_tuple": 1}, TypeError, "as_tuple")]),
    OpInfo("argwhere", _argwhere_ref, _nz_samples, meta=False, meta_raises=True, grad=False, ref_dtype=lambda d: "int64",
           errors=[ErrorCase((), {}, TypeError, "argwhere")]),
    OpInfo("nonzero_numpy", _nonzero_tuple_ref, _nz_samples, method=False, meta=False, meta_raises=True, grad=False,
           ref_dtype=lambda d: "int64", errors=[ErrorCase((), {}, TypeError, "nonzero_numpy")]),
    OpInfo("where", _nonzero_tuple_ref, _where_samples, method=False, meta=False, grad=False,
           ref_dtype=lambda d: "int64", errors=[ErrorCase((), {}, TypeError, "where")]),
    OpInfo("masked_fill", _masked_fill_ref, _masked_fill_samples, inplace=True, errors=[
        ErrorCase((_F, np.ones((3, 4), np.uint8), 1.0), {}, RuntimeError,
                  "masked_fill_ only supports boolean masks, but got mask with dtype Byte"),
        ErrorCase((_F, _M, np.ones(2, np.float32)), {}, RuntimeError,
                  r"only supports a 0-dimensional value tensor, but got tensor with 1 dimension"),
        ErrorCase((_F, np.ones((3, 5), np.bool_), 1.0), {}, RuntimeError, "must match the size")]),
    OpInfo("masked_fill", _masked_fill_ref, _masked_fill_tensor_samples, inplace=True),
    OpInfo("masked_select", _masked_select_ref, _masked_select_samples, meta=False, meta_raises=True, errors=[
        ErrorCase((_F, np.ones((3, 4), np.uint8)), {}, RuntimeError, "masked_select: expected BoolTensor for mask"),
        ErrorCase((_F, np.ones((3, 5), np.bool_)), {}, RuntimeError, "must match the size")]),
    OpInfo("masked_scatter", _masked_scatter_ref, _masked_scatter_samples, inplace=True, errors=[
        ErrorCase((_F, _M, np.ones(3, np.float32)), {}, RuntimeError,
                  "Number of elements of source < number of ones in mask"),
        ErrorCase((_F, np.ones((3, 4), np.uint8), np.ones(12, np.float32)), {}, RuntimeError,
                  "masked_scatter_ only supports boolean masks"),
        ErrorCase((_F, _M, np.ones(12, np.float64)), {}, RuntimeError,
                  "masked_scatter_: expected self and source to have same dtypes")]),
    OpInfo("take", _take_ref, _take_samples, errors=[
        ErrorCase((_F, _ix(12)), {}, IndexError, "out of range: tried to access index 12 on a tensor of 12 elements"),
        ErrorCase((_F, _ix(-13)), {}, IndexError, "out of range: tried to access index -13"),
        ErrorCase((_F, np.array([1], np.int32)), {}, RuntimeError, "take\\(\\): Expected a long tensor for index, but got Int")]),
    OpInfo("put", _put_ref, _put_samples, inplace=True, errors=[
        ErrorCase((_F, _ix(20), np.ones(1, np.float32)), {}, IndexError,
                  "out of range: tried to access index 20 on a tensor of 12 elements"),
        ErrorCase((_F, _ix(1, 2), np.ones(1, np.float32)), {}, RuntimeError,
                  "Expected source and index to have the same number of elements"),
        ErrorCase((_F, _ix(1), np.ones(1, np.float64)), {}, RuntimeError, "same dtype")]),
]

assert all(set(op.dtypes) == set(ALL_DTYPES) for op in OPS)
