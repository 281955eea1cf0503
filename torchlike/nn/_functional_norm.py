"""torchlike.nn.functional: softmax family, normalisation, dropout, embedding,
linear/bilinear and scaled_dot_product_attention (see functional.py).

The heavy lifting is in C++ (softmax/log_softmax, native_layer_norm,
native_batch_norm, embedding and their backward kernels); what is here maps
PyTorch's functional signatures onto them and composes the rest."""
import math as _math

import torchlike as _tl
from torchlike import _nn_norm as _nn
from torchlike.amp.autocast_mode import _lower_policy  # PyTorch's autocast lowers sdpa

__all__ = ["softmax", "softmin", "log_softmax", "gumbel_softmax", "layer_norm", "rms_norm", "batch_norm",
           "group_norm", "instance_norm", "local_response_norm", "normalize", "dropout", "dropout1d", "dropout2d",
           "dropout3d", "alpha_dropout", "feature_alpha_dropout", "embedding", "embedding_bag", "linear", "bilinear",
           "scaled_dot_product_attention"]


# ---------------------------------------------------------------- softmax family

def _softmax_dim(name, ndim):
    # PyTorch's legacy implicit-dim rule (with its deprecation warning).
    import warnings
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim())
    return _tl.softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return _tl.softmax(-input if dtype is None else -input.to(dtype), dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim())
    return _tl.log_softmax(input, dim, dtype=dtype)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples from the Gumbel-softmax distribution: softmax((logits + g) / tau)
    with g = -log(E), E ~ Exponential(1) drawn from torchlike's generator. With
    hard=True the result is one-hot in the forward pass and carries the soft
    sample's gradient (straight-through)."""
    u = _tl.rand_like(logits)
    gumbels = -_tl.log(-_tl.log1p(-u))  # -log(E), E = -log(1 - u) ~ Exponential(1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    d = dim % logits.dim() if logits.dim() else 0
    shape = [1] * logits.dim()
    if logits.dim():
        shape[d] = logits.shape[d]
    positions = _tl.arange(logits.shape[d] if logits.dim() else 1, device=logits.device).reshape(shape)
    y_hard = (positions == index).to(logits.dtype)
    return y_hard - y_soft.detach() + y_soft


# ---------------------------------------------------------------- normalisation

