"""torchlike.utils.data: datasets, samplers, collation and DataLoader (single- and multi-process).

Random streams are torchlike's own, so shuffled orders are checked as permutations and for
per-seed determinism, not against PyTorch's exact order. Every multi-process loader here has a
`timeout`, so a bug makes a test fail instead of hanging CI."""
import collections
import dataclasses
import gc
import os
import signal
import time
import warnings

import numpy as np
import pytest

import torchlike
from torchlike.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                                  DistributedSampler, IterableDataset, RandomSampler, Sampler, SequentialSampler,
                                  StackDataset, Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                                  default_collate, default_convert, get_worker_info, random_split)

try:
    import torch
    import torch.utils.data as tud
except ImportError:  # PyTorch is an optional reference
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")
WT = 30  # seconds: generous upper bound for any worker round trip on a loaded CI machine


def gen(seed):
    g = torchlike.Generator()
    g.manual_seed(seed)
    return g


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i

    def __len__(self):
        return self.n


class Count(IterableDataset):
    """Yields start..end-1, each worker taking an interleaved share (the pattern PyTorch documents)."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        return iter(range(self.start + info.id, self.end, info.num_workers))

    def __len__(self):
        return self.end - self.start


# ------------------------------------------------------------------ datasets
def test_dataset_base_and_add():
    with pytest.raises(NotImplementedError):
        Dataset()[0]
    c = Squares(3) + Squares(2)
    assert isinstance(c, ConcatDataset) and len(c) == 5
    assert [c[i] for i in range(5)] == [0, 1, 4, 0, 1]
    ch = Count(0, 2) + Count(5, 7)
    assert isinstance(ch, ChainDataset) and list(ch) == [0, 1, 5, 6] and len(ch) == 4
    with pytest.raises(TypeError, match="abstract"):
        IterableDataset()  # __iter__ is abstract, as in PyTorch 2.13


def test_tensor_dataset():
    x = torchlike.arange(12.).reshape(4, 3)
    y = torchlike.tensor([0, 1, 0, 1])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    a, b = ds[2]
    assert a.tolist() == [6., 7., 8.] and b.item() == 0
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, torchlike.zeros(3))


def test_stack_dataset():
    s = StackDataset(Squares(3), [10, 11, 12])
    assert len(s) == 3 and s[1] == (1, 11)
    assert s.__getitems__([0, 2]) == [(0, 10), (4, 12)]
    d = StackDataset(a=Squares(2), b=["x", "y"])
    assert d[1] == {"a": 1, "b": "y"} and d.__getitems__([1, 0]) == [{"a": 1, "b": "y"}, {"a": 0, "b": "x"}]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Squares(2), [1])
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a=Squares(2), b=[1])
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()
    with pytest.raises(ValueError, match="but both types are given"):
        StackDataset(Squares(1), b=[1])


def test_concat_dataset():
    c = ConcatDataset([Squares(2), [7, 8, 9], Squares(1)])
    assert c.cumulative_sizes == [2, 5, 6] and len(c) == 6
    assert [c[i] for i in range(6)] == [0, 1, 7, 8, 9, 0]
    assert c[-1] == 0 and c[-4] == 7 and c[-6] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        c[-7]
    with pytest.raises(IndexError):
        c[6]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Count(0, 1)])


def test_chain_dataset_rejects_map_style():
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([Squares(2)]))


def test_subset():
    s = Subset(Squares(10), [9, 3, 3])
    assert len(s) == 3 and [s[i] for i in range(3)] == [81, 9, 9]
    assert s.__getitems__([0, 1]) == [81, 9]


def test_random_split_lengths_and_permutation():
    parts = random_split(range(10), [3, 7], generator=gen(1))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    again = random_split(range(10), [3, 7], generator=gen(1))
    assert again[0].indices == parts[0].indices
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [3, 3])


@pytest.mark.parametrize("n,fracs,expected", [
    (30, [0.3, 0.3, 0.4], [9, 9, 12]),
    (10, [0.33, 0.33, 0.34], [4, 3, 3]),   # remainder 1 goes to the first split
    (11, [0.5, 0.5], [6, 5]),
    (7, [0.25, 0.25, 0.25, 0.25], [2, 2, 2, 1]),
])
def test_random_split_fractions(n, fracs, expected):
    parts = random_split(range(n), fracs, generator=gen(0))
    assert [len(p) for p in parts] == expected
    assert sorted(i for p in parts for i in p.indices) == list(range(n))
    if torch is not None:
        assert [len(p) for p in tud.random_split(range(n), fracs)] == expected


def test_random_split_fraction_errors_and_warning():
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(4), [-0.5, 1.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        parts = random_split(range(2), [0.9, 0.1])
    assert [len(p) for p in parts] == [2, 0]


# ------------------------------------------------------------------ samplers
def test_sequential_and_base_sampler():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3] and len(SequentialSampler(range(4))) == 4
    with pytest.raises(NotImplementedError):
        iter(Sampler())
    with pytest.raises(TypeError):
        len(Sampler())


def test_random_sampler():
    s = RandomSampler(range(20), generator=gen(3))
    a = list(s)
    assert sorted(a) == list(range(20)) and a != list(range(20)) and len(s) == 20
    assert list(RandomSampler(range(20), generator=gen(3))) == a
    # num_samples larger than the dataset without replacement: whole permutations, then a partial one
    b = list(RandomSampler(range(5), num_samples=12, generator=gen(4)))
    assert len(b) == 12 and sorted(b[:5]) == list(range(5)) and sorted(b[5:10]) == list(range(5))
    assert len(set(b[10:])) == 2
    r = list(RandomSampler(range(3), replacement=True, num_samples=70, generator=gen(5)))
    assert len(r) == 70 and set(r) == {0, 1, 2}
    torchlike.manual_seed(11)
    c = list(RandomSampler(range(8)))
    torchlike.manual_seed(11)
    assert list(RandomSampler(range(8))) == c
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)


def test_subset_random_and_weighted_samplers():
    s = SubsetRandomSampler([10, 20, 30, 40], generator=gen(0))
    out = list(s)
    assert sorted(out) == [10, 20, 30, 40] and len(s) == 4
    assert list(SubsetRandomSampler([10, 20, 30, 40], generator=gen(0))) == out
    w = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=gen(1))
    drawn = list(w)
    assert len(w) == 200 and set(drawn) == {1, 3}
    assert 100 < drawn.count(3) < 190  # expected 150
    assert w.weights.dtype == torchlike.float64
    nr = list(WeightedRandomSampler([1, 1, 1, 1], 4, replacement=False, generator=gen(2)))
    assert sorted(nr) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=True"):
        WeightedRandomSampler([1.0], True)
    with pytest.raises(ValueError, match="replacement should be a boolean value, but got replacement=0"):
        WeightedRandomSampler([1.0], 1, replacement=0)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(1, 2\)"):
        WeightedRandomSampler([[1.0, 2.0]], 1)


def test_batch_sampler():
    assert list(BatchSampler(range(10), 4, False)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert list(BatchSampler(range(10), 4, True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(BatchSampler(range(10), 4, False)) == 3 and len(BatchSampler(range(10), 4, True)) == 2
    assert len(BatchSampler(range(8), 4, True)) == 2 and list(BatchSampler(range(0), 2, False)) == []
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=1"):
        BatchSampler(range(3), 1, 1)


def test_distributed_sampler():
    n = 10
    parts = [list(DistributedSampler(range(n), num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # padded with the head to 12
    assert len(DistributedSampler(range(n), num_replicas=3, rank=0)) == 4
    dropped = [list(DistributedSampler(range(n), num_replicas=3, rank=r, shuffle=False, drop_last=True))
               for r in range(3)]
    assert dropped == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    shuffled = [list(DistributedSampler(range(n), num_replicas=2, rank=r, seed=7)) for r in range(2)]
    assert sorted(shuffled[0] + shuffled[1]) == list(range(n))
    s = DistributedSampler(range(n), num_replicas=2, rank=0, seed=7)
    assert list(s) == shuffled[0]
    s.set_epoch(1)
    assert s.epoch == 1 and list(s) != shuffled[0]  # a new epoch reshuffles
    assert list(s) == list(s)
    # padding when the dataset is smaller than the number of replicas
    assert [list(DistributedSampler(range(2), num_replicas=5, rank=r, shuffle=False)) for r in range(5)] == \
        [[0], [1], [0], [1], [0]]
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(n), num_replicas=3, rank=3)
    # without torchlike.distributed, the world size and rank must be given (PyTorch's error otherwise)
    try:
        import torchlike.distributed  # noqa: F401
        pytest.skip("torchlike.distributed exists: the process-group path is tested there")
    except ImportError:
        pass
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(n))
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        DistributedSampler(range(n), num_replicas=2)


@needs_torch
def test_distributed_sampler_matches_torch_unshuffled():
    for n, k, drop in [(10, 3, False), (10, 3, True), (7, 4, False), (2, 5, False)]:
        for r in range(k):
            ours = list(DistributedSampler(range(n), num_replicas=k, rank=r, shuffle=False, drop_last=drop))
            ref = list(tud.DistributedSampler(range(n), num_replicas=k, rank=r, shuffle=False, drop_last=drop))
            assert ours == ref
    with pytest.raises(ValueError) as e:
        tud.DistributedSampler(range(3), num_replicas=2, rank=2)
    with pytest.raises(ValueError) as e2:
        DistributedSampler(range(3), num_replicas=2, rank=2)
    assert str(e.value) == str(e2.value)
    for epoch in range(2):  # lengths and padding agree under shuffling too (orders are per-library streams)
        ours = DistributedSampler(range(11), num_replicas=3, rank=1, seed=4)
        ref = tud.DistributedSampler(range(11), num_replicas=3, rank=1, seed=4)
        ours.set_epoch(epoch)
        ref.set_epoch(epoch)
        assert len(list(ours)) == len(list(ref)) == len(ours) == len(ref)


# ------------------------------------------------------------------ collate
Point = collections.namedtuple("Point", "x y")


def test_default_collate_values_against_numpy():
    a = [np.arange(6, dtype=np.float32).reshape(2, 3) + i for i in range(4)]
    out = default_collate(a)
    assert out.dtype == torchlike.float32 and np.array_equal(out.numpy(), np.stack(a))
    t = default_collate([torchlike.tensor([1, 2]), torchlike.tensor([3, 4])])
    assert t.dtype == torchlike.int64 and t.tolist() == [[1, 2], [3, 4]]
    assert default_collate([1, 2]).dtype == torchlike.int64
    f = default_collate([1.5, 2.5])
    assert f.dtype == torchlike.float64 and f.tolist() == [1.5, 2.5]
    assert default_collate([True, False]).dtype == torchlike.bool
    assert default_collate([np.float32(1), np.float32(2)]).dtype == torchlike.float32
    assert default_collate(["a", "b"]) == ["a", "b"]
    d = default_collate([{"x": 1, "s": "p", "v": [1.0, 2.0]}, {"x": 2, "s": "q", "v": [3.0, 4.0]}])
    assert d["x"].tolist() == [1, 2] and d["s"] == ["p", "q"]
    assert [v.tolist() for v in d["v"]] == [[1.0, 3.0], [2.0, 4.0]]
    tup = default_collate([(1, "a"), (2, "b")])
    # PyTorch keeps the transposed tuple of strings as it is
    assert isinstance(tup, list) and tup[0].tolist() == [1, 2] and tup[1] == ("a", "b")
    p = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(p, Point) and p.x.tolist() == [1, 3] and p.y.dtype == torchlike.float64


def test_default_collate_errors():
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, "
                                        "dicts or lists; found <class 'object'>"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        default_collate([torchlike.zeros(2), torchlike.zeros(3)])


def test_default_convert():
    c = default_convert({"a": np.arange(3), "b": (np.float64(2), "s"), "p": Point(np.array([1.0]), 3)})
    assert isinstance(c["a"], torchlike.Tensor) and c["a"].tolist() == [0, 1, 2]
    assert isinstance(c["b"], list) and c["b"][0].dtype == torchlike.float64 and c["b"][1] == "s"
    assert isinstance(c["p"], Point) and c["p"].x.tolist() == [1.0] and c["p"].y == 3
    strs = np.array(["x"])
    assert default_convert(strs) is strs
    t = torchlike.ones(2)
    assert default_convert(t) is t and default_convert(5) == 5 and default_convert("s") == "s"


def _describe(x):
    """A framework-neutral description of a collated structure, for parity with PyTorch."""
    if hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, np.ndarray):
        return ("T", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__,) + tuple(_describe(v) for v in x)
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_describe(v) for v in x])
    return (type(x).__name__, x)


COLLATE_CASES = [
    [1, 2], [1.5, 2.0], [True, False], ["a", "b"], [np.float32(1), np.float32(2)], [np.int16(1), np.int16(3)],
    [np.array([1, 2]), np.array([3, 4])], [np.array(3.0), np.array(4.0)], [np.bool_(True), np.bool_(False)],
    [{"x": 1, "y": [1.0, 2.0]}, {"x": 2, "y": [3.0, 4.0]}], [(1, "a"), (2, "b")], [Point(1, 2.0), Point(3, 4.0)],
    [[1, 2], [3, 4]], [np.arange(4, dtype=np.uint8), np.arange(4, dtype=np.uint8)],
]


@needs_torch
@pytest.mark.parametrize("i", range(len(COLLATE_CASES)))
def test_default_collate_matches_torch(i):
    batch = COLLATE_CASES[i]
    assert _describe(default_collate(batch)) == _describe(tud.default_collate(batch))
    assert _describe(default_convert(batch)) == _describe(tud.default_convert(batch))


@needs_torch
def test_default_collate_error_parity():
    for batch in ([object(), object()], [None, None], [[1, 2], [1]], [np.array(["a"]), np.array(["b"])]):
        with pytest.raises(Exception) as ours:
            default_collate(batch)
        with pytest.raises(Exception) as ref:
            tud.default_collate(batch)
        assert type(ours.value) is type(ref.value)
        assert str(ours.value).split(" object at")[0] == str(ref.value).split(" object at")[0]


# ------------------------------------------------------------------ DataLoader, single process
def test_loader_batches_and_len():
    ds = TensorDataset(torchlike.arange(10.), torchlike.arange(10))
    batches = list(DataLoader(ds, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].dtype == torchlike.float32
    assert len(DataLoader(ds, batch_size=4)) == 3 and len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    dl = DataLoader(ds, batch_size=3, shuffle=True, generator=gen(0))
    got = [b[1].tolist() for b in dl]
    assert sorted(sum(got, [])) == list(range(10)) and [len(b) for b in got] == [3, 3, 3, 1]
    assert [b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=gen(0))] == got
    # batch_size=None: no auto-collation, samples go through default_convert
    nb = list(DataLoader(Squares(3), batch_size=None))
    assert nb == [0, 1, 4] and DataLoader(Squares(3), batch_size=None).collate_fn is default_convert
    # custom batch_sampler and sampler
    assert [b.tolist() for b in DataLoader(Squares(5), batch_sampler=[[4, 0], [2]])] == [[16, 0], [4]]
    assert [b.tolist() for b in DataLoader(Squares(4), sampler=[3, 1], batch_size=2)] == [[9, 1]]
    assert list(DataLoader(Squares(3), batch_size=2, collate_fn=lambda b: sum(b))) == [1, 4]


def test_loader_iterable_dataset():
    dl = DataLoader(Count(0, 7), batch_size=3)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5], [6]] and len(dl) == 3
    dl = DataLoader(Count(0, 7), batch_size=3, drop_last=True)
    assert [b.tolist() for b in dl] == [[0, 1, 2], [3, 4, 5]] and len(dl) == 2
    assert list(DataLoader(Count(0, 3), batch_size=None)) == [0, 1, 2]  # default_convert leaves ints alone


def test_loader_iterable_len_warning():
    dl = DataLoader(Count(0, 4), batch_size=None)
    dl.dataset.end = 4
    assert len(dl) == 4
    dl.dataset.end = 6  # the dataset now yields more than it reported
    with pytest.warns(UserWarning, match="was reported to be 4"):
        list(dl)


def test_loader_argument_errors():
    ds = Squares(4)
    cases = [
        (dict(num_workers=-1), ValueError, "num_workers option should be non-negative"),
        (dict(timeout=-1), ValueError, "timeout option should be non-negative"),
        (dict(prefetch_factor=2), ValueError, "prefetch_factor option could only be specified in multiprocessing"),
        (dict(num_workers=1, prefetch_factor=-1), ValueError, "prefetch_factor option should be non-negative"),
        (dict(persistent_workers=True), ValueError, "persistent_workers option needs num_workers > 0"),
        (dict(sampler=[0], shuffle=True), ValueError, "sampler option is mutually exclusive with shuffle"),
        (dict(batch_sampler=[[0]], batch_size=2), ValueError, "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[0]], drop_last=True), ValueError, "batch_sampler option is mutually exclusive"),
        (dict(batch_size=None, drop_last=True), ValueError, "batch_size=None option disables auto-batching"),
        (dict(multiprocessing_context="fork"), ValueError, "multiprocessing_context can only be used with"),
        (dict(num_workers=1, multiprocessing_context="nope"), ValueError, "should specify a valid start method"),
        (dict(num_workers=1, multiprocessing_context=3), TypeError, "should be a valid context object"),
    ]
    for kwargs, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            DataLoader(ds, **kwargs)
    for kwargs, msg in [(dict(shuffle=True), "expected unspecified shuffle option, but got shuffle=True"),
                        (dict(sampler=[0]), "expected unspecified sampler option"),
                        (dict(batch_sampler=[[0]]), "expected unspecified batch_sampler option")]:
        with pytest.raises(ValueError, match=msg):
            DataLoader(Count(0, 2), **kwargs)
    dl = DataLoader(ds)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        dl.batch_size = 3
    dl.num_workers = 0  # other attributes stay writable
    assert DataLoader(ds, in_order=False).in_order is False
    assert DataLoader(ds, num_workers=1).prefetch_factor == 2


@needs_torch
def test_loader_argument_error_messages_match_torch():
    cases = [dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
             dict(sampler=[0], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
             dict(batch_size=None, drop_last=True), dict(multiprocessing_context="fork"),
             dict(num_workers=1, prefetch_factor=-1)]
    for kwargs in cases:
        with pytest.raises(Exception) as ours:
            DataLoader(Squares(3), **kwargs)
        with pytest.raises(Exception) as ref:
            tud.DataLoader(list(range(3)), **kwargs)
        assert type(ours.value) is type(ref.value) and str(ours.value) == str(ref.value), kwargs


def test_pin_memory_without_accelerator_warns_and_does_not_pin():
    if torchlike.accelerator.is_available():
        pytest.skip("an accelerator is present")
    ds = TensorDataset(torchlike.arange(4.))
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        batches = list(DataLoader(ds, batch_size=2, pin_memory=True))
    assert [b[0].tolist() for b in batches] == [[0., 1.], [2., 3.]]
    assert not batches[0][0].is_pinned()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        list(DataLoader(ds, batch_size=2, pin_memory=True, pin_memory_device="cuda"))
    messages = [str(w.message) for w in caught]
    assert any("pin_memory_device is deprecated" in m for m in messages)
    assert any("no accelerator is found" in m for m in messages)


def test_get_worker_info_in_main_process():
    assert get_worker_info() is None


# ------------------------------------------------------------------ DataLoader, worker processes
class RandomAugment(Dataset):
    """Each sample draws from torchlike's and NumPy's global streams: only deterministic if the
    workers are seeded from the loader's generator."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        return torchlike.tensor([float(i)]), torchlike.rand(2), float(np.random.rand())


