"""torch-namespace facts and settings, deprecated forms and the small Tensor methods of
torchlike/_legacy_api.py: values against exact math and NumPy, errors as PyTorch's."""
import warnings

import numpy as np
import pytest

import torchlike as tl

try:
    import torch
except ImportError:
    torch = None


def test_build_facts():
    assert tl.has_lapack is True and tl.has_openmp is True and tl.has_mkl is False
    tl.init_num_threads()
    assert tl.get_num_threads() >= 1


def test_flush_denormal_flushes_on_every_thread():
    tiny = np.float32(1e-39)  # a float32 denormal
    x = tl.full((1 << 17,), float(tiny))  # large enough to be split across the intra-op threads
    try:
        assert tl.set_flush_denormal(True) is True
        y = x * 1.0
        assert (y.numpy() == 0).all()
    finally:
        assert tl.set_flush_denormal(False) is True
    y = x * 1.0
    assert (y.numpy() == tiny).all()


def test_is_distributed():
    assert tl.is_distributed(tl.ones(2)) is False and tl.ones(2).is_distributed() is False
    with pytest.raises(TypeError):
        tl.is_distributed([1.0])


def test_out_of_memory_error_is_runtime_error():
    assert issubclass(tl.OutOfMemoryError, RuntimeError)
    assert tl.cuda.OutOfMemoryError is tl.OutOfMemoryError


def test_anomaly_switches_and_check_nan():
    assert tl.is_anomaly_enabled() is False and tl.is_anomaly_check_nan_enabled() is True
    x = tl.tensor([0.0], requires_grad=True)
    try:
        tl.set_anomaly_enabled(True)
        assert tl.is_anomaly_enabled() and tl.autograd.is_anomaly_enabled()
        with pytest.raises(RuntimeError, match="returned nan values"):
            (x / x).sum().backward()
        # check_nan=False keeps anomaly mode but skips the NaN scan: backward completes.
        tl.set_anomaly_enabled(True, check_nan=False)
        assert tl.is_anomaly_check_nan_enabled() is False
        x.grad = None
        (x / x).sum().backward()
        assert np.isnan(x.grad.numpy()).all()
    finally:
        tl.set_anomaly_enabled(False)
    assert tl.is_anomaly_enabled() is False and tl.is_anomaly_check_nan_enabled() is True


@pytest.mark.parametrize("args,kw,expect", [
    ((0, 5), {}, np.arange(6.0)),
    ((4,), {}, np.arange(5.0)),
    ((1, 2, 0.3), {}, 1 + 0.3 * np.arange(4)),
    ((5, 1, -1), {}, np.arange(5.0, 0.0, -1)),
    ((0, 3), {"dtype": tl.int64}, np.arange(4)),
    ((-1.5, 1.5, 0.5), {"dtype": tl.float64}, np.arange(-1.5, 1.6, 0.5)),
])
def test_range_values(args, kw, expect):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = tl.range(*args, **kw)
    assert r.dtype == kw.get("dtype", tl.float32)
    np.testing.assert_allclose(r.numpy(), expect, rtol=1e-6)


def test_range_errors_and_out():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="step must be nonzero"):
            tl.range(0, 1, 0)
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            tl.range(1, 2, -1)
        out = tl.empty(3)
        assert tl.range(0, 2, out=out) is out
        np.testing.assert_array_equal(out.numpy(), [0, 1, 2])
        r = tl.range(0, 1, 0.5, requires_grad=True)
        assert r.requires_grad and r.is_leaf


def test_set_default_tensor_type():
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            tl.set_default_tensor_type("torch.DoubleTensor")
        assert tl.get_default_dtype() == tl.float64 and tl.zeros(1).dtype == tl.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError, match="only floating-point"):
                tl.set_default_tensor_type("torch.LongTensor")
            with pytest.raises(TypeError, match="invalid type"):
                tl.set_default_tensor_type("torch.Nope")
            with pytest.raises(TypeError, match="CUDA"):
                tl.set_default_tensor_type("torch.cuda.FloatTensor")
    finally:
        tl.set_default_dtype(tl.float32)


def test_asarray_shares_and_copies():
    a = np.arange(3.0)
    t = tl.asarray(a)
    t[0] = 7.0
    assert a[0] == 7.0 and t.dtype == tl.float64
    c = tl.asarray(a, copy=True)
    c[1] = -1.0
    assert a[1] == 1.0
    f = tl.asarray(a, dtype=tl.float32)
    assert f.dtype == tl.float32 and np.allclose(f.numpy(), a)
    with pytest.raises(ValueError, match="can't alias"):
        tl.asarray(a, copy=False, dtype=tl.float32)
    x = tl.ones(2)
    assert tl.asarray(x) is x and tl.asarray(x, copy=True) is not x
    assert tl.asarray([1, 2.5]).dtype == tl.float32 and tl.asarray(3).shape == ()
    assert tl.asarray([[1, 2]], dtype=tl.int32).dtype == tl.int32
    with pytest.raises(ValueError):
        tl.asarray([1, 2], copy=False)
    g = tl.asarray(a, requires_grad=True)
    assert g.requires_grad and g.is_leaf


