"""Autograd for every operator shape (issue 9 §5): operators with Tensor[]
inputs (cat, stack), with several outputs (max.dim, min.dim), with no
derivative formula (the not-implemented fallback), and in-place writes through
views of tensors that have history (CopySlices, as-strided view replay).

Gradients are checked against finite differences in float64 (gradcheck) and
against expectations computed with NumPy; PyTorch parity, where installed, on
top. Values and errors of cat/stack themselves are in tests/opinfo/views.py."""
import os
import subprocess
import sys

import numpy as np
import pytest

import torchlike as tl
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # parity checks only
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _np(shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape)


def _x(shape, seed=0):
    return tl.tensor(_np(shape, seed), dtype=tl.float64, requires_grad=True)


def npa(t):
    return np.asarray(t.detach())


# ---------------------------------------------------------------- Tensor[] inputs

def test_cat_node_has_one_edge_per_list_element():
    a, c = _x((2, 2)), _x((2, 1), 1)
    b = tl.tensor(_np((2, 3), 2))  # does not require grad: its edge is empty
    y = tl.cat([a, b, c], 1)
    assert y.requires_grad and y.grad_fn.name() == "CatBackward0"
    nf = y.grad_fn.next_functions
    assert len(nf) == 3
    assert nf[0][0] is not None and nf[1][0] is None and nf[2][0] is not None
    w = _np((2, 6), 3)
    (y * tl.tensor(w)).sum().backward()
    np.testing.assert_array_equal(npa(a.grad), w[:, :2])
    np.testing.assert_array_equal(npa(c.grad), w[:, 5:])
    assert b.grad is None


def test_cat_same_tensor_twice_accumulates():
    a = _x((3,))
    w = _np((9,), 1)
    (tl.cat([a, a, a * 2]) * tl.tensor(w)).sum().backward()
    np.testing.assert_allclose(npa(a.grad), w[:3] + w[3:6] + 2 * w[6:])


def test_cat_gradients_keep_each_input_dtype():
    a = tl.tensor([1.0, 2.0], dtype=tl.float32, requires_grad=True)
    b = tl.tensor([3.0], dtype=tl.float64, requires_grad=True)
    y = tl.cat([a, b])
    assert y.dtype == tl.float64
    (y * tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64)).sum().backward()
    assert a.grad.dtype == tl.float32 and b.grad.dtype == tl.float64
    np.testing.assert_array_equal(npa(a.grad), [1.0, 2.0])
    np.testing.assert_array_equal(npa(b.grad), [3.0])


def test_cat_skipped_empty_input_gets_empty_gradient():
    e = tl.zeros(0, dtype=tl.float64, requires_grad=True)
    a = _x((2, 3))
    tl.cat([e, a], 1).sum().backward()
    assert tuple(e.grad.shape) == (0,)
    np.testing.assert_array_equal(npa(a.grad), np.ones((2, 3)))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack_gradcheck_with_non_contiguous_inputs(dim):
    a, b = _x((3, 4)), _x((4, 3), 1)
    bt = b.detach().t()  # non-contiguous leaf
    bt.requires_grad_(True)
    assert gradcheck(lambda p, q: tl.cat([p, q * q], dim), (a, bt))
    assert gradcheck(lambda p, q: tl.stack([p.sin(), q], dim), (a, bt))
    assert gradgradcheck(lambda p, q: tl.cat([p * q, q], dim), (a, bt))
    assert gradgradcheck(lambda p, q: tl.stack([p * q, p], dim), (a, bt))


def test_stack_gradient_matches_numpy():
    xs = [_x((2, 3), i) for i in range(3)]
    w = _np((2, 3, 3), 7)
    (tl.stack(xs, 2) * tl.tensor(w)).sum().backward()
    for i, x in enumerate(xs):
        np.testing.assert_array_equal(npa(x.grad), w[:, :, i])


def test_cat_out_refuses_inputs_that_require_grad():
    a = _x((2,))
    with pytest.raises(RuntimeError, match=r"cat\(\): functions with out=\.\.\. arguments don't support automatic "
                                           "differentiation"):
        tl.cat([a, a], out=tl.empty(4, dtype=tl.float64))
    with tl.no_grad():
        out = tl.empty(4, dtype=tl.float64)
        assert tl.cat([a, a], out=out) is out
    np.testing.assert_array_equal(npa(out), np.concatenate([npa(a), npa(a)]))


