"""gather, scatter (src / value / reduce=), scatter_add, scatter_reduce,
index_select, index_add, index_copy, index_fill, index_reduce and
take_along_dim, against NumPy references (np.take_along_axis, np.put_along_axis,
np.add.at and its siblings).

Index tensors are int64 arrays (never perturbed by gradcheck). Ops whose
gradient is only defined without repeated targets (scatter, index_copy) are
sampled with distinct indices along dim; the reductions get duplicates.
"""
import numpy as np

from .core import ALL_DTYPES, ErrorCase, OpInfo, Sample, make, sample_seed

F64 = np.float64
M32 = np.zeros((3, 4), np.float32)
I2 = np.array([[0, 1], [2, 0]], np.int64)


def _rng(*key):
    return np.random.default_rng(sample_seed("scatter_gather", *key))


def _ndim1(a):
    """0-dim arrays act as 1-element 1-D ones (PyTorch's rule for these ops)."""
    return a.reshape(1) if a.ndim == 0 else a


def _work(x):
    """The array a reference computes in: float64 for floats (rounded once at
    the end, as torchlike's float accumulation does), the dtype itself otherwise."""
    x = np.asarray(x)
    return x.astype(F64) if x.dtype.kind == "f" else x.copy()


def _fancy(idx, dim):
    """Index tuple addressing, for every position p of idx, p with coordinate
    dim replaced by idx[p]."""
    grids = list(np.indices(idx.shape, sparse=True))
    grids[dim] = idx
    return tuple(grids)


def _part(a, shape, dim=None):
    """a's leading block of `shape` (all dims but dim, where dim is given)."""
    return a[tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(shape))]


def _index_as_scatter(idx, dim, shape):
    """A 1-D index of the index_* ops as a scatter index of `shape`."""
    view = [1] * len(shape)
    view[dim] = -1
    return np.broadcast_to(_ndim1(idx).reshape(view), shape)


# ---------------------------------------------------------------- references

def gather_ref(x, dim, idx, sparse_grad=False):
    x0 = np.asarray(x)
    x, idx = _ndim1(x0), _ndim1(np.asarray(idx))
    if idx.size == 0:
        return np.zeros(np.asarray(idx).shape, x0.dtype)
    r = np.take_along_axis(_part(x, idx.shape, dim % x.ndim), idx, axis=dim % x.ndim)
    return r.reshape(np.shape(idx) if np.ndim(x0) else ())


REDUCE_UFUNC = {"sum": np.add, "add": np.add, "prod": np.multiply, "multiply": np.multiply, "amax": np.maximum,
                "amin": np.minimum, "mean": np.add}
BOOL_UFUNC = {"sum": np.logical_or, "add": np.logical_or, "prod": np.logical_and, "multiply": np.logical_and,
              "amax": np.logical_or, "amin": np.logical_and}


def _identity(reduce, dtype):
    if reduce in ("prod", "multiply"):
        return 1
    if reduce in ("amax", "amin"):
        if dtype.kind == "f":
            return -np.inf if reduce == "amax" else np.inf
        if dtype.kind == "b":
            return reduce == "amin"
        info = np.iinfo(dtype)
        return info.min if reduce == "amax" else info.max
    return 0


def _scatter_into(x, dim, idx, src, reduce=None, include_self=True, alpha=None):
    """The reference of every scatter-like op: src (array, index-shaped block
    of it used) or a scalar into a copy of x at _fancy(idx, dim)."""
    x0 = np.asarray(x)
    out = _work(_ndim1(x0))
    idx = _ndim1(np.asarray(idx))
    if idx.size == 0:
        return x0.copy()
    d = dim % out.ndim
    where = _fancy(idx, d)
    if isinstance(src, np.ndarray):
        vals = _part(_ndim1(src), idx.shape).astype(out.dtype)
    else:
        vals = np.full(idx.shape, src).astype(out.dtype)
    if alpha is not None and alpha != 1:
        vals = vals * alpha if out.dtype.kind != "b" else np.logical_and(vals, bool(alpha))
        vals = vals.astype(out.dtype)
    if reduce is None:
        out[where] = vals  # duplicates: the last one wins, as torchlike's ordered loop
    else:
        if not include_self:
            out[where] = _identity(reduce, out.dtype)
        if reduce == "mean":
            count = np.full(out.shape, 1 if include_self else 0, np.int64)
            np.add.at(count, where, 1)
            np.add.at(out, where, vals)
            count[count == 0] = 1
            out = out / count if out.dtype.kind == "f" else out // count.astype(out.dtype)
        else:
            ufunc = (BOOL_UFUNC if out.dtype.kind == "b" else REDUCE_UFUNC)[reduce]
            ufunc.at(out, where, vals)
    return out.astype(x0.dtype).reshape(x0.shape)


