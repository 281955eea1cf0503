"""torchlike.nn.init: in-place weight initialisers with PyTorch's names,
signatures, gains, fan rules and errors.

Every initialiser fills its tensor in place outside autograd and returns it.
Random draws come from torchlike's own counter-based generator (`generator=`
or the default one), so values differ from PyTorch's while the distributions
are the same. A meta tensor has nothing to fill and is returned as is.
"""
import math
import warnings

import torchlike as _tl

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

# Recommended gain per nonlinearity; leaky_relu's depends on its slope.
_UNIT_GAIN = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "sigmoid")
_FIXED_GAIN = {"tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity, param=None):
    """The gain PyTorch recommends for a nonlinearity (param: leaky_relu's negative slope)."""
    if nonlinearity in _UNIT_GAIN:
        return 1
    if nonlinearity in _FIXED_GAIN:
        return _FIXED_GAIN[nonlinearity]
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out): dims 1 and 0 times the product of the rest (a conv kernel's field)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    field = 1
    for s in tensor.shape[2:]:
        field *= s
    return tensor.shape[1] * field, tensor.shape[0] * field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _skip(tensor):
    return tensor.device.type == "meta"


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills with values drawn from U(a, b)."""
    if _skip(tensor):
        return tensor
    with _tl.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills with values drawn from N(mean, std^2)."""
    if _skip(tensor):
        return tensor
    with _tl.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _std_normal_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills with N(mean, std^2) restricted to [a, b], by inverting the CDF: a uniform draw
    between the CDF's values at a and b, mapped back through erfinv (in float64). An
    interval right of the mean is sampled mirrored, where the CDF keeps its precision."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
                      "may be incorrect.", stacklevel=2)
    if _skip(tensor):
        return tensor
    lo, hi = (a - mean) / std, (b - mean) / std
    flip = lo > 0
    if flip:
        lo, hi = -hi, -lo
    with _tl.no_grad():
        u = _tl.empty(tuple(tensor.shape), dtype=_tl.float64)
        u.uniform_(_std_normal_cdf(lo), _std_normal_cdf(hi), generator=generator)
        z = _tl.erfinv(u * 2 - 1) * math.sqrt(2.0)
        if flip:
            z = -z
        tensor.copy_((z * std + mean).clamp_(a, b))
    return tensor


def constant_(tensor, val):
    """Fills with val."""
    if _skip(tensor):
        return tensor
    with _tl.no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills with zeros."""
    if _skip(tensor):
        return tensor
    with _tl.no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills a 2-D tensor with the identity (ones on the main diagonal)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if _skip(tensor):
        return tensor
    with _tl.no_grad():
        tensor.zero_()
        tensor.diagonal().fill_(1)
    return tensor


def dirac_(tensor, groups=1):
    """Fills a 3-, 4- or 5-D conv weight with the Dirac delta: within each of `groups`
    blocks of output channels, output channel d passes input channel d through the
    kernel's centre (so the convolution is the identity where channels allow)."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_ch = tensor.shape[0]
    if out_ch % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if _skip(tensor):
        return tensor
    per_group = out_ch // groups
    channels = min(per_group, tensor.shape[1])
    centre = tuple(s // 2 for s in tensor.shape[2:])
    with _tl.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(channels):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-r, r) with r = gain * sqrt(6 / (fan_in + fan_out)) (Glorot and Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-r, r) with r = gain * sqrt(3 / fan) (He et al., 2015); fan by `mode`."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, drawn uniformly (Haar) through the QR of a Gaussian
    matrix with R's diagonal signs folded into Q; dims after the first are flattened.
    16-bit tensors are computed in float32."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or _skip(tensor):
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    work = tensor.dtype if tensor.dtype in (_tl.float32, _tl.float64) else _tl.float32
    with _tl.no_grad():
        g = _tl.empty((rows, cols), dtype=work).normal_(0.0, 1.0, generator=generator)
        tall = g.t() if rows < cols else g
        q, r = _tl.linalg.qr(tall)
        q = q * r.diagonal().sign().unsqueeze(0)
        if rows < cols:
            q = q.t()
        tensor.copy_((q * gain).reshape(tuple(tensor.shape)))
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D tensor with N(0, std^2) entries and, in every column, ceil(sparsity * rows)
    of them (at random rows, drawn from `generator` too) set to zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if _skip(tensor):
        return tensor
    rows, cols = tensor.shape
    # How many of a column's rows are cleared: as many as a slice [:ceil(sparsity * rows)]
    # of the row order keeps (so a negative count counts from the end, as in PyTorch).
    zeros = len(range(rows)[:int(math.ceil(sparsity * rows))])
    with _tl.no_grad():
        tensor.normal_(0.0, std, generator=generator)
        if zeros > 0 and rows > 0 and cols > 0:
            # A random order of the rows per column; its first `zeros` rows are cleared.
            order = _tl.empty((rows, cols), dtype=_tl.float32).uniform_(generator=generator).argsort(dim=0)
            tensor.scatter_(0, order[:zeros], 0.0)
    return tensor


def _deprecated(new):
    old = new.__name__[:-1]

    def alias(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`.", FutureWarning,
                      stacklevel=2)
        return new(*args, **kwargs)
    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: use `torchlike.nn.init.{old}_` (same arguments)."
    return alias


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
