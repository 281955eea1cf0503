"""Generates the operator layer from one or more native_functions.yaml files.

    python codegen/gen.py --yaml native_functions.yaml [--yaml ext.yaml ...] --out build/generated --pyi torchlike/_C

Each YAML file is one namespace. The core file is a plain list of entries
(namespace `aten`); an extension's file is a mapping

    namespace: myext
    functions:
      - func: myop(Tensor self) -> Tensor
        ...

Its operators are `myext::myop` in the dispatcher, `myext::_ops::myop` in
C++, `tl_gen_myext::` for generated kernels, files under <out>/myext/, and
Python functions in the `myext` module; nothing it generates can collide with
aten's. Its derivative formulas may call core operators (at::_ops:: and
method calls resolve to the core first). Every generated #include is relative
to the include root (<out> for generated files, csrc/ for the handwritten
core), never an absolute source-tree path.

Output, per namespace (codegen/dest/ renders each kind, see its __init__):
per operator group (an op with its in-place and out= variants) ops/<op>.h,
kernels/<op>.h and, for pointwise groups, functors/<op>.h and
kernels/cpu/<op>.cpp; registration/, autograd/, autocast/ and python/ each as a fixed
number of shards chosen by a stable hash of the group name; and the
aggregates. Editing one YAML entry rewrites its group's files and at most one
shard per layer. Files are rewritten only when their text changes, so ninja
rebuilds nothing for an unchanged entry. sources_core.txt lists the sources
with no Python dependency, sources_python.txt the Python bindings.

--backends picks the backend kernel kinds generated for pointwise operators
and the backend kernels registered (CPU, Meta); composite kernels are always
registered.

This module only loads, validates, groups and writes.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from codegen.api.ops import Namespace, Op, cpp_name, functional_of  # noqa: E402
from codegen.api.python import binding_cases, python_bindings  # noqa: E402
from codegen.api.types import UnsupportedType, check_types  # noqa: E402
from codegen.autograd import MissingHelper, autograd_info, known_helpers  # noqa: E402
from codegen.dest import (autocast, autograd, cpp_api, functors, headers, kernels_cpu, kernels_cuda, pyi, python,  # noqa: E402
                          register_all, registration)
from codegen.dest.common import CORE, CUDA, HEADER, PYTHON, Generation, make_env  # noqa: E402
from codegen.model import CodegenError, NativeFunction, load_native_file, pointwise_variants  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL_BACKENDS = ("CPU", "Meta")  # backend kernel kinds this generator can emit

# ----------------------------------------------------------------- grouping


def build_ops(fns: list[NativeFunction], ns: Namespace = Namespace("aten"),
              backends=KERNEL_BACKENDS) -> "OrderedDict[str, list[Op]]":
    """Operator groups by base name, YAML order; pointwise entries gain their
    in-place and out= variants. Backend kernels outside `backends` are dropped."""
    groups: OrderedDict[str, list[Op]] = OrderedDict()
    for f in fns:
        s = f.func
        kind = "inplace" if s.is_inplace else ("out" if s.is_out else "functional")
        dispatch = [(k, v) for k, v in f.dispatch if k in backends or k not in KERNEL_BACKENDS]
        ops = [Op(schema=s, f=f, kind=kind, cpp_name=cpp_name(s, kind), ns=ns, dispatch=dispatch,
                  pointwise=f.pointwise)]
        if f.pointwise is not None:
            inplace, out = pointwise_variants(f)
            if inplace is not None:
                ops.append(Op(schema=inplace, f=f, kind="inplace", cpp_name=cpp_name(inplace, "inplace"), ns=ns,
                              pointwise=f.pointwise))
            ops.append(Op(schema=out, f=f, kind="out", cpp_name=cpp_name(out, "out"), ns=ns, pointwise=f.pointwise))
        groups.setdefault(s.name.base, []).extend(ops)
    return groups


# ----------------------------------------------------------------- validation


def validate(groups, ns: Namespace) -> None:
    """What the renderers would otherwise trip over, reported as file:line."""
    for ops in groups.values():
        for o in ops:
            try:
                check_types(o)
            except UnsupportedType as e:
                raise CodegenError(o.f.loc, f"{o.schema.name}: {e}") from None
            if not ns.is_core and "method" in o.f.variants:
                raise CodegenError(o.f.loc, f"{o.schema.name}: a 'method' variant is only for the core (aten) "
                                            f"namespace; at::Tensor cannot gain methods from namespace {ns.name}")
        try:
            for (_, _, method), table in python_bindings(ops).items():
                binding_cases(table, method)
        except UnsupportedType as e:
            raise CodegenError(ops[0].f.loc, f"{ops[0].schema.name}: {e}") from None


def attach_autograd(groups, op_names: set, helpers: set, allow_missing: bool) -> None:
    for ops in groups.values():
        for o in ops:
            try:
                o.autograd = autograd_info(o, op_names, helpers, allow_missing,
                                           warn=lambda m, o=o: print(f"warning: {o.f.loc}: {o.schema.name}: {m}",
                                                                     file=sys.stderr),
                                           functional=functional_of(o, ops) if o.kind == "out" else None)
            except MissingHelper as e:
                raise CodegenError(o.f.loc, f"{o.schema.name}: {e}") from e
            except CodegenError:
                raise
            except Exception as e:  # a formula the translator can't handle: name the entry
                raise CodegenError(o.f.loc, f"{o.schema.name}: derivative formula: {e}") from e


# ----------------------------------------------------------------- writing


def write_if_changed(path: str, text: str, written: list):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path) as fh:
            if fh.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as fh:
        fh.write(text)
    written.append(path)


# Context namespaces parsed once per process: (path, mtime, size, backends) -> (name, ops by group).
_context_cache: dict = {}


def _load_context(path: str, backends) -> tuple:
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size, backends)
    if key not in _context_cache:
        name, fns = load_native_file(path, backends=backends)
        _context_cache[key] = (name, build_ops(fns, Namespace(name), backends))
    return _context_cache[key]


def generate(yaml_paths, out_dir: str, pyi_dir: str | None, backends=KERNEL_BACKENDS, *, context=(),
             nshards: int | None = None, include_root: str | None = None) -> list[str]:
    """Generates every namespace of `yaml_paths` (one path or a list) into
    out_dir; returns the files whose text changed.

    context: YAML files whose namespaces are read for their operator names
    only (nothing of theirs is written): an extension's build passes the
    core's native_functions.yaml here, so the extension's derivative formulas
    can call core operators whose headers are already installed.
    nshards: files per sharded layer (default NUM_SHARDS); a small extension
    builds faster with fewer.
    include_root: the folder holding autograd/FunctionsManual.h, whose helpers
    derivative formulas may call (default: the source tree's csrc/; an
    installed torchlike's include/ folder otherwise)."""
    if isinstance(yaml_paths, (str, os.PathLike)):
        yaml_paths = [yaml_paths]
    if isinstance(context, (str, os.PathLike)):
        context = [context]
    backends = tuple(backends)
    for b in backends:
        if b not in KERNEL_BACKENDS:
            raise CodegenError(_cli_loc(), f"--backends: no generated kernel kind for {b!r}; "
                                           f"known: {', '.join(KERNEL_BACKENDS)}")
    loaded = []  # (Namespace, yaml path, [NativeFunction])
    for p in yaml_paths:
        name, fns = load_native_file(str(p), backends=backends)
        if any(ns.name == name for ns, _, _ in loaded):
            raise CodegenError(_cli_loc(str(p)), f"namespace {name!r} is already generated from "
                                                 f"{next(q for ns, q, _ in loaded if ns.name == name)}")
        loaded.append((Namespace(name), str(p), fns))
    grouped = [(ns, p, build_ops(fns, ns, backends)) for ns, p, fns in loaded]
    context_grouped = []
    for p in context:
        name, groups = _load_context(str(p), backends)
        if any(ns.name == name for ns, _, _ in loaded):
            raise CodegenError(_cli_loc(str(p)), f"namespace {name!r} is both generated and given as context")
        context_grouped.append((Namespace(name), str(p), groups))
    core_names = {o.cpp_name: f"ops/{base}.h" for ns, _, groups in grouped + context_grouped if ns.is_core
                  for base, ops in groups.items() for o in ops}
    include_root = include_root or os.path.join(ROOT, "csrc")
    helpers = known_helpers(os.path.join(include_root, "autograd", "FunctionsManual.h"))
    # FunctionsManual.h includes the per-area helper headers in manual/; their helpers count too.
    for h in sorted(glob.glob(os.path.join(include_root, "autograd", "manual", "*.h"))):
        helpers |= known_helpers(h)
    # Developer escape hatch while writing helpers: such derivatives raise NotImplementedError at backward.
    allow_missing = os.environ.get("TORCHLIKE_ALLOW_MISSING_BACKWARD") == "1"
    env = make_env()
    written: list[str] = []
    produced: set[str] = set()
    sources = {CORE: [], PYTHON: [], CUDA: []}
    for ns, yaml_path, groups in grouped:
        validate(groups, ns)
        # Formulas call at::_ops names: core ones first, then this namespace's own.
        header_of = {o.cpp_name: f"{ns.dir}ops/{base}.h" for base, ops in groups.items() for o in ops}
        header_of.update(core_names)
        attach_autograd(groups, set(header_of), helpers, allow_missing)
        gen = Generation(ns=ns, groups=groups, yaml_name=os.path.basename(yaml_path), backends=backends, env=env,
                         header_of=header_of, include_root=include_root, **({"nshards": nshards} if nshards else {}))
        outputs = []
        for dest in (headers, functors, kernels_cpu, kernels_cuda, registration, autograd, autocast, python, register_all, cpp_api):
            outputs += dest.render_all(gen)
        if pyi_dir and ns.is_core:
            for o in pyi.render_all(gen):
                write_if_changed(os.path.join(pyi_dir, o.path), o.text, written)
        for o in outputs:
            path = os.path.join(out_dir, o.path)
            write_if_changed(path, o.text, written)
            produced.add(path)
            if o.kind != HEADER:
                sources[o.kind].append(path)
    core, py = sorted(sources[CORE]), sorted(sources[PYTHON])
    write_if_changed(os.path.join(out_dir, "sources_core.txt"), "".join(s + "\n" for s in core), written)
    write_if_changed(os.path.join(out_dir, "sources_python.txt"), "".join(s + "\n" for s in py), written)
    # The CUDA shards: compiled only by a build with CUDA enabled.
    write_if_changed(os.path.join(out_dir, "sources_cuda.txt"), "".join(s + "\n" for s in sorted(sources[CUDA])),
                     written)
    produced.update(os.path.join(out_dir, n) for n in ("sources_core.txt", "sources_python.txt", "sources_cuda.txt"))
    remove_stale(out_dir, [ns for ns, _, _ in grouped], produced)
    return written


GENERATED_MARK = "// @generated by codegen/gen.py"
LAYER_DIRS = ("ops", "kernels", "functors", "registration", "autograd", "autocast", "python")


def remove_stale(out_dir: str, namespaces, produced: set):
    """Deletes generated files this run no longer produces (a removed operator,
    an older file layout), so no stale header can be included by mistake. Only
    files carrying the generator's mark, and only in the folders of the
    namespaces generated now: another namespace's files in a shared output
    folder are left alone."""
    removed = []
    for ns in namespaces:
        root = os.path.join(out_dir, ns.dir)
        candidates = [os.path.join(root, n) for n in (os.listdir(root) if os.path.isdir(root) else [])]
        for d in LAYER_DIRS:
            for dirpath, _, files in os.walk(os.path.join(root, d)):
                candidates += [os.path.join(dirpath, f) for f in files]
        for path in candidates:
            if not path.endswith((".h", ".cpp")) or not os.path.isfile(path) or path in produced:
                continue
            with open(path) as fh:
                if not fh.read(len(GENERATED_MARK)) == GENERATED_MARK:
                    continue
            os.remove(path)
            removed.append(path)
    if removed:
        print(f"codegen: removed {len(removed)} stale generated file(s)", file=sys.stderr)
    return removed


def _cli_loc(what: str = "<command line>"):
    from codegen.model import Location
    return Location(what, 0)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--yaml", action="append", help="a native_functions YAML file (repeat for more namespaces)")
    p.add_argument("--out", default="build/generated")
    p.add_argument("--pyi", default=None)
    p.add_argument("--context", action="append", default=[],
                   help="a YAML file read for its operator names only, nothing generated (repeatable)")
    p.add_argument("--shards", type=int, default=None, help="files per sharded layer")
    p.add_argument("--backends", default=",".join(KERNEL_BACKENDS),
                   help="backend kernel kinds to generate and register (comma-separated)")
    a = p.parse_args(argv)
    try:
        written = generate(a.yaml or ["native_functions.yaml"], a.out, a.pyi, tuple(a.backends.split(",")),
                           context=a.context, nshards=a.shards)
    except CodegenError as e:
        print(str(e), file=sys.stderr)
        return 1
    print(f"codegen: {len(written)} file(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
