"""An extension's own operator YAML: cpp_extension.load(..., functions_yaml=...)
runs torchlike's generator on it (the core's YAML read for names only), builds
the generated kernels, registration, autograd and autocast with the
extension's sources, and registers the operators when the library loads.

The extension is tests/extensions/yaml_ops.yaml (+ yaml_ops.cpp): soft_clip,
a pointwise op written as one expr with a derivative and an autocast policy,
and reverse_cumsum, a hand-written CPU kernel named in `dispatch:`. Also here:
the error paths (YAML errors with file:line, an operator defined twice, a
named kernel that no source defines), the incremental rebuild after editing
one entry, the CUDA shard compiled where nvcc exists, and the workflow from
an installed wheel in a fresh virtual environment."""
import os
import re
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
ROOT = os.path.dirname(HERE)
EXT_DIR = os.path.join(HERE, "extensions")
YAML = os.path.join(EXT_DIR, "yaml_ops.yaml")
CPP = os.path.join(EXT_DIR, "yaml_ops.cpp")

try:
    import jinja2  # noqa: F401
    import pybind11  # noqa: F401
    import yaml  # noqa: F401
    have_deps = True
except ImportError:
    have_deps = False
pytestmark = pytest.mark.skipif(shutil.which(ce.get_cxx_compiler()) is None or not ce.is_ninja_available()
                                or not have_deps, reason="needs a C++ compiler, ninja, pybind11, jinja2, pyyaml")

from codegen.model import CodegenError  # noqa: E402  (after the skip: needs pyyaml)


