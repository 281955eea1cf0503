"""Muon: momentum SGD whose update for each 2-D weight is orthogonalized by
a few Newton-Schulz iterations (computed in bfloat16)."""

import math

import torchlike

from . import _common as C
from .optimizer import Optimizer

__all__ = ["Muon"]

_LR_RULES = (None, "original", "match_rms_adamw")


def _orthogonalize(update, coefficients, steps, eps):
    """Approximate U V^T of update = U S V^T with the quintic Newton-Schulz
    iteration X <- a X + (b A + c A^2) X, A = X X^T, run on the wide
    orientation so A is the smaller Gram matrix."""
    a, b, c = coefficients
    x = update.to(torchlike.bfloat16)
    tall = update.size(0) > update.size(1)
    if tall:
        x = x.T
    x = x.div(x.norm().clamp(min=eps))
    for _ in range(steps):
        gram = x @ x.T
        poly = torchlike.addmm(gram, gram, gram, beta=b, alpha=c)
        x = torchlike.addmm(x, poly, x, beta=a)
    if tall:
        x = x.T
    return x


def _scaled_lr(lr, rule, shape):
    rows, cols = shape[:2]
    if rule is None or rule == "original":
        return lr * math.sqrt(max(1, rows / cols))
    # "match_rms_adamw": scale so the update RMS matches AdamW's typical 0.2.
    return lr * 0.2 * math.sqrt(max(rows, cols))


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None):
        C.require(not isinstance(lr, torchlike.Tensor) or lr.numel() == 1, "Tensor lr must be 1-element")
        C.require(C.as_float(lr) >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        C.require(momentum >= 0.0, f"momentum should be >= 0 but is: {momentum}")
        C.require(weight_decay >= 0.0, f"weight decay should be >= 0 but is: {weight_decay}")
        C.require(adjust_lr_fn in _LR_RULES, f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                        nesterov=nesterov, ns_coefficients=ns_coefficients, eps=eps,
                        ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found "
                                     f"a parameter with size: {p.size()}")

    def step(self, closure=None):
        """One Muon step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            lr = C.as_float(group["lr"])
            momentum = group["momentum"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if grad.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torchlike.zeros_like(grad)
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - momentum)
                direction = grad.lerp(buf, momentum) if group["nesterov"] else buf
                ortho = _orthogonalize(direction, group["ns_coefficients"],
                                       group["ns_steps"], group["eps"])
                rate = _scaled_lr(lr, group["adjust_lr_fn"], p.shape)
                p.mul_(1 - lr * group["weight_decay"])
                p.add_(ortho, alpha=-rate)
        return loss
