"""python/shardN.cpp: the CPython bindings of the groups hashing to N. The
only generated sources that include Python.h."""
from __future__ import annotations

from codegen.api.python import binding_cases, python_bindings, return_kind
from codegen.dest.common import PYTHON, Output, path, render, shard_provenance


def group_entries(ops) -> list:
    """The Python callables of one group: [(entry dict, [(op, out, signature)])]."""
    entries = []
    for (module, pyname, method), table in python_bindings(ops).items():
        entries.append((dict(module=module, name=pyname, method=method,
                             signatures=[sig for (_, _, sig) in table], cases=binding_cases(table, method),
                             cname=f"py{'method' if method else 'fn'}_{module + '_' if module else ''}{pyname}"),
                        table))
    return entries


def render_all(gen) -> list:
    out = []
    for shard, members in gen.shards():
        includes, sections, entries = set(), [], []
        for base, ops in members:
            py = [e for e, _ in group_entries(ops)]
            if not py:
                continue
            includes.add(path(gen, f"ops/{base}.h"))
            sections.append(render(gen, "python_group.cpp.j2", ops, py_entries=py, return_kind=return_kind))
            entries.extend(py)
        text = render(gen, "python_shard.cpp.j2", [], shard=shard, nshards=gen.nshards, includes=sorted(includes),
                      sections=sections, entries=entries, provenance=shard_provenance(gen, members))
        out.append(Output(path(gen, f"python/shard{shard}.cpp"), text, PYTHON))
    return out
