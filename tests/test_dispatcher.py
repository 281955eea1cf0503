"""Dispatcher behaviour: per-key tables, alias keys, fallthrough masking,
backend fallbacks, TLS include/exclude, redispatch, boxing both ways, errors."""
import itertools
import subprocess
import sys

import pytest

import torchlike as tl

C = tl._C
VF = C._VariableFunctions
_counter = itertools.count()


def new_op():
    name = f"probe{next(_counter)}"
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    return f"_test::{name}"


def trace():
    return VF._dispatch_testing_trace()


def call(op, t, boxed=False):
    return VF._dispatch_testing_call(op, t, boxed)


@pytest.fixture
def op():
    trace()
    return new_op()


class TLS:
    """Set the thread-local include/exclude key sets for a block."""

    def __init__(self, include=(), exclude=()):
        self.inc = sum(C._dispatch_key_bit(k) for k in include)
        self.exc = sum(C._dispatch_key_bit(k) for k in exclude)

    def __enter__(self):
        inc, exc = C._dispatch_tls_get()
        self.prev = C._dispatch_tls_set(inc | self.inc, exc | self.exc)

    def __exit__(self, *exc):
        C._dispatch_tls_set(*self.prev)


def test_tensor_key_set():
    assert C._dispatch_keyset(tl.ones(2) if hasattr(tl, "ones") else tl.tensor([1.0])) == \
        "DispatchKeySet(AutogradCPU, CPU)"
    assert C._dispatch_keyset(tl.empty(2, device="meta")) == "DispatchKeySet(AutogradMeta, Meta)"


def test_backend_kernel_chosen_by_device(op):
    VF._dispatch_testing_register(op, "CPU", "boxed")
    VF._dispatch_testing_register(op, "Meta", "boxed")
    x = tl.tensor([1.0])
    assert call(op, x) is x
    call(op, tl.empty(2, device="meta"))
    assert trace() == ["CPU", "Meta"]


def test_missing_kernel_raises_not_implemented(op):
    VF._dispatch_testing_register(op, "CPU", "boxed")
    with pytest.raises(NotImplementedError, match=rf"Could not run '{op}' with arguments from the 'Meta' backend"):
        call(op, tl.empty(2, device="meta"))
    VF._dispatch_testing_deregister(op, "CPU")
    with pytest.raises(NotImplementedError, match="only available for these backends: \\[\\]"):
        call(op, tl.tensor([1.0]))


def test_autograd_key_runs_first_and_redispatches(op):
    VF._dispatch_testing_register(op, "CPU", "boxed")
    VF._dispatch_testing_register(op, "AutogradCPU", "boxed_redispatch")
    call(op, tl.tensor([1.0]))
    assert trace() == ["AutogradCPU+redispatch", "CPU"]


def test_tls_exclude_skips_key(op):
    VF._dispatch_testing_register(op, "CPU", "boxed")
    VF._dispatch_testing_register(op, "AutogradCPU", "boxed_redispatch")
    with TLS(exclude=["AutogradCPU"]):
        call(op, tl.tensor([1.0]))
    assert trace() == ["CPU"]
    call(op, tl.tensor([1.0]))  # guard restored
    assert trace() == ["AutogradCPU+redispatch", "CPU"]


def test_tls_include_adds_key_and_fallback_runs(op):
    VF._dispatch_testing_register(op, "CPU", "boxed")
    VF._dispatch_testing_fallback("AutocastCPU", "boxed_redispatch")
    try:
        with TLS(include=["AutocastCPU"]):
            call(op, tl.tensor([1.0]))
        assert trace() == ["AutocastCPU+redispatch", "CPU"]
        call(op, tl.tensor([1.0]))  # not included outside the block
        assert trace() == ["CPU"]
    finally:
        VF._dispatch_testing_fallback("AutocastCPU", "fallthrough")


def test_fallthrough_is_masked_out_of_the_table(op):
    VF._dispatch_testing_register(op, "CPU", "boxed")
    VF._dispatch_testing_register(op, "AutogradCPU", "fallthrough")
    call(op, tl.tensor([1.0]))
    assert trace() == ["CPU"]
    table = C._dispatch_dump_table(op)
    assert "AutogradCPU: fallthrough [kernel (fallthrough)]" in table


def test_direct_kernel_beats_fallback_and_fallback_beats_missing(op):
    VF._dispatch_testing_fallback("AutocastCPU", "boxed")  # terminal fallback
    try:
        with TLS(include=["AutocastCPU"]):
            call(op, tl.tensor([1.0]))
            assert trace() == ["AutocastCPU"]
            VF._dispatch_testing_register(op, "AutocastCPU", "boxed_redispatch")
            VF._dispatch_testing_register(op, "CPU", "boxed")
            call(op, tl.tensor([1.0]))
            assert trace() == ["AutocastCPU+redispatch", "CPU"]
    finally:
        VF._dispatch_testing_fallback("AutocastCPU", "fallthrough")


def test_alias_keys_expand_to_runtime_keys(op):
    VF._dispatch_testing_register(op, "CompositeExplicitAutograd", "boxed")
    table = C._dispatch_dump_table(op)
    for key in ("CPU", "CUDA", "Meta", "PrivateUse1"):
        assert f"{key}: boxed [CompositeExplicitAutograd]" in table
    # A direct backend kernel takes precedence over the composite.
    VF._dispatch_testing_register(op, "CPU", "unboxed")
    call(op, tl.tensor([1.0]))
    call(op, tl.empty(1, device="meta"))
    assert trace() == ["unboxed:CPU", "CompositeExplicitAutograd"]


def test_composite_implicit_serves_autograd_keys(op):
    VF._dispatch_testing_register(op, "CompositeImplicitAutograd", "boxed")
    table = C._dispatch_dump_table(op)
    assert "AutogradCPU: boxed [CompositeImplicitAutograd]" in table
    assert "CPU: boxed [CompositeImplicitAutograd]" in table
    # With its own CPU kernel the backend no longer uses the composite for autograd.
    VF._dispatch_testing_register(op, "CPU", "boxed")
    assert "AutogradCPU: fallthrough [backend fallback (fallthrough)]" in C._dispatch_dump_table(op)


def test_unboxed_kernel_called_boxed_and_boxed_kernel_called_unboxed(op):
    VF._dispatch_testing_register(op, "CPU", "unboxed")
    x = tl.tensor([2.0])
    assert call(op, x, boxed=True) is x
    VF._dispatch_testing_register(op, "CPU", "boxed")
    assert call(op, x, boxed=False) is x
    assert trace() == ["unboxed:CPU", "CPU"]


def test_schema_cannot_be_redefined():
    name = f"probe{next(_counter)}"
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    with pytest.raises(RuntimeError, match="already has schema"):
        VF._dispatch_testing_define(f"{name}(Tensor self, Tensor other) -> Tensor")


def test_generated_ops_registered_with_schema():
    dump = C._dispatch_dump("aten::add.Tensor")
    assert "schema: aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in dump
    assert "aten::add_.Tensor" in C._dispatch_list_ops() and "aten::add.out" in C._dispatch_list_ops()
    with pytest.raises(ValueError, match="no operator named"):
        C._dispatch_dump("aten::does_not_exist")


def test_dispatch_table_tool():
    out = subprocess.run([sys.executable, "tools/dispatch_table.py", "aten::mul.Tensor"], capture_output=True,
                         text=True, cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.returncode == 0, out.stderr
    assert "CPU: pointwise mul_Tensor [kernel]" in out.stdout and "computed table" in out.stdout
