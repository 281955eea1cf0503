"""searchsorted's sorter and NaN placement, bucketize/isin scalar forms,
bincount/histc/cummax details, against NumPy and, where installed, PyTorch."""
import numpy as np
import pytest

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None


def test_searchsorted_sorter_and_nan():
    seq = np.array([5.0, 1.0, 3.0, 2.0])
    sorter = np.argsort(seq)
    v = np.array([0.0, 2.0, 2.5, 6.0, np.nan])
    got = tl.searchsorted(tl.tensor(seq), tl.tensor(v), sorter=tl.tensor(sorter))
    want = np.searchsorted(np.sort(seq), v)  # NumPy also puts NaN past the end
    np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(IndexError, match="sorter index out of range"):
        tl.searchsorted(tl.tensor(seq), tl.tensor(v), sorter=tl.tensor([0, 1, 2, 9]))
    with pytest.raises(RuntimeError, match="sorter must be a tensor of long"):
        tl.searchsorted(tl.tensor(seq), tl.tensor(v), sorter=tl.tensor([0, 1, 2, 3], dtype=tl.int32))
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        tl.searchsorted(tl.ones(2, 3), tl.ones(3, 3))


def test_scalar_forms():
    assert tl.bucketize(3, tl.tensor([1, 3, 5])).item() == 1
    assert tl.bucketize(3, tl.tensor([1, 3, 5]), right=True).item() == 2
    assert tl.isin(2, tl.tensor([1, 2])).item() is True
    assert np.asarray(tl.isin(tl.tensor([1, 4]), 4)).tolist() == [False, True]
    assert np.asarray(tl.isin(tl.tensor([1, 4]), tl.tensor([], dtype=tl.int64))).tolist() == [False, False]


def test_bincount_histc_cum_details():
    np.testing.assert_array_equal(np.asarray(tl.bincount(tl.tensor([], dtype=tl.int64))), [])
    assert tl.bincount(tl.tensor([1, 1]), tl.tensor([1, 2])).dtype == tl.float64  # integer weights: double
    np.testing.assert_array_equal(np.asarray(tl.histc(tl.tensor([1.0, 1.0]), bins=2)), [0, 2])  # min == max: +-1
    v, i = tl.cummin(tl.tensor([[3, 1, 1, 2]]), 1)
    assert np.asarray(i).tolist() == [[0, 1, 2, 2]]  # ties take the latest index, as PyTorch
    x = tl.tensor([[1.0, 3.0, 2.0], [0.0, -1.0, 5.0]], dtype=tl.float64, requires_grad=True)
    tl.cummin(x, 1).values.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [[3, 0, 0], [1, 2, 0]])


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_parity_with_pytorch():
    rng = np.random.default_rng(0)
    seq = np.sort(rng.integers(-5, 5, (3, 8)).astype(np.float32), axis=1)
    vals = rng.integers(-6, 6, (3, 5)).astype(np.float32)
    for right in (False, True):
        a = tl.searchsorted(tl.tensor(seq), tl.tensor(vals), right=right)
        b = torch.searchsorted(torch.from_numpy(seq), torch.from_numpy(vals), right=right)
        np.testing.assert_array_equal(np.asarray(a), b.numpy())
    x = rng.integers(-3, 3, (4, 6)).astype(np.float32)
    for fn in ("cummax", "cummin"):
        for d in (0, 1):
            a, b = getattr(tl, fn)(tl.tensor(x), d), getattr(torch, fn)(torch.from_numpy(x), d)
            np.testing.assert_array_equal(np.asarray(a.values), b.values.numpy())
            np.testing.assert_array_equal(np.asarray(a.indices), b.indices.numpy())
    h = rng.standard_normal(100).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(tl.histc(tl.tensor(h), bins=9, min=-2, max=2)),
                                  torch.histc(torch.from_numpy(h), bins=9, min=-2, max=2).numpy())
    c = rng.integers(0, 7, 30)
    np.testing.assert_array_equal(np.asarray(tl.bincount(tl.tensor(c), minlength=9)),
                                  torch.bincount(torch.from_numpy(c), minlength=9).numpy())
    e, t = rng.integers(0, 9, (3, 4)), rng.integers(0, 9, 5)
    np.testing.assert_array_equal(np.asarray(tl.isin(tl.tensor(e), tl.tensor(t), invert=True)),
                                  torch.isin(torch.from_numpy(e), torch.from_numpy(t), invert=True).numpy())
