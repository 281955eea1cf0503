"""Gradients of every differentiable OpInfo (tests/opinfo, grad=True) against
finite differences, in float64, plus second derivatives for a representative
subset, the gradcheck tool's own failure reporting, and the error raised by
ops that have no derivative formula."""
import numpy as np
import pytest

import torchlike as tl
from opinfo import OPS
from torchlike.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

GRAD_OPS = [op for op in OPS if op.grad and "float64" in op.dtypes]
_seen = {}
GRAD_IDS = []
for _op in GRAD_OPS:  # ops appear once per overload family: number the repeats
    _seen[_op.name] = _seen.get(_op.name, -1) + 1
    GRAD_IDS.append(_op.name + (f"-{_seen[_op.name]}" if _seen[_op.name] else ""))

# Second derivatives for a representative subset: pointwise (unary, binary,
# broadcasting), reductions, matrix products and views.
GRADGRAD = {"add", "mul", "div", "pow", "exp", "log", "sin", "tanh", "sigmoid", "sqrt", "atan2", "lerp", "sum",
            "mean", "prod", "var", "std", "norm", "logsumexp", "cumsum", "cumprod", "amax", "max", "mm", "bmm",
            "matmul", "addmm", "mv", "dot", "outer", "reshape", "permute", "transpose", "t", "squeeze", "unsqueeze",
            "broadcast_to", "flatten", "narrow", "select", "diagonal", "as_strided", "split", "unbind", "movedim"}


def _tensorize(x, diff):
    """NumPy sample values -> tensors; floating ones require grad and are
    collected in diff (the inputs gradcheck perturbs)."""
    if isinstance(x, np.ndarray):
        t = tl.tensor(x)
        if x.dtype == np.float64:
            t.requires_grad_(True)
            diff.append(t)
        return t
    if isinstance(x, (list, tuple)) and x and all(isinstance(e, np.ndarray) for e in x):
        return type(x)(_tensorize(e, diff) for e in x)
    return x


def _has_empty(x):
    if isinstance(x, np.ndarray):
        return x.size == 0
    if isinstance(x, (list, tuple)):
        return any(_has_empty(e) for e in x)
    return False


def _cases(op):
    """(description, func over the differentiable inputs, those inputs) per usable float64 sample."""
    out = []
    for s in op.samples("float64"):
        if _has_empty(s.args) or _has_empty(tuple(s.kwargs.values())):
            continue  # nothing to perturb
        diff = []
        args = tuple(_tensorize(a, diff) for a in s.args)
        kwargs = {k: _tensorize(v, diff) for k, v in s.kwargs.items()}
        if not diff:
            continue
        ids = [id(t) for t in diff]

        def func(*xs, args=args, kwargs=kwargs, ids=ids):
            # gradcheck hands the same tensors back; map them into the call by identity.
            sub = {i: x for i, x in zip(ids, xs)}

            def put(v):
                if isinstance(v, tl.Tensor):
                    return sub.get(id(v), v)
                if isinstance(v, (list, tuple)) and v and all(isinstance(e, tl.Tensor) for e in v):
                    return type(v)(put(e) for e in v)
                return v
            fn = tl
            for part in op.name.split("."):  # a dotted name reaches into a namespace (special.erfcx)
                fn = getattr(fn, part)
            r = fn(*(put(a) for a in args), **{k: put(v) for k, v in kwargs.items()})
            return tuple(r) if isinstance(r, (list, tuple)) else r
        out.append((s.desc or repr([getattr(a, "shape", a) for a in s.args]), func, tuple(diff)))
    return out


@pytest.mark.parametrize("op", GRAD_OPS, ids=GRAD_IDS)
def test_gradcheck(op):
    cases = _cases(op)
    assert cases, f"{op.name}: no float64 sample with a differentiable input"
    for desc, func, inputs in cases:
        try:
            assert gradcheck(func, inputs)
        except GradcheckError as e:
            raise AssertionError(f"{op.name}({desc}): {e}") from None


GRADGRAD_OPS = [(op, i) for op, i in zip(GRAD_OPS, GRAD_IDS) if op.name in GRADGRAD]


@pytest.mark.parametrize("op", [o for o, _ in GRADGRAD_OPS], ids=[i for _, i in GRADGRAD_OPS])
def test_gradgradcheck(op):
    cases = _cases(op)
    assert cases
    for desc, func, inputs in cases[:2]:  # second-order checks are O(n^2) backward passes: two samples suffice
        try:
            assert gradgradcheck(func, inputs)
        except GradcheckError as e:
            raise AssertionError(f"{op.name}({desc}): {e}") from None


