"""kernels/cpu/<op>.cpp: the CPU kernels of one pointwise group. No Python,
no dispatcher: the registration shard registers them."""
from __future__ import annotations

from codegen.dest.common import CORE, Output, path, provenance, render


def render_all(gen) -> list:
    if "CPU" not in gen.backends:
        return []
    return [Output(path(gen, f"kernels/cpu/{base}.cpp"),
                   render(gen, "kernels_cpu.cpp.j2", ops, base=base, ops=ops, backend="CPU",
                          provenance=provenance(gen, ops)), CORE)
            for base, ops in gen.groups.items() if any(o.pointwise for o in ops)]
