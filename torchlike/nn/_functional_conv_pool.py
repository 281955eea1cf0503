"""torchlike.nn.functional: convolution, pooling, fold/unfold (see functional.py).

The convolution and pooling front ends live in torchlike/_conv_pool.py (they
are torch.conv2d, torch.max_pool2d ... too); this module adds the names that
exist only in torch.nn.functional, with PyTorch's signatures and defaults."""
from __future__ import annotations

import builtins

from torchlike import _C
from torchlike._conv_pool import (  # noqa: F401
    _adaptive, _avg_pool, _batched, _max_pool, _ntuple, _unbatch,
    adaptive_avg_pool1d, avg_pool1d, conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d,
    max_pool1d, max_pool1d_with_indices, max_pool2d, max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices,
)

_VF = _C._VariableFunctions

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices",
           "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "fold", "unfold"]


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3,
                     "avg_pool3d")


def adaptive_avg_pool2d(input, output_size):
    return _adaptive(input, output_size, 2, "adaptive_avg_pool2d", False)


def adaptive_avg_pool3d(input, output_size):
    return _adaptive(input, output_size, 3, "adaptive_avg_pool3d", False)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive(input, output_size, 1, "adaptive_max_pool1d", True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive(input, output_size, 2, "adaptive_max_pool2d", True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive(input, output_size, 3, "adaptive_max_pool3d", True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    r = _adaptive(input, output_size, 1, "adaptive_max_pool1d", True)
    return r if return_indices else r[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    r = _adaptive(input, output_size, 2, "adaptive_max_pool2d", True)
    return r if return_indices else r[0]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    r = _adaptive(input, output_size, 3, "adaptive_max_pool3d", True)
    return r if return_indices else r[0]


# ---------------------------------------------------------------- power-average pooling

def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd, fn):
    # PyTorch's formula: the p-th root of the window sum of x**p (sum = mean * window
    # size); sign * relu(abs) keeps negative rounding residue out of the root.
    k = _ntuple(kernel_size, nd, "kernel_size", fn)
    out = _avg_pool(input.pow(norm_type), k, stride, 0, ceil_mode, True, None, nd, fn)
    size = 1
    for v in k:
        size *= v
    return (_VF.sign(out) * _VF.relu(_VF.abs(out))).mul(size).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, "lp_pool1d")


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, "lp_pool2d")


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, "lp_pool3d")


# ---------------------------------------------------------------- max_unpool

def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    nd = len(kernel_size)
    default = [(input.shape[input.dim() - nd + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(nd)]
    if output_size is None:
        return default
    output_size = [builtins.int(v) for v in output_size]
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                         f"length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd, fn):
    k = _ntuple(kernel_size, nd, "kernel_size", fn)
    s = k if stride is None else _ntuple(stride, nd, "stride", fn)
    p = _ntuple(padding, nd, "padding", fn)
    x, squeeze = _batched(input, nd, fn)
    ix = indices.unsqueeze(0) if squeeze else indices
    size = _unpool_output_size(x, k, s, p, output_size)
    # Overlapping windows can name one position twice: it is written once (not summed), as in PyTorch.
    out = _VF._pool_scatter(x, ix, (x.shape[0], x.shape[1], *size), False)
    return _unbatch(out, squeeze)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")


# ---------------------------------------------------------------- fold / unfold

def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return _C._nn.im2col(input, _ntuple(kernel_size, 2, "kernel_size", "unfold"),
                         _ntuple(dilation, 2, "dilation", "unfold"), _ntuple(padding, 2, "padding", "unfold"),
                         _ntuple(stride, 2, "stride", "unfold"))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return _C._nn.col2im(input, _ntuple(output_size, 2, "output_size", "fold"),
                         _ntuple(kernel_size, 2, "kernel_size", "fold"), _ntuple(dilation, 2, "dilation", "fold"),
                         _ntuple(padding, 2, "padding", "fold"), _ntuple(stride, 2, "stride", "fold"))
