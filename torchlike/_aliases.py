"""torch.* and torch.Tensor names that PyTorch defines as aliases or thin
compositions of other operators (torch.absolute = torch.abs, torch.fmax, the
window functions, trapezoid, promote_types, the global flags, ...).

They are written here over existing torchlike operators rather than as new
kernels: each is either the same function under a second name (so it shares
the base op's dtype rules, out= handling, autograd and errors) or a few ops
whose composition PyTorch itself documents."""
import builtins
import math
import os
import warnings

import torchlike as _tl
from torchlike import Tensor
from torchlike import _C
from torchlike import linalg as _la
from torchlike.amp.autocast_mode import _float32_policy  # PyTorch's CPU autocast runs lu_solve in float32

__all__ = []


def _export(name, fn):
    fn.__name__ = fn.__qualname__ = name
    globals()[name] = fn
    __all__.append(name)
    return fn


# ---------------------------------------------------------------- pure aliases
# PyTorch's alias -> base name; the alias is the very same callable, on both
# torch and Tensor, including the in-place form where PyTorch has one.
_ALIASES = {
    "absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan", "arctan2": "atan2",
    "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne",
    "multiply": "mul", "divide": "div", "subtract": "sub", "true_divide": "div",
}
# Inverse hyperbolics: only where torchlike has the base op.
for _alias, _base in (("arccosh", "acosh"), ("arcsinh", "asinh"), ("arctanh", "atanh")):
    if hasattr(_tl, _base):
        _ALIASES[_alias] = _base

for _alias, _base in _ALIASES.items():
    _fn = getattr(_tl, _base)
    globals()[_alias] = _fn
    __all__.append(_alias)
    setattr(Tensor, _alias, getattr(Tensor, _base))
    if hasattr(Tensor, _base + "_"):
        setattr(Tensor, _alias + "_", getattr(Tensor, _base + "_"))

# PyTorch's unsafe_* variants differ only in skipping view bookkeeping for autograd.
unsafe_chunk, unsafe_split = _tl.chunk, _tl.split
__all__ += ["unsafe_chunk", "unsafe_split"]
Tensor.unsafe_chunk, Tensor.unsafe_split = Tensor.chunk, Tensor.split
if hasattr(_tl, "split_with_sizes"):
    unsafe_split_with_sizes = _tl.split_with_sizes
    __all__.append("unsafe_split_with_sizes")
    Tensor.unsafe_split_with_sizes = Tensor.split_with_sizes

concat = concatenate = _tl.cat
ger = _tl.outer
__all__ += ["concat", "concatenate", "ger"]
Tensor.ger = Tensor.outer


def _torch_inplace(name):
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    fn.__doc__ = f"torch.{name}(input, ...) is input.{name}(...)."
    return _export(name, fn)


# torch-level in-place functions that PyTorch exposes (torch.exp_(x) == x.exp_()).
for _name in ("abs_ acos_ asin_ atan_ acosh_ asinh_ atanh_ ceil_ clamp_max_ clamp_min_ cos_ cosh_ deg2rad_ "
              "detach_ erf_ erfc_ exp2_ exp_ expm1_ floor_ frac_ gcd_ i0_ lcm_ log10_ log1p_ log2_ log_ neg_ "
              "rad2deg_ reciprocal_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ tan_ tanh_ trunc_ xlogy_").split():
    if hasattr(Tensor, _name):
        _torch_inplace(_name)
for _alias, _base in (("arccos_", "acos_"), ("arcsin_", "asin_"), ("arctan_", "atan_"), ("arccosh_", "acosh_"),
                      ("arcsinh_", "asinh_"), ("arctanh_", "atanh_")):
    if _base in globals():
        globals()[_alias] = globals()[_base]
        __all__.append(_alias)


def fill(input, value):
    """Out-of-place fill: a new tensor like input filled with value."""
    return input.clone().fill_(value)


_export("fill", fill)

