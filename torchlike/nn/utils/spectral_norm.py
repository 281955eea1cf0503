"""The hook-based spectral normalisation (PyTorch's original spectral_norm).

spectral_norm(module) moves module.<name> to the parameter <name>_orig, adds the
buffers <name>_u and <name>_v (the power-iteration vectors), and installs a forward
pre-hook that sets the plain attribute module.<name> = <name>_orig / sigma before
each forward, advancing the power iteration in training mode only. State dicts carry
a version under their metadata so that checkpoints written before <name>_v existed
can still be loaded.
"""
import torchlike
import torchlike.nn.functional as F
from torchlike.nn.parameter import Parameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The pre-hook object (name, dim, n_power_iterations, eps)."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a (size(dim), -1) matrix."""
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with torchlike.no_grad():
                for _ in range(self.n_power_iterations):
                    # In place, so that data-parallel replicas see the same vectors.
                    v.copy_(F.normalize(torchlike.mv(mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(torchlike.mv(mat, v), dim=0, eps=self.eps))
                # Cloned so that the next step's in-place update does not modify
                # tensors this forward's graph saved.
                u = u.clone(memory_format=torchlike.contiguous_format)
                v = v.clone(memory_format=torchlike.contiguous_format)
        sigma = torchlike.dot(u, torchlike.mv(mat, v))
        return weight / sigma

    def remove(self, module):
        with torchlike.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # Finds v with u = normalize(W v) and u^T W v = target_sigma: the least-squares
        # solution of W^T W v = W^T u, rescaled.
        gram = weight_mat.t() @ weight_mat
        rhs = torchlike.mv(weight_mat.t(), u).unsqueeze(1)
        v = torchlike.linalg.pinv(gram) @ rhs
        v = v.squeeze(1)
        return v.mul_(target_sigma / torchlike.dot(u, torchlike.mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        norm = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if isinstance(weight, torchlike.nn.parameter.UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying spectral normalization")
        with torchlike.no_grad():
            rows, cols = norm.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(rows).normal_(0, 1), dim=0, eps=norm.eps)
            v = F.normalize(weight.new_empty(cols).normal_(0, 1), dim=0, eps=norm.eps)
        delattr(module, norm.name)
        module.register_parameter(norm.name + "_orig", weight)
        # A plain attribute (not a parameter or buffer) until the first forward
        # recomputes it; it starts as the unnormalised weight.
        setattr(module, norm.name, weight.data)
        module.register_buffer(norm.name + "_u", u)
        module.register_buffer(norm.name + "_v", v)
        module.register_forward_pre_hook(norm)
        module._register_state_dict_hook(SpectralNormStateDictHook(norm))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(norm))
        return norm


class SpectralNormLoadStateDictPreHook:
    """Loads checkpoints written before <name>_v existed (no version in the metadata):
    their <name> held W / sigma; <name>_orig is rebuilt and v solved for."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None:
            return
        weight_key = prefix + fn.name
        if version is None and all(weight_key + s in state_dict for s in ("_orig", "_u")) \
                and weight_key + "_v" not in state_dict:
            # In those checkpoints <name>_orig was saved, <name> = <name>_orig / sigma.
            with torchlike.no_grad():
                weight_orig = state_dict[weight_key + "_orig"]
                weight = state_dict.pop(weight_key, None)
                u = state_dict[weight_key + "_u"]
                mat = fn.reshape_weight_to_matrix(weight_orig)
                sigma = (weight_orig / weight).mean() if weight is not None else torchlike.dot(
                    u, torchlike.mv(mat, F.normalize(torchlike.mv(mat.t(), u), dim=0, eps=fn.eps)))
                state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(mat, u, sigma)


class SpectralNormStateDictHook:
    """Records the format version in the state dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides module.<name> by its largest singular value (of the weight viewed as a
    (size(dim), -1) matrix), estimated by power iteration before each forward.
    dim defaults to 1 for the transposed convolutions and to 0 otherwise."""
    if dim is None:
        transposed = tuple(getattr(torchlike.nn, n) for n in ("ConvTranspose1d", "ConvTranspose2d",
                                                               "ConvTranspose3d") if hasattr(torchlike.nn, n))
        dim = 1 if transposed and isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undoes spectral_norm: module.<name> becomes a Parameter holding W / sigma."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for table in (module._state_dict_hooks, module._load_state_dict_pre_hooks):
        for key, hook in list(table.items()):
            inner = getattr(hook, "hook", hook)
            if isinstance(inner, (SpectralNormStateDictHook, SpectralNormLoadStateDictPreHook)) \
                    and inner.fn.name == name:
                del table[key]
    return module
