"""The generated code is split by layer (issue 9 §1): per operator group a
functor header and a CPU kernel file, and registration, autograd and Python
bindings each in a fixed number of shards. These tests check the properties
that split is for:

- editing one YAML entry recompiles at most four generated sources (its
  kernel file and one shard per layer): the generator runs twice into a
  temporary folder, and the sources that include a changed file are counted;
- only Python binding files reach Python.h, through any include chain;
- the file count per sharded layer stays fixed as operators are added;
- on the real build (when there is one), ninja's dependency log agrees.
"""
import os
import re
import shutil
import subprocess

import pytest

from codegen.dest.common import NUM_SHARDS
from codegen.gen import generate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CSRC = os.path.join(ROOT, "csrc")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def read(p):
    with open(p) as fh:
        return fh.read()


def sources(out):
    return [s for kind in ("core", "python") for s in read(os.path.join(out, f"sources_{kind}.txt")).split()]


class Includes:
    """Transitive #include closure over the generated folder and csrc/, as
    the compiler resolves them (-Icsrc -I<generated>, quotes also next to the file)."""

    def __init__(self, out):
        self.roots, self.memo = [CSRC, str(out)], {}

    def resolve(self, name, here, quoted):
        dirs = ([os.path.dirname(here)] if quoted else []) + self.roots
        for d in dirs:
            p = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(p):
                return p
        return None  # a system header

    def closure(self, path):
        if path in self.memo:
            return self.memo[path]
        self.memo[path] = seen = set()
        for quote, name in INCLUDE.findall(read(path)):
            p = self.resolve(name, path, quote == '"')
            seen.add(p or "system:" + name)
            if p:
                seen |= self.closure(p)
        return seen


def affected_sources(out, changed):
    """Generated sources that are, or include, a changed file."""
    inc, changed = Includes(out), {os.path.normpath(p) for p in changed}
    return sorted(os.path.relpath(s, out) for s in sources(out)
                  if os.path.normpath(s) in changed or inc.closure(s) & changed)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """The real YAML generated once; each test edits a copy and regenerates over a copy of the output."""
    d = tmp_path_factory.mktemp("layers")
    yaml = d / "native_functions.yaml"
    shutil.copy(os.path.join(ROOT, "native_functions.yaml"), yaml)
    generate(str(yaml), str(d / "gen"), None)
    return d


def regenerate_with(baseline, tmp_path, old, new):
    yaml = tmp_path / "native_functions.yaml"
    text = read(baseline / "native_functions.yaml")
    assert text.count(old) == 1, old
    yaml.write_text(text.replace(old, new))
    out = tmp_path / "gen"
    shutil.copytree(baseline / "gen", out)
    # Sources lists name absolute paths: point them at the copy.
    for kind in ("core", "python"):
        p = out / f"sources_{kind}.txt"
        p.write_text(read(p).replace(str(baseline / "gen"), str(out)))
    return out, generate(str(yaml), str(out), None)


EDITS = {
    # a pointwise formula: only the group's functor header changes, so only its CPU kernel file recompiles
    "pointwise_formula": ('expr: "hypot(self, other)"', 'expr: "sqrt(other * other + self * self)"',
                          ["kernels/cpu/hypot.cpp"]),
    "pointwise_promotion": ('''    expr: "hypot(self, other)"      # scaled: no overflow in the squares
    dtypes: floating
''', '''    expr: "hypot(self, other)"      # scaled: no overflow in the squares
    dtypes: floating
    promote: int_to_float
''', None),
    "derivative_formula": ('    self: "grad * self / result"\n    other: "grad * other / result"',
                           '    self: "self * grad / result"\n    other: "grad * other / result"', None),
    "schema_default": ("func: hypot(Tensor self, Tensor other) -> Tensor",
                       "func: hypot(Tensor self, Tensor other, *, Scalar unused=1) -> Tensor", None),
    "dispatch_kernel": ("dispatch: {CPU: mm_cpu, Meta: mm_meta}", "dispatch: {CPU: mm_cpu_v2, Meta: mm_meta}", None),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_one_yaml_edit_recompiles_at_most_four_sources(baseline, tmp_path, edit):
    old, new, expected = EDITS[edit]
    if old not in read(baseline / "native_functions.yaml"):
        pytest.skip(f"the YAML no longer has {old!r}")
    out, changed = regenerate_with(baseline, tmp_path, old, new)
    changed = [p for p in changed if not p.endswith(".txt")]
    assert changed, "the edit changed no generated file"
    affected = affected_sources(out, changed)
    assert 1 <= len(affected) <= 4, affected
    if edit == "dispatch_kernel":
        # ops/mm.h declares the renamed native kernel, so the shards of groups whose
        # code calls mm (an autograd formula) recompile too; still within four.
        return
    # Otherwise at most one file per layer kind.
    kinds = [a.split(os.sep)[0] if not a.startswith(os.path.join("kernels", "cpu")) else "kernels/cpu"
             for a in affected]
    assert len(kinds) == len(set(kinds)), affected
    if expected:
        assert affected == [os.path.normpath(e) for e in expected]


def test_no_python_header_outside_python_bindings(baseline):
    out = baseline / "gen"
    inc = Includes(out)
    core = read(out / "sources_core.txt").split()
    headers = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs if f.endswith(".h")]
    assert any("/kernels/cpu/" in s for s in core) and any("/functors/" in h for h in headers)
    for f in core + headers:
        if os.path.basename(f) in ("TensorBody.h", "Functions.h"):
            continue
        bad = {h for h in inc.closure(f) if h.endswith(("Python.h", "PythonArgParser.h", "python/Objects.h"))}
        assert not bad, (f, bad)
    # The functor headers are host/device code over tl_math only.
    for h in headers:
        if "/functors/" in h:
            assert {n for _, n in INCLUDE.findall(read(h))} == {"aten/native/Math.h"}, h
    # And the Python bindings do use it (the check above would pass vacuously otherwise).
    py = read(out / "sources_python.txt").split()
    assert py and all(any(h.endswith("Python.h") for h in inc.closure(s)) for s in py if "shard" in s)


