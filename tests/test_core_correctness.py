"""Regression tests for the core defects a fuzz against PyTorch found (issue 8):
memory overlap, half-precision Python numbers, checked conversions of Python
numbers, integer edges, nested-data parsing, copies out of meta and tensors of
many dims. Each expectation is exact math / NumPy; PyTorch parity is on top."""
import math

import numpy as np
import pytest

import torchlike as tl
from conftest import HAS_TORCH, requires_torch

PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory location"
INTERNAL = "more than one element of the written-to tensor refers to a single memory location"


# ---------------------------------------------------------------- memory overlap

def _shift_add_():
    a = tl.arange(10.0)
    a[1:].add_(a[:-1])


def _row_add_():
    a = tl.arange(6.0).reshape(2, 3)
    a.add_(a[0])


def _copy_transpose():
    x = tl.arange(9.0).reshape(3, 3)
    x.copy_(x.t())


def _out_transpose():
    a = tl.arange(9.0).reshape(3, 3)
    tl.add(a, a.t(), out=a)


def _lerp_shift_():
    a = tl.arange(10.0)
    a[1:].lerp_(a[:-1], 0.5)


def _setitem_shift():
    a = tl.arange(10.0)
    a[1:] = a[:-1]


def _strided_shift_():
    # neither operand is dense: decided exactly by listing elements
    x = tl.arange(12.0).reshape(3, 4)
    x[:, 1:].add_(x[:, :-1])


@pytest.mark.parametrize("fn", [_shift_add_, _row_add_, _copy_transpose, _out_transpose, _lerp_shift_,
                                _setitem_shift, _strided_shift_])
def test_partial_overlap_raises(fn):
    with pytest.raises(RuntimeError, match=PARTIAL):
        fn()


@requires_torch
@pytest.mark.parametrize("fn", [_shift_add_, _row_add_, _copy_transpose, _out_transpose, _lerp_shift_,
                                _setitem_shift])
def test_partial_overlap_raises_like_pytorch(fn):
    import torch
    src = fn.__code__
    g = dict(fn.__globals__, tl=torch)
    with pytest.raises(RuntimeError, match="single memory location"):
        eval(src, g)


def test_internal_overlap_raises():
    with pytest.raises(RuntimeError, match=INTERNAL):
        tl.zeros(3).expand(2, 3).add_(1)
    with pytest.raises(RuntimeError, match=INTERNAL):
        tl.add(tl.ones(4), 1, out=tl.zeros(1).expand(4))
    # as_strided windows that share elements
    with pytest.raises(RuntimeError, match=INTERNAL):
        tl.zeros(6).as_strided((3, 3), (1, 1)).mul_(2)
    # ... and ones that do not, though no dim steps past the others
    x = tl.zeros(12)
    v = x.as_strided((3, 2), (2, 3))  # elements 0 2 4 3 5 7
    v.add_(1)
    assert x.tolist() == [1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0]


def test_scalar_setitem_into_overlapping_view_raises():
    x = tl.zeros(1).expand(2)
    for index in (Ellipsis, (), slice(None)):
        with pytest.raises(RuntimeError, match=INTERNAL):
            x[index] = 1
    # fill_ itself may (every write stores the same value), as in PyTorch
    tl.zeros(1).expand(3).fill_(2.0)


def test_expand_new_dims_stride():
    assert tl.tensor(1.0).expand(1).stride() == (0,)
    assert tl.tensor(1.0).expand(1, 1).stride() == (0, 0)
    assert tl.ones(3).expand(1, 3).stride() == (3, 1)
    assert tl.ones(3).expand(2, 1, 3).stride() == (0, 3, 1)


def test_allowed_overlaps_compute_right():
    a = tl.arange(6.0).reshape(2, 3)
    a.add_(a)  # identical memory: fine
    assert a.tolist() == [[0, 2, 4], [6, 8, 10]]
    b = tl.arange(6.0)
    tl.mul(b, b, out=b)
    assert b.tolist() == [0, 1, 4, 9, 16, 25]
    # the same memory seen through an equivalent view is identical, not partial
    c = tl.arange(6.0)
    c.view(2, 3).add_(c.view(2, 3))
    assert c.tolist() == [0, 2, 4, 6, 8, 10]
    # columns of one matrix do not share elements (gcd test)
    x = np.arange(12.0).reshape(3, 4)
    t = tl.tensor(x)
    t[:, 0].sub_(t[:, 2])
    x[:, 0] -= x[:, 2]
    np.testing.assert_array_equal(t.numpy(), x)
    # even and odd elements interleave without meeting
    y = np.arange(10.0)
    u = tl.tensor(y)
    u[::2].mul_(u[1::2])
    y[::2] *= y[1::2]
    np.testing.assert_array_equal(u.numpy(), y)
    # disjoint halves
    z = tl.arange(10.0)
    z[:5].copy_(z[5:])
    assert z.tolist() == [5, 6, 7, 8, 9, 5, 6, 7, 8, 9]


