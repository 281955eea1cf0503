"""A table of bad calls across every area: each must raise the exception
PyTorch raises, with a message naming the problem, and never crash the
interpreter (the table runs in this process: a crash fails the whole run).
Per-op error cases also live in tests/opinfo; this table covers calls that
span areas (Python protocol, indexing, views, devices, dtypes, sizes)."""
import re

import numpy as np
import pytest

import torchlike as tl

x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
i = tl.tensor([1, 2, 3])
m = tl.empty(2, 3, device="meta")


def exactly(msg):
    """A `match` pattern for exactly this message."""
    return "^" + re.escape(msg) + "$"


def inference_tensor():
    with tl.inference_mode():
        return tl.ones(2)


NUMPY_RG = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."

CASES = [
    # shapes
    ("broadcast mismatch", lambda: x + tl.ones(4), RuntimeError, r"size of tensor a \(3\) must match"),
    ("in-place cannot grow", lambda: tl.ones(3).add_(tl.ones(2, 3)), RuntimeError, "doesn't match the broadcast shape"),
    ("copy_ incompatible", lambda: tl.zeros(4).copy_(tl.ones(2)), RuntimeError, "must match the size"),
    ("view incompatible", lambda: x.t().view(6), RuntimeError, "view size is not compatible"),
    ("view wrong numel", lambda: x.view(4), RuntimeError, "invalid for input of size 6"),
    ("matmul shapes", lambda: tl.matmul(x, x), RuntimeError, r"cannot be multiplied \(2x3 and 2x3\)"),
    ("matmul 0-d", lambda: tl.matmul(tl.tensor(1.0), x), RuntimeError, "at least 1D"),
    ("negative size", lambda: tl.empty(-1), RuntimeError, "negative dimension"),
    # sizes whose element or byte count overflows int64 must raise, never allocate a wrapped size
    ("numel overflow", lambda: tl.empty(2**40, 2**40), RuntimeError, "overflows int64"),
    ("bytes overflow", lambda: tl.zeros(2**62), RuntimeError, "needs more than 2\\^63 bytes"),
    ("fill of overflowing size", lambda: tl.full((2**31, 2**31), 1.0), RuntimeError, "2\\^63 bytes"),
    ("random of overflowing size", lambda: tl.randn(2**33, 2**33), RuntimeError, "overflows int64"),
    ("expand to overflowing size", lambda: tl.ones(4).expand(2**40, 2**40, 4), RuntimeError, "overflows int64"),
    ("as_strided span overflow", lambda: tl.ones(3).as_strided((2**62,), (2**62,)), RuntimeError, "2\\^63 bytes"),
    ("empty_strided overflow", lambda: tl.empty_strided((2**62, 2), (2**62, 1)), RuntimeError, "overflows int64"),
    ("unallocatable size", lambda: tl.empty(2**42), RuntimeError, "out of memory"),
    ("cat of nothing", lambda: tl.tensor([[1, 2], [3]]), ValueError, "expected sequence of length 2"),
    # dims and indices
    ("dim out of range", lambda: x.sum(dim=2), IndexError, "Dimension out of range"),
    ("negative dim out of range", lambda: x.transpose(0, -3), IndexError, "Dimension out of range"),
    ("index out of bounds", lambda: x[2], IndexError, "index 2 is out of bounds for dimension 0 with size 2"),
    ("negative index out of bounds", lambda: x[:, -4], IndexError, "out of bounds"),
    ("too many indices", lambda: x[0, 0, 0], IndexError, "too many indices"),
    ("index a 0-d tensor", lambda: tl.tensor(1.0)[0], IndexError, "invalid index of a 0-dim tensor"),
    ("huge index", lambda: x[2**70], IndexError, "."),
    ("zero step", lambda: x[::0], ValueError, "step"),
    ("negative step", lambda: x[::-1], ValueError, "step must be greater than zero"),
    ("float index", lambda: x[1.5], IndexError, "."),
    ("select on 0-d", lambda: tl.tensor(1.0).select(0, 0), IndexError, "0-dim"),
    ("size(0) of 0-d", lambda: tl.tensor(1.0).size(0), IndexError,
     exactly("Dimension specified as 0 but tensor has no dimensions")),
    ("size(-1) of 0-d", lambda: tl.tensor(1.0).size(-1), IndexError,
     exactly("Dimension specified as -1 but tensor has no dimensions")),
    ("stride(0) of 0-d", lambda: tl.tensor(1.0).stride(0), IndexError,
     exactly("Dimension specified as 0 but tensor has no dimensions")),
    ("size(dim=) of 0-d", lambda: tl.tensor(1.0).size(dim=0), IndexError,
     exactly("Dimension specified as 0 but tensor has no dimensions")),
    ("size dim out of range", lambda: x.size(2), IndexError,
     exactly("Dimension out of range (expected to be in range of [-2, 1], but got 2)")),
    ("stride dim out of range", lambda: x.stride(-3), IndexError,
     exactly("Dimension out of range (expected to be in range of [-2, 1], but got -3)")),
    ("size of a float dim", lambda: x.size(1.5), TypeError,
     exactly("size(): argument 'dim' (position 1) must be int, not float")),
    ("stride of a bool dim", lambda: x.stride(True), TypeError,
     exactly("stride(): argument 'dim' (position 1) must be int, not bool")),
    ("size of a huge dim", lambda: x.size(2**70), ValueError, exactly("Overflow when unpacking long long")),
    ("as_strided out of storage", lambda: x.as_strided((10,), (1,)), RuntimeError, "out of bounds for storage"),
    ("narrow out of range", lambda: x.narrow(1, 2, 5), RuntimeError, "."),
    # dtypes
    ("int tensor += float", lambda: i.add_(1.5), RuntimeError, "can't be cast to the desired output type Long"),
    ("bitwise on float", lambda: x & x, RuntimeError, "not implemented for 'Float'"),
    ("int alpha float", lambda: tl.add(i, i, alpha=0.5), RuntimeError, "alpha must not be a floating point"),
    ("integer division by zero", lambda: i // 0, RuntimeError, "ZeroDivisionError"),
    ("integer remainder by zero", lambda: i % tl.zeros(3, dtype=tl.int64), RuntimeError, "ZeroDivisionError"),
    ("mean of ints", lambda: i.mean(), RuntimeError, "mean\\(\\): could not infer output dtype"),
    ("where needs bool", lambda: tl.where(x, x, x), RuntimeError, "boolean"),
    ("matmul dtype mismatch", lambda: tl.mm(x, tl.ones(3, 2, dtype=tl.float64)), RuntimeError, "same dtype"),
    ("bfloat16 to numpy", lambda: x.bfloat16().numpy(), TypeError, "BFloat16"),
    # Python conversions
    ("bool of many", lambda: bool(x), RuntimeError, "ambiguous"),
    ("float of many", lambda: float(x), RuntimeError, "only one element tensors"),
    ("index of float", lambda: [1, 2][tl.tensor(1.0)], TypeError, "only integer tensors"),
    ("len of 0-d", lambda: len(tl.tensor(1.0)), TypeError, "len\\(\\) of a 0-d tensor"),
    ("iterate 0-d", lambda: iter(tl.tensor(1.0)), TypeError, "iteration over a 0-d tensor"),
    ("item of many", lambda: x.item(), RuntimeError, "cannot be converted to Scalar"),
    # argument parsing
    ("unknown kwarg", lambda: tl.add(x, x, bogus=1), TypeError, "unexpected keyword argument 'bogus'"),
    ("wrong type", lambda: tl.exp("x"), TypeError, "must be Tensor, not str"),
    ("missing argument", lambda: tl.add(x), TypeError, "missing required argument 'other'"),
    ("too many positional", lambda: tl.exp(x, x), TypeError, "positional argument"),
    ("string data", lambda: tl.tensor("abc"), TypeError, "."),
    ("bad dtype kwarg", lambda: tl.zeros(2, dtype="float"), TypeError, "dtype"),
    ("bad rounding mode", lambda: tl.div(x, x, rounding_mode="up"), ValueError, "rounding_mode"),
    ("bad device string", lambda: tl.zeros(2, device="tpu"), RuntimeError, "device"),
    # devices
    ("meta item", lambda: m.sum().item(), RuntimeError, "meta"),
    ("meta with cpu", lambda: m + x, RuntimeError, "Expected all tensors to be on the same device"),
    ("meta to numpy", lambda: np.asarray(m), TypeError, "meta"),
    ("cuda without backend", lambda: tl.zeros(2, device="cuda"), (RuntimeError, NotImplementedError), "."),
    # numpy interop
    ("negative strides", lambda: tl.from_numpy(np.arange(4.0)[::-1]), ValueError, "negative"),
    ("from_numpy of list", lambda: tl.from_numpy([1, 2]), TypeError, "expected np.ndarray"),
    ("numpy() of a tensor requiring grad", lambda: tl.ones(2, requires_grad=True).numpy(), RuntimeError,
     exactly(NUMPY_RG)),
    ("numpy() of a non-leaf", lambda: (tl.ones(2, requires_grad=True) * 2).numpy(), RuntimeError, exactly(NUMPY_RG)),
    ("np.asarray of a tensor requiring grad", lambda: np.asarray(tl.ones(2, requires_grad=True)), RuntimeError,
     exactly(NUMPY_RG)),
    ("np.array of a tensor requiring grad", lambda: np.array(tl.ones(2, requires_grad=True), dtype=np.float64),
     RuntimeError, exactly(NUMPY_RG)),
    # autograd
    ("out= requiring grad", lambda: tl.add(tl.ones(2), 1, out=tl.zeros(2, requires_grad=True)), RuntimeError,
     exactly("add(): functions with out=... arguments don't support automatic differentiation, but one of the "
             "arguments requires grad.")),
    ("out= with an input requiring grad", lambda: tl.mul(tl.ones(2, requires_grad=True), 2, out=tl.zeros(2)),
     RuntimeError, exactly("mul(): functions with out=... arguments don't support automatic differentiation, but one "
                           "of the arguments requires grad.")),
    ("in-place on an inference tensor", lambda: inference_tensor().add_(1), RuntimeError,
     exactly("Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
             "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
             "details.")),
    ("version of an inference tensor", lambda: inference_tensor()._version, RuntimeError,
     exactly("Inference tensors do not track version counter.")),
    ("hook changing a gradient's size", lambda: (lambda t: (t.register_hook(lambda g: tl.ones(5)),
                                                            (t * 2).sum().backward()))(tl.ones(3, requires_grad=True)),
     RuntimeError, exactly("hook '<lambda>' has changed the size of value")),
    # random
    ("randint empty range", lambda: tl.randint(5, 5, (3,)), RuntimeError, "."),
    ("bernoulli bad p", lambda: tl.bernoulli(tl.full((3,), 2.0)), RuntimeError, "."),
    ("generator bad state", lambda: tl.Generator().set_state(tl.zeros(3)), RuntimeError, "."),
    ("seed of 2**64", lambda: tl.manual_seed(2**64), ValueError, exactly("Overflow when unpacking long long")),
    ("seed below -2**63", lambda: tl.manual_seed(-2**63 - 1), ValueError, exactly("Overflow when unpacking long long")),
    ("Generator seed of 2**64", lambda: tl.Generator().manual_seed(2**64), ValueError,
     exactly("Overflow when unpacking long long")),
    ("Generator seed of a float", lambda: tl.Generator().manual_seed(1.5), RuntimeError,
     exactly("manual_seed expected a long, but got float")),
    ("Generator seed of a bool", lambda: tl.Generator().manual_seed(True), RuntimeError,
     exactly("manual_seed expected a long, but got bool")),
    ("seed of None", lambda: tl.manual_seed(None), TypeError, "int\\(\\) argument must be"),
]


@pytest.mark.parametrize("name,fn,exc,match", CASES, ids=[c[0] for c in CASES])
def test_bad_call_raises(name, fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()


def test_failed_ops_leave_inputs_unchanged():
    a = tl.tensor([1, 2, 3])
    before = a.tolist()
    v = a._version
    with pytest.raises(RuntimeError):
        a.add_(0.5)
    with pytest.raises(RuntimeError):
        a.add_(tl.ones(2, 3, dtype=tl.int64))
    assert a.tolist() == before and a._version == v
