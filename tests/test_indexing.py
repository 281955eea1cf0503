"""x[...] and x[...] = v with advanced indices (integer tensors, lists, masks)
mixed with ints, slices, None and Ellipsis, against NumPy's fancy indexing for
the forms where NumPy and PyTorch agree, and against PyTorch (when installed)
for the forms where PyTorch's rules differ (an int between advanced indices,
nested lists). Also: error paths, autograd through getitem and setitem, views
staying views, large inputs that take the parallel paths, and the nonzero /
take / put / masked_* forms the op registry cannot express."""
import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck

RNG = np.random.default_rng(1234)
BASE = RNG.standard_normal((3, 4, 5)).astype(np.float32)
M3 = RNG.integers(0, 2, (3, 4, 5)).astype(np.bool_)
M2 = RNG.integers(0, 2, (3, 4)).astype(np.bool_)
M1 = np.array([True, False, True])
M4 = np.array([False, True, True, False])
M5 = np.array([True, False, False, True, True])


def _ctx(lib):
    """Names an expression sees: x (the 3x4x5 base), xt (a transposed view),
    T(...) an index/value array of that library, masks m1..m3."""
    if lib == "np":
        def T(v, dtype=None):
            return np.array(v, dtype=dtype)
        conv = np.array
        x = BASE.copy()
        xt = x.transpose(2, 1, 0)
        i32 = np.int32
    else:
        def T(v, dtype=None):
            if isinstance(v, np.ndarray):
                return tl.from_numpy(v.astype(dtype) if dtype else v.copy())
            return tl.tensor(v, dtype={"int32": tl.int32, np.int32: tl.int32, None: None}[dtype])
        conv = tl.from_numpy
        x = tl.from_numpy(BASE.copy())
        xt = x.permute(2, 1, 0)
        i32 = "int32"
    return {"x": x, "xt": xt, "T": T, "i32": i32, "m1": conv(M1.copy()), "m2": conv(M2.copy()),
            "m3": conv(M3.copy()), "m4": conv(M4.copy()), "m5": conv(M5.copy())}


def _np(v):
    if isinstance(v, tl.Tensor):
        return np.asarray(v)
    return np.asarray(v)


# Expressions NumPy and PyTorch index alike.
GETITEM = [
    "x[[0, 2]]", "x[[-1, 0, -1]]", "x[T([0, 2])]", "x[T([2, 0], i32)]", "x[:, [1, 3]]", "x[..., [0, 4, 4]]",
    "x[:, :, [-1]]", "x[[0, 2], 1:3]", "x[1:, [0, 2]]", "x[:, [0, 2], [1, 3]]", "x[[0, 2], :, [1, 3]]",
    "x[[0, 1], [1, 2], [3, 4]]", "x[[0, 1], 1]", "x[2, [0, 1]]", "x[T([[0, 1], [2, 0]])]", "x[T([[0], [2]]), T([1, 3])]",
    "x[[0, 1], None]", "x[None, [0, 1]]", "x[None, :, [1, 2]]", "x[..., None, [1, 2]]", "x[[0, 2], ..., [1, 3]]",
    "x[::2, [0, 3]]", "x[[0, 2], ::2]", "x[[]]",
    "x[m3]", "x[m2]", "x[m1]", "x[:, m4]", "x[..., m5]", "x[m1, 1]", "x[m1, :, [0, 4]]", "x[m1, 2:]",
    "x[[True, False, True]]", "x[x > 0]", "x[x[:, :, 0] > 0]", "x[T(1)]", "x[T(1), [0, 1]]",
    "xt[[0, 4]]", "xt[:, [1, 2], [0, 2]]", "xt[xt > 0.5]", "xt[..., [2, 0]]", "x[T([[1]]), T([[0, 2]])]",
]