@needs_torch
def test_cat_stack_gradients_match_pytorch():
    va, vb = _np((2, 3)), _np((2, 3), 1)
    w = _np((2, 2, 3), 2)
    a, b = tl.tensor(va, requires_grad=True), tl.tensor(vb, requires_grad=True)
    ta, tb = torch.tensor(va, requires_grad=True), torch.tensor(vb, requires_grad=True)
    (tl.stack([a, b.exp()], 1) * tl.tensor(w)).sum().backward()
    (torch.stack([ta, tb.exp()], 1) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(npa(a.grad), ta.grad.numpy(), rtol=1e-14)
    np.testing.assert_allclose(npa(b.grad), tb.grad.numpy(), rtol=1e-14)
    assert tl.cat([a, b]).grad_fn.name() == torch.cat([ta, tb]).grad_fn.name()


# ---------------------------------------------------------------- several outputs

@pytest.mark.parametrize("name", ["max", "min"])
def test_value_index_reductions(name):
    x = _x((3, 4))
    v, i = getattr(x, name)(1)
    assert v.requires_grad and v.grad_fn.name() == f"{name.capitalize()}Backward0"
    assert not i.requires_grad and i.grad_fn is None  # integer output: never differentiable
    w = _np((3,), 1)
    (v * tl.tensor(w)).sum().backward()
    want = np.zeros((3, 4))
    idx = getattr(np, f"arg{name}")(npa(x), axis=1)
    want[np.arange(3), idx] = w
    np.testing.assert_array_equal(npa(x.grad), want)
    assert gradcheck(lambda a: getattr(a, name)(0, keepdim=True)[0], (_x((3, 4), 2),))
    assert gradgradcheck(lambda a: getattr(a, name)(1)[0], (_x((3, 4), 3),))


def test_multi_output_with_an_unused_output_in_the_graph():
    x = _x((2, 5))
    v, i = x.max(1)
    # Only the index output takes part: the values' gradient is zero-filled.
    y = (x * 0 + i.to(tl.float64)[:, None]).sum()
    y.backward()
    np.testing.assert_array_equal(npa(x.grad), np.zeros((2, 5)))


# ---------------------------------------------------------------- ops with no derivative formula

def test_op_without_formula_records_a_node_that_raises_at_backward():
    a = _x((3,))
    y = tl.floor_divide(a, tl.tensor(0.7, dtype=tl.float64))
    assert y.requires_grad and y.grad_fn is not None and not y.is_leaf
    assert y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match=r"derivative for aten::floor_divide is not implemented"):
        y.sum().backward()
    # The forward value is right all the same.
    np.testing.assert_array_equal(npa(y), np.floor_divide(npa(a), 0.7))


def test_inplace_op_without_formula_records_a_node_too():
    a = _x((3,))
    y = a * 1
    y.floor_divide_(tl.tensor(0.5, dtype=tl.float64))
    assert y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match=r"derivative for aten::floor_divide_ is not implemented"):
        y.sum().backward()


def test_op_without_formula_and_no_input_requiring_grad_records_nothing():
    y = tl.floor_divide(tl.tensor([3.0]), tl.tensor([2.0]))
    assert not y.requires_grad and y.grad_fn is None


NON_DIFFERENTIABLE = [
    ("eq", lambda a: tl.eq(a, a)), ("gt", lambda a: a > 0), ("isnan", lambda a: tl.isnan(a)),
    ("argmax", lambda a: tl.argmax(a)), ("argmin", lambda a: a.argmin(0)), ("any", lambda a: (a > 0).any()),
    ("max.dim indices", lambda a: a.max(0)[1]), ("logical_not", lambda a: tl.logical_not(a)),
]


@pytest.mark.parametrize("name,f", NON_DIFFERENTIABLE, ids=[n for n, _ in NON_DIFFERENTIABLE])
def test_integer_and_bool_outputs_do_not_require_grad(name, f):
    r = f(_x((3, 2)))
    assert not r.dtype.is_floating_point
    assert not r.requires_grad and r.grad_fn is None


@needs_torch
@pytest.mark.parametrize("name,f", NON_DIFFERENTIABLE, ids=[n for n, _ in NON_DIFFERENTIABLE])
def test_non_differentiable_outputs_match_pytorch(name, f):
    t = torch.tensor(_np((3, 2)), requires_grad=True)
    tf = {"eq": lambda a: torch.eq(a, a), "isnan": torch.isnan, "argmax": torch.argmax,
          "logical_not": torch.logical_not}.get(name)
    r = (tf or f)(t)
    assert r.requires_grad is False and r.grad_fn is None
    assert f(_x((3, 2))).requires_grad == r.requires_grad


