"""Samplers: iterables of dataset keys (or, for BatchSampler, of key lists)."""
from typing import Generic, TypeVar

import torchlike

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


def _positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{what} should be a positive integer value, but got {what}={value}")


def _fresh_generator(generator):
    """The sampler's own generator: the given one, or one seeded from the global stream
    (so torchlike.manual_seed makes unseeded samplers reproducible)."""
    if generator is not None:
        return generator
    g = torchlike.Generator()
    g.manual_seed(int(torchlike.empty((), dtype=torchlike.int64).random_().item()))
    return g


class Sampler(Generic[T_co]):
    """Base class: subclasses define __iter__ (and __len__ when they can)."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Random keys: a fresh permutation each pass, or with replacement=True
    independent uniform draws. num_samples beyond the dataset's length (without
    replacement) chains whole permutations and a partial one."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        _positive_int(self.num_samples, "num_samples")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = _fresh_generator(self.generator)
        want = self.num_samples
        if self.replacement:
            yield from torchlike.randint(0, n, (want,), dtype=torchlike.int64, generator=g).tolist()
            return
        while want >= n:
            yield from torchlike.randperm(n, generator=g).tolist()
            want -= n
        if want:
            yield from torchlike.randperm(n, generator=g)[:want].tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a fresh random order each pass."""

    def __init__(self, indices, generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for k in torchlike.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[k]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """num_samples keys in 0..len(weights)-1 drawn with probabilities proportional to weights."""

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None) -> None:
        _positive_int(num_samples, "num_samples")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = torchlike.as_tensor(weights, dtype=torchlike.double)
        if w.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = torchlike.multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups another sampler's keys into lists of batch_size (the last shorter
    unless drop_last)."""

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        _positive_int(batch_size, "batch_size")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for key in self.sampler:
            batch.append(key)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        full, rest = divmod(len(self.sampler), self.batch_size)
        return full if self.drop_last or not rest else full + 1
