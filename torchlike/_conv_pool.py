"""Convolution and pooling front ends (torch.conv2d, torch.max_pool2d, ...).

The kernels are the operators of native_functions.yaml's "nn: convolution,
pooling" section (convolution, _max_pool_nd, _avg_pool_nd, ...), which take
batched (N, C, spatial...) inputs and per-dim lists. These functions do what
PyTorch's front ends do before reaching them: expand ints to tuples, accept
unbatched (C, spatial...) inputs, resolve padding='same'/'valid', and pick
stride=kernel_size when stride is left out. torchlike.nn.functional re-exports
them and adds the names that exist only there (avg_pool2d, lp_pool2d, fold ...).
"""
from __future__ import annotations

import builtins

from torchlike import _C
from torchlike.amp.autocast_mode import _float32_policy  # PyTorch's CPU autocast runs these in float32

_VF = _C._VariableFunctions

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
           "adaptive_avg_pool1d", "adaptive_max_pool1d"]


def _ntuple(value, n, name, fn):
    """An int (or 1-element sequence) repeated n times, or an n-element sequence, as a tuple of ints."""
    if isinstance(value, builtins.bool):
        raise TypeError(f"{fn}(): argument '{name}' must be an int or a tuple of ints, not bool")
    if isinstance(value, builtins.int):
        return (value,) * n
    try:
        seq = tuple(builtins.int(v) for v in value)
    except TypeError:
        raise TypeError(f"{fn}(): argument '{name}' must be an int or a tuple of {n} ints, "
                        f"not {type(value).__name__}") from None
    if len(seq) == 1:
        return seq * n
    if len(seq) != n:
        raise RuntimeError(f"{fn}: {name} must either be a single int, or a tuple of {n} ints, but got {list(seq)}")
    return seq


def _stride_or_kernel(stride, kernel, n, fn):
    """PyTorch's pooling stride: None or [] means the kernel size."""
    if stride is None or (not isinstance(stride, builtins.int) and len(stride) == 0):
        return kernel
    return _ntuple(stride, n, "stride", fn)


def _batched(input, nd, fn, what=None):
    """input with a batch dim, and whether one was added. Accepts (C, *spatial) and (N, C, *spatial)."""
    if input.dim() == nd + 1:
        return input.unsqueeze(0), True
    if input.dim() == nd + 2:
        return input, False
    raise RuntimeError(what or (f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {fn}, "
                                f"but got input of size: {list(input.shape)}"))


def _unbatch(t, squeeze):
    return t.squeeze(0) if squeeze else t


# ---------------------------------------------------------------- convolution

def _conv(input, weight, bias, stride, padding, dilation, groups, nd, fn):
    x, squeeze = _batched(input, nd, fn)
    stride = _ntuple(stride, nd, "stride", fn)
    dilation = _ntuple(dilation, nd, "dilation", fn)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            if weight.dim() != nd + 2:
                raise RuntimeError(f"{fn}: expected a {nd + 2}-dimensional weight, but got weight of size "
                                   f"{list(weight.shape)}")
            total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
            padding = tuple(t // 2 for t in total)
            # An odd total pads one more element at the end, as PyTorch does.
            for i, t in enumerate(total):
                if t % 2:
                    dim = 2 + i
                    shape = list(x.shape)
                    shape[dim] = 1
                    x = _VF.cat([x, _VF.zeros(shape, dtype=x.dtype, device=x.device)], dim)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _ntuple(padding, nd, "padding", fn)
    out = _VF.convolution(x, weight, bias, stride, padding, dilation, False, (0,) * nd, groups)
    return _unbatch(out, squeeze)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, fn):
    x, squeeze = _batched(input, nd, fn)
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be an int or a tuple of ints, not str")
    out = _VF.convolution(x, weight, bias, _ntuple(stride, nd, "stride", fn), _ntuple(padding, nd, "padding", fn),
                          _ntuple(dilation, nd, "dilation", fn), True,
                          _ntuple(output_padding, nd, "output_padding", fn), groups)
    return _unbatch(out, squeeze)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")


# ---------------------------------------------------------------- max pooling

def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, nd, fn):
    x, squeeze = _batched(input, nd, fn, f"{fn}: non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected "
                                         f"for input, but got input of size: {list(input.shape)}")
    k = _ntuple(kernel_size, nd, "kernel_size", fn)
    values, indices = _VF._max_pool_nd(x, k, _stride_or_kernel(stride, k, nd, fn),
                                       _ntuple(padding, nd, "padding", fn), _ntuple(dilation, nd, "dilation", fn),
                                       builtins.bool(ceil_mode))
    return _unbatch(values, squeeze), _unbatch(indices, squeeze)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 1, "max_pool1d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 2, "max_pool2d")


@_float32_policy("cpu")
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 3, "max_pool3d")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r = _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 1, "max_pool1d")
    return r if return_indices else r[0]


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r = _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 2, "max_pool2d")
    return r if return_indices else r[0]


@_float32_policy("cpu")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r = _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 3, "max_pool3d")
    return r if return_indices else r[0]


# ---------------------------------------------------------------- average pooling

def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd, fn):
    x, squeeze = _batched(input, nd, fn, f"{fn}: non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected "
                                         f"for input, but got input of size: {list(input.shape)}")
    k = _ntuple(kernel_size, nd, "kernel_size", fn)
    out = _VF._avg_pool_nd(x, k, _stride_or_kernel(stride, k, nd, fn), _ntuple(padding, nd, "padding", fn),
                           builtins.bool(ceil_mode), builtins.bool(count_include_pad), divisor_override)
    return _unbatch(out, squeeze)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


# ---------------------------------------------------------------- adaptive pooling

def _adaptive_size(input, output_size, nd, fn):
    if isinstance(output_size, builtins.int) or output_size is None:
        output_size = (output_size,) * nd
    output_size = tuple(output_size)
    if len(output_size) != nd:
        raise RuntimeError(f"{fn}(): internal error: output_size.size() must be {nd}")
    # None keeps the input's extent along that dim.
    return tuple(input.shape[input.dim() - nd + i] if s is None else builtins.int(s)
                 for i, s in enumerate(output_size))


def _adaptive(input, output_size, nd, fn, is_max):
    x, squeeze = _batched(input, nd, fn, f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got "
                                         f"{list(input.shape)}")
    size = _adaptive_size(x, output_size, nd, fn)
    if is_max:
        v, i = _VF._adaptive_max_pool_nd(x, size)
        return _unbatch(v, squeeze), _unbatch(i, squeeze)
    return _unbatch(_VF._adaptive_avg_pool_nd(x, size), squeeze)


def adaptive_avg_pool1d(input, output_size):
    return _adaptive(input, output_size, 1, "adaptive_avg_pool1d", False)


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: (values, indices), like PyTorch's top-level function."""
    return _adaptive(input, output_size, 1, "adaptive_max_pool1d", True)