def _run(loader):
    return [[x.tolist() if isinstance(x, torchlike.Tensor) else x for x in b] for b in loader]


def test_workers_match_single_process_for_one_seed():
    ds = TensorDataset(torchlike.arange(20.).reshape(10, 2), torchlike.arange(10))
    ref = _run(DataLoader(ds, batch_size=3, shuffle=True, generator=gen(5)))
    got = _run(DataLoader(ds, batch_size=3, shuffle=True, generator=gen(5), num_workers=2, timeout=WT))
    assert got == ref and len(got) == 4


def test_worker_randomness_seeded_from_generator():
    def run(seed):
        return _run(DataLoader(RandomAugment(), batch_size=4, num_workers=2, generator=gen(seed), timeout=WT))
    a, b, c = run(1), run(1), run(2)
    assert a == b and a != c
    assert [x[0] for x in a] == [[[0.], [1.], [2.], [3.]], [[4.], [5.], [6.], [7.]], [[8.], [9.], [10.], [11.]]]
    # the two workers use different seeds (batches 0 and 1 come from workers 0 and 1)
    assert a[0][1] != a[1][1]


def _record_info(worker_id):
    info = get_worker_info()
    assert info.id == worker_id and info.num_workers == 2
    np.save(os.path.join(os.environ["TL_DATA_TEST_DIR"], f"w{worker_id}.npy"),
            np.array([info.seed, torchlike.get_num_threads()]))


