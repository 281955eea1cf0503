"""default_collate (a list of samples -> one batch) and default_convert (one
sample's NumPy arrays and scalars -> tensors), recursing through mappings,
namedtuples and sequences.

Inside a DataLoader worker, tensors are stacked straight into shared memory,
so sending the batch to the main process copies nothing more."""
import collections.abc
import copy

import numpy as np

import torchlike

__all__ = ["default_collate", "default_convert"]

_UNSUPPORTED = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")
_TEXT_KINDS = frozenset("SaUO")  # NumPy string, bytes, unicode and object dtypes stay unconverted


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _rebuild_mapping(template, items):
    """`items` (a dict) in the container type of `template`, where that type allows it."""
    if isinstance(template, collections.abc.MutableMapping):
        # a copy keeps defaultdict factories, OrderedDict order and subclass state
        out = copy.copy(template)
        out.update(items)
        return out
    try:
        return type(template)(items)
    except TypeError:
        return items


def _rebuild_sequence(template, items):
    try:
        return type(template)(items)
    except TypeError:
        return items


def _in_worker():
    from torchlike.utils.data.worker import get_worker_info
    return get_worker_info() is not None


def _stack(tensors):
    first = tensors[0]
    if first.device.type == "cpu" and _in_worker():
        from torchlike.multiprocessing import _reductions
        out = _reductions.shared_empty((len(tensors),) + tuple(first.shape), first.dtype)
        return torchlike.stack(tensors, 0, out=out)
    return torchlike.stack(tensors, 0)


def _collate_ndarrays(batch):
    first = batch[0]
    if first.dtype.char in _TEXT_KINDS:
        raise TypeError(_UNSUPPORTED.format(first.dtype))
    return _stack([torchlike.as_tensor(a) for a in batch])


def default_collate(batch):
    """Merges a list of samples into a batch: tensors, NumPy arrays and
    numbers are stacked along a new first dimension (Python floats as float64,
    ints as int64), strings and bytes stay a list, and containers are collated
    field by field, keeping their type where it can be rebuilt."""
    first = batch[0]
    if isinstance(first, torchlike.Tensor):
        return _stack(batch)
    if isinstance(first, np.ndarray) or isinstance(first, np.generic):
        if isinstance(first, (np.str_, np.bytes_)):
            return batch
        if isinstance(first, np.ndarray) and first.shape != ():
            return _collate_ndarrays(batch)
        if first.dtype.char in _TEXT_KINDS:
            raise TypeError(_UNSUPPORTED.format(first.dtype))
        return torchlike.as_tensor(np.asarray(batch))
    if isinstance(first, float):
        return torchlike.tensor(batch, dtype=torchlike.float64)
    if isinstance(first, int):  # bool included: torchlike.tensor makes it a bool tensor
        return torchlike.tensor(batch)
    if isinstance(first, (str, bytes)):
        return batch
    if isinstance(first, collections.abc.Mapping):
        return _rebuild_mapping(first, {key: default_collate([sample[key] for sample in batch]) for key in first})
    if _is_namedtuple(first):
        return type(first)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        size = len(first)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # zip hands each column over as a tuple; a column of strings comes back as that tuple
        columns = [default_collate(col) for col in zip(*batch)]
        if isinstance(first, tuple):
            return columns
        return _rebuild_sequence(first, columns)
    raise TypeError(_UNSUPPORTED.format(type(first)))


def default_convert(data):
    """Turns NumPy arrays and NumPy scalars into tensors, recursing into
    containers (a plain tuple comes back as a list); everything else is
    returned as it is. The loader's collate_fn when batch_size is None."""
    if isinstance(data, torchlike.Tensor):
        return data
    if isinstance(data, np.ndarray):
        if data.dtype.char in _TEXT_KINDS:
            return data
        return torchlike.as_tensor(data)
    if isinstance(data, (np.bool_, np.number)):
        return torchlike.as_tensor(data)
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(v) for v in data))
    if isinstance(data, tuple):
        return [default_convert(v) for v in data]
    if isinstance(data, collections.abc.Sequence):
        return _rebuild_sequence(data, [default_convert(v) for v in data])
    return data
