"""autograd/shardN.cpp: backward nodes and Autograd-key kernels of the groups
hashing to N, each rendered by codegen/templates/autograd.cpp.j2."""
from __future__ import annotations

from codegen.dest.common import CORE, Output, path, render, shard_provenance


def render_all(gen) -> list:
    out = []
    for shard, members in gen.shards():
        includes, sections = set(), []
        for base, ops in members:
            ag_ops = [o for o in ops if o.autograd]
            if not ag_ops:
                continue
            includes.add(path(gen, f"kernels/{base}.h"))
            for o in ag_ops:
                includes |= {gen.header_of[n] for n in o.autograd.includes if n in gen.header_of}
                if len(o.schema.returns) > 1:
                    includes.add("ops/zeros.h")
                if any(c for _, _, c in o.autograd.saved_tensors):
                    includes.add("ops/clone.h")
                sections.append(render(gen, "autograd.cpp.j2", [o], op=o))
        text = render(gen, "autograd_shard.cpp.j2", [], shard=shard, nshards=gen.nshards, includes=sorted(includes),
                      sections=sections, provenance=shard_provenance(gen, members))
        out.append(Output(path(gen, f"autograd/shard{shard}.cpp"), text, CORE))
    return out