class WorkerIdDataset(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'id'"):
            info.id = 5
        return torchlike.tensor([info.id, info.seed % 1000, os.getpid()])


def test_worker_info_seed_init_fn_and_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("TL_DATA_TEST_DIR", str(tmp_path))
    dl = DataLoader(WorkerIdDataset(), batch_size=1, num_workers=2, worker_init_fn=_record_info,
                    generator=gen(9), timeout=WT)
    rows = [b[0].tolist() for b in dl]
    assert [r[0] for r in rows] == [0, 1, 0, 1]  # tasks go to workers round-robin
    assert all(r[2] != os.getpid() for r in rows) and rows[0][2] != rows[1][2]
    base_seed = torchlike.empty((), dtype=torchlike.int64).random_(generator=gen(9)).item()
    for w in range(2):
        seed, threads = np.load(tmp_path / f"w{w}.npy").tolist()
        assert seed == base_seed + w and threads == 1


def test_iterable_dataset_with_workers():
    dl = DataLoader(Count(0, 10), batch_size=2, num_workers=2, timeout=WT)
    got = [b.tolist() for b in dl]
    # worker 0 yields evens, worker 1 odds; batches alternate between them
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]


class Failing(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"bad index {i}")
        return i


def test_worker_exception_reraised_with_traceback():
    it = iter(DataLoader(Failing(), batch_size=2, num_workers=2, timeout=WT))
    assert next(it).tolist() == [0, 1]
    with pytest.raises(KeyError) as e:
        next(it)
    text = str(e.value)
    assert "Caught KeyError in DataLoader worker process 1." in text
    assert "Traceback (most recent call last)" in text and "bad index 3" in text and "__getitem__" in text
    workers = it._workers
    del it, e  # the traceback holds the iterator too
    gc.collect()
    assert not any(w.is_alive() for w in workers)