@pytest.mark.parametrize("expr", GETITEM)
def test_getitem_matches_numpy(expr):
    want = eval(expr, _ctx("np"))
    got = eval(expr, _ctx("tl"))
    assert isinstance(got, tl.Tensor)
    assert tuple(got.shape) == want.shape, expr
    assert got.dtype == tl.float32, expr
    np.testing.assert_array_equal(_np(got), want, err_msg=expr)


# (target, value): exec'd as `target = value` in both libraries.
SETITEM = [
    ("x[[0, 2]]", "7.5"), ("x[[0, 2]]", "T(np.arange(40, dtype=np.float32).reshape(2, 4, 5))"),
    ("x[:, [1, 3]]", "T(np.arange(5, dtype=np.float32))"), ("x[..., [0, 4]]", "[1.0, 2.0]"),
    ("x[[0, 1], [1, 2]]", "T(np.ones((2, 5), np.float32))"), ("x[[0, 2], :, [1, 3]]", "-1"),
    ("x[m3]", "0"), ("x[m2]", "T(np.full(5, 3.0, np.float32))"), ("x[:, m4]", "2"),
    ("x[x > 0]", "-x[x > 0]"), ("x[m1, 1]", "5"), ("x[[1]]", "T(np.ones((1, 4, 5), np.float32))"),
    ("x[[0, 0], [1, 1]]", "4.0"), ("x[T([2, 0], i32)]", "1"), ("x[None, [0]]", "T(np.ones((1, 1, 4, 5), np.float32))"),
    ("xt[[1, 3]]", "9"), ("xt[xt > 0.5]", "0.5"), ("x[1][[0, 3]]", "8"), ("x[1:, [0, 3]]", "T(np.ones((1, 2, 5), np.float32))"),
    ("x[[True, False, True]]", "6"), ("x[T(1), [0, 1]]", "3"), ("x[[]]", "1"),
]