def test_zero_element_tensors_overlap_nothing():
    tl.empty_strided((2, 0), (0, 1)).add_(1)
    a = tl.arange(4.0)
    a[2:2].add_(a[1:1])
    a[:0].copy_(a[4:])
    assert a.tolist() == [0, 1, 2, 3]


def test_large_strided_overlap_is_correct():
    # Past the listing bound the input is read from a copy: NumPy's answer.
    n = 1100
    x = np.arange(float(n * n)).reshape(n, n) % 7
    t = tl.tensor(x)
    try:
        t[:, 1:].add_(t[:, :-1])
    except RuntimeError as e:
        assert PARTIAL in str(e)
        return
    x[:, 1:] += x[:, :-1].copy()
    np.testing.assert_array_equal(t.numpy(), x)


# ---------------------------------------------------------------- half precision and Python numbers

@pytest.mark.parametrize("dtype,np_dtype", [(tl.float16, np.float16)])
def test_half_with_python_number_computes_in_float(dtype, np_dtype):
    a = tl.tensor([1e-3, 0.0], dtype=dtype) * 65536
    expect = (np.array([1e-3, 0.0], np_dtype).astype(np.float32) * np.float32(65536)).astype(np_dtype)
    np.testing.assert_array_equal(a.float().numpy(), expect.astype(np.float32))
    assert a.tolist()[0] == pytest.approx(65.5625)
    b = tl.tensor([1.0], dtype=dtype) / 1e5
    assert b.tolist()[0] == float(np.float16(np.float32(1.0) / np.float32(1e5)))
    assert b.tolist()[0] > 0
    # a 0-dim tensor operand is a scalar too
    c = tl.tensor([1e-3], dtype=dtype) * tl.tensor(65536.0)
    assert c.dtype == dtype and c.tolist()[0] == pytest.approx(65.5625)
    # in place and comparisons
    d = tl.tensor([1e-3], dtype=dtype)
    d.mul_(65536)
    assert d.tolist()[0] == pytest.approx(65.5625)
    assert (tl.tensor([60000.0], dtype=dtype) < 65536).tolist() == [True]


def test_half_add_rounds_once():
    got = (tl.tensor([1e-3, -3.0], dtype=tl.float16) + 3.9).tolist()
    want = (np.array([1e-3, -3.0], np.float16).astype(np.float32) + np.float32(3.9)).astype(np.float16)
    assert got == want.astype(np.float64).tolist()


def test_bfloat16_with_python_number_computes_in_float():
    # bf16(1.003) is 1.0, so rounding the number first would give 1000
    r = tl.tensor([1000.0], dtype=tl.bfloat16) * 1.003
    assert r.dtype == tl.bfloat16 and r.tolist() == [1004.0]
    r = tl.tensor([1000.0], dtype=tl.bfloat16) + 3.9
    assert r.tolist() == [1004.0]


@requires_torch
def test_half_scalars_match_pytorch():
    # mul and div only: PyTorch's CPU add/sub round the number to half first
    # (half(1e-3) + 3.9 gives 3.9023 there, 3.9004 here, which is float's answer
    # rounded once).
    import torch
    for dt, tdt in ((tl.float16, torch.float16), (tl.bfloat16, torch.bfloat16)):
        for op in ("mul", "div"):
            for s in (65536, 1e5, 1.003, 3.9, 1e-5):
                x = [1e-3, 0.5, 1000.0, -3.0]
                got = getattr(tl, op)(tl.tensor(x, dtype=dt), s).float().tolist()
                want = getattr(torch, op)(torch.tensor(x, dtype=tdt), s).float().tolist()
                np.testing.assert_array_equal(got, want, err_msg=f"{dt} {op} {s}")


# ---------------------------------------------------------------- checked conversion of Python numbers

OVERFLOW = "value cannot be converted to type {} without overflow"