def shared_build_dir(tmp_path_factory, name):
    """One build folder for every xdist worker of this session (the session's
    temporary root): the first worker builds, the others wait on the build
    folder's lock and find nothing to do, instead of each building again."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    path = root / name
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    build = shared_build_dir(tmp_path_factory, "yamlops_build")
    t0 = time.perf_counter()
    ns = ce.load("yamlops_ext", [CPP], functions_yaml=YAML, build_directory=str(build))
    ns.cold_seconds = time.perf_counter() - t0
    ns.build_dir = str(build)
    return ns


def np_soft_clip(x, limit=1.0):
    return limit * x / (limit + np.abs(x))


def np_reverse_cumsum(x):
    return np.flip(np.cumsum(np.flip(x, -1), -1), -1)


# ---------------------------------------------------------------- the generator's context namespaces

def test_context_namespace_generates_nothing_of_its_own(tmp_path):
    """An extension generated with the core as context only is the same text as
    when both are generated together, and no core file is written."""
    from codegen.gen import generate, main
    core, myext = os.path.join(ROOT, "native_functions.yaml"), os.path.join(HERE, "myext_functions.yaml")
    generate([core, myext], str(tmp_path / "both"), None)
    generate([myext], str(tmp_path / "ctx"), None, context=[core])
    ctx_files = {os.path.relpath(os.path.join(d, f), tmp_path / "ctx")
                 for d, _, fs in os.walk(tmp_path / "ctx") for f in fs}
    assert {f for f in ctx_files if not f.startswith("myext" + os.sep)} == {
        "sources_core.txt", "sources_python.txt", "sources_cuda.txt"}
    for f in ctx_files - {"sources_core.txt", "sources_python.txt", "sources_cuda.txt"}:
        assert (tmp_path / "ctx" / f).read_text() == (tmp_path / "both" / f).read_text(), f
    # Fewer shards per layer: one file per layer; the command line takes both options.
    assert main(["--yaml", myext, "--context", core, "--shards", "1", "--out", str(tmp_path / "one")]) == 0
    assert sorted(os.listdir(tmp_path / "one" / "myext" / "registration")) == ["shard0.cpp"]
    with pytest.raises(CodegenError, match="both generated and given as context"):
        generate([myext], str(tmp_path / "x"), None, context=[myext])


# ---------------------------------------------------------------- the operators

def test_load_returns_the_namespace_and_ops_are_dispatcher_ops(ext):
    assert ext is tl.ops.yamlops  # no PYBIND11_MODULE in the sources: the operators are the interface
    assert str(tl.ops.yamlops.soft_clip.default._schema) == "yamlops::soft_clip(Tensor self, *, Scalar limit=1) -> Tensor"
    assert str(tl.ops.yamlops.reverse_cumsum.default._schema) == \
        "yamlops::reverse_cumsum(Tensor self) -> Tensor"
    # The pointwise entry's generated in-place and out= variants are operators too.
    assert "Tensor(a!) out" in str(tl.ops.yamlops.soft_clip.out._schema)
    assert tl.ops.yamlops.soft_clip_.default._schema is not None


@pytest.mark.parametrize("dtype,tol", [(tl.float32, 1e-6), (tl.float64, 1e-12), (tl.float16, 2e-3),
                                       (tl.bfloat16, 1e-2)])
def test_soft_clip_matches_numpy(ext, dtype, tol):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5)) * 3
    x = tl.tensor(a).to(dtype)
    ref = np.asarray(x.to(tl.float64).numpy())
    for limit in (1, 0.5):
        out = ext.soft_clip(x, limit=limit)
        assert out.dtype == dtype and out.shape == (3, 5)
        np.testing.assert_allclose(out.to(tl.float64).numpy(), np_soft_clip(ref, limit), rtol=tol, atol=tol)
    # In place, and an integer input promoted to the default float dtype. (The
    # out= overload is registered, see above; torchlike.ops' boxed call of
    # out= overloads is broken for core ops too, aten.add.out included.)
    y = x.clone()
    ext.soft_clip_(y)
    np.testing.assert_allclose(y.to(tl.float64).numpy(), np_soft_clip(ref), rtol=tol, atol=tol)
    r = ext.soft_clip(tl.tensor([-3, 0, 4]))
    assert r.dtype == tl.float32
    np.testing.assert_allclose(r.numpy(), np_soft_clip(np.array([-3.0, 0.0, 4.0])), rtol=1e-6)


@pytest.mark.parametrize("dtype,tol", [(tl.float32, 1e-5), (tl.float64, 1e-12), (tl.float16, 1e-2),
                                       (tl.bfloat16, 5e-2)])
def test_reverse_cumsum_matches_numpy(ext, dtype, tol):
    rng = np.random.default_rng(1)
    x = tl.tensor(rng.standard_normal((2, 3, 7))).to(dtype)
    ref = np_reverse_cumsum(x.to(tl.float64).numpy())
    out = ext.reverse_cumsum(x)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.to(tl.float64).numpy(), ref, rtol=tol, atol=tol)
    # A non-contiguous input (the kernel makes it contiguous) and an empty one.
    xt = tl.tensor(rng.standard_normal((7, 4))).to(dtype).t()
    np.testing.assert_allclose(ext.reverse_cumsum(xt).to(tl.float64).numpy(),
                               np_reverse_cumsum(xt.to(tl.float64).numpy()), rtol=tol, atol=tol)
    assert ext.reverse_cumsum(tl.empty(0, 3, dtype=dtype)).shape == (0, 3)


def test_meta_shapes(ext):
    x = tl.empty(4, 6, device="meta")
    assert ext.soft_clip(x).shape == (4, 6) and ext.soft_clip(x).device.type == "meta"
    assert ext.reverse_cumsum(x).shape == (4, 6) and ext.reverse_cumsum(x).device.type == "meta"


def test_gradcheck_float64(ext):
    rng = np.random.default_rng(2)
    x = tl.tensor(rng.standard_normal((3, 4)) * 2, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: ext.soft_clip(t, limit=1.5), (x,))
    assert tl.autograd.gradcheck(ext.reverse_cumsum, (x,))
    # The derivative formula is the YAML's: check it against the closed form too.
    ext.soft_clip(x, limit=2).sum().backward()
    a = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 4 / (2 + np.abs(a)) ** 2, rtol=1e-12)
    assert ext.soft_clip(x).grad_fn is not None


def test_autocast_policies_on_cpu(ext):
    x32 = tl.tensor([[0.5, -2.0, 3.0]])
    x16 = x32.to(tl.bfloat16)
    with tl.autocast("cpu", dtype=tl.bfloat16):
        # soft_clip: autocast {CPU: fp32}: runs in float32 whatever the input.
        assert ext.soft_clip(x16).dtype == tl.float32
        # reverse_cumsum: autocast {CPU: lower}: float32 inputs run in bfloat16.
        out = ext.reverse_cumsum(x32)
        assert out.dtype == tl.bfloat16
        np.testing.assert_allclose(out.to(tl.float32).numpy(), [[1.5, 1.0, 3.0]])
    assert ext.soft_clip(x16).dtype == tl.bfloat16  # outside autocast: the input's dtype
    assert ext.reverse_cumsum(x32).dtype == tl.float32


def test_kernel_errors_reach_python(ext):
    with pytest.raises(RuntimeError, match="reverse_cumsum: expected a floating-point tensor, got Long"):
        ext.reverse_cumsum(tl.tensor([1, 2, 3]))
    with pytest.raises(TypeError):
        ext.soft_clip(tl.tensor([1.0]), 2)  # limit is keyword-only


# ---------------------------------------------------------------- error paths

def _bad(tmp_path, text, name="bad.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_yaml_errors_carry_file_and_line(tmp_path):
    build = str(tmp_path / "b")
    p = _bad(tmp_path, """\
        namespace: badops
        functions:
        - func: twice(Tensor self) -> Tensor
          pointwise:
            expr: "2 * self"
            dtypes: floatingg
        """)
    with pytest.raises(CodegenError, match=re.escape(p) + r":6: .*floatingg"):
        ce.load("badops_ext", [], functions_yaml=p, build_directory=build)
    p = _bad(tmp_path, """\
        namespace: badops
        functions:
        - func: twice(Tensor self) -> Tensor
          dispatch: {CPU: twice_cpu, Meta: twice_meta}
          derivatives:
            self: "grad * no_such_helper(self)"
        """, "b2.yaml")
    with pytest.raises(CodegenError, match=re.escape(p) + r":3: twice: .*no_such_helper"):
        ce.load("badops_ext", [], functions_yaml=p, build_directory=build)
    p = _bad(tmp_path, "namespace: badops\nfunctions:\n- func: twice(Tensor self -> Tensor\n", "b3.yaml")
    with pytest.raises(CodegenError, match=re.escape(p) + r":3: "):
        ce.load("badops_ext", [], functions_yaml=p, build_directory=build)
    p = _bad(tmp_path, "namespace: badops\nfunctions: [\n", "b4.yaml")
    with pytest.raises(CodegenError, match=re.escape(p) + r":\d+: YAML error"):
        ce.load("badops_ext", [], functions_yaml=p, build_directory=build)
    # A plain list is the core's (aten) format; an extension names its namespace.
    p = _bad(tmp_path, "- func: twice(Tensor self) -> Tensor\n  dispatch: {CompositeImplicitAutograd: twice}\n",
             "b5.yaml")
    with pytest.raises(CodegenError, match=re.escape(p) + r":1: an extension's YAML is a mapping"):
        ce.load("badops_ext", [], functions_yaml=p, build_directory=build)
    with pytest.raises(FileNotFoundError, match="functions_yaml not found"):
        ce.load("badops_ext", [], functions_yaml=str(tmp_path / "nope.yaml"), build_directory=build)
    with pytest.raises(ValueError, match="no sources given"):
        ce.load("badops_ext", [], build_directory=build)


def test_operator_already_defined(ext, tmp_path):
    # The same operators from a second extension: refused before anything is compiled.
    with pytest.raises(RuntimeError, match=r"yaml_ops.yaml:\d+: operator yamlops::soft_clip is already defined "
                                           r"by extension 'yamlops_ext'"):
        ce.load("yamlops_again", [CPP], functions_yaml=YAML, build_directory=str(tmp_path / "b"))
    assert not (tmp_path / "b" / "build.ninja").exists()
    # An operator that torchlike.library defined.
    lib = tl.library.Library("i14yaml_dup", "DEF")
    lib.define("taken(Tensor x) -> Tensor")
    p = _bad(tmp_path, """\
        namespace: i14yaml_dup
        functions:
        - func: taken(Tensor x) -> Tensor
          dispatch: {CompositeImplicitAutograd: taken}
        """)
    with pytest.raises(RuntimeError, match=re.escape(p) + r":3: operator i14yaml_dup::taken is already defined;"):
        ce.load("dup_ext", [], functions_yaml=p, build_directory=str(tmp_path / "c"))


def test_missing_hand_written_kernel(ext, tmp_path):
    """The YAML names reverse_cumsum_cpu but the source does not define it:
    the load names the kernel, the YAML entry and the expected declaration.
    Built in the fixture's folder, so only the source is recompiled."""
    src = tmp_path / "no_kernel.cpp"
    with open(CPP) as fh:
        text = fh.read()
    src.write_text(text.replace("at::TensorBase reverse_cumsum_cpu(", "at::TensorBase reverse_cumsum_elsewhere("))
    with pytest.raises(RuntimeError, match=r"extension 'yamlops_ext': .*yaml_ops.yaml:\d+: yamlops::reverse_cumsum "
                                           r"names the CPU kernel 'reverse_cumsum_cpu', but no source defines "
                                           r"yamlops::native::reverse_cumsum_cpu with the signature declared in "
                                           r"yamlops/ops/reverse_cumsum.h"):
        ce.load("yamlops_ext", [str(src)], functions_yaml=YAML, build_directory=ext.build_dir)
    # The loaded operators are untouched.
    np.testing.assert_allclose(ext.reverse_cumsum(tl.tensor([1.0, 2.0])).numpy(), [3.0, 2.0])