@needs_torch
def test_not_implemented_fallback_matches_pytorch():
    t = torch.tensor([1.5, -2.0], requires_grad=True)
    r = torch.floor_divide(t, torch.tensor(0.7))
    a = tl.tensor([1.5, -2.0], requires_grad=True)
    y = tl.floor_divide(a, tl.tensor(0.7))
    assert y.requires_grad == r.requires_grad and (y.grad_fn is None) == (r.grad_fn is None)
    with pytest.raises(RuntimeError) as theirs:
        r.sum().backward()
    with pytest.raises(RuntimeError) as ours:
        y.sum().backward()
    assert str(theirs.value) in str(ours.value)


def test_composite_implicit_ops_differentiate_through_their_parts():
    # max.other and stack are CompositeImplicitAutograd: no formula of their
    # own, yet they are differentiable through what they call.
    a, b = _x((3, 4)), _x((3, 4), 1)
    assert gradcheck(lambda p, q: tl.max(p, q), (a, b))
    assert tl.stack([a, b]).grad_fn.name() == "CatBackward0"


# ---------------------------------------------------------------- in-place writes through views

def test_rnn_style_output_buffer_reaches_every_step():
    T, B, H = 4, 2, 3
    hs = [_x((B, H), t) for t in range(T)]
    out = tl.zeros(T, B, H, dtype=tl.float64)
    for t in range(T):
        out[t] = hs[t] * (t + 1)
    assert out.grad_fn.name() == "CopySlices" and not out.is_leaf
    w = _np((T, B, H), 9)
    (out * tl.tensor(w)).sum().backward()
    for t in range(T):
        np.testing.assert_allclose(npa(hs[t].grad), (t + 1) * w[t], rtol=1e-15)
    np.testing.assert_allclose(npa(out.detach()), np.stack([npa(h) * (t + 1) for t, h in enumerate(hs)]))


def test_column_write_into_a_non_leaf():
    a, y = _x((3, 4)), _x((3,), 1)
    x = a * 2
    x[:, 0] = y
    w = _np((3, 4), 2)
    (x * tl.tensor(w)).sum().backward()
    want_a = 2 * w
    want_a[:, 0] = 0  # overwritten: no gradient reaches a's first column
    np.testing.assert_array_equal(npa(a.grad), want_a)
    np.testing.assert_array_equal(npa(y.grad), w[:, 0])


def test_inplace_op_on_a_view_rewrites_the_base_history():
    a = _x((3, 4))
    x = a * 2
    v = x[1]
    v.mul_(3)
    assert x.grad_fn.name() == "CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"  # regenerated over the new base history
    w = _np((3, 4), 1)
    (x * tl.tensor(w)).sum().backward()
    want = 2 * w
    want[1] *= 3
    np.testing.assert_allclose(npa(a.grad), want, rtol=1e-15)


def test_view_gradient_after_the_view_was_written():
    a = _x((3, 4))
    x = a * 2
    v = x[1]
    v.mul_(3)
    (v * v).sum().backward()  # v = 6 a[1]
    want = np.zeros((3, 4))
    want[1] = 72 * npa(a)[1]
    np.testing.assert_allclose(npa(a.grad), want, rtol=1e-14)


def test_view_taken_before_the_base_changed_is_regenerated():
    a = _x((3,))
    x = a * 2
    v = x[1:]
    x.mul_(3)  # v now sees 6 a[1:]
    (v * v).sum().backward()
    np.testing.assert_allclose(npa(a.grad), [0.0, 72 * npa(a)[1], 72 * npa(a)[2]], rtol=1e-14)


def test_sibling_view_sees_the_write_through_another_view():
    a = _x((2, 3))
    x = a * 1
    v0, v1 = x[0], x[1]
    v1.mul_(3)
    (v0 * v1).sum().backward()  # a0 * 3 a1
    va = npa(a)
    np.testing.assert_allclose(npa(a.grad), np.stack([3 * va[1], 3 * va[0]]), rtol=1e-15)


def test_expanded_view_regenerated_after_base_change_sums_its_gradient():
    a = _x((1, 4))
    x = a * 1
    e = x.expand(3, 4)
    x.mul_(2)
    e.sum().backward()
    np.testing.assert_array_equal(npa(a.grad), np.full((1, 4), 6.0))


def test_fill_through_a_view_cuts_the_old_values():
    a = _x((3, 2))
    x = a * 2
    x[0] = 0.0
    x[1:, 1] = 5
    x.sum().backward()
    np.testing.assert_array_equal(npa(a.grad), [[0, 0], [2, 0], [2, 0]])


