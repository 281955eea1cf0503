#!/usr/bin/env python3
"""Which public torchlike names no test calls, and which checks each operator
in the op-sample registry has.

    python tools/op_coverage.py            # both reports
    python tools/op_coverage.py --strict   # exit 1 if a name is untested or an op lacks a check
    python tools/op_coverage.py --surface ../shared/api/surface.json   # only names PyTorch also has

Public names are the non-underscore attributes of torchlike's operator
namespaces (torchlike, Tensor, nn.functional, linalg, special, testing,
accelerator, backends, nn.attention). A name counts as called when a test
file mentions it as an attribute (`.name`), as a quoted string (registry
entries, getattr) or as a bare call `name(` after a `from ... import`: a
static scan, so it errs towards "called"; the registry report below is the
stricter measure.

Registry checks per operator (tests/opinfo): forward against the reference
(every listed dtype), gradcheck (float64 and grad=True), Meta shapes, error
samples, and broadcasting (a sample whose tensor arguments differ in shape).
An op declared non-differentiable (grad=False) has gradcheck "n/a".

CUDA kernels (`--cuda` lists them per operator): where the CUDA library
(libtorchlike_cuda.so) is built and loaded, the dispatcher says which
operators reach a kernel on the CUDA key, registered for CUDA itself or
inherited from a composite; an operator with a CPU kernel and neither raises
NotImplementedError on CUDA tensors. Without the library nothing can be
asked, and the report says so.
"""
import argparse
import importlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMESPACES = ["torchlike", "torchlike.Tensor", "torchlike.nn.functional", "torchlike.linalg", "torchlike.special",
              "torchlike.testing", "torchlike.accelerator", "torchlike.backends.cudnn", "torchlike.backends.mps",
              "torchlike.backends.cpu", "torchlike.nn.attention", "torchlike.nn.init"]
# Module-level names that are not operators or API (imports, submodules).
SKIP_TYPES = ("module",)


def resolve(ns):
    parts = ns.split(".")
    obj = importlib.import_module(parts[0])
    for i, p in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, p)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                return None
    return obj


def public_names(ns, surface):
    obj = resolve(ns)
    if obj is None:
        return []
    names = []
    for n in dir(obj):
        if n.startswith("_"):
            continue
        v = getattr(obj, n, None)
        if type(v).__name__ in SKIP_TYPES:
            continue
        if surface is not None:
            allowed = surface.get(ns.replace("torchlike", "torch", 1))
            if allowed is None or n not in allowed:
                continue
        names.append(n)
    return names


