"""assert_close: PyTorch's comparison of tensors, numbers and their containers,
with its default tolerances and its mismatch messages, written against
torchlike's own ops."""
import collections.abc
import math
import warnings

import torchlike

# (rtol, atol) per dtype; other dtypes compare exactly.
_DTYPE_PRECISIONS = {
    torchlike.float16: (0.001, 1e-5),
    torchlike.bfloat16: (0.016, 1e-5),
    torchlike.float32: (1.3e-6, 1e-5),
    torchlike.float64: (1e-7, 1e-7),
}


class _Mismatch(Exception):
    def __init__(self, exc_type, msg, path=()):
        super().__init__(msg)
        self.exc_type, self.msg, self.path = exc_type, msg, path

    def to_error(self, user_msg):
        msg = self.msg
        if self.path:
            msg += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in self.path)
        if callable(user_msg):
            msg = user_msg(msg)
        elif user_msg is not None:
            msg = user_msg
        return self.exc_type(msg)


def _tolerances(dtypes, rtol, atol):
    if (rtol is None) ^ (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        m = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return m + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += extra.strip() + "\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _is_number(x):
    return isinstance(x, (bool, int, float)) and not isinstance(x, torchlike.Tensor)


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    if check_dtype and isinstance(actual, bool) != isinstance(expected, bool):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual != expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    if rtol is None:  # Python floats are float64, ints compare exactly
        rtol, atol = (1e-7, 1e-7) if isinstance(actual, float) or isinstance(expected, float) else (0.0, 0.0)
    elif atol is None:
        _tolerances((), rtol, atol)
    if actual == expected:
        return
    if equal_nan and isinstance(actual, float) and isinstance(expected, float) \
            and math.isnan(actual) and math.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if math.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    raise _Mismatch(AssertionError, _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.",
                                                  abs_diff, None, atol, rel_diff, None, rtol))


