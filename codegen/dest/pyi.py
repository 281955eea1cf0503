"""torchlike/_C/__init__.pyi: stubs for IDEs and type checkers (core namespace)."""
from __future__ import annotations

from codegen.api.python import pyi_def
from codegen.dest.common import Output, render
from codegen.dest.python import group_entries


def render_all(gen) -> list:
    fn_defs, method_defs = [], []
    for ops in gen.groups.values():
        for e, table in group_entries(ops):
            if e["module"]:
                continue
            method = e["method"]
            defs = [pyi_def(op, e["name"], method, out) for (op, out, _) in table]
            if len(defs) > 1:
                defs = ["@overload\n" + ("    " if method else "") + d for d in defs]
            (method_defs if method else fn_defs).extend(defs)
    text = render(gen, "pyi.j2", [], fn_defs=fn_defs, method_defs=method_defs,
                  provenance=f"all entries of {gen.yaml_name}")
    return [Output("__init__.pyi", text, "pyi")]
