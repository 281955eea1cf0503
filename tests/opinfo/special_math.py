"""Special functions (torchlike.special, the error and gamma families, Bessel
functions, orthogonal polynomials) and the pointwise extras (logaddexp,
nan_to_num, copysign, frexp, gcd, heaviside, ...), checked against NumPy and
scipy.special.

scipy is optional: without it the entries whose reference only scipy has are
skipped (documented per dtype), and the error-function entries fall back to
the math module."""
import math

import numpy as np

from .core import ALL_DTYPES, FLOATING, INTEGRAL, NP_DTYPE, NUMERIC, ErrorCase, OpInfo, Sample, make
from .pointwise import _float_result, binary_samples, unary_samples

try:
    import scipy.special as sps
except ImportError:  # pragma: no cover - scipy is a test extra
    sps = None

F64 = np.float64
NO_SCIPY = {d: "scipy is not installed" for d in ALL_DTYPES} if sps is None else {}


def _f(fn):
    """Reference in float64 (ints and bools promote to float, as torchlike does)."""
    return lambda *a, **kw: fn(*(np.asarray(x).astype(F64) if isinstance(x, np.ndarray) else x for x in a), **kw)


def _scipy(name, fallback=None):
    """scipy.special.<name>, or a math-module fallback, or None."""
    if sps is not None:
        return getattr(sps, name)
    return np.vectorize(fallback) if fallback else None


_STR_ARG = [ErrorCase((np.ones(3, np.float32), "x"), {}, TypeError, "must be Tensor|invalid combination")]


def _str_error(name):
    return [ErrorCase(("x",), {}, TypeError, f"{name.split('.')[-1]}\\(\\): argument")]


def unary(name, ref, low=-4, high=4, positive=False, dtypes=ALL_DTYPES, special=False, needs_scipy=True,
          errors=None, **kw):
    """A float-valued unary op: integer and bool inputs give float32."""
    return OpInfo(name, _f(ref) if ref is not None else None, unary_samples(low, high, positive), dtypes=dtypes,
                  ref_dtype=_float_result, inplace=not special, out=True, method=not special,
                  errors=errors if errors is not None else _str_error(name),
                  skip=NO_SCIPY if needs_scipy else {}, **kw)


def _nondiff_special(name, ref, **kw):
    # Not differentiable, as in PyTorch: results do not require grad.
    return unary("special." + name, ref, special=True, grad=False, **kw)


def _poly_samples(lo, hi, big):
    def samples(dtype):
        x = make((3, 4), dtype, lo, hi)
        n = np.array([0, 1, 3, 7], dtype=x.dtype) if dtype != "bool" else np.array([0, 1, 1, 0], np.bool_)
        nb = np.array(big, dtype=x.dtype) if dtype != "bool" else n
        return [Sample((x, n), desc="x (3,4), n (4,)"),
                Sample((x, nb), desc="higher degrees"),
                Sample((x, 2), desc="n a number"),
                Sample((make((0, 4), dtype), n), desc="empty")]
    return samples


def _poly_x_number_samples(dtype):
    n = np.array([0, 1, 3, 7], dtype=make((1,), dtype).dtype) if dtype != "bool" else np.array([0, 1], np.bool_)
    return [Sample((0.5 if dtype in FLOATING else 1, n), desc="x a number")]


def _vec(fn):
    return np.vectorize(fn, otypes=[F64])


def _recurrence(first):
    """Chebyshev-type three-term recurrence p_{k+1} = 2x p_k - p_{k-1}, p_0 = 1, p_1 = first(x)."""
    def fn(n, x):
        if n < 0:
            return 0.0
        p, q = 1.0, first(x)
        if n == 0:
            return p
        for _ in range(n - 1):
            p, q = q, 2 * x * q - p
        return q
    return fn


_cheb_v = _recurrence(lambda x: 2 * x - 1)
_cheb_w = _recurrence(lambda x: 2 * x + 1)


def _poly_ref(fn, shifted=False):
    def ref(x, n):
        x = np.asarray(x, F64)
        n = np.asarray(n, F64)
        if shifted:
            x = 2 * x - 1
        xb, nb = np.broadcast_arrays(x, n)
        out = np.empty(xb.shape, F64)
        for i in np.ndindex(xb.shape):
            out[i] = fn(int(nb[i]), xb[i])
        return out
    return ref


