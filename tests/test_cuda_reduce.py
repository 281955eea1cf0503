"""CUDA reductions and scans against the CPU kernels' results (needs a GPU;
skipped without one). The same ops, shapes, layouts, dtypes and edge cases
as the CPU simulation in test_cuda_reduce_host.py, now through the real
kernels and the dispatcher."""
import math

import numpy as np
import pytest

import torchlike

pytestmark = pytest.mark.skipif(not torchlike.cuda.is_available(), reason="needs a CUDA device")

SHAPES = [(), (1,), (7,), (3, 5), (64, 33), (2, 3, 4, 5), (1 << 20,), (3, 70000), (70000, 3), (0, 4), (4, 0)]
FLOAT_DTYPES = [torchlike.float32, torchlike.float64, torchlike.float16, torchlike.bfloat16]


def _tol(dtype):
    return {torchlike.float16: (2e-2, 2e-2), torchlike.bfloat16: (5e-2, 5e-2),
            torchlike.float32: (1e-4, 1e-4)}.get(dtype, (1e-10, 1e-10))


def _close(got, want, dtype=None):
    assert got.device.type == "cuda"
    got = got.cpu()
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    if want.dtype in (torchlike.float16, torchlike.bfloat16, torchlike.float32, torchlike.float64):
        rtol, atol = _tol(dtype or want.dtype)
        np.testing.assert_allclose(got.double().numpy(), want.double().numpy(), rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def _dim_sets(nd):
    yield None
    for d in range(nd):
        yield [d]
    if nd >= 2:
        yield [0, nd - 1]


def _inputs(shape, dtype):
    x = torchlike.randn(*shape) * 4 if shape else torchlike.randn(())
    x = x.to(dtype)
    yield x
    if len(shape) >= 2:
        yield x.transpose(0, -1).contiguous().transpose(0, -1)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [torchlike.int32, torchlike.bool])
@pytest.mark.parametrize("shape", SHAPES)
def test_sum_mean_prod(shape, dtype):
    for x in _inputs(shape, dtype):
        xc = x.cuda()
        for dims in _dim_sets(x.dim()):
            for keepdim in (False, True):
                if dims is None:
                    _close(xc.sum(), x.sum(), dtype)
                    _close(xc.sum(dtype=torchlike.float64), x.sum(dtype=torchlike.float64))
                else:
                    _close(xc.sum(dims, keepdim), x.sum(dims, keepdim), dtype)
                if dtype.is_floating_point:
                    if dims is None:
                        _close(xc.mean(), x.mean(), dtype)
                    else:
                        _close(xc.mean(dims, keepdim), x.mean(dims, keepdim), dtype)
        if x.numel() < 100:
            _close(xc.prod(), x.prod(), dtype)
            if x.dim():
                _close(xc.prod(0, True), x.prod(0, True), dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [torchlike.int64, torchlike.uint8])
@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
def test_max_min_argmax(shape, dtype):
    for x in _inputs(shape, dtype):
        if dtype.is_floating_point and x.numel() > 3:
            x = x.clone()
            x[tuple(min(2, n - 1) for n in x.shape)] = float("nan")
        x = x.round() if dtype.is_floating_point else x  # ties
        xc = x.cuda()
        _close(xc.max(), x.max())
        _close(xc.min(), x.min())
        _close(xc.argmax(), x.argmax())
        _close(xc.argmin(), x.argmin())
        for d in range(x.dim()):
            for keepdim in (False, True):
                v, i = xc.max(d, keepdim)
                cv, ci = x.max(d, keepdim)
                _close(v, cv)
                _close(i, ci)
                v, i = xc.min(d, keepdim)
                cv, ci = x.min(d, keepdim)
                _close(v, cv)
                _close(i, ci)
                _close(xc.argmax(d, keepdim), x.argmax(d, keepdim))
                _close(xc.amax(d, keepdim), x.amax(d, keepdim))
                _close(xc.amin([d], keepdim), x.amin([d], keepdim))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_var_std_norm(shape, dtype):
    for x in _inputs(shape, dtype):
        xc = x.cuda()
        for dims in _dim_sets(x.dim()):
            for correction in (0, 1, 2):
                _close(xc.var(dims, correction=correction), x.var(dims, correction=correction), dtype)
                _close(xc.std(dims, correction=correction, keepdim=True),
                       x.std(dims, correction=correction, keepdim=True), dtype)
            v, m = torchlike.var_mean(xc, dims)
            cv, cm = torchlike.var_mean(x, dims)
            _close(v, cv, dtype)
            _close(m, cm, dtype)
            for p in (2, 1, 0, 3.5):
                _close(xc.norm(p, dims), x.norm(p, dims), dtype)
            if x.numel():
                _close(xc.norm(math.inf, dims), x.norm(math.inf, dims), dtype)
                _close(torchlike.linalg.vector_norm(xc, -math.inf, dims), torchlike.linalg.vector_norm(x, -math.inf, dims),
                       dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [torchlike.int64])
@pytest.mark.parametrize("shape", SHAPES)
def test_logsumexp(shape, dtype):
    for x in _inputs(shape, dtype):
        xc = x.cuda()
        for dims in _dim_sets(x.dim()):
            dims = list(range(x.dim())) if dims is None else dims
            _close(xc.logsumexp(dims), x.logsumexp(dims), dtype)
            _close(xc.logsumexp(dims, keepdim=True), x.logsumexp(dims, keepdim=True), dtype)


@pytest.mark.parametrize("dtype", [torchlike.float32, torchlike.int64, torchlike.bool, torchlike.uint8])
@pytest.mark.parametrize("shape", SHAPES)
def test_any_all(shape, dtype):
    x = (torchlike.rand(*shape) < 0.95).to(dtype) if shape else torchlike.tensor(True).to(dtype)
    xc = x.cuda()
    _close(xc.any(), x.any())
    _close(xc.all(), x.all())
    for d in range(x.dim()):
        _close(xc.any(d, True), x.any(d, True))
        _close(xc.all(d), x.all(d))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [torchlike.int32, torchlike.bool])
@pytest.mark.parametrize("shape", [(5,), (3, 1000), (1000, 3), (2, 33, 4), (0, 3)])
def test_cumsum_cumprod(shape, dtype):
    x = torchlike.rand(*shape).add(0.5).to(dtype)
    xc = x.cuda()
    for d in range(x.dim()):
        _close(xc.cumsum(d), x.cumsum(d), dtype)
        if x.shape[d] <= 40:
            _close(xc.cumprod(d), x.cumprod(d), dtype)


def test_errors_match_the_cpu():
    z = torchlike.zeros(3, 0, device="cuda")
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        z.amax(1)
    with pytest.raises(IndexError):
        z.argmax()
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        torchlike.ones(3, dtype=torchlike.int64, device="cuda").mean()
    with pytest.raises(RuntimeError, match="does not support bool"):
        torchlike.ones(3, dtype=torchlike.bool, device="cuda").argmax()