def test_mentions():
    """Every `.name`, quoted 'name' and `name(` in the test tree."""
    attr, quoted, called = set(), set(), set()
    for base, _, files in os.walk(os.path.join(ROOT, "tests")):
        for f in files:
            if not f.endswith(".py"):
                continue
            text = open(os.path.join(base, f), encoding="utf-8").read()
            attr.update(re.findall(r"\.([A-Za-z_][A-Za-z0-9_]*)", text))
            quoted.update(re.findall(r"[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']", text))
            called.update(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\(", text))
            for paren, line in re.findall(r"\bimport\s+(?:\(([^)]*)\)|([^\n]+))", text):
                called.update(n.split(" as ")[0].strip() for n in (paren or line).split("#")[0].split(","))
    return attr | quoted | called


def registry_checks():
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from opinfo import OPS  # noqa: E402
    rows = {}
    for op in OPS:
        r = rows.setdefault(op.name, {"entries": 0, "dtypes": set(), "grad": "no", "meta": False, "errors": 0,
                                      "broadcast": False, "forward": False})
        r["entries"] += 1
        r["dtypes"].update(op.dtypes)
        if op.grad and "float64" in op.dtypes:
            r["grad"] = "yes"
        elif not op.grad and r["grad"] == "no":
            r["grad"] = "n/a"
        r["meta"] |= bool(op.meta or op.factory or op.meta_raises)
        r["errors"] += len(op.errors)
        dt = "float32" if "float32" in op.dtypes else op.dtypes[0]
        try:
            samples = op.samples(dt)
        except Exception as e:  # a broken sample generator is itself a finding
            samples = []
            r["sample_error"] = repr(e)
        r["forward"] |= bool(samples)
        for s in samples:
            shapes = {tuple(a.shape) for a in s.args if hasattr(a, "shape")}
            if len(shapes) > 1:
                r["broadcast"] = True
    return rows


def _table_source(table, key):
    """The `[...]` source tag of `key`'s row in _dispatch_dump_table's text."""
    for line in table.splitlines():
        if line.startswith(key + ": "):
            return line.rsplit("[", 1)[-1].rstrip("]") if "[" in line else "missing"
    return "missing"


def cuda_kernels():
    """(None, rows) with rows {op: "kernel" | "composite" | "missing"} for
    every operator that has a CPU kernel, or (reason, {}) when the CUDA
    library is not loaded."""
    import torchlike
    from torchlike import _C, _cuda_lib
    if _cuda_lib.load() is None:
        return f"CUDA library not loaded ({_cuda_lib.load_error()}): no CUDA kernels to report", {}
    rows = {}
    for op in _C._dispatch_list_ops():
        try:
            table = _C._dispatch_dump_table(op)
            has_cpu = _C._dispatch_has_kernel_for_key(op, "CPU")
            has_cuda = _C._dispatch_has_kernel_for_key(op, "CUDA")
        except ValueError:  # a name without a schema (a deregistered test op)
            continue
        if not has_cpu:
            continue
        source = _table_source(table, "CUDA")
        rows[op] = "missing" if not has_cuda else ("kernel" if source == "kernel" else "composite")
    del torchlike
    return None, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--surface", help="PyTorch's surface.json: count only names PyTorch has")
    ap.add_argument("--quiet", action="store_true", help="summaries and problems only")
    ap.add_argument("--cuda", action="store_true", help="list every operator's CUDA kernel (kernel/composite/missing)")
    a = ap.parse_args()
    sys.path.insert(0, ROOT)
    surface = json.load(open(a.surface))["namespaces"] if a.surface else None

    mentioned = test_mentions()
    rows = registry_checks()
    # tests/test_ops.py calls `name_` (in-place) and `name` methods of every
    # registry entry by building the attribute name: count those as called.
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from opinfo import OPS  # noqa: E402
    for op in OPS:
        short = op.name.split(".")[-1]  # "nn.functional.relu" is called as F.relu
        mentioned.add(short)
        if op.inplace:
            mentioned.add(short + "_")
    untested = {}
    print(f"{'namespace':32} {'public':>7} {'untested':>9}")
    for ns in NAMESPACES:
        names = public_names(ns, surface)
        miss = sorted(n for n in names if n not in mentioned)
        untested[ns] = miss
        print(f"{ns:32} {len(names):7} {len(miss):9}")
    for ns, miss in untested.items():
        if miss:
            print(f"\nuntested in {ns}: {', '.join(miss)}")

    lacking = []
    if not a.quiet:
        print(f"\n{'operator':28} {'entries':>7} {'dtypes':>6} {'fwd':>4} {'grad':>4} {'meta':>4} {'err':>4} {'bcast':>5}")
    for name in sorted(rows):
        r = rows[name]
        gaps = [k for k, ok in (("forward", r["forward"]), ("grad", r["grad"] != "no"), ("meta", r["meta"]),
                                ("errors", r["errors"] > 0)) if not ok]
        if gaps:
            lacking.append((name, gaps))
        if not a.quiet:
            print(f"{name:28} {r['entries']:7} {len(r['dtypes']):6} {'yes' if r['forward'] else 'NO':>4} "
                  f"{r['grad']:>4} {'yes' if r['meta'] else 'NO':>4} {r['errors']:4} "
                  f"{'yes' if r['broadcast'] else '-':>5}")
    print(f"\nregistry: {len(rows)} operators, {len(lacking)} lacking a check")
    for name, gaps in lacking:
        print(f"  {name}: no {', '.join(gaps)}")
    n_untested = sum(len(m) for m in untested.values())
    print(f"public names no test calls: {n_untested}")

    reason, cuda = cuda_kernels()
    if reason:
        print(f"\n{reason}")
    else:
        counts = {k: sum(1 for v in cuda.values() if v == k) for k in ("kernel", "composite", "missing")}
        print(f"\nCUDA: of {len(cuda)} operators with a CPU kernel, {counts['kernel']} have a CUDA kernel, "
              f"{counts['composite']} a composite, {counts['missing']} none (NotImplementedError on CUDA)")
        if a.cuda:
            for op in sorted(cuda):
                print(f"  {op:48} {cuda[op]}")
    if a.strict and (n_untested or lacking):
        sys.exit(1)


if __name__ == "__main__":
    main()
