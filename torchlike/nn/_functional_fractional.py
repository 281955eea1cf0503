"""torchlike.nn.functional: fractional max pooling (see functional.py).

Fractional max pooling (Graham, 2014) takes the maximum over kernel-sized
windows whose start positions advance by a non-integer step
alpha = (in - k) / (out - 1): window i starts at
floor((i + u) * alpha) - floor(u * alpha) (the last one at in - k), with one
random offset u in [0, 1) per (sample, channel, spatial dim).

This is written over torchlike's own ops: the window corners become flat
indices into each (sample, channel) plane; the maximum's position is found
by scanning the kernel offsets (one gather, compare and select per offset,
no autograd), and one differentiable gather then takes the values, so its
backward routes the gradient to the chosen elements. Per-plane offsets are read from _random_samples
(shape (N, C, dims)); for 2-d pooling column 0 drives the width and column 1
the height, for 3-d columns 0, 1, 2 drive time, height and width, which is
PyTorch's layout, so a given _random_samples reproduces PyTorch's windows."""
import itertools

import torchlike as _tl
from torchlike.amp.autocast_mode import _float32_policy  # PyTorch's CPU autocast runs these in float32

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]

# For each pooled dim (in input order), which column of _random_samples drives it.
_SAMPLE_COLUMN = {2: (1, 0), 3: (0, 1, 2)}
_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _tuple_of(value, n, what, name):
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of "
                               f"{'three ' if n == 3 else ''}Ints")
        return tuple(value)
    return (value,) * n


def _window_starts(samples, in_size, out_size, k, dtype):
    """(N, C, out_size) int64 start positions for one pooled dim. The step is
    computed in the input's floating type, as PyTorch does, so that the
    truncations land on the same integers."""
    n, c = samples.shape[0], samples.shape[1]
    if out_size == 1:
        return _tl.full((n, c, 1), in_size - k, dtype=_tl.int64, device=samples.device)
    alpha = _tl.tensor(float(in_size - k), dtype=dtype) / _tl.tensor(float(out_size - 1), dtype=dtype)
    u = samples.to(dtype).unsqueeze(-1)
    steps = _tl.arange(out_size - 1, device=samples.device).to(dtype)
    starts = ((steps + u) * alpha).to(_tl.int64) - (u * alpha).to(_tl.int64)
    last = _tl.full((n, c, 1), in_size - k, dtype=_tl.int64, device=samples.device)
    return _tl.cat([starts, last], dim=-1)


def _window_corners(samples, spatial, out, kernel, dtype):
    """Flat index (within one plane) of each window's first element, shape
    (N, C, *out)."""
    nd = len(spatial)
    step_dtype = dtype if dtype in (_tl.float32, _tl.float64) else _tl.float32
    n, c = samples.shape[0], samples.shape[1]
    corner = None
    stride = 1
    for axis in reversed(range(nd)):
        starts = _window_starts(samples[:, :, _SAMPLE_COLUMN[nd][axis]], spatial[axis], out[axis], kernel[axis],
                                step_dtype)
        shape = [n, c] + [1] * nd
        shape[2 + axis] = out[axis]
        term = starts.reshape(shape) * stride
        corner = term if corner is None else corner + term
        stride *= spatial[axis]
    return corner.expand([n, c] + list(out)).contiguous()


def _best_in_window(planes, corner, spatial, kernel):
    """Flat index of each window's maximum: the windows are scanned one kernel
    offset at a time in row-major order, a strictly larger value (or a NaN)
    replacing the running best, so ties keep the first element as PyTorch does."""
    n, c = planes.shape[0], planes.shape[1]
    best_value = best_index = None
    for offset in itertools.product(*(range(k) for k in kernel)):
        shift = 0
        for axis, o in enumerate(offset):
            inner = 1
            for size in spatial[axis + 1:]:
                inner *= size
            shift += o * inner
        index = corner + shift
        value = _tl.gather(planes, 2, index.reshape(n, c, -1)).reshape(index.shape)
        if best_value is None:
            best_value, best_index = value, index
            continue
        take = (value > best_value) | _tl.isnan(value)
        best_value = _tl.where(take, value, best_value)
        best_index = _tl.where(take, index, best_index)
    return best_index


def _fractional_max_pool(name, nd, input, kernel_size, output_size, output_ratio, _random_samples):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    kernel = _tuple_of(kernel_size, nd, "kernel_size", name)
    spatial = tuple(input.shape[-nd:])
    if output_size is None:
        ratios = _tuple_of(output_ratio, nd, "output_ratio", name)
        output_size = [int(s * r) for s, r in zip(spatial, ratios)]
    out = _tuple_of(output_size, nd, "output_size", name)
    label = name if nd == 2 else name + "_out"
    for dim_name, size, k, o in zip(_DIM_NAMES[nd], spatial, kernel, out):
        if o + k - 1 > size:
            raise RuntimeError(f"{label}(): pool {dim_name} {k} too large relative to input {dim_name} {size}")

    batched = input.dim() == nd + 2
    x = input if batched else input.unsqueeze(0)
    n, c = x.shape[0], x.shape[1]
    if not x.is_floating_point():
        raise RuntimeError(f"{name}: expected a floating point input, got {x.dtype}")
    if _random_samples is None:
        _random_samples = _tl.rand((n, c, nd), dtype=x.dtype, device=x.device)
    else:
        if _random_samples.dim() != 3:
            raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {_random_samples.dim()}")
        if _random_samples.dtype != x.dtype:
            raise RuntimeError("Expect _random_samples to have the same dtype as input")
        if _random_samples.shape[2] != nd:
            raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {_random_samples.shape[2]}.")
        if _random_samples.shape[1] != c:
            raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
        if _random_samples.shape[0] < n:
            raise RuntimeError(f"Expect _random_samples.size(0) no less then input batch size: "
                               f"{_random_samples.shape[0]} < {n}")
        _random_samples = _random_samples[:n]

    if any(o == 0 for o in out):
        values = x.new_empty((n, c) + out)
        indices = _tl.empty((n, c) + out, dtype=_tl.int64, device=x.device)
    else:
        planes = x.reshape(n, c, -1)
        with _tl.no_grad():
            corner = _window_corners(_random_samples, spatial, out, kernel, x.dtype)
            indices = _best_in_window(planes, corner, spatial, kernel)
        # One differentiable gather: its backward adds each output's gradient at
        # the element it took.
        values = _tl.gather(planes, 2, indices.reshape(n, c, -1)).reshape((n, c) + out)
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return values, indices


@_float32_policy("cpu")
def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional_max_pool("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                                _random_samples)


@_float32_policy("cpu")
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    values, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                                         return_indices, _random_samples)
    return (values, indices) if return_indices else values


@_float32_policy("cpu")
def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return _fractional_max_pool("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                                _random_samples)


@_float32_policy("cpu")
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    values, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                                         return_indices, _random_samples)
    return (values, indices) if return_indices else values
