"""x.zero_() / torchlike.zero_(x): fills with zeros in place, every dtype,
through views, with autograd (ZeroBackward0) and PyTorch's errors."""
import numpy as np
import pytest

import torchlike as tl

DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.float16, tl.bfloat16, tl.float32, tl.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_values_every_dtype(dtype):
    x = tl.ones(3, 4, dtype=dtype)
    r = x.zero_()
    assert r is x and x.dtype == dtype
    np.testing.assert_array_equal(x.float().numpy(), np.zeros((3, 4), np.float32))


def test_function_form_views_and_version():
    base = tl.arange(12.).reshape(3, 4)
    v0 = base._version
    col = base[:, 1]                       # a non-contiguous view
    tl.zero_(col)
    want = np.arange(12.).reshape(3, 4)
    want[:, 1] = 0
    np.testing.assert_array_equal(base.numpy(), want)
    assert base._version > v0
    e = tl.empty(0)
    assert e.zero_() is e


def test_meta():
    m = tl.empty(2, 3, device="meta")
    assert m.zero_().shape == (2, 3) and m.device.type == "meta"


def test_autograd():
    x = tl.tensor([1., 2., 3.], dtype=tl.float64, requires_grad=True)
    y = x * 2
    y.zero_()
    assert y.grad_fn.name() == "ZeroBackward0" and "ZeroBackward0" in repr(y.grad_fn)
    (y + x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1., 1., 1.])   # nothing flows through the zeroed y
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.zero_()
    with tl.no_grad():
        x.zero_()
    np.testing.assert_array_equal(x.detach().numpy(), [0., 0., 0.])


def test_errors():
    with pytest.raises(TypeError):
        tl.zero_([1, 2])
    with pytest.raises(TypeError):
        tl.ones(2).zero_(1)


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    t = torch.ones(2, 3, requires_grad=True) * 3
    ours = tl.ones(2, 3, requires_grad=True) * 3
    assert t.zero_().grad_fn.name() == ours.zero_().grad_fn.name()
    assert torch.zero_(torch.ones(2)).tolist() == tl.zero_(tl.ones(2)).tolist()
