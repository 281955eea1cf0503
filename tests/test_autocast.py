"""torchlike.autocast and torchlike.amp: regions, nesting, the decorator form,
the cast cache, backward and checkpoint under autocast, custom_fwd/custom_bwd,
the torch-namespace controls and their warnings and errors. Per-op output
dtypes are in test_autocast_policy.py."""
import threading
import warnings

import pytest

import torchlike as tl
from tests.conftest import requires_torch

_state = tl._C._VariableFunctions
F32, F64, BF16, F16 = tl.float32, tl.float64, tl.bfloat16, tl.float16


@pytest.fixture(autouse=True)
def _no_leftover_state():
    yield
    assert not tl.is_autocast_enabled("cpu") and not tl.is_autocast_enabled("cuda")
    assert tl.get_autocast_dtype("cpu") == BF16 and tl.get_autocast_dtype("cuda") == F16
    assert tl.is_autocast_cache_enabled()
    assert _state._autocast_cache_size() == 0


def test_defaults_and_region_state():
    assert tl.get_autocast_dtype("cpu") == BF16 and tl.get_autocast_dtype("cuda") == F16
    a = tl.randn(3, 4)
    with tl.autocast("cpu") as region:
        assert isinstance(region, tl.autocast)
        assert tl.is_autocast_enabled("cpu") and not tl.is_autocast_enabled("cuda")
        assert tl.mm(a, a.t()).dtype == BF16
    assert not tl.is_autocast_enabled("cpu")
    assert tl.mm(a, a.t()).dtype == F32
    assert tl.autocast is tl.amp.autocast


def test_nesting_enabled_false_and_dtype_restore():
    a = tl.randn(3, 3)
    with tl.autocast("cpu"):
        assert tl.mm(a, a).dtype == BF16
        with tl.autocast("cpu", enabled=False):
            assert not tl.is_autocast_enabled("cpu")
            assert tl.mm(a, a).dtype == F32
            with tl.autocast("cpu", dtype=F16):
                assert tl.get_autocast_dtype("cpu") == F16
                assert tl.mm(a, a).dtype == F16
            assert not tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") == BF16
        assert tl.is_autocast_enabled("cpu")
        assert tl.mm(a, a).dtype == BF16


def test_state_is_restored_when_the_region_raises():
    with pytest.raises(ValueError):
        with tl.autocast("cpu", dtype=F16, cache_enabled=False):
            raise ValueError("boom")
    assert not tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") == BF16


def test_decorator_form():
    a = tl.randn(2, 2)

    @tl.autocast("cpu")
    def run(x):
        assert tl.is_autocast_enabled("cpu")
        return tl.mm(x, x)

    @tl.autocast("cpu", enabled=False)
    def run_off(x):
        return tl.mm(x, x)

    assert run(a).dtype == BF16 and run.__name__ == "run"
    assert not tl.is_autocast_enabled("cpu")
    with tl.autocast("cpu"):
        assert run_off(a).dtype == F32
        assert tl.is_autocast_enabled("cpu")


def test_integer_float64_and_low_precision_inputs():
    with tl.autocast("cpu"):
        assert tl.mm(tl.randn(2, 2, dtype=F64), tl.randn(2, 2, dtype=F64)).dtype == F64
        assert tl.mm(tl.ones(2, 2, dtype=tl.int64), tl.ones(2, 2, dtype=tl.int64)).dtype == tl.int64
        # Lower-precision inputs of an fp32 op are cast up.
        assert tl.prod(tl.randn(4).half()).dtype == F32
        # A float64 argument of a promote op is left alone and does not count.
        assert tl.cat([tl.randn(2, dtype=F64), tl.randn(2)]).dtype == F64
        # out= forms have no Autocast kernel: cat.out writes what it is given.
        out = tl.empty(4, dtype=BF16)
        tl.cat([tl.randn(2, dtype=BF16), tl.randn(2, dtype=BF16)], out=out)
        assert out.dtype == BF16
        assert tl.cat([tl.randn(2, dtype=BF16), tl.randn(2)]).dtype == F32


