"""torchlike.nn.functional: convolution, pooling, fold/unfold (see functional.py).

The convolution and pooling front ends live in torchlike/_conv_pool.py (they
are torch.conv2d, torch.max_pool2d ... too); this module adds the names that
exist only in torch.nn.functional, with PyTorch's signatures and defaults."""
from __future__ import annotations

import builtins
import math
import warnings

from torchlike import _C
from torchlike.amp.autocast_mode import _float32_policy  # PyTorch's autocast fp32 list
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
           "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "fold", "unfold",
           "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "affine_grid", "grid_sample",
           "channel_shuffle", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES"]


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


@_float32_policy("cpu")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3,
                     "avg_pool3d")


def adaptive_avg_pool2d(input, output_size):
    return _adaptive(input, output_size, 2, "adaptive_avg_pool2d", False)


@_float32_policy("cpu")
def adaptive_avg_pool3d(input, output_size):
    return _adaptive(input, output_size, 3, "adaptive_avg_pool3d", False)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return _adaptive(input, output_size, 1, "adaptive_max_pool1d", True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive(input, output_size, 2, "adaptive_max_pool2d", True)


@_float32_policy("cpu")
def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive(input, output_size, 3, "adaptive_max_pool3d", True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    r = _adaptive(input, output_size, 1, "adaptive_max_pool1d", True)
    return r if return_indices else r[0]


def adaptive_max_pool2d(input, output_size, return_indices=False):
    r = _adaptive(input, output_size, 2, "adaptive_max_pool2d", True)
    return r if return_indices else r[0]


@_float32_policy("cpu")
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


@_float32_policy("cpu")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


@_float32_policy("cpu")
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


# ---------------------------------------------------------------- interpolate / upsample
#
# Composites: every mode is separable, so each spatial dimension is resampled in
# turn with index_select and per-position weights (the weighted sum of a few
# taps). The indices and weights depend only on sizes and scales, so they are
# computed on the host with NumPy in the precision PyTorch's CPU kernels use
# (float32 for reduced and single precision, float64 for double), which keeps
# the chosen source pixels identical to PyTorch's at rounding boundaries.
# Autograd comes from index_select/mul/add; Meta tensors work because nothing
# reads the input's values.

def _opmath(input):
    import numpy as np  # lazily: `import torchlike` must not import NumPy
    import torchlike
    return np.float64 if input.dtype == torchlike.float64 else np.float32


def _scales_value(scale, in_size, out_size, ft):
    # PyTorch's compute_scales_value: 1/scale_factor when one was given (and not
    # recomputed), else in/out.
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(in_size) / ft(out_size)


def _area_scale(in_size, out_size, align_corners, scale, ft):
    # PyTorch's area_pixel_compute_scale.
    if align_corners:
        return ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
    return _scales_value(scale, in_size, out_size, ft)


def _source_index(scale, dst, align_corners, cubic, ft):
    import numpy as np  # lazily: `import torchlike` must not import NumPy
    # PyTorch's area_pixel_compute_source_index over an array of output indices.
    if align_corners:
        return scale * dst
    src = scale * (dst + ft(0.5)) - ft(0.5)
    return src if cubic else np.maximum(src, ft(0))


def _nearest_taps(in_size, out_size, scale, exact):
    import numpy as np  # lazily: `import torchlike` must not import NumPy
    dst = np.arange(out_size, dtype=np.float32)
    if not exact and out_size == in_size:
        return [np.arange(out_size)], None
    if not exact and out_size == 2 * in_size:
        return [np.arange(out_size) // 2], None
    s = _scales_value(scale, in_size, out_size, np.float32)
    pos = (dst + np.float32(0.5)) * s if exact else dst * s
    return [np.minimum(np.floor(pos).astype(np.int64), in_size - 1)], None


def _linear_taps(in_size, out_size, scale, align_corners, ft):
    import numpy as np  # lazily: `import torchlike` must not import NumPy
    s = _area_scale(in_size, out_size, align_corners, scale, ft)
    src = _source_index(s, np.arange(out_size, dtype=ft), align_corners, False, ft)
    i0 = src.astype(np.int64)  # src >= 0: truncation is floor
    i0 = np.minimum(i0, in_size - 1)
    i1 = i0 + (i0 < in_size - 1)
    l1 = (src - i0.astype(ft)).astype(ft)
    return [i0, i1], [ft(1) - l1, l1]


def _cubic_coeffs(t, ft, A=-0.75):
    def conv1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def conv2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    t = t.astype(ft)
    return [conv2(t + 1).astype(ft), conv1(t).astype(ft), conv1(1 - t).astype(ft), conv2(2 - t).astype(ft)]


def _cubic_taps(in_size, out_size, scale, align_corners, ft):
    import numpy as np  # lazily: `import torchlike` must not import NumPy
    s = _area_scale(in_size, out_size, align_corners, scale, ft)
    src = _source_index(s, np.arange(out_size, dtype=ft), align_corners, True, ft)
    # PyTorch's guard_index_and_lambda: the base index never passes the last
    # pixel and the fraction stays in [0, 1].
    i = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    t = np.clip(src - i.astype(ft), 0, 1)
    idx = [np.clip(i - 1 + k, 0, in_size - 1) for k in range(4)]
    return idx, _cubic_coeffs(t, ft)


def _aa_matrix(in_size, out_size, scale, align_corners, cubic, ft):
    import numpy as np  # lazily: `import torchlike` must not import NumPy
    # PyTorch's _compute_weights_aa (PIL's resampling): a filter widened by the
    # downscaling factor, weights normalised per output position. Returned as a
    # dense (out, in) matrix; antialiasing is for downscaling, where it is small.
    s = _area_scale(in_size, out_size, align_corners, scale, ft)
    interp = 4 if cubic else 2
    support = interp * 0.5 * s if s >= 1.0 else interp * 0.5
    invscale = 1.0 / s if s >= 1.0 else 1.0
    m = np.zeros((out_size, in_size), dtype=np.float64)
    for i in range(out_size):
        center = s * (i + 0.5)
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size)
        x = (np.arange(xmin, xmax) - center + 0.5) * invscale
        if cubic:  # PIL's bicubic, a = -0.5
            a = -0.5
            x = np.abs(x)
            w = np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                         np.where(x < 2, (((x - 5) * x + 8) * x - 4) * a, 0.0))
        else:
            w = np.maximum(1 - np.abs(x), 0.0)
        total = w.sum()
        m[i, xmin:xmax] = w / total if total != 0 else w
    return m


def _resample_dim(x, dim, idx, weights):
    import numpy as np  # lazily: `import torchlike` must not import NumPy
    import torchlike
    dev = x.device
    if weights is None:
        return x.index_select(dim, torchlike.tensor(idx[0], device=dev))
    shape = [1] * x.dim()
    shape[dim] = -1
    out = None
    for i, w in zip(idx, weights):
        term = x.index_select(dim, torchlike.tensor(i, device=dev)) * \
            torchlike.tensor(np.asarray(w, dtype=np.float64), dtype=x.dtype, device=dev).reshape(shape)
        out = term if out is None else out + term
    return out


def _resample_dim_matrix(x, dim, m):
    import torchlike
    w = torchlike.tensor(m, dtype=x.dtype, device=x.device)
    return (x.movedim(dim, -1) @ w.transpose(0, 1)).movedim(-1, dim)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the "
                             "interpolating modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")

    want = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
    if mode in ("nearest", "nearest-exact", "area") and input.dim() in (3, 4, 5) or \
            want.get(mode) == input.dim():
        pass
    elif mode == "lanczos" and input.dim() == 4:
        # PyTorch's lanczos mode (antialiased only) has no composite here yet.
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
        raise NotImplementedError("interpolate(): mode 'lanczos' is not implemented in torchlike")
    elif mode in want and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {want[mode]}D input")
    else:
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported"
            f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos"
            f" | area | nearest-exact (got {mode})")

    if output_size is None:
        # PyTorch's upsample kernels: floor(input_size * scale_factor), in double.
        output_size = [int(math.floor(float(input.shape[i + 2]) * scale_factors[i])) for i in range(dim)]
    if scale_factors is None:
        scale_factors = [None] * dim
    output_size = [int(v) for v in output_size]
    for i in range(dim):
        if output_size[i] <= 0 or input.shape[i + 2] <= 0:
            raise RuntimeError(
                f"interpolate(): input and output sizes should be greater than 0, but got input "
                f"(spatial sizes {list(input.shape[2:])}) and output (spatial sizes {output_size})")
    if mode not in ("nearest", "nearest-exact") and not input.is_floating_point():
        # PyTorch also takes uint8 for (bi)linear/bicubic; the weighted sums here need floats.
        raise RuntimeError(f"interpolate(): mode '{mode}' needs a floating-point input, but got {input.dtype}")
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, output_size)
    ft = _opmath(input)
    out = input
    for i in range(dim):
        d, n_in, n_out, sc = i + 2, input.shape[i + 2], output_size[i], scale_factors[i]
        if antialias:
            out = _resample_dim_matrix(out, d, _aa_matrix(n_in, n_out, sc, align_corners, mode == "bicubic", ft))
            continue
        if mode in ("nearest", "nearest-exact"):
            idx, w = _nearest_taps(n_in, n_out, sc, mode == "nearest-exact")
        elif mode == "bicubic":
            idx, w = _cubic_taps(n_in, n_out, sc, align_corners, ft)
        else:
            idx, w = _linear_taps(n_in, n_out, sc, align_corners, ft)
        out = _resample_dim(out, d, idx, w)
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def channel_shuffle(input, groups):
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], list(input.shape[2:])
    return input.reshape([n, groups, c // groups] + rest).transpose(1, 2).reshape([n, c] + rest)


# ---------------------------------------------------------------- affine_grid / grid_sample

GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def _linspace_from_neg_one(theta, steps, align_corners):
    import torchlike
    if steps <= 1:
        return torchlike.zeros(max(steps, 0), dtype=theta.dtype, device=theta.device)
    r = torchlike.linspace(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    return r if align_corners else r * ((steps - 1) / steps)


def affine_grid(theta, size, align_corners=None):
    import torchlike
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n = size[0]
    # Base grid of (x, y[, z], 1) rows, x varying fastest, as PyTorch's affine_grid_generator.
    axes = [_linspace_from_neg_one(theta, s, align_corners) for s in reversed(spatial)]  # x, y(, z)
    nd = len(spatial)
    cols = []
    for k, ax in enumerate(axes):
        shape = [1] * nd
        shape[nd - 1 - k] = -1
        cols.append(ax.reshape(shape).expand(*spatial))
    cols.append(torchlike.ones(spatial, dtype=theta.dtype, device=theta.device))
    base = torchlike.stack(cols, -1).reshape(1, -1, nd + 1)
    grid = base @ theta.transpose(1, 2)
    return grid.reshape([n] + spatial + [nd])


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    import torchlike
    if twice_low == twice_high:
        return coord * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = (coord - lo).abs()
    extra = torchlike.fmod(c, span)
    flips = torchlike.floor(c / span)
    even = torchlike.fmod(flips, 2) == 0
    return torchlike.where(even, extra + lo, (span - extra) + lo)


def _source_coord(coord, size, padding_mode, align_corners):
    # PyTorch's grid_sampler_compute_source_index.
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        c = c.clamp(0, size - 1)
    elif padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = c.clamp(0, size - 1)
    return c


def _gather_points(flat, sizes, idx):
    """flat: (N, C, prod(sizes)); idx: list of integer coordinate tensors (N, P),
    one per spatial dim, outermost first. Returns values (N, C, P) and a mask
    (N, P) that is 0 where any coordinate is outside the input (the zeros padding)."""
    import torchlike
    inside = None
    lin = None
    for c, s in zip(idx, sizes):
        ok = (c >= 0) & (c <= s - 1)
        inside = ok if inside is None else inside & ok
        cc = c.clamp(0, s - 1)
        lin = cc if lin is None else lin * s + cc
    n, ch, _ = flat.shape
    vals = flat.gather(2, lin.unsqueeze(1).expand(n, ch, lin.shape[1]))
    return vals, inside.to(flat.dtype)


@_float32_policy("cpu", "cuda")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    import torchlike
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    isz, gsz = list(input.shape), list(grid.shape)
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input.device} and grid is on {grid.device}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    if input.dim() not in (4, 5) or input.dim() != grid.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
                           f"but got input with sizes {isz} and grid with sizes {gsz}")
    if isz[0] != gsz[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input "
                           f"with sizes {isz} and grid with sizes {gsz}")
    nd = input.dim() - 2
    if gsz[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid "
                           f"with sizes {gsz}")
    for i in range(2, input.dim()):
        if isz[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                               f"has sizes {isz} with dimension {i} being empty")
    if not input.is_floating_point():
        raise RuntimeError(f"grid_sampler(): expected a floating-point input, but got {input.dtype}")
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype in (torchlike.float16, torchlike.bfloat16):
        # Coordinates and cubic weights lose too much in 16 bits (the cubic
        # weights cancel): compute in float32, round once at the end.
        return grid_sample(input.float(), grid.float(), mode, padding_mode, align_corners).to(input.dtype)
    n, ch = isz[0], isz[1]
    sizes = isz[2:]  # outermost first: (H, W) or (D, H, W)
    out_sp = gsz[1:-1]
    g = grid.reshape(n, -1, nd)
    # grid[..., 0] indexes the last (x / W) dimension: coordinates listed outermost first.
    coords = [g[:, :, nd - 1 - k] for k in range(nd)]
    flat = input.reshape(n, ch, -1)
    if mode == "bicubic":
        # PyTorch: unnormalised without clipping; padding applied per tap.
        src = [_unnormalize(c, s, align_corners) for c, s in zip(coords, sizes)]
        base = [torchlike.floor(c) for c in src]
        frac = [c - b for c, b in zip(src, base)]
        A = -0.75

        def conv1(x):
            return ((A + 2) * x - (A + 3)) * x * x + 1

        def conv2(x):
            return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
        wts = [[conv2(t + 1), conv1(t), conv1(1 - t), conv2(2 - t)] for t in frac]
        out = 0
        for a in range(4):
            for b in range(4):
                pts = []
                for k, (bb, s) in enumerate(zip(base, sizes)):
                    c = bb + ((a, b)[k] - 1)
                    if padding_mode == "border":
                        c = c.clamp(0, s - 1)
                    elif padding_mode == "reflection":
                        c = (_reflect(c, 0, 2 * (s - 1)) if align_corners else
                             _reflect(c, -1, 2 * s - 1)).clamp(0, s - 1)
                    pts.append(c.detach().to(torchlike.int64))
                vals, inside = _gather_points(flat, sizes, pts)
                out = out + vals * (wts[0][a] * wts[1][b] * inside).unsqueeze(1)
        return out.reshape([n, ch] + out_sp)
    src = [_source_coord(c, s, padding_mode, align_corners) for c, s in zip(coords, sizes)]
    if mode == "nearest":
        pts = [torchlike.round(c).detach().to(torchlike.int64) for c in src]
        vals, inside = _gather_points(flat, sizes, pts)
        if not grid.requires_grad:
            return (vals * inside.unsqueeze(1)).reshape([n, ch] + out_sp)
        # Keep the grid in the graph with a zero gradient (PyTorch gives grid.grad
        # zeros, not None); where() with an all-false mask is 0 even for inf/NaN.
        g_sum = g.sum(-1)
        zero_link = torchlike.where(torchlike.zeros(g_sum.shape, dtype=torchlike.bool, device=g.device), g_sum, 0.0)
        return (vals * (inside + zero_link).unsqueeze(1)).reshape([n, ch] + out_sp)
    lo = [torchlike.floor(c) for c in src]
    out = 0
    for corner in range(2 ** nd):
        pts, w = [], None
        for k in range(nd):
            hi = (corner >> (nd - 1 - k)) & 1
            pts.append((lo[k] + hi).detach().to(torchlike.int64))
            wk = (src[k] - lo[k]) if hi else (lo[k] + 1 - src[k])
            w = wk if w is None else w * wk
        vals, inside = _gather_points(flat, sizes, pts)
        out = out + vals * (w * inside).unsqueeze(1)
    return out.reshape([n, ch] + out_sp)
