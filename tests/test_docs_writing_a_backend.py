"""docs/writing_a_backend.md is the test backend's walk-through, checked two
ways: every C++ block marked `<!-- excerpt: FILE -->` must appear verbatim in
tests/extension_backend/FILE (so the doc shows the code that is built and
tested, and cannot drift from it), and every block marked `<!-- step -->` is
executed, in order and in one namespace, from the repository root, so the
walk-through's claims are checked by its own asserts."""
import gc
import os
import re
import shutil

import pytest

import torchlike as tl
from torchlike import _privateuse1
from torchlike.utils import cpp_extension as ce

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "writing_a_backend.md")
BACKEND = os.path.join(ROOT, "tests", "extension_backend")
BLOCK = re.compile(r"<!-- (excerpt: (?P<name>[\w.]+)|step) -->\n```(?P<lang>\w+)\n(?P<code>.*?)\n```", re.S)

try:
    import pybind11  # noqa: F401
except ImportError:
    pybind11 = None


def blocks():
    with open(DOC) as fh:
        text = fh.read()
    return [(m.group("name"), m.group("lang"), m.group("code")) for m in BLOCK.finditer(text)]


def test_excerpts_are_the_backend_source():
    got = blocks()
    excerpts = [(n, c) for n, _, c in got if n]
    # Every file of the backend is shown, and nothing from elsewhere.
    assert sorted({n for n, _ in excerpts}) == sorted(f for f in os.listdir(BACKEND) if f.endswith((".cpp", ".h")))
    for name, code in excerpts:
        with open(os.path.join(BACKEND, name)) as fh:
            source = fh.read()
        assert code in source, f"the excerpt of {name} starting {code.splitlines()[0]!r} is not in the file"
    steps = [c for n, _, c in got if not n]
    assert len(steps) >= 5 and all("assert" in s for s in steps)


@pytest.mark.skipif(shutil.which(ce.get_cxx_compiler()) is None or not ce.is_ninja_available() or pybind11 is None,
                    reason="needs a C++ compiler, ninja and pybind11")
def test_walkthrough_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    ns = {"__name__": "writing_a_backend_doc"}
    try:
        for i, (name, lang, code) in enumerate(blocks()):
            if name:
                continue
            assert lang == "python"
            exec(compile(code, f"{DOC} (block {i})", "exec"), ns)
    finally:
        ns.clear()
        gc.collect()
        # The same clean-up as tests/test_extension_backend.py: the process
        # goes back to having no PrivateUse1 backend.
        npu = ce.load("npu_backend", [os.path.join(BACKEND, f)
                                      for f in ("npu_device.cpp", "npu_ops.cpp", "npu_module.cpp")])
        npu.uninstall()
        _privateuse1._reset_privateuse1_backend_name()
    assert not tl._C._has_device_backend("privateuseone")
