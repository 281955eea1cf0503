"""The Optimizer base class: parameter groups, per-parameter state, hooks and
PyTorch-format state dicts.

Concrete optimizers subclass `Optimizer`, fill `defaults` with their
hyperparameters and implement `step`. Every subclass's `step` is wrapped once
(in `__init_subclass__`) so the step pre/post hooks run around it and the
body runs with autograd recording off unless the optimizer is
`differentiable`.
"""

import functools
import warnings
from collections import defaultdict
from itertools import chain

import torchlike
from torchlike.autograd._hooks import RemovableHandle

__all__ = [
    "Optimizer",
    "required",
    "register_optimizer_step_pre_hook",
    "register_optimizer_step_post_hook",
]


class _RequiredParameter:
    """Sentinel default for a hyperparameter every group must set itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# Hooks that run around every optimizer's step, keyed by a running id so a
# handle can remove exactly the one it registered.
_all_step_pre_hooks = {}
_all_step_post_hooks = {}
_hook_ids = iter(range(1 << 62))


def _add_hook(table, hook, prepend=False):
    key = next(_hook_ids)
    if prepend:
        items = list(table.items())
        table.clear()
        table[key] = hook
        table.update(items)
    else:
        table[key] = hook
    return RemovableHandle(lambda: table.pop(key, None))


def register_optimizer_step_pre_hook(hook):
    """Run `hook(optimizer, args, kwargs)` before every optimizer's step."""
    return _add_hook(_all_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Run `hook(optimizer, args, kwargs)` after every optimizer's step."""
    return _add_hook(_all_step_post_hooks, hook)


def _type_name(obj):
    if isinstance(obj, torchlike.Tensor):
        return torchlike.typename(obj)
    return type(obj).__name__


def _hooked_step(raw_step):
    """Wrap a subclass's step with the global and per-instance step hooks.

    As in PyTorch, hooks see the call's positional arguments with the
    optimizer first: hook(optimizer, (optimizer, *args), kwargs). A pre hook
    may return replacement (args, kwargs), which the step is then called with.
    """

    @functools.wraps(raw_step)
    def step(self, *args, **kwargs):
        # A subclass step that calls super().step() must not fire hooks twice.
        if getattr(self, "_inside_hooked_step", False):
            return raw_step(self, *args, **kwargs)
        call_args = (self,) + args
        for hook in chain(list(_all_step_pre_hooks.values()),
                          list(self._optimizer_step_pre_hooks.values())):
            replaced = hook(self, call_args, kwargs)
            if replaced is None:
                continue
            if isinstance(replaced, tuple) and len(replaced) == 2:
                call_args, kwargs = replaced
            else:
                raise RuntimeError(
                    f"{raw_step} must return None or a tuple of (new_args, "
                    f"new_kwargs), but got {replaced}.")
        self._inside_hooked_step = True
        try:
            differentiable = self.defaults.get("differentiable", False)
            with torchlike.set_grad_enabled(bool(differentiable)):
                result = raw_step(*call_args, **kwargs)
        finally:
            self._inside_hooked_step = False
        self._opt_called = True
        for hook in chain(list(self._optimizer_step_post_hooks.values()),
                          list(_all_step_post_hooks.values())):
            hook(self, call_args, kwargs)
        return result

    step._optim_hooked = True
    return step


class Optimizer:
    """Base class for all optimizers.

    params: an iterable of Tensors, of (name, Tensor) pairs, or of dicts that
    each define a parameter group. defaults: the hyperparameters a group takes
    when it does not set them itself.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own_step = cls.__dict__.get("step")
        if own_step is not None and not getattr(own_step, "_optim_hooked", False):
            cls.step = _hooked_step(own_step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._init_hook_tables()
        if isinstance(params, torchlike.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable "
                "of Tensors or dicts, but got " + _type_name(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def _init_hook_tables(self):
        self._optimizer_step_pre_hooks = {}
        self._optimizer_step_post_hooks = {}
        self._optimizer_state_dict_pre_hooks = {}
        self._optimizer_state_dict_post_hooks = {}
        self._optimizer_load_state_dict_pre_hooks = {}
        self._optimizer_load_state_dict_post_hooks = {}

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "_optimizer_step_pre_hooks" not in self.__dict__:
            self._init_hook_tables()
        # Groups saved before an option existed take its default.
        for group in self.param_groups:
            for name, value in self.defaults.items():
                if value is not required:
                    group.setdefault(name, value)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for index, group in enumerate(self.param_groups):
            if index:
                lines.append("")
            lines.append(f"Parameter Group {index}")
            for key in sorted(group):
                if key == "params":
                    continue
                value = group[key]
                # A 0-dim tensor hyperparameter (tensor lr) prints as its number.
                if isinstance(value, torchlike.Tensor) and value.dim() == 0:
                    value = value.item()
                lines.append(f"    {key}: {value}")
        lines.append(")")
        return "\n".join(lines)

    # ------------------------------------------------------------ param groups
    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with 'params' and optional
        per-group hyperparameters) to the optimizer."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        raw = param_group["params"]
        if isinstance(raw, torchlike.Tensor):
            raw = [raw]
        elif isinstance(raw, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered "
                "collections, but the ordering of tensors in sets will change "
                "between runs. Please use a list instead.")
        else:
            raw = list(raw)

        names = None
        if any(isinstance(entry, tuple) for entry in raw):
            if not all(isinstance(entry, tuple) and len(entry) == 2 for entry in raw):
                raise ValueError("all optimizer params should be with/without "
                                 "names. Some param names are missing")
            names = [entry[0] for entry in raw]
            raw = [entry[1] for entry in raw]

        differentiable = self.defaults.get("differentiable", None)
        for p in raw:
            if not isinstance(p, torchlike.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one "
                                "of the params is " + _type_name(p))
            if not differentiable and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        # Rebuild the dict so 'params' (and 'param_names') come first, as
        # PyTorch's groups do; the caller's dict object is updated in place.
        extra = {k: v for k, v in param_group.items()
                 if k not in ("params", "param_names")}
        param_group.clear()
        param_group["params"] = raw
        if names is not None:
            param_group["param_names"] = names
        param_group.update(extra)

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of "
                                 "required optimization parameter " + name)
            param_group.setdefault(name, default)

        if len({id(p) for p in raw}) != len(raw):
            warnings.warn(
                "optimizer contains a parameter group with duplicate "
                "parameters; in future, this will cause an error; see "
                "github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3)

        taken = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in taken for p in raw):
            raise ValueError("some parameters appear in more than one parameter group")

        if self.param_groups:
            existing_named = "param_names" in self.param_groups[0]
            if existing_named != (names is not None):
                which = "with" if names is not None else "without"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} names to the optimizer")

        self.param_groups.append(param_group)

    # ---------------------------------------------------------------- gradients
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every optimized parameter (to None by
        default, else to zeros, detached from any graph)."""
        to_zero = []
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                to_zero.append(grad)
        if to_zero:
            foreach_zero = getattr(torchlike, "_foreach_zero_", None)
            if foreach_zero is not None:
                for bucket in _bucket_by_device_dtype(to_zero).values():
                    foreach_zero(bucket)
            else:
                for g in to_zero:
                    g.zero_()

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the loss."""
        raise NotImplementedError

    # ---------------------------------------------------------------- hooks
    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs before step; it may return a
        replacement `(args, kwargs)`."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs after step."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer)` runs before state_dict builds its result."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict)` runs on state_dict's result and may
        return a replacement."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict)` runs before loading and may return a
        replacement state dict."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer)` runs after loading."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------ state dicts
    def state_dict(self):
        """The optimizer's state as a dict: 'state' maps each parameter's
        position (counted across groups) to its state, 'param_groups' holds
        each group's hyperparameters with 'params' as positions."""
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)

        position = {}
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            indices = []
            for p in group["params"]:
                if id(p) not in position:
                    position[id(p)] = len(position)
                indices.append(position[id(p)])
            packed["params"] = indices
            packed_groups.append(packed)

        packed_state = {}
        for key, value in self.state.items():
            if isinstance(key, torchlike.Tensor):
                packed_state[position[id(key)]] = value
            else:
                packed_state[key] = value

        result = {"state": packed_state, "param_groups": packed_groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            replaced = hook(self, result)
            if replaced is not None:
                result = replaced
        return result

    def load_state_dict(self, state_dict):
        """Load a state produced by state_dict() (torchlike's or PyTorch's)."""
        state_dict = dict(state_dict)
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            replaced = hook(self, state_dict)
            if replaced is not None:
                state_dict = replaced

        groups = self.param_groups
        # Copies, so later edits of the loaded groups (a scheduler changing lr,
        # names lists) do not write into the caller's state dict.
        saved_groups = [{k: list(v) if isinstance(v, list) else v for k, v in g.items()}
                        for g in state_dict["param_groups"]]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for mine, saved in zip(groups, saved_groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group "
                                 "that doesn't match the size of optimizer's group")

        param_at = {}
        group_of = {}
        for mine, saved in zip(groups, saved_groups):
            for index, p in zip(saved["params"], mine["params"]):
                param_at[index] = p
                group_of[index] = mine

        new_state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_at:
                p = param_at[key]
                new_state[p] = _cast_state(p, value, group_of[key], None)
            else:
                new_state[key] = value

        # The loaded hyperparameters (and parameter names, if saved) replace
        # the group's; the parameters themselves stay the live ones.
        new_groups = []
        for mine, saved in zip(groups, saved_groups):
            merged = dict(saved)
            merged["params"] = mine["params"]
            new_groups.append(merged)

        self.__setstate__({"state": new_state, "param_groups": new_groups})
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)


def _cast_state(param, value, group, key):
    """Move a loaded state value onto the parameter's device and (for floating
    parameters) dtype. A plain 'step' counter is left alone: optimizers keep it
    as a float32 scalar tensor whatever the parameter's dtype."""
    if isinstance(value, torchlike.Tensor):
        if key == "step":
            if group.get("capturable") or group.get("fused"):
                return value.to(dtype=torchlike.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, group, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not isinstance(value, str):
        cast = [_cast_state(param, v, group, key) for v in value]
        return type(value)(cast) if not hasattr(value, "_fields") else type(value)(*cast)
    return value


def _bucket_by_device_dtype(tensors):
    """Group tensors by (device, dtype) so each bucket can go to one
    multi-tensor kernel call."""
    buckets = {}
    for t in tensors:
        buckets.setdefault((str(t.device), t.dtype), []).append(t)
    return buckets
