"""kernels/cuda/shard<k>.cu: the CUDA loops of every pointwise operator, from
the same functors as the CPU kernels, and their functional / in-place / out=
kernels, registered on the CUDA key by the shard itself. A fixed number of shards, each holding
the groups whose names hash to it, bounds nvcc's work to a few large files
while a one-operator YAML edit recompiles one shard. Compiled only when the
build enables CUDA (setup.py reads sources_cuda.txt)."""
from __future__ import annotations

from codegen.dest.common import CUDA, Output, path, render, shard_of, shard_provenance

# About 20 files: enough to spread over cores, few enough that nvcc's
# per-file start-up (host pass, device pass, fatbinary) stays small.
NUM_CUDA_SHARDS = 20


def render_all(gen) -> list:
    shards = [[] for _ in range(NUM_CUDA_SHARDS)]
    for base, ops in gen.groups.items():
        pointwise = [o for o in ops if o.pointwise]
        if pointwise:
            shards[shard_of(gen.ns.name, base, NUM_CUDA_SHARDS)].append((base, pointwise))
    out = []
    for k, members in enumerate(shards):
        if not members:
            continue
        ops = [o for _, group in members for o in group]
        loops = [o for o in ops if o.kind == "functional"]
        out.append(Output(path(gen, f"kernels/cuda/shard{k}.cu"),
                          render(gen, "kernels_cuda_shard.cu.j2", ops, shard=k, ops=ops, loops=loops, backend="CUDA",
                                 bases=[b for b, _ in members], provenance=shard_provenance(gen, members)),
                          CUDA))
    return out
