"""functional_call: run a module with some of its parameters and buffers replaced.

The replacement tensors are put straight into the owning modules' parameter/buffer
tables for the duration of the call (so named_parameters() and state_dict() inside
forward see them, whatever their type), then the previous entries are put back, also
when forward raises. A name that is neither a parameter nor a buffer becomes a plain
attribute for the call; a parametrized tensor is overridden as a whole.
"""
import contextlib
import warnings

from torchlike._tensor import Tensor
from torchlike.nn.utils import parametrize

__all__ = ["functional_call"]


def _owner_and_leaf(module, dotted):
    """(module owning the last component, last component) for 'a.b.weight'."""
    *path, leaf = dotted.split(".")
    owner = module
    for part in path:
        child = owner._modules.get(part) if isinstance(owner.__dict__.get("_modules"), dict) else None
        if child is None:
            child = getattr(owner, part, None)
        if child is None or not hasattr(child, "_parameters"):
            raise AttributeError(f"{type(owner).__name__} has no attribute `{part}`")
        owner = child
    return owner, leaf


def _tied_groups(module):
    """Lists of names under which one tensor object is reachable (two or more names)."""
    by_tensor = {}
    members = list(module.named_parameters(remove_duplicate=False)) + \
        list(module.named_buffers(remove_duplicate=False))
    for name, tensor in members:
        by_tensor.setdefault(id(tensor), []).append(name)
    return [names for names in by_tensor.values() if len(names) > 1]


def _expand_tied(module, replacements):
    """With tie_weights: a value given for one name of a tied tensor applies to all its
    names; different values for names of one tied tensor are ambiguous."""
    expanded = dict(replacements)
    for names in _tied_groups(module):
        given = [n for n in names if n in replacements]
        if not given:
            continue
        values = {id(replacements[n]) for n in given}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                             "Consider using tie_weights=False")
        value = replacements[given[0]]
        for n in names:
            expanded.setdefault(n, value)
    return expanded


def _check_strict(module, replacements):
    expected = [n for n, _ in module.named_parameters(remove_duplicate=False)]
    expected += [n for n, _ in module.named_buffers(remove_duplicate=False)]
    expected_set = set(expected)
    unexpected = sorted(k for k in replacements if k not in expected_set)
    missing = sorted(k for k in expected_set if k not in replacements)
    problems = []
    if unexpected:
        problems.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
    if missing:
        problems.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
    if problems:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(problems))


_MISSING = object()


@contextlib.contextmanager
def _swapped(module, replacements):
    """Installs the replacements; restores what was there on exit."""
    undo = []
    try:
        for name, value in replacements.items():
            owner, leaf = _owner_and_leaf(module, name)
            if leaf in owner._parameters:
                undo.append((owner._parameters, leaf, owner._parameters[leaf]))
                owner._parameters[leaf] = value
            elif leaf in owner._buffers:
                undo.append((owner._buffers, leaf, owner._buffers[leaf]))
                owner._buffers[leaf] = value
            elif parametrize.is_parametrized(owner, leaf):
                key = (id(owner), leaf)
                undo.append((parametrize._overrides, key, parametrize._overrides.get(key, _MISSING)))
                parametrize._overrides[key] = value
            else:
                undo.append((owner.__dict__, leaf, owner.__dict__.get(leaf, _MISSING)))
                owner.__dict__[leaf] = value
        yield
    finally:
        for table, key, previous in reversed(undo):
            if previous is _MISSING:
                table.pop(key, None)
            else:
                table[key] = previous


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """functional_call without the deprecation warning (parameters_and_buffers may also
    be a sequence of dicts, merged; a key in two of them is an error)."""
    if isinstance(parameters_and_buffers, (list, tuple)):
        merged, seen_twice = {}, []
        for d in parameters_and_buffers:
            for k, v in d.items():
                if k in merged:
                    seen_twice.append(k)
                merged[k] = v
        if seen_twice:
            raise ValueError(f"{sorted(set(seen_twice))} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        parameters_and_buffers = merged
    replacements = dict(parameters_and_buffers)
    if tie_weights:
        replacements = _expand_tied(module, replacements)
    if strict:
        _check_strict(module, replacements)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    for name, value in replacements.items():
        if not isinstance(value, Tensor) and value is not None:
            raise TypeError(f"functional_call: the value for '{name}' must be a Tensor, "
                            f"got {type(value).__name__}")
    with _swapped(module, replacements):
        return module(*args, **kwargs)


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Calls module(*args, **kwargs) with the named parameters and buffers replaced by
    the given tensors (the module itself is left as it was). With tie_weights a value
    given under one name of a shared tensor is used under all its names; with strict
    every parameter and buffer must be given and nothing else."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
                  "removed in a future version of PyTorch. Please use `torch.func.functional_call` instead "
                  "which is a drop-in replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                            strict=strict)