# ---------------------------------------------------------------- constants
pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None
__all__ += ["pi", "e", "inf", "nan", "newaxis"]


# ---------------------------------------------------------------- small functions
def _fmax_fmin(name, base):
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor) or not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'input' and 'other' must be Tensor, not "
                            f"{type(input).__name__ if not isinstance(input, Tensor) else type(other).__name__}")
        # maximum/minimum propagate NaN; fmax/fmin take the other operand where one side is NaN.
        m = base(input, other)
        a, b = input.to(m.dtype), other.to(m.dtype)
        r = _tl.where(_tl.isnan(a), b, _tl.where(_tl.isnan(b), a, m))
        return _write_out(name, r, out)
    fn.__doc__ = f"Elementwise {base.__name__} that ignores NaN (NaN only where both inputs are NaN)."
    return _export(name, fn)


_fmax_fmin("fmax", _tl.maximum)
_fmax_fmin("fmin", _tl.minimum)


def _write_out(name, result, out):
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError(f"{name}(): out has shape {tuple(out.shape)}, expected {tuple(result.shape)}")
    if not can_cast(result.dtype, out.dtype):  # PyTorch's out= rule: same-kind casts only
        raise RuntimeError(f"{name}(): result type {result.dtype} can't be cast to the desired output type "
                           f"{out.dtype}")
    return out.copy_(result)


def _check_tensor(name, x, arg="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


def isposinf(input, *, out=None):
    _check_tensor("isposinf", input)
    return _write_out("isposinf", _tl.isinf(input) & (input > 0), out)


def isneginf(input, *, out=None):
    _check_tensor("isneginf", input)
    return _write_out("isneginf", _tl.isinf(input) & (input < 0), out)


def isreal(input):
    """torchlike has no complex dtypes, so every element is real."""
    _check_tensor("isreal", input)
    return _tl.ones_like(input, dtype=_tl.bool)


def is_nonzero(input):
    _check_tensor("is_nonzero", input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item() != 0)


def is_same_size(input, other):
    _check_tensor("is_same_size", input)
    _check_tensor("is_same_size", other, "other")
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input):
    _check_tensor("is_signed", input)
    return input.dtype not in (_tl.uint8, _tl.bool)


def is_inference(input):
    _check_tensor("is_inference", input)
    return input.is_inference()


def get_device(input):
    """-1 for a CPU tensor, else the device index."""
    _check_tensor("get_device", input)
    d = input.device
    return -1 if d.type == "cpu" else (d.index if d.index is not None else 0)


def _as_tensor_like_scalar(x):
    # A Python number becomes a 0-dim tensor of its own category: promotion
    # against a dimensioned tensor is then the same as for a wrapped scalar
    # (same category -> the dimensioned tensor's dtype; float64 keeps the value exact).
    if isinstance(x, builtins.bool):
        return _tl.tensor(x, dtype=_tl.bool)
    if isinstance(x, builtins.int):
        return _tl.tensor(x, dtype=_tl.int64)
    if isinstance(x, builtins.float):
        return _tl.tensor(x, dtype=_tl.float64)
    raise TypeError(f"expected a Tensor or a Number, got {type(x).__name__}")


def rsub(input, other, *, alpha=1):
    """other - alpha * input."""
    _check_tensor("rsub", input)
    if isinstance(other, Tensor):
        return _tl.sub(other, input, alpha=alpha)
    if input.dtype == _tl.bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    res_dtype = result_type(input, other)
    return _tl.sub(_tl.full_like(input, other, dtype=res_dtype), input, alpha=alpha)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-dim tensor; like PyTorch, the dtype defaults to the default float dtype even for ints."""
    if isinstance(s, Tensor):
        raise TypeError("scalar_tensor(): argument 's' must be Number, not Tensor")
    if not isinstance(s, (builtins.bool, builtins.int, builtins.float)):
        raise TypeError(f"scalar_tensor(): argument 's' must be Number, not {type(s).__name__}")
    return _tl.tensor(s, dtype=dtype if dtype is not None else _tl.get_default_dtype(), device=device,
                      requires_grad=requires_grad)


def typename(obj):
    """PyTorch's torch.typename: 'torch.FloatTensor' for tensors, else module.qualname."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