@pytest.mark.parametrize("target,value", SETITEM, ids=[f"{t}={v}" for t, v in SETITEM])
def test_setitem_matches_numpy(target, value):
    cn, ct = _ctx("np"), _ctx("tl")
    cn["np"] = ct["np"] = np
    exec(f"{target} = {value}", cn)
    exec(f"{target} = {value}", ct)
    np.testing.assert_array_equal(np.asarray(ct["x"]), cn["x"], err_msg=f"{target} = {value}")


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_every_dtype_getitem_and_setitem(dtype):
    a = (RNG.standard_normal((4, 6)) * 4).astype(np.float32)
    ref = a.astype(np.bool_) if dtype == "bool" else a.astype(np.float32 if dtype == "bfloat16" else dtype)
    if dtype == "bfloat16":
        ref = (ref.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    t = tl.tensor(ref, dtype=getattr(tl, dtype))
    m = ref != 0 if dtype == "bool" else ref > 0
    for idx in ([1, 3, 1], (slice(None), [0, 5])):
        got = t[idx] if isinstance(idx, tuple) else t[idx]
        np.testing.assert_array_equal(np.asarray(got.float() if dtype == "bfloat16" else got), ref[idx])
    np.testing.assert_array_equal(np.asarray(t[tl.from_numpy(m)].float() if dtype == "bfloat16" else t[tl.from_numpy(m)]),
                                  ref[m])
    # Python scalar and float values convert to the tensor's dtype (truncating for integers, as PyTorch and NumPy).
    t[[0, 2]] = 1
    ref[[0, 2]] = 1
    t[tl.from_numpy(m)] = tl.tensor(0.0 if dtype != "bool" else False)
    ref[m] = 0
    got = np.asarray(t.float() if dtype == "bfloat16" else t)
    np.testing.assert_array_equal(got, ref)


def test_value_dtype_conversion():
    x = tl.zeros(4, dtype=tl.int32)
    x[[0, 1]] = 2.7
    x[[2]] = tl.tensor([3.9], dtype=tl.float64)
    assert x.tolist() == [2, 2, 3, 0]
    y = tl.zeros(3)
    y[[0, 2]] = tl.tensor([1, 2])
    assert y.tolist() == [1.0, 0.0, 2.0] and y.dtype == tl.float32


# ------------------------------------------------------------ errors

ERRORS = [
    ("x[[3]]", IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    ("x[:, [-5]]", IndexError, "index -5 is out of bounds for dimension 1 with size 4"),
    ("x[T([0.5])]", IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    ("x[T([True, False])]", IndexError, r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed "
                                        r"tensor \[3, 4, 5\] at index 0"),
    ("x[:, T([True, False])]", IndexError, r"The shape of the mask \[2\] at index 0 does not match .* at index 1"),
    ("x[[0, 1], [0, 1, 2]]", IndexError, r"shape mismatch: indexing tensors could not be broadcast together with shapes "
                                         r"\[2\], \[3\]"),
    ("x[[0], [0], [0], [0]]", IndexError, "too many indices for tensor of dimension 3"),
    ("x[m3, 0]", IndexError, "too many indices"),
    ("x[1.5]", IndexError, "only integers, slices"),
    ("x[[0], ..., ...]", IndexError, "an index can only have a single ellipsis"),
]


@pytest.mark.parametrize("expr,exc,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_getitem_errors(expr, exc, match):
    with pytest.raises(exc, match=match):
        eval(expr, _ctx("tl"))


def test_setitem_errors_leave_tensor_unchanged():
    x = tl.from_numpy(BASE.copy())
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3, 3\] cannot be broadcast to "
                                           r"indexing result of shape \[2, 4, 5\]"):
        x[[0, 1]] = tl.ones(3, 3)
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        x[[0, 9]] = 1.0
    with pytest.raises(TypeError, match="can't assign a str"):
        x[[0]] = "a"
    np.testing.assert_array_equal(np.asarray(x), BASE)
    with pytest.raises(IndexError, match="out of bounds"):
        x.index_put_((tl.tensor([0, 5]),), tl.tensor(1.0), accumulate=True)
    np.testing.assert_array_equal(np.asarray(x), BASE)


def test_index_put_refuses_internal_overlap():
    x = tl.zeros(1).expand(4)
    with pytest.raises(RuntimeError, match="index_put_"):
        x.index_put_((tl.tensor([0]),), tl.tensor(1.0))


# ------------------------------------------------------------ views and copies

def test_basic_indexing_stays_a_view():
    x = tl.from_numpy(BASE.copy())
    v = x[1, :, None, 1:4]
    v.fill_(0)
    assert float(x[1, 2, 2]) == 0.0 and v.shape == (4, 1, 3)
    a = x[[1]]
    a.fill_(5)
    assert float(x[1, 0, 1]) == 0.0  # advanced indexing copies


def test_setitem_through_a_view_writes_the_base():
    x = tl.from_numpy(BASE.copy())
    x[1][[0, 2]] = 3.0
    x[:, 0][tl.tensor([True, False, True])] = -2.0
    ref = BASE.copy()
    ref[1][[0, 2]] = 3.0
    ref[:, 0][[True, False, True]] = -2.0
    np.testing.assert_array_equal(np.asarray(x), ref)


def test_setitem_bumps_version():
    x = tl.zeros(3, 4)
    v0 = x._version
    x[[0, 1]] = 1.0
    assert x._version > v0


# ------------------------------------------------------------ autograd

def _f64(*shape, seed=0):
    r = np.random.default_rng(seed)
    return tl.tensor(r.standard_normal(shape), dtype=tl.float64, requires_grad=True)


def test_getitem_gradients():
    x = _f64(3, 4, 5)
    m = tl.from_numpy(M2.copy())
    for f in (lambda x: x[[0, 2, 0]], lambda x: x[:, [1, 1, 3], [0, 4, 0]], lambda x: x[m],
              lambda x: x[[0, 2], ..., [1, 3]], lambda x: x[x.detach() > 0], lambda x: x[1:, [2]]):
        assert gradcheck(f, (x,))
    assert gradgradcheck(lambda x: x[[0, 2, 0]] * x[[1, 1, 0]], (x,))


def test_getitem_records_index_backward():
    x = _f64(3, 4)
    y = x[[0, 2, 0]]
    assert y.grad_fn.name() == "IndexBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [[2] * 4, [0] * 4, [1] * 4])


def test_setitem_gradients():
    x, v = _f64(3, 4), _f64(2, 4, seed=1)

    def put_rows(x, v):
        z = x.clone()
        z[[2, 0]] = v
        return z

    def put_mask(x, v):
        z = x * 1
        z[tl.tensor([True, False, True])] = v
        return z

    def put_through_view(x, v):
        z = x.clone()
        row = z[1]
        row[[0, 3]] = v[0, :2]
        return z

    for f in (put_rows, put_mask, put_through_view):
        assert gradcheck(f, (x, v)), f.__name__
    s = _f64(seed=2)
    assert gradcheck(lambda x, s: put_rows(x, s.expand(2, 4)), (x, s))


def test_setitem_gradient_values():
    x = tl.ones(3, 2, dtype=tl.float64, requires_grad=True)
    v = tl.tensor([5.0, 6.0], dtype=tl.float64, requires_grad=True)
    z = x.clone()
    z[[0, 2], 1] = v
    assert z.grad_fn.name() in ("IndexPutBackward0", "CopySlices")
    (z * tl.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=tl.float64)).sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad), [[1, 0], [3, 4], [5, 0]])
    np.testing.assert_array_equal(np.asarray(v.grad), [2, 6])


