"""Matrix products beyond the OpInfo table: strided/transposed operands (the
BLAS trans/ld paths and the copy fallback), linear, meta shapes of every
matmul case, and parity with PyTorch."""
import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch

F32, F64 = np.float32, np.float64
LAYOUTS = ("contiguous", "column-major", "row stride > cols", "column step 2", "broadcast row", "negative-free slice")


def arr(shape, dtype=F32, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-2, 2, size=shape).astype(dtype)
    return rng.integers(-5, 6, size=shape).astype(dtype)


def in_layout(base, layout):
    """The same 2-D values as a numpy array with the named memory layout;
    torchlike.from_numpy keeps the strides, so kernels see that layout."""
    r, c = base.shape
    if layout == "contiguous":
        a = np.ascontiguousarray(base)
    elif layout == "column-major":
        a = np.asfortranarray(base)
    elif layout == "row stride > cols":
        wide = np.zeros((r, c + 3), base.dtype)
        wide[:, :c] = base
        a = wide[:, :c]
    elif layout == "column step 2":
        dbl = np.zeros((r, 2 * c), base.dtype)
        dbl[:, ::2] = base
        a = dbl[:, ::2]
    elif layout == "broadcast row":
        a = np.lib.stride_tricks.as_strided(base[0].copy(), (r, c), (0, base.itemsize))
        base[:] = base[0]
    else:  # row step 2: row-major with ld = 2 * cols
        tall = np.zeros((2 * r, c), base.dtype)
        tall[::2] = base
        a = tall[::2]
    np.testing.assert_array_equal(a, base)
    return a


def check(got, want, dtype):
    got = np.asarray(got)
    assert got.shape == want.shape
    if np.dtype(dtype).kind == "f":
        tol = 1e-5 if np.dtype(dtype) == F32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [F32, F64, np.int32, np.int64])
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_mm_strided_operands(dtype, la, lb):
    a0, b0 = arr((7, 5), dtype, 1), arr((5, 6), dtype, 2)
    a, b = in_layout(a0, la), in_layout(b0, lb)
    want = (a0.astype(F64) @ b0.astype(F64)).astype(dtype) if np.dtype(dtype).kind == "f" else a0 @ b0
    ta, tb = tl.from_numpy(a), tl.from_numpy(b)
    check(tl.mm(ta, tb), want, dtype)
    check(tl.addmm(tl.from_numpy(arr((6,), dtype, 3)), ta, tb), want + arr((6,), dtype, 3), dtype)
    # operands are read, never written
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


