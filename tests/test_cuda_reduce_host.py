"""The CUDA reductions' device-neutral half (aten/native/ReduceTree.h), run on
the CPU through torchlike._C test hooks: the launch plan of real tensors'
geometry, and every reduction and scan simulated block by block with the
kernels' own folds, warp/block lane trees and split (grid) pass, checked
against NumPy on random shapes, dim sets, layouts and launch limits,
including NaN, ties, empty reductions and float16/bfloat16. No GPU needed."""
import itertools
import math
import random

import numpy as np
import pytest

import torchlike
from torchlike import _C

# (max_threads, target_blocks, min_per_thread): the kernels' defaults on an
# H100 (132 SMs), and limits that make small inputs use many lanes, several
# warps per output and many slices of the reduced range.
LIMITS = [(512, 4 * 132, 16), (64, 64, 1), (1024, 1000, 2), (32, 0, 1), (256, 7, 3)]


def _plan(t, dims, limits=LIMITS[0]):
    return _C._cuda_reduce_plan(t, list(dims), *limits)


def _sim(op, t, dims=None, keepdim=False, arg=0.0, limits=LIMITS[0]):
    return _C._cuda_reduce_simulate(op, t, None if dims is None else list(dims), keepdim, float(arg), *limits)


def _np(t):
    return t.numpy()


def _random_case(rng, max_dims=4, big=False):
    nd = rng.randint(0, max_dims)
    shape = [rng.choice([1, 2, 3, 5, 7, 16, 33]) for _ in range(nd)]
    if big and nd:
        shape[rng.randrange(nd)] = rng.choice([300, 1031, 2048])
    dims = [d for d in range(nd) if rng.random() < 0.5]
    return shape, dims


def _layouts(a):
    """The array as a contiguous tensor, transposed, and as a strided slice."""
    yield torchlike.from_numpy(a.copy(order="C"))  # (ascontiguousarray would make a 0-dim array 1-dim)
    if a.ndim >= 2:
        t = torchlike.from_numpy(np.ascontiguousarray(np.swapaxes(a, 0, -1))).transpose(0, -1)
        assert tuple(t.shape) == a.shape
        yield t
    if a.ndim >= 1:
        wide = np.repeat(a, 2, axis=-1)
        t = torchlike.from_numpy(np.ascontiguousarray(wide))[..., ::2]
        assert tuple(t.shape) == a.shape
        yield t


# ---------------------------------------------------------------- the plan

def test_geometry_merges_contiguous_neighbours_and_drops_size_one():
    x = torchlike.empty(4, 5, 6)
    p = _plan(x, [1])
    assert p["kept"] == [(4, 30), (6, 1)] and p["reduced"] == [(5, 6)]
    p = _plan(x, [1, 2])
    assert p["kept"] == [(4, 30)] and p["reduced"] == [(30, 1)]
    p = _plan(torchlike.empty(4, 1, 6), [0, 1])
    assert p["kept"] == [(6, 1)] and p["reduced"] == [(4, 6)]
    assert p["num_outputs"] == 6 and p["reduce_numel"] == 4
    # kept dims on both sides of a reduced one stay apart
    p = _plan(torchlike.empty(3, 4, 5), [1])
    assert p["kept"] == [(3, 20), (5, 1)]


def test_geometry_keeps_reduced_dims_row_major_for_transposed_input():
    x = torchlike.empty(6, 5).t()  # shape (5, 6), strides (1, 5)
    p = _plan(x, [0, 1])
    assert p["reduced"] == [(5, 1), (6, 5)]  # not merged, not reordered: argmax's flat index is row-major


def test_layout_choice_follows_the_fastest_dim():
    x = torchlike.empty(64, 128)
    assert not _plan(x, [1])["outputs_on_x"]   # x.sum(1): lanes read neighbouring elements
    assert _plan(x, [0])["outputs_on_x"]       # x.sum(0): threads read neighbouring outputs
    assert _plan(x.t(), [1])["outputs_on_x"]       # the same memory walk as x.sum(0)
    assert not _plan(x.t(), [0])["outputs_on_x"]


