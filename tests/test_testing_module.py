"""torchlike.testing: assert_close's rules and messages, make_tensor's ranges,
checked against exact expectations and, where installed, PyTorch's own."""
import math
import re
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike.testing import assert_allclose, assert_close, make_tensor

try:
    import torch
except ImportError:
    torch = None


def message(fn, *args, **kwargs):
    with pytest.raises((AssertionError, TypeError, ValueError)) as e:
        fn(*args, **kwargs)
    return type(e.value), str(e.value)


CASES = [  # (actual, expected, kwargs) as NumPy/Python data, turned into tensors by `build`
    ("t", [1.0, 2.0, 3.0], [1.0, 2.1, 3.0], {}),
    ("t", [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.5]], {}),
    ("t", [1, 2, 3], [1, 2, 4], {}),
    ("t", [1.0, float("nan")], [1.0, float("nan")], {}),
    ("t", [1.0, float("nan")], [1.0, float("nan")], {"equal_nan": True}),
    ("t", [1.0, float("inf")], [1.0, float("inf")], {}),
    ("t", [1.0, 2.0], [1.0, 2.0001], {"rtol": 1e-3, "atol": 0.0}),
    ("t", [1.0, 2.0], [1.0, 2.1], {"rtol": 0.0, "atol": 0.0}),
    ("t", [True, False], [True, True], {}),
    ("s", 1.0, 1.1, {}),
    ("s", 1, 2, {}),
    ("s", True, False, {}),
    ("s", 1.0, 1.0 + 1e-7, {}),
    ("s", 1, 1.0, {}),
    ("s", 1, 1.0, {"check_dtype": False}),
]


def build(lib, kind, x):
    if kind == "s":
        return x
    return lib.tensor(x)


@pytest.mark.parametrize("kind,a,e,kw", CASES)
def test_assert_close_outcomes_and_messages(kind, a, e, kw):
    def run(lib, fn):
        try:
            fn(build(lib, kind, a), build(lib, kind, e), **kw)
            return None
        except (AssertionError, TypeError, ValueError) as exc:
            return type(exc), str(exc).replace("torchlike.", "torch.")

    got = run(tl, assert_close)
    # exact expectations without PyTorch: which of these must fail
    must_fail = {0, 1, 2, 3, 7, 8, 9, 10, 11, 13}
    idx = next(i for i, c in enumerate(CASES) if c == (kind, a, e, kw))
    assert (got is not None) == (idx in must_fail), got
    if torch is not None:
        assert got == run(torch, torch.testing.assert_close)


def test_assert_close_attributes_and_containers():
    t = tl.ones(2)
    assert message(assert_close, t, tl.ones(3))[1] == \
        "The values for attribute 'shape' do not match: torchlike.Size([2]) != torchlike.Size([3])."
    assert "attribute 'dtype'" in message(assert_close, t, tl.ones(2, dtype=tl.float64))[1]
    assert_close(t, tl.ones(2, dtype=tl.float64), check_dtype=False)
    assert "attribute 'stride()'" in message(assert_close, tl.ones(2, 2), tl.ones(2, 2).t().contiguous().t(),
                                             check_stride=True)[1]
    kind, msg = message(assert_close, [t, tl.zeros(2)], [t, tl.ones(2)])
    assert kind is AssertionError and msg.endswith("The failure occurred for item [1]")
    assert "length of the sequences" in message(assert_close, [t], [t, t])[1]
    assert "keys of the mappings" in message(assert_close, {"a": t}, {"b": t})[1]
    assert_close({"a": [t, 1.0]}, {"a": [tl.ones(2), 1.0]})
    assert message(assert_close, t, 1.0)[0] is TypeError
    assert message(assert_close, t, t, rtol=1e-3)[0] is ValueError
    assert message(assert_close, t, tl.zeros(2), msg="custom") == (AssertionError, "custom")
    assert message(assert_close, t, tl.zeros(2), msg=lambda m: "X" + m)[1].startswith("XTensor-likes")
    assert_close(np.ones(3), np.ones(3))
    a = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert_close(a * 1, a.detach())


def test_assert_close_default_tolerances_are_per_dtype():
    x = tl.tensor([1.0], dtype=tl.float16)
    assert_close(x, tl.tensor([1.0009765625], dtype=tl.float16))  # one float16 ulp, within rtol 1e-3
    message(assert_close, tl.tensor([1.0]), tl.tensor([1.0 + 1e-4]))  # float32: atol 1e-5 + rtol 1.3e-6 fails
    assert_close(tl.tensor([1.0]), tl.tensor([1.0 + 1e-5]))


def test_assert_allclose_is_deprecated_but_works():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert_allclose(tl.tensor([1.0, 2.0]), [1.0, 2.0])
        assert any(issubclass(x.category, FutureWarning) for x in w)
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        assert_allclose(tl.tensor([1.0, 2.0]), [1.0, 3.0])


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_make_tensor_ranges(dtype):
    dt = getattr(tl, dtype)
    x = make_tensor(64, 8, dtype=dt, device="cpu")
    assert x.shape == (64, 8) and x.dtype == dt
    v = np.asarray(x.to(tl.float64) if dtype != "bool" else x)
    if dtype == "bool":
        assert v.any() and not v.all()
    elif dtype == "uint8":
        assert v.min() >= 0 and v.max() < 10
    elif dtype in ("int8", "int16", "int32", "int64"):
        assert v.min() >= -9 and v.max() < 10
    else:
        assert v.min() >= -9 and v.max() <= 9
    y = make_tensor((4, 6), dtype=dt, device="cpu", noncontiguous=True)
    assert y.shape == (4, 6) and not y.is_contiguous()
    if dtype != "bool":
        z = make_tensor(200, dtype=dt, device="cpu", low=-1, high=2, exclude_zero=True)
        zv = np.asarray(z.to(tl.float64))
        assert (zv != 0).all() and zv.min() >= -1 and zv.max() <= 2


def test_make_tensor_errors_and_grad():
    x = make_tensor(3, dtype=tl.float64, device="cpu", requires_grad=True)
    assert x.requires_grad and x.is_leaf
    with pytest.raises(ValueError, match="requires_grad=True"):
        make_tensor(3, dtype=tl.int64, device="cpu", requires_grad=True)
    with pytest.raises(ValueError, match="`low` must be less than or equal to `high`"):
        make_tensor(3, dtype=tl.float32, device="cpu", low=2, high=1)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor(3, dtype=tl.float32, device="cpu", low=math.nan)
    x = make_tensor(2, 3, dtype=tl.float32, device="cpu", low=5, high=5)
    assert (np.asarray(x) == 5).all()
