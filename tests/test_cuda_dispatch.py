"""CUDA kernels on the dispatcher: every generated pointwise operator (and its
in-place and out= forms) and the CUDA reductions are registered on the CUDA
key when libtorchlike_cuda.so is loaded; an operator without a CUDA kernel
raises PyTorch's NotImplementedError naming the CUDA backend. The
registration checks need the CUDA library (not a GPU) and skip without it."""
import os
import subprocess
import sys

import pytest

import torchlike
from torchlike import _C, _cuda_lib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_lib = pytest.mark.skipif(_cuda_lib.load() is None, reason=f"no CUDA library: {_cuda_lib.load_error()}")

REDUCTIONS = ["aten::sum", "aten::sum.dim_IntList", "aten::mean", "aten::mean.dim", "aten::prod", "aten::prod.dim_int",
              "aten::max", "aten::min", "aten::max.dim", "aten::min.dim", "aten::amax", "aten::amin", "aten::argmax",
              "aten::argmin", "aten::var.correction", "aten::std.correction", "aten::norm.Scalar", "aten::any",
              "aten::all", "aten::cumsum", "aten::cumprod", "aten::logsumexp"]


def _row(op, key):
    for line in _C._dispatch_dump_table(op).splitlines():
        if line.startswith(key + ": "):
            return line[len(key) + 2:]
    raise AssertionError(f"{op} has no {key} row")


def test_has_kernel_query():
    assert _C._dispatch_has_kernel_for_key("aten::exp", "CPU")
    assert _C._dispatch_has_kernel_for_key("exp", "Meta")  # aten:: is implied
    # a composite fills every backend's slot
    assert _C._dispatch_has_kernel_for_key("aten::var_mean.correction", "CUDA")
    # once compile or jit.trace has used the Python layer, its process-wide fallback fills that slot
    from torchlike import _python_key
    if _python_key._lib is None:
        assert not _C._dispatch_has_kernel_for_key("aten::exp", "Python")
    with pytest.raises(ValueError, match="alias key"):
        _C._dispatch_has_kernel_for_key("aten::exp", "CompositeImplicitAutograd")
    with pytest.raises(ValueError, match="no operator named"):
        _C._dispatch_has_kernel_for_key("aten::no_such_op", "CPU")
    with pytest.raises(ValueError):
        _C._dispatch_has_kernel_for_key("aten::exp", "NoSuchKey")


@needs_lib
@pytest.mark.parametrize("op", ["aten::exp", "aten::exp_", "aten::exp.out", "aten::add.Tensor", "aten::add_.Tensor",
                                "aten::add.out", "aten::eq.Tensor", "aten::leaky_relu", "aten::leaky_relu_"])
def test_pointwise_ops_have_cuda_kernels(op):
    assert _C._dispatch_has_kernel_for_key(op, "CUDA")
    assert _row(op, "CUDA").endswith("[kernel]") and "(CUDA)" in _row(op, "CUDA")


@needs_lib
def test_every_generated_pointwise_op_has_a_cuda_kernel():
    pointwise = [op for op in _C._dispatch_list_ops() if _row(op, "CPU").startswith("pointwise ")]
    assert len(pointwise) > 300  # functional, in-place and out= of every YAML pointwise entry
    missing = [op for op in pointwise if not _row(op, "CUDA").startswith("pointwise ")]
    assert missing == []
    # scalar arguments, bool results and in-place forms are among them
    for op in ("aten::leaky_relu_", "aten::logical_xor", "aten::logical_xor.out", "aten::add_.Tensor"):
        assert op in pointwise


@needs_lib
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions_have_cuda_kernels(op):
    assert _row(op, "CUDA").endswith("[kernel]"), _row(op, "CUDA")
    # the composites over them reach CUDA too
    for comp in ("aten::var_mean.correction", "aten::std_mean.correction", "aten::sum.IntList_out"):
        assert _C._dispatch_has_kernel_for_key(comp, "CUDA")


def _with_cuda_key_included(fn):
    """Runs fn with the CUDA key forced into the thread's key set, so a CPU
    call dispatches as a CUDA call would (no GPU needed to see the error)."""
    inc, exc = _C._dispatch_tls_get()
    _C._dispatch_tls_set(inc | _C._dispatch_key_bit("CUDA"), exc)
    try:
        return fn()
    finally:
        _C._dispatch_tls_set(inc, exc)


def test_op_without_cuda_kernel_raises_pytorchs_error():
    op = "aten::cummax"
    assert _C._dispatch_has_kernel_for_key(op, "CPU")
    assert not _C._dispatch_has_kernel_for_key(op, "CUDA")
    x = torchlike.tensor([1.0, 3.0, 2.0])
    with pytest.raises(NotImplementedError) as e:
        _with_cuda_key_included(lambda: torchlike.cummax(x, 0))
    msg = str(e.value)
    assert msg.startswith("Could not run 'aten::cummax' with arguments from the 'CUDA' backend. This could be "
                          "because the operator doesn't exist for this backend")
    assert "'aten::cummax' is only available for these backends: [CPU, Meta]." in msg


def test_op_coverage_reports_cuda_kernels():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "op_coverage.py"), "--quiet", "--cuda"],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    if _cuda_lib.load() is None:
        assert "CUDA library not loaded" in out.stdout
        return
    lines = {ln.split()[0]: ln.split()[1] for ln in out.stdout.splitlines()
             if ln.startswith("  aten::") and len(ln.split()) == 2}
    assert lines["aten::exp"] == "kernel" and lines["aten::sum.dim_IntList"] == "kernel"
    assert lines["aten::var_mean.correction"] == "composite"
    assert lines["aten::cummax"] == "missing"
    assert "have a CUDA kernel" in out.stdout


def test_generated_cuda_shards_define_and_register_all_three_forms():
    """The generated shard text (generated on every build, compiled only with
    CUDA): functional, in-place and out= kernels over the structured set-up,
    each registered on the CUDA key."""
    import glob
    shards = glob.glob(os.path.join(ROOT, "build", "generated", "kernels", "cuda", "shard*.cu"))
    if not shards:
        pytest.skip("no generated sources (not built in this tree)")
    text = "".join(open(p).read() for p in shards)
    for op, ident in (("exp", "exp"), ("add.Tensor", "add_Tensor"), ("leaky_relu", "leaky_relu")):
        assert f"k_CUDA_{ident}(c10::DispatchKeySet" in text
        assert f'm.impl("aten::{op}", c10::KernelFunction::makeUnboxed<decltype(k_CUDA_{ident}), &k_CUDA_{ident}>' \
            in text
    assert "at::TensorIterator iter = exp_structured(out_, self);" in text
    assert 'm.impl("aten::exp_",' in text and 'm.impl("aten::exp.out",' in text
    assert text.count("TL_LIBRARY_IMPL(aten, CUDA, m)") == len(shards)
