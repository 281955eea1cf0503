"""Adam and AdamW: adaptive moment estimation, with optional AMSGrad,
L2 or decoupled weight decay, and maximization."""

import math

import torchlike

from . import _common as C
from ._listops import pick
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        C.check_lr(lr)
        C.require(not (isinstance(lr, torchlike.Tensor) and foreach and not capturable),
                  "lr as a Tensor is not supported for capturable=False and foreach=True")
        C.check_eps(eps)
        C.check_beta(betas, 0)
        C.check_beta(betas, 1)
        C.check_nonneg(weight_decay, "weight_decay")
        C.check_betas_kind(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        C.check_fused_foreach(fused, foreach, differentiable)

    def _state_lists(self, group, params):
        """Create missing state; return the per-state-key lists for params."""
        steps, avgs, sqs, maxes = [], [], [], []
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = C.new_step_counter()
                state["exp_avg"] = torchlike.zeros_like(p)
                state["exp_avg_sq"] = torchlike.zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = torchlike.zeros_like(p)
            steps.append(C.tensor_step(state))
            avgs.append(state["exp_avg"])
            sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                maxes.append(state["max_exp_avg_sq"])
        return steps, avgs, sqs, maxes

    def step(self, closure=None):
        """One Adam step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            steps, avgs, sqs, maxes = self._state_lists(group, params)
            beta1, beta2 = (C.as_float(b) for b in group["betas"])
            lr = C.as_float(group["lr"])
            wd = C.as_float(group["weight_decay"])
            counts = C.advance_steps(steps, foreach)

            if group["maximize"]:
                grads = ops.neg(grads)
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    ops.mul_(params, 1 - lr * wd)
                else:
                    grads = ops.add(grads, params, alpha=wd)

            ops.lerp_(avgs, grads, 1 - beta1)
            ops.mul_(sqs, beta2)
            ops.addcmul_(sqs, grads, grads, 1 - beta2)

            # Bias corrections in double precision, per parameter (a parameter
            # that skipped steps has its own count).
            step_sizes = [-lr / (1 - beta1 ** n) for n in counts]
            root_corrections = [math.sqrt(1 - beta2 ** n) for n in counts]
            if group["amsgrad"]:
                ops.maximum_(maxes, sqs)
                denom = ops.sqrt(maxes)
            else:
                denom = ops.sqrt(sqs)
            ops.div_(denom, root_corrections)
            ops.add_scalar_(denom, group["eps"])
            ops.addcdiv_(params, avgs, denom, step_sizes)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (weight_decay defaults to 0.01)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
