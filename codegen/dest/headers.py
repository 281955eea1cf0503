"""Per-group headers: ops/<op>.h (entry points and handwritten kernels, what
library code includes) and kernels/<op>.h (the generated kernels that
registration shards register and kernel files define)."""
from __future__ import annotations

from collections import OrderedDict

from codegen.api.types import cpp_params, cpp_return_type, required_arguments
from codegen.dest.common import HEADER, Output, path, provenance, render


def render_all(gen) -> list:
    out = []
    for base, ops in gen.groups.items():
        prov = provenance(gen, ops)
        # C++ defaults only where no call could match two overloads.
        required = required_arguments(ops)
        natives = OrderedDict()
        for o in ops:
            for key, kernel in o.dispatch:
                natives.setdefault((kernel, cpp_return_type(o.schema), cpp_params(o)), None)
        out.append(Output(path(gen, f"ops/{base}.h"), render(
            gen, "op.h.j2", ops, base=base, ops=ops, required=lambda o: required[id(o)], natives=list(natives),
            provenance=prov), HEADER))
        structured = [o for o in ops if o.pointwise and o.kind == "functional"]
        cpu = [o for o in ops if o.pointwise] if "CPU" in gen.backends else []
        out.append(Output(path(gen, f"kernels/{base}.h"), render(
            gen, "kernels.h.j2", ops, base=base, ops=ops, structured=structured, cpu_kernels=cpu,
            provenance=prov), HEADER))
    return out
