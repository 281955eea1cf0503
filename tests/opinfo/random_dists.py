"""Random distributions in the op registry: multinomial, normal (every
overload), poisson, binomial and the in-place samplers.

Random values cannot be compared with NumPy, so every sample here is a
degenerate case whose result is exact: one-hot weights, std 0, rate 0,
probabilities 0 and 1, lambd=inf, a vanishing scale. They still exercise
the shapes, dtypes, broadcasting, method/out= forms, Meta kernels and the
error table; the statistics (moments, goodness of fit against exact CDFs,
seeding) live in tests/test_random_dists.py.
"""
import numpy as np

import torchlike as tl

from .core import FLOATING, NUMERIC, NP_DTYPE, ErrorCase, OpInfo, Sample, make

F32 = np.float32


def _one_hot(shape, hot, dtype):
    w = np.zeros(shape, F32)
    if w.ndim == 1:
        w[hot] = 3.5
    else:
        for r, h in enumerate(hot):
            w[r, h] = 0.25 + r
    return w


# ---------------------------------------------------------------- multinomial

def _multinomial_samples(dtype):
    return [Sample((_one_hot((5,), 3, dtype), 4, True), {}, "1-d one-hot, replacement"),
            Sample((_one_hot((3, 6), (0, 5, 2), dtype), 7), {"replacement": True}, "2-d one-hot, replacement"),
            Sample((_one_hot((3, 6), (4, 1, 1), dtype), 1), {}, "2-d one-hot, no replacement"),
            Sample((_one_hot((0, 4), (), dtype), 2), {}, "no rows")]


def _multinomial_ref(w, num_samples, replacement=False):
    hot = np.argmax(w, axis=-1)
    return np.repeat(hot[..., None], num_samples, axis=-1).astype(np.int64)


_MULTINOMIAL_ERRORS = [
    ErrorCase((np.array([1.0, -1.0], F32), 1), {}, RuntimeError, "contains either `inf`, `nan` or element < 0"),
    ErrorCase((np.array([1.0, np.inf], F32), 1), {}, RuntimeError, "contains either `inf`, `nan` or element < 0"),
    ErrorCase((np.array([1.0, np.nan], F32), 1), {}, RuntimeError, "contains either `inf`, `nan` or element < 0"),
    ErrorCase((np.array([1.0, 1.0], F32), 3), {}, RuntimeError,
              r"cannot sample n_sample > prob_dist.size\(-1\) samples without replacement"),
    ErrorCase((np.array([[1.0, 1.0], [0.0, 0.0]], F32), 1), {}, RuntimeError,
              r"invalid multinomial distribution \(sum of probabilities <= 0\)"),
    ErrorCase((np.array([1.0, 1.0], F32), 0), {}, RuntimeError, "cannot sample n_sample <= 0 samples"),
    ErrorCase((np.array(1.0, F32), 1), {}, RuntimeError, "prob_dist must be 1 or 2 dim"),
    ErrorCase((np.ones((2, 2, 2), F32), 1), {}, RuntimeError, "prob_dist must be 1 or 2 dim"),
    ErrorCase((np.array([1, 2], np.int64), 1), {}, RuntimeError, "only supports floating-point dtypes for input"),
    ErrorCase((np.ones((2, 0), F32), 1), {"replacement": True}, RuntimeError, "0 categories"),
    ErrorCase((np.ones(3, F32), 2), {"out": tl.empty(2, dtype=tl.int32)}, RuntimeError,
              "multinomial expects Long tensor out, got: Int"),
]


# ---------------------------------------------------------------- normal

def _normal_samples(dtype):
    z = lambda shape: np.zeros(shape, F32)  # noqa: E731
    return [Sample((make((3, 4), dtype), z((4,))), {}, "Tensor, Tensor broadcast"),
            Sample((make((2, 1, 3), dtype, seed=1), z((4, 1))), {}, "Tensor, Tensor both broadcast"),
            Sample((make((3, 4), dtype, seed=2), 0.0), {}, "Tensor, float"),
            Sample((make((5,), dtype, seed=3),), {"std": 0.0}, "Tensor, std keyword"),
            Sample((make((), dtype, seed=4), z(())), {}, "0-dim")]


def _normal_ref(mean, std=1.0):
    std = np.asarray(std)
    return (np.asarray(mean) + 0 * std).astype(np.asarray(mean).dtype)


