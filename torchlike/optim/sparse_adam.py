"""SparseAdam: lazy Adam for sparse gradients (embedding tables). Only the
rows a gradient touches have their moments and values updated."""

import math

import torchlike

from . import _common as C
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        C.check_lr(lr)
        C.check_eps(eps)
        C.check_beta(betas, 0)
        C.check_beta(betas, 1)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        sparse_positions = [
            [g, i]
            for g, group in enumerate(self.param_groups)
            for i, p in enumerate(group["params"])
            if getattr(p, "is_sparse", False)]
        if sparse_positions:
            raise ValueError(f"Sparse params at indices {sparse_positions}: SparseAdam "
                             "requires dense parameter tensors")

    def step(self, closure=None):
        """One lazy Adam step over the rows present in each sparse gradient."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps = C.as_float(group["lr"]), group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                if not getattr(grad, "is_sparse", False):
                    raise RuntimeError("SparseAdam does not support dense gradients, "
                                       "please consider Adam instead")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torchlike.zeros_like(p)
                    state["exp_avg_sq"] = torchlike.zeros_like(p)
                state["step"] += 1
                n = state["step"]
                grad = grad.coalesce()
                rows = grad._indices()
                values = grad._values()
                if group["maximize"]:
                    values = values.neg()
                self._lazy_update(p, state, rows, values, beta1, beta2,
                                  lr * math.sqrt(1 - beta2 ** n) / (1 - beta1 ** n), eps)
        return loss

    @staticmethod
    def _lazy_update(p, state, rows, values, beta1, beta2, rate, eps):
        """Adam on the gathered rows only; untouched rows keep their moments."""
        index = rows[0]
        avg = state["exp_avg"].index_select(0, index)
        sq = state["exp_avg_sq"].index_select(0, index)
        avg_step = values.sub(avg).mul_(1 - beta1)
        sq_step = values.mul(values).sub_(sq).mul_(1 - beta2)
        avg.add_(avg_step)
        sq.add_(sq_step)
        state["exp_avg"].index_add_(0, index, avg_step)
        state["exp_avg_sq"].index_add_(0, index, sq_step)
        p.index_add_(0, index, avg.div_(sq.sqrt_().add_(eps)).mul_(-rate))
