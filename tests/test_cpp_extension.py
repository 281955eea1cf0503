"""torchlike.utils.cpp_extension: extensions in PyTorch's style (torch/extension.h,
pybind11, torch:: functions) built just in time with ninja and imported; the
LSTM-cell extension against the same cell in Python; rebuilds only on change;
two processes building at once; compile errors carrying the compiler's
message; load_inline; the compiler and ninja queries."""
import os
import shutil
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import torchlike as tl
from torchlike.utils import cpp_extension as ce

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import pybind11  # noqa: F401
except ImportError:
    pybind11 = None
pytestmark = pytest.mark.skipif(shutil.which(ce.get_cxx_compiler()) is None or not ce.is_ninja_available()
                                or pybind11 is None, reason="needs a C++ compiler, ninja and pybind11")


@pytest.fixture(scope="module")
def lstm_ext(tmp_path_factory):
    build = tmp_path_factory.mktemp("lstm_cell_build")
    t0 = time.perf_counter()
    ext = ce.load("lstm_cell_ext", [os.path.join(HERE, "extensions", "lstm_cell.cpp")], build_directory=str(build))
    ext.cold_seconds = time.perf_counter() - t0
    ext.build_dir = str(build)
    return ext


def python_cell(x, h, c, w_ih, w_hh, b):
    gates = x @ w_ih.t() + b + h @ w_hh.t()
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = tl.sigmoid(i), tl.sigmoid(f), tl.tanh(g), tl.sigmoid(o)
    c_new = f * c + i * g
    return o * tl.tanh(c_new), c_new


class ExtensionCell(tl.autograd.Function):
    """The extension's forward and backward as an autograd Function."""

    @staticmethod
    def forward(ctx, ext, x, h, c, w_ih, w_hh, b):
        new_h, new_c, *saved = ext.forward(x, h, c, w_ih, w_hh, b)
        ctx.ext = ext
        ctx.save_for_backward(*saved, x, h, c, w_ih, w_hh)
        return new_h, new_c

    @staticmethod
    def backward(ctx, grad_h, grad_c):
        grads = ctx.ext.backward(grad_h.contiguous(), grad_c.contiguous(), *ctx.saved_tensors)
        return (None, *grads)


def _inputs(dtype=tl.float64, B=3, I=5, H=4):
    rng = np.random.default_rng(0)
    mk = lambda *s: tl.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True)  # noqa: E731
    return mk(B, I), mk(B, H), mk(B, H), mk(4 * H, I), mk(4 * H, H), mk(4 * H)


def test_lstm_cell_extension_matches_python(lstm_ext):
    args = _inputs()
    h_ext, c_ext = ExtensionCell.apply(lstm_ext, *args)
    (h_ext.sum() * 2 + (c_ext * c_ext).sum()).backward()
    grads_ext = [a.grad.clone() for a in args]
    for a in args:
        a.grad = None
    h_py, c_py = python_cell(*args)
    (h_py.sum() * 2 + (c_py * c_py).sum()).backward()
    np.testing.assert_allclose(h_ext.detach().numpy(), h_py.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c_ext.detach().numpy(), c_py.detach().numpy(), rtol=1e-12, atol=1e-12)
    for ge, a in zip(grads_ext, args):
        np.testing.assert_allclose(ge.numpy(), a.grad.numpy(), rtol=1e-10, atol=1e-12)
    # and against float64 finite differences
    fn = lambda *a: ExtensionCell.apply(lstm_ext, *a)  # noqa: E731
    assert tl.autograd.gradcheck(fn, _inputs(B=2, I=3, H=2))


def test_extension_types_and_errors(lstm_ext):
    t = tl.tensor([[1.5, 2.5], [3.0, 4.0]])
    assert lstm_ext.first_row_sum(t) == 4.0
    assert lstm_ext.first_row_sum(t.double()) == 4.0
    with pytest.raises(NotImplementedError, match="first_row_sum"):
        lstm_ext.first_row_sum(t.long())
    with pytest.raises(RuntimeError, match="TensorAccessor expected 2 dims but tensor has 1"):
        lstm_ext.first_row_sum(tl.ones(3))
    with pytest.raises(RuntimeError, match="cell_forward: x, h and c must be 2-d"):
        lstm_ext.forward(tl.ones(3), tl.ones(1, 2), tl.ones(1, 2), tl.ones(8, 3), tl.ones(8, 2), tl.ones(8))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        lstm_ext.first_row_sum("not a tensor")


