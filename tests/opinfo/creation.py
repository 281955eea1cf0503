"""Creation operators (zeros, ones, full, arange, linspace, eye, *_like),
checked against their NumPy counterparts. Shapes and values are plain Python
arguments; the dtype under test is passed as dtype= (a torchlike dtype, mapped
to NumPy's by the references)."""
import numpy as np

import torchlike as tl

from .core import FLOATING, NP_DTYPE, NUMERIC, ErrorCase, OpInfo, Sample, make


def _np(dt):
    """NumPy dtype of a torchlike dtype (bfloat16 references compute in float32)."""
    return NP_DTYPE[str(dt).split(".")[-1]]


def _t(dtype):
    return getattr(tl, dtype)


SHAPES = [((2, 3), "2x3"), ((), "0-dim"), ((0, 4), "empty"), ((4,), "1-d"), ((2, 1, 3), "3-d")]


def _shape_samples(dtype):
    return [Sample((shape,), {"dtype": _t(dtype)}, desc) for shape, desc in SHAPES] + \
           [Sample((2, 3), {"dtype": _t(dtype)}, "varargs"), Sample(([3, 2],), {"dtype": _t(dtype)}, "list")]


def _sized(fn):
    """Reference taking a size as varargs or one sequence, like torchlike.zeros."""
    def ref(*size, dtype):
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        return fn(size, _np(dtype))
    return ref


def _full_samples(dtype):
    v = True if dtype == "bool" else (7 if dtype not in FLOATING else 2.5)
    return [Sample((shape, v), {"dtype": _t(dtype)}, desc) for shape, desc in SHAPES]


def _arange_samples(dtype):
    s = [Sample((5,), {"dtype": _t(dtype)}, "end"),
         Sample((2, 9), {"dtype": _t(dtype)}, "start,end"),
         Sample((1, 10, 3), {"dtype": _t(dtype)}, "step 3 (ceil)"),
         Sample((10, 1, -2), {"dtype": _t(dtype)}, "negative step"),
         Sample((3, 3), {"dtype": _t(dtype)}, "empty"),
         Sample((0,), {"dtype": _t(dtype)}, "end=0")]
    if dtype in FLOATING:
        s += [Sample((0.0, 2.0, 0.25), {"dtype": _t(dtype)}, "float step"),
              Sample((-1.5, 1.0, 0.5), {"dtype": _t(dtype)}, "negative start")]
    return s


def _arange_ref(*args, dtype):
    if len(args) == 1:
        args = (0,) + args
    start, end = args[0], args[1]
    step = args[2] if len(args) > 2 else 1
    return np.arange(start, end, step, dtype=np.float64).astype(_np(dtype))


def _linspace_samples(dtype):
    return [Sample((0, 10, 5), {"dtype": _t(dtype)}, "0..10 in 5"),
            Sample((-3, 3, 7) if dtype != "uint8" else (1, 7, 7), {"dtype": _t(dtype)}, "symmetric"),
            Sample((2, 2, 1), {"dtype": _t(dtype)}, "steps=1"),
            Sample((0, 1, 0), {"dtype": _t(dtype)}, "steps=0"),
            Sample((10, 0, 11), {"dtype": _t(dtype)}, "descending")] + (
            # -5 is first a uint8 (251), then the steps run from 251 down to 5
            [Sample((-5, 5, 5), {"dtype": _t(dtype)}, "negative start"),
             Sample((-5, 5, 6), {"dtype": _t(dtype)}, "negative start, even")] if dtype == "uint8" else [])


