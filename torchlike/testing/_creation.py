"""make_tensor: random test tensors, as PyTorch's torch.testing.make_tensor."""
import math

import torchlike

_FLOATS = (torchlike.float16, torchlike.bfloat16, torchlike.float32, torchlike.float64)
_INTS = (torchlike.uint8, torchlike.int8, torchlike.int16, torchlike.int32, torchlike.int64)


def _bounds(low, high, lowest, highest, default_low, default_high, dtype):
    def clamp(a, lo, hi):
        return min(max(a, lo), hi)
    low = clamp(default_low if low is None else low, lowest, highest)
    high = clamp(default_high if high is None else high, lowest, highest)
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATS:
        return low, high
    if low > high:
        raise ValueError(f"`low` must be less than or equal to `high`, but got low={low} and high={high}")
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of `shape` filled with uniform random values in [low, high)
    (PyTorch's defaults: [-9, 9) for floating and signed types, [0, 10) for
    uint8, random booleans for bool). `noncontiguous` gives a view with a step,
    `exclude_zero` replaces zeros by the smallest positive value of the dtype."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple, torchlike.Size)):
        shape = tuple(shape[0])
    shape = tuple(int(s) for s in shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and dtype not in _FLOATS:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype}")

    if dtype == torchlike.bool:
        low, high = _bounds(low, high, 0, 2, 0, 2, dtype)
        result = torchlike.randint(int(low), int(high), shape, device=device, dtype=torchlike.int64) != 0
    elif dtype in _INTS:
        info = torchlike.iinfo(dtype)
        default_low = 0 if dtype == torchlike.uint8 else -9
        low, high = _bounds(low, high, info.min, info.max, default_low, 10, dtype)
        low_i, high_i = math.ceil(low), math.ceil(high)
        if high_i <= low_i:
            high_i = low_i + 1
        result = torchlike.randint(low_i, high_i, shape, device=device, dtype=dtype)
    elif dtype in _FLOATS:
        info = torchlike.finfo(dtype)
        low, high = _bounds(low, high, info.min, info.max, -9, 9, dtype)
        u = torchlike.rand(shape, device=device, dtype=torchlike.float64)
        result = (u * (high - low) + low).to(dtype)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torchlike.testing.make_tensor()."
                        " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")

    if noncontiguous and result.numel() > 1:
        wide = torchlike.empty(shape[:-1] + (shape[-1] * 2,), dtype=dtype, device=device)
        view = wide[..., ::2]
        view.copy_(result)
        result = view
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)

    if exclude_zero:
        repl = 1 if dtype not in _FLOATS else torchlike.finfo(dtype).tiny
        result = torchlike.where(result == 0, torchlike.full((), repl, dtype=dtype, device=device), result)
        if noncontiguous and result.is_contiguous() and result.numel() > 1:
            wide = torchlike.empty(shape[:-1] + (shape[-1] * 2,), dtype=dtype, device=device)
            wide[..., ::2].copy_(result)
            result = wide[..., ::2]

    if dtype in _FLOATS:
        result.requires_grad = requires_grad
    return result
