"""torch-level names of the nn normalisation/dropout/embedding area that are
composites over the C++ kernels (torchlike.group_norm, torchlike.dropout, ...).
The fused kernels themselves (softmax, log_softmax, native_layer_norm,
native_batch_norm, embedding, ...) are YAML operators in native_functions.yaml.
"""
import math as _math

import torchlike as _tl

__all__ = ["group_norm", "instance_norm", "rms_norm", "dropout", "dropout_", "feature_dropout", "feature_dropout_",
           "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "bilinear"]


def _check_floating(op, t):
    if not t.is_floating_point():
        raise RuntimeError(f"{op}: expected a floating point input, got {t.dtype}")


def _channel_view(t, ndim):
    """A per-channel (C,) tensor shaped (1, C, 1, ...) to broadcast against an (N, C, *) input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """Normalises each group of C // num_groups channels of every sample: a
    layer_norm over the group's elements (the fused kernel), then the
    per-channel affine transform."""
    if input.dim() < 2:
        raise RuntimeError(f"group_norm: Expected at least 2 dimensions for input tensor but received {input.dim()}")
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    _check_floating("group_norm", input)
    per_group = 1
    for s in input.shape[1:]:
        per_group *= s
    per_group //= num_groups
    if input.numel() == 0:
        out = input.clone()
    else:
        grouped = input.reshape(n, num_groups, per_group)
        out = _tl.native_layer_norm(grouped, [per_group], None, None, eps)[0].reshape(input.shape)
    if weight is not None:
        out = out * _channel_view(weight, input.dim())
    if bias is not None:
        out = out + _channel_view(bias, input.dim())
    return out


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """batch_norm over a (1, N*C, *) view, so each (sample, channel) pair is
    normalised over its own spatial elements; running stats (if given) are
    updated with the mean over the batch of the per-instance updates."""
    if input.dim() < 2:
        raise RuntimeError(f"instance_norm: expected at least 2-D input (N, C, ...), got {input.dim()}-D")
    n, c = input.shape[0], input.shape[1]
    shape = (1, n * c) + tuple(input.shape[2:])

    def rep(t):
        return None if t is None else t.unsqueeze(0).expand(n, c).reshape(n * c)

    rm, rv = rep(running_mean), rep(running_var)
    out = _tl.batch_norm(input.reshape(shape), rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps,
                         cudnn_enabled)
    if use_input_stats:
        with _tl.no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return out.reshape(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2 over the normalized dims) + eps) * weight; eps defaults
    to the dtype's machine epsilon. Half types compute in float32."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    normalized_shape = [int(s) for s in normalized_shape]
    k = len(normalized_shape)
    if k == 0 or input.dim() < k or list(input.shape[input.dim() - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with shape "
                           f"[*{', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    if weight is not None and list(weight.shape) != normalized_shape:
        raise RuntimeError(f"rms_norm: Expected weight to be of same shape as normalized_shape, but got weight of "
                           f"shape {list(weight.shape)} and normalized_shape = {normalized_shape}")
    _check_floating("rms_norm", input)
    if eps is None:
        eps = _tl.finfo(input.dtype).eps
    x = input.float() if input.dtype in (_tl.float16, _tl.bfloat16) else input
    dims = list(range(input.dim() - k, input.dim()))
    out = x * _tl.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    out = out.to(input.dtype)
    if weight is not None:
        out = out * weight
    return out


# ---------------------------------------------------------------- dropout

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise_shape(input, feature):
    if not feature:
        return tuple(input.shape)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return (input.shape[0], input.shape[1]) + (1,) * (input.dim() - 2)


def _dropout_impl(input, p, train, *, feature, alpha, inplace):
    """PyTorch's _dropout_impl: a Bernoulli(1 - p) keep-mask from torchlike's
    Philox generator (so manual_seed makes it reproducible), scaled by 1/(1-p);
    alpha dropout instead maps dropped units to SELU's negative saturation and
    rescales so mean and variance are kept."""
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = _tl.zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    noise = _tl.empty(_noise_shape(input, feature), dtype=input.dtype, device=input.device).bernoulli_(1 - p)
    if alpha:
        a_ = 1.7580993408473766
        a = 1.0 / _math.sqrt((a_ * a_ * p + 1) * (1 - p))
        b = (noise - 1) * (a_ * a) + a_ * a * p
        noise = noise * a
        return input.mul_(noise).add_(b) if inplace else input * noise + b
    noise = noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p, train):
    return _dropout_impl(input, p, train, feature=False, alpha=False, inplace=False)


def dropout_(input, p, train):
    return _dropout_impl(input, p, train, feature=False, alpha=False, inplace=True)


def feature_dropout(input, p, train):
    return _dropout_impl(input, p, train, feature=True, alpha=False, inplace=False)


def feature_dropout_(input, p, train):
    return _dropout_impl(input, p, train, feature=True, alpha=False, inplace=True)


def alpha_dropout(input, p, train):
    return _dropout_impl(input, p, train, feature=False, alpha=True, inplace=False)


def alpha_dropout_(input, p, train):
    return _dropout_impl(input, p, train, feature=False, alpha=True, inplace=True)


def feature_alpha_dropout(input, p, train):
    return _dropout_impl(input, p, train, feature=True, alpha=True, inplace=False)


def feature_alpha_dropout_(input, p, train):
    return _dropout_impl(input, p, train, feature=True, alpha=True, inplace=True)


# ---------------------------------------------------------------- bilinear

def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]: one matmul of
    x1 against W laid out (I, O*J), then a product with x2 summed over J."""
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D (out, in1, in2), got {weight.dim()}-D")
    o, i, j = weight.shape
    if input1.dim() != input2.dim() or tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if input1.shape[-1] != i:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {i}")
    if input2.shape[-1] != j:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {j}")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != o):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {list(bias.shape)} but "
                           f"expected [{o}]")
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, i)
    x2 = input2.reshape(-1, j)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(i, o * j)).view(-1, o, j)
    out = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        out = out + bias
    return out.reshape(lead + (o,))

