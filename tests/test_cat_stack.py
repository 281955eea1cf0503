"""cat and stack beyond the op-sample table (tests/opinfo/views.py, which
checks values per dtype, out=, Meta and the basic errors): mixed-dtype
promotion, the block-copy and strided paths of the CPU kernel, out= resizing,
casting and overlap, and the error for inputs on different devices. Gradients
are in tests/test_autograd_shapes.py."""
import numpy as np
import pytest

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


@pytest.mark.parametrize("a,b,want", [
    ("int32", "float16", "float16"), ("int32", "int64", "int64"), ("bool", "uint8", "uint8"),
    ("int8", "uint8", "int16"), ("bfloat16", "float16", "float32"), ("bool", "float64", "float64"),
])
def test_mixed_dtypes_promote_as_pytorch(a, b, want):
    x = tl.tensor([[1, 0]], dtype=getattr(tl, a))
    y = tl.tensor([[1, 1], [0, 1]], dtype=getattr(tl, b))
    r = tl.cat([x, y])
    assert r.dtype == getattr(tl, want)
    np.testing.assert_array_equal(np.asarray(r.to(tl.float64)), [[1, 0], [1, 1], [0, 1]])
    s = tl.stack([x[0], y[1]], 1)
    assert s.dtype == getattr(tl, want)
    np.testing.assert_array_equal(np.asarray(s.to(tl.float64)), [[1, 0], [0, 1]])


@needs_torch
@pytest.mark.parametrize("a,b", [("int32", "float16"), ("int8", "uint8"), ("bfloat16", "float16"), ("bool", "int16")])
def test_mixed_dtypes_match_pytorch(a, b):
    r = tl.cat([tl.ones(2, dtype=getattr(tl, a)), tl.ones(1, dtype=getattr(tl, b))])
    t = torch.cat([torch.ones(2, dtype=getattr(torch, a)), torch.ones(1, dtype=getattr(torch, b))])
    assert str(r.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_strided_inputs_and_block_copy_agree_with_numpy(dim):
    rng = np.random.default_rng(dim + 5)
    parts = [rng.standard_normal((3, 4, 5)).astype(np.float32) for _ in range(3)]
    ts = [tl.tensor(p) for p in parts]
    ts[1] = tl.tensor(np.ascontiguousarray(parts[1].transpose(2, 1, 0))).permute(2, 1, 0)  # same values, strided
    assert not ts[1].is_contiguous()
    r = tl.cat(ts, dim)
    assert r.is_contiguous()
    np.testing.assert_array_equal(np.asarray(r), np.concatenate(parts, dim))
    s = tl.stack(ts, dim)
    np.testing.assert_array_equal(np.asarray(s), np.stack(parts, dim))


def test_large_cat_uses_every_row():
    # Enough rows that the row loop is split across threads.
    a = np.arange(300000, dtype=np.float64).reshape(100000, 3)
    b = -np.arange(100000, dtype=np.float64).reshape(100000, 1)
    np.testing.assert_array_equal(np.asarray(tl.cat([tl.tensor(a), tl.tensor(b)], 1)), np.concatenate([a, b], 1))


def test_out_is_resized_and_cast():
    out = tl.empty(0, dtype=tl.float64)
    r = tl.cat([tl.tensor([1, 2], dtype=tl.int32), tl.tensor([3], dtype=tl.int32)], out=out)
    assert r is out and out.dtype == tl.float64
    np.testing.assert_array_equal(np.asarray(out), [1.0, 2.0, 3.0])
    out = tl.empty(2, 2)
    tl.stack([tl.tensor([1.0, 2.0]), tl.tensor([3.0, 4.0])], 1, out=out)
    np.testing.assert_array_equal(np.asarray(out), [[1, 3], [2, 4]])


def test_out_that_cannot_hold_the_result_dtype_is_refused():
    with pytest.raises(RuntimeError, match=r"torch\.cat\(\): input types can't be cast to the desired output type"):
        tl.cat([tl.tensor([1.5])], out=tl.empty(1, dtype=tl.int32))


def test_out_overlapping_an_input_is_refused_not_corrupted():
    x = tl.tensor([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        tl.cat([x[:2], x[1:3]], out=x)
    np.testing.assert_array_equal(np.asarray(x), [1, 2, 3, 4])


def test_meta_inputs_give_meta_output():
    r = tl.cat([tl.empty(2, 3, device="meta"), tl.empty(2, 5, dtype=tl.float64, device="meta")], 1)
    assert r.device.type == "meta" and tuple(r.shape) == (2, 8) and r.dtype == tl.float64


def test_inputs_on_different_devices_are_refused():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        tl.cat([tl.empty(2), tl.empty(2, device="meta")])


def test_tuple_argument_and_keyword_dim():
    r = tl.cat((tl.ones(1, 2), tl.zeros(1, 2)), dim=-1)
    np.testing.assert_array_equal(np.asarray(r), [[1, 1, 0, 0]])
    r = tl.stack(tensors=(tl.ones(2), tl.zeros(2)), dim=0)
    np.testing.assert_array_equal(np.asarray(r), [[1, 1], [0, 0]])


# An empty list carries no device: the call goes to the CPU kernel, whose own
# check gives PyTorch's error.
@pytest.mark.parametrize("op,exc,msg", [("cat", ValueError, r"torch\.cat\(\): expected a non-empty list of Tensors"),
                                        ("stack", RuntimeError, "stack expects a non-empty TensorList")])
def test_empty_list_error_is_pytorchs(op, exc, msg):
    with pytest.raises(exc, match=msg):
        getattr(tl, op)([])


def test_empty_list_is_refused_not_crashing():
    for op in ("cat", "stack"):
        with pytest.raises((ValueError, RuntimeError, NotImplementedError)):
            getattr(tl, op)([])