def scatter_ref(x, dim, idx, src, reduce=None):
    return _scatter_into(x, dim, idx, src, reduce)


def scatter_add_ref(x, dim, idx, src):
    return _scatter_into(x, dim, idx, src, "sum")


def scatter_reduce_ref(x, dim, idx, src, reduce, include_self=True):
    return _scatter_into(x, dim, idx, src, reduce, include_self)


def index_select_ref(x, dim, idx):
    x = np.asarray(x)
    if x.ndim == 0:
        return x.copy()
    return np.take(x, _ndim1(np.asarray(idx)), axis=dim % x.ndim)


def _index_op(x, dim, idx, source, reduce=None, include_self=True, alpha=None):
    x0 = np.asarray(x)
    shape = list(_ndim1(x0).shape)
    d = dim % len(shape)
    shape[d] = _ndim1(np.asarray(idx)).size
    if isinstance(source, np.ndarray):
        source = _ndim1(source).reshape(shape)
    return _scatter_into(x0, dim, _index_as_scatter(np.asarray(idx), d, shape), source, reduce, include_self, alpha)


def index_add_ref(x, dim, idx, source, alpha=1):
    return _index_op(x, dim, idx, source, "sum", alpha=alpha)


def index_copy_ref(x, dim, idx, source):
    return _index_op(x, dim, idx, source)


def index_fill_ref(x, dim, idx, value):
    x0 = np.asarray(x)
    size = _ndim1(x0).shape[dim % max(x0.ndim, 1)]
    idx = np.where(np.asarray(idx) < 0, np.asarray(idx) + size, np.asarray(idx))  # index_fill wraps negatives
    return _index_op(x0, dim, idx, np.asarray(value).item() if isinstance(value, np.ndarray) else value)


def index_reduce_ref(x, dim, idx, source, reduce, include_self=True):
    return _index_op(x, dim, idx, source, reduce, include_self)


def take_along_dim_ref(x, idx, dim=None):
    x, idx = np.asarray(x), np.asarray(idx)
    if dim is None:
        return x.reshape(-1)[idx.reshape(-1)]
    d = dim % x.ndim
    xs, js = list(x.shape), list(idx.shape)
    xs[d], js[d] = idx.shape[d], x.shape[d]
    idx_b = np.broadcast_to(idx, np.broadcast_shapes(tuple(xs), idx.shape))
    x_b = np.broadcast_to(x, np.broadcast_shapes(tuple(js), x.shape))
    return np.take_along_axis(x_b, idx_b, axis=d)


# ---------------------------------------------------------------- samples

def _idx(shape, high, seed, unique_dim=None):
    """int64 indices in [0, high); with unique_dim, distinct along that dim
    (needs shape[unique_dim] <= high)."""
    rng = _rng(shape, high, seed, unique_dim)
    if unique_dim is None:
        return rng.integers(0, high, size=shape).astype(np.int64)
    moved = list(shape)
    n = moved.pop(unique_dim)
    rows = [rng.permutation(high)[:n] for _ in range(int(np.prod(moved)) if moved else 1)]
    a = np.array(rows, np.int64).reshape(moved + [n])
    return np.moveaxis(a, -1, unique_dim)


def gather_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    return [
        Sample((x, 1, _idx((4, 7, 3), 5, 1)), {}, "dim1 larger along dim"),
        Sample((x, 0, _idx((2, 3, 2), 4, 2)), {}, "dim0 index smaller"),
        Sample((x, -1, _idx((4, 5, 6), 3, 3)), {}, "dim-1"),
        Sample((x.transpose(2, 0, 1), 2, _idx((3, 4, 2), 5, 4)), {}, "non-contiguous self"),
        Sample((make((), dtype, seed=2), 0, np.array(0, np.int64)), {}, "0-dim"),
        Sample((make((6,), dtype, seed=3), 0, _idx((9,), 6, 5)), {"sparse_grad": False}, "1-D sparse_grad=False"),
        Sample((x, 1, np.zeros((0, 2, 3), np.int64)), {}, "empty index"),
    ]


