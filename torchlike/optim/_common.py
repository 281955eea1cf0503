"""Helpers shared by the optimizers: argument checks with PyTorch's messages,
scalar unwrapping of tensor hyperparameters, and choosing between the
multi-tensor (foreach) and per-tensor update paths."""

import torchlike


def as_float(value):
    """A hyperparameter that may be a 0-dim/1-element tensor, as a Python number."""
    if isinstance(value, torchlike.Tensor):
        return value.item()
    return value


def require(ok, message):
    """ValueError(message) unless ok: the optimizers' argument checks."""
    if not ok:
        raise ValueError(message)


def check_lr(lr):
    if isinstance(lr, torchlike.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= as_float(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def check_nonneg(value, what):
    """'Invalid <what> value: v' unless value >= 0."""
    if not 0.0 <= as_float(value):
        raise ValueError(f"Invalid {what} value: {value}")


def check_eps(eps):
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")


def check_beta(betas, index):
    beta = as_float(betas[index])
    if not 0.0 <= beta < 1.0:
        raise ValueError(f"Invalid beta parameter at index {index}: {betas[index]}")


def check_fused_foreach(fused, foreach, differentiable):
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")


def reject_capturable_on_cpu(params):
    """CPU tensors cannot take part in graph capture; PyTorch says so at step."""
    if any(p.device.type == "cpu" for p in params):
        raise AssertionError(
            "If capturable=True, params and state_steps must be on supported "
            "devices: ['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'].")


def use_foreach(group):
    """The multi-tensor path is torchlike's default on every device: its
    foreach kernels loop over the whole list in one native call, and fused=True
    takes it too. foreach=False (or differentiable=True, which needs autograd
    through every op) selects the per-tensor path; both give the same numbers."""
    choice = group.get("foreach")
    if group.get("differentiable"):
        if choice:
            raise AssertionError("_foreach ops don't support autograd")
        return False
    if choice is None:
        return True
    return bool(choice) or bool(group.get("fused"))


def grads_of(group):
    """(params, grads) for the group's parameters that have a gradient."""
    params, grads = [], []
    for p in group["params"]:
        if p.grad is None:
            continue
        params.append(p)
        grads.append(p.grad)
    return params, grads


def check_betas_kind(betas):
    tensors = [isinstance(b, torchlike.Tensor) for b in betas]
    if any(tensors) and not all(tensors):
        raise ValueError("betas must be either both floats or both Tensors")


def advance_steps(steps, foreach=False):
    """Add one to each float32 step counter; returns the new counts as
    Python floats (the bias corrections are computed in double precision)."""
    if foreach and steps:
        torchlike._foreach_add_(steps, 1.0)
    else:
        for t in steps:
            t.add_(1)
    return [t.item() for t in steps]


def new_step_counter():
    """Optimizers count steps in a float32 scalar tensor, as PyTorch does, so
    their state dicts load into each other."""
    return torchlike.tensor(0.0, dtype=torchlike.float32)


def tensor_step(state):
    """state["step"] as the float32 tensor counter, converting a plain number
    (a state dict saved with integer steps) in place."""
    if not isinstance(state["step"], torchlike.Tensor):
        state["step"] = torchlike.tensor(float(state["step"]), dtype=torchlike.float32)
    return state["step"]


def prepared_grads(ops, group, params, grads, decoupled=False):
    """The gradients after maximize (negation) and weight decay: decoupled
    shrinks the parameters in place, L2 adds wd * param to the gradient."""
    if group["maximize"]:
        grads = ops.neg(grads)
    wd = as_float(group["weight_decay"])
    if wd != 0:
        if decoupled:
            ops.mul_(params, 1 - as_float(group["lr"]) * wd)
        else:
            grads = ops.add(grads, params, alpha=wd)
    return grads


def closure_loss(closure):
    if closure is None:
        return None
    with torchlike.enable_grad():
        return closure()
