"""multi_head_attention_forward: the functional form behind nn.MultiheadAttention.

Layout conventions (as PyTorch's): query (L, N, E), key (S, N, E_k), value
(S, N, E_v), or the same without the batch dimension N. Inside, the heads are
folded into the batch: (N * heads, L, head_dim). Masks end up additive and
float: a boolean True means "may not attend" and becomes -inf.

When the caller does not want the attention weights, the product goes through
scaled_dot_product_attention (no (N*heads, L, S) weight tensor kept for the
caller); otherwise the weights are formed explicitly so they can be returned."""
import math
import warnings

import torchlike
# functional.py imports this file while it is being built; names are looked up at call time.
from torchlike.nn import functional as F

__all__ = ["multi_head_attention_forward"]


def _additive_mask(mask, name, other, other_name, target_dtype):
    """A bool or float mask as a float mask to add to the attention scores
    (None stays None); other (the second mask) only feeds the mixed-types warning."""
    if mask is None:
        return None
    if mask.dtype != torchlike.bool and not torchlike.is_floating_point(mask):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. "
                      "Use same type for both instead.")
    if mask.dtype == torchlike.bool:
        return torchlike.zeros(mask.shape, dtype=target_dtype, device=mask.device).masked_fill(
            mask, float("-inf"))
    return mask


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Validate ranks the way PyTorch does; True when the call is batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                    f"found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                want = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != want:
                    raise AssertionError(
                        f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _project_inputs(query, key, value, embed_dim, in_proj_weight, in_proj_bias,
                    use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight):
    """q, k, v after the input projections. Self-attention with a packed weight
    is one matrix product whose result is split three ways."""
    if in_proj_bias is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = in_proj_bias.split(embed_dim)
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if query is key and key is value:
            return F.linear(query, in_proj_weight, in_proj_bias).split(embed_dim, dim=-1)
        w_q, w_k, w_v = in_proj_weight.split(embed_dim)
        if key is value:
            w_kv = in_proj_weight[embed_dim:]
            b_kv = None if in_proj_bias is None else in_proj_bias[embed_dim:]
            k, v = F.linear(key, w_kv, b_kv).split(embed_dim, dim=-1)
            return F.linear(query, w_q, b_q), k, v
    else:
        for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                        ("v_proj_weight", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    return (F.linear(query, w_q, b_q), F.linear(key, w_k, b_k),
            F.linear(value, w_v, b_v))


def _extend_keys(k, v, extra_k, extra_v, attn_mask, key_padding_mask, dim):
    """Append one key/value position along `dim` and open a zero (allowed)
    column for it in both masks."""
    k = torchlike.cat([k, extra_k], dim)
    v = torchlike.cat([v, extra_v], dim)
    if attn_mask is not None:
        attn_mask = F.pad(attn_mask, (0, 1))
    if key_padding_mask is not None:
        key_padding_mask = F.pad(key_padding_mask, (0, 1))
    return k, v, attn_mask, key_padding_mask


def _heads_first(t, batch_heads, head_dim):
    """(S, N, E) -> (N * heads, S, head_dim)."""
    return t.reshape(t.shape[0], batch_heads, head_dim).transpose(0, 1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention; returns (output (L, N, E), weights or None).

    weights are (N, L, S) averaged over heads, or (N, heads, L, S) with
    average_attn_weights=False (without N for unbatched input)."""
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _additive_mask(key_padding_mask, "key_padding_mask", attn_mask,
                                      "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
            "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # The causal flag alone tells the fused attention what to mask.
        attn_mask = None
    else:
        attn_mask = _additive_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if key_padding_mask is not None:
            is_causal = False

    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                f"{tuple(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if key_padding_mask is not None and key_padding_mask.shape[1] != src_len:
        raise AssertionError(
            f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}")

    q, k, v = _project_inputs(query, key, value, embed_dim, in_proj_weight, in_proj_bias,
                              use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight)

    batch_heads = bsz * num_heads
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (batch_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(batch_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k, v, attn_mask, key_padding_mask = _extend_keys(
            k, v, bias_k.expand(1, bsz, embed_dim), bias_v.expand(1, bsz, embed_dim),
            attn_mask, key_padding_mask, 0)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    q = _heads_first(q, batch_heads, head_dim)
    if static_k is None:
        k = _heads_first(k, batch_heads, head_dim)
    else:
        if static_k.shape[0] != batch_heads:
            raise AssertionError(f"expecting static_k.size(0) of {batch_heads}, but got "
                                 f"{static_k.shape[0]}")
        if static_k.shape[2] != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got "
                                 f"{static_k.shape[2]}")
        k = static_k
    if static_v is None:
        v = _heads_first(v, batch_heads, head_dim)
    else:
        if static_v.shape[0] != batch_heads:
            raise AssertionError(f"expecting static_v.size(0) of {batch_heads}, but got "
                                 f"{static_v.shape[0]}")
        if static_v.shape[2] != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got "
                                 f"{static_v.shape[2]}")
        v = static_v

    if add_zero_attn:
        zeros = torchlike.zeros((batch_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v, attn_mask, key_padding_mask = _extend_keys(k, v, zeros, zeros.to(v.dtype), attn_mask,
                                                         key_padding_mask, 1)

    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{key_padding_mask.shape}")
        per_head = key_padding_mask.view(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        per_head = per_head.reshape(batch_heads, 1, src_len)
        attn_mask = per_head if attn_mask is None else attn_mask + per_head

    if not training:
        dropout_p = 0.0

    if need_weights:
        scores_q = q * (1.0 / math.sqrt(head_dim))
        if attn_mask is None:
            scores = torchlike.bmm(scores_q, k.transpose(1, 2))
        else:
            scores = torchlike.baddbmm(attn_mask, scores_q, k.transpose(1, 2))
        weights = F.softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = F.dropout(weights, p=dropout_p)
        context = torchlike.bmm(weights, v)
        context = context.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        output = F.linear(context, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            output = output.squeeze(1)
            weights = weights.squeeze(0)
        return output, weights

    if attn_mask is not None:
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1
                     else attn_mask.view(bsz, num_heads, -1, src_len))
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    context = F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    context = context.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    output = F.linear(context, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
    if not batched:
        output = output.squeeze(1)
    return output, None