def scatter_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    src = make((4, 5, 3), dtype, seed=2)
    return [
        Sample((x, 1, _idx((3, 4, 2), 5, 1, unique_dim=1), src), {}, "dim1 index smaller than src"),
        Sample((x, 0, _idx((4, 5, 3), 4, 2, unique_dim=0), src), {}, "dim0 full"),
        Sample((x, -1, _idx((4, 2, 3), 3, 3, unique_dim=2), src), {}, "dim-1"),
        Sample((make((), dtype, seed=3), 0, np.array(0, np.int64), make((), dtype, seed=4)), {}, "0-dim"),
        Sample((x, 1, np.zeros((0,), np.int64), src), {}, "empty index"),
    ]


def scatter_value_samples(dtype):
    x = make((4, 5), dtype, seed=1)
    v = True if dtype == "bool" else 3
    return [Sample((x, 1, _idx((3, 4), 5, 1), v), {}, "value"),
            Sample((x, 0, _idx((2, 5), 4, 2), v), {}, "dim0 value")]


def scatter_legacy_reduce_samples(dtype):
    x = make((4, 5), dtype, -3, 3, seed=1)
    src = make((4, 5), dtype, -3, 3, seed=2)
    idx = _idx((4, 3), 5, 3)  # duplicates along dim 1
    out = [Sample((x, 1, idx, src), {"reduce": r}, r) for r in ("add", "multiply")]
    v = True if dtype == "bool" else 2
    out += [Sample((x, 0, _idx((6, 5), 4, 4), v), {"reduce": r}, "value " + r) for r in ("add", "multiply")]
    return out


def scatter_add_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    src = make((5, 6, 3), dtype, seed=2)
    return [
        Sample((x, 1, _idx((4, 6, 3), 5, 1), src), {}, "duplicates along dim"),
        Sample((x, 0, _idx((5, 2, 3), 4, 2), src), {}, "index smaller than self off dim"),
        Sample((make((), dtype, seed=3), 0, np.array(0, np.int64), make((), dtype, seed=4)), {}, "0-dim"),
    ]


def scatter_reduce_samples(dtype):
    x = make((4, 5), dtype, -3, 3, seed=1, nonzero=True)
    src = make((4, 6), dtype, -3, 3, seed=2, nonzero=True)
    idx = _idx((3, 6), 5, 1)
    out = []
    for r in ("sum", "prod", "mean", "amax", "amin"):
        if r == "mean" and dtype == "bool":
            continue  # PyTorch has no bool mean either (an error test covers it)
        out.append(Sample((x, 1, idx, src, r), {}, r))
        out.append(Sample((x, 1, idx, src, r), {"include_self": False}, r + " include_self=False"))
    out.append(Sample((x, 0, _idx((6, 5), 4, 2), make((6, 5), dtype, -3, 3, seed=3, nonzero=True), "sum"), {},
                      "dim0 sum"))
    return out


def index_select_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    return [
        Sample((x, 0, np.array([3, 0, 3, 1], np.int64)), {}, "dim0 repeats"),
        Sample((x, -2, np.array([4, 2], np.int64)), {}, "dim-2"),
        Sample((x, 2, np.array([2, 2, 0, 1, 1], np.int32)), {}, "int32 index"),
        Sample((x.transpose(1, 0, 2), 1, np.array([1, 3], np.int64)), {}, "non-contiguous"),
        Sample((make((), dtype, seed=2), 0, np.array([0], np.int64)), {}, "0-dim self"),
        Sample((x, 1, np.zeros((0,), np.int64)), {}, "empty index"),
    ]


def index_add_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    alpha = True if dtype == "bool" else 2
    return [
        Sample((x, 0, np.array([3, 0, 3], np.int64), make((3, 5, 3), dtype, seed=2)), {}, "dim0 duplicates"),
        Sample((x, 1, np.array([4, 1, 1, 0], np.int32), make((4, 4, 3), dtype, seed=3)), {"alpha": alpha},
               "int32 alpha"),
        Sample((x, -1, np.array([2], np.int64), make((4, 5, 1), dtype, seed=4)), {}, "dim-1"),
        Sample((make((), dtype, seed=5), 0, np.array([0], np.int64), make((), dtype, seed=6)), {}, "0-dim"),
    ]


