"""torchlike.nn.functional: activations, losses, distances, pad, one_hot.

The pointwise activations and nll_loss are operators (native_functions.yaml,
section "nn: activations, losses, distances, padding"); this module gives them
PyTorch's functional signatures (inplace=, reduction strings) and writes the
rest as compositions of operators, so autograd differentiates them.
"""
import math

import torchlike
from torchlike import _C
from torchlike.amp.autocast_mode import _float32_policy  # PyTorch's autocast runs these losses in float32
from torchlike.amp.autocast_mode import _lower_policy  # noqa: E402

__all__ = [
    # activations
    "threshold", "threshold_", "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_",
    "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "hardsigmoid", "hardswish",
    "hardshrink", "softshrink", "tanhshrink", "softplus", "softsign", "logsigmoid", "sigmoid", "tanh", "prelu",
    "rrelu", "rrelu_", "glu",
    # losses
    "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "mse_loss",
    "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "soft_margin_loss", "multilabel_margin_loss",
    "multilabel_soft_margin_loss", "multi_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "ctc_loss",
    # distances and shape helpers
    "cosine_similarity", "pairwise_distance", "pdist", "cdist", "pixel_shuffle", "pixel_unshuffle", "one_hot", "pad",
]

_nn = _C._nn


def _inplace(x, result):
    """Writes an activation's result back into x (inplace=True / F.*_)."""
    return x.copy_(result)


# ---------------------------------------------------------------- activations

def threshold(input, threshold, value, inplace=False):
    r = torchlike.threshold(input, threshold, value)
    return _inplace(input, r) if inplace else r


def threshold_(input, threshold, value):
    return input.threshold_(threshold, value)


def relu(input, inplace=False):
    return input.relu_() if inplace else torchlike.relu(input)


