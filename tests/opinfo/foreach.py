"""Samples for the _foreach_ multi-tensor operators (issue 11, optimizers).

Each sample is a list of tensors of mixed shapes (including 0-dim and empty),
and the reference applies the single-tensor NumPy formula to every element.
In-place forms, non-contiguous and mixed-dtype rows, version counters and
PyTorch parity are in tests/test_foreach.py.
"""
import numpy as np

from .core import FLOATING, ErrorCase, OpInfo, Sample, make

SHAPES = [(3, 4), (5,), (), (0,), (2, 1, 3)]
F32 = np.float32


def _list(dt, seed=0, **kw):
    return [make(s, dt, seed=seed + i, **kw) for i, s in enumerate(SHAPES)]


def _each(fn):
    """Reference over lists: fn applied row by row (lists zipped), as a tuple."""
    def ref(*args, **kwargs):
        lists = [a for a in args if isinstance(a, list)]
        rest = [a for a in args if not isinstance(a, list)]
        return tuple(np.asarray(fn(*row, *rest, **kwargs)) for row in zip(*lists))
    return ref


def _typed(fn):
    """Keep the input row's dtype (NumPy would widen float16 with a Python float)."""
    def wrapped(x, *rest, **kw):
        return np.asarray(fn(x, *rest, **kw)).astype(x.dtype)
    return wrapped


def _add(x, y, alpha=1):
    return x + alpha * y


def _sub(x, y, alpha=1):
    return x - alpha * y


def _addcmul(x, a, b, value=1):
    return x + value * a * b


def _addcdiv(x, a, b, value=1):
    return x + value * a / b


def _lerp(x, end, w):
    return x + w * (end - x)


def _norm(x, ord=2):
    flat = x.astype(np.float64).ravel()
    if ord == float("inf"):
        val = np.abs(flat).max() if flat.size else 0.0
    else:
        val = (np.abs(flat) ** ord).sum() ** (1.0 / ord)
    return np.asarray(val).astype(x.dtype)


def _binary_samples(dt):
    # Integer lists take integer numbers: a float would promote the result
    # (the single-tensor op's rule), which the same-dtype reference does not model.
    number, alpha = (0.37, -0.5) if dt in FLOATING else (3, -2)
    return [Sample((_list(dt), number), {}, "scalar"),
            Sample((_list(dt), _list(dt, seed=10)), {}, "list"),
            Sample((_list(dt), _list(dt, seed=10)), {"alpha": alpha}, "list, alpha")]


def _product_samples(dt):
    number = 1.5 if dt in FLOATING else 3
    # The 0-dim tensor operand binds to the Scalar overload (its value is read),
    # so that sample has no Meta form.
    return [Sample((_list(dt), number), {}, "scalar"),
            Sample((_list(dt), _list(dt, seed=10, nonzero=True)), {}, "list"),
            Sample((_list(dt), np.asarray(number, dtype=F32 if dt in FLOATING else np.int64)), {},
                   "0-dim tensor", meta=False)]


def _scale(fn):
    def ref(xs, other):
        if isinstance(other, list):
            return tuple(np.asarray(fn(x, y)).astype(x.dtype) for x, y in zip(xs, other))
        o = float(other)
        return tuple(np.asarray(fn(x, o)).astype(x.dtype) for x in xs)
    return ref


def _binary_ref(fn):
    def ref(xs, other, alpha=1):
        if isinstance(other, list):
            return tuple(np.asarray(fn(x, y, alpha)).astype(x.dtype) for x, y in zip(xs, other))
        return tuple(np.asarray(fn(x, other)).astype(x.dtype) for x in xs)
    return ref


def _lerp_ref(xs, ends, weight):
    if isinstance(weight, list):
        return tuple(np.asarray(_lerp(x, e, w)).astype(x.dtype) for x, e, w in zip(xs, ends, weight))
    return tuple(np.asarray(_lerp(x, e, weight)).astype(x.dtype) for x, e in zip(xs, ends))


_LENGTHS = [ErrorCase(([np.zeros(2, F32), np.zeros(3, F32)], [np.zeros(2, F32)]), {}, RuntimeError,
                      "Tensor lists must have the same number of tensors, got 2 and 1"),
            ErrorCase(([], []), {}, RuntimeError, "Tensor list must have at least one tensor")]
_SHAPE = ErrorCase(([np.zeros(2, F32)], [np.zeros(3, F32)]), {}, RuntimeError,
                   "must match the size of tensor b")

