"""Flattening parameters into one vector and back (for second-order methods,
evolution strategies and the like)."""
import torchlike
from torchlike._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_same_device(param, device):
    if device is None:
        return param.device
    if param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return device


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter's elements, in iteration order."""
    device = None
    pieces = []
    for p in parameters:
        device = _check_same_device(p, device)
        pieces.append(p.reshape(-1))
    return torchlike.cat(pieces)


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of vec into the parameters (their .data), in order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {torchlike.typename(vec)}")
    device = None
    offset = 0
    for p in parameters:
        device = _check_same_device(p, device)
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