def test_rebuild_only_when_something_changed(lstm_ext, tmp_path):
    # warm: same sources and flags, nothing recompiles
    obj = os.path.join(lstm_ext.build_dir, "lstm_cell.o")
    mtime = os.path.getmtime(obj)
    t0 = time.perf_counter()
    again = ce.load("lstm_cell_ext", [os.path.join(HERE, "extensions", "lstm_cell.cpp")],
                    build_directory=lstm_ext.build_dir)
    warm = time.perf_counter() - t0
    assert os.path.getmtime(obj) == mtime and again.__name__ == "lstm_cell_ext"
    assert warm < lstm_ext.cold_seconds
    # a changed source rebuilds, and the new module is loaded under a new name
    src = tmp_path / "answer.cpp"
    src.write_text('#include <torch/extension.h>\nint answer() { return 41; }\n'
                   'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("answer", &answer); }\n')
    build = str(tmp_path / "b")
    assert ce.load("answer_ext", [str(src)], build_directory=build).answer() == 41
    src.write_text(src.read_text().replace("41", "42"))
    m2 = ce.load("answer_ext", [str(src)], build_directory=build)
    assert m2.answer() == 42 and m2.__name__ == "answer_ext_v1"
    # changed flags rebuild too
    m3 = ce.load("answer_ext", [str(src)], build_directory=build, extra_cflags=["-DUNUSED_FLAG=1"])
    assert m3.answer() == 42 and m3.__name__ == "answer_ext_v2"


def test_compile_error_carries_the_compilers_message(tmp_path):
    src = tmp_path / "broken.cpp"
    src.write_text("#include <torch/extension.h>\nint f() { return undeclared_thing; }\n")
    with pytest.raises(RuntimeError, match=r"(?s)Error building extension 'broken_ext'.*undeclared_thing"):
        ce.load("broken_ext", [str(src)], build_directory=str(tmp_path / "b"))
    with pytest.raises(FileNotFoundError):
        ce.load("missing_ext", [str(tmp_path / "nope.cpp")], build_directory=str(tmp_path / "c"))
    with pytest.raises(ValueError, match="identifier"):
        ce.load("not-an-identifier", [str(src)], build_directory=str(tmp_path / "d"))


def test_load_inline(tmp_path):
    m = ce.load_inline("inline_ext", cpp_sources=textwrap.dedent("""
        torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b, double s) { return a + b * s; }
        int64_t count(std::vector<torch::Tensor> ts) { return (int64_t)ts.size(); }
    """), functions=["scaled_add", "count"], build_directory=str(tmp_path))
    out = m.scaled_add(tl.ones(3), tl.arange(3.0), 2.0)
    assert out.tolist() == [1.0, 3.0, 5.0]
    assert m.count([tl.ones(1), tl.ones(2)]) == 2
    with pytest.raises(ValueError, match="functions must be"):
        ce.load_inline("inline_bad", cpp_sources="", functions=3, build_directory=str(tmp_path / "x"))


def test_two_processes_build_the_same_extension(tmp_path):
    src = tmp_path / "race.cpp"
    src.write_text('#include <torch/extension.h>\nint seven() { return 7; }\n'
                   'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("seven", &seven); }\n')
    code = (f"from torchlike.utils import cpp_extension as ce\n"
            f"m = ce.load('race_ext', [{str(src)!r}], build_directory={str(tmp_path / 'b')!r})\n"
            f"print(m.seven())\n")
    root = os.path.dirname(HERE)
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
        assert out.strip() == "7"


def test_setuptools_extensions_and_queries():
    ext = ce.CppExtension("my_ext", ["a.cpp"])
    assert ce.include_paths()[0] in ext.include_dirs and "torchlike" in ext.libraries
    assert ext.language == "c++"
    assert issubclass(ce.BuildExtension, __import__("setuptools").Command)
    assert ce.get_default_build_root().endswith("_cpu")
    ok, version = ce.get_compiler_abi_compatibility_and_version(ce.get_cxx_compiler())
    assert ok and version >= "9.0"
    assert ce.check_compiler_ok_for_platform(ce.get_cxx_compiler())
    assert isinstance(ce.check_compiler_is_gcc(ce.get_cxx_compiler()), bool)
    ce.verify_ninja_availability()


