"""PyTorch's promotion: dimensioned tensors decide; 0-dim tensors and Python
numbers take part only when they raise the category (bool < int < float)."""
import itertools

import pytest

import torchlike as tl
from conftest import requires_torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


# Literal expectations that need no reference installed.
@pytest.mark.parametrize("a,b,want", [
    (("uint8", 1), ("int8", 1), "int16"),
    (("bool", 1), ("bool", 1), "bool"),
    (("int32", 1), ("int64", 1), "int64"),
    (("float16", 1), ("bfloat16", 1), "float32"),
    (("int8", 1), ("int64", 0), "int8"),        # 0-dim int does not widen an int tensor
    (("int8", 1), ("float64", 0), "float64"),   # ...but a 0-dim float raises the category, with its own dtype
    (("float16", 1), ("float64", 0), "float16"),
    (("bool", 1), ("int64", 0), "int64"),
    (("int32", 0), ("float16", 0), "float16"),
    (("uint8", 0), ("int8", 0), "int16"),
])
def test_tensor_tensor_literal(a, b, want):
    x = tl.tensor([1] if a[1] else 1, dtype=getattr(tl, a[0]))
    y = tl.tensor([1] if b[1] else 1, dtype=getattr(tl, b[0]))
    assert (x + y).dtype == getattr(tl, want)
    assert (y + x).dtype == getattr(tl, want)


@pytest.mark.parametrize("dtype,scalar,want", [
    ("int32", 2, "int32"), ("int32", 2.5, "float32"), ("int32", True, "int32"),
    ("uint8", 300, "uint8"), ("bool", 1, "int64"), ("bool", 1.5, "float32"), ("bool", True, "bool"),
    ("float16", 2.5, "float16"), ("bfloat16", 2, "bfloat16"), ("float64", 1, "float64"),
])
def test_tensor_python_scalar_literal(dtype, scalar, want):
    x = tl.tensor([1], dtype=getattr(tl, dtype))
    assert (x * scalar).dtype == getattr(tl, want)
    assert (scalar * x).dtype == getattr(tl, want)


def test_integer_true_division_gives_default_float():
    assert (tl.tensor([1, 2]) / 2).dtype == tl.float32
    assert (tl.tensor([1, 2]) / tl.tensor([2, 2])).dtype == tl.float32
    tl.set_default_dtype(tl.float64)
    try:
        assert (tl.tensor([1, 2]) / 2).dtype == tl.float64
        assert tl.tensor([1.5]).dtype == tl.float64
    finally:
        tl.set_default_dtype(tl.float32)


def test_inplace_cannot_lower_category():
    x = tl.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        x += 1.5
    b = tl.tensor([True, False])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Bool"):
        b.add_(1)
    f = tl.tensor([1.0, 2.0])
    f += tl.tensor([1, 2])  # int into float is fine
    assert f.tolist() == [2.0, 4.0] and f.dtype == tl.float32


def test_out_of_another_dtype_is_cast():
    out = tl.empty(3, dtype=tl.float64)
    r = tl.add(tl.tensor([1, 2, 3]), 1, out=out)
    assert r is out and out.dtype == tl.float64 and out.tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.add(tl.tensor([1.5]), 1, out=tl.empty(1, dtype=tl.int64))


@requires_torch
@pytest.mark.parametrize("da,db", list(itertools.product(DTYPES, DTYPES)))
def test_matches_pytorch_every_pair(da, db):
    import torch
    for dim_a, dim_b in [(1, 1), (1, 0), (0, 1), (0, 0)]:
        x = tl.tensor([1] if dim_a else 1, dtype=getattr(tl, da))
        y = tl.tensor([1] if dim_b else 1, dtype=getattr(tl, db))
        tx = torch.tensor([1] if dim_a else 1, dtype=getattr(torch, da))
        ty = torch.tensor([1] if dim_b else 1, dtype=getattr(torch, db))
        want = str(torch.mul(tx, ty).dtype).replace("torch.", "")
        assert str(tl.mul(x, y).dtype).replace("torchlike.", "") == want, (da, dim_a, db, dim_b)
        want = str(torch.eq(tx, ty).dtype).replace("torch.", "")
        assert str(tl.eq(x, y).dtype).replace("torchlike.", "") == want


@requires_torch
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [True, 3, -2, 2.5])
def test_python_scalars_match_pytorch(dtype, scalar):
    import torch
    x = tl.tensor([1], dtype=getattr(tl, dtype))
    tx = torch.tensor([1], dtype=getattr(torch, dtype))
    for op in ("mul", "add", "div", "eq", "maximum"):
        if op == "maximum":
            got, want = tl.maximum(x, tl.tensor(scalar)).dtype, torch.maximum(tx, torch.tensor(scalar)).dtype
        else:
            got, want = getattr(tl, op)(x, scalar).dtype, getattr(torch, op)(tx, scalar).dtype
        assert str(got).replace("torchlike.", "") == str(want).replace("torch.", ""), (op, dtype, scalar)