def _normal_ft_samples(dtype):
    return [Sample((1.5, np.zeros((3, 4), NP_DTYPE[dtype])), {}, "float, Tensor"),
            Sample((-2.0, np.zeros((0, 2), NP_DTYPE[dtype])), {}, "float, empty Tensor")]


def _normal_ft_ref(mean, std):
    return np.full(std.shape, mean, std.dtype)


def _normal_ff_samples(dtype):
    return [Sample((1.25, 0.0, (2, 3)), {"dtype": getattr(tl, dtype)}, "float, float, size"),
            Sample((-3.0, 0.0), {"size": (4,), "dtype": getattr(tl, dtype)}, "size keyword"),
            Sample((0.5, 0.0, ()), {"dtype": getattr(tl, dtype)}, "0-dim")]


def _normal_ff_ref(mean, std, size=(), dtype=None):
    return np.full(size, mean, np.float64)


_NORMAL_ERRORS = [
    ErrorCase((np.array([1.0, 2.0], F32), np.array([1.0, -1.0], F32)), {}, RuntimeError,
              r"normal expects all elements of std >= 0.0"),
    ErrorCase((np.array([1.0, 2.0], F32), np.array([1.0, np.nan], F32)), {}, RuntimeError,
              r"normal expects all elements of std >= 0.0"),
    ErrorCase((np.array([1.0, 2.0], F32), -1.0), {}, RuntimeError, r"normal expects std >= 0.0, but found std -1"),
    ErrorCase((np.array([1.0, 2.0], F32),), {"std": -2}, RuntimeError, r"normal expects std >= 0.0, but found std -2"),
    ErrorCase((1.0, np.array([1.0, -1.0], F32)), {}, RuntimeError, r"normal expects all elements of std >= 0.0"),
    ErrorCase((np.array([1.0, 2.0], F32), np.ones(3, F32)), {}, RuntimeError, "must match the size"),
    ErrorCase((np.array([1, 2], np.int64), 1.0), {}, NotImplementedError, "not implemented for 'Long'"),
    ErrorCase((np.ones(3, F32), 1.0), {"out": tl.empty(5)}, RuntimeError, r"out has shape \[5\]"),
    ErrorCase((np.ones(3, F32), np.ones(3, F32)), {"out": tl.empty(3, dtype=tl.int64)}, NotImplementedError,
              "not implemented for 'Long'"),
]
_NORMAL_FF_ERRORS = [
    ErrorCase((1.0, -1.0, (2,)), {}, RuntimeError, r"normal expects std >= 0.0, but found std -1"),
    ErrorCase((1.0, 1.0, (2,)), {"dtype": tl.int64}, RuntimeError, "not implemented for 'Long'"),
]


# ---------------------------------------------------------------- poisson, binomial

def _poisson_samples(dtype):
    return [Sample((np.zeros((3, 4), NP_DTYPE[dtype]),), {}, "rate 0"),
            Sample((np.zeros((0,), NP_DTYPE[dtype]),), {}, "empty")]


_POISSON_ERRORS = [
    ErrorCase((np.array([1.0, -1.0], F32),), {}, RuntimeError, "invalid Poisson rate, expected rate to be non-negative"),
    ErrorCase((np.array([1.0, np.nan], F32),), {}, RuntimeError, "invalid Poisson rate"),
    ErrorCase((np.array([1, 2], np.int64),), {}, NotImplementedError, "not implemented for 'Long'"),
]


def _binomial_samples(dtype):
    npd = NP_DTYPE[dtype]
    count = np.abs(np.round(make((3, 4), dtype, low=0, high=20))).astype(npd)
    p01 = np.array([0.0, 1.0, 1.0, 0.0], npd)
    return [Sample((count, p01), {}, "p in {0, 1}, broadcast"),
            Sample((np.zeros((2, 1), npd), np.full((3,), 0.5, npd)), {}, "count 0, both broadcast"),
            Sample((np.array([5.0, -5.0, 5.0], npd), np.array([1.5, 0.5, -0.5], npd)), {}, "out-of-range values")]


def _binomial_ref(count, prob):
    count, prob = np.broadcast_arrays(count, prob)
    r = np.where((count <= 0) | (prob <= 0), 0.0, np.where(prob >= 1, count, np.nan))
    return r.astype(count.dtype)


