"""torchlike.nn.init: PyTorch's parameter initialisers (torch.nn.init).

Every initialiser fills its tensor in place under no_grad and returns it, with
PyTorch's fan rules, gains, defaults and error messages. Random numbers come
from torchlike's own generator (the default one, or `generator=`), so the
distributions match PyTorch's but the streams do not.
"""
import math
import warnings

import torchlike

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    # Deprecated aliases, kept as PyTorch keeps them.
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
# linalg.qr has no float16/bfloat16 kernel (nor has PyTorch's); orthogonal_
# factors in float32 for those and rounds once at the end.
_LOW_PRECISION = (torchlike.float16, torchlike.bfloat16)


# The layer modules call these private helpers, as PyTorch's layers do.
def _no_grad_uniform_(tensor, a, b, generator=None):
    with torchlike.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with torchlike.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_fill_(tensor, val):
    with torchlike.no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with torchlike.no_grad():
        return tensor.zero_()


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    # Meta tensors have no storage, so sampling is a no-op.
    if tensor.is_meta:
        return tensor
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=3)
    with torchlike.no_grad():
        # Both branches are exact rejection samplers of N(mean, std) restricted
        # to [a, b]; the branch only picks the proposal that wastes fewer draws.
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if mass > 0.3:
            # Most normal draws land inside: redraw the ones outside. The bounds
            # are rounded to the tensor's dtype so that the test agrees with the
            # values the tensor can hold.
            lo = tensor.new_tensor(a, device="cpu").item()
            hi = tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = torchlike.where(outside, torchlike.empty_like(result).normal_(mean, std, generator=generator),
                                         result)
            if result is not tensor:
                tensor.copy_(result)
        else:
            # A narrow window: propose uniformly on [a, b] and accept with
            # probability pdf(x) / pdf(mode), in log space.
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2
            candidates = torchlike.empty_like(tensor)
            accept_buf = torchlike.empty_like(tensor)
            tensor.uniform_(a, b, generator=generator)
            candidates.copy_(tensor)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
            if pending.any():
                result = tensor
                while True:
                    candidates.uniform_(a, b, generator=generator)
                    result = torchlike.where(pending, candidates, result)
                    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                    pending = torchlike.where(pending,
                                              accept_buf.uniform_(generator=generator).log_().gt(candidates), pending)
                    if not pending.any():
                        break
                tensor.copy_(result)
        return tensor


def calculate_gain(nonlinearity, param=None):
    r"""The recommended gain for a nonlinearity: 1 for the linear and
    convolution functions and sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + negative_slope**2)) for leaky_relu (`param` is the slope,
    0.01 by default) and 3/4 for selu."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            # bool is an int subclass, so True/False are refused explicitly.
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        # PyTorch's empirically chosen value (pytorch/pytorch#50664).
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    r"""Fill `tensor` with values drawn from U(a, b)."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    r"""Fill `tensor` with values drawn from N(mean, std^2)."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    r"""Fill `tensor` with values drawn from N(mean, std^2) truncated to
    [a, b] (by rejection, so the distribution is exact); warns when `mean` lies
    more than 2 std outside [a, b]."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor, val):
    r"""Fill `tensor` with `val`."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    r"""Fill `tensor` with 1."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor):
    r"""Fill `tensor` with 0."""
    return _no_grad_zero_(tensor)


def eye_(tensor):
    r"""Fill the 2-D `tensor` with the identity matrix (ones on the main
    diagonal of a possibly rectangular matrix)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with torchlike.no_grad():
        tensor.zero_()
        tensor.diagonal().fill_(1)
    return tensor


def dirac_(tensor, groups=1):
    r"""Fill the 3-, 4- or 5-D `tensor` with the Dirac delta, so that a
    convolution with it preserves its input: in each of `groups` groups of
    output channels, channel d takes input channel d at the kernel's centre."""
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with torchlike.no_grad():
        tensor.zero_()
        if min_dim > 0 and groups > 0:
            # One index_put for all groups rather than PyTorch's element loop.
            d = torchlike.arange(min_dim, device=tensor.device)
            out_idx = (torchlike.arange(groups, device=tensor.device).unsqueeze(1) * out_chans_per_grp + d).reshape(-1)
            in_idx = d.repeat(groups)
            centre = tuple(s // 2 for s in sizes[2:])
            tensor[(out_idx, in_idx) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    r"""Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std  # the uniform bound with that standard deviation
    return _no_grad_uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    r"""Glorot normal: N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    r"""He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan), where
    fan is fan_in or fan_out (`mode`) and gain is calculate_gain(nonlinearity, a)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with torchlike.no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    r"""He normal: N(0, std^2) with std = gain / sqrt(fan), fan and gain as in
    kaiming_uniform_."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with torchlike.no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    r"""Fill `tensor` (2 or more dims, trailing dims flattened) with a
    uniformly (Haar) distributed semi-orthogonal matrix scaled by `gain`: the Q
    of a QR factorisation of a Gaussian matrix, with the signs of R's diagonal
    folded in (Mezzadri, arXiv:math-ph/0609050) so that Q is not biased."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    work_dtype = torchlike.float32 if tensor.dtype in _LOW_PRECISION else tensor.dtype
    flattened = tensor.new_empty((rows, cols), dtype=work_dtype).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened.t_()
    with torchlike.no_grad():
        q, r = torchlike.linalg.qr(flattened)
        q *= torchlike.diag(r, 0).sign()
        if rows < cols:
            q.t_()
        # reshape, not view_as, so that a non-contiguous tensor is filled too.
        tensor.copy_(q.reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    r"""Fill the 2-D `tensor` from N(0, std^2), then zero ceil(sparsity * rows)
    randomly chosen entries in every column."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with torchlike.no_grad():
        tensor.normal_(0, std, generator=generator)
        if cols > 0 and rows > 0:
            # One random permutation of the rows per column (argsort of iid
            # float64 uniforms; ties have probability ~rows^2 * 2^-53) in one
            # call instead of PyTorch's randperm per column. The slice keeps
            # PyTorch's semantics for every num_zeros, negative ones included.
            # The permutations draw from `generator` too, so a seeded call
            # is fully reproducible.
            perms = torchlike.rand((rows, cols), generator=generator, dtype=torchlike.float64,
                                   device=tensor.device).argsort(dim=0)
            zero_rows = perms[:num_zeros]
            if zero_rows.numel():
                tensor.scatter_(0, zero_rows, 0.0)
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"""
    {old_name}(...)

    .. warning::
        This method is now deprecated in favor of :func:`torchlike.nn.init.{new_name}`.

    See :func:`~torchlike.nn.init.{new_name}` for details."""
    deprecated_init.__name__ = old_name
    deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