def test_shard_count_is_fixed_as_operators_grow(baseline, tmp_path):
    def count(out):
        return {layer: len(os.listdir(out / layer)) for layer in ("registration", "autograd")} | \
               {"python": len([f for f in os.listdir(out / "python") if f.startswith("shard")])}
    assert count(baseline / "gen") == {"registration": NUM_SHARDS, "autograd": NUM_SHARDS, "python": NUM_SHARDS}
    yaml = tmp_path / "native_functions.yaml"
    extra = "".join(f"""
- func: grow_{i}(Tensor self, Tensor other) -> Tensor
  variants: [function, method]
  pointwise:
    expr: "self * other + {i}"
    dtypes: all
  derivatives:
    self: "grad * other"
    other: "grad * self"
""" for i in range(60))
    yaml.write_text(read(baseline / "native_functions.yaml") + extra)
    generate(str(yaml), str(tmp_path / "gen"), None)
    assert count(tmp_path / "gen") == count(baseline / "gen")
    # Kernel files grow with pointwise groups, one per group.
    assert len(os.listdir(tmp_path / "gen" / "kernels" / "cpu")) == len(os.listdir(baseline / "gen" / "kernels" / "cpu")) + 60


def test_shard_choice_is_a_stable_hash():
    """zlib.crc32, not Python's salted hash(): a group keeps its shard across runs and machines."""
    from codegen.dest.common import shard_of
    assert [shard_of("aten", b, 8) for b in ("add", "mul", "matmul", "sum")] == \
           [__import__("zlib").crc32(f"aten::{b}".encode()) % 8 for b in ("add", "mul", "matmul", "sum")]


# ------------------------------------------------------------------ the real build


def _ninja_deps():
    """{object basename: every header it was compiled with}, from ninja's
    dependency log. A precompiled header's own headers are not in the
    object's depfile, so they are added from the .gch's (build.ninja names
    the .gch an object was built with as an implicit input)."""
    build = os.path.join(ROOT, "build", "ninja")
    ninja = shutil.which("ninja")
    if not ninja or not os.path.exists(os.path.join(build, ".ninja_deps")):
        return None
    out = subprocess.run([ninja, "-C", build, "-t", "deps"], capture_output=True, text=True).stdout
    deps, cur = {}, None
    for line in out.splitlines():
        if line and not line[0].isspace() and ": #deps" in line:
            cur = line.split(": #deps")[0]
            deps[cur] = []
        elif line.strip() and cur is not None:
            deps[cur].append(line.strip())
    gch_of = dict(re.findall(r"^build (\S+): cxx_pch_\w+ \S+ \| (\S+)$", read(os.path.join(build, "build.ninja")), re.M))
    return {os.path.basename(o): hs + deps.get(gch_of.get(o), []) for o, hs in deps.items()}


@pytest.mark.skipif(_ninja_deps() is None, reason="no ninja build folder (not an in-place build)")
def test_real_build_keeps_python_out_of_core_objects():
    """From ninja's dependency log: the compiled kernel, registration and
    autograd objects (their precompiled header included) never saw Python.h."""
    deps = _ninja_deps()
    core = {o: hs for o, hs in deps.items()
            if o.startswith(("build_generated_kernels_", "build_generated_registration_",
                             "build_generated_autograd_", "build_generated_RegisterAll"))}
    assert any(o.startswith("build_generated_kernels_cpu_") for o in core), sorted(deps)[:20]
    assert len([o for o in core if o.startswith("build_generated_registration_")]) == NUM_SHARDS
    for o, hs in core.items():
        assert not [h for h in hs if h.endswith(("/Python.h", "PythonArgParser.h"))], o
    py = [o for o in deps if o.startswith("build_generated_python_shard")]
    assert len(py) == NUM_SHARDS and all(any(h.endswith("/Python.h") for h in deps[o]) for o in py)
