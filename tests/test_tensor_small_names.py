"""Small Tensor and module-level names no registry entry reaches: sizes and
flags, in-place comparisons and logical ops, reshape_as, layout and memory
format objects, checked against NumPy and exact values."""
import numpy as np
import pytest

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None


def test_size_and_flag_queries():
    x = tl.zeros(2, 3, 4, dtype=tl.float64)
    assert x.ndimension() == 3 and x.nelement() == 24 and x.element_size() == 8
    assert tl.ones(1, dtype=tl.int16).element_size() == 2 and tl.ones(1, dtype=tl.bool).element_size() == 1
    assert x.is_cpu is True and x.is_cuda is False and x.is_complex() is False
    assert tl.is_tensor(x) and not tl.is_tensor(np.zeros(2)) and not tl.is_tensor(3)
    assert x.layout is tl.strided and repr(tl.preserve_format) == "torchlike.preserve_format"
    assert x.clone(memory_format=tl.preserve_format).stride() == x.stride()
    assert tl.empty(2, 3).reshape_as(tl.empty(3, 2)).shape == (3, 2)
    with pytest.raises(RuntimeError, match="invalid for input of size 6"):
        tl.empty(2, 3).reshape_as(tl.empty(4))


def test_output_nr_of_single_output_nodes():
    a = tl.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    assert a.output_nr == 0 and (a * 2).output_nr == 0 and tl.ones(2).output_nr == 0


A = np.array([[1.0, -2.0, 3.0], [0.0, 5.0, -6.0]])
B = np.array([1.0, 5.0, -6.0])


@pytest.mark.parametrize("name,ref", [
    ("eq_", np.equal), ("ne_", np.not_equal), ("lt_", np.less), ("le_", np.less_equal), ("gt_", np.greater),
    ("ge_", np.greater_equal), ("logical_and_", np.logical_and), ("logical_or_", np.logical_or),
    ("logical_xor_", np.logical_xor), ("atan2_", np.arctan2),
])
def test_inplace_binary_keeps_dtype(name, ref):
    x = tl.tensor(A)
    r = getattr(x, name)(tl.tensor(B))
    assert r is x and x.dtype == tl.float64
    np.testing.assert_allclose(np.asarray(x), ref(A, B).astype(np.float64))


def test_inplace_unary_and_scalar_forms():
    x = tl.tensor(A)
    x.logical_not_()
    np.testing.assert_array_equal(np.asarray(x), np.logical_not(A).astype(np.float64))
    x = tl.tensor(A)
    x.clamp_min_(0.5)
    np.testing.assert_array_equal(np.asarray(x), np.maximum(A, 0.5))
    x.clamp_max_(2.0)
    np.testing.assert_array_equal(np.asarray(x), np.minimum(np.maximum(A, 0.5), 2.0))
    x = tl.tensor(A)
    x.cumprod_(1)
    np.testing.assert_allclose(np.asarray(x), np.cumprod(A, 1))
    i = tl.tensor([1, 2, 3], dtype=tl.int32)
    i.bitwise_left_shift_(tl.tensor([1, 2, 3], dtype=tl.int32))
    np.testing.assert_array_equal(np.asarray(i), [2, 8, 24])
    i.bitwise_right_shift_(tl.tensor([1, 1, 1], dtype=tl.int32))
    np.testing.assert_array_equal(np.asarray(i), [1, 4, 12])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tl.tensor([1, 2], dtype=tl.int64).atan2_(tl.tensor([1.5, 2.0]))  # a Float result cannot be stored in Long
