"""The legacy and small torch.autograd names: Variable, variable, NestedIOFunction,
set_multithreading_enabled."""
import numpy as np
import pytest

import torchlike
from torchlike.autograd import NestedIOFunction, Variable, set_multithreading_enabled
from torchlike.autograd._multithreading import is_multithreading_enabled


def test_variable_returns_a_leaf_tensor_over_the_same_data():
    t = torchlike.ones(3, requires_grad=True)
    v = Variable(t)
    assert type(v) is torchlike.Tensor
    assert v is not t and v.data_ptr() == t.data_ptr()
    assert not v.requires_grad and v.grad_fn is None
    w = Variable(torchlike.ones(2) * 2, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    assert Variable().shape == (0,)
    assert isinstance(torchlike.ones(1), Variable)
    assert not isinstance(3, Variable)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        Variable(3)
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        assert not Variable(torchlike.ones(1), volatile=True).requires_grad
    with pytest.raises(RuntimeError, match=r"torch.autograd.variable\(...\) is deprecated, use torch.tensor\(...\)"):
        torchlike.autograd.variable(torchlike.ones(1))


class MulAdd(NestedIOFunction):
    def forward_extended(self, a, b):
        self.save_for_backward(a, b)
        return a * b, a + b

    def backward_extended(self, ga, gb):
        a, b = self.saved_tensors
        return ga * b + gb, ga * a + gb


def test_nested_io_function_flat():
    a = torchlike.randn(3, requires_grad=True)
    b = torchlike.randn(3, requires_grad=True)
    prod, total = MulAdd()(a, b)
    np.testing.assert_allclose(prod.detach().numpy(), (a * b).detach().numpy())
    (prod.sum() + total.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy() + 1, rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), a.detach().numpy() + 1, rtol=1e-6)


def test_nested_io_function_nested_structures_and_gradcheck():
    class Nested(NestedIOFunction):
        def forward_extended(self, pair, scale):
            x, y = pair
            self.save_for_backward(scale)
            return [x * scale, (y.exp(),)]

        def backward_extended(self, gx, gy):
            (scale,) = self.saved_tensors
            return (gx * scale, gy[0] * self.y_exp), None

    def run(x, y):
        fn = Nested()
        scale = torchlike.full((2,), 3.0, dtype=torchlike.float64)
        fn.y_exp = y.detach().exp()
        out = fn((x, y), scale)
        assert isinstance(out, list) and isinstance(out[1], tuple)
        return out[0], out[1][0]

    x = torchlike.randn(2, dtype=torchlike.float64, requires_grad=True)
    y = torchlike.randn(2, dtype=torchlike.float64, requires_grad=True)
    assert torchlike.autograd.gradcheck(run, (x, y))


def test_nested_io_function_gradient_count_is_checked():
    class Wrong(NestedIOFunction):
        def forward_extended(self, a):
            return a * 2

        def backward_extended(self, g):
            return g, g

    a = torchlike.ones(2, requires_grad=True)
    out = Wrong()(a)
    with pytest.raises(RuntimeError, match="returned 2 gradients for 1 input tensors"):
        out.sum().backward()


def test_set_multithreading_enabled():
    assert is_multithreading_enabled()
    with set_multithreading_enabled(False):
        assert not is_multithreading_enabled()
        with set_multithreading_enabled(True):
            assert is_multithreading_enabled()
        assert not is_multithreading_enabled()
    assert is_multithreading_enabled()
    set_multithreading_enabled(False)
    assert not is_multithreading_enabled()
    set_multithreading_enabled(True)

    @set_multithreading_enabled(False)
    def inside():
        return is_multithreading_enabled()

    assert inside() is False and is_multithreading_enabled()
    with pytest.raises(TypeError):
        set_multithreading_enabled()
    # Backward itself is unaffected either way.
    x = torchlike.ones(2, requires_grad=True)
    with set_multithreading_enabled(False):
        (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


class _TransposedGrad(torchlike.autograd.Function):
    """Identity whose backward hands back a transposed (column-major) gradient."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return torchlike.ones(g.shape[1], g.shape[0]).t()


def test_enforce_grad_layout_policy():
    from torchlike.autograd import enforce_grad_layout_policy

    vf = torchlike._C._VariableFunctions
    assert vf._grad_layout_policy_enforced()
    # A permuted (dense) parameter: the gradient takes its strides under the contract.
    p = torchlike.empty(2, 3, 4).permute(2, 0, 1).requires_grad_()
    (p * 2).sum().backward()
    assert p.grad.stride() == p.stride() == (1, 12, 4)
    np.testing.assert_allclose(p.grad.numpy(), 2.0)
    # A contiguous parameter given a column-major gradient: copied to row-major when
    # enforced, kept as it is (no copy) when relaxed.
    q = torchlike.randn(3, 4, requires_grad=True)
    _TransposedGrad.apply(q).sum().backward()
    assert q.grad.stride() == (4, 1)
    q.grad = None
    with enforce_grad_layout_policy(False):
        assert not vf._grad_layout_policy_enforced()
        _TransposedGrad.apply(q).sum().backward()
        assert q.grad.stride() == (1, 3)
    assert vf._grad_layout_policy_enforced()
    np.testing.assert_allclose(q.grad.numpy(), 1.0)
    # Accumulation into an existing gradient keeps its layout.
    _TransposedGrad.apply(q).sum().backward()
    np.testing.assert_allclose(q.grad.numpy(), 2.0)

    enforce_grad_layout_policy(False)
    assert not vf._grad_layout_policy_enforced()
    enforce_grad_layout_policy()
    assert vf._grad_layout_policy_enforced()

    @enforce_grad_layout_policy(False)
    def relaxed():
        return vf._grad_layout_policy_enforced()

    assert relaxed() is False and vf._grad_layout_policy_enforced()