def _unravel(flat, shape):
    idx = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        idx.append(mod)
    return tuple(reversed(idx))


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                     check_stride):
    def attr_error(name, a, e):
        raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.")

    if actual.shape != expected.shape:
        attr_error("shape", actual.shape, expected.shape)
    if check_layout and actual.layout != expected.layout:
        attr_error("layout", actual.layout, expected.layout)
    if check_device and actual.device != expected.device:
        attr_error("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        attr_error("dtype", actual.dtype, expected.dtype)
    if check_stride and actual.stride() != expected.stride():
        attr_error("stride()", actual.stride(), expected.stride())
    rtol, atol = _tolerances((actual.dtype, expected.dtype), rtol, atol)

    # Values are compared on the CPU, in a common dtype, without autograd.
    with torchlike.no_grad():
        a, e = actual.detach(), expected.detach()
        if a.device.type != "cpu":
            a = a.cpu()
        if e.device.type != "cpu":
            e = e.cpu()
        if a.dtype != e.dtype:
            common = torchlike.float64 if (a.is_floating_point() or e.is_floating_point()) else torchlike.int64
            a, e = a.to(common), e.to(common)
        if a.dtype == torchlike.bool:
            matches = a == e
        elif a.is_floating_point():
            matches = a == e  # also equal infinities
            if equal_nan:
                matches = matches | (torchlike.isnan(a) & torchlike.isnan(e))
            if rtol != 0 or atol != 0:
                a64, e64 = a.to(torchlike.float64), e.to(torchlike.float64)
                close = (a64 - e64).abs() <= atol + rtol * e64.abs()
                matches = matches | (close & torchlike.isfinite(a64) & torchlike.isfinite(e64))
        else:
            matches = a == e
            if rtol != 0 or atol != 0:
                a64, e64 = a.to(torchlike.float64), e.to(torchlike.float64)
                matches = matches | ((a64 - e64).abs() <= atol + rtol * e64.abs())
        if bool(matches.all()):
            return
        n = matches.numel()
        mismatches = n - int(matches.sum())
        extra = f"Mismatched elements: {mismatches} / {n} ({mismatches / n:.1%})"
        if a.dtype == torchlike.bool:
            a, e = a.to(torchlike.int64), e.to(torchlike.int64)
        if not a.is_floating_point():
            a, e = a.to(torchlike.int64), e.to(torchlike.int64)
        af, ef, mf = a.flatten(), e.flatten(), matches.flatten()
        abs_diff = (af - ef).abs()
        zero = torchlike.zeros((), dtype=abs_diff.dtype)
        abs_diff = torchlike.where(mf, zero, abs_diff)
        max_abs, abs_idx = abs_diff.max(0)
        rel_diff = abs_diff / ef.abs()
        rel_diff = torchlike.where(mf, torchlike.zeros((), dtype=rel_diff.dtype), rel_diff)
        max_rel, rel_idx = rel_diff.max(0)
        shape = tuple(matches.shape)
        raise _Mismatch(AssertionError, _mismatch_msg(
            "Tensor-likes", extra, max_abs.item(), _unravel(int(abs_idx), shape) if shape else (), atol,
            max_rel.item(), _unravel(int(rel_idx), shape) if shape else (), rtol))


def _as_tensor(x):
    """NumPy arrays (and NumPy scalars) compare as tensors."""
    mod = type(x).__module__
    if mod == "numpy" and hasattr(x, "dtype"):
        return torchlike.as_tensor(x) if hasattr(torchlike, "as_tensor") else torchlike.tensor(x)
    return x


def _compare(actual, expected, path, opts):
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    allow_subclasses = opts["allow_subclasses"]
    try:
        if isinstance(actual, torchlike.Tensor) or isinstance(expected, torchlike.Tensor):
            if not (isinstance(actual, torchlike.Tensor) and isinstance(expected, torchlike.Tensor)):
                raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                                           f"{type(actual)} and {type(expected)}.")
            if not allow_subclasses and type(actual) is not type(expected):
                raise _Mismatch(AssertionError, f"The values for attribute 'type' do not match: "
                                                f"{type(actual)} != {type(expected)}.")
            _compare_tensors(actual, expected, opts["rtol"], opts["atol"], opts["equal_nan"],
                             opts["check_device"], opts["check_dtype"], opts["check_layout"], opts["check_stride"])
            return
        if actual is None or expected is None:
            if actual is not expected:
                raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}")
            return
        if _is_number(actual) and _is_number(expected):
            _compare_numbers(actual, expected, opts["rtol"], opts["atol"], opts["equal_nan"], opts["check_dtype"])
            return
        if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
            ak, ek = set(actual.keys()), set(expected.keys())
            if ak != ek:
                missing, extra = ek - ak, ak - ek
                raise _Mismatch(AssertionError, f"The keys of the mappings do not match:\n"
                                                f"Missing keys in the actual mapping: {sorted(missing, key=repr)}\n"
                                                f"Extra keys in the actual mapping: {sorted(extra, key=repr)}")
            for k in expected:
                _compare(actual[k], expected[k], path + (k,), opts)
            return
        seq = collections.abc.Sequence
        if isinstance(actual, seq) and isinstance(expected, seq) \
                and not isinstance(actual, str) and not isinstance(expected, str):
            if len(actual) != len(expected):
                raise _Mismatch(AssertionError, f"The length of the sequences mismatch: "
                                                f"{len(actual)} != {len(expected)}")
            for i, (x, y) in enumerate(zip(actual, expected)):
                _compare(x, y, path + (i,), opts)
            return
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                                   f"{type(actual)} and {type(expected)}.")
    except _Mismatch as m:
        if not m.path and path:
            m.path = path
        raise


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that `actual` and `expected` are close: |actual - expected| <= atol + rtol * |expected|
    elementwise, with the same shape (and by default dtype, device and layout). Tensors, NumPy arrays,
    Python numbers and sequences/mappings of them compare recursively. Without rtol/atol, the
    tolerances are PyTorch's per-dtype defaults."""
    if (rtol is None) ^ (atol is None):
        _tolerances((), rtol, atol)  # raises the ValueError
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                check_stride=check_stride)
    try:
        _compare(actual, expected, (), opts)
    except _Mismatch as m:
        raise m.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated: use assert_close. Non-tensor inputs become tensors (of
    expected's dtype when expected is a tensor), and dtypes need not match."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    if not isinstance(actual, torchlike.Tensor):
        actual = torchlike.tensor(actual)
    if not isinstance(expected, torchlike.Tensor):
        expected = torchlike.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances((actual.dtype, expected.dtype), None, None)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