# ---------------------------------------------------------------- rebuilds

EDIT_YAML = """\
namespace: yamledit
functions:
- func: shifted(Tensor self, *, Scalar by=1) -> Tensor
  tags: [pointwise]
  pointwise:
    expr: "self + by"
    dtypes: floating
  derivatives:
    self: "grad"
- func: scaled(Tensor self) -> Tensor
  tags: [pointwise]
  pointwise:
    expr: "self * 3"
    dtypes: floating
  derivatives:
    self: "grad * 3"
"""


def _rebuilt(build_dir, since):
    """Outputs ninja (re)built after `since` (its log's start times are relative; use the file times)."""
    out = set()
    for f in os.listdir(build_dir):
        if f.endswith((".o", ".so")) and os.path.getmtime(os.path.join(build_dir, f)) > since:
            out.add(f)
    return out


def test_editing_one_entry_rebuilds_only_its_kernel(tmp_path):
    """Through load_inline, which takes the YAML as text (written to
    functions.yaml in the build folder)."""
    build = tmp_path / "b"

    def load(text):
        return ce.load_inline("yamledit_ext", "", functions_yaml=text, no_implicit_headers=True,
                              build_directory=str(build))

    ops = load(EDIT_YAML)
    assert (build / "functions.yaml").read_text() == EDIT_YAML
    x = tl.tensor([1.0, 2.0])
    np.testing.assert_allclose(ops.shifted(x).numpy(), [2.0, 3.0])
    # Loading again unchanged rebuilds nothing.
    t = time.time()
    time.sleep(0.01)
    load(EDIT_YAML)
    assert _rebuilt(build, t) == set()
    # Edit one entry's expr: only its kernel file recompiles, then the link.
    t = time.time()
    time.sleep(0.01)
    ops = load(EDIT_YAML.replace('expr: "self + by"', 'expr: "self + 2 * by"'))
    rebuilt = _rebuilt(build, t)
    assert {f for f in rebuilt if f.endswith(".o")} == {"shifted.o"}, rebuilt
    assert any(f.endswith(".so") for f in rebuilt)
    np.testing.assert_allclose(ops.shifted(x).numpy(), [3.0, 4.0])  # the new kernel is the one dispatched
    np.testing.assert_allclose(ops.scaled(x).numpy(), [3.0, 6.0])