def test_worker_init_fn_exception():
    def boom(worker_id):
        raise ValueError("init failed")
    with pytest.raises(ValueError, match="init failed"):
        list(DataLoader(Squares(4), num_workers=1, worker_init_fn=boom, timeout=WT))


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(0.8)
        return i


def test_timeout_raises():
    it = iter(DataLoader(Slow(), num_workers=1, timeout=0.2))
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.2 seconds"):
        next(it)
    workers = it._workers
    del it
    assert not any(w.is_alive() for w in workers)


class Suicidal(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_killed_worker_raises_quickly():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Suicidal(), batch_size=1, num_workers=2))
    assert time.monotonic() - start < 15


def test_workers_shut_down_when_exhausted_or_deleted():
    it = iter(DataLoader(Squares(8), batch_size=2, num_workers=2, timeout=WT))
    workers = it._workers
    assert [b.tolist() for b in it] == [[0, 1], [4, 9], [16, 25], [36, 49]]
    assert not any(w.is_alive() for w in workers)
    it = iter(DataLoader(Squares(100), batch_size=2, num_workers=2, timeout=WT))
    next(it)
    workers = it._workers
    assert all(w.is_alive() for w in workers)
    del it
    assert not any(w.is_alive() for w in workers)


def test_persistent_workers_reused_across_epochs():
    dl = DataLoader(Squares(6), batch_size=2, num_workers=2, persistent_workers=True, timeout=WT)
    first = [b.tolist() for b in dl]
    workers = dl._iterator._workers
    pids = [w.pid for w in workers]
    second = [b.tolist() for b in dl]
    assert first == second == [[0, 1], [4, 9], [16, 25]]
    assert [w.pid for w in dl._iterator._workers] == pids and all(w.is_alive() for w in workers)
    # iterable datasets restart each epoch too
    dl2 = DataLoader(Count(0, 5), batch_size=2, num_workers=2, persistent_workers=True, timeout=WT)
    assert [b.tolist() for b in dl2] == [b.tolist() for b in dl2] == [[0, 2], [1, 3], [4]]
    it = dl._iterator
    del dl
    it._shutdown_workers()
    assert not any(w.is_alive() for w in workers)