_POLY_REFS = {}
if sps is not None:
    _POLY_REFS = {
        "chebyshev_polynomial_t": _poly_ref(sps.eval_chebyt),
        "chebyshev_polynomial_u": _poly_ref(sps.eval_chebyu),
        "chebyshev_polynomial_v": _poly_ref(_cheb_v),
        "chebyshev_polynomial_w": _poly_ref(_cheb_w),
        "shifted_chebyshev_polynomial_t": _poly_ref(sps.eval_chebyt, True),
        "shifted_chebyshev_polynomial_u": _poly_ref(sps.eval_chebyu, True),
        "shifted_chebyshev_polynomial_v": _poly_ref(_cheb_v, True),
        "shifted_chebyshev_polynomial_w": _poly_ref(_cheb_w, True),
        "hermite_polynomial_h": _poly_ref(sps.eval_hermite),
        "hermite_polynomial_he": _poly_ref(sps.eval_hermitenorm),
        "laguerre_polynomial_l": _poly_ref(sps.eval_laguerre),
        "legendre_polynomial_p": _poly_ref(sps.eval_legendre),
    }


def _poly(name):
    shifted = name.startswith("shifted")
    # V and W have closed forms only inside (-1, 1); the shifted ones inside (0, 1).
    lo, hi = (0.0, 1.0) if shifted else (-1.0, 1.0)
    if name.endswith(("_v", "_w")):
        lo, hi = (0.05, 0.95) if shifted else (-0.9, 0.9)
    # Degrees past 8 exercise the closed forms PyTorch switches to; Hermite
    # values grow like n!, so its degrees stay where float16 holds them.
    big = (6, 5, 2, 4) if name.startswith("hermite") else (9, 12, 2, 5)
    return OpInfo("special." + name, _POLY_REFS.get(name), _poly_samples(lo, hi, big),
                  dtypes=ALL_DTYPES, ref_dtype=_float_result, method=False, out=True, grad=False,
                  tol={"float16": (2e-2, 2e-2), "bfloat16": (8e-2, 8e-2), "float32": (1e-4, 1e-5)},
                  skip=NO_SCIPY, errors=[ErrorCase((np.ones(3, np.float32), "n"), {}, TypeError,
                                                   "must be Tensor|invalid combination"),
                                         ErrorCase((np.ones((2, 3), np.float32), np.ones(4, np.float32)), {},
                                                   RuntimeError, "must match the size")])


def _poly_x_number(name):
    return OpInfo("special." + name, _POLY_REFS.get(name), _poly_x_number_samples, dtypes=ALL_DTYPES,
                  ref_dtype=_float_result, method=False, grad=False, skip=NO_SCIPY,
                  errors=[ErrorCase(("x", np.ones(3, np.float32)), {}, TypeError, "invalid combination")])


def _heaviside_ref(x, v):
    return np.where(x == 0, v, x > 0).astype(np.result_type(x, v))


def pos(shape, dtype, lo, hi, seed=0):
    """Sample values in [lo, hi) for every dtype (integers from ceil(lo))."""
    if dtype in FLOATING:
        return make(shape, dtype, lo, hi, seed=seed)
    base = int(math.ceil(lo))  # make() starts unsigned samples at 0 whatever low is: shift instead
    return make(shape, dtype, 0, int(hi) - base, seed=seed) + np.array(base, dtype=NP_DTYPE[dtype])


def _gamma_samples(dtype):
    out = []
    for i, (sa, sb) in enumerate([((3, 4), (3, 4)), ((3, 4), (4,)), ((), (2, 3))]):
        out.append(Sample((pos(sa, dtype, 0.5, 4, seed=i), pos(sb, dtype, 0.1, 6, seed=i + 10)), desc=f"{sa} {sb}"))
    return out


def _mvlgamma_samples(dtype):
    return [Sample((pos((3, 4), dtype, 1.6, 6.0, seed=p), p), desc=f"p={p}") for p in (1, 3)]


