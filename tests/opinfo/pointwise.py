"""Pointwise operators: generated from YAML formulas, checked against NumPy."""
import numpy as np

from .core import (ALL_DTYPES, BROADCAST_SHAPES, FLOATING, INTEGRAL, NUMERIC, ErrorCase, OpInfo, Sample, make)

F64 = np.float64


def _f(fn):
    """Reference computed in float64 (ints and bools promote to float, as torchlike does)."""
    return lambda x, **kw: fn(np.asarray(x).astype(F64), **kw)


def _float_result(dtype):
    return dtype if dtype in FLOATING else "float32"


def unary_samples(low=-4, high=4, positive=False):
    def samples(dtype):
        return [Sample((make((3, 4), dtype, low, high, positive=positive),), desc="3x4"),
                Sample((make((), dtype, low, high, positive=positive, seed=1),), desc="0-dim"),
                Sample((make((0, 3), dtype),), desc="empty"),
                Sample((make((2, 3, 5), dtype, low, high, positive=positive, seed=2),), desc="3-d")]
    return samples


def binary_samples(low=-5, high=5, nonzero_rhs=False, positive_lhs=False, rhs_low=None, rhs_high=None):
    def samples(dtype):
        out = []
        for i, (sa, sb) in enumerate(BROADCAST_SHAPES):
            a = make(sa, dtype, low, high, seed=i, positive=positive_lhs)
            b = make(sb, dtype, low if rhs_low is None else rhs_low, high if rhs_high is None else rhs_high,
                     seed=i + 100, nonzero=nonzero_rhs)
            out.append(Sample((a, b), desc=f"{sa} op {sb}"))
        return out
    return samples


def _int_exact_samples(base):
    """Adds int64 values past 2**53, which a round trip through double would change."""
    def samples(dtype):
        extra = [Sample((np.array([2**63 - 1, 2**53 + 1, -2**63, -(2**53) - 1], np.int64),), desc="int64 extremes")]
        return base(dtype) + (extra if dtype == "int64" else [])
    return samples


def unary_float(name, fn, low=-4, high=4, positive=False, **kw):
    return OpInfo(name, _f(fn), unary_samples(low, high, positive), dtypes=ALL_DTYPES,
                  ref_dtype=_float_result, inplace=True, out=True, **kw)