@pytest.mark.parametrize("limits", LIMITS)
def test_launch_invariants(limits):
    rng = random.Random(7)
    for _ in range(300):
        shape, dims = _random_case(rng, big=rng.random() < 0.3)
        x = torchlike.empty(shape)
        p = _plan(x, dims, limits)
        max_threads, target, _ = limits
        nthreads = p["threads_x"] * p["threads_y"]
        assert nthreads <= max_threads
        if not p["outputs_on_x"]:  # warp shuffles need whole warps
            assert nthreads % 32 == 0
        assert p["lanes"] & (p["lanes"] - 1) == 0
        assert p["lanes"] == (p["threads_y"] if p["outputs_on_x"] else p["threads_x"])
        assert p["blocks_x"] * p["outputs_per_block"] >= p["num_outputs"]
        assert (p["blocks_x"] - 1) * p["outputs_per_block"] < max(p["num_outputs"], 1)
        assert 1 <= p["splits"] <= 65535
        if p["splits"] > 1:
            assert p["splits"] * p["per_split"] >= p["reduce_numel"] > (p["splits"] - 1) * p["per_split"]
            assert p["blocks_x"] < target
        else:
            assert p["per_split"] == p["reduce_numel"]


def test_long_reduction_with_few_outputs_is_split_across_blocks():
    p = _plan(torchlike.empty(1 << 20), [0])
    assert p["num_outputs"] == 1 and p["splits"] > 100 and p["lanes"] == 512
    p = _plan(torchlike.empty(8192, 8192), [1])  # enough outputs to fill the device: no split
    assert p["splits"] == 1


# ---------------------------------------------------------------- simulated reductions vs NumPy

def _np_reduce(fn, a, dims, keepdim, **kw):
    axis = tuple(dims) if dims else None
    if a.ndim == 0:
        axis = None
    return fn(a, axis=axis, keepdims=keepdim, **kw)