def test_values_are_the_lower_precision_computation():
    a, b = tl.randn(8, 16), tl.randn(16, 4)
    with tl.autocast("cpu"):
        got = tl.mm(a, b)
    want = tl.mm(a.bfloat16(), b.bfloat16())
    assert tl.equal(got, want)


def test_cache_reuses_one_cast_per_leaf_weight():
    w = tl.randn(4, 4, requires_grad=True)
    x = tl.randn(2, 4)
    with tl.autocast("cpu"):
        y1 = tl.mm(x, w)
        assert _state._autocast_cache_size() == 1
        y2 = tl.mm(x, w)
        assert _state._autocast_cache_size() == 1
        with tl.autocast("cpu"):  # a nested region shares the cache and does not clear it
            tl.mm(x, w)
        assert _state._autocast_cache_size() == 1
        # The same low-precision copy feeds both: both outputs' graphs reach it.
        assert y1.grad_fn.next_functions[1][0] is y2.grad_fn.next_functions[1][0]
    assert _state._autocast_cache_size() == 0  # cleared by the outermost exit
    (y1.float().sum() + y2.float().sum()).backward()
    assert w.grad.dtype == F32
    expected = 2 * x.bfloat16().float().sum(0).unsqueeze(1).expand(4, 4)
    assert tl.allclose(w.grad, expected, rtol=1e-2, atol=1e-2)


def test_cache_skips_non_leaves_plain_tensors_and_disabled_cache():
    w = tl.randn(4, 4, requires_grad=True)
    x = tl.randn(2, 4)
    with tl.autocast("cpu"):
        tl.mm(x, w * 2)                      # not a leaf
        tl.mm(x, tl.randn(4, 4))             # does not require grad
        assert _state._autocast_cache_size() == 0
        with tl.no_grad():
            tl.mm(x, w)                      # no history to share: not cached
        assert _state._autocast_cache_size() == 0
    with tl.autocast("cpu", cache_enabled=False):
        assert not tl.is_autocast_cache_enabled()
        tl.mm(x, w)
        assert _state._autocast_cache_size() == 0
    assert tl.is_autocast_cache_enabled()


def test_cache_keys_the_dtype():
    w = tl.randn(3, 3, requires_grad=True)
    with tl.autocast("cpu"):
        assert tl.mm(w, w).dtype == BF16
        with tl.autocast("cpu", dtype=F16):
            assert tl.mm(w, w).dtype == F16   # not the cached bfloat16 copy
        assert _state._autocast_cache_size() == 2


