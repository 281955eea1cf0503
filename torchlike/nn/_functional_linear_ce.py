"""torchlike.nn.functional.linear_cross_entropy: cross_entropy(linear(x, W, b), target).

Without options it is exactly that composition. With a LinearCrossEntropyOptions
it runs a batch-chunked path: forward walks the batch in row chunks, keeping
only each row's log-sum-exp, and backward recomputes each chunk's logits to form
softmax - onehot, so the (N, num_classes) logits never exist at once. The
chunked path covers class-index targets without label smoothing and a (C,)
bias; anything else falls back to the composition with a warning."""
import warnings

import torchlike
from torchlike.autograd import Function
from torchlike.nn._functional_act_loss import cross_entropy
from torchlike.nn._functional_norm import linear

__all__ = ["linear_cross_entropy"]

_BACKWARD_TWICE = ("linear_cross_entropy chunked backward called twice; retain_graph=True / double backward are "
                   "not supported.")


def _row_chunks(rows, per_chunk):
    for start in range(0, rows, per_chunk):
        yield start, min(start + per_chunk, rows)


class _ChunkedLinearCrossEntropy(Function):
    """Loss of rows x (N, in) against class indices; see the module docstring.

    Saved for backward: the inputs, the (N,) log-sum-exp of each row's logits
    and the (N,) effective row weights (class weight, 0 for ignored rows)."""

    @staticmethod
    def forward(ctx, x, w, b, target, class_weight, ignore_index, reduction, per_chunk, acc, allow_repeat):
        rows = x.shape[0]
        n_classes = w.shape[0]
        keep = target != ignore_index
        bad = keep & ((target < 0) | (target >= n_classes))
        if bool(bad.any()):
            raise IndexError(f"Target {int(target[bad][0])} is out of bounds.")
        safe_target = target.masked_fill(~keep, 0)
        row_weight = keep.to(acc)
        if class_weight is not None:
            row_weight = row_weight * class_weight.to(acc).index_select(0, safe_target)

        w_acc = w.to(acc)
        b_acc = None if b is None else b.to(acc)
        lse = torchlike.empty(rows, dtype=acc, device=x.device)
        per_row = torchlike.empty(rows, dtype=acc, device=x.device)
        for lo, hi in _row_chunks(rows, per_chunk):
            logits = linear(x[lo:hi].to(acc), w_acc, b_acc)
            chunk_lse = logits.logsumexp(1)
            picked = logits.gather(1, safe_target[lo:hi].unsqueeze(1)).squeeze(1)
            lse[lo:hi] = chunk_lse
            per_row[lo:hi] = (chunk_lse - picked) * row_weight[lo:hi]

        if reduction == "none":
            loss = per_row
            denominator = None
        elif reduction == "sum":
            loss = per_row.sum()
            denominator = None
        else:
            denominator = row_weight.sum()
            loss = per_row.sum() / denominator
        ctx.save_for_backward(x, w, b, safe_target, row_weight, lse)
        ctx.setup = (reduction, denominator, per_chunk, acc, allow_repeat)
        ctx.backward_calls = 0
        return loss.to(x.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        reduction, denominator, per_chunk, acc, allow_repeat = ctx.setup
        ctx.backward_calls += 1
        if ctx.backward_calls > 1 and not allow_repeat:
            raise RuntimeError(_BACKWARD_TWICE)
        x, w, b, safe_target, row_weight, lse = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        # d loss / d logits[r] = scale[r] * (softmax(logits[r]) - onehot(target[r])).
        scale = row_weight * grad_output.to(acc)
        if reduction == "mean":
            scale = scale / denominator

        w_acc = w.to(acc)
        b_acc = None if b is None else b.to(acc)
        grad_x_parts = []
        grad_w = torchlike.zeros(tuple(w.shape), dtype=acc, device=w.device) if need_w else None
        grad_b = torchlike.zeros(tuple(b.shape), dtype=acc, device=w.device) if (need_b and b is not None) else None
        for lo, hi in _row_chunks(x.shape[0], per_chunk):
            xs = x[lo:hi].to(acc)
            logits = linear(xs, w_acc, b_acc)
            s = scale[lo:hi].unsqueeze(1)
            g = (logits - lse[lo:hi].unsqueeze(1)).exp() * s
            g = g.scatter_add(1, safe_target[lo:hi].unsqueeze(1), -s)
            if need_x:
                grad_x_parts.append((g @ w_acc).to(x.dtype))
            if grad_w is not None:
                grad_w = grad_w + g.transpose(0, 1) @ xs
            if grad_b is not None:
                grad_b = grad_b + g.sum(0)
        grad_x = None
        if need_x:
            grad_x = torchlike.cat(grad_x_parts, 0) if grad_x_parts else torchlike.zeros_like(x)
        return (grad_x, None if grad_w is None else grad_w.to(w.dtype),
                None if grad_b is None else grad_b.to(b.dtype), None, None, None, None, None, None, None)


def _chunked_path_problem(reduction, label_smoothing, target, out_features, linear_bias):
    """None when the chunked path can run, else the warning explaining why not."""
    if (reduction in ("mean", "sum", "none") and label_smoothing == 0 and target.dtype == torchlike.int64
            and not out_features and (linear_bias is None or linear_bias.dim() == 1)):
        return None
    bias_shape = None if linear_bias is None else tuple(linear_bias.shape)
    return ("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
            "label_smoothing == 0, target.dtype == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
            f"out_features={out_features}, linear_bias.shape={bias_shape}.")


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...).

    linear_weight is (C, in_features) or (C, d_1, ..., d_K, in_features) for a
    K-dimensional loss, whose logits are laid out (N, C, d_1, ..., d_K).
    ignore_index None means -100."""
    if input.dim() not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    in_features = input.shape[-1]
    if linear_weight.dim() < 2 or linear_weight.shape[-1] != in_features:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{in_features} and {linear_weight.shape[-1]}, respectively")
    out_features = tuple(linear_weight.shape[1:-1])
    if out_features and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    index_to_skip = -100 if ignore_index is None else ignore_index

    if options is not None:
        problem = _chunked_path_problem(reduction, label_smoothing, target, out_features, linear_bias)
        if problem is None:
            batched = input.dim() == 2
            x = input if batched else input.unsqueeze(0)
            t = target if batched else target.reshape(1)
            if batched and (t.dim() != 1 or t.shape[0] != x.shape[0]):
                raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                                 f"({t.shape[0] if t.dim() else 0}).")
            per_chunk = options._rows_per_chunk(x.shape[0], in_features)
            acc = options._accumulation_dtype(input.dtype)
            loss = _ChunkedLinearCrossEntropy.apply(x, linear_weight, linear_bias, t, weight, index_to_skip,
                                                    reduction, per_chunk, acc, options.allow_retain_graph)
            return loss if batched or reduction != "none" else loss.squeeze(0)
        warnings.warn(problem, stacklevel=2)

    n_classes = linear_weight.shape[0]
    flat_weight = linear_weight.reshape(-1, in_features)
    flat_bias = None if linear_bias is None else linear_bias.reshape(-1)
    logits = linear(input, flat_weight, flat_bias)
    if out_features:
        logits = logits.reshape((input.shape[0], n_classes) + out_features)
    return cross_entropy(logits, target, weight=weight, ignore_index=index_to_skip, reduction=reduction,
                         label_smoothing=label_smoothing)