@pytest.mark.skipif(ce.CUDA_HOME is None, reason="no CUDA toolkit")
def test_cuda_extension_compiles_and_loads(tmp_path):
    """nvcc builds a .cu source of an extension; without a GPU the module still
    loads (the CUDA runtime is loaded lazily) and host code runs."""
    m = ce.load_inline("cuda_inline_ext", cpp_sources="int launches(int n);",
                       cuda_sources=textwrap.dedent("""
        __global__ void fill(float* p, float v) { p[threadIdx.x] = v; }
        int launches(int n) { return n * 2; }
    """), functions=["launches"], build_directory=str(tmp_path), extra_cuda_cflags=["-gencode",
                                                                                    "arch=compute_90,code=sm_90"])
    assert m.launches(21) == 42


def test_torch_library_operators_from_an_extension(tmp_path):
    path = ce.load("scale_ops_ext", [os.path.join(HERE, "extensions", "scale_ops.cpp")],
                   build_directory=str(tmp_path), is_python_module=False)
    assert os.path.isfile(path)
    x = tl.tensor([1.0, 2.0, 3.0, 4.0])
    assert tl.ops.scale_ops.scale(x, 2.5).tolist() == [2.5, 5.0, 7.5, 10.0]
    assert tl.ops.scale_ops.scale.default(x.double(), alpha=-1.0).dtype == tl.float64
    m = tl.ops.scale_ops.scale(tl.empty(2, 3, device="meta"), 2.0)
    assert m.device.type == "meta" and tuple(m.shape) == (2, 3)
    a, b = tl.ops.scale_ops.halves(x)
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match="expected a floating-point tensor"):
        tl.ops.scale_ops.scale(tl.ones(2, dtype=tl.int64), 2.0)
    assert tl.ops.scale_ops.scale.default._schema == "scale_ops::scale(Tensor x, float alpha) -> Tensor"

    # m.def(name, fn): schema inferred from the C++ signature, the function is
    # the kernel for every backend and autograd sees the ops it calls.
    assert tl.ops.scale_ops.muladd.default._schema == "scale_ops::muladd(Tensor _0, Tensor _1, float _2) -> Tensor"
    a = tl.tensor([1.0, -2.0], dtype=tl.float64, requires_grad=True)
    b = tl.tensor([3.0, 4.0], dtype=tl.float64, requires_grad=True)
    out = tl.ops.scale_ops.muladd(a, b, 0.5)
    assert out.tolist() == [3.5, -7.5]
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 4.0] and b.grad.tolist() == [1.0, -2.0]
    assert tl.ops.scale_ops.muladd(tl.empty(2, 3, device="meta"), tl.empty(3, device="meta"), 1.0).shape == (2, 3)
    # m.def(schema, fn): the schema as written, defaults and optionals included.
    pos, neg = tl.ops.scale_ops.split_sign(tl.tensor([1.0, -2.0]))
    assert pos.tolist() == [1.0, 0.0] and neg.tolist() == [0.0, 2.0]
    pos, neg = tl.ops.scale_ops.split_sign(tl.tensor([1.0, -2.0]), scale=tl.tensor(3.0))
    assert pos.tolist() == [3.0, 0.0] and neg.tolist() == [0.0, 6.0]
    with pytest.raises(TypeError, match="muladd.*missing required argument '_2'"):
        tl.ops.scale_ops.muladd(a, b)


def test_kernel_signature_that_does_not_match_its_schema(tmp_path):
    with pytest.raises(RuntimeError, match=r"(?s)failed to register.*signature .*int64_t.* does not match the schema"):
        ce.load("bad_signature_ext", [os.path.join(HERE, "extensions", "bad_signature.cpp")],
                build_directory=str(tmp_path), is_python_module=False)
    # the failed TORCH_LIBRARY_IMPL block registered nothing; the schema's block stands
    with pytest.raises(NotImplementedError, match="Could not run 'bad_signature_ops::wrong'"):
        tl.ops.bad_signature_ops.wrong(tl.ones(1), 2.0)