OPS = [
    OpInfo("_foreach_add", _binary_ref(_add), _binary_samples, dtypes=FLOATING + ("int64",),
           method=False, grad=False, errors=_LENGTHS + [_SHAPE]),
    OpInfo("_foreach_sub", _binary_ref(_sub), _binary_samples, dtypes=FLOATING + ("int64",),
           method=False, grad=False, errors=_LENGTHS + [_SHAPE]),
    OpInfo("_foreach_mul", _scale(lambda x, y: x * y), _product_samples, dtypes=FLOATING + ("int64",),
           method=False, grad=False,
           errors=_LENGTHS + [ErrorCase(([np.zeros(2, F32)], np.zeros(2, F32)), {}, RuntimeError,
                                        "scalar tensor expected to be 0 dim but it has 1 dimensions")]),
    OpInfo("_foreach_div", _scale(lambda x, y: x / y), _product_samples, dtypes=FLOATING,
           method=False, grad=False, errors=_LENGTHS),
    OpInfo("_foreach_addcmul", _each(_typed(_addcmul)),
           lambda dt: [Sample((_list(dt), _list(dt, seed=10), _list(dt, seed=20)), {}, "value 1"),
                       Sample((_list(dt), _list(dt, seed=10), _list(dt, seed=20)), {"value": -0.25}, "value")],
           dtypes=FLOATING, method=False, grad=False,
           errors=[ErrorCase(([np.zeros(2, F32)], [np.zeros(2, F32)], [np.zeros(2, F32)] * 2), {},
                             RuntimeError, "same number of tensors, got 1 and 2")]),
    OpInfo("_foreach_addcdiv", _each(_typed(_addcdiv)),
           lambda dt: [Sample((_list(dt), _list(dt, seed=10), _list(dt, seed=20, nonzero=True)), {}, "value 1"),
                       Sample((_list(dt), _list(dt, seed=10), _list(dt, seed=20, nonzero=True)), {"value": 0.5},
                              "value")],
           dtypes=FLOATING, method=False, grad=False,
           errors=[ErrorCase(([np.zeros(2, F32)], [np.zeros(2, F32)], [np.zeros(3, F32)]), {}, RuntimeError,
                             "must match the size")]),
    OpInfo("_foreach_lerp", _lerp_ref,
           lambda dt: [Sample((_list(dt), _list(dt, seed=10), 0.3), {}, "scalar weight"),
                       Sample((_list(dt), _list(dt, seed=10), 0.8), {}, "weight above 1/2"),
                       Sample((_list(dt), _list(dt, seed=10), _list(dt, seed=30, low=0, high=1)), {}, "tensor weights")],
           dtypes=FLOATING, method=False, grad=False, errors=[
               ErrorCase(([np.zeros(2, F32)], [np.zeros(2, F32)] * 2, 0.5), {}, RuntimeError,
                         "same number of tensors, got 1 and 2")]),
    OpInfo("_foreach_maximum", _each(_typed(np.maximum)),
           lambda dt: [Sample((_list(dt), _list(dt, seed=10)), {}, "list")],
           dtypes=FLOATING + ("int64",), method=False, grad=False, errors=_LENGTHS),
    OpInfo("_foreach_sqrt", _each(_typed(np.sqrt)),
           lambda dt: [Sample((_list(dt, positive=True),), {}, "positive")],
           dtypes=FLOATING, method=False, grad=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "Tensor list must have at least one tensor")]),
    OpInfo("_foreach_neg", _each(_typed(np.negative)), lambda dt: [Sample((_list(dt),), {}, "")],
           dtypes=FLOATING + ("int64",), method=False, grad=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "at least one tensor")]),
    OpInfo("_foreach_abs", _each(_typed(np.abs)), lambda dt: [Sample((_list(dt),), {}, "")],
           dtypes=FLOATING + ("int64",), method=False, grad=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "at least one tensor")]),
    OpInfo("_foreach_norm", lambda xs, ord=2: tuple(_norm(x, ord) for x in xs),
           lambda dt: [Sample((_list(dt),), {}, "2-norm"), Sample((_list(dt), 1), {}, "1-norm"),
                       # The inf-norm of an empty tensor has no identity (an error).
                       Sample(([make(s, dt) for s in SHAPES if s != (0,)], float("inf")), {}, "inf-norm")],
           dtypes=("float32", "float64"), method=False, grad=False,
           errors=[ErrorCase(([],), {}, RuntimeError, "at least one tensor")]),
]