class SlowFirst(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 0:
            time.sleep(1.0)
        return i


def test_in_order_false_yields_ready_batches_first():
    got = [b.item() for b in DataLoader(SlowFirst(), num_workers=2, in_order=False, timeout=WT)]
    assert sorted(got) == [0, 1, 2, 3] and got[0] != 0
    got = [b.item() for b in DataLoader(SlowFirst(), num_workers=2, timeout=WT)]
    assert got == [0, 1, 2, 3]


class BigRows(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torchlike.full((256, 256), float(i))


def test_fork_after_parallel_kernel_does_not_deadlock():
    # The parent runs a multi-threaded kernel first; forked workers then collate (stack) large
    # batches and reduce them. A worker inheriting a broken OpenMP pool would hang; timeout catches it.
    x = torchlike.rand(1024, 1024)
    assert (x @ x).sum().item() > 0
    dl = DataLoader(BigRows(), batch_size=8, num_workers=2, timeout=WT,
                    collate_fn=lambda b: default_collate(b).sum(dim=(1, 2)))
    got = [b.tolist() for b in dl]
    assert got == [[float(i) * 65536 for i in range(8)], [float(i) * 65536 for i in range(8, 16)]]


def test_tensor_dtypes_cross_process_boundary():
    class Mixed(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return {"bf": torchlike.tensor([1.5, i], dtype=torchlike.bfloat16),
                    "h": torchlike.tensor([i], dtype=torchlike.float16),
                    "b": torchlike.tensor([True]), "s": f"s{i}"}
    (b,) = list(DataLoader(Mixed(), batch_size=2, num_workers=1, timeout=WT))
    assert b["bf"].dtype == torchlike.bfloat16 and b["bf"].float().tolist() == [[1.5, 0.0], [1.5, 1.0]]
    assert b["h"].dtype == torchlike.float16 and b["b"].dtype == torchlike.bool and b["s"] == ["s0", "s1"]


def test_spawn_context_accepted_as_string():
    import multiprocessing
    dl = DataLoader(Squares(2), num_workers=1, multiprocessing_context="fork")
    assert isinstance(dl.multiprocessing_context, multiprocessing.context.BaseContext)


def test_no_worker_outlives_the_interpreter(tmp_path):
    # A script that leaves an iterator half-consumed and exits: its workers must be gone.
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = tmp_path / "leave.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {root!r})\n"
        "from torchlike.utils.data import DataLoader\n"
        "it = iter(DataLoader(list(range(100)), batch_size=2, num_workers=2, timeout=30))\n"
        "next(it)\n"
        "print(' '.join(str(w.pid) for w in it._workers), flush=True)\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in alive if _pid_alive(p)]
        time.sleep(0.05)
    assert alive == []


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it has exited all the same
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_generic_subclassing_and_module_paths():
    # PyTorch code subclasses the parameterised generics and imports from the submodules.
    class Items(Dataset[int]):
        def __getitem__(self, i):
            return i * 3

        def __len__(self):
            return 3

    class Reverse(Sampler[int]):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n - 1, -1, -1))

        def __len__(self):
            return self.n

    class Stream(IterableDataset[int]):
        def __iter__(self):
            return iter([7, 8])

    assert [b.tolist() for b in DataLoader(Items(), batch_size=2, sampler=Reverse(3))] == [[6, 3], [0]]
    assert list(Stream() + Stream()) == [7, 8, 7, 8]
    with pytest.raises(TypeError):
        Sampler([1, 2])  # the base class takes no data_source, as in PyTorch 2.13
    from torchlike.utils.data.dataloader import DataLoader as DL2
    from torchlike.utils.data.distributed import DistributedSampler as DS2
    assert DL2 is DataLoader and DS2 is DistributedSampler


def test_requires_grad_and_views_cross_process_boundary():
    class Views(Dataset):
        base = torchlike.arange(12.).reshape(3, 4)

        def __len__(self):
            return 1

        def __getitem__(self, i):
            return self.base.t()[1:3], torchlike.ones(2, requires_grad=True)

    (v, g), = list(DataLoader(Views(), batch_size=None, num_workers=1, timeout=WT))
    assert v.tolist() == Views.base.t()[1:3].tolist() and g.requires_grad


# ------------------------------------------------------------------ added: shared memory, lifecycle, determinism
def _shm_names(prefix):
    return [n for n in os.listdir("/dev/shm") if n.startswith(prefix)]


def test_worker_batches_arrive_in_shared_memory_and_leave_no_segments():
    ds = TensorDataset(torchlike.arange(64.).reshape(16, 4))
    it = iter(DataLoader(ds, batch_size=4, num_workers=2, timeout=WT))
    prefix = it._shm_prefix
    first = next(it)[0]
    assert first.is_shared() and first.tolist() == [[float(4 * r + c) for c in range(4)] for r in range(4)]
    del it  # three batches were still in flight or queued: their segments must go too
    gc.collect()
    assert _shm_names(prefix) == []
    assert first.sum().item() == sum(range(16))  # the received batch stays valid after the loader is gone


def test_worker_killed_from_outside_is_reported():
    it = iter(DataLoader(Slow(), num_workers=2, timeout=0))
    victim = it._workers[1]
    os.kill(victim.pid, signal.SIGKILL)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=rf"DataLoader worker \(pid\(s\) {victim.pid}\) exited unexpectedly"):
        for _ in it:
            pass
    assert time.monotonic() - start < 10
    workers = it._workers
    assert not any(w.is_alive() for w in workers)  # the survivors were shut down with it


