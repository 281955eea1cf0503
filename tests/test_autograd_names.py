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