def test_get_device_module():
    assert tl.get_device_module() is tl.cpu and tl.get_device_module("cpu") is tl.cpu
    assert tl.get_device_module(tl.device("cpu")) is tl.cpu
    with pytest.raises(RuntimeError):
        tl.get_device_module(3)


def test_tensor_new_forms():
    x = tl.ones(2, dtype=tl.float64)
    assert x.new().shape == (0,) and x.new().dtype == tl.float64
    assert x.new(2, 3).shape == (2, 3) and x.new(tl.Size([4])).shape == (4,)
    d = x.new([1, 2])
    assert d.dtype == tl.float64 and d.tolist() == [1.0, 2.0]
    assert x.new((2, 3)).tolist() == [2.0, 3.0]
    y = tl.zeros(2, dtype=tl.float64)
    alias = x.new(y)
    alias[0] = 5.0
    assert y[0].item() == 5.0
    with pytest.raises(TypeError):
        x.new(tl.zeros(2, dtype=tl.int64))


def test_pinned_cuda_and_flags():
    x = tl.ones(2)
    assert x.is_pinned() is False and x.is_shared() is False
    if not tl.accelerator.is_available():
        with pytest.raises(RuntimeError, match="accelerator"):
            x.pin_memory()
    if not tl.cuda.is_available():
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            x.cuda()
    assert x.to_dense() is x and x.to_dense(tl.float64).dtype == tl.float64
    assert x.const_data_ptr() == x.data_ptr()


def test_dim_order():
    x = tl.empty(2, 3, 4)
    assert x.dim_order() == (0, 1, 2)
    assert x.permute(2, 0, 1).dim_order() == (1, 2, 0)
    assert x.transpose(0, 2).dim_order() == (2, 1, 0)
    assert tl.empty(2, 1, 3).dim_order() == (0, 1, 2)
    with pytest.raises(RuntimeError):
        tl.empty(2, 1, 3).dim_order(ambiguity_check=True)
    with pytest.raises(TypeError):
        x.dim_order(ambiguity_check=3)


def test_volatile_and_removed_methods():
    x = tl.ones(2)
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False
    with pytest.warns(UserWarning):
        x.volatile = True
    with pytest.raises(RuntimeError, match="reinforce\\(\\) was removed"):
        x.reinforce(x)
    for name, repl in (("eig", "linalg.eig"), ("lstsq", "linalg.lstsq"), ("solve", "linalg.solve"),
                       ("symeig", "linalg.eigh")):
        with pytest.raises(RuntimeError, match=repl):
            getattr(x, name)(x)


def test_apply_map_map2():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.apply_(lambda v: v * v + 1) is x
    np.testing.assert_array_equal(x.numpy(), [[2, 5], [10, 17]])
    xt = x.t()  # non-contiguous: written through the view
    xt.apply_(lambda v: -v)
    np.testing.assert_array_equal(x.numpy(), [[-2, -5], [-10, -17]])
    i = tl.tensor([1, 2, 3])
    i.map_(tl.tensor([10, 20, 30]), lambda a, b: a * b)
    assert i.tolist() == [10, 40, 90]
    i.map2_(tl.tensor([1]), tl.tensor([2, 2, 2]), lambda a, b, c: a - b - c)  # broadcasts
    assert i.tolist() == [7, 37, 87]
    with pytest.raises(TypeError):
        i.map_(tl.tensor([1.0, 2.0, 3.0]), lambda a, b: a)
    leaf = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        leaf.apply_(lambda v: v)


@pytest.mark.skipif(torch is None, reason="PyTorch parity")
def test_parity_with_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in ((0, 5), (1, 2, 0.3), (5, 1, -1), (0.5, 3.25, 0.25)):
            np.testing.assert_allclose(tl.range(*args).numpy(), torch.range(*args).numpy())
    for shape, perm in (((2, 3, 4), (2, 0, 1)), ((5, 6), (1, 0)), ((2, 3, 4, 5), (0, 2, 3, 1))):
        assert tl.empty(*shape).permute(*perm).dim_order() == torch.empty(*shape).permute(*perm).dim_order()
    assert (tl.has_lapack, tl.has_openmp) == (torch.has_lapack, torch.has_openmp)

