"""Tensor printing: repr/str match PyTorch's text (with torch. -> torchlike.)."""
import math

import numpy as np
import pytest

import torchlike as tl
from conftest import requires_torch

_rng = np.random.default_rng(0)

# (data, dtype name or None): one repr comparison each
VALUE_CASES = [
    ([1.0, 2.0, 3.0], None),
    ([1, 2, 3], None),
    ([True, False, True], None),
    ([1, 2, 3], "int32"),
    ([1, -2, 3], "int8"),
    ([[1, 2], [3, 4]], "uint8"),
    ([1, 2, 3], "int16"),
    (3.5, None),
    (3, None),
    (True, None),
    (-0.0, None),
    (2.0, "float64"),
    (7, "int32"),
    ([1.5, -2.25, 1e-5], None),
    ([1e10, 1.0], None),
    ([123456789.0, 1.0], None),
    ([float("nan"), 1.0, float("inf"), -float("inf")], None),
    ([float("nan"), 0.0], None),
    ([float("nan"), 1.5], None),
    ([0.0, 0.0], None),
    ([1e-5], None),
    ([0.1, 0.2], None),
    ([1e8, 2e8], None),
    ([1e9], None),
    ([100.0, 1e5], None),
    ([100.0, 1e6], None),
    ([-1e-4, 1.0], None),
    ([0.00011, 0.1], None),
    ([1.0, 1e3], None),
    ([1.0, 1001.0], None),
    ([-0.0, 1.0], None),
    ([[-1.5e-7, 2.0], [3.0, 4.0]], None),
    ([1.5, 2.5], "float16"),
    ([1.5, 2.5], "bfloat16"),
    ([65504.0, 1e-3], "float16"),
    ([0.1, 1.0 / 3.0], "bfloat16"),
    ([1.0 / 3.0, 2.0 / 3.0], "float64"),
    ([12345.678, 0.5], None),
    (np.arange(20, dtype=np.float32).reshape(4, 5).tolist(), None),
    ((np.arange(60) / 7).reshape(3, 4, 5).tolist(), "float64"),
    ((np.arange(120) - 60).reshape(2, 3, 4, 5).tolist(), None),
    (np.arange(100).reshape(2, 5, 10).tolist(), "int16"),
    (np.arange(30).tolist(), None),                        # wraps at linewidth 80
    ((np.arange(30) / 7).tolist(), None),
    ((np.arange(40) * 1e-6).tolist(), None),              # scientific notation wrapping
    (_rng.standard_normal((5, 30)).tolist(), None),
    (_rng.standard_normal((3, 3, 3, 3)).tolist(), "float64"),
    (_rng.integers(-10 ** 6, 10 ** 6, size=(4, 25)).tolist(), None),
    # summarised (above threshold 1000)
    (np.arange(2000).tolist(), None),
    ((np.arange(2000) / 3).reshape(40, 50).tolist(), None),
    (np.arange(1200).reshape(2, 3, 200).tolist(), "int32"),
    ((np.arange(3000) / 7).reshape(10, 10, 30).tolist(), None),
    (np.arange(1001).tolist(), "float64"),
    (np.linspace(-1000, 1000, 1500).tolist(), None),
    ([[1.0] * 1001], None),
    (np.linspace(0, 1, 1500).tolist(), "float16"),
]

OPTION_CASES = [
    dict(precision=2),
    dict(precision=8),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(threshold=5),
    dict(edgeitems=1, threshold=5),
    dict(edgeitems=0, threshold=5),
    dict(linewidth=40),
    dict(linewidth=20),
    dict(profile="short"),
    dict(profile="full"),
]
OPTION_DATA = [[1.12345, 2e-5], (np.arange(30) / 7).reshape(5, 6).tolist(), list(range(20)),
               [[1e10, 1.0], [2.0, 3.0]], [0.0, 0.0], np.arange(24).reshape(2, 3, 4).tolist(), [1.5, 2.5, 3.5]]


def _both(data, dtype):
    import torch
    return (tl.tensor(data, dtype=getattr(tl, dtype) if dtype else None),
            torch.tensor(data, dtype=getattr(torch, dtype) if dtype else None))


def _same(t_tl, t_pt):
    got = repr(t_tl).replace("torchlike.", "torch.")
    assert got == repr(t_pt), f"\ntorchlike:\n{got}\ntorch:\n{repr(t_pt)}"
    assert str(t_tl).replace("torchlike.", "torch.") == str(t_pt)


