"""Name checks for the C++ snippets embedded in native_functions.yaml.

Two kinds of snippet exist: a pointwise `expr` (a per-element scalar expression that
the generator turns into CPU/CUDA/Meta kernels, so only a fixed vocabulary makes
sense) and derivative formulas (free-form C++ over tensors, where we only check that
bare names refer to something the autograd node can actually provide). Catching a typo
here gives a `file:line` error instead of a C++ compile error in a generated file.
"""
from __future__ import annotations

import difflib
import re
from typing import Iterable

__all__ = [
    "FormulaError", "POINTWISE_FUNCTIONS", "CONSTANTS", "METADATA_METHODS",
    "tokenize", "check_pointwise_expr", "check_derivative_formula", "uses_only_sizes",
]


class FormulaError(ValueError):
    pass


# Scalar functions a pointwise `expr` may call; each must exist in the generated
# kernels' scalar math header for every dtype the op supports.
POINTWISE_FUNCTIONS = frozenset("""
    abs sign sqrt rsqrt exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan
    atan2 sinh cosh tanh asinh acosh atanh sigmoid floor ceil round trunc frac reciprocal
    pow fmod remainder minimum maximum clamp erf erf_simd gelu_erf_grad erfc lgamma isnan isinf isfinite
    logical_not where floor_divide copysign hypot nan_to_num relu gelu silu softplus
    signbit trunc_divide true_divide lerp cast_bool clamp_min clamp_max
    bitwise_not shift_left shift_right logical_xor
""".split()) | frozenset("""
    erfinv erfcx ndtr ndtri log_ndtr digamma polygamma entr zeta igamma igammac
    i0 i0e i1 i1e bessel_j0 bessel_j1 bessel_y0 bessel_y1 bessel_k0 bessel_k1 bessel_k0e bessel_k1e
    spherical_bessel_j0 airy_ai chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v
    chebyshev_polynomial_w shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u
    shifted_chebyshev_polynomial_v shifted_chebyshev_polynomial_w hermite_polynomial_h hermite_polynomial_he
    laguerre_polynomial_l legendre_polynomial_p sinc logit xlogy xlog1py logaddexp logaddexp2 nextafter
    frexp_mantissa frexp_exponent angle deg2rad rad2deg round_decimals heaviside gcd lcm sign_bit
""".split())  # special functions and pointwise extras: aten/native/SpecialFunctions.h

# Names a formula writer may reach for that tl_math deliberately lacks: C++'s
# std::min/max return the other operand for NaN and are not host/device safe.
NOT_POINTWISE_FUNCTIONS = {
    "min": "use minimum(a, b) (NaN-propagating, as torch.minimum) or clamp_max(x, hi)",
    "max": "use maximum(a, b) (NaN-propagating, as torch.maximum) or clamp_min(x, lo)",
}

CONSTANTS = frozenset({"true", "false", "M_PI", "M_LN2", "M_LN10", "INFINITY", "NAN"})

# The functor's computation type, callable in an expr as a conversion: T(0.5).
COMPUTATION_TYPE = "T"

# `x.<method>()` calls that only need x's metadata, so autograd can save that instead of x.
METADATA_METHODS = frozenset({"sizes", "sym_sizes", "dim", "scalar_type", "options", "numel", "strides",
                              "storage_offset"})

# C++ words that legitimately appear bare in derivative formulas, e.g. static_cast<double>(x).
CXX_WORDS = frozenset({"static_cast", "double", "float", "int64_t", "bool", "nullptr", "auto", "this"})

_POINTWISE_OPERATORS = frozenset(
    "+ - * / % == != < <= > >= && || ! ~ & | ^ << >> ? : ( ) ,".split())

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFuUlL]*)
  | (?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>::|->|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>!~&|^?:.,()\[\]{}])
