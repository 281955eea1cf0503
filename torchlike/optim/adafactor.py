"""Adafactor: Adam-like scaling with a factored second moment (row and
column averages for matrices), a relative step size and update clipping."""

import torchlike

from . import _common as C
from .optimizer import Optimizer

__all__ = ["Adafactor"]


def _rms(t):
    return t.norm(2).item() / (t.numel() ** 0.5)


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        eps1, eps2 = eps
        C.require(not isinstance(lr, torchlike.Tensor) or lr.numel() == 1, "Tensor lr must be 1-element")
        C.require(C.as_float(lr) >= 0.0, f"Learning rate should be >= 0 but is: {lr}")
        C.require(beta2_decay <= 0.0, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        C.require(eps1 is None or eps1 >= 0.0, f"epsilon1 should be >= 0 but is: {eps1}")
        C.require(eps2 >= 0.0, f"epsilon2 should be >= 0 but is: {eps2}")
        C.require(d >= 1.0, f"Clipping threshold d should be >= 1 but is: {d}")
        C.require(weight_decay >= 0.0, f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adafactor step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            lr = C.as_float(group["lr"])
            eps1, eps2 = group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad.neg() if group["maximize"] else p.grad
                if p.dim() == 0:
                    raise RuntimeError("Adafactor does not support 0-dim parameters")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    if p.dim() > 1:
                        # Statistics over the last two dims; leading dims batch.
                        state["row_var"] = p.new_zeros(tuple(p.shape[:-1]) + (1,))
                        state["col_var"] = p.new_zeros(tuple(p.shape[:-2]) + (1, p.shape[-1]))
                    else:
                        state["variance"] = torchlike.zeros_like(p)
                state["step"].add_(1)
                n = state["step"].item()
                floor = torchlike.finfo(p.dtype).eps if eps1 is None else eps1

                # Decay rate of the second moment grows towards 1 with t.
                keep = 1 - n ** group["beta2_decay"]
                rel_step = min(lr, 1 / (n ** 0.5))
                step_size = max(eps2, _rms(p)) * rel_step
                wd = group["weight_decay"]
                if wd != 0:
                    p.mul_(1 - lr * wd)

                square = grad * grad
                if p.dim() > 1:
                    row, col = state["row_var"], state["col_var"]
                    row.lerp_(square.mean(dim=-1, keepdim=True), 1 - keep)
                    col.lerp_(square.mean(dim=-2, keepdim=True), 1 - keep)
                    estimate = torchlike.matmul(row, col)
                    estimate.div_(row.mean(dim=-2, keepdim=True).clamp(min=floor))
                else:
                    state["variance"].lerp_(square, 1 - keep)
                    estimate = state["variance"].clone()
                update = estimate.clamp(min=floor * floor).rsqrt().mul(grad)
                shrink = max(1.0, _rms(update) / group["d"])
                p.add_(update, alpha=-step_size / shrink)
        return loss