def _cases(seed, n=40, big=True):
    rng = random.Random(seed)
    for i in range(n):
        shape, dims = _random_case(rng, big=big and rng.random() < 0.25)
        yield shape, dims, rng.random() < 0.5, LIMITS[i % len(LIMITS)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_sum_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    for shape, dims, keepdim, limits in _cases(11):
        a = (rng.standard_normal(shape) * 10).astype(dtype) if dtype != "bool" else rng.random(shape) < 0.5
        want = _np_reduce(np.sum, a.astype(np.float64 if "float" in dtype else np.int64), dims, keepdim)
        for t in _layouts(a):
            got = _np(_sim("sum", t, dims, keepdim, limits=limits))
            assert got.shape == np.shape(want)
            if "float" in dtype:
                assert got.dtype == np.dtype(dtype)
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
            else:
                assert got.dtype == np.int64
                np.testing.assert_array_equal(got, want)


def test_integer_sum_wraps_like_int64():
    a = np.full(1000, 2 ** 62, dtype=np.int64)
    got = _np(_sim("sum", torchlike.from_numpy(a), limits=(64, 64, 1)))
    assert got == np.sum(a)  # NumPy wraps the same way


def test_mean_and_prod_match_numpy():
    rng = np.random.default_rng(2)
    for shape, dims, keepdim, limits in _cases(12):
        a = rng.uniform(0.95, 1.05, shape)  # long products stay representable
        for t in _layouts(a):
            np.testing.assert_allclose(_np(_sim("mean", t, dims, keepdim, limits=limits)),
                                       _np_reduce(np.mean, a, dims, keepdim), rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(_np(_sim("prod", t, dims, keepdim, limits=limits)),
                                       _np_reduce(np.prod, a, dims, keepdim), rtol=1e-9)
        ai = rng.integers(-3, 4, shape).astype(np.int32)
        np.testing.assert_array_equal(_np(_sim("prod", torchlike.from_numpy(ai), dims, keepdim, limits=limits)),
                                      _np_reduce(np.prod, ai.astype(np.int64), dims, keepdim))


def test_mean_rejects_integer_input_like_the_cpu():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        _sim("mean", torchlike.from_numpy(np.arange(4)))


@pytest.mark.parametrize("op,npfn", [("amax", np.max), ("amin", np.min)])
def test_amax_amin_with_nan(op, npfn):
    rng = np.random.default_rng(3)
    for shape, dims, keepdim, limits in _cases(13):
        if 0 in shape:
            continue
        a = rng.integers(-5, 5, shape).astype(np.float32)
        a[rng.random(shape) < 0.05] = np.nan
        for t in _layouts(a):
            got = _np(_sim(op, t, dims, keepdim, limits=limits))
            np.testing.assert_array_equal(got, _np_reduce(npfn, a, dims, keepdim))  # NaN propagates
        ai = rng.integers(-100, 100, shape).astype(np.int16)
        np.testing.assert_array_equal(_np(_sim(op, torchlike.from_numpy(ai), dims, keepdim, limits=limits)),
                                      _np_reduce(npfn, ai, dims, keepdim))


@pytest.mark.parametrize("limits", LIMITS)
def test_argmax_argmin_take_the_first_of_ties_and_of_nans(limits):
    rng = np.random.default_rng(4)
    for _ in range(30):
        shape = list(rng.integers(1, 9, rng.integers(1, 4)))
        shape[rng.integers(len(shape))] = int(rng.choice([40, 257, 1500]))
        a = rng.integers(0, 3, shape).astype(np.float64)  # many ties
        if rng.random() < 0.5:
            a[rng.random(shape) < 0.01] = np.nan
        for d in range(a.ndim):
            for t in _layouts(a):
                for op, npfn in (("argmax", np.argmax), ("argmin", np.argmin)):
                    got = _np(_sim(op, t, [d], limits=limits))
                    np.testing.assert_array_equal(got, npfn(a, axis=d))
                vals, idx = _sim("max_dim", t, [d], True, limits=limits)
                np.testing.assert_array_equal(_np(idx), np.expand_dims(np.argmax(a, axis=d), d))
                np.testing.assert_array_equal(_np(vals), np.expand_dims(np.max(a, axis=d), d))
        # flattened (dim=None): the index is row-major over every dim, whatever the layout
        for t in _layouts(a):
            assert _np(_sim("argmax", t, None, limits=limits)) == np.argmax(a)
            assert _np(_sim("argmin", t, None, limits=limits)) == np.argmin(a)


def test_min_dim_on_integers_and_bool():
    a = np.array([[3, 1, 1, 2], [0, 0, 5, 0]], dtype=np.int8)
    v, i = _sim("min_dim", torchlike.from_numpy(a), [1], limits=(64, 64, 1))
    np.testing.assert_array_equal(_np(v), [1, 0])
    np.testing.assert_array_equal(_np(i), [1, 0])
    b = np.array([[False, True, True], [False, False, False]])
    v, i = _sim("max_dim", torchlike.from_numpy(b), [1])
    np.testing.assert_array_equal(_np(v), [True, False])
    np.testing.assert_array_equal(_np(i), [1, 0])


@pytest.mark.parametrize("correction", [0, 1, 2.5])
def test_var_std_welford_match_numpy(correction):
    rng = np.random.default_rng(5)
    for shape, dims, keepdim, limits in _cases(14):
        # a large common offset: the naive sum-of-squares formula would lose every digit
        a = rng.standard_normal(shape) + 1e6
        n = int(np.prod([shape[d] for d in dims])) if dims else int(np.prod(shape))
        with np.errstate(all="ignore"):
            want = _np_reduce(np.var, a, dims, keepdim) * n / max(0, n - correction) if n else \
                np.full(np.shape(_np_reduce(np.sum, a, dims, keepdim)), np.nan)
        for t in _layouts(a):
            got = _np(_sim("var", t, dims, keepdim, correction, limits))
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
            np.testing.assert_allclose(_np(_sim("std", t, dims, keepdim, correction, limits)), np.sqrt(want),
                                       rtol=1e-7, atol=1e-9)


def test_var_float32_accumulates_stably():
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(100000) + 1000).astype(np.float32)
    for limits in LIMITS:
        got = _np(_sim("var", torchlike.from_numpy(a), None, False, 1, limits))
        np.testing.assert_allclose(got, np.var(a.astype(np.float64), ddof=1), rtol=1e-3)


@pytest.mark.parametrize("p", [2, 1, 0, math.inf, -math.inf, 3.5, 0.5])
def test_norm_matches_numpy(p):
    rng = np.random.default_rng(7)
    for shape, dims, keepdim, limits in _cases(15):
        a = rng.standard_normal(shape)
        a[rng.random(shape) < 0.1] = 0
        if math.isinf(p) and 0 in shape:
            continue
        m = np.abs(a)
        if p == 0:
            want = _np_reduce(np.sum, (a != 0).astype(np.float64), dims, keepdim)
        elif math.isinf(p):
            want = _np_reduce(np.max if p > 0 else np.min, m, dims, keepdim)
        else:
            want = _np_reduce(np.sum, m ** p, dims, keepdim) ** (1 / p)
        for t in _layouts(a):
            np.testing.assert_allclose(_np(_sim("norm", t, dims, keepdim, p, limits)), want, rtol=1e-10)


def test_norm_propagates_nan():
    a = np.array([1.0, np.nan, 3.0])
    for p in (2, 1, math.inf, -math.inf, 3):
        assert np.isnan(_np(_sim("norm", torchlike.from_numpy(a), None, False, p, (64, 64, 1))))


@pytest.mark.parametrize("op,npfn", [("any", np.any), ("all", np.all)])
def test_any_all_match_numpy(op, npfn):
    rng = np.random.default_rng(8)
    for shape, dims, keepdim, limits in _cases(16):
        for dtype in ("float32", "int64", "bool", "uint8"):
            a = (rng.random(shape) < 0.9).astype(dtype) if dtype != "float32" else \
                np.where(rng.random(shape) < 0.9, rng.choice([-0.0, np.nan, 2.0], shape), 0.0).astype(dtype)
            got = _np(_sim(op, torchlike.from_numpy(a), dims, keepdim, limits=limits))
            assert got.dtype == (np.uint8 if dtype == "uint8" else np.bool_)
            # an empty dim list reduces nothing for any/all
            want = npfn(a, axis=tuple(dims), keepdims=keepdim) if a.ndim else npfn(a)
            np.testing.assert_array_equal(got.astype(bool), want)


def test_empty_reductions_give_identities_and_nan():
    z = torchlike.from_numpy(np.zeros((3, 0, 4)))
    for limits in LIMITS[:2]:
        np.testing.assert_array_equal(_np(_sim("sum", z, [1], limits=limits)), np.zeros((3, 4)))
        np.testing.assert_array_equal(_np(_sim("prod", z, [1], limits=limits)), np.ones((3, 4)))
        assert np.isnan(_np(_sim("mean", z, [1], limits=limits))).all()
        assert np.isnan(_np(_sim("var", z, [1], False, 1, limits))).all()
        np.testing.assert_array_equal(_np(_sim("norm", z, [1], False, 2, limits)), np.zeros((3, 4)))
        np.testing.assert_array_equal(_np(_sim("any", z, [1], limits=limits)), np.zeros((3, 4), bool))
        np.testing.assert_array_equal(_np(_sim("all", z, [1], limits=limits)), np.ones((3, 4), bool))
        assert _np(_sim("sum", z, [0], limits=limits)).shape == (0, 4)  # no outputs: nothing launched
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        _sim("amax", z, [1])
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        _sim("argmax", z, [1])


def test_float16_and_bfloat16_accumulate_in_float():
    rng = np.random.default_rng(9)
    # 4096 ones + small values: a float16 accumulator would stall at 2048
    a = np.ones(4096, dtype=np.float16)
    for limits in LIMITS:
        assert float(_np(_sim("sum", torchlike.from_numpy(a), limits=limits))) == 4096
    for shape, dims, keepdim, limits in _cases(17, n=20):
        a = rng.standard_normal(shape).astype(np.float16)
        ref = a.astype(np.float64)
        t = torchlike.from_numpy(a)
        got = _np(_sim("sum", t, dims, keepdim, limits=limits))
        assert got.dtype == np.float16
        np.testing.assert_allclose(got.astype(np.float64), _np_reduce(np.sum, ref, dims, keepdim), rtol=2e-3,
                                   atol=2e-2)
        tb = t.to(torchlike.bfloat16)
        refb = tb.float().numpy().astype(np.float64)
        got = _sim("mean", tb, dims, keepdim, limits=limits)
        assert got.dtype == torchlike.bfloat16
        np.testing.assert_allclose(got.float().numpy(), _np_reduce(np.mean, refb, dims, keepdim), rtol=1e-2,
                                   atol=1e-2)
        if 0 not in shape:
            np.testing.assert_array_equal(_np(_sim("amax", t, dims, keepdim, limits=limits)),
                                          _np_reduce(np.max, a, dims, keepdim))
            np.testing.assert_allclose(_np(_sim("std", t, dims, keepdim, 1, limits)).astype(np.float64),
                                       _np_reduce(np.std, ref, dims, keepdim, ddof=1), rtol=5e-3, atol=5e-3)


def test_unknown_op_and_bad_limits_raise():
    x = torchlike.ones(3)
    with pytest.raises(ValueError, match="unknown op"):
        _sim("median", x)
    with pytest.raises(ValueError, match="power of two"):
        _sim("sum", x, limits=(48, 0, 1))


# ---------------------------------------------------------------- scans

@pytest.mark.parametrize("prod", [False, True])
def test_scan_matches_numpy(prod):
    rng = np.random.default_rng(10)
    npfn = np.cumprod if prod else np.cumsum
    for shape in [(5,), (70,), (3, 100), (100, 3), (2, 33, 4), (4, 1, 65), (0, 3), ()]:
        a = rng.uniform(0.9, 1.1, shape) if prod else rng.standard_normal(shape)
        for d in range(max(len(shape), 1)):
            got = _np(_C._cuda_scan_simulate(torchlike.from_numpy(a), d, prod))
            want = npfn(a, axis=d) if a.ndim else a
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    ai = rng.integers(-2, 3, (3, 70)).astype(np.int16)
    got = _np(_C._cuda_scan_simulate(torchlike.from_numpy(ai), 1, prod))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, npfn(ai.astype(np.int64), axis=1))
    b = rng.random((2, 40)) < 0.7
    np.testing.assert_array_equal(_np(_C._cuda_scan_simulate(torchlike.from_numpy(b), 1, prod)),
                                  npfn(b.astype(np.int64), axis=1))