def test_gradgrad_set_is_covered():
    """Every name in GRADGRAD is a differentiable OpInfo (no silent typo)."""
    assert GRADGRAD <= {op.name for op in GRAD_OPS}


# ---------------------------------------------------------------- edge cases the tables don't reach

def _x(shape, seed=0, low=-2, high=2):
    rng = np.random.default_rng(seed)
    return tl.tensor(rng.uniform(low, high, size=shape), dtype=tl.float64, requires_grad=True)


@pytest.mark.parametrize("case", ["prod", "prod-dim", "cumprod", "cumprod-2zeros"])
def test_zero_entries(case):
    """prod/cumprod gradients at exact zeros (the result/x shortcut is not usable there)."""
    v = np.array([[1.5, 0.0, -2.0, 3.0], [0.5, 2.0, 1.25, -1.0], [0.0, 0.0, 2.0, 1.0]])
    if case == "cumprod-2zeros":
        v[1, 2] = 0.0
        v[1, 3] = 0.0
    x = tl.tensor(v, dtype=tl.float64, requires_grad=True)
    f = {"prod": lambda a: a.prod(), "prod-dim": lambda a: a.prod(1), "cumprod": lambda a: a.cumprod(1),
         "cumprod-2zeros": lambda a: a.cumprod(1)}[case]
    assert gradcheck(f, (x,))
    if case in ("prod-dim", "cumprod"):  # at most one zero per reduced slice: exact second derivatives
        y = tl.tensor(np.array([[1.5, 0.0, -2.0, 3.0], [0.5, 2.0, 1.25, -1.0]]), dtype=tl.float64,
                      requires_grad=True)
        assert gradgradcheck(f, (y,))


def test_max_ties_share_gradient():
    """max()/amax spread the gradient evenly over tied maxima, as PyTorch does."""
    x = tl.tensor([1.0, 3.0, 3.0, 2.0], dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad(x.max(), x)
    np.testing.assert_allclose(g.detach().numpy(), [0, 0.5, 0.5, 0])
    (g,) = tl.autograd.grad(x.amax(0), x)
    np.testing.assert_allclose(g.detach().numpy(), [0, 0.5, 0.5, 0])


def test_reduction_keepdim_and_negative_dims():
    x = _x((2, 3, 4))
    for f in [lambda a: a.sum((-1, 0), keepdim=True), lambda a: a.mean(-2), lambda a: a.var(-1, correction=0),
              lambda a: a.std((0, 2), keepdim=True), lambda a: a.norm(1, dim=-1), lambda a: a.norm(float("inf")),
              lambda a: a.logsumexp((0, -1)), lambda a: a.amin(-1, keepdim=True), lambda a: a.prod(-1, keepdim=True)]:
        assert gradcheck(f, (x,))


def test_views_of_views_and_noncontiguous():
    x = _x((3, 4, 2))
    assert gradcheck(lambda a: a.transpose(0, 2).select(1, 2).unsqueeze(0).squeeze(0), (x,))
    assert gradcheck(lambda a: a.permute(2, 0, 1)[1:, ::2].diagonal(0, 1, 2), (x,))
    assert gradcheck(lambda a: a.transpose(0, 1).unfold(0, 2, 1), (x,))
    assert gradcheck(lambda a: a.unfold(1, 3, 2), (x,))  # windows that don't cover the tail
    assert gradgradcheck(lambda a: a.unfold(1, 2, 1), (x,))
    assert gradgradcheck(lambda a: a.cumsum(2), (x,))


def test_as_strided_overlapping():
    """An overlapping as_strided output accumulates; an overlapping input is averaged (PyTorch's rule)."""
    x = _x((6,))
    assert gradcheck(lambda a: a.as_strided((3, 3), (1, 1)), (x,))  # sliding windows over shared memory
    assert gradgradcheck(lambda a: a.as_strided((3, 3), (1, 1)), (x,))
    y = tl.tensor(np.arange(4.0), dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad(y.as_strided((2, 2), (1, 1)).sum(), y)
    np.testing.assert_allclose(g.detach().numpy(), [1, 2, 1, 0])


def test_where_clamp_minimum_gradients():
    a, b = _x((3, 4)), _x((4,), seed=1)
    cond = tl.tensor(np.random.default_rng(3).integers(0, 2, (3, 4)).astype(bool))
    assert gradcheck(lambda p, q: tl.where(cond, p, q), (a, b))
    assert gradcheck(lambda p, lo, hi: tl.clamp(p, lo, hi), (a, _x((4,), 2, -2, -0.5), _x((4,), 3, 0.5, 2)))
    x = tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64, requires_grad=True)
    y = tl.tensor([1.0, 1.0, 4.0], dtype=tl.float64, requires_grad=True)
    gx, gy = tl.autograd.grad(tl.minimum(x, y).sum(), (x, y))
    np.testing.assert_allclose(gx.detach().numpy(), [0.5, 0, 1])  # ties split evenly, as PyTorch
    np.testing.assert_allclose(gy.detach().numpy(), [0.5, 1, 0])


def test_dtype_changing_ops_return_input_dtype_gradients():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tl.float32, requires_grad=True)
    for y in (x.sum(dtype=tl.float64), x.to(tl.float64).prod(), x.cumsum(0, dtype=tl.float64).sum()):
        (g,) = tl.autograd.grad(y, x)
        assert g.dtype == tl.float32