for _fn in (isposinf, isneginf, isreal, is_nonzero, is_same_size, is_signed, is_inference, get_device, rsub,
            scalar_tensor, typename):
    __all__.append(_fn.__name__)


# ---------------------------------------------------------------- promotion
_FLOATS = (_tl.float16, _tl.bfloat16, _tl.float32, _tl.float64)
_INTS = (_tl.uint8, _tl.int8, _tl.int16, _tl.int32, _tl.int64)


def _check_dtype(name, d, arg):
    if not isinstance(d, _tl.dtype):
        raise TypeError(f"{name}(): argument '{arg}' must be torchlike.dtype, not {type(d).__name__}")


def promote_types(type1, type2):
    """The smallest dtype both type1 and type2 convert to (PyTorch's table: the
    kernel library's promoteTypes, read off an empty binary op)."""
    _check_dtype("promote_types", type1, "type1")
    _check_dtype("promote_types", type2, "type2")
    return (_tl.empty(0, dtype=type1) + _tl.empty(0, dtype=type2)).dtype


def _promote_skip_undefined(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return promote_types(a, b)


def _combine_categories(higher, lower):
    # c10's combine_categories: a lower-priority operand only matters when its
    # category (bool < integral < floating) is above the higher-priority one's.
    if higher is not None and higher.is_floating_point:
        return higher
    if higher == _tl.bool or (lower is not None and lower.is_floating_point):
        return _promote_skip_undefined(higher, lower)
    return higher if higher is not None else lower


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on these operands gives. As in PyTorch,
    dimensioned tensors come first, then 0-dim tensors, then Python numbers;
    a lower-priority operand only counts when its category is higher."""
    dim_result = zero_result = wrapped_result = None
    for x in (tensor1, tensor2):
        if isinstance(x, Tensor):
            if x.dim() > 0:
                dim_result = _promote_skip_undefined(dim_result, x.dtype)
            else:
                zero_result = _promote_skip_undefined(zero_result, x.dtype)
        elif isinstance(x, builtins.bool):
            wrapped_result = _promote_skip_undefined(wrapped_result, _tl.bool)
        elif isinstance(x, builtins.int):
            wrapped_result = _promote_skip_undefined(wrapped_result, _tl.int64)
        elif isinstance(x, builtins.float):
            wrapped_result = _promote_skip_undefined(wrapped_result, _tl.get_default_dtype())
        else:
            raise TypeError(f"result_type(): arguments must be Tensor or Number, not {type(x).__name__}")
    return _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))


def can_cast(from_, to):
    """Whether a same-kind cast is allowed: no float -> integral, no non-bool -> bool."""
    _check_dtype("can_cast", from_, "from_")
    _check_dtype("can_cast", to, "to")
    if from_.is_floating_point and not to.is_floating_point:
        return False
    if from_ != _tl.bool and to == _tl.bool:
        return False
    return True


__all__ += ["promote_types", "result_type", "can_cast"]


# ---------------------------------------------------------------- creation
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """base ** linspace(start, end, steps), computed in float64 then cast."""
    if dtype is None:
        dtype = out.dtype if out is not None else _tl.get_default_dtype()
    exps = _tl.linspace(start, end, steps, dtype=_tl.float64)
    r = _tl.pow(_tl.tensor(builtins.float(base), dtype=_tl.float64), exps).to(dtype)
    if device is not None:
        r = r.to(device)
    if out is not None:
        return _write_out("logspace", r, out)
    return r.requires_grad_(requires_grad) if requires_grad else r


_export("logspace", logspace)


def _window(name, window_length, periodic, dtype, device, requires_grad, formula):
    """PyTorch's window convention: a periodic window of length L is the
    symmetric window of length L + 1 without its last sample."""
    if dtype is None:
        dtype = _tl.get_default_dtype()
    if not isinstance(window_length, builtins.int) or isinstance(window_length, builtins.bool):
        raise TypeError(f"{name}(): argument 'window_length' must be int, not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if dtype not in _FLOATS:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length == 0:
        w = _tl.empty(0, dtype=dtype)
    elif window_length == 1:
        w = _tl.ones(1, dtype=dtype)
    else:
        n_sym = window_length + 1 if periodic else window_length
        n = _tl.arange(n_sym, dtype=_tl.float64)
        w = formula(n, n_sym)[:window_length].to(dtype)
    if device is not None:
        w = w.to(device)
    if requires_grad:
        w.requires_grad_(True)
    return w


def _cos_term(n, N, k):
    return _tl.cos(n * (2.0 * k * math.pi / (N - 1)))


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 0.5 - 0.5 * _cos_term(n, N, 1))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   requires_grad=False):
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: alpha - beta * _cos_term(n, N, 1))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 0.42 - 0.5 * _cos_term(n, N, 1) + 0.08 * _cos_term(n, N, 2))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, N: 1.0 - _tl.abs(n * (2.0 / (N - 1)) - 1.0))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    def formula(n, N):
        half = (N - 1) / 2.0
        ratio = (n - half) / half
        arg = _tl.sqrt(_tl.clamp(1.0 - ratio * ratio, min=0.0)) * beta
        return _tl.i0(arg) / _i0_scalar(beta)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, formula)


def _i0_scalar(x):
    return _tl.i0(_tl.tensor(builtins.float(x), dtype=_tl.float64)).item()


for _fn in (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window):
    __all__.append(_fn.__name__)


# ---------------------------------------------------------------- integration
def _trapz_parts(name, y, x, dx, dim):
    _check_tensor(name, y, "y")
    if y.dim() == 0:
        raise IndexError(f"{name}(): dimension specified as {dim} but tensor has no dimensions")
    nd = y.dim()
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim = dim % nd
    n = y.shape[dim]
    if x is not None:
        _check_tensor(name, x, "x")
        if x.dim() == 1:
            if x.shape[0] != n:
                raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
            shape = [1] * nd
            shape[dim] = n
            x = x.reshape(shape)
        elif x.dim() != nd:
            raise RuntimeError(f"{name}: x must be 1-D or have as many dimensions as y")
        spacing = _tl.diff(x, dim=dim) if n > 0 else None
    else:
        spacing = dx
    return dim, n, spacing


def _pair_sum(y, dim, n):
    return y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integral of y along dim by the trapezoidal rule, with sample points x or spacing dx (default 1)."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid(): pass either x or dx, not both")
    if isinstance(x, (builtins.int, builtins.float)) and not isinstance(x, builtins.bool):
        x, dx = None, x  # torch.trapezoid(y, 2.0) is the dx form
    dim, n, spacing = _trapz_parts("trapezoid", y, x, 1 if dx is None else dx, dim)
    if n == 0:
        return _tl.zeros_like(y.sum(dim)) if x is None else _tl.zeros_like((y * 1.0).sum(dim))
    if x is None:
        return _pair_sum(y, dim, n).sum(dim) * (spacing / 2.0)
    return (_pair_sum(y, dim, n) * spacing).sum(dim) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoidal integral along dim (one element shorter than y along dim)."""
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid(): pass either x or dx, not both")
    if isinstance(x, (builtins.int, builtins.float)) and not isinstance(x, builtins.bool):
        x, dx = None, x
    dim, n, spacing = _trapz_parts("cumulative_trapezoid", y, x, 1 if dx is None else dx, dim)
    if n == 0:
        return (y * 1.0).narrow(dim, 0, 0) if x is None else (y * x.reshape(-1)[:0].sum()).narrow(dim, 0, 0)
    if x is None:
        return _tl.cumsum(_pair_sum(y, dim, n) * (spacing / 2.0), dim)
    return _tl.cumsum(_pair_sum(y, dim, n) * spacing / 2.0, dim)


for _fn in (trapezoid, trapz, cumulative_trapezoid):
    __all__.append(_fn.__name__)


# ---------------------------------------------------------------- cross / vander
def cross(input, other, dim=None, *, out=None):
    """torch.cross: with dim=None, the first dimension of size 3 (deprecated in PyTorch: it warns)."""
    _check_tensor("cross", input)
    _check_tensor("cross", other, "other")
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\n"
                      "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
                      "The default value of dim will change to agree with that of linalg.cross in a future "
                      "release.", UserWarning, stacklevel=2)
        shape = _tl.broadcast_shapes(input.shape, other.shape)
        sizes3 = [i for i, s in enumerate(shape) if s == 3]
        if not sizes3:
            raise RuntimeError(f"no dimension of size 3 in input; cross got shape {tuple(shape)}")
        dim = sizes3[0]
    return _la.cross(input, other, dim=dim, out=out)


