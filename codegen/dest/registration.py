"""registration/shardN.cpp: entry points, wrappers, structured pointwise
set-up, Meta kernels and all registrations of the groups hashing to N."""
from __future__ import annotations

from codegen.dest.common import CORE, Output, path, render, shard_provenance

POINTWISE_BACKENDS = ("CPU", "Meta")


def render_all(gen) -> list:
    out = []
    pw_backends = [b for b in POINTWISE_BACKENDS if b in gen.backends]
    for shard, members in gen.shards():
        includes, sections, registers = set(), [], []
        for base, ops in members:
            includes |= {path(gen, f"ops/{base}.h"), path(gen, f"kernels/{base}.h")}
            pw = [o for o in ops if o.pointwise]
            if pw:
                includes.add("aten/TensorIterator.h")
                includes.add("c10/ScalarType.h")
                if any(o.pointwise.check or o.pointwise.dtypes == "floating" for o in pw):
                    includes.add("aten/native/PointwiseChecks.h")
            for op in ops:
                ctx = dict(op=op, pointwise_backends=pw_backends)
                sections.append(render(gen, "registration_op.cpp.j2", [op], **ctx))
                registers.append(render(gen, "registration_register.cpp.j2", [op], **ctx))
        text = render(gen, "registration.cpp.j2", [], shard=shard, nshards=gen.nshards, includes=sorted(includes),
                      sections=sections, registers=registers, provenance=shard_provenance(gen, members))
        out.append(Output(path(gen, f"registration/shard{shard}.cpp"), text, CORE))
    return out
