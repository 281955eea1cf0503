"""Every operator of the op-sample registry on an accelerator, against the
CPU result of the same call: values and dtypes forward, and gradients for
differentiable ops in float32/float64.

The device is CUDA (skipped without a GPU); TORCHLIKE_TEST_DEVICE names
another one (an out-of-tree backend; "cpu" runs the harness against itself).
An op without a kernel for the device is skipped with the dispatcher's
message, so a GPU run lists exactly which ops still lack a CUDA kernel."""
import os

import numpy as np
import pytest

import torchlike as tl
from opinfo import OPS
from opinfo.core import resolve

DEVICE = os.environ.get("TORCHLIKE_TEST_DEVICE", "cuda")


def _device_available():
    if DEVICE == "cpu":
        return True
    mod = getattr(tl, tl.device(DEVICE).type, None)
    return bool(mod is not None and hasattr(mod, "is_available") and mod.is_available())


AVAILABLE = _device_available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=f"no {DEVICE} device")

# Without the device, no cases: one skip per test rather than thousands.
_OPS = OPS if AVAILABLE else []
CASES = [(op, dt) for op in _OPS for dt in op.dtypes if not op.factory]
GRAD_CASES = [(op, dt) for op in _OPS if op.grad and not op.factory for dt in ("float32", "float64")
              if dt in op.dtypes]
FACTORY_CASES = [(op, dt) for op in _OPS if op.factory for dt in op.dtypes]


def to_tl(x, dtype):
    if isinstance(x, np.ndarray):
        d = tl.bfloat16 if dtype == "bfloat16" and x.dtype == np.float32 else None
        return tl.tensor(x, dtype=d)
    if isinstance(x, (list, tuple)) and x and all(isinstance(e, np.ndarray) for e in x):
        return type(x)(to_tl(e, dtype) for e in x)
    return x


def move(x, device):
    if isinstance(x, tl.Tensor):
        return x.detach().to(device)
    if isinstance(x, (list, tuple)) and x and all(isinstance(e, tl.Tensor) for e in x):
        return type(x)(move(e, device) for e in x)
    return x


def flat(r):
    return [t for e in r for t in flat(e)] if isinstance(r, (tuple, list)) else [r]


def call_on_device(fn):
    """fn() on the device; a missing kernel skips with the dispatcher's message."""
    try:
        return fn()
    except NotImplementedError as e:
        if f"'{tl.device(DEVICE).type.upper()}' backend" in str(e) or "CUDA" in str(e):
            pytest.skip(f"no {DEVICE} kernel: {str(e).splitlines()[0]}")
        raise


def tolerance(op, dtype):
    rtol, atol = op.tolerance(dtype)
    if dtype in ("float16", "bfloat16", "float32"):
        # Another device reduces in another order (tree reductions, fused multiply-add).
        return max(rtol, 1e-5) * 10, max(atol, 1e-6) * 10
    return rtol, atol


def assert_same(op, dtype, got, want, desc):
    for g, w in zip(flat(got), flat(want)):
        if not isinstance(w, tl.Tensor):
            assert g == w, desc
            continue
        assert isinstance(g, tl.Tensor), desc
        assert g.device.type == tl.device(DEVICE).type, f"{desc}: result on {g.device}"
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape), f"{desc}: {g.dtype}{tuple(g.shape)}"
        gn = g.detach().cpu()
        gn, wn = (gn.float() if gn.dtype == tl.bfloat16 else gn).numpy(), \
            (w.detach().float() if w.dtype == tl.bfloat16 else w.detach()).numpy()
        if gn.dtype.kind in "biu" or gn.dtype == np.bool_:
            np.testing.assert_array_equal(gn, wn, err_msg=desc)
        else:
            rtol, atol = tolerance(op, dtype)
            np.testing.assert_allclose(gn.astype(np.float64), wn.astype(np.float64), rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=desc)


@pytest.mark.parametrize("op,dtype", CASES, ids=[f"{op.name}-{dt}" for op, dt in CASES])
def test_forward_matches_cpu(op, dtype):
    if dtype in op.skip:
        pytest.skip(op.skip[dtype])
    fn = resolve(op.name)
    for s in op.samples(dtype):
        desc = f"{op.name}({s.desc or ''}) dtype={dtype} on {DEVICE}"
        args = tuple(to_tl(a, dtype) for a in s.args)
        dargs = tuple(move(a, DEVICE) for a in args)  # before the CPU call: in-place ops change their input
        want = fn(*args, **s.kwargs)
        got = call_on_device(lambda: fn(*dargs, **s.kwargs))
        assert_same(op, dtype, got, want, desc)


@pytest.mark.parametrize("op,dtype", GRAD_CASES, ids=[f"{op.name}-{dt}" for op, dt in GRAD_CASES])
def test_backward_matches_cpu(op, dtype):
    if dtype in op.skip:
        pytest.skip(op.skip[dtype])
    fn = resolve(op.name)
    for s in op.samples(dtype):
        args = tuple(to_tl(a, dtype) for a in s.args)
        leaves = [a for a in args if isinstance(a, tl.Tensor) and a.is_floating_point()]
        if not leaves:
            continue
        dargs = tuple(move(a, DEVICE) for a in args)
        dleaves = [a for a in dargs if isinstance(a, tl.Tensor) and a.is_floating_point()]
        for a in leaves + dleaves:
            a.requires_grad_(True)
        try:
            out = [t for t in flat(fn(*args, **s.kwargs)) if isinstance(t, tl.Tensor) and t.requires_grad]
        except RuntimeError:
            continue  # samples the op refuses to differentiate (test_gradcheck covers them)
        if not out:
            continue
        dout = [t for t in flat(call_on_device(lambda: fn(*dargs, **s.kwargs)))
                if isinstance(t, tl.Tensor) and t.requires_grad]
        # A fixed, non-uniform weighting of every output element.
        weights = [tl.linspace(-1.0, 1.0, t.numel(), dtype=t.dtype).reshape(t.shape) for t in out]
        loss = sum((t * w).sum() for t, w in zip(out, weights))
        dloss = sum((t * w.to(DEVICE)).sum() for t, w in zip(dout, weights))
        try:
            grads = tl.autograd.grad(loss, leaves, allow_unused=True)
        except RuntimeError:
            continue  # not differentiable at this sample (linalg.qr complete, ...): the CPU says so too
        dgrads = call_on_device(lambda: tl.autograd.grad(dloss, dleaves, allow_unused=True))
        for g, dg in zip(grads, dgrads):
            if g is None:
                assert dg is None
                continue
            assert_same(op, dtype, dg, g, f"{op.name}({s.desc or ''}) grad dtype={dtype} on {DEVICE}")


@pytest.mark.parametrize("op,dtype", FACTORY_CASES, ids=[f"{op.name}-{dt}" for op, dt in FACTORY_CASES])
def test_factory_on_device(op, dtype):
    fn = resolve(op.name)
    for s in op.samples(dtype):
        want = fn(*s.args, **s.kwargs)
        got = call_on_device(lambda: fn(*s.args, **{**s.kwargs, "device": DEVICE}))
        assert_same(op, dtype, got, want, f"{op.name}({s.desc or ''}) on {DEVICE}")
