"""docs/cpp_extension.md is built and run: every block marked
`<!-- file: NAME -->` is written to NAME in a fresh folder, and every block
marked `<!-- step -->` is executed there, in order, in one namespace, so the
walk-through's claims (values, errors, schemas, gradients) are checked by its
own asserts."""
import os
import re
import shutil
import sys

import pytest

from torchlike.utils import cpp_extension as ce

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "cpp_extension.md")
BLOCK = re.compile(r"<!-- (file: (?P<name>[\w.]+)|step) -->\n```(?P<lang>\w+)\n(?P<code>.*?)\n```", re.S)

try:
    import pybind11  # noqa: F401
except ImportError:
    pybind11 = None


def blocks():
    with open(DOC) as fh:
        text = fh.read()
    return [(m.group("name"), m.group("lang"), m.group("code")) for m in BLOCK.finditer(text)]


def test_the_doc_has_its_examples():
    got = blocks()
    files = [n for n, _, _ in got if n]
    steps = [c for n, _, c in got if not n]
    assert files == ["muladd.cpp", "mylib_ops.cpp", "setup.py"]
    assert len(steps) >= 6 and all("assert" in s for s in steps)


@pytest.mark.skipif(shutil.which(ce.get_cxx_compiler()) is None or not ce.is_ninja_available() or pybind11 is None,
                    reason="needs a C++ compiler, ninja and pybind11")
def test_walkthrough_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    ns = {"__name__": "cpp_extension_doc"}
    for i, (name, lang, code) in enumerate(blocks()):
        if name:
            (tmp_path / name).write_text(code + "\n")
            continue
        assert lang == "python"
        exec(compile(code, f"{DOC} (block {i})", "exec"), ns)
    sys.modules.pop("muladd_pkg", None)