def index_copy_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    return [
        Sample((x, 0, np.array([3, 0], np.int64), make((2, 5, 3), dtype, seed=2)), {}, "dim0"),
        Sample((x, 1, np.array([4, 1, 2], np.int64), make((4, 3, 3), dtype, seed=3)), {}, "dim1"),
        Sample((x, -1, np.array([2, 0, 1], np.int64), make((4, 5, 3), dtype, seed=4)), {}, "dim-1 permutation"),
        Sample((make((5,), dtype, seed=5), 0, np.array([3], np.int64), make((), dtype, seed=6)), {},
               "0-dim source"),
    ]


def index_fill_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    v = True if dtype == "bool" else -2
    return [
        Sample((x, 0, np.array([3, 0, 3], np.int64), v), {}, "dim0 scalar"),
        Sample((x, 1, np.array([-1, 1], np.int64), v), {}, "negative index"),
        Sample((x, -1, np.array(2, np.int64), v), {}, "0-dim index"),
    ]


def index_fill_tensor_samples(dtype):
    x = make((4, 5, 3), dtype, seed=1)
    return [Sample((x, 1, np.array([3, 0, 3], np.int64), make((), dtype, seed=7)), {}, "0-dim tensor value")]


def index_reduce_samples(dtype):
    x = make((4, 5), dtype, -3, 3, seed=1, nonzero=True)
    src = make((4, 6), dtype, -3, 3, seed=2, nonzero=True)
    idx = np.array([4, 1, 1, 0, 4, 4], np.int64)
    out = []
    for r in ("prod", "mean", "amax", "amin"):
        if r == "mean" and dtype == "bool":
            continue
        out.append(Sample((x, 1, idx, src, r), {}, r))
        out.append(Sample((x, 1, idx, src, r), {"include_self": False}, r + " include_self=False"))
    return out


def take_along_dim_samples(dtype):
    x = make((3, 4, 2), dtype, seed=1)
    return [
        Sample((x, _idx((3, 6, 2), 4, 1), 1), {}, "dim1"),
        Sample((x, _idx((1, 4, 2), 3, 2)), {"dim": 0}, "broadcast index"),
        Sample((make((3, 1, 2), dtype, seed=2), _idx((1, 5, 1), 1, 3), -2), {}, "broadcast both"),
        Sample((x, _idx((7,), 24, 4)), {}, "flattened"),
    ]


# ---------------------------------------------------------------- registry

_F = np.zeros((3, 4), np.float32)
_D = np.zeros((2, 2), np.float64)

