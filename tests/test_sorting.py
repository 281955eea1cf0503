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


# ---- the long-row paths: range-trimmed keys, packed words, radix split across threads ----
# Size thresholds in csrc/aten/native/cpu/Sorting.cpp: rows of >= 2048 take the radix
# sort; with 2+ threads a single row of >= 2 * 65536 splits its passes across threads.
# (threads, n): the radix threshold on one thread, the split threshold on two.
RADIX_SIZES = [(1, 2047), (1, 2048), (1, 2049), (2, 2 * 65536 - 1), (2, 2 * 65536)]


@pytest.fixture
def with_threads():
    old = tl.get_num_threads()
    yield tl.set_num_threads
    tl.set_num_threads(old)


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request, with_threads):
    with_threads(request.param)
    return request.param


def _check_stable_sort(a, descending=False):
    v, i = tl.sort(tl.tensor(a), descending=descending, stable=True)
    # A stable descending order = stable ascending order of the negated key;
    # for unsigned/bool data, negate through int64 / a rank instead.
    if descending:
        ranks = np.unique(a, return_inverse=True)[1].reshape(a.shape)
        want = np.argsort(-ranks, kind="stable")
    else:
        want = np.argsort(a, kind="stable")
    np.testing.assert_array_equal(np.asarray(i), want)
    np.testing.assert_array_equal(np.asarray(v), a[want])


