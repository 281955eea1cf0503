"""default_collate / default_convert (torch.utils.data._utils.collate)."""
import collections.abc
import re

import torchlike

__all__ = ["default_collate", "default_convert"]

# NumPy dtypes of bytes, unicode and objects cannot become tensors.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")


def _numpy():
    import sys
    return sys.modules.get("numpy")  # a NumPy object can only exist if NumPy is already imported


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_fields")


def default_convert(data):
    """Turn NumPy arrays and scalars inside `data` into tensors, leaving the structure as it is."""
    np = _numpy()
    elem_type = type(data)
    if isinstance(data, torchlike.Tensor):
        return data
    if np is not None and elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return torchlike.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = data.copy()
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if _is_namedtuple(data):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = data.copy()
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _collate_tensors(batch):
    return torchlike.stack(batch, 0)


def default_collate(batch):
    """Merge a list of samples into a batch: tensors, arrays and numbers are stacked along a new
    first dimension; mappings, namedtuples and sequences are collated field by field; strings are
    kept as a list."""
    elem = batch[0]
    elem_type = type(elem)
    np = _numpy()
    if isinstance(elem, torchlike.Tensor):
        return _collate_tensors(batch)
    if np is not None and elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ in ("ndarray", "memmap"):
            if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
                raise TypeError(default_collate_err_msg_format.format(elem.dtype))
            return _collate_tensors([torchlike.as_tensor(b) for b in batch])
        if elem.shape == ():  # NumPy scalar
            return torchlike.as_tensor(batch)
    if isinstance(elem, float):
        return torchlike.tensor(batch, dtype=torchlike.float64)
    if isinstance(elem, int):  # bools included: a list of bools gives a bool tensor
        return torchlike.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = elem.copy()
                clone.update({key: default_collate([d[key] for d in batch]) for key in elem})
                return clone
            return elem_type({key: default_collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    if _is_namedtuple(elem):
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = elem.copy()
                for i, samples in enumerate(transposed):
                    clone[i] = default_collate(samples)
                return clone
            return elem_type([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))