OPS = [
    OpInfo("gather", gather_ref, gather_samples, out=True, errors=[
        ErrorCase((_F, 1, np.array([[0, 4]])), {}, RuntimeError, "index 4 is out of bounds for dimension 1 with size 4"),
        ErrorCase((_F, 1, np.array([[0, -1]])), {}, RuntimeError, "index -1 is out of bounds for dimension 1"),
        ErrorCase((_F, 1, I2.astype(np.float32)), {}, RuntimeError, r"gather\(\): Expected dtype int32/int64 for index"),
        ErrorCase((_F, 2, I2), {}, IndexError, "Dimension out of range"),
        ErrorCase((_F, 1, np.array([0, 1])), {}, RuntimeError,
                  "Index tensor must have the same number of dimensions as input tensor"),
        ErrorCase((_F, 1, np.zeros((4, 2), np.int64)), {}, RuntimeError,
                  r"Size does not match at dimension 0 expected index \[4, 2\] to be no larger than self \[3, 4\] "
                  r"apart from dimension 1"),
    ]),
    OpInfo("scatter", scatter_ref, scatter_samples, inplace=True, out=True, errors=[
        ErrorCase((_F, 1, I2, np.ones((1, 2), np.float32)), {}, RuntimeError,
                  r"Expected index \[2, 2\] to be no larger than self \[3, 4\] apart from dimension 1 and to be no "
                  r"larger size than src \[1, 2\]"),
        ErrorCase((_F, 1, I2, np.ones((2, 2))), {}, RuntimeError, r"scatter\(\): Expected self.dtype to be equal to "
                  "src.dtype"),
        ErrorCase((_F, 1, np.array([[5]]), np.ones((1, 1), np.float32)), {}, RuntimeError,
                  "index 5 is out of bounds for dimension 1 with size 4"),
        ErrorCase((_F, 1, np.array([0, 1]), np.ones((2, 2), np.float32)), {}, RuntimeError,
                  "Index tensor must have the same number of dimensions as self tensor"),
    ]),
    OpInfo("scatter", scatter_ref, scatter_value_samples, inplace=True, out=True, errors=[
        ErrorCase((_F, 1, np.zeros((4, 1), np.int64), 1.0), {}, RuntimeError,
                  r"Expected index \[4, 1\] to be no larger than self \[3, 4\] apart from dimension 1$"),
        ErrorCase((_F, 1, I2.astype(np.float32), 1.0), {}, RuntimeError,
                  r"scatter\(\): Expected dtype int32/int64 for index"),
    ]),
    OpInfo("scatter", scatter_ref, scatter_legacy_reduce_samples, inplace=True, out=True, grad=False, errors=[
        ErrorCase((_F, 1, I2, np.ones((2, 2), np.float32)), {"reduce": "mean"}, RuntimeError,
                  "reduce argument must be either add or multiply."),
    ]),
    OpInfo("scatter_add", scatter_add_ref, scatter_add_samples, inplace=True, out=True, errors=[
        ErrorCase((_F, 1, np.array([[4]]), np.ones((1, 1), np.float32)), {}, RuntimeError,
                  "index 4 is out of bounds for dimension 1 with size 4"),
        ErrorCase((_F, 1, I2, np.ones((2, 2))), {}, RuntimeError, r"scatter\(\): Expected self.dtype to be equal to "
                  "src.dtype"),
    ]),
    OpInfo("scatter_reduce", scatter_reduce_ref, scatter_reduce_samples, inplace=True, out=True,
           tol={"float16": (2e-3, 2e-2), "bfloat16": (2e-2, 1e-1)}, errors=[
        ErrorCase((_F, 1, I2, np.ones((2, 2), np.float32), "foo"), {}, RuntimeError,
                  "reduce argument must be either sum, prod, mean, amax or amin, got foo"),
        ErrorCase((_F.astype(np.bool_), 0, np.zeros((1, 4), np.int64), np.ones((1, 4), np.bool_), "mean"), {},
                  NotImplementedError, "mean"),
        ErrorCase((_F, 1, np.array([[4]]), np.ones((1, 1), np.float32), "amax"), {}, RuntimeError,
                  "index 4 is out of bounds for dimension 1 with size 4"),
    ]),
    OpInfo("index_select", index_select_ref, index_select_samples, out=True, errors=[
        ErrorCase((_F, 0, np.array([0, 3])), {}, IndexError, "index out of range in self"),
        ErrorCase((_F, 0, np.array([0, -1])), {}, IndexError, "index out of range in self"),
        ErrorCase((_F, 0, np.array([0.0])), {}, RuntimeError, r"index_select\(\): Expected dtype int32 or int64 for "
                  "index"),
        ErrorCase((_F, 0, np.array([[0]])), {}, IndexError, r"index_select\(\): Index is supposed to be a vector"),
        ErrorCase((np.full((), 5.0, np.float32), 0, np.array([0, 0])), {}, RuntimeError,
                  r"index_select\(\): Index to scalar can have only 1 value, got 2 value\(s\)"),
    ]),
    OpInfo("index_add", index_add_ref, index_add_samples, inplace=True, out=True, errors=[
        ErrorCase((_F, 0, np.array([0, 3]), np.ones((2, 4), np.float32)), {}, RuntimeError,
                  "index 3 is out of bounds for dimension 0 with size 3"),
        ErrorCase((_F, 0, np.array([0, 1]), np.ones((2, 3), np.float32)), {}, RuntimeError,
                  r"source tensor shape must match self tensor shape, excluding the specified dimension. Got "
                  r"self.shape = \[3, 4\] source.shape = \[2, 3\]"),
        ErrorCase((_F, 0, np.array([0, 1]), np.ones((3, 4), np.float32)), {}, RuntimeError,
                  r"index_add_\(\): Number of indices \(2\) should be equal to source.size\(dim\): \(3\), for dim: 0"),
        ErrorCase((_F, 0, np.array([0, 1]), np.ones((2, 4))), {}, RuntimeError,
                  r"index_add_\(\): self \(Float\) and source \(Double\) must have the same scalar type"),
        ErrorCase((_F, 1, np.array([[0, 1]]), np.ones((3, 2), np.float32)), {}, IndexError,
                  r"index_add_\(\): Index is supposed to be a vector, but got dim: 2"),
    ]),
    OpInfo("index_copy", index_copy_ref, index_copy_samples, inplace=True, out=True, errors=[
        ErrorCase((_F, 0, np.array([0, 3]), np.ones((2, 4), np.float32)), {}, IndexError,
                  r"index_copy_\(\): index 3 is out of bounds for dimension 0 with size 3"),
        ErrorCase((_F, 1, np.array([0, 1], np.int32), np.ones((3, 2), np.float32)), {}, RuntimeError,
                  r"index_copy_\(\): Expected a long tensor for index, but got Int"),
        ErrorCase((_F, 0, np.array([0, 1]), np.ones((3, 4), np.float32)), {}, IndexError,
                  r"index_copy_\(\): Number of indices \(2\) should be equal to source.size\(dim\) \(3\)"),
        ErrorCase((_F, 0, np.array([0, 1]), np.ones((2, 3), np.float32)), {}, RuntimeError,
                  r"index_copy_\(\): Source/destination tensor must have same slice shapes"),
    ]),
    OpInfo("index_fill", index_fill_ref, index_fill_samples, inplace=True, out=True, errors=[
        ErrorCase((_F, 0, np.array([3]), 1.0), {}, IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
        ErrorCase((_F, 1, np.array([-5]), 1.0), {}, IndexError, "index -5 is out of bounds for dimension 1 with size 4"),
        ErrorCase((_F, 1, np.array([0.0, 1.0]), 1.0), {}, IndexError, r"index_fill_\(\): Expected dtype int64 for "
                  r"index."),
        ErrorCase((_F, 1, np.array([[0, 1]]), 1.0), {}, RuntimeError, "Index has to be a vector/scalar"),
    ]),
    OpInfo("index_fill", index_fill_ref, index_fill_tensor_samples, inplace=True, out=True, errors=[
        ErrorCase((_F, 0, np.array([0]), np.array([1.0, 2.0], np.float32)), {}, RuntimeError,
                  r"index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension\(s\)."),
    ]),
    OpInfo("index_reduce", index_reduce_ref, index_reduce_samples, inplace=True, out=True,
           tol={"float16": (2e-3, 2e-2), "bfloat16": (2e-2, 1e-1)}, errors=[
        ErrorCase((_F, 0, np.array([0, 1]), np.ones((2, 4), np.float32), "sum"), {}, RuntimeError,
                  r"index_reduce\(\): Expected reduce to be one of prod, mean, amax or amin but got sum."),
        ErrorCase((_F, 0, np.array([0, 3]), np.ones((2, 4), np.float32), "prod"), {}, IndexError,
                  "index out of range in self"),
        ErrorCase((_F, 1, np.array([0]), np.ones((3, 1)), "prod"), {}, RuntimeError,
                  r"index_reduce_\(\): self \(Float\) and source \(Double\) must have the same scalar type"),
    ]),
    OpInfo("take_along_dim", take_along_dim_ref, take_along_dim_samples, out=True, errors=[
        ErrorCase((_F, np.array([[0, 1]], np.int32), 1), {}, RuntimeError,
                  r"torch.take_along_dim\(\): dtype of indices should be Long but got Int"),
        ErrorCase((_F, np.array([[[0, 1]]]), 1), {}, RuntimeError,
                  r"torch.take_along_dim\(\): input and indices should have the same number of dimensions, but got "
                  r"2 dimensions for input, and 3 dimensions for indices"),
        ErrorCase((_F, np.array([[0, 1]]), 2), {}, IndexError, "Dimension out of range"),
        ErrorCase((np.zeros((2, 3), np.float32), np.zeros((3, 5), np.int64), 1), {}, RuntimeError,
                  "must match the size of tensor"),
        ErrorCase((_F, np.array([12])), {}, RuntimeError, "index 12 is out of bounds for dimension 0 with size 12"),
    ]),
]