def test_backward_runs_outside_autocast_with_the_forward_dtypes():
    w = tl.randn(4, 3, requires_grad=True)
    x = tl.randn(5, 4, requires_grad=True)
    seen = []

    class Probe(tl.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t.clone()

        @staticmethod
        def backward(ctx, g):
            seen.append((tl.is_autocast_enabled("cpu"), tl.mm(g.float(), g.float().t()).dtype, g.dtype))
            return g

    with tl.autocast("cpu"):
        y = Probe.apply(tl.mm(x, w))
        assert y.dtype == BF16
        y.float().sum().backward()           # called inside the region
        assert tl.is_autocast_enabled("cpu")  # and the region is still on afterwards
    assert seen == [(False, F32, BF16)]
    assert w.grad.dtype == F32 and x.grad.dtype == F32


def test_regions_are_per_thread():
    seen = []
    with tl.autocast("cpu"):
        t = threading.Thread(target=lambda: seen.append((tl.is_autocast_enabled("cpu"),
                                                          tl.mm(tl.randn(2, 2), tl.randn(2, 2)).dtype)))
        t.start()
        t.join()
    assert seen == [(False, F32)]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_recomputes_under_the_forward_autocast_state(use_reentrant):
    from torchlike.utils.checkpoint import checkpoint
    w = tl.randn(4, 4, requires_grad=True)
    x = tl.randn(3, 4, requires_grad=True)
    dtypes = []

    def block(inp):
        h = tl.mm(inp, w)
        dtypes.append(h.dtype)
        return h.float().relu().sum(1)

    with tl.autocast("cpu"):
        out = checkpoint(block, x, use_reentrant=use_reentrant)
    out.sum().backward()                     # outside the region: recomputation still in bfloat16
    assert dtypes == [BF16, BF16]
    ref_w, ref_x = w.grad.clone(), x.grad.clone()
    w.grad = x.grad = None
    with tl.autocast("cpu"):
        block(x).sum().backward()
    assert tl.equal(w.grad, ref_w) and tl.equal(x.grad, ref_x)
    # A checkpoint taken outside autocast recomputes outside it, even from inside a region.
    dtypes.clear()
    out = checkpoint(block, x, use_reentrant=use_reentrant)
    with tl.autocast("cpu"):
        out.sum().backward()
    assert dtypes == [F32, F32]


def test_custom_fwd_cast_inputs_and_custom_bwd():
    seen = {}

    class Scale(tl.autograd.Function):
        @staticmethod
        @tl.amp.custom_fwd(device_type="cpu", cast_inputs=F32)
        def forward(ctx, a, b):
            seen["fwd"] = (a.dtype, b.dtype, tl.is_autocast_enabled("cpu"))
            return a * 2

        @staticmethod
        @tl.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = tl.is_autocast_enabled("cpu")
            return g * 2, None

    a = tl.randn(3, dtype=BF16, requires_grad=True)
    ints = tl.arange(3)
    with tl.autocast("cpu"):
        out = Scale.apply(a, ints)
    assert seen["fwd"] == (F32, tl.int64, False) and out.dtype == F32
    out.sum().backward()
    assert seen["bwd"] is False and a.grad.dtype == BF16
    # Outside a region cast_inputs does nothing.
    Scale.apply(a, ints)
    assert seen["fwd"] == (BF16, tl.int64, False)


def test_custom_bwd_runs_under_the_forward_state():
    seen = {}

    class Mm(tl.autograd.Function):
        @staticmethod
        @tl.amp.custom_fwd(device_type="cpu")
        def forward(ctx, a, b):
            seen["fwd"] = tl.is_autocast_enabled("cpu")
            ctx.save_for_backward(a, b)
            return tl.mm(a, b)

        @staticmethod
        @tl.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen["bwd"] = (tl.is_autocast_enabled("cpu"), tl.get_autocast_dtype("cpu"), tl.mm(g, b.t()).dtype)
            return tl.mm(g, b.t()), tl.mm(a.t(), g)

    a, b = tl.randn(2, 3, requires_grad=True), tl.randn(3, 2, requires_grad=True)
    with tl.autocast("cpu", dtype=F16):
        y = Mm.apply(a, b)
    assert seen["fwd"] is True and y.dtype == F16
    y.float().sum().backward()
    assert seen["bwd"] == (True, F16, F16)
    assert not tl.is_autocast_enabled("cpu")


def test_custom_fwd_requires_device_type():
    with pytest.raises(TypeError):
        tl.amp.custom_fwd(lambda ctx, x: x)
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        tl.amp.custom_fwd(lambda ctx, x: x, device_type=1)


def test_cuda_without_cuda_warns_and_disables():
    assert not tl.cuda.is_available()
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        region = tl.autocast("cuda")
    with region:
        assert not tl.is_autocast_enabled("cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.autocast("cuda", enabled=False)   # nothing to disable: no warning


def test_unsupported_cpu_dtype_warns_and_disables():
    msg = ("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
           "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.")
    for dtype in (F64, F32):
        with pytest.warns(UserWarning) as rec:
            region = tl.autocast("cpu", dtype=dtype)
        assert str(rec[0].message) == msg
        with region:
            assert not tl.is_autocast_enabled("cpu")
            assert tl.mm(tl.randn(2, 2), tl.randn(2, 2)).dtype == F32


def test_device_type_errors():
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`, got: `<class 'int'>`"):
        tl.autocast(1)
    with pytest.raises(RuntimeError, match="device string: foo"):
        tl.autocast("foo")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'meta'"):
        tl.autocast("meta")
    assert tl.amp.is_autocast_available("cpu") and tl.amp.is_autocast_available("cuda")
    assert not tl.amp.is_autocast_available("meta")
    with pytest.raises(RuntimeError, match="unknown device type for autocast"):
        tl.is_autocast_enabled("meta")


def test_torch_namespace_controls():
    assert tl.is_autocast_enabled() is False         # no argument: CUDA
    tl.set_autocast_enabled("cpu", True)
    try:
        assert tl.is_autocast_enabled("cpu")
        assert tl.mm(tl.randn(2, 2), tl.randn(2, 2)).dtype == BF16
    finally:
        tl.set_autocast_enabled("cpu", False)
    tl.set_autocast_enabled(True)                    # one argument: CUDA
    assert tl.is_autocast_enabled("cuda") and tl.is_autocast_enabled()
    tl.set_autocast_enabled(False)
    with pytest.raises(TypeError):
        tl.set_autocast_enabled("cpu", 1)
    tl.set_autocast_dtype("cpu", F16)
    assert tl.get_autocast_dtype("cpu") == F16
    tl.set_autocast_dtype("cpu", BF16)
    with pytest.raises(TypeError):
        tl.get_autocast_dtype()
    tl.set_autocast_cache_enabled(False)
    assert not tl.is_autocast_cache_enabled()
    tl.set_autocast_cache_enabled(True)
    assert tl.autocast_increment_nesting() == 1
    assert tl.autocast_increment_nesting() == 2
    assert tl.autocast_decrement_nesting() == 1
    assert tl.autocast_decrement_nesting() == 0
    tl.clear_autocast_cache()


def test_deprecated_controls_warn_and_work():
    with pytest.warns(UserWarning, match=r"torch.get_autocast_gpu_dtype\(\) is deprecated"):
        assert tl.get_autocast_gpu_dtype() == F16
    with pytest.warns(UserWarning, match=r"torch.get_autocast_cpu_dtype\(\) is deprecated"):
        assert tl.get_autocast_cpu_dtype() == BF16
    with pytest.warns(UserWarning, match=r"torch.is_autocast_cpu_enabled\(\) is deprecated"):
        assert tl.is_autocast_cpu_enabled() is False
    with pytest.warns(DeprecationWarning, match="set_autocast_gpu_dtype"):
        tl.set_autocast_gpu_dtype(BF16)
    assert tl.get_autocast_dtype("cuda") == BF16
    with pytest.warns(DeprecationWarning):
        tl.set_autocast_gpu_dtype(F16)
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_dtype"):
        tl.set_autocast_cpu_dtype(BF16)
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_enabled"):
        tl.set_autocast_cpu_enabled(False)


def test_deprecated_device_modules():
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated"):
        region = tl.cpu.amp.autocast()
    assert isinstance(region, tl.amp.autocast) and region.fast_dtype == BF16
    with region:
        assert tl.mm(tl.randn(2, 2), tl.randn(2, 2)).dtype == BF16
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.autocast"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            tl.cuda.amp.autocast()
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_fwd"):
        fwd = tl.cuda.amp.custom_fwd(lambda ctx, x: x)
    assert callable(fwd)
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_bwd"):
        tl.cuda.amp.custom_bwd(lambda ctx, g: g)
    assert tl.cuda.amp.amp_definitely_not_available() is True
    # The device modules kept their own API when they became packages.
    assert tl.cuda.device_count() == 0 and tl.cpu.is_available() and callable(tl.cpu.empty_cache)
    assert sorted(tl.amp.__all__) == ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]


@requires_torch
def test_signatures_match_pytorch():
    import inspect

    import torch
    ours, theirs = inspect.signature(tl.autocast.__init__), inspect.signature(torch.autocast.__init__)
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.parameters.values()]
    for name in ("custom_fwd", "custom_bwd"):
        ours, theirs = inspect.signature(getattr(tl.amp, name)), inspect.signature(getattr(torch.amp, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()]
    for name in ("autocast", "custom_fwd", "custom_bwd", "is_autocast_available"):
        assert name in torch.amp.__all__


@requires_torch
def test_warning_texts_match_pytorch():
    import torch

    def messages(make):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            make()
        return [str(r.message) for r in rec]

    assert messages(lambda: tl.autocast("cpu", dtype=tl.float64)) == \
        messages(lambda: torch.autocast("cpu", dtype=torch.float64))
    assert messages(lambda: tl.autocast("cuda")) == messages(lambda: torch.autocast("cuda"))