@pytest.mark.parametrize("dtype", [F32, F64, np.int64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mv_and_vector_matmul_strided(dtype, layout):
    m0 = arr((6, 4), dtype, 1)
    m = tl.from_numpy(in_layout(m0.copy(), layout))
    m0 = np.asarray(m)  # "broadcast row" rewrites the values
    v0 = arr((8,), dtype, 2)
    v = tl.from_numpy(v0[::2])  # stride-2 vector: BLAS incx path
    check(tl.mv(m, v), m0 @ v0[::2], dtype)
    w0 = arr((12,), dtype, 3)
    w = tl.from_numpy(w0[::2])
    check(tl.matmul(w, m), w0[::2] @ m0, dtype)  # 1-D @ 2-D (gemv on the transposed side)
    check(tl.dot(v, tl.from_numpy(arr((12,), dtype, 4)[::3])), v0[::2] @ arr((12,), dtype, 4)[::3], dtype)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_bmm_strided_and_broadcast_batches(dtype):
    a0 = arr((4, 5, 3), dtype, 1)
    b0 = arr((4, 3, 6), dtype, 2)
    # batch-major but each matrix column-major
    a = np.ascontiguousarray(a0.transpose(0, 2, 1)).transpose(0, 2, 1)
    check(tl.bmm(tl.from_numpy(a), tl.from_numpy(b0)), a0 @ b0, dtype)
    # batch stride 0 (one matrix shared by every batch entry)
    shared = np.lib.stride_tricks.as_strided(b0[0].copy(), (4, 3, 6), (0, 6 * b0.itemsize, b0.itemsize))
    check(tl.bmm(tl.from_numpy(a0), tl.from_numpy(shared)), a0 @ b0[0], dtype)
    # large batch of small matrices (parallel over the batch)
    c0, d0 = arr((300, 4, 5), dtype, 3), arr((300, 5, 2), dtype, 4)
    check(tl.bmm(tl.tensor(c0), tl.tensor(d0)), c0 @ d0, dtype)
    # a few big ones (threaded inside BLAS)
    e0, f0 = arr((3, 70, 80), dtype, 5), arr((3, 80, 90), dtype, 6)
    check(tl.bmm(tl.tensor(e0), tl.tensor(f0)), e0 @ f0, dtype)


def test_large_mm_matches_numpy():
    a0, b0 = arr((300, 257), F32, 1), arr((257, 301), F32, 2)
    got = np.asarray(tl.mm(tl.tensor(a0), tl.tensor(b0)))
    np.testing.assert_allclose(got, a0.astype(F64) @ b0.astype(F64), rtol=1e-4, atol=1e-3)


def test_beta_zero_ignores_garbage_output_memory():
    # Freed blocks are reused by the caching allocator: fill one with nan,
    # free it, and check the next product does not read the stale values.
    for _ in range(3):
        junk = tl.tensor(np.full((64, 64), np.nan, F32))
        del junk
        r = tl.mm(tl.tensor(np.ones((64, 32), F32)), tl.tensor(np.ones((32, 64), F32)))
        assert np.all(np.asarray(r) == 32)
    nan_self = tl.tensor(np.full((2, 2), np.nan, F32))
    r = tl.addmm(nan_self, tl.tensor(np.ones((2, 3), F32)), tl.tensor(np.ones((3, 2), F32)), beta=0)
    assert np.all(np.asarray(r) == 3)


def test_k_zero_gives_zeros_or_beta_self():
    assert np.all(np.asarray(tl.mm(tl.empty((3, 0)), tl.empty((0, 4)))) == 0)
    assert np.all(np.asarray(tl.matmul(tl.empty((2, 3, 0)), tl.empty((2, 0, 4)))) == 0)
    r = tl.addmm(tl.tensor(np.full((2, 2), 3.0, F32)), tl.empty((2, 0)), tl.empty((0, 2)), beta=2)
    assert np.all(np.asarray(r) == 6)
    assert tl.dot(tl.empty((0,)), tl.empty((0,))).item() == 0


def test_integer_overflow_wraps():
    a = tl.tensor(np.full((2, 3), 100, np.int8))
    b = tl.tensor(np.full((3, 2), 100, np.int8))
    want = (np.full((2, 3), 100, np.int8) @ np.full((3, 2), 100, np.int8))  # numpy wraps too
    np.testing.assert_array_equal(np.asarray(tl.mm(a, b)), want)
    big = np.full((1, 2), 2 ** 62, np.int64)
    np.testing.assert_array_equal(np.asarray(tl.mm(tl.tensor(big), tl.tensor(big.T.copy()))), big @ big.T)


def test_half_and_bfloat16_compute_in_float():
    a0, b0 = arr((8, 16), F32, 1), arr((16, 4), F32, 2)
    for dt in (tl.float16, tl.bfloat16):
        a, b = tl.tensor(a0, dtype=dt), tl.tensor(b0, dtype=dt)
        r = tl.mm(a, b)
        assert r.dtype == dt
        ref = np.asarray(tl.tensor(a, dtype=tl.float32)).astype(F64) @ np.asarray(tl.tensor(b, dtype=tl.float32))
        np.testing.assert_allclose(np.asarray(tl.tensor(r, dtype=tl.float32)), ref, rtol=1e-2, atol=5e-2)


MATMUL_META_SHAPES = [((5,), (5,), ()), ((3, 5), (5,), (3,)), ((5,), (5, 4), (4,)), ((3, 5), (5, 4), (3, 4)),
                      ((2, 3, 5), (5, 4), (2, 3, 4)), ((2, 3, 5), (5,), (2, 3)), ((5,), (2, 5, 4), (2, 4)),
                      ((2, 1, 3, 5), (4, 5, 6), (2, 4, 3, 6)), ((7, 1, 1, 3, 5), (2, 1, 5, 6), (7, 2, 1, 3, 6))]


@pytest.mark.parametrize("sa,sb,want", MATMUL_META_SHAPES)
def test_matmul_meta_shapes(sa, sb, want):
    r = tl.matmul(tl.empty(sa, device="meta"), tl.empty(sb, device="meta"))
    assert r.device.type == "meta" and tuple(r.shape) == want
    cpu = tl.matmul(tl.tensor(arr(sa, F32, 1)), tl.tensor(arr(sb, F32, 2)))
    assert tuple(cpu.shape) == want
    check(cpu, np.matmul(arr(sa, F32, 1).astype(F64), arr(sb, F32, 2).astype(F64)).astype(F32), F32)


def test_matmul_of_noncontiguous_batch_folds_correctly():
    # (..., n, k) @ (k, p) where the batch dims cannot be merged into rows by a view
    base = arr((3, 4, 10), F32, 1)
    x = base[:, :, ::2]  # (3, 4, 5), strided
    w = arr((5, 6), F32, 2)
    check(tl.matmul(tl.from_numpy(x), tl.tensor(w)), x.astype(F64) @ w, F32)
    y = np.ascontiguousarray(base.transpose(1, 0, 2)).transpose(1, 0, 2)  # batch dims permuted in memory
    check(tl.matmul(tl.from_numpy(y), tl.tensor(arr((10, 2), F32, 3))), y.astype(F64) @ arr((10, 2), F32, 3), F32)


def test_method_forms_and_operator():
    a, b = tl.tensor(arr((3, 4), F32, 1)), tl.tensor(arr((4, 2), F32, 2))
    want = arr((3, 4), F32, 1).astype(F64) @ arr((4, 2), F32, 2)
    for r in (a.mm(b), a.matmul(b), a @ b):
        check(r, want, F32)


# ---- nn.linear (torchlike._C._nn.linear; torchlike.nn does not exist yet)

@pytest.mark.parametrize("xs,ws,bs", [((3, 4), (5, 4), (5,)), ((3, 4), (5, 4), None), ((2, 3, 4), (5, 4), (5,)),
                                      ((4,), (5, 4), (5,)), ((2, 3, 4), (4,), None), ((2, 3, 4), (4,), ()),
                                      ((3, 4), (5, 4), ()), ((0, 4), (5, 4), (5,)), ((3, 0), (5, 0), (5,))])
def test_linear(xs, ws, bs):
    x, w = arr(xs, F32, 1), arr(ws, F32, 2)
    b = None if bs is None else arr(bs, F32, 3)
    want = x.astype(F64) @ (w.T if w.ndim == 2 else w)
    if b is not None:
        want = want + b
    got = tl._C._nn.linear(tl.tensor(x), tl.tensor(w), None if b is None else tl.tensor(b))
    check(got, want.astype(F32), F32)
    if b is None:
        check(tl._C._nn.linear(tl.tensor(x), tl.tensor(w)), want.astype(F32), F32)


def test_linear_strided_input_and_errors():
    base = arr((2, 3, 8), F32, 1)
    x = base[:, :, ::2]  # cannot fold by a view: goes through matmul + add
    w, b = arr((5, 4), F32, 2), arr((5,), F32, 3)
    check(tl._C._nn.linear(tl.from_numpy(x), tl.tensor(w), tl.tensor(b)), x.astype(F64) @ w.T + b, F32)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 5x4\)"):
        tl._C._nn.linear(tl.empty((2, 3)), tl.empty((4, 5)))
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(4\) must match the existing size \(5\)"):
        tl._C._nn.linear(tl.empty((2, 3)), tl.empty((4, 3)), tl.empty((5,)))


def test_set_num_threads_results_unchanged():
    a0, b0 = arr((200, 150), F32, 1), arr((150, 120), F32, 2)
    n = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        r1 = np.asarray(tl.mm(tl.tensor(a0), tl.tensor(b0)))
    finally:
        tl.set_num_threads(n)
    r2 = np.asarray(tl.mm(tl.tensor(a0), tl.tensor(b0)))
    np.testing.assert_allclose(r1, r2, rtol=1e-5, atol=1e-4)


# ---- parity with PyTorch

PARITY = [("mm", (3, 4), (4, 5)), ("matmul", (2, 1, 3, 4), (5, 4, 2)), ("matmul", (4,), (3, 4, 2)),
          ("matmul", (2, 3, 4), (4,)), ("bmm", (2, 3, 4), (2, 4, 5)), ("mv", (3, 4), (4,)), ("dot", (6,), (6,)),
          ("outer", (3,), (4,))]


@requires_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16", "bfloat16"])
@pytest.mark.parametrize("name,sa,sb", PARITY, ids=[f"{p[0]}{i}" for i, p in enumerate(PARITY)])
def test_parity_with_torch(name, sa, sb, dtype):
    import torch
    a0, b0 = arr(sa, F32, 1), arr(sb, F32, 2)
    if dtype.startswith("int"):
        a0, b0 = arr(sa, np.int64, 1), arr(sb, np.int64, 2)
    ta, tb = tl.tensor(a0, dtype=getattr(tl, dtype)), tl.tensor(b0, dtype=getattr(tl, dtype))
    pa, pb = torch.tensor(a0, dtype=getattr(torch, dtype)), torch.tensor(b0, dtype=getattr(torch, dtype))
    got, want = getattr(tl, name)(ta, tb), getattr(torch, name)(pa, pb)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert tuple(got.shape) == tuple(want.shape)
    g = np.asarray(tl.tensor(got, dtype=tl.float64))
    w = want.double().numpy()
    tol = {"float16": 1e-2, "bfloat16": 3e-2}.get(dtype, 1e-5)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


@requires_torch
@pytest.mark.parametrize("call", [
    lambda m, a, b: m.mm(a((2, 3)), a((4, 5))),
    lambda m, a, b: m.mm(a((2, 3)), b((3, 5))),
    lambda m, a, b: m.matmul(a(()), a((3,))),
    lambda m, a, b: m.matmul(a((2, 2, 3)), a((3, 3, 5))),
    lambda m, a, b: m.matmul(a((3,)), a((4, 5))),
    lambda m, a, b: m.bmm(a((2, 2, 3)), a((2, 4, 5))),
    lambda m, a, b: m.bmm(a((2, 3)), a((2, 4, 5))),
    lambda m, a, b: m.dot(a((3,)), a((4,))),
    lambda m, a, b: m.dot(a((3,)), b((3,))),
    lambda m, a, b: m.mv(a((2, 3)), a((4,))),
    lambda m, a, b: m.addmm(a((4, 3)), a((2, 3)), a((3, 5))),
    lambda m, a, b: m.addmm(b((2, 5)), a((2, 3)), a((3, 5))),
    lambda m, a, b: m.outer(a((2, 3)), a((3,))),
])
def test_error_messages_match_torch(call):
    import torch
    msgs = []
    for m in (tl, torch):
        with pytest.raises(RuntimeError) as ei:
            call(m, lambda s: m.tensor(np.ones(s, F32)), lambda s: m.tensor(np.ones(s, F64)))
        msgs.append(str(ei.value).split("\n")[0])
    assert msgs[0] == msgs[1]
