"""swap_in_optimizer_params_and_state: run optimizer code against other
parameter tensors and another state dict, then put the live ones back."""

import contextlib
from collections import defaultdict

import torchlike

__all__ = ["swap_in_optimizer_params_and_state"]


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Temporarily replace an optimizer's parameters and state.

    swapin_parameters: tensors (a dict, in the optimizer's parameter order, or
    a sequence) that stand in for the live parameters. swapin_optim_state: a
    state_dict()-shaped dict whose tensors are used as they are (not copied),
    so in-place updates made inside the block land in it. On exit the live
    param_groups and state are restored.
    """
    replacements = list(swapin_parameters.values()
                        if isinstance(swapin_parameters, dict) else swapin_parameters)
    live_groups = optimizer.param_groups
    live_state = optimizer.state
    count = sum(len(g["params"]) for g in live_groups)
    if len(replacements) != count:
        raise ValueError(f"swap_in_optimizer_params_and_state: expected {count} parameters, "
                         f"got {len(replacements)}")
    for t in replacements:
        if not isinstance(t, torchlike.Tensor):
            raise TypeError("swap_in_optimizer_params_and_state: parameters must be Tensors, "
                            f"got {type(t).__name__}")
    saved_groups = swapin_optim_state["param_groups"]
    if len(saved_groups) != len(live_groups):
        raise ValueError("loaded state dict has a different number of parameter groups")

    by_index = {}
    new_groups = []
    position = 0
    for live, saved in zip(live_groups, saved_groups):
        if len(saved["params"]) != len(live["params"]):
            raise ValueError("loaded state dict contains a parameter group that doesn't "
                             "match the size of optimizer's group")
        params = replacements[position:position + len(live["params"])]
        position += len(live["params"])
        for index, p in zip(saved["params"], params):
            by_index[index] = p
        group = {k: v for k, v in saved.items() if k != "params"}
        new_groups.append(dict(params=params, **group))
    new_state = defaultdict(dict)
    for index, value in swapin_optim_state["state"].items():
        new_state[by_index.get(index, index)] = value

    optimizer.param_groups = new_groups
    optimizer.state = new_state
    try:
        yield optimizer
    finally:
        optimizer.param_groups = live_groups
        optimizer.state = live_state