OPS = [
    # ---- arithmetic
    OpInfo("add", np.add, binary_samples(), dtypes=ALL_DTYPES, inplace=True, out=True,
           errors=[ErrorCase((np.ones((2, 3), np.float32), np.ones((4,), np.float32)), {}, RuntimeError,
                             r"size of tensor a \(3\) must match the size of tensor b \(4\)"),
                   ErrorCase((np.ones(3, np.int64), np.ones(3, np.int64)), {"alpha": 0.5}, RuntimeError,
                             "alpha must not be a floating point"),
                   ErrorCase((np.ones(3, np.float32), "x"), {}, TypeError, "must be Tensor, not str")]),
    OpInfo("add", lambda a, b, alpha: a + alpha * b,
           lambda d: [Sample((make((3, 4), d), make((4,), d, seed=1)), {"alpha": 2}, "alpha=2")],
           dtypes=NUMERIC, out=True),
    OpInfo("sub", np.subtract, binary_samples(), dtypes=NUMERIC, inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.bool_), np.ones(3, np.bool_)), {}, RuntimeError,
                             "with two bool tensors is not supported. Use the `\\^` or `logical_xor\\(\\)`"),
                   ErrorCase((np.ones(3, np.bool_), np.ones(3, np.int64)), {}, RuntimeError,
                             "with a bool tensor is not supported. If you are trying to invert a mask, use the `~`")]),
    OpInfo("mul", np.multiply, binary_samples(), dtypes=ALL_DTYPES, inplace=True, out=True),
    OpInfo("div", lambda a, b: np.true_divide(a.astype(F64), b.astype(F64)), binary_samples(nonzero_rhs=True),
           dtypes=ALL_DTYPES, ref_dtype=_float_result, out=True),
    OpInfo("div", lambda a, b, rounding_mode: (np.floor_divide if rounding_mode == "floor" else
                                               lambda x, y: np.trunc(x.astype(F64) / y).astype(x.dtype))(a, b),
           lambda d: [Sample((make((3, 4), d, -9, 9), make((4,), d, -3, 3, nonzero=True, seed=1)),
                             {"rounding_mode": m}, m) for m in ("floor", "trunc")],
           dtypes=NUMERIC, out=True,
           errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32)), {"rounding_mode": "up"},
                             ValueError, "rounding_mode")]),
    # grad=False: like PyTorch, floor_divide has no derivative formula (backward raises NotImplementedError).
    OpInfo("floor_divide", np.floor_divide, binary_samples(-9, 9, nonzero_rhs=True), dtypes=NUMERIC,
           inplace=True, out=True, grad=False,
           errors=[ErrorCase((np.ones(3, np.int64), np.zeros(3, np.int64)), {}, RuntimeError, "ZeroDivisionError")]),
    OpInfo("remainder", np.remainder, binary_samples(-9, 9, nonzero_rhs=True), dtypes=NUMERIC, inplace=True,
           out=True),
    OpInfo("fmod", np.fmod, binary_samples(-9, 9, nonzero_rhs=True), dtypes=NUMERIC, inplace=True, out=True),
    OpInfo("pow", lambda a, b: np.power(a.astype(F64), b.astype(F64)).astype(a.dtype) if a.dtype.kind in "iu"
           else np.power(a.astype(F64), b.astype(F64)),
           binary_samples(0, 3, positive_lhs=True, rhs_low=0, rhs_high=3), dtypes=NUMERIC, inplace=True, out=True,
           # A Python-number exponent of an integer tensor must fit its dtype and
           # not be negative; a tensor exponent may be negative (3 ** -1 == 0).
           errors=[ErrorCase((np.array([3, 5], np.int32), 2**40), {}, RuntimeError,
                             "value cannot be converted to type int without overflow"),
                   ErrorCase((np.array([3, 5], np.int8), 300), {}, RuntimeError,
                             "value cannot be converted to type int8_t without overflow"),
                   ErrorCase((np.array([3, 5], np.int64), -1), {}, RuntimeError,
                             "Integers to negative integer powers are not allowed")]),
    # (overflow-free extremes such as hypot(3e38, 1) are in tests/test_core_correctness.py:
    # they are no points to check gradients at)
    OpInfo("hypot", lambda a, b: np.hypot(a.astype(F64), b.astype(F64)).astype(a.dtype), binary_samples(),
           dtypes=FLOATING, inplace=True, out=True,
           errors=[ErrorCase((np.array([3], np.int64), np.array([4], np.int64)), {}, NotImplementedError,
                             "\"hypot\" not implemented for 'Long'"),
                   ErrorCase((np.array([True]), np.array([True])), {}, NotImplementedError,
                             "\"hypot\" not implemented for 'Bool'")]),
    OpInfo("atan2", lambda a, b: np.arctan2(a.astype(F64), b.astype(F64)), binary_samples(), dtypes=ALL_DTYPES,
           ref_dtype=_float_result, out=True),
    OpInfo("minimum", np.minimum, binary_samples(), dtypes=ALL_DTYPES, out=True),
    OpInfo("maximum", np.maximum, binary_samples(), dtypes=ALL_DTYPES, out=True),
    OpInfo("neg", np.negative, unary_samples(), dtypes=NUMERIC, inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.bool_),), {}, RuntimeError,
                             "Negation, the `-` operator, on a bool tensor is not supported")]),
    OpInfo("abs", np.abs, unary_samples(), dtypes=NUMERIC, inplace=True, out=True),
    OpInfo("sign", lambda x: x if x.dtype == np.bool_ else np.sign(x), unary_samples(), dtypes=ALL_DTYPES,
           inplace=True, out=True),
    OpInfo("relu", lambda x: np.maximum(x, 0).astype(x.dtype), unary_samples(), dtypes=NUMERIC, inplace=True,
           out=True),
    OpInfo("floor", np.floor, _int_exact_samples(unary_samples()), dtypes=NUMERIC, inplace=True, out=True),
    OpInfo("ceil", np.ceil, _int_exact_samples(unary_samples()), dtypes=NUMERIC, inplace=True, out=True),
    OpInfo("round", np.round, _int_exact_samples(unary_samples()), dtypes=NUMERIC, inplace=True, out=True),
    OpInfo("trunc", np.trunc, _int_exact_samples(unary_samples()), dtypes=NUMERIC, inplace=True, out=True),
    OpInfo("frac", lambda x: x - np.trunc(x), unary_samples(), dtypes=FLOATING, inplace=True, out=True,
           errors=[ErrorCase((np.array([3, 4], np.int64),), {}, NotImplementedError,
                             "\"frac\" not implemented for 'Long'")]),
    unary_float("exp", np.exp),
    unary_float("exp2", np.exp2),
    unary_float("expm1", np.expm1),
    unary_float("log", np.log, positive=True),
    unary_float("log2", np.log2, positive=True),
    unary_float("log10", np.log10, positive=True),
    unary_float("log1p", np.log1p, positive=True),
    unary_float("sqrt", np.sqrt, positive=True),
    unary_float("rsqrt", lambda x: 1 / np.sqrt(x), positive=True),
    unary_float("sin", np.sin),
    unary_float("cos", np.cos),
    unary_float("tan", np.tan, low=-1, high=1),
    unary_float("asin", np.arcsin, low=-1, high=1),
    unary_float("acos", np.arccos, low=-1, high=1),
    unary_float("atan", np.arctan),
    unary_float("sinh", np.sinh),
    unary_float("asinh", np.arcsinh),
    unary_float("acosh", np.arccosh, low=2, high=5),
    OpInfo("atanh", _f(np.arctanh), unary_samples(-0.9, 0.9), dtypes=FLOATING, inplace=True, out=True),
    unary_float("cosh", np.cosh),
    unary_float("tanh", np.tanh),
    unary_float("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    unary_float("reciprocal", lambda x: 1 / x, positive=True),
    OpInfo("lerp", lambda a, b, w: a + w * (b - a),
           lambda d: [Sample((make((3, 4), d), make((4,), d, seed=1), make((3, 1), d, 0, 1, seed=2)), desc="bcast")],
           dtypes=FLOATING, out=True,
           errors=[ErrorCase((np.array([3], np.int64), np.array([4], np.int64), 0.5), {}, NotImplementedError,
                             "\"lerp\" not implemented for 'Long'")]),
    OpInfo("clamp", lambda x, min=None, max=None: np.clip(x, min, max),
           lambda d: [Sample((make((3, 4), d),), {"min": 1, "max": 3}, "min,max"),
                      Sample((make((3, 4), d),), {"min": 2}, "min"),
                      Sample((make((3, 4), d),), {"max": 2}, "max")],
           dtypes=NUMERIC, inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.float32),), {}, RuntimeError, "At least one of 'min' or 'max'")]),
    OpInfo("clamp_min", lambda x, m: np.maximum(x, m), lambda d: [Sample((make((3, 4), d), 1))], dtypes=NUMERIC),
    OpInfo("clamp_max", lambda x, m: np.minimum(x, m), lambda d: [Sample((make((3, 4), d), 1))], dtypes=NUMERIC),
    # ---- comparisons and logic
    *[OpInfo(n, f, binary_samples(-2, 2), dtypes=ALL_DTYPES, ref_dtype=lambda d: "bool", out=True, grad=False)
      for n, f in [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                   ("gt", np.greater), ("ge", np.greater_equal), ("logical_and", np.logical_and),
                   ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)]],
    OpInfo("logical_not", np.logical_not, unary_samples(-2, 2), dtypes=ALL_DTYPES, ref_dtype=lambda d: "bool",
           out=True, grad=False),
    *[OpInfo(n, f, binary_samples(-20, 20), dtypes=("bool",) + INTEGRAL, inplace=True, out=True, grad=False,
             errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32)), {}, RuntimeError,
                               "not implemented for 'Float'")])
      for n, f in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)]],
    OpInfo("bitwise_not", np.invert, unary_samples(-20, 20), dtypes=("bool",) + INTEGRAL, inplace=True, out=True,
           grad=False),
    OpInfo("bitwise_left_shift", np.left_shift, binary_samples(0, 5), dtypes=INTEGRAL, out=True, grad=False),
    OpInfo("bitwise_right_shift", np.right_shift, binary_samples(0, 5), dtypes=INTEGRAL, out=True, grad=False),
    *[OpInfo(n, _f(f), unary_samples(), dtypes=ALL_DTYPES, ref_dtype=lambda d: "bool", out=True, grad=False)
      for n, f in [("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)]],
    OpInfo("where", np.where,
           lambda d: [Sample((make((3, 4), "bool"), make((3, 4), d, seed=1), make((4,), d, seed=2)), desc="bcast"),
                      Sample((make((2, 1), "bool"), make((2, 3), d, seed=1), make((), d, seed=2)), desc="0-dim")],
           dtypes=ALL_DTYPES,
           errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32), np.ones(3, np.float32)), {},
                             RuntimeError, "condition to be a boolean tensor")]),
]