def relu_(input):
    return input.relu_()


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input.hardtanh_(min_val, max_val) if inplace else _nn.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return input.leaky_relu_(negative_slope) if inplace else _nn.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return input.leaky_relu_(negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return input.elu_(alpha) if inplace else _nn.elu(input, alpha)


def elu_(input, alpha=1.0):
    return input.elu_(alpha)


def selu(input, inplace=False):
    return input.selu_() if inplace else torchlike.selu(input)


def selu_(input):
    return input.selu_()


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu: alpha must not be 0")
    return input.celu_(alpha) if inplace else torchlike.celu(input, alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def gelu(input, approximate="none"):
    if approximate == "none":
        return torchlike._gelu_erf(input)
    if approximate == "tanh":
        return torchlike._gelu_tanh(input)
    raise RuntimeError(f"gelu: approximate argument must be either none or tanh, got {approximate!r}")


def silu(input, inplace=False):
    return input.silu_() if inplace else _nn.silu(input)


def mish(input, inplace=False):
    r = _nn.mish(input)
    return _inplace(input, r) if inplace else r


def hardsigmoid(input, inplace=False):
    r = _nn.hardsigmoid(input)
    return _inplace(input, r) if inplace else r


def hardswish(input, inplace=False):
    r = _nn.hardswish(input)
    return _inplace(input, r) if inplace else r


def hardshrink(input, lambd=0.5):
    return torchlike.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be greater or equal to 0, but found to be {lambd}.")
    return _nn.softshrink(input, lambd)


def tanhshrink(input):
    return input - torchlike.tanh(input)


def softplus(input, beta=1.0, threshold=20.0):
    return _nn.softplus(input, beta, threshold)


def softsign(input):
    return input / (input.abs() + 1)


def logsigmoid(input):
    return _nn.log_sigmoid(input)


def sigmoid(input):
    return torchlike.sigmoid(input)


def tanh(input):
    return torchlike.tanh(input)


@_lower_policy("cpu", "cuda")
def prelu(input, weight):
    """weight holds one slope, or one per channel (dim 1; dim 0 of a 1-D input)."""
    if weight.dim() != 1 and not (weight.dim() == 0):
        raise RuntimeError(f"prelu: weight must be a scalar or 1-D, got {weight.dim()} dims")
    n = weight.numel()
    if n != 1:
        if input.dim() == 0:
            raise RuntimeError("prelu: a 0-dim input needs a weight with one element")
        channels = input.shape[1] if input.dim() >= 2 else input.shape[0]
        if n != channels:
            raise RuntimeError(f"prelu: mismatch of parameter numbers and input channel size. Found parameter "
                               f"numbers = {n} and channel size = {channels}.")
        if input.dim() >= 2:
            weight = weight.reshape((n,) + (1,) * (input.dim() - 2))
    elif weight.dim() == 1 and input.dim() == 0:
        weight = weight.reshape(())
    return torchlike._prelu_kernel(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if training:
        # One slope per element, drawn from U(lower, upper) by the default generator.
        slope = torchlike.empty_like(input).uniform_(lower, upper)
        r = torchlike._prelu_kernel(input, slope)
    else:
        r = _nn.leaky_relu(input, (lower + upper) / 2)
    return _inplace(input, r) if inplace else r


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def glu(input, dim=-1):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {size}")
    a, b = input.chunk(2, dim)
    return a * torchlike.sigmoid(b)


# ---------------------------------------------------------------- losses

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def _reduce(loss, reduction):
    r = _reduction_enum(reduction)
    return loss if r == 0 else (loss.mean() if r == 1 else loss.sum())


def _legacy(reduction, size_average, reduce):
    return {0: "none", 1: "mean", 2: "sum"}[_reduction_enum(reduction, size_average, reduce)]


@_float32_policy("cpu", "cuda")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    r = _reduction_enum(reduction, size_average, reduce)
    return _nn.nll_loss_forward(input, target, weight, r, ignore_index)[0]


def _log_softmax(input, dim):
    # The softmax family lands in parallel (issue 10, nn_norm); use its kernel
    # when it is there, else the log-sum-exp composite.
    f = getattr(torchlike, "log_softmax", None)
    if f is not None:
        return f(input, dim)
    return input - torchlike.logsumexp(input, dim, keepdim=True)


@_float32_policy("cpu", "cuda")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = _legacy(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    logp = _log_softmax(input, class_dim)
    if target.dtype.is_floating_point:
        # Class probabilities, same shape as input.
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"cross_entropy: expected target of shape {tuple(input.shape)} holding class "
                               f"probabilities, got {tuple(target.shape)}")
        if ignore_index != -100:
            raise RuntimeError("ignore_index is not supported for floating point target")
        C = input.shape[class_dim]
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / C
        w = 1
        if weight is not None:
            w = weight.reshape((C,) + (1,) * (input.dim() - class_dim - 1))
        loss = -(logp * target * w).sum(class_dim)
        if reduction == "mean":
            n = loss.numel()
            return loss.sum() / n if n else loss.sum() / 0.0
        return loss.sum() if reduction == "sum" else loss
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    # Smoothing: mix in the uniform target, -sum_c w_c logp_c / C, over the positions not ignored.
    C = input.shape[class_dim]
    w = 1 if weight is None else weight.reshape((C,) + (1,) * (input.dim() - class_dim - 1))
    smooth = -(logp * w).sum(class_dim)
    keep = target != ignore_index
    smooth = torchlike.where(keep, smooth, torchlike.zeros_like(smooth))
    if reduction == "none":
        sm = smooth
    elif reduction == "sum":
        sm = smooth.sum()
    else:
        if weight is None:
            denom = keep.sum()
        else:
            safe_t = torchlike.where(keep, target, torchlike.zeros_like(target))
            denom = torchlike.where(keep, _gather_1d(weight, safe_t), torchlike.zeros_like(smooth)).sum()
        sm = smooth.sum() / denom
    return (1 - label_smoothing) * nll + (label_smoothing / C) * sm


def _one_hot_mask(index, num_classes, dtype):
    """index[..., None] == arange(C), as dtype: the one-hot rows of index."""
    return (index.unsqueeze(-1) == torchlike.arange(num_classes, device=index.device)).to(dtype)


def _gather_1d(values, index):
    """values[index] for a 1-D values (per-class weights): a one-hot contraction."""
    return (_one_hot_mask(index, values.shape[0], values.dtype) * values).sum(-1)


@_float32_policy("cpu")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    # autocast's `banned` policy (PyTorch's, CUDA only): raises, pointing to the *_with_logits form.
    if torchlike._C._VariableFunctions._autocast_is_enabled("cuda"):
        torchlike._C._VariableFunctions._autocast_raise_banned("binary_cross_entropy", "cuda")
    reduction = _legacy(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({tuple(target.shape)}) that is different to the input size "
                         f"({tuple(input.shape)}) is deprecated. Please ensure they have the same size.")
    # PyTorch clamps the logs at -100 so a 0 or 1 probability gives a finite loss.
    log_p = torchlike.clamp(torchlike.log(input), min=-100)
    log_1mp = torchlike.clamp(torchlike.log(1 - input), min=-100)
    loss = -(target * log_p + (1 - target) * log_1mp)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = _legacy(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({tuple(target.shape)}) must be the same as input size "
                         f"({tuple(input.shape)})")
    # log(1 + exp(-x)) computed stably: softplus(-x) = -logsigmoid(x).
    log_sig_neg = -_nn.log_sigmoid(input)          # -log(sigmoid(x))
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * log_sig_neg
    else:
        loss = (1 - target) * input + log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _check_same_numel(name, input, target):
    try:
        torchlike.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    except Exception:
        raise RuntimeError(f"{name}: the size of input {tuple(input.shape)} must match the size of target "
                           f"{tuple(target.shape)}") from None


@_float32_policy("cpu", "cuda")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy(reduction, size_average, reduce)
    d = input - target
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _legacy(reduction, size_average, reduce)
    loss = (input - target).abs()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _legacy(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = (input - target).abs()
    if beta == 0:
        return _reduce(d, reduction)
    loss = torchlike.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = (input - target).abs()
    loss = torchlike.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _xlogy(x, y):
    """x * log(y), 0 where x == 0 (the KL convention)."""
    return torchlike.where(x == 0, torchlike.zeros_like(x * y), x * torchlike.log(y))


@_float32_policy("cpu", "cuda")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    reduction = _legacy(reduction, size_average, reduce) if reduction != "batchmean" else reduction
    if log_target:
        loss = torchlike.exp(target) * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    if log_input:
        loss = torchlike.exp(input) - target * input
    else:
        loss = input - target * torchlike.log(input + eps)
    if full:
        # Stirling term, only where target > 1.
        stirling = target * torchlike.log(target) - target + 0.5 * torchlike.log(2 * math.pi * target)
        loss = loss + torchlike.where(target > 1, stirling, torchlike.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if isinstance(var, (int, float)):
        var = torchlike.full_like(input, float(var))
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    if var.device.type != "meta" and bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = torchlike.clamp(var.detach(), min=eps) - var.detach() + var  # clamp without blocking the gradient
    d = input - target
    loss = 0.5 * (torchlike.log(var) + d * d / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    zeros = torchlike.zeros_like(input)
    margin_clamp = torchlike.clamp(margin - input, min=0)
    loss = torchlike.where(target != 1, margin_clamp, zeros) + torchlike.where(target != -1, input, zeros)
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {tuple(input1.shape)}, input2: {tuple(input2.shape)}, "
                           f"target: {tuple(target.shape)} ")
    loss = torchlike.clamp(-target * (input1 - input2) + margin, min=0)
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    loss = _nn.softplus(-target * input)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    loss = -(target * _nn.log_sigmoid(input) + (1 - target) * _nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(-1) / input.shape[-1] if input.dim() else loss
    return _reduce(loss, reduction)


def _check_class_targets(name, target, C):
    if target.device.type != "meta" and target.numel() and (bool((target < 0).any()) or bool((target >= C).any())):
        raise IndexError(f"{name}: target out of range [0, {C})")


@_float32_policy("cpu", "cuda")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.dim() >= 2 else input.reshape((1, -1) if input.dim() == 1 else (1, 1))
    t = target.reshape(-1)
    N, C = x.shape
    if t.shape[0] != N:
        raise RuntimeError(f"multi_margin_loss: inconsistent target size: {tuple(target.shape)} for input of size: "
                           f"{tuple(input.shape)}")
    _check_class_targets("multi_margin_loss", t, C)
    mask = _one_hot_mask(t, C, x.dtype)                 # (N, C), 1 at the target class
    x_y = (x * mask).sum(1, keepdim=True)
    z = torchlike.clamp(margin - x_y + x, min=0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * _gather_1d(weight, t).unsqueeze(1)
    loss = (z * (1 - mask)).sum(1) / C
    if input.dim() < 2:
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


@_float32_policy("cpu", "cuda")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target if target.dim() == 2 else target.reshape(1, -1)
    if tuple(t.shape) != tuple(x.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {tuple(target.shape)} for input of "
                           f"size: {tuple(input.shape)}")
    N, C = x.shape
    if t.device.type != "meta" and t.numel() and (bool((t < -1).any()) or bool((t >= C).any())):
        raise IndexError(f"multilabel_margin_loss: target out of range [-1, {C})")
    # Targets are the entries before the first -1 of each row.
    valid = torchlike.cumprod((t != -1).to(torchlike.int64), 1).to(x.dtype)      # (N, J)
    safe_t = torchlike.where(t >= 0, t, torchlike.zeros_like(t))
    oh = _one_hot_mask(safe_t, C, x.dtype) * valid.unsqueeze(-1)                   # (N, J, C)
    is_target = torchlike.clamp(oh.sum(1), max=1)                                  # (N, C)
    x_y = (oh * x.unsqueeze(1)).sum(-1)                                            # (N, J)
    z = torchlike.clamp(1 - x_y.unsqueeze(-1) + x.unsqueeze(1), min=0)             # (N, J, C)
    z = z * valid.unsqueeze(-1) * (1 - is_target).unsqueeze(1)
    loss = z.sum((1, 2)) / C
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    if tuple(x1.shape) != tuple(x2.shape):
        shape = torchlike.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
        x1, x2 = x1.expand(shape), x2.expand(shape)
    w12 = (x1 * x2).sum(dim)
    w1 = (x1 * x1).sum(dim)
    w2 = (x2 * x2).sum(dim)
    return w12 / torchlike.sqrt(torchlike.clamp(w1 * w2, min=eps * eps))


@_float32_policy("cpu", "cuda")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    if input1.shape != input2.shape:
        raise RuntimeError(f"cosine_embedding_loss: input1 {tuple(input1.shape)} and input2 "
                           f"{tuple(input2.shape)} must have the same shape")
    eps = 1e-12
    dim = input1.dim() - 1
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / torchlike.sqrt(mag1 * mag2)
    zeros = torchlike.zeros_like(cos)
    pos = torchlike.where(target == 1, 1 - cos, zeros)
    neg = torchlike.where(target == -1, torchlike.clamp(cos - margin, min=0), zeros)
    return _reduce(pos + neg, reduction)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    d = max(x1.dim(), x2.dim())
    diff = x1 - x2 + eps
    if d == 0:
        return diff.abs()
    return torchlike.norm(diff, p, dim=-1, keepdim=keepdim)


@_float32_policy("cpu", "cuda")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    reduction = _legacy(reduction, size_average, reduce)
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and "
                           f"negative {negative.dim()}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torchlike.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(torchlike.clamp(margin + d_pos - d_neg, min=0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = torchlike.minimum(d_neg, dist(positive, negative))
    return _reduce(torchlike.clamp(margin + d_pos - d_neg, min=0), reduction)


def _lengths(v, name, batch):
    if isinstance(v, torchlike.Tensor):
        if v.dtype.is_floating_point or v.dtype == torchlike.bool:
            raise RuntimeError(f"ctc_loss: {name} must be integral, got {v.dtype}")
        if v.device.type == "meta":
            raise RuntimeError(f"ctc_loss: {name} must hold values (got a meta tensor); pass a list of ints")
        v = v.reshape(-1).tolist()
    out = [int(x) for x in v]
    if len(out) != batch:
        raise RuntimeError(f"ctc_loss: {name} must be of size batch_size ({batch}), got {len(out)}")
    return out


@_float32_policy("cpu")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss. log_probs (T, N, C) or (T, C);
    targets (N, S) padded, or 1-D concatenated. The per-sequence losses and
    their gradient come from the _ctc_loss kernels (alpha/beta recursions);
    'mean' divides each by its target length (at least 1) and averages."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    batched = log_probs.dim() == 3
    if not batched and log_probs.dim() != 2:
        raise RuntimeError(f"ctc_loss: expected log_probs of shape (T, N, C) or (T, C), got {log_probs.dim()}-D")
    lp = log_probs if batched else log_probs.unsqueeze(1)
    tgt = targets if batched else targets.unsqueeze(0)
    n = lp.shape[1]
    in_len = _lengths(input_lengths, "input_lengths", n)
    tg_len = _lengths(target_lengths, "target_lengths", n)
    nll, _ = torchlike._ctc_loss(lp, tgt, in_len, tg_len, blank, zero_infinity)
    if zero_infinity:
        nll = torchlike.where(nll == float("inf"), torchlike.zeros_like(nll), nll)
    if reduction == "mean":
        lens = torchlike.tensor([max(v, 1) for v in tg_len], dtype=nll.dtype, device=nll.device)
        return (nll / lens).mean()
    if reduction == "sum":
        return nll.sum()
    return nll if batched else nll.reshape(())


# ---------------------------------------------------------------- distances

def pdist(input, p=2.0):
    """Distances between the rows of an (N, M) input, i < j, row-major: the
    pairs come from triu_indices, so it is one gather and one norm."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    N = input.shape[0]
    if N < 2:
        return torchlike.empty((0,), dtype=input.dtype, device=input.device)
    i, j = torchlike.triu_indices(N, N, 1, device=input.device)
    return torchlike.norm(input.index_select(0, i) - input.index_select(0, j), p, dim=1)


@_float32_policy("cpu", "cuda")
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    P, R = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist"
                         or (compute_mode == modes[0] and (P > 25 or R > 25)))
    if use_mm:
        # |a - b|^2 = |a|^2 + |b|^2 - 2 a.b through a matrix product.
        a2 = (x1 * x1).sum(-1, keepdim=True)
        b2 = (x2 * x2).sum(-1, keepdim=True)
        d2 = a2 - 2 * torchlike.matmul(x1, x2.transpose(-1, -2)) + b2.transpose(-1, -2)
        return torchlike.sqrt(torchlike.clamp(d2, min=0))
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return torchlike.norm(diff, p, dim=-1)


def pixel_shuffle(input, upscale_factor):
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    oc = c // (r * r)
    nb = len(batch)
    x = input.reshape(tuple(batch) + (oc, r, r, h, w))
    x = x.permute(tuple(range(nb)) + (nb, nb + 3, nb + 1, nb + 4, nb + 2))
    return x.reshape(tuple(batch) + (oc, h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but "
                           f"got height={h}, width={w}, downscale_factor={r}")
    nb = len(batch)
    x = input.reshape(tuple(batch) + (c, h // r, r, w // r, r))
    x = x.permute(tuple(range(nb)) + (nb, nb + 2, nb + 4, nb + 1, nb + 3))
    return x.reshape(tuple(batch) + (c * r * r, h // r, w // r))


def one_hot(tensor, num_classes=-1):
    if tensor.dtype != torchlike.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.device.type == "meta":
        # No values to check or to infer the class count from (PyTorch's Meta behaviour).
        if num_classes == -1:
            raise RuntimeError("one_hot: num_classes must be given for a meta tensor: it cannot be inferred "
                               "without values")
        return _one_hot_mask(tensor, num_classes, torchlike.int64)
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(tensor.max()) + 1
    if tensor.numel() and int(tensor.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if tensor.numel() and int(tensor.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return _one_hot_mask(tensor, num_classes, torchlike.int64)


# ---------------------------------------------------------------- pad

def _pad_dim(x, d, left, right, mode, value):
    """Pads (or, for negative amounts, crops) dimension d of x."""
    if left < 0:
        x = x.narrow(d, -left, x.shape[d] + left)
        left = 0
    if right < 0:
        x = x.narrow(d, 0, x.shape[d] + right)
        right = 0
    if left == 0 and right == 0:
        return x
    n = x.shape[d]
    parts = []
    if mode == "constant":
        def filler(k):
            shape = list(x.shape)
            shape[d] = k
            return torchlike.full(tuple(shape), value, dtype=x.dtype, device=x.device)
        parts = [filler(left)] if left else []
        parts.append(x)
        if right:
            parts.append(filler(right))
    elif mode == "reflect":
        if left >= n or right >= n:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({left}, {right}) at dimension {d} of input {tuple(x.shape)}")
        parts = [x.narrow(d, i, 1) for i in range(left, 0, -1)] + [x] + \
                [x.narrow(d, n - 2 - i, 1) for i in range(right)]
    elif mode == "replicate":
        if n == 0:
            raise RuntimeError("padding of an empty dimension in replicate mode")
        def edge(i, k):
            shape = list(x.shape)
            shape[d] = k
            return x.narrow(d, i, 1).expand(tuple(shape))
        parts = ([edge(0, left)] if left else []) + [x] + ([edge(n - 1, right)] if right else [])
    elif mode == "circular":
        if left > n or right > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        parts = ([x.narrow(d, n - left, left)] if left else []) + [x] + ([x.narrow(d, 0, right)] if right else [])
    return torchlike.cat(parts, d)


def pad(input, pad, mode="constant", value=None):
    """PyTorch's pad: `pad` lists (left, right) amounts starting from the last
    dimension. constant pads any number of dims; reflect/replicate/circular
    pad the last 1, 2 or 3 dims of a batched (or unbatched) input."""
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant":
        if value not in (None, 0):
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        if k > 3 or input.dim() not in (k + 1, k + 2):
            raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for "
                                      f"now (got a {input.dim()}-D input and {k} padded dims)")
    value = 0 if value is None else value
    if (mode == "reflect" and k in (1, 2)) or (mode == "replicate" and k in (1, 2, 3)):
        # PyTorch's CPU autocast runs reflection_pad1d/2d and replication_pad1d/2d/3d in float32
        return _pad_float32_on_cpu(input, pad, mode, value, k)
    return _pad_dims(input, pad, mode, value, k)


@_float32_policy("cpu")
def _pad_float32_on_cpu(input, pad, mode, value, k):
    return _pad_dims(input, pad, mode, value, k)


def _pad_dims(input, pad, mode, value, k):
    x = input
    for i in range(k):
        x = _pad_dim(x, input.dim() - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1]), mode, value)
    return x if x is not input else input.clone()