""", re.X)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_CLOSE = {")": "(", "]": "[", "}": "{"}


def tokenize(expr: str) -> list[str]:
    """Split a C++ expression into identifier, number, string and operator tokens."""
    tokens, pos = [], 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise FormulaError(f"unexpected character {expr[pos]!r} at column {pos + 1} in {expr!r}")
        if m.lastgroup != "ws":
            tokens.append(m.group())
        pos = m.end()
    return tokens


def _parse(expr: str) -> list[str]:
    # Unbalanced brackets would otherwise surface as a C++ error in a generated file.
    tokens, stack = tokenize(expr), []
    if not tokens:
        raise FormulaError("empty expression")
    for t in tokens:
        if t in "([{":
            stack.append(t)
        elif t in _CLOSE and (not stack or stack.pop() != _CLOSE[t]):
            raise FormulaError(f"unbalanced {t!r} in {expr!r}")
    if stack:
        raise FormulaError(f"unclosed {stack[-1]!r} in {expr!r}")
    return tokens


def _role(tokens: list[str], i: int) -> str:
    """How the identifier at tokens[i] is used: call, member, namespace or bare."""
    prev = tokens[i - 1] if i else ""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if prev in (".", "::", "->"):
        return "member"
    if nxt == "::":
        return "namespace"
    return "call" if nxt == "(" else "bare"


def _hint(name: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, sorted(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_pointwise_expr(expr: str, arg_names: set[str]) -> set[str]:
    """Validate a pointwise `expr`; return the argument names it references."""
    used: set[str] = set()
    tokens = _parse(expr)
    for i, t in enumerate(tokens):
        if _IDENT.fullmatch(t):
            if _role(tokens, i) == "call":
                if t in NOT_POINTWISE_FUNCTIONS:
                    raise FormulaError(f"{t}() is not available in pointwise expr {expr!r}: "
                                       f"{NOT_POINTWISE_FUNCTIONS[t]}")
                # T(c): the constant c in the computation type (a float literal
                # such as 0.5f would lose precision in float64).
                if t not in POINTWISE_FUNCTIONS and t != COMPUTATION_TYPE:
                    raise FormulaError(f"unknown function {t!r} in pointwise expr {expr!r}"
                                       f"{_hint(t, POINTWISE_FUNCTIONS)}; see POINTWISE_FUNCTIONS")
            elif t in arg_names:
                used.add(t)
            elif t not in CONSTANTS:
                raise FormulaError(
                    f"unknown name {t!r} in pointwise expr {expr!r}{_hint(t, arg_names)}; "
                    f"allowed: arguments ({', '.join(sorted(arg_names))}) and constants "
                    f"({', '.join(sorted(CONSTANTS))})")
        elif not (t[0].isdigit() or t[0] == "." and len(t) > 1) and t not in _POINTWISE_OPERATORS:
            raise FormulaError(f"token {t!r} is not allowed in pointwise expr {expr!r}")
    return used


def check_derivative_formula(formula: str, arg_names: set[str], num_returns: int,
                             return_names: Iterable[str] = ()) -> set[str]:
    """Validate a derivative formula; return the argument/result names it references.

    Bare names may be arguments, `grad`, `grads`, results (`result` for a single
    return, `result0`..`result{n-1}`, named returns) or constants. Calls, members
    (after `.`/`::`/`->`) and namespaces (before `::`) are not checked: they are C++.
    """
    results = {f"result{i}" for i in range(num_returns)} | set(return_names)
    if num_returns == 1:
        results.add("result")
    used: set[str] = set()
    tokens = _parse(formula)
    for i, t in enumerate(tokens):
        if not _IDENT.fullmatch(t) or _role(tokens, i) != "bare":
            continue
        if t in arg_names or t in results:
            used.add(t)
        elif re.fullmatch(r"result\d*", t):
            raise FormulaError(f"{t!r} in derivative formula {formula!r} does not exist: the "
                               f"op has {num_returns} return(s); use {', '.join(sorted(results)) or 'none'}")
        elif t not in ("grad", "grads") and t not in CONSTANTS and t not in CXX_WORDS:
            allowed = sorted(set(arg_names) | results | {"grad", "grads"})
            raise FormulaError(f"unknown name {t!r} in derivative formula {formula!r}"
                               f"{_hint(t, allowed)}; allowed: {', '.join(allowed)}")
    return used


def uses_only_sizes(formula: str, name: str) -> bool:
    """True if every bare use of `name` is `name.<m>()` with m in METADATA_METHODS
    (vacuously true when `name` is not used), so its metadata can be saved instead."""
    tokens = tokenize(formula)
    return all(tokens[i + 1:i + 5] in (['.', m, '(', ')'] for m in METADATA_METHODS)
               for i, t in enumerate(tokens) if t == name and _role(tokens, i) == "bare")