def _nan_to_num_samples(dtype):
    x = make((3, 4), dtype, -3, 3)
    if dtype in FLOATING:
        x = x.copy()
        x.flat[[0, 5, 7]] = [np.nan, np.inf, -np.inf]
    out = [Sample((x,), {"nan": 1.5, "posinf": 100.0, "neginf": -50.0}, "all given"),
           Sample((x,), {"nan": -2.0}, "nan only")]
    if dtype != "bfloat16":  # NumPy's default bounds would be float32's, not bfloat16's
        out.append(Sample((x,), {}, "defaults"))
    return out


def _np_nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _round_decimals_samples(dtype):
    x = make((3, 4), dtype, -50, 50)
    return [Sample((x,), {"decimals": d}, f"decimals={d}") for d in (1, 2, -1)]


def _square_ref(x):
    return np.square(x.astype(np.int64) if x.dtype == np.bool_ else x)


def _addc_samples(div):
    def samples(dtype):
        return [Sample((make((3, 4), dtype), make((4,), dtype, seed=1), make((3, 1), dtype, seed=2, nonzero=div)),
                       desc="bcast"),
                Sample((make((2, 3), dtype), make((2, 3), dtype, seed=1), make((2, 3), dtype, seed=2, nonzero=div)),
                       {"value": 2}, "value=2")]
    return samples


