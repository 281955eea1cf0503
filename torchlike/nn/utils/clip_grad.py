"""Gradient clipping: by global norm and by value.

The global norm is the norm of the per-tensor norms, so one pass over each gradient
suffices; with the multi-tensor (_foreach_) operators that pass is one call for all
gradients, and so is the rescaling."""
import warnings

import torchlike
from torchlike._tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _as_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _use_foreach(foreach, name):
    available = hasattr(torchlike, name)
    if foreach and not available:
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on cpu tensors "
                           f"({name} is not available)")
    return available if foreach is None else bool(foreach)


def _norm_type(norm_type):
    if isinstance(norm_type, str):
        if norm_type not in ("inf", "-inf"):
            raise ValueError(f"norm_type must be a number, 'inf' or '-inf', got {norm_type!r}")
        return float(norm_type)
    return float(norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of all `tensors` taken together, as if concatenated into one vector."""
    tensors = [t for t in _as_list(tensors) if t is not None]
    norm_type = _norm_type(norm_type)
    if not tensors:
        return torchlike.tensor(0.0)
    if _use_foreach(foreach, "_foreach_norm") and all(t.device == tensors[0].device for t in tensors):
        norms = torchlike._foreach_norm(tensors, norm_type)
    else:
        norms = [torchlike.linalg.vector_norm(t, norm_type) for t in tensors]
    first_device = tensors[0].device
    total = torchlike.linalg.vector_norm(torchlike.stack([n.to(first_device) for n in norms]), norm_type)
    if error_if_nonfinite and bool(torchlike.logical_not(torchlike.isfinite(total))):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
            "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
            "anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by max_norm / (total_norm + 1e-6) when that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    coef = torchlike.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
    with torchlike.no_grad():
        if _use_foreach(foreach, "_foreach_mul_"):
            by_dtype = {}
            for g in grads:
                by_dtype.setdefault((g.device, g.dtype), []).append(g)
            for (device, dtype), group in by_dtype.items():
                torchlike._foreach_mul_(group, coef.to(device=device, dtype=dtype))
        else:
            for g in grads:
                g.mul_(coef.to(device=g.device, dtype=g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Rescales the gradients of `parameters` in place so that their global norm is
    at most max_norm; returns the global norm before clipping."""
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated spelling of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every gradient element into [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    with torchlike.no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)
