"""replicate: one copy of a module per device, sharing nothing with the
original but the parameter values (copied; a copy's backward reaches the
original's parameters through the copy's autograd graph)."""
import copy

__all__ = ["replicate"]


def replicate(network, devices, detach=False):
    """A list of len(devices) replicas of `network`, each moved to its device.
    Replica parameters are non-leaf copies of the originals (unless detach),
    so gradients flow back to `network`'s parameters."""
    from torchlike.nn.parallel.scatter_gather import _device
    replicas = []
    for d in devices:
        dev = _device(d)
        r = copy.copy(network)
        _rebuild(network, r, dev, detach)
        replicas.append(r)
    return replicas


def _rebuild(src, dst, dev, detach):
    dst.__dict__ = src.__dict__.copy()
    dst._parameters = {}
    for name, p in src._parameters.items():
        if p is None:
            dst._parameters[name] = None
            continue
        q = p.detach().to(dev) if detach else p.to(dev)
        if q is p:
            q = p.view_as(p) if not detach else p.detach()
        # a plain tensor, attached as an attribute as PyTorch's replicas hold them
        dst._parameters[name] = q
    dst._buffers = {k: (b.to(dev) if b is not None else None) for k, b in src._buffers.items()}
    dst._modules = {}
    for name, child in src._modules.items():
        if child is None:
            dst._modules[name] = None
            continue
        c = copy.copy(child)
        _rebuild(child, c, dev, detach)
        dst._modules[name] = c