def test_write_into_a_non_leaf_through_nested_views_gradcheck():
    def f(a, b):
        x = a * 1
        x.t()[1:, :2].mul_(b)       # b broadcasts over the (3, 2) window
        x[0, ::2] = b[0] * b[1]    # a second write, through a strided view
        return x

    assert gradcheck(f, (_x((3, 4)), _x((2,), 1)))
    assert gradgradcheck(f, (_x((3, 4), 2), _x((2,), 3)))


def test_write_into_a_plain_buffer_gradcheck():
    def f(h1, h2):
        out = tl.zeros(3, 4, dtype=tl.float64)
        out[1] = h1.exp()
        # Reads back what was written (a clone: a view saved by mul and then
        # overwritten would be caught by the version check, as in PyTorch).
        out[:, 2] = h2 * out[:, 2].clone() + h2
        return out

    assert gradcheck(f, (_x((4,)), _x((3,), 1)))
    assert gradgradcheck(f, (_x((4,), 2), _x((3,), 3)))


def test_copyslices_frees_its_graph_and_retains_when_asked():
    a, y = _x((3,)), _x((1,), 1)
    x = a * 2
    x[0:1] = y * y
    s = x.sum()
    s.backward(retain_graph=True)
    s.backward()
    np.testing.assert_allclose(npa(a.grad), [0, 4, 4])
    np.testing.assert_allclose(npa(y.grad), 4 * npa(y))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        s.backward()


def test_saved_tensor_overwritten_through_a_view_is_detected():
    a = _x((2, 2))
    x = a * 2
    y = x * x  # saves x
    x[0] = 1.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    out = tl.zeros(3, dtype=tl.float64)
    h = _x((3,), 1)
    z = h[1:] * out[1:]  # saves the view (PyTorch raises here too)
    out[1:] = h[1:]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_writes_under_no_grad_record_nothing():
    a = _x((3,))
    x = a * 2
    with tl.no_grad():
        x[0] = 10.0
    x.sum().backward()
    np.testing.assert_array_equal(npa(a.grad), [2.0, 2.0, 2.0])


def test_leaf_views_still_refuse_inplace():
    a = _x((3,))
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place"):
        a[0] = 1.0
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        a.mul_(2)


@needs_torch
def test_inplace_view_gradients_match_pytorch():
    va, vy = _np((3, 4)), _np((3,), 1)
    w = _np((3, 4), 2)

    def run(lib, tensor):
        a, y = tensor(va, requires_grad=True), tensor(vy, requires_grad=True)
        x = a * 2
        x[:, 0] = y
        v = x[1]
        v.mul_(y[1])
        u = x[2:]
        x.add_(1)
        (x * tensor(w)).sum().backward(retain_graph=True)
        (u * u).sum().backward()
        return x.grad_fn.name(), a.grad, y.grad

    n1, ga, gy = run(tl, tl.tensor)
    n2, ta, ty = run(torch, torch.tensor)
    np.testing.assert_allclose(npa(ga), ta.numpy(), rtol=1e-13)
    np.testing.assert_allclose(npa(gy), ty.numpy(), rtol=1e-13)


# ---------------------------------------------------------------- the generator refuses what it can't record

@pytest.mark.parametrize("entry,msg", [
    ("- func: bad_unbind(Tensor self) -> Tensor[]\n  dispatch: {CPU: k, Meta: k}\n  derivatives:\n"
     "    self: \"grad\"\n", "has derivatives but returns (Tensor[])"),
    ("- func: bad_split(Tensor self) -> Tensor[]\n  dispatch: {CPU: k, Meta: k}\n",
     "returns (Tensor[]) and has no derivatives"),
    ("- func: bad_index(Tensor self, Tensor?[] indices) -> Tensor\n  dispatch: {CPU: k, Meta: k}\n"
     "  derivatives:\n    indices: \"grad\"\n", "Tensor?[] argument holds indices"),
])
def test_codegen_rejects_unrecordable_operators_with_file_and_line(tmp_path, entry, msg):
    y = tmp_path / "native_functions.yaml"
    text = open(os.path.join(ROOT, "native_functions.yaml")).read()
    n_lines = text.count("\n")
    y.write_text(text + "\n" + entry)
    r = subprocess.run([sys.executable, "-m", "codegen.gen", "--yaml", str(y), "--out", str(tmp_path / "gen")],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode != 0
    first = r.stderr.strip().splitlines()[-1]
    assert first.startswith(f"{y}:") and msg in first, r.stderr
    assert int(first.split(":")[1]) > n_lines