def test_setitem_on_leaf_requiring_grad_raises():
    x = _f64(3)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[[0]] = 1.0


def test_index_put_accumulate_gradients():
    x, v = _f64(5), _f64(4, seed=3)
    idx = (tl.tensor([0, 0, 4, 0]),)
    assert gradcheck(lambda x, v: x.index_put(idx, v, accumulate=True), (x, v))
    assert gradcheck(lambda x, v: x.index_put((tl.tensor([1, 0, 4, 3]),), v), (x, v))


# ------------------------------------------------------------ large inputs (parallel paths)

def test_large_inputs_match_numpy():
    r = np.random.default_rng(7)
    a = r.standard_normal((300, 400)).astype(np.float32)
    t = tl.from_numpy(a.copy())
    m = a > 0.3
    tm = tl.from_numpy(m)
    np.testing.assert_array_equal(np.asarray(t[tm]), a[m])
    np.testing.assert_array_equal(np.asarray(tm.nonzero()), np.argwhere(m))
    rows = r.integers(-300, 300, 1000)
    np.testing.assert_array_equal(np.asarray(t[tl.from_numpy(rows)]), a[rows])
    cols = r.integers(0, 400, 70000)
    np.testing.assert_array_equal(np.asarray(t[5][tl.from_numpy(cols)]), a[5][cols])
    flat = r.integers(0, a.size, 100000)
    acc = np.zeros(a.size, np.float64)
    np.add.at(acc, flat, 1.0)
    got = tl.zeros(a.size, dtype=tl.float64).index_put_((tl.from_numpy(flat),), tl.ones(100000, dtype=tl.float64),
                                                        accumulate=True)
    np.testing.assert_array_equal(np.asarray(got), acc)
    t[tm] = 0.0
    a[m] = 0.0
    np.testing.assert_array_equal(np.asarray(t), a)
    np.testing.assert_array_equal(np.asarray(t.masked_select(tm[0])), a[np.broadcast_to(m[0], a.shape)])


def test_half_accumulates_every_add():
    x = tl.zeros(2, dtype=tl.float16)
    x.index_put_((tl.zeros(3000, dtype=tl.int64),), tl.ones(3000, dtype=tl.float16), accumulate=True)
    # float16 holds integers exactly only to 2048: each add rounds, as PyTorch's do.
    assert float(x[0]) == 2048.0