OPS = [
    # ---- error function family
    unary("erf", _scipy("erf", math.erf), needs_scipy=False),
    unary("erfc", _scipy("erfc", math.erfc), needs_scipy=False),
    unary("erfinv", _scipy("erfinv"), low=-1, high=1),
    unary("special.erfcx", _scipy("erfcx"), low=-2, high=4, special=True),
    unary("special.ndtr", _scipy("ndtr", lambda x: 0.5 * math.erfc(-x / math.sqrt(2))), special=True,
          needs_scipy=False),
    unary("special.ndtri", _scipy("ndtri"), low=0, high=1, special=True),
    unary("special.log_ndtr", _scipy("log_ndtr"), special=True),
    # ---- gamma family
    unary("lgamma", _scipy("gammaln", math.lgamma), low=-4.5, high=4.5, needs_scipy=False),
    unary("digamma", _scipy("psi"), positive=True),
    OpInfo("polygamma", (lambda n, x: sps.polygamma(n, np.asarray(x, F64))) if sps else None,
           lambda d: [Sample((n, pos((3, 4), d, 0.5, 4)), desc=f"n={n}") for n in (0, 1, 3)],
           dtypes=NUMERIC, ref_dtype=_float_result, out=True, skip=NO_SCIPY,
           tol={"float32": (1e-5, 1e-5)},
           errors=[ErrorCase((-1, np.ones(3, np.float32)), {}, RuntimeError, "does not support negative n")]),
    OpInfo("mvlgamma", (lambda x, p: sps.multigammaln(np.asarray(x, F64), p)) if sps else None, _mvlgamma_samples,
           dtypes=NUMERIC, ref_dtype=_float_result, out=True, skip=NO_SCIPY,
           errors=[ErrorCase((np.array([2.0], np.float32), 0), {}, RuntimeError,
                             "p has to be greater than or equal to 1")]),
    OpInfo("igamma", (lambda a, x: sps.gammainc(np.asarray(a, F64), np.asarray(x, F64))) if sps else None,
           lambda d: _gamma_samples(d), dtypes=FLOATING, inplace=True, out=True, skip=NO_SCIPY,
           grad=False,  # d/da is not implemented (as PyTorch); d/dx in tests/test_special_math.py
           errors=[ErrorCase((np.ones(3, np.int64), np.ones(3, np.int64)), {}, NotImplementedError,
                             "\"igamma\" not implemented for 'Long'")]),
    OpInfo("igammac", (lambda a, x: sps.gammaincc(np.asarray(a, F64), np.asarray(x, F64))) if sps else None,
           lambda d: _gamma_samples(d), dtypes=FLOATING, inplace=True, out=True, skip=NO_SCIPY, grad=False,
           errors=[ErrorCase((np.ones(3, np.bool_), np.ones(3, np.bool_)), {}, NotImplementedError,
                             "\"igammac\" not implemented for 'Bool'")]),
    OpInfo("special.zeta", (lambda x, q: sps.zeta(np.asarray(x, F64), np.asarray(q, F64))) if sps else None,
           lambda d: [Sample((pos((3, 4), d, 1.5, 5), pos((4,), d, 0.5, 3, seed=1)), desc="bcast")],
           dtypes=NUMERIC, ref_dtype=_float_result, method=False, out=True, skip=NO_SCIPY, grad=False,
           errors=_STR_ARG),
    OpInfo("special.zeta", (lambda x, q: sps.zeta(x, np.asarray(q, F64))) if sps else None,
           lambda d: [Sample((2, pos((3,), d, 0.5, 3)), desc="x a number")],
           dtypes=NUMERIC, ref_dtype=_float_result, method=False, skip=NO_SCIPY, grad=False,
           errors=[ErrorCase(("x", np.ones(3, np.float32)), {}, TypeError, "invalid combination")]),
    # ---- Bessel and related
    unary("i0", _scipy("i0"), low=-5, high=5),
    unary("special.i0e", _scipy("i0e"), low=-5, high=5, special=True),
    unary("special.i1", _scipy("i1"), low=-5, high=5, special=True),
    unary("special.i1e", _scipy("i1e"), low=-5, high=5, special=True),
    _nondiff_special("bessel_j0", _scipy("j0"), low=-20, high=20),
    _nondiff_special("bessel_j1", _scipy("j1"), low=-20, high=20),
    _nondiff_special("bessel_y0", _scipy("y0"), low=0.1, high=20, positive=True),
    _nondiff_special("bessel_y1", _scipy("y1"), low=0.1, high=20, positive=True),
    _nondiff_special("modified_bessel_i0", _scipy("i0"), low=-8, high=8),
    _nondiff_special("modified_bessel_i1", _scipy("i1"), low=-8, high=8),
    _nondiff_special("modified_bessel_k0", _scipy("k0"), low=0.1, high=8, positive=True),
    _nondiff_special("modified_bessel_k1", _scipy("k1"), low=0.1, high=8, positive=True),
    _nondiff_special("scaled_modified_bessel_k0", _scipy("k0e"), low=0.1, high=8, positive=True),
    _nondiff_special("scaled_modified_bessel_k1", _scipy("k1e"), low=0.1, high=8, positive=True),
    _nondiff_special("spherical_bessel_j0", (lambda x: sps.spherical_jn(0, x)) if sps else
                     (lambda x: np.where(x == 0, 1.0, np.sin(x) / np.where(x == 0, 1, x))), low=-10, high=10,
                     needs_scipy=False),
    _nondiff_special("airy_ai", (lambda x: sps.airy(x)[0]) if sps else None, low=-12, high=4),
    # ---- elementary special functions
    unary("sinc", np.sinc, needs_scipy=False),
    unary("special.entr", _scipy("entr"), positive=True, special=True),
    OpInfo("logit", _f(lambda x, eps=None: np.log(np.clip(x, eps, 1 - eps) / (1 - np.clip(x, eps, 1 - eps)))
                       if eps is not None else np.log(x / (1 - x))),
           lambda d: [Sample((make((3, 4), d, 0.05, 0.95, positive=True),), desc="(0, 1)"),
                      Sample((make((3, 4), d, 0.0, 1.0, positive=True, seed=3),), {"eps": 0.2}, "eps=0.2")],
           dtypes=FLOATING, ref_dtype=_float_result, inplace=True, out=True, errors=_str_error("logit")),
    OpInfo("logit", _f(lambda x: np.log(x / (1 - x))), lambda d: [Sample((make((2, 3), d, 0, 1),), desc="ints")],
           dtypes=("bool",) + INTEGRAL, ref_dtype=_float_result, grad=False),
    OpInfo("xlogy", _f(_scipy("xlogy", lambda x, y: 0.0 if x == 0 else x * math.log(y))),
           binary_samples(-3, 3, rhs_low=0, rhs_high=5, nonzero_rhs=True), dtypes=ALL_DTYPES,
           ref_dtype=_float_result, inplace=True, out=True, errors=_STR_ARG),
    OpInfo("xlogy", _f(lambda x, y: x * np.log(y)), lambda d: [Sample((2, make((3,), d, 1, 4, positive=True)),
                                                                      desc="x a number")],
           dtypes=FLOATING, method=False),
    OpInfo("special.xlog1py", _f(_scipy("xlog1py", lambda x, y: 0.0 if x == 0 else x * math.log1p(y))),
           binary_samples(-3, 3, rhs_low=0, rhs_high=5), dtypes=ALL_DTYPES, ref_dtype=_float_result,
           method=False, out=True, errors=_STR_ARG),
    # ---- pointwise extras
    OpInfo("logaddexp", np.logaddexp, binary_samples(), dtypes=FLOATING, inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.int64), np.ones(3, np.int64)), {}, NotImplementedError,
                             "\"logaddexp\" not implemented for 'Long'")]),
    OpInfo("logaddexp2", np.logaddexp2, binary_samples(), dtypes=FLOATING, inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.int32), np.ones(3, np.int32)), {}, NotImplementedError,
                             "\"logaddexp2\" not implemented for 'Int'")]),
    OpInfo("nan_to_num", _np_nan_to_num, _nan_to_num_samples, dtypes=ALL_DTYPES, inplace=True, out=True,
           errors=_str_error("nan_to_num")),
    OpInfo("clip", lambda x, min=None, max=None: np.clip(x, min, max),
           lambda d: [Sample((make((3, 4), d),), {"min": 1, "max": 3}, "min,max"),
                      Sample((make((3, 4), d),), {"max": 2}, "max")],
           dtypes=NUMERIC, inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.float32),), {}, RuntimeError, "At least one of 'min' or 'max'")]),
    OpInfo("copysign", _f(np.copysign), binary_samples(), dtypes=ALL_DTYPES, ref_dtype=_float_result,
           inplace=True, out=True, errors=_STR_ARG),
    OpInfo("nextafter", np.nextafter, binary_samples(), dtypes=("float32", "float64"), inplace=True, out=True,
           grad=False,  # no derivative, as PyTorch
           errors=[ErrorCase((np.ones(3, np.float16), np.zeros(3, np.float16)), {}, NotImplementedError,
                             "\"nextafter\" not implemented for 'Half'")]),
    OpInfo("frexp", lambda x: np.frexp(x), unary_samples(-100, 100), dtypes=FLOATING, grad=False,
           errors=[ErrorCase((np.ones(3, np.int64),), {}, RuntimeError, "only supports floating-point dtypes")]),
    OpInfo("ldexp", lambda x, e: np.asarray(x, F64) * np.exp2(np.asarray(e, F64)),
           binary_samples(-4, 4, rhs_low=-3, rhs_high=3), dtypes=NUMERIC,
           ref_dtype=_float_result, inplace=True, out=True, errors=_STR_ARG),
    OpInfo("float_power", lambda a, b: np.float_power(np.asarray(a, F64), np.asarray(b, F64)),
           binary_samples(0, 3, positive_lhs=True, rhs_low=-2, rhs_high=2), dtypes=NUMERIC,
           ref_dtype=lambda d: "float64", out=True, errors=_STR_ARG),
    OpInfo("float_power", lambda a, b: np.float_power(a, np.asarray(b, F64)),
           lambda d: [Sample((2, make((3,), d, -2, 2)), desc="base a number")], dtypes=NUMERIC,
           ref_dtype=lambda d: "float64", method=False),
    OpInfo("pow", lambda b, e: np.power(b, e),
           lambda d: [Sample((2, make((3, 4), d, 0, 4, positive=True)), desc="2 ** x"),
                      Sample((3, make((), d, 0, 3, positive=True, seed=1)), desc="0-dim")],
           dtypes=NUMERIC, method=False, out=False,
           errors=[ErrorCase(("2", np.ones(3, np.float32)), {}, TypeError, "pow\\(\\)")]),
    OpInfo("remainder", lambda a, b: np.remainder(a, b),
           lambda d: [Sample((7, make((3, 4), d, -5, 5, nonzero=True)), desc="7 % x")],
           dtypes=NUMERIC, method=False,
           errors=[ErrorCase((5, np.zeros(3, np.int64)), {}, RuntimeError, "ZeroDivisionError")]),
    OpInfo("gcd", np.gcd, binary_samples(-20, 20), dtypes=INTEGRAL, inplace=True, out=True, grad=False,
           errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float32)), {}, NotImplementedError,
                             "\"gcd\" not implemented for 'Float'")]),
    OpInfo("lcm", np.lcm, binary_samples(-10, 10), dtypes=INTEGRAL, inplace=True, out=True, grad=False,
           errors=[ErrorCase((np.ones(3, np.float64), np.ones(3, np.float64)), {}, NotImplementedError,
                             "\"lcm\" not implemented for 'Double'")]),
    OpInfo("heaviside", _heaviside_ref,
           lambda d: [Sample((make((3, 4), d, -2, 2), make((4,), d, seed=1)), desc="bcast"),
                      Sample((np.array([3, 0, 2, 0], dtype=make((1,), d).dtype), make((), d, seed=2)),
                             desc="zeros take values")],
           dtypes=ALL_DTYPES, inplace=True, out=True, grad=False,
           errors=[ErrorCase((np.ones(3, np.float32), np.ones(3, np.float64)), {}, RuntimeError,
                             "heaviside is not yet implemented for tensors with different dtypes")]),
    OpInfo("sgn", lambda x: x if x.dtype == np.bool_ else np.sign(x), unary_samples(), dtypes=ALL_DTYPES,
           inplace=True, out=True, errors=_str_error("sgn")),
    OpInfo("signbit", lambda x: np.signbit(x.astype(F64)), lambda d: unary_samples()(d) + (
        [Sample((np.array([-0.0, 0.0, -np.inf, np.nan], dtype=make((1,), d).dtype),), desc="signed zeros")]
        if d in FLOATING else []), dtypes=ALL_DTYPES, ref_dtype=lambda d: "bool", out=True, grad=False,
           errors=_str_error("signbit")),
    OpInfo("fix", np.trunc, unary_samples(), dtypes=NUMERIC, inplace=True, out=True, errors=_str_error("fix")),
    unary("deg2rad", np.deg2rad, low=-360, high=360, needs_scipy=False),
    unary("rad2deg", np.rad2deg, needs_scipy=False),
    unary("angle", lambda x: np.where(np.isnan(x), x, np.where(x < 0, np.pi, 0.0)), needs_scipy=False),
    OpInfo("positive", np.positive, unary_samples(), dtypes=NUMERIC, out=False,
           errors=[ErrorCase((np.ones(3, np.bool_),), {}, RuntimeError, "on a bool tensor is not supported")]),
    OpInfo("negative", np.negative, unary_samples(), dtypes=NUMERIC, inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.bool_),), {}, RuntimeError, "on a bool tensor is not supported")]),
    OpInfo("square", _square_ref, unary_samples(), dtypes=ALL_DTYPES,
           ref_dtype=lambda d: "int64" if d == "bool" else d, inplace=True, out=True, errors=_str_error("square")),
    OpInfo("addcmul", lambda a, b, c, value=1: a + value * b * c, _addc_samples(False), dtypes=NUMERIC,
           inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.float32), np.ones(2, np.float32), np.ones(3, np.float32)), {},
                             RuntimeError, "must match the size")]),
    OpInfo("addcdiv", lambda a, b, c, value=1: a + value * b / c, _addc_samples(True), dtypes=FLOATING,
           inplace=True, out=True,
           errors=[ErrorCase((np.ones(3, np.int64), np.ones(3, np.int64), np.ones(3, np.int64)), {},
                             NotImplementedError, "\"addcdiv\" not implemented for 'Long'")]),
    OpInfo("round", lambda x, decimals: np.round(x.astype(F64), decimals).astype(x.dtype), _round_decimals_samples,
           dtypes=FLOATING, inplace=True, out=True,
           tol={"float16": (1e-3, 0.1), "bfloat16": (1e-2, 1.0)},
           errors=[ErrorCase((np.ones(3, np.int64),), {"decimals": 2}, NotImplementedError,
                             "not implemented for 'Long'")]),
    # ---- orthogonal polynomials
    *[_poly(n) for n in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                         "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                         "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                         "laguerre_polynomial_l", "legendre_polynomial_p")],
    *[_poly_x_number(n) for n in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                                  "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                                  "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                                  "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                                  "laguerre_polynomial_l", "legendre_polynomial_p")],
]
