"""RegisterAll.cpp (core, no Python) and python/RegisterAll.cpp: call every
shard's registration function, from module init."""
from __future__ import annotations

from codegen.dest.common import CORE, PYTHON, Output, path, render


def render_all(gen) -> list:
    prov = f"all entries of {gen.yaml_name}"
    shards = list(range(gen.nshards))
    return [Output(path(gen, "RegisterAll.cpp"),
                   render(gen, "RegisterAll.cpp.j2", [], shards=shards, provenance=prov), CORE),
            Output(path(gen, "python/RegisterAll.cpp"),
                   render(gen, "RegisterPython.cpp.j2", [], shards=shards, provenance=prov), PYTHON)]