def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _tl.layer_norm(input, list(normalized_shape), weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _nn.rms_norm(input, normalized_shape, weight, eps)


def _verify_batch_size(size):
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    if training:
        _verify_batch_size(input.size())
    return _tl.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.size()[2:]))
    return _nn.group_norm(input, num_groups, weight, bias, eps, False)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    if use_input_stats:
        size = input.size()
        n = 1
        for s in size[2:]:
            n *= s
        if n == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")
    return _nn.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, False)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta,
    the window zero-padded (size // 2 before, (size - 1) // 2 after) as
    PyTorch's average pooling does; the window sums come from a cumulative sum
    over the channel dim."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sq = input * input
    c = input.shape[1]
    before, after = size // 2, (size - 1) // 2
    pad_shape = list(input.shape)
    parts = []
    if before:
        pad_shape[1] = before + 1  # one extra leading zero: the cumulative sum's origin
    else:
        pad_shape[1] = 1
    parts.append(_tl.zeros(pad_shape, dtype=input.dtype, device=input.device))
    parts.append(sq)
    if after:
        pad_shape[1] = after
        parts.append(_tl.zeros(pad_shape, dtype=input.dtype, device=input.device))
    cs = _tl.cat(parts, 1).cumsum(1)
    window = cs.narrow(1, size, c) - cs.narrow(1, 0, c)
    div = (window * (alpha / size) + k) ** beta
    return input / div


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _tl.div(input, denom, out=out)


# ---------------------------------------------------------------- dropout

def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _nn.dropout_(input, p, training) if inplace else _nn.dropout(input, p, training)


def _feature_dropout(name, input, p, training, inplace, dims):
    _check_p(p)
    d = input.dim()
    if d not in dims:
        spatial = {"dropout1d": "1", "dropout2d": "2", "dropout3d": "3"}[name]
        raise RuntimeError(f"{name}: Expected {dims[0]}D or {dims[1]}D input, but received a {d}D input. Note that "
                           f"{name} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                           f"dimension{'s' if spatial != '1' else ''}, a channel dimension, and an optional batch "
                           f"dimension (i.e. {dims[0]}D or {dims[1]}D inputs).")
    batched = d == dims[1]
    x = input if batched else input.unsqueeze(0)
    r = _nn.feature_dropout_(x, p, training) if inplace else _nn.feature_dropout(x, p, training)
    if inplace:
        return input
    return r if batched else r.squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout("dropout1d", input, p, training, inplace, (2, 3))


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout("dropout2d", input, p, training, inplace, (3, 4))


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout("dropout3d", input, p, training, inplace, (4, 5))


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _nn.alpha_dropout_(input, p, training) if inplace else _nn.alpha_dropout(input, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return (_nn.feature_alpha_dropout_(input, p, training) if inplace
            else _nn.feature_alpha_dropout(input, p, training))


# ---------------------------------------------------------------- embedding

def _padding_index(padding_idx, num):
    if padding_idx is None:
        return -1
    if padding_idx > 0:
        assert padding_idx < num, "Padding_idx must be within num_embeddings"
    elif padding_idx < 0:
        assert padding_idx >= -num, "Padding_idx must be within num_embeddings"
        padding_idx = num + padding_idx
    return padding_idx


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    padding_idx = _padding_index(padding_idx, weight.size(0))
    if max_norm is not None:
        # Rows looked up are renormalised in place first (not recorded by autograd, as in PyTorch).
        input = input.contiguous()
        with _tl.no_grad():
            _tl.embedding_renorm_(weight, input, max_norm, norm_type)
    return _tl.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows. The rows come from
    embedding() (so its backward scatters into weight); each bag is then
    reduced over its slice. Entries equal to padding_idx are left out of their
    bag (and of a mean's count); an empty bag gives zeros."""
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dtype not in (_tl.int64, _tl.int32):
        raise RuntimeError("embedding_bag: Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got {input.dtype} instead")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      "on GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({tuple(input.shape)})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        b, length = input.shape
        offsets = _tl.arange(0, b * length, length, dtype=input.dtype, device=input.device)
        flat = input.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        flat = input
        psw = per_sample_weights
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if max_norm is not None:
        # Rows looked up are renormalised in place first (not recorded by autograd, as in PyTorch).
        with _tl.no_grad():
            _tl.embedding_renorm_(weight, flat.contiguous(), max_norm, norm_type)
    # The bags are reduced by torchlike.embedding_bag (vectorised: one gather,
    # one index_add or scatter_reduce), which also checks offsets and indices.
    output, _, _, _ = _tl.embedding_bag(weight, flat, offsets, scale_grad_by_freq, {"sum": 0, "mean": 1, "max": 2}[mode],
                                        sparse, psw, include_last_offset, padding_idx)
    return output


# ---------------------------------------------------------------- linear, bilinear, attention

def linear(input, weight, bias=None):
    return _tl._C._nn.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    return _nn.bilinear(input1, input2, weight, bias)


@_lower_policy("cpu", "cuda")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(Q K^T * scale + mask) V over the last two dims, batched over the
    leading ones (broadcast). A bool mask keeps the True positions; a float
    mask is added to the scores; is_causal masks keys after each query
    (top-left aligned, as PyTorch). enable_gqa lets key/value have fewer heads
    (dim -3) than query, each shared by a group of query heads."""
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must be at least 2-D")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same embedding size, got "
                           f"{query.shape[-1]} and {key.shape[-1]}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: key and value must have the same sequence length, got "
                           f"{key.shape[-2]} and {value.shape[-2]}")
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1.0 / _math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.dim() >= 3 and key.dim() >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk == 0 or hq % hk != 0 or hv == 0 or hq % hv != 0:
            raise RuntimeError(f"scaled_dot_product_attention: number of heads in key/value ({hk}/{hv}) must "
                               f"divide the number of heads in query ({hq}) with enable_gqa=True")
        key = _repeat_heads(key, hq // hk)
        value = _repeat_heads(value, hq // hv)
    fused = dropout_p == 0.0 and not (attn_mask is not None and attn_mask.dtype != _tl.bool
                                       and attn_mask.requires_grad)
    if fused:
        # The fused kernel (online softmax over key blocks) on (N, L, E) folds
        # of the broadcast batch dims; its backward recomputes the probabilities.
        batch = tuple(_tl.broadcast_shapes(tuple(query.shape[:-2]), tuple(key.shape[:-2]), tuple(value.shape[:-2])))
        E, Ev = query.shape[-1], value.shape[-1]
        q3 = query.expand(batch + (L, E)).reshape(-1, L, E)
        k3 = key.expand(batch + (S, E)).reshape(-1, S, E)
        v3 = value.expand(batch + (S, Ev)).reshape(-1, S, Ev)
        m3 = None
        if attn_mask is not None:
            m3 = attn_mask.expand(batch + (L, S)).reshape(-1, L, S)
        out = _tl._sdpa_fused(q3, k3, v3, m3, is_causal, scale_factor)
        return out.reshape(batch + (L, Ev))
    scores = (query * scale_factor).matmul(key.transpose(-2, -1))
    if is_causal:
        attn_mask = _tl.arange(L, device=query.device).unsqueeze(1) >= _tl.arange(S, device=query.device).unsqueeze(0)
    if attn_mask is not None:
        if attn_mask.dtype == _tl.bool:
            neg = _tl.full((), float("-inf"), dtype=scores.dtype, device=scores.device)
            scores = _tl.where(attn_mask, scores, neg)
        else:
            scores = scores + attn_mask
    attn = scores.softmax(-1)
    if dropout_p > 0.0:
        attn = _nn.dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _repeat_heads(t, groups):
    """(..., H, S, E) -> (..., H * groups, S, E), each head repeated `groups`
    times in a row (repeat_interleave on dim -3)."""
    if groups == 1:
        return t
    shape = tuple(t.shape)
    lead, h, s, e = shape[:-3], shape[-3], shape[-2], shape[-1]
    return t.unsqueeze(-3).expand(lead + (h, groups, s, e)).reshape(lead + (h * groups, s, e))