_BINOMIAL_ERRORS = [
    ErrorCase((np.array([5, 5], np.int64), np.array([0.5, 0.5], F32)), {}, ValueError,
              "binomial only supports floating-point dtypes for count"),
    ErrorCase((np.array([5.0], F32), np.array([0.5], np.float64)), {}, RuntimeError, "found dtype Double"),
    ErrorCase((np.ones(2, F32), np.ones(3, F32)), {}, RuntimeError, "must match the size"),
]


# ---------------------------------------------------------------- in-place samplers

def _inplace_samples(*args, dtypes_int=False, **kwargs):
    def samples(dtype):
        x = make((3, 4), dtype)
        return [Sample((x,) + args, kwargs, "3x4"),
                Sample((make((4, 3), dtype, seed=1).T,) + args, kwargs, "transposed target"),
                Sample((make((0, 2), dtype),) + args, kwargs, "empty")]
    return samples


def _const_ref(value):
    def ref(x, *args, **kwargs):
        return np.full(x.shape, value, np.float64)
    return ref


_NEAR_ONE = 1.0 - 2.0 ** -50  # geometric_: the first trial succeeds except with probability 2^-50

OPS = [
    OpInfo("multinomial", _multinomial_ref, _multinomial_samples, dtypes=FLOATING, out=True, grad=False,
           ref_dtype=lambda d: "int64", errors=_MULTINOMIAL_ERRORS),
    OpInfo("normal", _normal_ref, _normal_samples, dtypes=FLOATING, method=False, out=True, grad=False,
           errors=_NORMAL_ERRORS),
    OpInfo("normal", _normal_ft_ref, _normal_ft_samples, dtypes=FLOATING, method=False, out=True, grad=False),
    OpInfo("normal", _normal_ff_ref, _normal_ff_samples, dtypes=FLOATING, method=False, out=True, meta=False,
           factory=True, grad=False, errors=_NORMAL_FF_ERRORS),
    OpInfo("poisson", lambda x: np.zeros_like(x), _poisson_samples, dtypes=FLOATING, method=False, grad=False,
           errors=_POISSON_ERRORS),
    OpInfo("binomial", _binomial_ref, _binomial_samples, dtypes=FLOATING, method=False, grad=False,
           errors=_BINOMIAL_ERRORS),
    # lambd=inf: -log(u) / inf is exactly 0.
    OpInfo("Tensor.exponential_", _const_ref(0.0), _inplace_samples(float("inf")), dtypes=FLOATING, method=False,
           grad=False,
           errors=[ErrorCase((np.ones(3, F32), 0.0), {}, RuntimeError, "exponential_ expects lambda > 0.0"),
                   ErrorCase((np.ones(3, F32), float("nan")), {}, RuntimeError, "exponential_ expects lambda > 0.0"),
                   ErrorCase((np.ones(3, np.int64),), {}, RuntimeError,
                             "Exponential distribution is a continuous probability distribution")]),
    # sigma=1e-30: |tan| of an open uniform stays below 1e8, so the result rounds to the median.
    OpInfo("Tensor.cauchy_", _const_ref(2.5), _inplace_samples(2.5, 1e-30), dtypes=FLOATING, method=False,
           grad=False,
           errors=[ErrorCase((np.ones(3, F32),), {"sigma": 0.0}, RuntimeError, "cauchy_ expects sigma > 0.0"),
                   ErrorCase((np.ones(3, np.int32),), {}, RuntimeError,
                             "Cauchy distribution is a continuous probability distribution")]),
    OpInfo("Tensor.geometric_", _const_ref(1.0), _inplace_samples(_NEAR_ONE), dtypes=NUMERIC, method=False,
           grad=False,
           errors=[ErrorCase((np.ones(3, F32), 1.0), {}, RuntimeError, r"geometric_ expects p to be in \(0, 1\)"),
                   ErrorCase((np.ones(3, F32), 0.0), {}, RuntimeError, r"geometric_ expects p to be in \(0, 1\)"),
                   ErrorCase((np.ones(3, np.bool_), 0.5), {}, NotImplementedError, "not implemented for 'Bool'")]),
    # std=1e-30: exp(mean + 1e-30 z) is exp(mean) to every dtype's precision.
    OpInfo("Tensor.log_normal_", _const_ref(np.exp(0.75)), _inplace_samples(0.75, 1e-30), dtypes=FLOATING,
           method=False, grad=False,
           errors=[ErrorCase((np.ones(3, F32),), {"std": 0.0}, RuntimeError, "log_normal_ expects std > 0.0"),
                   ErrorCase((np.ones(3, np.int64),), {}, NotImplementedError, "not implemented for 'Long'")]),
]