@pytest.mark.parametrize("call,ctype", [
    (lambda: tl.tensor([300], dtype=tl.int8), "int8_t"),
    (lambda: tl.tensor([256], dtype=tl.uint8), "uint8_t"),
    (lambda: tl.tensor([-129], dtype=tl.int8), "int8_t"),
    (lambda: tl.tensor([127.5], dtype=tl.int8), "int8_t"),
    (lambda: tl.tensor([float("nan")], dtype=tl.int32), "int"),
    (lambda: tl.tensor([float("inf")], dtype=tl.int64), "int64_t"),
    (lambda: tl.tensor([1e19], dtype=tl.int64), "int64_t"),
    (lambda: tl.full((2,), 300, dtype=tl.int8), "int8_t"),
    (lambda: tl.full((2,), -256, dtype=tl.uint8), "uint8_t"),
    (lambda: tl.full((1,), float("nan"), dtype=tl.int8), "int8_t"),
    (lambda: tl.full((1,), 1e39, dtype=tl.float32), "float"),
    (lambda: tl.zeros(2, dtype=tl.int8).fill_(300), "int8_t"),
    (lambda: tl.zeros(1, dtype=tl.int64).fill_(1e19), "int64_t"),
    (lambda: tl.zeros(2, dtype=tl.int8).__setitem__(0, 300), "int8_t"),
    (lambda: tl.zeros(2, dtype=tl.int8).__setitem__(slice(None), 300), "int8_t"),
    (lambda: tl.zeros(2, dtype=tl.int8).__setitem__(0, float("nan")), "int8_t"),
    (lambda: tl.where(tl.tensor([True, False]), tl.zeros(2, dtype=tl.int8), 300), "int8_t"),
    (lambda: tl.where(tl.tensor([True, False]), 300, tl.zeros(2, dtype=tl.int8)), "int8_t"),
    (lambda: tl.zeros(2, dtype=tl.int8).clamp(max=300), "int8_t"),
    (lambda: tl.zeros(2, dtype=tl.int8).clamp(min=-200), "int8_t"),
    (lambda: tl.add(tl.zeros(2, dtype=tl.int8), tl.ones(2, dtype=tl.int8), alpha=300), "int8_t"),
    (lambda: tl.linspace(0, 300, 4, dtype=tl.uint8), "uint8_t"),
    # negative *floats* are no uint8 (only negative ints wrap)
    (lambda: tl.tensor([-1.0], dtype=tl.uint8), "uint8_t"),
    (lambda: tl.full((1,), -0.5, dtype=tl.uint8), "uint8_t"),
    (lambda: tl.zeros(1, dtype=tl.uint8).fill_(255.5), "uint8_t"),
])
def test_python_number_overflow_raises(call, ctype):
    with pytest.raises(RuntimeError, match=OVERFLOW.format(ctype)):
        call()


def test_python_numbers_in_range_store_exactly():
    assert tl.tensor([-128, 127], dtype=tl.int8).tolist() == [-128, 127]
    assert tl.tensor([2**63 - 1, -2**63]).tolist() == [2**63 - 1, -2**63]
    # unsigned types take negatives down to -max and wrap, as PyTorch does
    assert tl.tensor([-1], dtype=tl.uint8).tolist() == [255]
    assert tl.full((1,), -255, dtype=tl.uint8).tolist() == [1]
    assert tl.tensor([2.7], dtype=tl.int8).tolist() == [2]  # truncation toward zero
    assert tl.tensor([5, 0], dtype=tl.bool).tolist() == [True, False]
    assert tl.full((1,), 2.5, dtype=tl.bool).tolist() == [True]
    # floats round (to inf if need be) like a float computation
    assert tl.tensor([1e39], dtype=tl.float32).tolist() == [math.inf]
    assert tl.full((1,), 1e5, dtype=tl.float16).tolist() == [math.inf]
    assert tl.tensor([1e5], dtype=tl.float16).tolist() == [math.inf]
    # where with a float number promotes instead of converting
    w = tl.where(tl.tensor([True, False]), tl.zeros(2, dtype=tl.int8), 2.5)
    assert w.dtype == tl.float32 and w.tolist() == [0.0, 2.5]
    x = tl.zeros(3, dtype=tl.int8)
    x[0], x[1:] = 127, -128
    assert x.tolist() == [127, -128, -128]
    assert tl.tensor([100], dtype=tl.int8).clamp(max=120).tolist() == [100]
    # Arithmetic with an out-of-range number wraps, as in PyTorch (not a conversion of the number)
    assert (tl.zeros(2, dtype=tl.int8) + 300).tolist() == [44, 44]