def vander(x, N=None, increasing=False):
    """Vandermonde matrix: columns x**(N-1) ... x**0 (reversed when increasing).
    Integral and bool inputs give int64, as in PyTorch."""
    _check_tensor("vander", x, "x")
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is None:
        N = x.shape[0]
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.is_floating_point() else x.to(_tl.int64)
    if N == 0:
        return _tl.empty((x.shape[0], 0), dtype=base.dtype)
    cols = [_tl.ones_like(base)]
    for _ in range(1, N):
        cols.append(cols[-1] * base)
    r = _tl.stack(cols, dim=1)
    return r if increasing else r.flip(1)


__all__ += ["cross", "vander"]


# ---------------------------------------------------------------- global flags
# torchlike's CPU kernels are deterministic and have no TF32 or interop thread
# pool, so these only record the setting and validate it as PyTorch does.
_state = {"det": False, "det_warn_only": False, "matmul": "highest", "warn_always": False,
          "interop": builtins.max(1, (os.cpu_count() or 1) // 2)}


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, builtins.bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    if not isinstance(warn_only, builtins.bool):
        raise TypeError("use_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _state["det"] = mode
    _state["det_warn_only"] = warn_only
    # Kernels read the setting from the core (c10::alertNotDeterministic).
    _C._global_set("deterministic", mode)
    _C._global_set("deterministic_warn_only", warn_only)


def are_deterministic_algorithms_enabled():
    return _state["det"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["det_warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """"default"/0: off; "warn"/1: deterministic, warn only; "error"/2: deterministic."""
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = modes[debug_mode]
    if not isinstance(debug_mode, builtins.int) or isinstance(debug_mode, builtins.bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    elif debug_mode == 1:
        use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        use_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode():
    if not _state["det"]:
        return 0
    return 1 if _state["det_warn_only"] else 2


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise TypeError(f"set_float32_matmul_precision(): argument must be str, not {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        # PyTorch warns and keeps the current setting.
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul"] = precision
    _C._global_set("float32_matmul_precision", ("highest", "high", "medium").index(precision))


def get_float32_matmul_precision():
    return _state["matmul"]


def set_warn_always(b):
    _state["warn_always"] = builtins.bool(b)


def is_warn_always_enabled():
    return _state["warn_always"]


def set_num_interop_threads(num):
    if not isinstance(num, builtins.int) or isinstance(num, builtins.bool):
        raise TypeError(f"set_num_interop_threads(): argument must be int, not {type(num).__name__}")
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _state["interop"] = num


def get_num_interop_threads():
    return _state["interop"]


for _fn in (use_deterministic_algorithms, are_deterministic_algorithms_enabled,
            is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
            get_deterministic_debug_mode, set_float32_matmul_precision, get_float32_matmul_precision,
            set_warn_always, is_warn_always_enabled, set_num_interop_threads, get_num_interop_threads):
    __all__.append(_fn.__name__)


# ---------------------------------------------------------------- linear algebra torch functions
@_float32_policy("cpu")
def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """Solves A X = b given A's LU factorization (torch.linalg.lu_factor's LU, pivots)."""
    return _la.lu_solve(LU_data, LU_pivots, b, out=out)


_export("lu_solve", lu_solve)


def lu(A, pivot=True, get_infos=False, out=None):
    """(LU, pivots[, infos]) of the LU factorization with partial pivoting (torch.linalg.lu_factor_ex)."""
    if not pivot:
        raise RuntimeError("lu without pivoting is not implemented on the CPU")
    LU, piv, info = _la.lu_factor_ex(A)
    r = (LU, piv, info) if get_infos else (LU, piv)
    if out is not None:
        for o, v in zip(out, r):
            _write_out("lu", v, o)
        return tuple(out)
    return r


_export("lu", lu)


def renorm(input, p, dim, maxnorm, *, out=None):
    """Each slice input.select(dim, i) whose p-norm exceeds maxnorm is scaled
    to norm maxnorm (PyTorch divides by norm + 1e-7)."""
    _check_tensor("renorm", input)
    if not input.is_floating_point():
        raise RuntimeError(f"renorm: Expected a floating point tensor as input, got {input.dtype}")
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    nd = input.dim()
    if not -builtins.max(nd, 1) <= dim < builtins.max(nd, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    if nd <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {nd} dimensions")
    dim = dim % nd
    reduce_dims = [d for d in range(nd) if d != dim]
    norm = _la.vector_norm(input, p, dim=reduce_dims, keepdim=True)
    factor = _tl.where(norm > maxnorm, maxnorm / (norm + 1e-7), _tl.ones_like(norm))
    return _write_out("renorm", input * factor, out)


_export("renorm", renorm)


# ---------------------------------------------------------------- Tensor methods
def _install():
    from torchlike import _linalg_torch as lt

    def method(fn):
        def m(self, *args, **kwargs):
            return fn(self, *args, **kwargs)
        m.__name__ = m.__qualname__ = fn.__name__
        m.__doc__ = fn.__doc__
        return m

    for fn in (lt.det, lt.logdet, lt.slogdet, lt.inverse, lt.pinverse, lt.matrix_power, lt.matrix_exp,
               lt.cholesky, lt.cholesky_solve, lt.cholesky_inverse, lt.qr, lt.svd, lt.triangular_solve,
               fmax, fmin, cross, isposinf, isneginf, isreal, is_nonzero, is_same_size, is_signed, get_device,
               lu_solve):
        if not hasattr(Tensor, fn.__name__):
            setattr(Tensor, fn.__name__, method(fn))
    for name in ("inverse", "det", "logdet", "slogdet", "cholesky", "qr", "svd"):
        getattr(Tensor, name).__name__ = name

    Tensor.lu = lambda self, pivot=True, get_infos=False: globals()["lu"](self, pivot, get_infos)
    Tensor.renorm = method(renorm)

    def renorm_(self, p, dim, maxnorm):
        return self.copy_(renorm(self, p, dim, maxnorm))
    Tensor.renorm_ = renorm_

    def prelu(self, weight):
        from torchlike.nn import functional as F
        return F.prelu(self, weight)
    Tensor.prelu = prelu

    # In-place forms of the fused multiply-adds: the out-of-place op written back.
    for name in ("addmm", "addbmm", "baddbmm", "addmv", "addr"):
        if hasattr(Tensor, name) and not hasattr(Tensor, name + "_"):
            def inplace(self, *args, _op=getattr(Tensor, name), **kwargs):
                return self.copy_(_op(self, *args, **kwargs))
            inplace.__name__ = inplace.__qualname__ = name + "_"
            setattr(Tensor, name + "_", inplace)


_install()
_torch_inplace("addmv_")
