"""Stochastic gradient descent with optional momentum (heavy-ball or
Nesterov), dampening, L2 weight decay and maximization."""

from . import _common as C
from ._listops import pick
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None,
                 differentiable=False, fused=None):
        C.check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        C.check_nonneg(weight_decay, "weight_decay")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
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