def test_int_of_tensor_follows_python():
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        int(tl.tensor(float("nan")))
    with pytest.raises(OverflowError):
        int(tl.tensor(float("inf")))
    assert int(tl.tensor(1e30, dtype=tl.float64)) == int(1e30)
    assert int(tl.tensor(-2.7)) == -2
    assert int(tl.tensor(2**62)) == 2**62


# ---------------------------------------------------------------- integer powers, bool arithmetic

def test_integer_powers():
    with pytest.raises(RuntimeError, match=OVERFLOW.format("int")):
        tl.tensor([3, 5], dtype=tl.int32) ** 2**40
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        tl.tensor([3, 5], dtype=tl.int32) ** -1
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        tl.tensor([3]).pow_(-2)
    # int64 exponents that fit, and negative exponents as tensors, compute
    assert (tl.tensor([1, -1, 2]) ** 2**40).tolist() == [1, 1, 0]
    assert tl.pow(tl.tensor([3, 1, -1]), tl.tensor([-1, -2, -3])).tolist() == [0, 1, -1]
    assert (tl.tensor([3]) ** tl.tensor(-1)).tolist() == [0]
    assert (2 ** tl.tensor([3, 2], dtype=tl.int8)).tolist() == [8, 4]
    assert (tl.tensor([3]) ** -1.0).dtype == tl.float32


