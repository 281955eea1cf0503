"""More than one YAML file, each in its own namespace (issue 9 §4): an
extension's operators get their own files, C++ namespaces, dispatcher names
and Python module, never colliding with the core's, and its derivative
formulas may call core operators. The extension here is
tests/myext_functions.yaml; one of its operators is named like a core one."""
import os
import re
import shutil
import subprocess
import sysconfig

import pytest

from codegen.dest.common import NUM_SHARDS, shard_of
from codegen.gen import generate, main
from codegen.model import CodegenError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = os.path.join(ROOT, "native_functions.yaml")
EXT = os.path.join(ROOT, "tests", "myext_functions.yaml")


def read(p):
    with open(p) as fh:
        return fh.read()


def files(out):
    return {os.path.relpath(os.path.join(d, f), out) for d, _, fs in os.walk(out) for f in fs}


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    d = tmp_path_factory.mktemp("ns")
    generate([CORE, EXT], str(d / "both"), None)
    generate(CORE, str(d / "core"), None)
    return d


def test_extension_files_live_in_their_own_folder(gen):
    both, core = files(gen / "both"), files(gen / "core")
    ext = both - core
    assert all(f.startswith("myext" + os.sep) for f in ext), sorted(ext)
    assert {"myext/ops/abs.h", "myext/functors/abs.h", "myext/kernels/cpu/abs.cpp",
            "myext/kernels/cpu/scaled_softsign.cpp", "myext/Functions.h", "myext/RegisterAll.cpp"} <= ext
    # The core's files are exactly what they are without the extension.
    for f in core - {"sources_core.txt", "sources_python.txt", "sources_cuda.txt"}:
        assert read(gen / "both" / f) == read(gen / "core" / f), f
    core_sources = read(gen / "both" / "sources_core.txt")
    assert str(gen / "both" / "myext" / "kernels" / "cpu" / "abs.cpp") in core_sources
    assert str(gen / "both" / "kernels" / "cpu" / "abs.cpp") in core_sources


def test_same_operator_name_does_not_collide(gen):
    ext_abs = read(gen / "both" / "myext" / "ops" / "abs.h")
    assert "namespace myext::_ops {" in ext_abs and "namespace at::" not in ext_abs
    functor = read(gen / "both" / "myext" / "functors" / "abs.h")
    assert "namespace tl_gen_myext {" in functor and "tl_math::abs ( self ) + 1" in functor
    reg = read(gen / "both" / "myext" / "registration" / f"shard{shard_of('myext', 'abs', NUM_SHARDS)}.cpp")
    assert 'd.registerSchema("myext::abs", "myext::abs(Tensor self) -> Tensor", 1, 1);' in reg
    assert "at::TensorBase myext::_ops::abs(const at::TensorBase& self)" in reg
    assert "aten::" not in reg
    # Registration and Python entry points carry the namespace.
    assert "void tl_register_all_generated_ops_myext()" in read(gen / "both" / "myext" / "RegisterAll.cpp")
    assert "void tl_register_all_generated_python_myext(" in read(gen / "both" / "myext" / "python" / "RegisterAll.cpp")
    py = read(gen / "both" / "myext" / "python" / f"shard{shard_of('myext', 'abs', NUM_SHARDS)}.cpp")
    assert 't.add("myext", false, "abs", ' in py and "myext::_ops::abs(" in py
    # In-place variants of an extension's pointwise op are functions of its module, not Tensor methods.
    assert 't.add("myext", false, "abs_", ' in py
    assert "inline at::Tensor abs(const at::Tensor& self)" in read(gen / "both" / "myext" / "Functions.h")


def test_extension_derivative_calls_core_operators(gen):
    ag = read(gen / "both" / "myext" / "autograd" / f"shard{shard_of('myext', 'scaled_softsign', NUM_SHARDS)}.cpp")
    assert '#include "ops/abs.h"' in ag  # the core's abs: core operators win a name clash
    assert "at::_ops::abs(self)" in ag
    assert "namespace at::_ops { using namespace ::myext::_ops; }" in ag


def test_include_paths_are_relative_to_the_include_root(gen):
    for f in files(gen / "both"):
        for inc in re.findall(r'#include\s*"([^"]+)"', read(gen / "both" / f)):
            assert not os.path.isabs(inc) and ".." not in inc.split("/"), (f, inc)
            assert os.path.exists(gen / "both" / inc) or os.path.exists(os.path.join(ROOT, "csrc", inc)), (f, inc)


@pytest.mark.skipif(shutil.which("g++") is None, reason="no g++")
def test_extension_sources_compile(gen):
    """Syntax-only: the autograd shard (core calls from extension formulas),
    a CPU kernel file and the C++ API header of the extension."""
    out = gen / "both"
    api = gen / "api.cpp"
    api.write_text('#include "myext/Functions.h"\n'
                   "at::Tensor f(const at::Tensor& t) { return myext::scaled_softsign(myext::abs(t), 3); }\n")
    srcs = [out / "myext" / "autograd" / f"shard{shard_of('myext', 'scaled_softsign', NUM_SHARDS)}.cpp",
            out / "myext" / "kernels" / "cpu" / "scaled_softsign.cpp", api]
    r = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-w", f"-I{ROOT}/csrc", f"-I{out}",
                        f"-I{sysconfig.get_paths()['include']}"] + [str(s) for s in srcs],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


def test_extension_rules(tmp_path):
    ext = tmp_path / "ext.yaml"
    ext.write_text("namespace: myext\nfunctions:\n- func: foo(Tensor self) -> Tensor\n"
                   "  variants: [function, method]\n  dispatch: {CompositeImplicitAutograd: foo}\n")
    with pytest.raises(CodegenError, match=f"{ext}:3: foo: a 'method' variant is only for the core"):
        generate([CORE, str(ext)], str(tmp_path / "gen"), None)
    ext.write_text("- func: foo(Tensor self) -> Tensor\n  dispatch: {CompositeImplicitAutograd: foo}\n")
    with pytest.raises(CodegenError, match="namespace 'aten' is already generated"):
        generate([CORE, str(ext)], str(tmp_path / "gen"), None)
    # The command line takes --yaml once per file.
    assert main(["--yaml", CORE, "--yaml", EXT, "--out", str(tmp_path / "cli")]) == 0
    assert (tmp_path / "cli" / "myext" / "ops" / "scaled_softsign.h").exists()