def test_scan_float16_accumulates_in_float():
    a = np.ones(5000, dtype=np.float16)
    got = _np(_C._cuda_scan_simulate(torchlike.from_numpy(a), 0, False))
    assert got.dtype == np.float16 and got[2047] == 2048 and got[-1] == 5000


def test_logsumexp_is_stable_and_handles_infinities():
    rng = np.random.default_rng(11)
    for shape, dims, keepdim, limits in _cases(18):
        a = rng.standard_normal(shape) * 50 + 700  # exp(a) overflows float64
        with np.errstate(all="ignore"):
            m = _np_reduce(np.max, a, dims, True) if a.size else np.zeros([1] * a.ndim)
            want = np.log(_np_reduce(np.sum, np.exp(a - m), dims, True)) + m
            if not keepdim:
                want = want.reshape(np.shape(_np_reduce(np.sum, a, dims, False)))
        for t in _layouts(a):
            got = _np(_sim("logsumexp", t, dims, keepdim, limits=limits))
            if a.size:
                np.testing.assert_allclose(got, want, rtol=1e-12)
            else:
                assert np.all(got == -np.inf)  # an empty sum of exponentials
    inf = np.inf
    rows = np.array([[-inf, -inf], [inf, 1.0], [inf, inf], [np.nan, 1.0], [-inf, 0.0]])
    got = _np(_sim("logsumexp", torchlike.from_numpy(rows), [1], limits=(64, 64, 1)))
    np.testing.assert_array_equal(got, [-inf, inf, inf, np.nan, 0.0])
    ints = np.arange(6).reshape(2, 3)
    got = _sim("logsumexp", torchlike.from_numpy(ints), [1])
    assert got.dtype == torchlike.float32
    np.testing.assert_allclose(got.numpy(), np.log(np.exp(ints).sum(1)), rtol=1e-6)