def test_break_out_of_loop_ends_workers():
    dl = DataLoader(Squares(100), batch_size=2, num_workers=2, timeout=WT)
    it = iter(dl)
    workers = it._workers
    for i, batch in enumerate(it):
        if i == 1:
            break
    assert all(w.is_alive() for w in workers)
    del it  # as when a for loop over the loader is left: the iterator's last reference goes
    assert not any(w.is_alive() for w in workers)


class Counting(Dataset):
    """Counts __getitem__ calls in a shared counter (across worker processes)."""

    def __init__(self, counter):
        self.counter = counter

    def __len__(self):
        return 100

    def __getitem__(self, i):
        with self.counter.get_lock():
            self.counter.value += 1
        return i


def test_prefetch_factor_bounds_work_in_flight():
    import multiprocessing
    counter = multiprocessing.Value("i", 0)
    it = iter(DataLoader(Counting(counter), batch_size=1, num_workers=1, prefetch_factor=3, timeout=WT))
    assert next(it).item() == 0
    time.sleep(1.0)
    # one batch handed out, then at most prefetch_factor * num_workers more fetched ahead
    assert counter.value == 4
    del it


def test_getitems_is_used_for_batches():
    class Batched(Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            raise AssertionError("__getitems__ should have been used")

        def __getitems__(self, keys):
            return [k * 10 for k in keys]

    for workers in (0, 1):
        kw = dict(num_workers=workers, timeout=WT) if workers else {}
        assert [b.tolist() for b in DataLoader(Batched(), batch_size=4, **kw)] == [[0, 10, 20, 30], [40, 50]]


def test_shuffled_order_identical_with_and_without_workers_across_epochs():
    ds = TensorDataset(torchlike.arange(30))
    g = gen(21)
    single = [[b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g)] for _ in range(3)]
    g = gen(21)
    dl = DataLoader(ds, batch_size=4, shuffle=True, generator=g, num_workers=2, persistent_workers=True, timeout=WT)
    multi = [[b[0].tolist() for b in dl] for _ in range(3)]
    assert single == multi and single[0] != single[1]
    g = gen(21)
    fresh = [[b[0].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g, num_workers=2,
                                                 timeout=WT)] for _ in range(3)]
    assert fresh == single
    dl._iterator._shutdown_workers()


