"""functors/<op>.h: the pointwise formulas of one group as host/device functors."""
from __future__ import annotations

from codegen.dest.common import HEADER, Output, path, provenance, render


def render_all(gen) -> list:
    return [Output(path(gen, f"functors/{base}.h"),
                   render(gen, "functors.h.j2", ops, base=base, ops=ops, provenance=provenance(gen, ops)), HEADER)
            for base, ops in gen.groups.items() if any(o.pointwise for o in ops)]