# ------------------------------------------------------------ nonzero, take, put, masked ops

def test_nonzero_forms():
    a = np.array([[0, 1.5, 0], [2, 0, -1]], np.float32)
    t = tl.from_numpy(a)
    np.testing.assert_array_equal(np.asarray(tl.nonzero(t)), np.argwhere(a))
    np.testing.assert_array_equal(np.asarray(t.nonzero()), np.argwhere(a))
    for got in (tl.nonzero(t, as_tuple=True), t.nonzero(as_tuple=True), tl.where(t)):
        assert isinstance(got, tuple) and len(got) == 2
        for g, w in zip(got, np.nonzero(a)):
            np.testing.assert_array_equal(np.asarray(g), w)
    np.testing.assert_array_equal(np.asarray(tl.argwhere(t)), np.argwhere(a))
    assert tuple(tl.nonzero(tl.tensor(3.0)).shape) == (1, 0)
    assert [g.tolist() for g in tl.nonzero(tl.tensor(3.0), as_tuple=True)] == [[0]]
    assert tl.nonzero(t).dtype == tl.int64


def test_data_dependent_shapes_raise_on_meta():
    x = tl.empty(3, 4, device="meta")
    m = tl.empty(3, 4, device="meta", dtype=tl.bool)
    for f in (lambda: x.nonzero(), lambda: x[m], lambda: x.masked_select(m)):
        with pytest.raises(NotImplementedError, match="depends on the input's values"):
            f()
    assert tuple(x[tl.empty(2, 5, device="meta", dtype=tl.int64)].shape) == (2, 5, 4)
    assert x.masked_fill(m, 1.0).shape == (3, 4)


def test_take_put_non_contiguous():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = tl.from_numpy(a.copy()).t()
    idx = np.array([0, 5, -1, 7])
    np.testing.assert_array_equal(np.asarray(tl.take(t, tl.from_numpy(idx))), np.take(a.T.ravel(), idx))
    t.put_(tl.from_numpy(idx[:3]), tl.tensor([-1.0, -2.0, -3.0], dtype=tl.float64))
    ref = a.T.copy().ravel()
    ref[idx[:3]] = [-1, -2, -3]
    np.testing.assert_array_equal(np.asarray(t).ravel(), ref)
    x, s = _f64(3, 4), _f64(4, seed=5)
    ix = tl.tensor([0, 5, 5, -1])
    assert gradcheck(lambda x: tl.take(x.t(), ix), (x,))
    assert gradcheck(lambda x, s: x.put(ix, s, accumulate=True), (x, s))
    assert gradcheck(lambda x, s: x.put(tl.tensor([0, 5, 6, -1]), s), (x, s))


def test_masked_ops_non_contiguous_and_inplace():
    a = RNG.standard_normal((4, 5))
    t = tl.from_numpy(a.copy()).t()
    m = tl.from_numpy(a.T > 0)
    src = tl.arange(20, dtype=tl.float64)
    t.masked_scatter_(m, src)
    ref = a.T.copy()
    ref[a.T > 0] = np.arange(20)[:int((a > 0).sum())]
    np.testing.assert_array_equal(np.asarray(t), ref)
    u = tl.from_numpy(a.copy()).t()
    u.masked_fill_(m, tl.tensor(2.0, dtype=tl.float64))
    ref = a.T.copy()
    ref[a.T > 0] = 2.0
    np.testing.assert_array_equal(np.asarray(u), ref)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        u.masked_fill_(tl.ones(2, 5, 4, dtype=tl.bool), 1.0)
    x, s = _f64(4, 5), _f64(30, seed=6)
    mk = tl.from_numpy(a > 0)
    assert gradcheck(lambda x, s: x.masked_scatter(mk, s), (x, s))
    assert gradcheck(lambda x: x.masked_select(mk[0]), (x,))
    assert gradcheck(lambda x: x.masked_fill(mk, 1.5), (x,))


# ------------------------------------------------------------ PyTorch parity