@pytest.mark.parametrize("nthreads,n", RADIX_SIZES)
@pytest.mark.parametrize("np_dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.bool_])
def test_long_integer_rows_stable_with_extremes(with_threads, nthreads, n, np_dtype):
    with_threads(nthreads)
    rng = np.random.default_rng(n)
    if np_dtype == np.bool_:
        a = rng.integers(0, 2, n).astype(bool)
    else:
        info = np.iinfo(np_dtype)
        a = rng.integers(info.min, info.max, n, endpoint=True).astype(np_dtype)
        a[::7] = info.min
        a[::11] = info.max
        a[::13] = 0
    for descending in (False, True):
        _check_stable_sort(a, descending)


@pytest.mark.parametrize("nthreads,n", [(1, 2049), (2, 2 * 65536 + 1)])
def test_int64_key_ranges(with_threads, nthreads, n):
    with_threads(nthreads)
    rng = np.random.default_rng(9)
    cases = {
        "narrow with negatives (one radix pass)": rng.integers(-3, 3, n),
        "low digits constant (skipped)": rng.integers(-40, 40, n) << 22,
        "all equal": np.full(n, -(2**62)),
        "32-bit span": rng.integers(-2**31, 2**31, n),
        "full 64-bit span (unpacked items)": rng.integers(-2**63, 2**63 - 1, n, endpoint=True),
    }
    for name, a in cases.items():
        a = a.astype(np.int64)
        for descending in (False, True):
            _check_stable_sort(a, descending)


@pytest.mark.parametrize("nthreads,n", RADIX_SIZES)
@pytest.mark.parametrize("np_dtype", [np.float16, np.float32, np.float64])
def test_long_float_rows_nan_zero_inf(with_threads, nthreads, n, np_dtype):
    with_threads(nthreads)
    rng = np.random.default_rng(n + 1)
    a = rng.standard_normal(n).astype(np_dtype)
    a[::17] = np.nan
    a[5::19] = -0.0
    a[7::19] = 0.0
    a[::23] = np.inf
    a[3::29] = -np.inf
    a[::31] = -np.nan
    dt = {np.float16: tl.float16, np.float32: tl.float32, np.float64: tl.float64}[np_dtype]
    x = tl.tensor(a).to(dt)
    v, i = tl.sort(x, stable=True)
    want = np.argsort(a, kind="stable")  # NumPy also puts NaN last, ties (-0.0 == 0.0) stable
    np.testing.assert_array_equal(np.asarray(i), want)
    np.testing.assert_array_equal(np.signbit(np.asarray(v.float())), np.signbit(a[want].astype(np.float32)))
    v, i = tl.sort(x, descending=True, stable=True)
    nan = np.isnan(a)
    want_d = np.concatenate([np.flatnonzero(nan), np.flatnonzero(~nan)[np.argsort(-a[~nan], kind="stable")]])
    np.testing.assert_array_equal(np.asarray(i), want_d)


def test_long_rows_bfloat16():
    a = np.random.default_rng(3).integers(-256, 256, 5000).astype(np.float32)  # exact in bfloat16
    v, i = tl.sort(tl.tensor(a).to(tl.bfloat16), stable=True)
    want = np.argsort(a, kind="stable")
    np.testing.assert_array_equal(np.asarray(i), want)
    np.testing.assert_array_equal(np.asarray(v.float()), a[want])


def test_long_rows_non_contiguous_and_batched(threads):
    rng = np.random.default_rng(11)
    big = rng.integers(-1000, 1000, 2 * (2 * 65536 + 3)).astype(np.int64)
    a = big[::2]  # strided single long row
    v, i = tl.sort(tl.tensor(big)[::2], stable=True)
    np.testing.assert_array_equal(np.asarray(i), np.argsort(a, kind="stable"))
    m = rng.standard_normal((5000, 3)).astype(np.float32)  # long rows along dim 0, strided
    for desc in (False, True):
        v, i = tl.sort(tl.tensor(m), dim=0, descending=desc, stable=True)
        want = np.argsort(-m if desc else m, axis=0, kind="stable")
        np.testing.assert_array_equal(np.asarray(i), want)
        np.testing.assert_array_equal(np.asarray(v), np.take_along_axis(m, want, 0))


@pytest.mark.parametrize("n,k", [(100000, 1), (100000, 1000), (100000, 6250), (100000, 6251),
                                 (20000, 20000), (2049, 32), (37, 0)])
@pytest.mark.parametrize("np_dtype", [np.float32, np.float64, np.int64, np.int16])
def test_topk_heap_and_partition_paths(n, k, np_dtype):
    # k * 16 <= n selects with a heap, larger k with nth_element (6250/6251 straddle it)
    rng = np.random.default_rng(k)
    a = rng.integers(-50, 50, n).astype(np_dtype)  # many ties: lower position first
    for largest in (True, False):
        v, i = tl.topk(tl.tensor(a), k, largest=largest)
        key = -a.astype(np.float64) if largest else a
        want = np.argsort(key, kind="stable")[:k]
        np.testing.assert_array_equal(np.asarray(i), want)
        np.testing.assert_array_equal(np.asarray(v), a[want])
        v, i = tl.topk(tl.tensor(a), k, largest=largest, sorted=False)
        np.testing.assert_array_equal(np.sort(np.asarray(i)), np.sort(want))
        np.testing.assert_array_equal(a[np.asarray(i)], np.asarray(v))


def test_topk_nan_is_largest():
    a = np.random.default_rng(2).standard_normal(100000).astype(np.float32)
    a[[10, 500, 99999]] = np.nan
    v, i = tl.topk(tl.tensor(a), 5)
    assert np.asarray(i).tolist()[:3] == [10, 500, 99999]
    assert np.isnan(np.asarray(v)[:3]).all()
    v, i = tl.topk(tl.tensor(a), 5, largest=False)
    np.testing.assert_array_equal(np.asarray(v), np.sort(a)[:5])


def test_kthvalue_and_median_long_rows():
    a = np.random.default_rng(6).permutation(300001).astype(np.float64) - 150000
    x = tl.tensor(a)
    for k in (1, 1000, 150001, 300001):
        v, i = tl.kthvalue(x, k)
        assert v.item() == np.sort(a)[k - 1] and a[i.item()] == v.item()
    assert tl.median(x).item() == np.median(a)
    a[77] = np.nan
    assert tl.median(tl.tensor(a), 0).indices.item() == 77
    rest = np.sort(a[~np.isnan(a)])
    v, i = tl.nanmedian(tl.tensor(a), 0)
    assert v.item() == rest[(rest.size - 1) // 2] and a[i.item()] == v.item()  # the lower middle, as PyTorch


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
@pytest.mark.parametrize("np_dtype", [np.int64, np.float32])
def test_long_rows_match_pytorch(threads, np_dtype):
    rng = np.random.default_rng(12)
    a = (rng.integers(-2**31, 2**31, 2 * 65536 + 5) if np.issubdtype(np_dtype, np.integer)
         else rng.standard_normal(2 * 65536 + 5)).astype(np_dtype)
    a[::9] = a[0]  # ties
    x, y = tl.tensor(a), torch.from_numpy(a)
    for desc in (False, True):
        v, i = tl.sort(x, descending=desc, stable=True)
        tv, ti = torch.sort(y, descending=desc, stable=True)
        np.testing.assert_array_equal(np.asarray(v), tv.numpy())
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    b = rng.permutation(a.size).astype(np_dtype)  # no ties: PyTorch's tie order is unspecified
    for k in (10, 1000, 20000):
        v, i = tl.topk(tl.tensor(b), k)
        tv, ti = torch.topk(torch.from_numpy(b), k)
        np.testing.assert_array_equal(np.asarray(i), ti.numpy())
        np.testing.assert_array_equal(np.asarray(v), tv.numpy())