# ---------------------------------------------------------------- the checker itself

def test_gradcheck_reports_mismatch_like_pytorch():
    x = _x((3,))

    def wrong(a):  # forward a*a, but the gradient only sees one factor
        return a * a.detach()

    with pytest.raises(GradcheckError, match=r"(?s)Jacobian mismatch for output 0 with respect to input 0,\n"
                                             r"numerical:tensor\(.*\nanalytical:tensor\("):
        gradcheck(wrong, (x,))
    assert gradcheck(wrong, (x,), raise_exception=False) is False
    assert isinstance(GradcheckError("x"), RuntimeError)


def test_gradcheck_multiple_inputs_and_outputs():
    a, b = _x((2, 3)), _x((3,), seed=1)
    c = tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64)  # does not require grad: not checked
    assert gradcheck(lambda p, q, r: (p * q + r, (p - q).sum(1), p.max(1)), (a, b, c))

    def second_output_wrong(p, q):
        return p + q, p * q.detach()

    with pytest.raises(GradcheckError, match="output 1 with respect to input 1"):
        gradcheck(second_output_wrong, (a, b))


def test_gradcheck_needs_an_input_requiring_grad():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (tl.ones(3, dtype=tl.float64),))


def test_gradcheck_warns_for_single_precision():
    x = tl.tensor([1.0, 2.0], dtype=tl.float32, requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(lambda a: a * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_gradgradcheck_catches_wrong_second_derivative():
    x = _x((3,))

    def f(a):
        # Equal to a**3 (detach() shares a's storage, so finite differences see
        # a**3 too) and its gradient 3a^2 is right, but that gradient is built
        # from detached values: the second derivative comes out 0 instead of 6a.
        d = a.detach()
        return d ** 3 + 3 * d ** 2 * (a - d)
    assert gradcheck(lambda a: a ** 3, (x,))
    assert gradgradcheck(lambda a: a ** 3, (x,))
    assert gradcheck(f, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(f, (x,))


def test_gradcheck_on_non_contiguous_and_closure_inputs():
    base = _x((4, 3))
    xt = base.detach().t()  # non-contiguous leaf
    xt.requires_grad_(True)
    assert gradcheck(lambda a: (a.sin() * a).sum(0), (xt,))
    w = _x((4,), seed=5)
    assert gradcheck(lambda a: (a * w).exp(), (xt,))  # w is a constant of the closure
    assert gradgradcheck(lambda a: a.sin(), (xt,), gen_non_contig_grad_outputs=True)


# ---------------------------------------------------------------- ops without formulas

NO_FORMULA = [
    ("floor_divide", lambda a: tl.floor_divide(a, tl.tensor(2.0, dtype=tl.float64))),
]


@pytest.mark.parametrize("name,call", NO_FORMULA, ids=[n for n, _ in NO_FORMULA])
def test_missing_derivative_raises_at_backward(name, call):
    x = _x((3,))
    y = call(x)  # forward works and records the graph
    assert y.requires_grad
    # PyTorch's not-implemented fallback: a RuntimeError naming the operator.
    with pytest.raises(RuntimeError, match=f"derivative for aten::{name} is not implemented"):
        y.sum().backward()
