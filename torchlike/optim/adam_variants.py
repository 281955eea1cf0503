"""Adam's relatives: Adamax (infinity-norm second moment), NAdam (Nesterov
momentum schedule) and RAdam (variance-rectified warm-up)."""

import math

import torchlike

from . import _common as C
from ._listops import pick
from .optimizer import Optimizer

__all__ = ["Adamax", "NAdam", "RAdam"]


def _check_adam_like(lr, betas, eps, weight_decay):
    C.check_lr(lr)
    C.check_eps(eps)
    C.check_beta(betas, 0)
    C.check_beta(betas, 1)
    C.check_nonneg(weight_decay, "weight_decay")


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adamax step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            steps, avgs, infs = [], [], []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    state["exp_avg"] = torchlike.zeros_like(p)
                    state["exp_inf"] = torchlike.zeros_like(p)
                steps.append(C.tensor_step(state))
                avgs.append(state["exp_avg"])
                infs.append(state["exp_inf"])
            counts = C.advance_steps(steps, foreach)
            beta1, beta2 = group["betas"]
            lr = C.as_float(group["lr"])

            grads = C.prepared_grads(ops, group, params, grads, decoupled=False)
            ops.lerp_(avgs, grads, 1 - beta1)
            # exp_inf = max(beta2 * exp_inf, |g| + eps)
            ops.mul_(infs, beta2)
            magnitudes = ops.abs(grads)
            ops.add_scalar_(magnitudes, group["eps"])
            ops.maximum_(infs, magnitudes)
            rates = [-lr / (1 - beta1 ** n) for n in counts]
            ops.addcdiv_(params, avgs, infs, rates)
        return loss


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        C.check_nonneg(momentum_decay, "momentum_decay")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One NAdam step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            steps, products, avgs, sqs = [], [], [], []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    state["mu_product"] = torchlike.tensor(1.0, dtype=torchlike.float32)
                    state["exp_avg"] = torchlike.zeros_like(p)
                    state["exp_avg_sq"] = torchlike.zeros_like(p)
                steps.append(C.tensor_step(state))
                products.append(state["mu_product"])
                avgs.append(state["exp_avg"])
                sqs.append(state["exp_avg_sq"])
            counts = C.advance_steps(steps, foreach)
            beta1, beta2 = group["betas"]
            lr, decay = C.as_float(group["lr"]), group["momentum_decay"]

            grads = C.prepared_grads(ops, group, params, grads, group["decoupled_weight_decay"])
            ops.lerp_(avgs, grads, 1 - beta1)
            ops.mul_(sqs, beta2)
            ops.addcmul_(sqs, grads, grads, 1 - beta2)

            grad_rates, avg_rates, corrections = [], [], []
            for n, product in zip(counts, products):
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (n * decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((n + 1) * decay))
                # The running product of mu lives in a float32 scalar tensor
                # (part of the state dict), so it is rounded each step.
                product.mul_(mu)
                prod = product.item()
                grad_rates.append(-lr * (1.0 - mu) / (1.0 - prod))
                avg_rates.append(-lr * mu_next / (1.0 - prod * mu_next))
                corrections.append(1 - beta2 ** n)
            denom = ops.clone(sqs)
            ops.div_(denom, corrections)
            denom = ops.sqrt(denom)
            ops.add_scalar_(denom, group["eps"])
            ops.addcdiv_(params, grads, denom, grad_rates)
            ops.addcdiv_(params, avgs, denom, avg_rates)
        return loss


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RAdam step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            steps, avgs, sqs = [], [], []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    state["exp_avg"] = torchlike.zeros_like(p)
                    state["exp_avg_sq"] = torchlike.zeros_like(p)
                steps.append(C.tensor_step(state))
                avgs.append(state["exp_avg"])
                sqs.append(state["exp_avg_sq"])
            counts = C.advance_steps(steps, foreach)
            beta1, beta2 = group["betas"]
            lr = C.as_float(group["lr"])

            grads = C.prepared_grads(ops, group, params, grads, group["decoupled_weight_decay"])
            ops.lerp_(avgs, grads, 1 - beta1)
            ops.mul_(sqs, beta2)
            ops.addcmul_(sqs, grads, grads, 1 - beta2)

            # Length of the approximated simple moving average; the adaptive
            # term is used only once it exceeds 5 (the variance is tractable).
            rho_inf = 2 / (1 - beta2) - 1
            rect_p, rect_avg, rect_rates, plain_p, plain_avg, plain_rates = [], [], [], [], [], []
            for p, avg, n in zip(params, avgs, counts):
                correction1 = 1 - beta1 ** n
                correction2 = 1 - beta2 ** n
                rho_t = rho_inf - 2 * n * (beta2 ** n) / correction2
                if rho_t > 5.0:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                                     / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    rect_p.append(p)
                    rect_avg.append(avg)
                    rect_rates.append(-lr * rect * math.sqrt(correction2) / correction1)
                else:
                    plain_p.append(p)
                    plain_avg.append(avg)
                    plain_rates.append(-lr / correction1)
            if rect_p:
                rect_sqs = [self.state[p]["exp_avg_sq"] for p in rect_p]
                denom = ops.sqrt(rect_sqs)
                ops.add_scalar_(denom, group["eps"])
                ops.addcdiv_(rect_p, rect_avg, denom, rect_rates)
            if plain_p:
                ops.add_(plain_p, plain_avg, alpha=plain_rates)
        return loss