@pytest.mark.parametrize("call,match", [
    (lambda: 1 - tl.tensor([True]), "with a bool tensor is not supported"),
    (lambda: 2.5 - tl.tensor([True]), "with a bool tensor is not supported"),
    (lambda: tl.tensor([True]) - 1, "with a bool tensor is not supported"),
    (lambda: tl.tensor([True]) - tl.tensor([True]), "with two bool tensors is not supported"),
    (lambda: tl.tensor([True]).sub(True), "with two bool tensors is not supported"),
    (lambda: -tl.tensor([True]), "Negation, the `-` operator, on a bool tensor is not supported"),
])
def test_bool_subtraction_and_negation_raise(call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


@pytest.mark.parametrize("call,match", [
    (lambda: tl.hypot(tl.tensor([3]), tl.tensor([4])), "\"hypot\" not implemented for 'Long'"),
    (lambda: tl.lerp(tl.tensor([3]), tl.tensor([4]), 0.5), "\"lerp\" not implemented for 'Long'"),
    (lambda: tl.linspace(0, 1, 3, dtype=tl.bool), "not implemented for 'Bool'"),
])
def test_floating_only_ops_refuse_integers(call, match):
    with pytest.raises(NotImplementedError, match=match):
        call()


def test_hypot_does_not_overflow():
    assert tl.hypot(tl.tensor([3e38]), tl.tensor([1.0])).tolist()[0] == pytest.approx(3e38, rel=1e-6)
    r = tl.hypot(tl.tensor([1e300], dtype=tl.float64), tl.tensor([0.0], dtype=tl.float64))
    assert r.tolist() == [1e300]
    assert tl.hypot(tl.tensor([3.0]), tl.tensor([4.0])).tolist() == [5.0]
    # a Python float joins a float tensor
    assert tl.hypot(tl.tensor([3.0]), tl.tensor(4.0)).tolist() == [5.0]


def test_rounding_keeps_integers():
    v = [2**63 - 1, 2**53 + 1, -2**63]
    for name in ("floor", "ceil", "trunc", "round"):
        t = tl.tensor(v)
        assert getattr(tl, name)(t).tolist() == v, name
        assert getattr(t, name + "_")().tolist() == v, name
        assert getattr(tl, name)(t).dtype == tl.int64


def test_linspace_integer_endpoints_are_dtype_values():
    # -5 as uint8 is 251; the steps then run down to 5 (PyTorch's result)
    assert tl.linspace(-5, 5, 5, dtype=tl.uint8).tolist() == [251, 189, 128, 66, 5]
    assert tl.linspace(-5, 5, 5, dtype=tl.int8).tolist() == [-5, -2, 0, 2, 5]


# ---------------------------------------------------------------- copies out of meta

def test_copy_out_of_meta_raises():
    m = tl.ones(3, device="meta")
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        tl.zeros(3).copy_(m)
    y = tl.zeros(3)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        y[:] = m
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        m.to("cpu")
    assert y.tolist() == [0, 0, 0]
    # into meta is a shape check only
    assert tl.empty(3, device="meta").copy_(tl.ones(3)).device.type == "meta"


# ---------------------------------------------------------------- nested data

def test_self_referential_lists_raise():
    a = [1]
    a.append(a)
    with pytest.raises(TypeError, match="self-referential lists are incompatible"):
        tl.tensor(a)
    b = [[1]]
    b[0].append(b)
    with pytest.raises(TypeError, match="self-referential lists are incompatible"):
        tl.tensor(b)
    c = []
    c.append(c)
    with pytest.raises(ValueError, match="too many dimensions 'list'"):
        tl.tensor(c)
    with pytest.raises(ValueError, match="too many dimensions"):
        tl.tensor(c, dtype=tl.float32)


def test_nesting_depth_limit():
    d = [1.0]
    for _ in range(63):
        d = [d]
    t = tl.tensor(d)
    assert t.dim() == 64 and t.numel() == 1 and t.sum().item() == 1.0
    with pytest.raises(ValueError, match="too many dimensions"):
        tl.tensor([d])
    # deep nesting outside the first-element chain is bounded too (no stack overflow)
    deep = 1
    for _ in range(100000):
        deep = [deep]
    with pytest.raises((ValueError, TypeError)):
        tl.tensor([1, deep])


def test_tensors_in_lists_are_elements():
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        tl.tensor([tl.ones(2), tl.ones(2)])
    assert tl.tensor([tl.tensor(1.0), tl.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert tl.tensor([tl.ones(1), tl.ones(1, 1)]).shape == (2,)


# ---------------------------------------------------------------- many dims

def test_tensors_of_many_dims():
    x = tl.ones(2)
    assert x[(None,) * 60].shape == (1,) * 60 + (2,)
    assert tl.tensor(1.0)[(None,) * 64].dim() == 64
    y = x
    for i in range(10):
        y = y.unsqueeze(0)
        assert y.shape == (1,) * (i + 1) + (2,)
    z = tl.arange(2.0 ** 8).view([2] * 8)
    assert z.dim() == 8 and z.shape == (2,) * 8
    assert z.permute(*reversed(range(8))).contiguous().view(-1).tolist() == \
        np.arange(256.0).reshape([2] * 8).transpose().reshape(-1).tolist()
    assert z.sum(dim=(0, 7)).shape == (2,) * 6


# ---------------------------------------------------------------- errors belong to their call

def test_zero_division_is_reported_to_its_own_call():
    # Each kernel call has its own division-by-zero flag: a thread dividing by
    # zero never makes another thread's valid division raise.
    import threading
    errors, wrong = [], []
    a = tl.arange(1, 100001)
    z = tl.zeros(100000, dtype=tl.int64)

    def bad():
        for _ in range(200):
            try:
                a // z
                wrong.append("no error")
            except RuntimeError as e:
                if "ZeroDivisionError" not in str(e):
                    wrong.append(str(e))

    def good():
        for _ in range(200):
            try:
                a // a
            except RuntimeError as e:
                errors.append(str(e))

    ts = [threading.Thread(target=bad), threading.Thread(target=good)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and not wrong


# A Python number where the schema says Tensor: accepted only where PyTorch has a
# Scalar overload or its own number list (csrc/python/NumberArgs.h), a TypeError elsewhere.
NUMBER_FOR_TENSOR = [
    ("equal", False), ("maximum", False), ("minimum", False), ("atan2", False), ("dot", False), ("hypot", False),
    ("add", True), ("sub", True), ("mul", True), ("div", True), ("pow", True), ("eq", True), ("lt", True),
    ("fmod", True), ("remainder", True), ("xlogy", True), ("bitwise_and", True), ("copysign", True),
]


@pytest.mark.parametrize("name,accepted", NUMBER_FOR_TENSOR)
def test_python_number_for_tensor_argument(name, accepted):
    x = tl.tensor([1, 2, 3]) if name == "bitwise_and" else tl.tensor([1.0, 2.0, 3.0])
    fn = getattr(tl, name)
    if accepted:
        assert isinstance(fn(x, 2), tl.Tensor)
    else:
        with pytest.raises(TypeError, match="must be Tensor"):
            fn(x, 2)


@pytest.mark.parametrize("name,accepted", NUMBER_FOR_TENSOR)
def test_python_number_for_tensor_argument_matches_pytorch(name, accepted):
    torch = pytest.importorskip("torch")
    x = torch.tensor([1, 2, 3]) if name == "bitwise_and" else torch.tensor([1.0, 2.0, 3.0])
    try:
        getattr(torch, name)(x, 2)
        ok = True
    except TypeError:
        ok = False
    assert ok == accepted