def _linspace_ref(start, end, steps, dtype):
    npd = _np(dtype)
    if not np.issubdtype(npd, np.integer):
        return np.linspace(start, end, steps, dtype=np.float64).astype(npd)
    # PyTorch's scheme: endpoints become values of the dtype, the first half
    # counts up from start and the second half down from end (in double),
    # each value truncated.
    a, z = (float(np.array(v, np.int64).astype(npd)) for v in (start, end))
    if steps <= 1:
        return np.array([a] * steps).astype(npd)
    d = (z - a) / (steps - 1)
    i = np.arange(steps)
    return np.trunc(np.where(i < steps // 2, a + d * i, z - d * (steps - i - 1))).astype(npd)


def _eye_samples(dtype):
    return [Sample((3,), {"dtype": _t(dtype)}, "3"), Sample((2, 4), {"dtype": _t(dtype)}, "2x4"),
            Sample((4, 2), {"dtype": _t(dtype)}, "4x2"), Sample((0,), {"dtype": _t(dtype)}, "0")]


def _like_samples(extra=()):
    def samples(dtype):
        return [Sample((make((3, 4), dtype),) + tuple(extra), {}, "3x4"),
                Sample((make((), dtype, seed=1),) + tuple(extra), {}, "0-dim"),
                Sample((make((0, 2), dtype),) + tuple(extra), {}, "empty"),
                Sample((make((4, 3), dtype).T,) + tuple(extra), {}, "transposed")]
    return samples


def _like_ref(fill):
    def ref(a, *rest, dtype=None):
        dt = _np(dtype) if dtype is not None else a.dtype
        return np.full(np.shape(a), fill(rest), dtype=dt)
    return ref


_NEG = ErrorCase(((2, -1),), {}, RuntimeError, "negative dimension -1")

OPS = [
    OpInfo("zeros", _sized(np.zeros), _shape_samples, out=True, method=False, meta=False, factory=True, grad=False, errors=[_NEG]),
    OpInfo("ones", _sized(np.ones), _shape_samples, out=True, method=False, meta=False, factory=True, grad=False, errors=[_NEG]),
    OpInfo("full", lambda shape, v, dtype: np.full(shape, v, _np(dtype)), _full_samples, out=True, method=False,
           meta=False, factory=True, grad=False,
           errors=[ErrorCase(((-2,), 1.0), {}, RuntimeError, "negative dimension -2")]),
    OpInfo("arange", _arange_ref, _arange_samples, dtypes=NUMERIC, out=True, method=False, meta=False, factory=True, grad=False,
           errors=[ErrorCase((0, 5, 0), {}, RuntimeError, "step must be nonzero"),
                   ErrorCase((0, 5, -1), {}, RuntimeError, "upper bound and larger bound inconsistent"),
                   ErrorCase((0, float("inf")), {}, RuntimeError, "unsupported range"),
                   ErrorCase((5,), {"dtype": tl.bool}, RuntimeError, "not implemented for 'Bool'")]),
    OpInfo("linspace", _linspace_ref, _linspace_samples, dtypes=NUMERIC, out=True, method=False, meta=False, factory=True, grad=False,
           errors=[ErrorCase((0, 1, -1), {}, RuntimeError, "number of steps must be non-negative"),
                   ErrorCase((0, 1, 3), {"dtype": tl.bool}, NotImplementedError, "not implemented for 'Bool'"),
                   ErrorCase((0, 300, 4), {"dtype": tl.uint8}, RuntimeError,
                             "value cannot be converted to type uint8_t without overflow")]),
    OpInfo("eye", lambda n, m=None, dtype=None: np.eye(n, m, dtype=_np(dtype)), _eye_samples, out=True, method=False,
           meta=False, factory=True, grad=False,
           errors=[ErrorCase((-1,), {}, RuntimeError, "n must be greater or equal to 0, got -1"),
                   ErrorCase((2, -3), {}, RuntimeError, "m must be greater or equal to 0, got -3")]),
    OpInfo("zeros_like", _like_ref(lambda r: 0), _like_samples(), method=False, grad=False),
    OpInfo("ones_like", _like_ref(lambda r: 1), _like_samples(), method=False, grad=False),
    OpInfo("full_like", _like_ref(lambda r: r[0]), _like_samples((1,)), method=False, grad=False),
]


# ---- one bad call for every op above that has none.
for _op in OPS:
    if not _op.errors and _op.name in ("zeros_like", "ones_like", "full_like"):
        _args = (np.ones(3, np.float32),) + ((1.0,) if _op.name == "full_like" else ())
        _op.errors = [ErrorCase(_args, {"dtype": "float32"}, TypeError, r"argument 'dtype' must be ScalarType")]
