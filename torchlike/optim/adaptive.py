"""Per-coordinate adaptive learning rates from running squared gradients:
RMSprop (optionally centered, with momentum), Adagrad and Adadelta."""

import torchlike

from . import _common as C
from ._listops import pick
from .optimizer import Optimizer

__all__ = ["RMSprop", "Adagrad", "Adadelta"]


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        C.check_lr(lr)
        C.check_eps(eps)
        C.check_nonneg(momentum, "momentum")
        C.check_nonneg(weight_decay, "weight_decay")
        C.check_nonneg(alpha, "alpha")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RMSprop step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            momentum, centered = group["momentum"], group["centered"]
            steps, squares, bufs, means = [], [], [], []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    state["square_avg"] = torchlike.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = torchlike.zeros_like(p)
                    if centered:
                        state["grad_avg"] = torchlike.zeros_like(p)
                steps.append(C.tensor_step(state))
                squares.append(state["square_avg"])
                if momentum > 0:
                    bufs.append(state["momentum_buffer"])
                if centered:
                    means.append(state["grad_avg"])
            C.advance_steps(steps, foreach)
            lr, alpha = C.as_float(group["lr"]), group["alpha"]

            grads = C.prepared_grads(ops, group, params, grads)
            ops.mul_(squares, alpha)
            ops.addcmul_(squares, grads, grads, 1 - alpha)
            if centered:
                ops.lerp_(means, grads, 1 - alpha)
                # Variance estimate: E[g^2] - E[g]^2.
                spread = ops.clone(squares)
                ops.addcmul_(spread, means, means, -1)
                denom = ops.sqrt(spread)
            else:
                denom = ops.sqrt(squares)
            ops.add_scalar_(denom, group["eps"])
            if momentum > 0:
                ops.mul_(bufs, momentum)
                ops.addcdiv_(bufs, grads, denom, 1)
                ops.add_(params, bufs, alpha=-lr)
            else:
                ops.addcdiv_(params, grads, denom, -lr)
        return loss


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        C.check_lr(lr)
        C.check_nonneg(lr_decay, "lr_decay")
        C.check_nonneg(weight_decay, "weight_decay")
        C.check_nonneg(initial_accumulator_value, "initial_accumulator_value")
        C.check_eps(eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        C.check_fused_foreach(fused, foreach, differentiable)
        # Adagrad's accumulators exist from construction, as in PyTorch.
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = C.new_step_counter()
                state["sum"] = torchlike.full_like(p, group["initial_accumulator_value"])

    def share_memory(self):
        """Move the accumulators to shared memory (for Hogwild-style training)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def step(self, closure=None):
        """One Adagrad step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            steps = [C.tensor_step(self.state[p]) for p in params]
            sums = [self.state[p]["sum"] for p in params]
            counts = C.advance_steps(steps, foreach)
            lr, lr_decay = C.as_float(group["lr"]), group["lr_decay"]

            grads = C.prepared_grads(ops, group, params, grads)
            ops.addcmul_(sums, grads, grads, 1)
            denom = ops.sqrt(sums)
            ops.add_scalar_(denom, group["eps"])
            rates = [-lr / (1 + (n - 1) * lr_decay) for n in counts]
            ops.addcdiv_(params, grads, denom, rates)
        return loss


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        C.check_lr(lr)
        C.require(0.0 <= rho <= 1.0, f"Invalid rho value: {rho}")
        C.check_eps(eps)
        C.check_nonneg(weight_decay, "weight_decay")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Adadelta step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            steps, squares, deltas = [], [], []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    state["square_avg"] = torchlike.zeros_like(p)
                    state["acc_delta"] = torchlike.zeros_like(p)
                steps.append(C.tensor_step(state))
                squares.append(state["square_avg"])
                deltas.append(state["acc_delta"])
            C.advance_steps(steps, foreach)
            lr, rho, eps = C.as_float(group["lr"]), group["rho"], group["eps"]

            grads = C.prepared_grads(ops, group, params, grads)
            ops.mul_(squares, rho)
            ops.addcmul_(squares, grads, grads, 1 - rho)
            # update = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * grad
            rms_grad = ops.clone(squares)
            ops.add_scalar_(rms_grad, eps)
            rms_grad = ops.sqrt(rms_grad)
            update = ops.clone(deltas)
            ops.add_scalar_(update, eps)
            update = ops.sqrt(update)
            ops.div_list_(update, rms_grad)
            ops.mul_list_(update, grads)
            ops.mul_(deltas, rho)
            ops.addcmul_(deltas, update, update, 1 - rho)
            ops.add_(params, update, alpha=-lr)
        return loss