@pytest.mark.skipif(ce.CUDA_HOME is None, reason="needs nvcc")
def test_cuda_kernels_compile_where_nvcc_exists(tmp_path, monkeypatch):
    """with_cuda=True also compiles the generated CUDA shard of the pointwise
    op (linked where libtorchlike_cuda.so exists; compiled only otherwise)."""
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "9.0")
    y = tmp_path / "cu.yaml"
    y.write_text(EDIT_YAML.replace("yamledit", "yamlcuda").split("- func: scaled")[0])
    build = tmp_path / "b"
    ops = ce.load("yamlcuda_ext", [], functions_yaml=str(y), build_directory=str(build), with_cuda=True)
    assert any(f.endswith(".cuda.o") for f in os.listdir(build))
    np.testing.assert_allclose(ops.shifted(tl.tensor([1.0])).numpy(), [2.0])


# ---------------------------------------------------------------- from an installed wheel

WHEEL_SCRIPT = """\
import os, sys, time
import numpy as np
import torchlike as tl
import codegen
from torchlike.utils import cpp_extension as ce
venv = sys.prefix
assert tl.__file__.startswith(venv), tl.__file__
assert codegen.__file__.startswith(venv), codegen.__file__
assert os.path.isfile(os.path.join(os.path.dirname(tl.__file__), "native_functions.yaml"))
t = time.perf_counter()
ops = ce.load("yamlops_wheel", [sys.argv[1]], functions_yaml=sys.argv[2], build_directory=sys.argv[3])
x = tl.tensor([[-2.0, 0.5, 3.0]], dtype=tl.float64, requires_grad=True)
np.testing.assert_allclose(ops.soft_clip(x).detach().numpy(), [[-2 / 3, 1 / 3, 0.75]])
np.testing.assert_allclose(ops.reverse_cumsum(x).detach().numpy(), [[1.5, 3.5, 3.0]])
assert tl.autograd.gradcheck(ops.soft_clip, (x,))
with tl.autocast("cpu", dtype=tl.bfloat16):
    assert ops.reverse_cumsum(x.detach().float()).dtype == tl.bfloat16
print("WHEEL-OK", tl.__file__, round(time.perf_counter() - t, 1))
"""