def test_worker_random_streams_reproducible_per_seed_and_distinct_per_worker():
    import random as pyrandom

    class Draws(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return (get_worker_info().id, torchlike.rand(1).item(), pyrandom.random(), float(np.random.rand()))

    def run(seed):
        return [tuple(x.tolist() if isinstance(x, torchlike.Tensor) else x for x in b)
                for b in DataLoader(Draws(), batch_size=None, num_workers=2, generator=gen(seed), timeout=WT)]
    a, b = run(3), run(3)
    assert a == b
    w0, w1 = a[0], a[1]
    assert w0[0] == 0 and w1[0] == 1
    assert w0[1] != w1[1] and w0[2] != w1[2] and w0[3] != w1[3]  # torchlike, random and NumPy all reseeded
    assert run(4) != a


def test_too_many_workers_warns():
    n = (os.cpu_count() or 1) + 5
    with pytest.warns(UserWarning, match=f"This DataLoader will create {n} worker processes in total"):
        DataLoader(Squares(2), num_workers=n)


def test_spawn_context_runs_workers():
    dl = DataLoader(Squares(6), batch_size=3, num_workers=1, multiprocessing_context="spawn", timeout=WT)
    assert [b.tolist() for b in dl] == [[0, 1, 4], [9, 16, 25]]


def test_persistent_loader_recovers_after_worker_error():
    dl = DataLoader(Failing(), batch_size=2, num_workers=1, persistent_workers=True, timeout=WT)
    with pytest.raises(KeyError, match="bad index 3"):
        list(dl)
    # a new epoch starts over on the same workers and fails at the same place
    it = iter(dl)
    assert next(it).tolist() == [0, 1]
    dl._iterator._shutdown_workers()


class Filled(Dataset):
    def __len__(self):
        return 48

    def __getitem__(self, i):
        return torchlike.full((1024,), float(i))


def test_recycled_batch_memory_never_overwrites_a_live_batch():
    # Workers collate into shared segments that come back to them once the main
    # process drops a batch; a batch still held must keep its values.
    dl = DataLoader(Filled(), batch_size=4, num_workers=2, persistent_workers=True, timeout=WT)
    kept = []
    for epoch in range(4):
        for k, batch in enumerate(dl):
            expected = [[float(4 * k + r)] * 1024 for r in range(4)]
            assert batch.tolist() == expected
            if k % 3 == 0:
                kept.append((k, batch))
            else:
                batch.mul_(-1)  # scribbling on a batch we drop must not leak into later ones
        del batch
    for k, batch in kept:
        assert batch.tolist() == [[float(4 * k + r)] * 1024 for r in range(4)]
    # dropped batches were reused, not re-created: few segments exist for 48 batches handed out
    prefix = dl._iterator._shm_prefix
    assert len(_shm_names(prefix)) <= len(kept) + 2 * (2 + 4 + 2)
    it = dl._iterator
    del dl
    it._shutdown_workers()
    assert _shm_names(prefix) == []
    assert kept[0][1].sum().item() == sum(range(4)) * 1024  # still readable after the names are gone


class RowViews(Dataset):
    """Samples are views of one big tensor: sending them shares that storage."""

    def __init__(self):
        self.rows = torchlike.arange(40.).reshape(10, 4)

    def __len__(self):
        return 10

    def __getitem__(self, i):
        return self.rows[i]


def test_unbatched_views_of_dataset_storage_stay_intact():
    # batch_size=None sends the dataset's own views; their storage must never be
    # recycled as a collation target, however often the main process drops them.
    dl = DataLoader(RowViews(), batch_size=None, num_workers=1, persistent_workers=True, timeout=WT)
    for epoch in range(3):
        got = []
        for row in dl:
            got.append(row.tolist())
            del row
        assert got == [[float(4 * i + c) for c in range(4)] for i in range(10)]
    dl._iterator._shutdown_workers()


def test_custom_collate_keeping_its_output_is_not_overwritten():
    kept = []

    def keep_first(batch):
        out = default_collate(batch)
        if get_worker_info() is not None and not kept:
            kept.append(out)  # the worker's own code holds on to this batch
        return out

    class Check(Dataset):
        def __len__(self):
            return 24

        def __getitem__(self, i):
            if i == 23:
                # by now many batches came back for reuse: the kept one must be untouched
                assert kept and kept[0].tolist() == [0, 1, 2, 3], kept[0].tolist()
            return i

    dl = DataLoader(Check(), batch_size=4, num_workers=1, collate_fn=keep_first, timeout=WT)
    assert [b.tolist() for b in dl] == [[4 * k + r for r in range(4)] for k in range(6)]


class Augmented(Dataset):
    """Random augmentation with torchlike's generator inside __getitem__."""

    def __len__(self):
        return 20

    def __getitem__(self, i):
        return torchlike.full((3,), float(i)) + torchlike.rand(3)


def test_random_augmentation_identical_for_any_worker_count():
    def epochs(**kw):
        g = gen(8)
        dl = DataLoader(Augmented(), batch_size=3, shuffle=True, generator=g, timeout=WT if kw else 0, **kw)
        out = [[b.tolist() for b in dl] for _ in range(3)]
        if kw.get("persistent_workers"):
            dl._iterator._shutdown_workers()
        return out
    ref = epochs()
    assert ref[0] != ref[1]  # a new epoch draws new augmentation
    assert epochs(num_workers=1) == ref
    assert epochs(num_workers=2) == ref
    assert epochs(num_workers=2, persistent_workers=True) == ref
    unordered = epochs(num_workers=2, in_order=False)
    assert [sorted(map(str, e)) for e in unordered] == [sorted(map(str, e)) for e in ref]


def test_loading_does_not_disturb_the_global_stream():
    ds = Augmented()
    dl = DataLoader(ds, batch_size=4, generator=gen(1))  # the loader's own generator seeds everything
    torchlike.manual_seed(5)
    expected = torchlike.rand(4).tolist()
    torchlike.manual_seed(5)
    list(dl)
    assert torchlike.rand(4).tolist() == expected