# Forms where PyTorch's rules are not NumPy's: ints select first, so x[1, :, [0, 2]]
# indexes dim 1 of x[1]; a short list holding lists is a tuple of indices.
TORCH_ONLY = ["x[1, :, [0, 2]]", "x[[[0, 1], [1, 2]]]", "x[0, [1, 2], :, None]", "x[:, 1, ..., [0, 4]]",
              "x[[0, 2], 1, [1, 3]]", "x[True]", "x[False, [0]]", "x[T(True)]", "x[..., None, m5, None]"]


@pytest.mark.parametrize("expr", GETITEM + TORCH_ONLY)
def test_getitem_matches_pytorch(expr):
    torch = pytest.importorskip("torch")

    def T(v, dtype=None):
        if isinstance(v, np.ndarray):
            return torch.from_numpy(v.copy())
        return torch.tensor(v, dtype=torch.int32 if dtype == "int32" else None)
    x = torch.from_numpy(BASE.copy())
    cp = {"x": x, "xt": x.permute(2, 1, 0), "T": T, "i32": "int32", "m1": torch.from_numpy(M1.copy()),
          "m2": torch.from_numpy(M2.copy()), "m3": torch.from_numpy(M3.copy()), "m4": torch.from_numpy(M4.copy()),
          "m5": torch.from_numpy(M5.copy())}
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = eval(expr, cp)
    got = eval(expr, _ctx("tl"))
    assert tuple(got.shape) == tuple(want.shape), expr
    np.testing.assert_array_equal(np.asarray(got), want.numpy(), err_msg=expr)


@pytest.mark.parametrize("target,value", SETITEM + [("x[1, :, [0, 2]]", "T(np.ones((4, 2), np.float32))"),
                                                    ("x[[0, 2], 1, [1, 3]]", "5")],
                         ids=[f"{t}={v}" for t, v in SETITEM] + ["int-between", "int-between-scalar"])
def test_setitem_matches_pytorch(target, value):
    torch = pytest.importorskip("torch")
    if value.startswith("["):
        pytest.skip("PyTorch refuses a list value with advanced indices (torchlike takes it, as NumPy does)")

    def T(v, dtype=None):
        if isinstance(v, np.ndarray):
            return torch.from_numpy(v.copy())
        return torch.tensor(v, dtype=torch.int32 if dtype == "int32" else None)
    x = torch.from_numpy(BASE.copy())
    cp = {"x": x, "xt": x.permute(2, 1, 0), "T": T, "i32": "int32", "np": np, "m1": torch.from_numpy(M1.copy()),
          "m2": torch.from_numpy(M2.copy()), "m3": torch.from_numpy(M3.copy()), "m4": torch.from_numpy(M4.copy()),
          "m5": torch.from_numpy(M5.copy())}
    ct = _ctx("tl")
    ct["np"] = np
    exec(f"{target} = {value}", cp)
    exec(f"{target} = {value}", ct)
    np.testing.assert_array_equal(np.asarray(ct["x"]), x.numpy())


def test_index_put_accumulate_matches_pytorch():
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(3)
    idx = r.integers(-50, 50, 5000)
    vals = r.standard_normal(5000).astype(np.float32)
    base = np.zeros(50, np.float32)
    got = tl.from_numpy(base.copy()).index_put_((tl.from_numpy(idx),), tl.from_numpy(vals), accumulate=True)
    want = torch.from_numpy(base.copy()).index_put_((torch.from_numpy(idx),), torch.from_numpy(vals), accumulate=True)
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-5, atol=1e-5)


def test_aten_index_refuses_0dim_mask():
    x = tl.zeros(2, 3)
    with pytest.raises(IndexError, match="0-dim boolean mask"):
        tl.index(x, [tl.tensor(True)])
    assert tuple(x[tl.tensor(True)].shape) == (1, 2, 3)
    assert tuple(x[tl.tensor(False)].shape) == (0, 2, 3)
