"""_foreach_ operators beyond the op registry: in-place forms, version
counters, rows that leave the dense loop (non-contiguous, mixed dtype,
broadcasting), bit-equality with the single-tensor ops, and PyTorch parity."""
import numpy as np
import pytest

import torchlike as tl

SHAPES = [(3, 4), (7,), (), (2, 3, 2)]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def _tensors(dtype, seed=0, positive=False):
    rs = np.random.RandomState(seed)
    out = []
    for s in SHAPES:
        a = rs.uniform(0.5 if positive else -2, 2, size=s).astype(np.float32)
        out.append(tl.tensor(a).to(getattr(tl, dtype)))
    return out


def _same(xs, ys):
    for x, y in zip(xs, ys):
        assert x.dtype == y.dtype and tuple(x.shape) == tuple(y.shape)
        assert tl.equal(x, y), (x, y)


# Each case: (foreach call on lists, the same thing tensor by tensor).
INPLACE = {
    "add_scalar": (lambda a, b, c: tl._foreach_add_(a, 0.3),
                   lambda x, y, z: x.add_(0.3)),
    "add_list_alpha": (lambda a, b, c: tl._foreach_add_(a, b, alpha=-0.7),
                       lambda x, y, z: x.add_(y, alpha=-0.7)),
    "sub_list": (lambda a, b, c: tl._foreach_sub_(a, b, alpha=2),
                 lambda x, y, z: x.sub_(y, alpha=2)),
    "mul_scalar": (lambda a, b, c: tl._foreach_mul_(a, 0.9),
                   lambda x, y, z: x.mul_(0.9)),
    "mul_list": (lambda a, b, c: tl._foreach_mul_(a, b),
                 lambda x, y, z: x.mul_(y)),
    "mul_tensor": (lambda a, b, c: tl._foreach_mul_(a, tl.tensor(1.25)),
                   lambda x, y, z: x.mul_(tl.tensor(1.25))),
    "div_scalar": (lambda a, b, c: tl._foreach_div_(a, 3.0),
                   lambda x, y, z: x.div_(3.0)),
    "div_list": (lambda a, b, c: tl._foreach_div_(a, c),
                 lambda x, y, z: x.div_(z)),
    "addcmul": (lambda a, b, c: tl._foreach_addcmul_(a, b, c, value=0.1),
                lambda x, y, z: x.addcmul_(y, z, value=0.1)),
    "addcdiv": (lambda a, b, c: tl._foreach_addcdiv_(a, b, c, value=-0.2),
                lambda x, y, z: x.addcdiv_(y, z, value=-0.2)),
    "lerp_scalar": (lambda a, b, c: tl._foreach_lerp_(a, b, 0.1),
                    lambda x, y, z: x.lerp_(y, 0.1)),
    "lerp_scalar_high": (lambda a, b, c: tl._foreach_lerp_(a, b, 0.75),
                         lambda x, y, z: x.lerp_(y, 0.75)),
    "lerp_list": (lambda a, b, c: tl._foreach_lerp_(a, b, [t / 4 for t in c]),
                  lambda x, y, z: x.lerp_(y, z / 4)),
    "maximum": (lambda a, b, c: tl._foreach_maximum_(a, b),
                lambda x, y, z: tl.maximum(x, y, out=x)),
    "sqrt": (lambda a, b, c: tl._foreach_sqrt_(c),
             lambda x, y, z: z.sqrt_()),
    "neg": (lambda a, b, c: tl._foreach_neg_(a), lambda x, y, z: x.neg_()),
    "abs": (lambda a, b, c: tl._foreach_abs_(a), lambda x, y, z: x.abs_()),
    "zero": (lambda a, b, c: tl._foreach_zero_(a), lambda x, y, z: x.zero_()),
    "copy": (lambda a, b, c: tl._foreach_copy_(a, b), lambda x, y, z: x.copy_(y)),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", sorted(INPLACE))
def test_inplace_matches_single_tensor_ops_bitwise(case, dtype):
    """The dense loop uses the single-tensor op's functor: same bits, every
    floating dtype (half/bfloat16 computed in float)."""
    multi, single = INPLACE[case]
    a, b, c = _tensors(dtype, 0), _tensors(dtype, 1), _tensors(dtype, 2, positive=True)
    a2, b2, c2 = [t.clone() for t in a], [t.clone() for t in b], [t.clone() for t in c]
    versions = [t._version for t in a + c]
    assert multi(a, b, c) is None
    for x, y, z in zip(a2, b2, c2):
        single(x, y, z)
    _same(a, a2)
    _same(c, c2)
    written = a if case != "sqrt" else c
    before = versions[:len(a)] if case != "sqrt" else versions[len(a):]
    assert all(t._version > v for t, v in zip(written, before)), "in-place foreach must bump versions"


def test_functional_forms_leave_inputs_alone():
    a, b = _tensors("float32", 0), _tensors("float32", 1)
    keep = [t.clone() for t in a]
    out = tl._foreach_add(a, b, alpha=2)
    assert isinstance(out, tuple) and len(out) == len(a)
    _same(a, keep)
    _same(out, [x.add(y, alpha=2) for x, y in zip(a, b)])


def test_rows_outside_the_dense_loop_follow_single_tensor_rules():
    base = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    strided = base.t()                       # non-contiguous row
    half = tl.ones(4, dtype=tl.float16)      # row with mixed dtypes: promotes
    wide = tl.ones(4, dtype=tl.float64)
    out = tl._foreach_add([strided, half], [tl.ones(4, 3), wide])
    assert tl.equal(out[0], strided + 1)
    assert out[1].dtype == tl.float64 and tl.equal(out[1], half + wide)
    # broadcasting (PyTorch's foreach takes it through the slow path too)
    row = tl.zeros(3, 4)
    tl._foreach_add_([row], [tl.arange(4, dtype=tl.float32)])
    assert tl.equal(row, tl.arange(4, dtype=tl.float32).expand(3, 4))
    # in-place on a non-contiguous tensor writes through the view
    target = tl.zeros(4, 3)
    tl._foreach_add_([target.t()], [tl.ones(3, 4)])
    assert tl.equal(target, tl.ones(4, 3))


def test_large_rows_split_across_threads_agree():
    a = [tl.linspace(-3, 3, 200_003)]
    b = [tl.linspace(1, 2, 200_003)]
    got = tl._foreach_addcdiv(a, a, b, value=0.5)[0]
    assert tl.equal(got, a[0].addcdiv(a[0], b[0], value=0.5))


def test_errors_name_the_op_and_problem():
    with pytest.raises(RuntimeError, match=r"_foreach_add_: Tensor lists must have the same number of tensors, got 2 and 1"):
        tl._foreach_add_([tl.ones(2), tl.ones(3)], [tl.ones(2)])
    with pytest.raises(RuntimeError, match="Tensor list must have at least one tensor"):
        tl._foreach_zero_([])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        tl._foreach_add_([tl.ones(2, dtype=tl.int64)], 1.5)
    with pytest.raises(RuntimeError, match="scalar tensor expected to be 0 dim"):
        tl._foreach_mul_([tl.ones(2)], tl.ones(2))
    with pytest.raises(RuntimeError, match="must match the size"):
        tl._foreach_addcmul_([tl.ones(2)], [tl.ones(2)], [tl.ones(3)])


def test_meta_lists():
    xs = [tl.empty(3, 4, device="meta"), tl.empty(5, device="meta")]
    out = tl._foreach_lerp(xs, xs, 0.5)
    assert [tuple(t.shape) for t in out] == [(3, 4), (5,)] and all(t.device.type == "meta" for t in out)
    tl._foreach_mul_(xs, 2.0)
    norms = tl._foreach_norm(xs)
    assert all(tuple(n.shape) == () for n in norms)


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(3)
    arrays = [np.asarray(rs.randn(*s), dtype=np.float32) for s in SHAPES]
    others = [np.asarray(rs.randn(*s), dtype=np.float32) for s in SHAPES]
    pos = [np.abs(x) + 0.5 for x in others]
    mine = ([tl.tensor(x) for x in arrays], [tl.tensor(x) for x in others], [tl.tensor(x) for x in pos])
    theirs = ([torch.tensor(x) for x in arrays], [torch.tensor(x) for x in others], [torch.tensor(x) for x in pos])
    for mod, (a, b, c) in ((tl, mine), (torch, theirs)):
        mod._foreach_mul_(a, 0.9)
        mod._foreach_add_(a, b, alpha=0.1)
        mod._foreach_addcdiv_(a, b, c, value=-0.01)
        mod._foreach_lerp_(a, c, 0.3)
    for x, y in zip(mine[0], theirs[0]):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6, atol=1e-6)
    for got, want in zip(tl._foreach_norm(mine[1]), torch._foreach_norm(theirs[1])):
        np.testing.assert_allclose(got.item(), want.item(), rtol=1e-6)


def test_inplace_forms_refuse_autograd_tensors_in_grad_mode():
    leaf = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"a leaf Variable that requires grad is being used in an in-place operation. \(_foreach_mul_\)"):
        tl._foreach_mul_([leaf], 2.0)
    with pytest.raises(RuntimeError, match="_foreach_add_: in-place foreach ops are not differentiable"):
        tl._foreach_add_([leaf * 2], 1.0)
    with tl.no_grad():
        tl._foreach_mul_([leaf], 2.0)
    assert tl.equal(leaf.detach(), tl.full((2,), 2.0)) and leaf.requires_grad


def test_partly_overlapping_rows_get_the_single_tensor_ops_overlap_error():
    """x[1:] += x[:-1] through the dense loop would read already-updated
    elements; such rows go to add_, which refuses them as PyTorch does."""
    base = tl.arange(6, dtype=tl.float32)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to a single memory location"):
        tl._foreach_add_([base[1:]], [base[:-1]])
    assert tl.equal(base, tl.arange(6, dtype=tl.float32))
    # the destination itself as a source is fine (x += x)
    tl._foreach_add_([base], [base])
    assert tl.equal(base, 2 * tl.arange(6, dtype=tl.float32))
