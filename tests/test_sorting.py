"""sort/topk/kthvalue/median details the registry does not reach: NaN and
infinity placement, signed zeros, stability on the radix path, integer
extremes, non-contiguous inputs, and PyTorch parity where installed."""
import numpy as np
import pytest

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float32, tl.float64])
def test_nan_and_inf_placement(dtype):
    x = tl.tensor([1.0, NAN, -INF, INF, -NAN, 0.0, -2.0], dtype=dtype)
    v, i = tl.sort(x)
    assert np.asarray(i).tolist()[:5] == [2, 6, 5, 0, 3]
    assert sorted(np.asarray(i).tolist()[5:]) == [1, 4]  # both NaNs (any sign) last, in index order
    assert np.asarray(i).tolist()[5:] == [1, 4]
    v, i = tl.sort(x, descending=True)
    assert np.asarray(i).tolist() == [1, 4, 3, 0, 5, 6, 2]
    assert np.isnan(np.asarray(v.float())[:2]).all()


def test_signed_zeros_tie_and_keep_order():
    x = tl.tensor([0.0, -0.0, 0.0, -0.0])
    v, i = tl.sort(x, stable=True)
    assert np.asarray(i).tolist() == [0, 1, 2, 3]
    assert np.signbit(np.asarray(v)).tolist() == [False, True, False, True]


@pytest.mark.parametrize("dtype,np_dtype", [(tl.int8, np.int8), (tl.uint8, np.uint8), (tl.int16, np.int16),
                                            (tl.int32, np.int32), (tl.int64, np.int64), (tl.float32, np.float32)])
def test_radix_path_is_stable_with_duplicates(dtype, np_dtype):
    rng = np.random.default_rng(1)
    info = np.iinfo(np_dtype) if np.issubdtype(np_dtype, np.integer) else None
    if info is not None:
        a = rng.integers(info.min, info.max, 50000, endpoint=True).astype(np_dtype)
        a[::7] = info.min
        a[::11] = info.max
        a[::13] = 3
    else:
        a = rng.integers(-50, 50, 50000).astype(np_dtype)
    v, i = tl.sort(tl.tensor(a), stable=True)
    want = np.argsort(a, kind="stable")
    np.testing.assert_array_equal(np.asarray(i), want)
    np.testing.assert_array_equal(np.asarray(v), a[want])
    v, i = tl.sort(tl.tensor(a), descending=True, stable=True)
    want_d = np.argsort(-a.astype(np.float64), kind="stable")
    np.testing.assert_array_equal(np.asarray(i), want_d)


def test_bool_sort():
    a = np.array([True, False, True, False, False])
    v, i = tl.sort(tl.tensor(a))
    assert np.asarray(v).tolist() == [False, False, False, True, True]
    assert np.asarray(i).tolist() == [1, 3, 4, 0, 2]


def test_non_contiguous_inputs_and_dims():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 5, 4))
    t = tl.tensor(a).transpose(0, 2)  # 4x5x6 view
    for dim in range(3):
        v, i = tl.sort(t, dim=dim)
        np.testing.assert_array_equal(np.asarray(v), np.sort(a.transpose(2, 1, 0), axis=dim))
        vk, ik = tl.topk(t, 2, dim=dim)
        ref = -np.sort(-a.transpose(2, 1, 0), axis=dim)
        np.testing.assert_array_equal(np.asarray(vk), np.take(ref, [0, 1], axis=dim))
    m = tl.median(t, 2)
    np.testing.assert_array_equal(np.asarray(m.values), np.sort(a.transpose(2, 1, 0), axis=2)[..., 2])


def test_topk_unsorted_returns_the_same_set():
    a = np.random.default_rng(3).permutation(1000).astype(np.float32)
    v, i = tl.topk(tl.tensor(a), 10, sorted=False)
    assert sorted(np.asarray(v).tolist()) == list(range(990, 1000))
    np.testing.assert_array_equal(a[np.asarray(i)], np.asarray(v))


def test_median_of_empty_is_nan_and_kthvalue_errors():
    assert np.isnan(tl.median(tl.tensor([])).item())
    with pytest.raises(IndexError, match="selected number k out of range"):
        tl.kthvalue(tl.ones(3), 4)
    with pytest.raises(IndexError, match="selected index k out of range"):
        tl.topk(tl.ones(3), -1)


def test_grad_through_selection():
    x = tl.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], dtype=tl.float64, requires_grad=True)
    tl.median(x, 1).values.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [[0, 0, 1], [0, 0, 1]])
    x.grad = None
    tl.kthvalue(x, 1, 0).values.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [[0, 1, 1], [1, 0, 0]])


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
@pytest.mark.parametrize("shape,dim", [((1000,), 0), ((7, 300), 1), ((300, 7), 0), ((4, 5, 6), 1)])
def test_matches_pytorch(shape, dim):
    a = np.random.default_rng(4).integers(-20, 20, shape).astype(np.float32)  # with ties
    x, y = tl.tensor(a), torch.from_numpy(a)
    for desc in (False, True):
        v, i = tl.sort(x, dim=dim, descending=desc, stable=True)
        tv, ti = torch.sort(y, dim=dim, descending=desc, stable=True)
        np.testing.assert_array_equal(np.asarray(v), tv.numpy())
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    b = np.random.default_rng(5).permutation(int(np.prod(shape))).reshape(shape).astype(np.float32)  # no ties
    x, y = tl.tensor(b), torch.from_numpy(b)
    for largest in (True, False):
        v, i = tl.topk(x, 3, dim=dim, largest=largest)
        tv, ti = torch.topk(y, 3, dim=dim, largest=largest)
        np.testing.assert_array_equal(np.asarray(v), tv.numpy())
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    for fn in ("median", "nanmedian"):
        v, i = getattr(tl, fn)(x, dim)
        tv, ti = getattr(torch, fn)(y, dim)
        np.testing.assert_array_equal(np.asarray(v), tv.numpy())
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    v, i = tl.kthvalue(x, 2, dim)
    tv, ti = torch.kthvalue(y, 2, dim)
    np.testing.assert_array_equal(np.asarray(v), tv.numpy())
    np.testing.assert_array_equal(np.asarray(i), ti.numpy())
