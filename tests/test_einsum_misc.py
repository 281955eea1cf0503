"""einsum's equation forms, call forms and errors, its gradients (first and
second order), and the torch-namespace leftovers (frobenius/nuclear norm,
norm_except_dim, unravel_index, channel_shuffle, grid_sampler*,
affine_grid_generator, native embedding_bag, empty_permuted,
as_strided_scatter, the SyncBatchNorm statistics ops), against NumPy / exact
math, and against PyTorch where it is installed."""
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # parity tests are optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def T(a, **kw):
    return tl.tensor(a, **kw)


# ---------------------------------------------------------------- einsum: forms against np.einsum

EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),                      # implicit output
    ("ij->ji", [(3, 4)]),
    ("ii->i", [(4, 4)]),                              # diagonal
    ("ii", [(4, 4)]),                                 # trace
    ("iji->j", [(4, 3, 4)]),                          # repeated label, non-adjacent
    ("ijj,jk->ik", [(3, 4, 4), (4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),  # ellipsis broadcasting
    ("bij,bjk->bik", [(2, 3, 4), (1, 4, 2)]),         # size-1 batch broadcasts
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(5,), (3,)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("aB,Bc,cD->aD", [(3, 4), (4, 5), (5, 2)]),       # upper and lower case
    ("ijk->", [(2, 3, 4)]),
    ("ij,kl", [(3, 4), (4, 5)]),                      # outer product, implicit order
    ("ba", [(3, 4)]),                                 # implicit output sorts the labels
    ("...", [(2, 3)]),
    ("i...->...", [(2, 3, 4)]),
    ("ab,cd,ef->", [(2, 3), (2, 3), (2, 3)]),
    ("ij,j", [(3, 4), (1,)]),                         # a size-1 dim broadcasts against a label
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("i,i,i->i", [(5,), (5,), (5,)]),
    ("ij,jk,kl,lm->im", [(3, 4), (4, 5), (5, 2), (2, 3)]),
    ("ij,jk->", [(3, 4), (4, 5)]),
    (" i j , j k -> k i ", [(3, 4), (4, 5)]),          # spaces are ignored
    ("ij,kj->ik", [(0, 4), (3, 4)]),                  # empty operand
    ("ij,jk->ik", [(3, 0), (0, 5)]),                  # empty contraction: zeros
    ("bij,bjk->bik", [(2, 8, 9), (2, 9, 7)]),          # large enough for the bmm path (small ones: mul + mv)
    ("bij,bkj->bki", [(3, 9, 10), (3, 6, 10)]),
]


@pytest.mark.parametrize("eq,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_einsum_matches_numpy(eq, shapes, dtype):
    arrays = [rnd(*s, seed=i) for i, s in enumerate(shapes)]
    if dtype == "int64":
        arrays = [np.round(a * 3).astype(np.int64) for a in arrays]
    else:
        arrays = [a.astype(dtype) for a in arrays]
    got = tl.einsum(eq, *[T(a) for a in arrays])
    # NumPy has no size-1 broadcasting of labelled dims: broadcast those first.
    np_arrays = arrays
    if eq == "ij,j":
        np_arrays = [arrays[0], np.broadcast_to(arrays[1], (4,))]
    want = np.einsum(eq.replace(" ", ""), *np_arrays)
    assert got.dtype == getattr(tl, dtype)
    tol = 1e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def test_einsum_call_forms():
    a, b = rnd(3, 4), rnd(4, 5, seed=1)
    want = a @ b
    for got in (tl.einsum("ij,jk->ik", T(a), T(b)),
                tl.einsum("ij,jk->ik", [T(a), T(b)]),
                tl.einsum("ij,jk->ik", (T(a), T(b))),
                tl.einsum(T(a), [0, 1], T(b), [1, 2], [0, 2]),
                tl.einsum(T(a), [0, 1], T(b), [1, 2])):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    # sublist labels 26.. are lower case, Ellipsis is "..."
    x = rnd(2, 3, 4)
    got = tl.einsum(T(x), [Ellipsis, 30], [30, Ellipsis])
    np.testing.assert_allclose(np.asarray(got), np.moveaxis(x, -1, 0))


def test_einsum_path_and_views():
    a, b, c = rnd(3, 4), rnd(4, 5, seed=1), rnd(5, 2, seed=2)
    got = tl._C._VariableFunctions.einsum("ij,jk,kl->il", [T(a), T(b), T(c)], path=[1, 2, 0, 1])
    np.testing.assert_allclose(np.asarray(got), a @ b @ c, rtol=1e-12)
    # one operand, nothing summed: a view, as in PyTorch
    x = T(rnd(3, 3))
    d = tl.einsum("ii->i", x)
    x[1, 1] = 42.0
    assert float(d[1]) == 42.0


EINSUM_ERRORS = [
    (("ii", (3, 4)), RuntimeError, "subscript i is repeated for operand 0 but the sizes don't match, 4 != 3"),
    (("ij,jk->ik", (3, 4)), RuntimeError, "fewer operands were provided than specified in the equation"),
    (("ij", (3, 4), (4, 5)), RuntimeError, "more operands were provided than specified in the equation"),
    (("i.j", (3, 4)), RuntimeError, "found '.' for operand 0 that is not part of any ellipsis"),
    (("i...j...", (3, 4)), RuntimeError, "for which an ellipsis was already found"),
    (("ij->ii", (3, 4)), RuntimeError, "output subscript i appears more than once in the output"),
    (("ij->k", (3, 4)), RuntimeError, "output subscript k does not appear in the equation for any input operand"),
    (("i1", (3, 4)), RuntimeError, "invalid subscript given at index 1 in the equation string"),
    (("ij->i1", (3, 4)), RuntimeError, "invalid subscript given at index 5 in the equation string"),
    (("ijk", (3, 4)), RuntimeError, r"number of subscripts in the equation \(3\) does not match the number of "
                                     r"dimensions \(2\) for operand 0 and no ellipsis was given"),
    (("ij,jk", (3, 4), (3, 5)), RuntimeError, "subscript j has size 3 for operand 1 which does not broadcast "
                                              "with previously seen size 4"),
    (("...i,...i", (2, 3, 4), (3, 3, 4)), RuntimeError, "covered by ellipsis in operand 1"),
    (("ij->.i", (3, 4)), RuntimeError, r"found '.' for output that is not part of any ellipsis \(...\)"),
    (("ij->......", (3, 4)), RuntimeError, r"found '.' for output but an ellipsis \(...\) was already found"),
    (("ij,jk", (3, 4), (4, 5), "float64"), RuntimeError, "expected scalar type"),
]


@pytest.mark.parametrize("case,exc,match", EINSUM_ERRORS, ids=[str(i) for i in range(len(EINSUM_ERRORS))])
def test_einsum_errors(case, exc, match):
    eq, *shapes = case
    dtype = tl.float32
    if shapes and isinstance(shapes[-1], str):
        shapes = shapes[:-1]
        ops = [tl.zeros(shapes[0]), tl.zeros(shapes[1], dtype=tl.float64)]
    else:
        ops = [tl.zeros(s, dtype=dtype) for s in shapes]
    with pytest.raises(exc, match=match):
        tl.einsum(eq, *ops)


def test_einsum_call_form_errors():
    with pytest.raises(ValueError, match="must specify the equation string and at least one operand"):
        tl.einsum("ij")
    with pytest.raises(ValueError, match="must specify the equation string"):
        tl.einsum("ij", [])
    with pytest.raises(ValueError, match=r"not within the valid range \[0, 52\)"):
        tl.einsum(tl.zeros(2, 2), [0, 60])
    f = tl._C._VariableFunctions.einsum
    ops = [tl.zeros(2, 2)] * 3
    with pytest.raises(RuntimeError, match="cannot contract an operand with itself"):
        f("ij,jk,kl->il", ops, path=[0, 0, 1, 0])
    with pytest.raises(RuntimeError, match="to have size 4 but got 2"):
        f("ij,jk,kl->il", ops, path=[0, 1])
    with pytest.raises(RuntimeError, match="operand index is out of bounds"):
        f("ij,jk,kl->il", ops, path=[0, 3, 0, 1])
    with pytest.raises(NotImplementedError, match="Bool"):
        tl.einsum("ij,jk", tl.ones(2, 2, dtype=tl.bool), tl.ones(2, 2, dtype=tl.bool))


GRAD_EQS = [("ij,jk->ik", [(3, 4), (4, 2)]), ("ii->i", [(3, 3)]), ("...ij,...jk", [(2, 3, 4), (4, 2)]),
            ("bij,bkj->bik", [(2, 3, 4), (2, 2, 4)]), ("i,i->", [(4,), (4,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
            ("ijj->i", [(2, 3, 3)]), ("ij,j->i", [(3, 4), (1,)]), ("bij,bjk->bik", [(2, 7, 6), (2, 6, 8)])]


@pytest.mark.parametrize("eq,shapes", GRAD_EQS, ids=[e for e, _ in GRAD_EQS])
def test_einsum_gradcheck_and_gradgradcheck(eq, shapes):
    xs = [T(rnd(*s, seed=i), requires_grad=True) for i, s in enumerate(shapes)]
    assert gradcheck(lambda *a: tl.einsum(eq, *a), xs)
    assert gradgradcheck(lambda *a: tl.einsum(eq, *a), xs)


def test_einsum_meta_shapes():
    a = tl.empty((2, 3, 4), device="meta")
    b = tl.empty((4, 5), device="meta")
    r = tl.einsum("...ij,jk->...ik", a, b)
    assert r.device.type == "meta" and tuple(r.shape) == (2, 3, 5)


@needs_torch
@pytest.mark.parametrize("eq,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_matches_torch(eq, shapes):
    arrays = [rnd(*s, seed=i) for i, s in enumerate(shapes)]
    got = tl.einsum(eq, *[T(a) for a in arrays])
    want = torch.einsum(eq, *[torch.tensor(a) for a in arrays])
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-10, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("case,exc,match", EINSUM_ERRORS[:-1], ids=[str(i) for i in range(len(EINSUM_ERRORS) - 1)])
def test_einsum_errors_match_torch(case, exc, match):
    eq, *shapes = case
    with pytest.raises(exc, match=match):
        torch.einsum(eq, *[torch.zeros(s) for s in shapes])


# ---------------------------------------------------------------- norms

def test_frobenius_and_nuclear_norm():
    x = rnd(3, 4, 5)
    np.testing.assert_allclose(np.asarray(tl.frobenius_norm(T(x), (0, 1))), np.sqrt((x ** 2).sum((0, 1))))
    np.testing.assert_allclose(np.asarray(tl.frobenius_norm(T(x), [])), np.sqrt((x ** 2).sum()))
    r = tl.frobenius_norm(T(x), 1, True)
    assert tuple(r.shape) == (3, 1, 5)
    with pytest.raises(RuntimeError, match="Expected at most 2 dimensions, but got 3 dimensions instead"):
        tl.frobenius_norm(T(x), [0, 1, 2])
    with pytest.raises(RuntimeError, match="input dtype should be either floating point"):
        tl.frobenius_norm(tl.ones(2, 2, dtype=tl.int32), [0])
    want = np.linalg.svd(x, compute_uv=False).sum(-1)
    np.testing.assert_allclose(np.asarray(tl.nuclear_norm(T(x))), want, rtol=1e-10)
    assert tuple(tl.nuclear_norm(T(x), True).shape) == (3, 1, 1)
    want = np.linalg.svd(np.moveaxis(x, 1, 0), compute_uv=False).sum(-1)
    np.testing.assert_allclose(np.asarray(tl.nuclear_norm(T(x), (0, 2))), want, rtol=1e-10)
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        tl.nuclear_norm(T(x), (0,))
    assert gradcheck(lambda a: tl.nuclear_norm(a), [T(rnd(3, 3), requires_grad=True)])


@pytest.mark.parametrize("p,d", [(2, 0), (2, 1), (3, -1), (2, 2), (2, -2), (1, 1)])
def test_norm_except_dim(p, d):
    x = rnd(3, 4, 5)
    got = tl.norm_except_dim(T(x), p, d)
    if d == -1:
        want = (np.abs(x) ** p).sum() ** (1 / p)
    else:
        dd = d % 3
        axes = tuple(i for i in range(3) if i != dd)
        want = ((np.abs(x) ** p).sum(axes, keepdims=True)) ** (1 / p)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10)
    assert gradcheck(lambda a: tl.norm_except_dim(a, p, d), [T(x, requires_grad=True)])


def test_norm_except_dim_errors():
    with pytest.raises(IndexError):
        tl.norm_except_dim(tl.ones(2, 3), 2, 5)


# ---------------------------------------------------------------- unravel_index, channel_shuffle

def test_unravel_index():
    idx = np.array([[1234], [5678]])
    got = tl.unravel_index(T(idx), (10, 10, 10, 10))
    want = np.unravel_index(idx, (10, 10, 10, 10))
    assert len(got) == 4
    for g, w in zip(got, want):
        assert g.dtype == tl.int64
        np.testing.assert_array_equal(np.asarray(g), w)
    (only,) = tl.unravel_index(T(np.array([4, 1])), 3)
    np.testing.assert_array_equal(np.asarray(only), [1, 1])
    assert tl.unravel_index(T(np.array([4], dtype=np.int32)), (3, 2))[0].dtype == tl.int64
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
        tl.unravel_index(tl.ones(2), (3, 2))
    with pytest.raises(TypeError, match="expected 'shape' sequence to only contain ints"):
        tl.unravel_index(tl.ones(2, dtype=tl.int64), (3, 2.0))
    with pytest.raises(ValueError, match="'shape' cannot have negative values"):
        tl.unravel_index(tl.ones(2, dtype=tl.int64), (3, -2))


def test_channel_shuffle():
    x = np.arange(2 * 6 * 2 * 3, dtype=np.float32).reshape(2, 6, 2, 3)
    got = tl.channel_shuffle(T(x), 3)
    want = x.reshape(2, 3, 2, 2, 3).swapaxes(1, 2).reshape(x.shape)
    np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups"):
        tl.channel_shuffle(T(x), 4)
    with pytest.raises(RuntimeError, match="must be positive"):
        tl.channel_shuffle(T(x), 0)
    with pytest.raises(RuntimeError, match="expects input with > 2 dims"):
        tl.channel_shuffle(tl.ones(2, 4), 2)


# ---------------------------------------------------------------- empty_permuted, as_strided_scatter

def test_empty_permuted():
    e = tl.empty_permuted((2, 3, 5, 7), (0, 2, 3, 1))
    assert tuple(e.shape) == (2, 3, 5, 7) and e.stride() == (105, 1, 21, 3)
    e = tl.empty_permuted((2, 3), (1, 0), dtype=tl.int32)
    assert e.dtype == tl.int32 and e.stride() == (1, 2)
    assert tl.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad
    m = tl.empty_permuted((2, 3), (1, 0), device="meta")
    assert m.device.type == "meta" and m.stride() == (1, 2)
    assert tuple(tl.empty_permuted((), ()).shape) == ()
    with pytest.raises(RuntimeError, match="does not match the length of the physical_layout"):
        tl.empty_permuted((2, 3), (0,))
    with pytest.raises(RuntimeError, match="Duplicate dim not allowed"):
        tl.empty_permuted((2, 3), (0, 0))
    with pytest.raises(RuntimeError, match="Dimension out of range"):
        tl.empty_permuted((2, 3), (-1, 0))
    with pytest.raises(RuntimeError, match="negative dimension"):
        tl.empty_permuted((2, -3), (0, 1))


def test_as_strided_scatter():
    x = np.zeros((3, 4))
    src = np.arange(6.0).reshape(2, 3)
    got = tl.as_strided_scatter(T(x), T(src), (2, 3), (1, 4), 1)
    want = x.copy().reshape(-1)
    for i in range(2):
        for j in range(3):
            want[1 + i * 1 + j * 4] = src[i, j]
    np.testing.assert_array_equal(np.asarray(got), want.reshape(3, 4))
    np.testing.assert_array_equal(np.asarray(T(x).as_strided_scatter(T(src), (2, 3), (4, 1))),
                                  np.r_[src[0], 0, src[1], 0, np.zeros(4)].reshape(3, 4))
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice of self"):
        tl.as_strided_scatter(T(x), T(src), (3, 2), (1, 2))
    a = T(rnd(3, 4), requires_grad=True)
    s = T(rnd(2, 3, seed=1), requires_grad=True)
    assert gradcheck(lambda a, s: tl.as_strided_scatter(a, s, (2, 3), (4, 1), 1), [a, s])


# ---------------------------------------------------------------- grid_sampler / affine_grid_generator

def test_grid_sampler_codes_map_to_grid_sample():
    F = tl.nn.functional
    x, g = T(rnd(1, 2, 4, 5)), T(np.random.default_rng(3).uniform(-1, 1, (1, 3, 3, 2)))
    for im, mode in enumerate(("bilinear", "nearest", "bicubic")):
        for pm, pad in enumerate(("zeros", "border", "reflection")):
            want = np.asarray(F.grid_sample(x, g, mode, pad, pm == 1))
            np.testing.assert_array_equal(np.asarray(tl.grid_sampler(x, g, im, pm, pm == 1)), want)
            np.testing.assert_array_equal(np.asarray(tl.grid_sampler_2d(x, g, im, pm, pm == 1)), want)
    x3, g3 = T(rnd(1, 2, 3, 4, 5)), T(np.random.default_rng(4).uniform(-1, 1, (1, 2, 2, 2, 3)))
    np.testing.assert_array_equal(np.asarray(tl.grid_sampler_3d(x3, g3, 0, 2, False)),
                                  np.asarray(F.grid_sample(x3, g3, "bilinear", "reflection", False)))
    with pytest.raises(RuntimeError, match="expected 4D input and grid"):
        tl.grid_sampler_2d(x3, g3, 0, 0, False)
    with pytest.raises(RuntimeError, match="expected 5D input and grid"):
        tl.grid_sampler_3d(x, g, 0, 0, False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        tl.grid_sampler_3d(x3, g3, 2, 0, False)
    with pytest.raises(RuntimeError, match="interpolation_mode"):
        tl.grid_sampler(x, g, 7, 0, False)
    xr = T(rnd(1, 1, 3, 3), requires_grad=True)
    gr = T(np.random.default_rng(5).uniform(-0.9, 0.9, (1, 2, 2, 2)), requires_grad=True)
    assert gradcheck(lambda a, b: tl.grid_sampler(a, b, 0, 0, False), [xr, gr])


def test_affine_grid_generator():
    th = rnd(2, 2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the generator never warns
        got = tl.affine_grid_generator(T(th), (2, 3, 4, 5), True)
    ys, xs = np.linspace(-1, 1, 4), np.linspace(-1, 1, 5)
    base = np.stack([np.broadcast_to(xs, (4, 5)), np.broadcast_to(ys[:, None], (4, 5)), np.ones((4, 5))], -1)
    want = np.einsum("hwk,njk->nhwj", base, th)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)
    assert tuple(tl.affine_grid_generator(T(rnd(2, 3, 4)), (2, 3, 4, 5, 6), False).shape) == (2, 4, 5, 6, 3)
    with pytest.raises(RuntimeError, match="needs 4d \\(spatial\\) or 5d \\(volumetric\\) inputs"):
        tl.affine_grid_generator(T(th), (2, 3, 4), False)
    with pytest.raises(RuntimeError, match="expected theta of shape"):
        tl.affine_grid_generator(T(rnd(2, 3, 4)), (2, 3, 4, 5), False)


# ---------------------------------------------------------------- embedding_bag (native form)

W = np.arange(18.0).reshape(6, 3)
IDX = np.array([0, 2, 1, 5, 3, 4, 4])
OFF = np.array([0, 2, 2, 5])


def _bags(n, off, incl):
    ends = list(off[1:]) + ([] if incl else [n])
    return [(int(s), int(e)) for s, e in zip(off, ends)]


def _ref_bag(w, idx, off, mode, incl, pad, psw=None):
    out, sizes, maxi = [], [], []
    for s, e in _bags(len(idx), off, incl):
        keep = [i for i in range(s, e) if pad is None or idx[i] != pad % len(w)]
        rows = np.array([w[idx[i]] * (psw[i] if psw is not None else 1) for i in keep]).reshape(-1, w.shape[1])
        sizes.append(len(keep))
        if not keep:
            out.append(np.zeros(w.shape[1]))
            maxi.append(np.zeros(w.shape[1], np.int64))
        elif mode == 0:
            out.append(rows.sum(0))
        elif mode == 1:
            out.append(rows.mean(0))
        else:
            out.append(rows.max(0))
            maxi.append(np.array([idx[keep[k]] for k in rows.argmax(0)]))
    return np.array(out).reshape(-1, w.shape[1]), np.array(sizes), np.array(maxi)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("incl", [False, True])
@pytest.mark.parametrize("pad", [None, 4, -2])
def test_embedding_bag_outputs(mode, incl, pad):
    out, o2b, bag_size, max_idx = tl.embedding_bag(T(W), T(IDX), T(OFF), False, mode, False, None, incl, pad)
    want, sizes, maxi = _ref_bag(W, IDX, OFF, mode, incl, pad)
    np.testing.assert_allclose(np.asarray(out), want)
    nb = len(OFF) - (1 if incl else 0)
    np.testing.assert_array_equal(np.asarray(bag_size), sizes if mode else np.zeros(len(OFF)))
    if mode == 2:
        np.testing.assert_array_equal(np.asarray(max_idx), maxi)
    elif mode == 1:
        np.testing.assert_array_equal(np.asarray(max_idx), sizes)
    bag_of = np.searchsorted(OFF[:nb], np.arange(len(IDX)), side="right") - 1
    np.testing.assert_array_equal(np.asarray(o2b), bag_of)  # float64 weight: always filled


def test_embedding_bag_per_sample_weights_and_grads():
    psw = np.random.default_rng(1).uniform(0.5, 1.5, 7)
    out = tl.embedding_bag(T(W), T(IDX), T(OFF), False, 0, False, T(psw))[0]
    np.testing.assert_allclose(np.asarray(out), _ref_bag(W, IDX, OFF, 0, False, None, psw)[0])
    w = T(rnd(6, 3), requires_grad=True)
    p = T(psw, requires_grad=True)
    assert gradcheck(lambda w, p: tl.embedding_bag(w, T(IDX), T(OFF), False, 0, False, p)[0], [w, p])
    for mode in (1, 2):
        assert gradcheck(lambda w: tl.embedding_bag(w, T(IDX), T(OFF), False, mode, False, None, False, 4)[0], [w])
    # scale_grad_by_freq: each row's gradient divided by its count in the
    # batch (PyTorch 2.13 gives row 5 1/6 here, where the rule gives 1/3)
    w.grad = None
    tl.embedding_bag(w, T(IDX), T(OFF), True, 1)[0].sum().backward()
    np.testing.assert_allclose(np.asarray(w.grad)[:, 0], [0.5, 1 / 3, 0.5, 1 / 3, 0.5, 1 / 3])


def test_embedding_bag_errors():
    w, i, o = T(W), T(IDX), T(OFF)
    with pytest.raises(RuntimeError, match="`mode` must be sum, mean, or max"):
        tl.embedding_bag(w, i, o, False, 3)
    with pytest.raises(RuntimeError, match="per_sample_weights only supported with mode='sum'"):
        tl.embedding_bag(w, i, o, False, 1, False, tl.ones(7, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
        tl.embedding_bag(w, i.float(), o)
    with pytest.raises(RuntimeError, match="not in the valid range \\[0, 6\\)"):
        tl.embedding_bag(w, i + 10, o)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        tl.embedding_bag(w, i, T(np.array([1, 2])))
    with pytest.raises(RuntimeError, match="can not be greater than input's length 7"):
        tl.embedding_bag(w, i, T(np.array([0, 9])))
    with pytest.raises(RuntimeError, match="padding_idx must be within the number of embeddings"):
        tl.embedding_bag(w, i, o, False, 0, False, None, False, 6)
    with pytest.raises(RuntimeError, match="weight has to be a 2D Tensor"):
        tl.embedding_bag(T(W[0]), i, o)


@needs_torch
@pytest.mark.parametrize("wdtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("incl,pad", [(False, None), (True, None), (False, 4), (True, -2)])
def test_embedding_bag_matches_torch(wdtype, mode, incl, pad):
    w = W.astype(wdtype)
    # include_last_offset as documented: the last offset is len(indices)
    off = np.append(OFF, len(IDX)) if incl else OFF
    got = tl.embedding_bag(T(w), T(IDX), T(off), False, mode, False, None, incl, pad)
    want = torch.embedding_bag(torch.tensor(w), torch.tensor(IDX), torch.tensor(off), False, mode, False, None,
                               incl, pad)
    for g, x in zip(got, want):
        assert tuple(g.shape) == tuple(x.shape) and str(g.dtype).split(".")[-1] == str(x.dtype).split(".")[-1]
        np.testing.assert_allclose(np.asarray(g), x.numpy())


# ---------------------------------------------------------------- SyncBatchNorm pieces

X = rnd(4, 3, 5)


def test_batch_norm_stats_and_elemt():
    mean, invstd = tl.batch_norm_stats(T(X), 1e-5)
    np.testing.assert_allclose(np.asarray(mean), X.mean((0, 2)))
    np.testing.assert_allclose(np.asarray(invstd), 1 / np.sqrt(X.var((0, 2)) + 1e-5))
    w, b = rnd(3, seed=1), rnd(3, seed=2)
    y = tl.batch_norm_elemt(T(X), T(w), T(b), mean, invstd, 1e-5)
    want = (X - X.mean((0, 2))[:, None]) / np.sqrt(X.var((0, 2)) + 1e-5)[:, None] * w[:, None] + b[:, None]
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-10)
    m16, i16 = tl.batch_norm_stats(T(X).half(), 1e-5)
    assert m16.dtype == tl.float32 and i16.dtype == tl.float32  # statistics accumulate in float32
    assert tl.batch_norm_elemt(T(X).half(), None, None, m16, i16, 1e-5).dtype == tl.float16
    with pytest.raises(RuntimeError, match="at least 2 dims"):
        tl.batch_norm_stats(tl.ones(3), 1e-5)
    with pytest.raises(RuntimeError, match="one entry per channel"):
        tl.batch_norm_elemt(T(X), None, None, tl.zeros(4, dtype=tl.float64), invstd, 1e-5)
    assert gradcheck(lambda x: tl.batch_norm_stats(x, 1e-5), [T(X, requires_grad=True)])


def test_batch_norm_gather_stats():
    # Two "processes" hold the first 1 and last 3 samples of X.
    parts = [X[:1], X[1:]]
    means = np.stack([p.mean((0, 2)) for p in parts])
    invstds = np.stack([1 / np.sqrt(p.var((0, 2)) + 1e-5) for p in parts])
    counts = np.array([5.0, 15.0])
    rm, rv = T(np.zeros(3)), T(np.ones(3))
    mean, invstd = tl.batch_norm_gather_stats_with_counts(T(X), T(means), T(invstds), rm, rv, 0.1, 1e-5, T(counts))
    np.testing.assert_allclose(np.asarray(mean), X.mean((0, 2)), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(invstd), 1 / np.sqrt(X.var((0, 2)) + 1e-5), rtol=1e-8)
    np.testing.assert_allclose(np.asarray(rm), 0.1 * X.mean((0, 2)), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(rv), 0.9 + 0.1 * X.var((0, 2), ddof=1), rtol=1e-8)
    # equal counts: the int form
    halves = [X[:2], X[2:]]
    means = np.stack([p.mean((0, 2)) for p in halves])
    invstds = np.stack([1 / np.sqrt(p.var((0, 2)) + 1e-5) for p in halves])
    mean, invstd = tl.batch_norm_gather_stats(T(X), T(means), T(invstds), None, None, 0.1, 1e-5, 10)
    np.testing.assert_allclose(np.asarray(mean), X.mean((0, 2)), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(invstd), 1 / np.sqrt(X.var((0, 2)) + 1e-5), rtol=1e-8)
    with pytest.raises(RuntimeError, match="one count per row of mean"):
        tl.batch_norm_gather_stats_with_counts(T(X), T(means), T(invstds), None, None, 0.1, 1e-5, tl.ones(3))


def test_batch_norm_backward_pieces_give_batch_norm_gradient():
    """backward_reduce + backward_elemt over one process equal autograd through
    batch normalisation written out."""
    w = rnd(3, seed=1)
    go = rnd(4, 3, 5, seed=2)
    x = T(X, requires_grad=True)
    wt = T(w, requires_grad=True)
    bt = T(np.zeros(3), requires_grad=True)
    mean = x.mean((0, 2), keepdim=True)
    var = ((x - mean) ** 2).mean((0, 2), keepdim=True)
    y = (x - mean) / (var + 1e-5).sqrt() * wt.reshape(1, 3, 1) + bt.reshape(1, 3, 1)
    y.backward(T(go))
    m, inv = tl.batch_norm_stats(T(X), 1e-5)
    sum_dy, sum_dy_xmu, gw, gb = tl.batch_norm_backward_reduce(T(go), T(X), m, inv, T(w), True, True, True)
    np.testing.assert_allclose(np.asarray(gw), np.asarray(wt.grad), rtol=1e-8)
    np.testing.assert_allclose(np.asarray(gb), np.asarray(bt.grad), rtol=1e-8)
    gi = tl.batch_norm_backward_elemt(T(go), T(X), m, inv, T(w), sum_dy, sum_dy_xmu,
                                      T(np.array([20], dtype=np.int32)))
    np.testing.assert_allclose(np.asarray(gi), np.asarray(x.grad), rtol=1e-7, atol=1e-10)
    r = tl.batch_norm_backward_reduce(T(go), T(X), m, inv, T(w), False, True, False)
    assert r[0] is None and r[1] is None and r[2] is not None and r[3] is None
    with pytest.raises(RuntimeError, match="expected grad_out of shape"):
        tl.batch_norm_backward_reduce(tl.ones(2, 3), T(X), m, inv, None, True, True, True)


def test_batch_norm_update_stats():
    rm, rv = T(np.zeros(3)), T(np.ones(3))
    mean, var = tl.batch_norm_update_stats(T(X), rm, rv, 0.1)
    np.testing.assert_allclose(np.asarray(mean), X.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(var), X.var((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(rm), 0.1 * X.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(rv), 0.9 + 0.1 * X.var((0, 2), ddof=1), rtol=1e-12)
    mean, var = tl.batch_norm_update_stats(T(X), None, None, 0.1)
    np.testing.assert_allclose(np.asarray(var), X.var((0, 2)), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        tl.batch_norm_update_stats(tl.ones(2, 3, dtype=tl.int32), None, None, 0.1)
    with pytest.raises(RuntimeError, match="must have at least one element"):
        tl.batch_norm_update_stats(tl.ones(0, 3, 5, dtype=tl.float64), None, None, 0.1)
    with pytest.raises(RuntimeError, match="mixed dtype"):
        tl.batch_norm_update_stats(T(X), tl.zeros(3), tl.ones(3), 0.1)


@needs_torch
def test_batch_norm_update_stats_matches_torch():
    rm, rv = T(np.zeros(3)), T(np.ones(3))
    prm, prv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    got = tl.batch_norm_update_stats(T(X), rm, rv, 0.1)
    want = torch.batch_norm_update_stats(torch.tensor(X), prm, prv, 0.1)
    for g, w in zip((*got, rm, rv), (*want, prm, prv)):
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=1e-12)


@needs_torch
def test_leftovers_match_torch():
    P = torch.tensor
    x = rnd(3, 4, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's deprecation notes for frobenius/nuclear norm
        pairs = [
            (tl.frobenius_norm(T(x), (0, 1)), torch.frobenius_norm(P(x), (0, 1))),
            (tl.nuclear_norm(T(x), (0, 2), True), torch.nuclear_norm(P(x), (0, 2), True)),
            (tl.norm_except_dim(T(x), 3, 1), torch.norm_except_dim(P(x), 3, 1)),
            (tl.channel_shuffle(T(x.reshape(1, 6, 10)), 2), torch.channel_shuffle(P(x.reshape(1, 6, 10)), 2)),
            (tl.as_strided_scatter(T(x), T(x[0, :2]), (2, 5), (3, 2), 1),
             torch.as_strided_scatter(P(x), P(x[0, :2]), (2, 5), (3, 2), 1)),
            (tl.affine_grid_generator(T(x[:2, :2, :3]), (2, 1, 3, 4), False),
             torch.affine_grid_generator(P(x[:2, :2, :3]), (2, 1, 3, 4), False)),
        ]
    for got, want in pairs:
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-10, atol=1e-12)
    e, p = tl.empty_permuted((2, 3, 4), (2, 0, 1)), torch.empty_permuted((2, 3, 4), (2, 0, 1))
    assert e.stride() == p.stride()
    for g, w in zip(tl.unravel_index(T(np.array([7, 3, 11])), (3, 4)), torch.unravel_index(P([7, 3, 11]), (3, 4))):
        np.testing.assert_array_equal(np.asarray(g), w.numpy())
