"""The hook-based weight normalisation (deprecated in PyTorch in favour of
parametrizations.weight_norm, and kept for the models and checkpoints that use it).

weight_norm(module) replaces module.<name> by two parameters, <name>_g (magnitude)
and <name>_v (direction), and installs a forward pre-hook that recomputes the plain
tensor attribute module.<name> = g * v / |v| before every forward.
"""
import warnings

import torchlike
from torchlike.nn.parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _magnitude(v, dim):
    # dim=-1 (PyTorch's spelling of None here) takes the norm of the whole tensor.
    if dim == -1:
        return torchlike.linalg.vector_norm(v)
    return torchlike.norm_except_dim(v, 2, dim)


class WeightNorm:
    """The pre-hook object: knows the tensor name and the kept dimension."""

    name: str
    dim: int

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _magnitude(v, self.dim))

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        norm = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, torchlike.nn.parameter.UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        with torchlike.no_grad():
            g = _magnitude(weight, norm.dim)
        module.register_parameter(name + "_g", Parameter(g.detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, norm.compute_weight(module))
        module.register_forward_pre_hook(norm)
        return norm

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Splits module.<name> into <name>_g = |w| (per slice along dim; dim=None for one
    norm of the whole tensor) and <name>_v = w, recombined before every forward."""
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undoes weight_norm: module.<name> becomes a Parameter holding the current value."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
