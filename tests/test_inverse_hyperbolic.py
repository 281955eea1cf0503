"""asinh/acosh/atanh and their arc* aliases (torch and Tensor, in-place too)
against NumPy; out-of-domain inputs give NaN as in NumPy and PyTorch."""
import numpy as np
import pytest

import torchlike as tl


@pytest.mark.parametrize("name,alias,ref,data", [
    ("asinh", "arcsinh", np.arcsinh, [-2.0, 0.0, 0.5, 3.0]),
    ("acosh", "arccosh", np.arccosh, [1.0, 1.5, 4.0, 0.5]),
    ("atanh", "arctanh", np.arctanh, [-0.5, 0.0, 0.9, 2.0]),
])
def test_values_aliases_and_inplace(name, alias, ref, data):
    a = np.array(data)
    with np.errstate(invalid="ignore"):
        want = ref(a)
    for fn in (getattr(tl, name), getattr(tl, alias)):
        np.testing.assert_allclose(np.asarray(fn(tl.tensor(a))), want, rtol=1e-12, equal_nan=True)
    for method in (name + "_", alias + "_"):
        x = tl.tensor(a)
        assert getattr(x, method)() is x
        np.testing.assert_allclose(np.asarray(x), want, rtol=1e-12, equal_nan=True)
        y = tl.tensor(a)
        assert getattr(tl, method)(y) is y
        np.testing.assert_allclose(np.asarray(y), want, rtol=1e-12, equal_nan=True)
    assert getattr(tl, name)(tl.tensor([1, 2])).dtype == tl.float32  # integers promote to float


def test_inplace_names_exist_on_torch_and_tensor():
    for m in ["asinh_", "arcsinh_", "acosh_", "arccosh_", "atanh_", "arctanh_"]:
        assert callable(getattr(tl.Tensor, m)) and callable(getattr(tl, m))
    x = tl.tensor([0.25])
    tl.arctanh_(x)
    tl.arcsinh_(x)
    x.add_(1.5).arccosh_()
    assert np.isfinite(np.asarray(x)).all()
