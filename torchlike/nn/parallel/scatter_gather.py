"""Splitting inputs across devices (scatter) and joining outputs (gather).

Devices are given as indices or torchlike.device objects; without CUDA the
only device is the CPU, where a scatter chunk is a view of the input."""
import torchlike

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _device(d):
    if d is None or (isinstance(d, int) and d == -1):
        return torchlike.device("cpu")
    if isinstance(d, int):
        return torchlike.device("cuda", d)
    return torchlike.device(d)


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def scatter(inputs, target_gpus, dim=0):
    """Splits tensors in `inputs` (nested in lists, tuples, dicts) into
    len(target_gpus) chunks along `dim`, one per device; other objects are
    repeated. Returns a list with one entry per chunk."""
    devices = [_device(d) for d in target_gpus]

    def rec(obj):
        if isinstance(obj, torchlike.Tensor):
            chunks = obj.chunk(len(devices), dim)
            return [c.to(dev) for c, dev in zip(chunks, devices)]
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(rec, obj))]
        if isinstance(obj, tuple) and obj:
            return list(zip(*map(rec, obj)))
        if isinstance(obj, list) and obj:
            return [list(i) for i in zip(*map(rec, obj))]
        if isinstance(obj, dict) and obj:
            return [type(obj)(i) for i in zip(*map(rec, obj.items()))]
        return [obj for _ in devices]
    try:
        return rec(inputs)
    finally:
        rec = None  # the closure refers to itself


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """scatter for positional and keyword arguments, padded to equal length."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(scattered_inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim=0):
    """Concatenates the per-device outputs (tensors, nested in lists, tuples,
    dicts) along `dim` onto `target_device` (-1 or 'cpu': the CPU)."""
    dev = _device(target_device)

    def rec(outs):
        out = outs[0]
        if isinstance(out, torchlike.Tensor):
            if all(o.dim() == 0 for o in outs):
                return torchlike.stack([o.to(dev) for o in outs])
            return torchlike.cat([o.to(dev) for o in outs], dim)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, rec([d[k] for d in outs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(rec, zip(*outs)))
        return type(out)(map(rec, zip(*outs)))
    try:
        return rec(outputs)
    finally:
        rec = None
