"""Datasets: the map-style and iterable protocols and the ready-made ones
(tensors, stacking, concatenation, chaining, subsets, random splits)."""
import bisect
import math
import warnings
from collections.abc import Iterable
from typing import Generic, TypeVar

import torchlike

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
           "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map from keys (usually 0..len-1) to samples. Subclasses define
    __getitem__, usually __len__, and optionally __getitems__(keys) to fetch a
    whole batch at once (the loader prefers it when present)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable):
    """A stream of samples. Under a multi-process loader every worker runs its
    own copy of __iter__; use get_worker_info() there to split the stream."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample i is the tuple of every tensor's row i."""

    def __init__(self, *tensors) -> None:
        if tensors:
            n = tensors[0].size(0)
            assert all(n == t.size(0) for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zips datasets of one length: positional ones give tuple samples, keyword
    ones dict samples."""

    def __init__(self, *args, **kwargs) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        parts = args if args else kwargs
        if not parts:
            raise ValueError("At least one dataset should be passed")
        members = parts if args else parts.values()
        lengths = {len(m) for m in members}
        if len(lengths) > 1:
            raise ValueError("Size mismatch between datasets")
        self._length = lengths.pop()
        self.datasets = parts

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: ds[index] for key, ds in self.datasets.items()}
        return tuple(ds[index] for ds in self.datasets)

    def __getitems__(self, indices):
        """One batch: member datasets with their own __getitems__ fetch their part at once."""
        def column(ds):
            if callable(getattr(ds, "__getitems__", None)):
                got = ds.__getitems__(indices)
                if len(got) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. "
                                     f"Expected {len(indices)}, got {len(got)}")
                return list(got)
            return [ds[i] for i in indices]

        if isinstance(self.datasets, dict):
            cols = {key: column(ds) for key, ds in self.datasets.items()}
            return [{key: col[row] for key, col in cols.items()} for row in range(len(indices))]
        cols = [column(ds) for ds in self.datasets]
        return [tuple(col[row] for col in cols) for row in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other; index i is looked up by bisecting
    the running totals `cumulative_sizes`."""

    @staticmethod
    def cumsum(sequence):
        totals, running = [], 0
        for ds in sequence:
            running += len(ds)
            totals.append(running)
        return totals

    def __init__(self, datasets) -> None:
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for ds in self.datasets:
            assert not isinstance(ds, IterableDataset), "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self):
        warnings.warn("cummulative_sizes attribute is renamed to cumulative_sizes", DeprecationWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other, chained lazily."""

    def __init__(self, datasets) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for ds in self.datasets:
            assert isinstance(ds, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from ds

    def __len__(self):
        n = 0
        for ds in self.datasets:
            assert isinstance(ds, IterableDataset), "ChainDataset only supports IterableDataset"
            n += len(ds)
        return n


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        picked = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(picked)
        return [self.dataset[i] for i in picked]

    def __len__(self):
        return len(self.indices)


def _lengths_from_fractions(total, fractions):
    for i, f in enumerate(fractions):
        if f < 0 or f > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
    sizes = [int(math.floor(total * f)) for f in fractions]
    # what flooring left over goes one item each to the first splits, round-robin
    for k in range(total - sum(sizes)):
        sizes[k % len(sizes)] += 1
    for i, n in enumerate(sizes):
        if n == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
    return sizes


def random_split(dataset, lengths, generator=torchlike.default_generator):
    """Splits `dataset` into non-overlapping Subsets of the given lengths, or of
    the given fractions of its length when they sum to 1, from one random
    permutation drawn with `generator`."""
    total = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(total, lengths)
    if sum(lengths) != total:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = torchlike.randperm(sum(lengths), generator=generator).tolist()
    splits, start = [], 0
    for n in lengths:
        splits.append(Subset(dataset, order[start:start + n]))
        start += n
    return splits
