"""Stochastic gradient descent with optional momentum (heavy-ball or
Nesterov), dampening, L2 weight decay and maximization."""

import torchlike

from . import _common as C
from ._listops import pick
from .optimizer import Optimizer

__all__ = ["SGD", "ASGD", "Rprop"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None,
                 differentiable=False, fused=None):
        C.check_lr(lr)
        C.check_nonneg(momentum, "momentum")
        C.check_nonneg(weight_decay, "weight_decay")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        C.require(not nesterov or (momentum > 0 and dampening == 0),
                  "Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        C.check_fused_foreach(fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def step(self, closure=None):
        """One SGD step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            ops = pick(C.use_foreach(group))
            lr = C.as_float(group["lr"])
            wd = C.as_float(group["weight_decay"])
            momentum = group["momentum"]
            dampening = group["dampening"]

            if group["maximize"]:
                grads = ops.neg(grads)
            if wd != 0:
                grads = ops.add(grads, params, alpha=wd)

            if momentum != 0:
                fresh, fresh_grads, running, running_grads = [], [], [], []
                for p, g in zip(params, grads):
                    buf = self.state[p].get("momentum_buffer")
                    if buf is None:
                        fresh.append(p)
                        fresh_grads.append(g)
                    else:
                        running.append(buf)
                        running_grads.append(g)
                # The first step's buffer is the (decayed) gradient itself.
                for p, buf in zip(fresh, ops.clone(fresh_grads)):
                    self.state[p]["momentum_buffer"] = buf.detach()
                ops.mul_(running, momentum)
                ops.add_(running, running_grads, alpha=1 - dampening)
                bufs = [self.state[p]["momentum_buffer"] for p in params]
                if group["nesterov"]:
                    grads = ops.add(grads, bufs, alpha=momentum)
                else:
                    grads = bufs

            ops.add_(params, grads, alpha=-lr)
        return loss


class ASGD(Optimizer):
    """Averaged SGD: plain SGD steps with a decaying rate, plus a running
    (Polyak) average of the iterates kept in state['ax']."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        C.check_lr(lr)
        C.check_nonneg(weight_decay, "weight_decay")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One ASGD step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            lr = C.as_float(group["lr"])
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            states = []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    # eta and mu are float32 scalars, so their rounding is part
                    # of the algorithm (and of the state dict).
                    state["eta"] = torchlike.tensor(lr, dtype=torchlike.float32)
                    state["mu"] = torchlike.tensor(1.0, dtype=torchlike.float32)
                    state["ax"] = torchlike.zeros_like(p)
                states.append(state)
            counts = C.advance_steps([s["step"] for s in states], foreach)

            if group["maximize"]:
                grads = ops.neg(grads)
            wd = C.as_float(group["weight_decay"])
            if wd != 0:
                grads = ops.add(grads, params, alpha=wd)
            etas = [s["eta"].item() for s in states]
            ops.mul_(params, [1 - lambd * e for e in etas])
            ops.add_(params, grads, alpha=[-e for e in etas])

            copy_to, copy_from, avg_to, avg_from, weights = [], [], [], [], []
            for p, s in zip(params, states):
                mu = s["mu"].item()
                if mu != 1:
                    avg_to.append(s["ax"])
                    avg_from.append(p)
                    weights.append(mu)
                else:
                    copy_to.append(s["ax"])
                    copy_from.append(p)
            if avg_to:
                # ax += (p - ax) * mu
                gaps = ops.add(avg_from, avg_to, alpha=-1)
                ops.mul_(gaps, weights)
                ops.add_(avg_to, gaps)
            ops.copy_(copy_to, copy_from)

            for n, s in zip(counts, states):
                s["eta"].fill_(lr / ((1 + lambd * lr * n) ** alpha))
                s["mu"].fill_(1 / max(1, n - t0))
        return loss


class Rprop(Optimizer):
    """Resilient backpropagation: per-coordinate step sizes grown by etaplus
    while the gradient keeps its sign and shrunk by etaminus when it flips."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        C.check_lr(lr)
        shrink, grow = etas
        C.require(0.0 < shrink < 1.0 < grow, f"Invalid eta values: {shrink}, {grow}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One Rprop step; `closure` re-evaluates the model and returns the loss."""
        loss = C.closure_loss(closure)
        for group in self.param_groups:
            params, grads = C.grads_of(group)
            if not params:
                continue
            if group["capturable"]:
                C.reject_capturable_on_cpu(params)
            foreach = C.use_foreach(group)
            ops = pick(foreach)
            lr = C.as_float(group["lr"])
            shrink, grow = group["etas"]
            smallest, largest = group["step_sizes"]
            states = []
            for p, g in zip(params, grads):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = C.new_step_counter()
                    state["prev"] = torchlike.zeros_like(p)
                    state["step_size"] = torchlike.full_like(g, lr)
                states.append(state)
            C.advance_steps([s["step"] for s in states], foreach)
            if group["maximize"]:
                grads = ops.neg(grads)

            moves = []
            for g, s in zip(grads, states):
                agreement = g * s["prev"]
                # Built in the step sizes' dtype so etas are not rounded to float32.
                factor = torchlike.ones_like(s["step_size"])
                factor.masked_fill_(agreement > 0, grow)
                factor.masked_fill_(agreement < 0, shrink)
                s["step_size"].mul_(factor).clamp_(smallest, largest)
                # After a sign flip the coordinate rests for one step.
                g = torchlike.where(agreement < 0, torchlike.zeros_like(g), g)
                s["prev"].copy_(g)
                moves.append(g.sign())
            ops.addcmul_(params, moves, [s["step_size"] for s in states], -1)
        return loss