# ---- one bad call for every op above that has none: the family's typical error.
def _typical_error(op):
    import torchlike as tl
    s = op.samples(op.dtypes[-1])[0]
    arrays = [a for a in s.args if isinstance(a, np.ndarray)]
    if len(arrays) >= 2:  # shapes that do not broadcast
        args = tuple(np.ones((2, 3), a.dtype) if i == 0 else np.ones((4,), a.dtype) if isinstance(a, np.ndarray)
                     else a for i, a in enumerate(s.args))
        return ErrorCase(args, dict(s.kwargs), RuntimeError, r"must match the size of tensor b")
    float_out = (op.ref_dtype("float32") if op.ref_dtype else "float32") in FLOATING
    if op.out and float_out and "float32" in op.dtypes:  # a float result cannot go to an integer out=
        return ErrorCase((np.ones(3, np.float32),) + tuple(s.args[1:]), {**s.kwargs, "out": tl.empty(3, dtype=tl.int64)},
                         RuntimeError, "result type Float can't be cast to the desired output type Long")
    return ErrorCase(("x",) + tuple(s.args[1:]), dict(s.kwargs), TypeError,
                     rf"{op.name}\(\): argument '\w+' (\(position 1\) )?must be Tensor, not str")


for _op in OPS:
    if not _op.errors:
        _op.errors = [_typical_error(_op)]