@pytest.fixture
def restore_options():
    yield
    tl.set_printoptions(profile="default")
    try:
        import torch
        torch.set_printoptions(profile="default")
    except ImportError:
        pass


@requires_torch
@pytest.mark.parametrize("data,dtype", VALUE_CASES, ids=[f"{i}-{d}" for i, (_, d) in enumerate(VALUE_CASES)])
def test_repr_matches_torch(data, dtype):
    _same(*_both(data, dtype))


@requires_torch
@pytest.mark.parametrize("shape,dtype", [((0,), None), ((0, 3), None), ((2, 0, 3), "int64"), ((0,), "int32"),
                                         ((0,), "float64"), ((3, 0), "bool"), ((0,), "float16")])
def test_empty_matches_torch(shape, dtype):
    import torch
    _same(tl.empty(shape, dtype=getattr(tl, dtype) if dtype else None),
          torch.empty(shape, dtype=getattr(torch, dtype) if dtype else None))


@requires_torch
@pytest.mark.parametrize("shape,dtype", [((2, 3), None), ((), "int64"), ((5,), "float64"), ((0, 2), "int32")])
def test_meta_matches_torch(shape, dtype):
    import torch
    _same(tl.empty(shape, dtype=getattr(tl, dtype) if dtype else None, device="meta"),
          torch.empty(shape, dtype=getattr(torch, dtype) if dtype else None, device="meta"))


@requires_torch
@pytest.mark.parametrize("opts", OPTION_CASES, ids=[str(o) for o in OPTION_CASES])
def test_printoptions_match_torch(opts, restore_options):
    import torch
    tl.set_printoptions(**opts)
    torch.set_printoptions(**opts)
    for data in OPTION_DATA:
        _same(*_both(data, None))


@requires_torch
def test_noncontiguous_and_default_dtype_matches_torch(restore_options):
    import torch
    a = np.arange(24, dtype=np.float32).reshape(4, 6) / 3
    t_tl, t_pt = tl.tensor(a), torch.tensor(a)
    _same(t_tl[:, 1], t_pt[:, 1])
    _same(t_tl[1], t_pt[1])
    # With float64 as the default dtype, float32 is the one that gets a suffix.
    tl.set_default_dtype(tl.float64)
    torch.set_default_dtype(torch.float64)
    try:
        _same(*_both([1.5, 2.0], "float32"))
        _same(*_both([1.5, 2.0], "float64"))
        _same(tl.empty((0,), dtype=tl.float32), torch.empty((0,), dtype=torch.float32))
    finally:
        tl.set_default_dtype(tl.float32)
        torch.set_default_dtype(torch.float32)


# ---- literal expectations (no torch needed)

def test_literals():
    assert repr(tl.tensor([1.0, 2.0, 3.0])) == "tensor([1., 2., 3.])"
    assert repr(tl.tensor([1, 2, 3])) == "tensor([1, 2, 3])"
    assert repr(tl.tensor([1, 2, 3], dtype=tl.int32)) == "tensor([1, 2, 3], dtype=torchlike.int32)"
    assert repr(tl.tensor([True, False])) == "tensor([ True, False])"
    assert repr(tl.tensor(3.5)) == "tensor(3.5000)"
    assert repr(tl.tensor([1.5, float("nan")])) == "tensor([1.5000,    nan])"
    assert repr(tl.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(tl.empty((0, 3))) == "tensor([], size=(0, 3))"
    assert repr(tl.empty((2, 3), device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(tl.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(tl.tensor([0.5], dtype=tl.float16)) == "tensor([0.5000], dtype=torchlike.float16)"


def test_summarised_literal(restore_options):
    t = tl.tensor(list(range(2000)))
    assert repr(t) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    tl.set_printoptions(threshold=math.inf)
    assert "..." not in repr(t)


def test_set_printoptions_state(restore_options):
    tl.set_printoptions(precision=2, sci_mode=False)
    assert tl.get_printoptions()["precision"] == 2
    assert repr(tl.tensor([1.0 / 3.0])) == "tensor([0.33])"
    with tl.printoptions(precision=6):
        assert repr(tl.tensor([1.0 / 3.0])) == "tensor([0.333333])"
    assert repr(tl.tensor([1.0 / 3.0])) == "tensor([0.33])"
    tl.set_printoptions(profile="default")
    assert tl.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                                     "sci_mode": None}
    with pytest.raises(ValueError):
        tl.set_printoptions(profile="nope")
