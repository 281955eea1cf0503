"""A plain C++ program (no Python) built against the installed headers and
libtorchlike.so, through torchlike.utils.cpp_extension: the core library must
register its operators by itself when loaded, and the public headers must be
self-contained under include_paths()."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from torchlike.utils import cpp_extension

PROGRAM = r"""
#include <cstdio>
#include <exception>

#include "aten/ATen.h"

static void print_tensor(const char* name, const at::Tensor& t) {
  at::Tensor c = t.contiguous();
  std::printf("%s", name);
  for (int64_t i = 0; i < c.numel(); ++i) std::printf(" %.17g", c.data_ptr<double>()[i]);
  std::printf("\n");
}

int main() {
  at::Tensor a = at::arange(6, at::kDouble).view({2, 3});      // [[0 1 2] [3 4 5]]
  at::Tensor b = at::arange(12, at::kDouble).view({3, 4}) * 0.5 + at::ones({3, 4}, at::kDouble);
  at::Tensor z = at::zeros({2, 4}, at::kDouble);
  at::Tensor c = a.matmul(b) + z;
  at::Tensor s = a.matmul(b).sum();
  print_tensor("a", a);
  print_tensor("b", b);
  print_tensor("c", c);
  print_tensor("s", s);
  std::printf("c_sizes %lld %lld\n", (long long)c.sizes()[0], (long long)c.sizes()[1]);
  // A bad call reports a C++ exception across the library boundary, not a crash.
  try {
    a.matmul(a);
    std::printf("mismatch_not_caught\n");
  } catch (const std::exception& e) {
    std::printf("error %s\n", e.what());
  }
  return 0;
}
"""


def _compiler():
    for name in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        if name and shutil.which(name.split()[0]):
            return name.split()
    return None


def _values(lines, name):
    for line in lines:
        if line.split(" ", 1)[0] == name:
            return line.split()[1:]
    raise AssertionError(f"program printed no '{name}' line: {lines}")


def test_include_and_library_paths():
    inc, = cpp_extension.include_paths()
    lib, = cpp_extension.library_paths()
    assert os.path.isfile(os.path.join(inc, "aten", "ATen.h"))
    assert os.path.isfile(os.path.join(inc, "Functions.h"))  # generated headers sit in the same root
    assert os.path.isfile(os.path.join(lib, "libtorchlike.so"))
    assert cpp_extension.include_paths(torch_include_dirs=False) == []
    with pytest.raises(ValueError, match="device_type 'xpu'"):
        cpp_extension.include_paths("xpu")


def test_installed_headers_use_root_relative_includes():
    """An installed header names others relative to the include root (or beside
    it), never by a source-tree path."""
    inc, = cpp_extension.include_paths()
    bad = []
    for dirpath, _, files in os.walk(inc):
        for f in files:
            path = os.path.join(dirpath, f)
            with open(path) as fh:
                for line in fh:
                    if not line.startswith("#include \""):
                        continue
                    target = line.split('"')[1]
                    if not (os.path.isfile(os.path.join(inc, target))
                            or os.path.isfile(os.path.join(dirpath, target))):
                        bad.append(f"{os.path.relpath(path, inc)}: {line.strip()}")
    assert not bad, bad[:10]


def test_plain_cpp_program(tmp_path):
    cxx = _compiler()
    if cxx is None:
        pytest.skip("no C++ compiler found (tried $CXX, g++, c++, clang++)")
    inc, = cpp_extension.include_paths()
    lib, = cpp_extension.library_paths()
    src = tmp_path / "prog.cpp"
    src.write_text(PROGRAM)
    exe = tmp_path / "prog"
    # -O0: one compile of the whole API header in a few seconds. No Python
    # include or library on the line: the program needs none.
    cmd = cxx + ["-std=c++17", "-O0", "-o", str(exe), str(src), f"-I{inc}", f"-L{lib}", "-ltorchlike",
                 f"-Wl,-rpath,{lib}"]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, f"{' '.join(cmd)}\n{build.stderr[-4000:]}"
    # An environment with no Python in it: the program must not need one.
    env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()

    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    b = np.arange(12, dtype=np.float64).reshape(3, 4) * 0.5 + 1
    c = a @ b
    np.testing.assert_array_equal(np.array(_values(lines, "a"), float), a.ravel())
    np.testing.assert_array_equal(np.array(_values(lines, "b"), float), b.ravel())
    np.testing.assert_allclose(np.array(_values(lines, "c"), float), c.ravel(), rtol=1e-12)
    np.testing.assert_allclose(float(_values(lines, "s")[0]), c.sum(), rtol=1e-12)
    assert _values(lines, "c_sizes") == ["2", "4"]
    err = " ".join(_values(lines, "error"))
    assert "cannot be multiplied (2x3 and 2x3)" in err, err
    assert "mismatch_not_caught" not in run.stdout


def test_core_library_has_no_python_dependency():
    """libtorchlike.so references no Python symbol and needs no libpython."""
    lib, = cpp_extension.library_paths()
    so = os.path.join(lib, "libtorchlike.so")
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) found")
    undefined = subprocess.run([nm, "-D", "--undefined-only", so], capture_output=True, text=True, check=True).stdout
    py = [line for line in undefined.splitlines() if line.split()[-1].startswith(("Py", "_Py"))]
    assert not py, py[:10]
    readelf = shutil.which("readelf")
    if readelf:
        dyn = subprocess.run([readelf, "-d", so], capture_output=True, text=True, check=True).stdout
        assert "libpython" not in dyn