@pytest.mark.skipif(not os.path.isfile(os.path.join(ROOT, "build", "ninja", "libtorchlike.so")),
                    reason="needs the ninja build folder of this checkout")
def test_workflow_from_an_installed_wheel(tmp_path):
    """Packages the built libraries as a wheel (TORCHLIKE_PREBUILT=1: no
    rebuild), installs it into a fresh venv and builds the extension there,
    from a folder outside the source tree."""
    t0 = time.perf_counter()
    wheels = tmp_path / "wheels"
    env = dict(os.environ, TORCHLIKE_PREBUILT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
                        "-w", str(wheels), ROOT], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    wheel, = wheels.glob("torchlike-*.whl")
    venv = tmp_path / "venv"
    # System site-packages for numpy, jinja2, pyyaml, ninja and pybind11; the venv's own
    # site-packages come first, so torchlike and codegen are the wheel's (checked in the script).
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    r = subprocess.run([py, "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    work = tmp_path / "outside"
    work.mkdir()
    (work / "check.py").write_text(WHEEL_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TORCHLIKE_PREBUILT")}
    r = subprocess.run([py, "check.py", CPP, YAML, str(tmp_path / "extbuild")], capture_output=True, text=True,
                       cwd=str(work), env=env)
    assert r.returncode == 0 and "WHEEL-OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    assert str(venv) in r.stdout
    print(f"wheel build + venv + extension build: {time.perf_counter() - t0:.1f} s")


# ---------------------------------------------------------------- docs/adding_an_operator.md

DOC = os.path.join(ROOT, "docs", "adding_an_operator.md")


def doc_examples():
    """{example name: [(language, code)]} from the doc's marked code blocks."""
    with open(DOC) as fh:
        text = fh.read()
    out = {}
    for name, lang, code in re.findall(r"<!-- example: (\w+) -->\s*```(\w+)\n(.*?)```", text, flags=re.S):
        out.setdefault(name, []).append((lang, code))
    return out


def test_doc_marks_every_example():
    assert set(doc_examples()) == {"pointwise", "derivative", "autocast", "kernel", "composite", "extension"}


def write_if_changed(path, text):
    """Another worker may be building from the same folder: an unchanged file keeps its time."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


@pytest.fixture(scope="module")
def doc_core_ops(tmp_path_factory):
    """The examples written for torchlike's own native_functions.yaml, built as
    one extension namespace: their YAML entries under `functions:`, their C++
    with at::native and "ops/..." moved to that namespace."""
    d = shared_build_dir(tmp_path_factory, "doc_core")
    examples = doc_examples()
    entries, sources = [], []
    for name in ("pointwise", "derivative", "autocast", "kernel", "composite"):
        for i, (lang, code) in enumerate(examples[name]):
            if lang == "yaml":
                entries.append(code)
            elif lang == "cpp":
                src = d / f"{name}_{i}.cpp"
                write_if_changed(src, code.replace("at::native", "docex::native").replace('"ops/', '"docex/ops/'))
                sources.append(str(src))
    write_if_changed(d / "docex.yaml", "namespace: docex\nfunctions:\n" + "\n".join(entries))
    return ce.load("docex_ext", sources, functions_yaml=str(d / "docex.yaml"), build_directory=str(d / "build"))


def test_doc_pointwise_example(doc_core_ops):
    a = np.array([[-3.0, 0.0, 0.5], [2.0, -1.0, 8.0]])
    x = tl.tensor(a, dtype=tl.float32)
    np.testing.assert_allclose(doc_core_ops.softsign_scaled(x, scale=2).numpy(), 2 * a / (1 + np.abs(a)), rtol=1e-6)
    assert doc_core_ops.softsign_scaled(tl.tensor([1, 2])).dtype == tl.float32  # promote: int_to_float
    y = x.clone()
    doc_core_ops.softsign_scaled_(y)  # the generated in-place variant
    np.testing.assert_allclose(y.numpy(), a / (1 + np.abs(a)), rtol=1e-6)
    # No derivatives: backward raises, naming the operator.
    out = doc_core_ops.softsign_scaled(tl.tensor(a, requires_grad=True))
    with pytest.raises(RuntimeError, match="softsign_scaled"):
        out.sum().backward()


def test_doc_derivative_example(doc_core_ops):
    x = tl.tensor([[0.3, -1.2], [0.0, 0.7]], dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: doc_core_ops.exp_scaled(t, scale=0.5), (x,))
    np.testing.assert_allclose(doc_core_ops.exp_scaled(x, scale=2).detach().numpy(), np.exp(2 * x.detach().numpy()))


def test_doc_autocast_example(doc_core_ops):
    x = tl.tensor([0.5, -2.0, 30.0])
    with tl.autocast("cpu", dtype=tl.bfloat16):
        out = doc_core_ops.log1p_abs(x.to(tl.bfloat16))
    assert out.dtype == tl.float32
    np.testing.assert_allclose(out.numpy(), np.log1p(np.abs(x.to(tl.bfloat16).to(tl.float32).numpy())), rtol=1e-6)
    xd = tl.tensor([0.5, -2.0, 3.0], dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(doc_core_ops.log1p_abs, (xd,))


def test_doc_kernel_example(doc_core_ops):
    a = np.random.default_rng(3).standard_normal((2, 3, 5))
    for dtype, tol in ((tl.float32, 1e-6), (tl.float64, 0), (tl.bfloat16, 1e-2)):
        x = tl.tensor(a).to(dtype)
        ref = np.abs(x.to(tl.float64).numpy()).max(-1)
        out = doc_core_ops.row_absmax(x)
        assert out.dtype == dtype and out.shape == (2, 3)
        np.testing.assert_allclose(out.to(tl.float64).numpy(), ref, rtol=tol)
    assert doc_core_ops.row_absmax(tl.empty(4, 7, device="meta")).shape == (4,)
    with pytest.raises(RuntimeError, match="row_absmax: expected a non-empty last dimension"):
        doc_core_ops.row_absmax(tl.empty(3, 0))


def test_doc_composite_example(doc_core_ops):
    a, b = np.array([1.0, -2.0, 0.5]), np.array([0.3, 4.0, -1.0])
    out = doc_core_ops.mix(tl.tensor(a), tl.tensor(b), alpha=0.25)
    np.testing.assert_allclose(out.numpy(), 0.25 * a + 0.75 * np.tanh(b), rtol=1e-6)
    x = tl.tensor(a, dtype=tl.float64, requires_grad=True)
    y = tl.tensor(b, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda s, o: doc_core_ops.mix(s, o), (x, y))  # through the operators it calls
    assert doc_core_ops.mix(tl.empty(2, 3, device="meta"), tl.empty(3, device="meta")).shape == (2, 3)


def test_doc_extension_example(tmp_path, monkeypatch):
    """The extension example as a user runs it: my_ops.yaml and my_ops.cpp in
    the current folder, the Python block run there (JIT cache in tmp_path)."""
    blocks = dict((lang, code) for lang, code in doc_examples()["extension"])
    (tmp_path / "my_ops.yaml").write_text(blocks["yaml"])
    (tmp_path / "my_ops.cpp").write_text(blocks["cpp"])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "cache"))
    scope = {}
    exec(compile(blocks["python"], DOC, "exec"), scope)
    x = scope["x"]
    np.testing.assert_allclose(x.grad.numpy(), 4 / (2 + np.abs(x.detach().numpy())) ** 2, rtol=1e-5)
    np.testing.assert_allclose(scope["my_ops"].clip_unit(x * 3).detach().numpy(),
                               np.clip(3 * x.detach().numpy(), -1, 1))
