"""What every renderer shares: the Jinja environment, error locations,
sharding and file provenance."""
from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field

import jinja2

from codegen.api import types as cpp
from codegen.api.ops import composite_versions, pointwise_info, structured_name
from codegen.model import CodegenError

TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "templates")

# Files per sharded layer (registration, autograd, python). Fixed, so the file
# count does not grow with the operator count. Measured (CPU seconds, GCC 12,
# -O3, with the precompiled headers): a shard costs about 0.4 s even when
# empty, and at 230 YAML entries the largest registration shard of 8 costs
# 11.6 s. 8 keeps the fixed cost of all 24 shards near 10 s of a clean build
# while the largest shard stays near 30 s at 600 operators (a schema edit
# recompiles one shard per layer; a formula edit none).
NUM_SHARDS = 8

HEADER, CORE, PYTHON, CUDA = "header", "core", "python", "cuda"


@dataclass
class Output:
    path: str   # relative to the output root
    text: str
    kind: str   # HEADER, CORE (a source with no Python), PYTHON (a source that needs Python), CUDA (a .cu file)


@dataclass
class Generation:
    """One namespace's operators, as the renderers see them."""
    ns: object                  # codegen.api.ops.Namespace
    groups: dict                # base name -> [Op], YAML order
    yaml_name: str
    backends: tuple             # backend kernel kinds to emit: "CPU", "Meta"
    env: jinja2.Environment
    header_of: dict = field(default_factory=dict)  # C++ operator name -> include path of its ops/ header
    nshards: int = NUM_SHARDS
    include_root: str = ""      # the hand-written headers' root (csrc/, or an installed torchlike's include/)

    def shards(self):
        """[(shard index, [(base, ops)])] in shard order; groups keep YAML order."""
        out = [[] for _ in range(self.nshards)]
        for base, ops in self.groups.items():
            out[shard_of(self.ns.name, base, self.nshards)].append((base, ops))
        return list(enumerate(out))


def shard_of(namespace: str, base: str, n: int) -> int:
    """Stable across runs and machines (not Python's salted hash()), so an
    unchanged group never moves between shards."""
    return zlib.crc32(f"{namespace}::{base}".encode()) % n


def make_env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.globals.update(cpp_params=cpp.cpp_params, cpp_arg_types=cpp.cpp_arg_types, cpp_arg_names=cpp.cpp_arg_names,
                       cpp_return_type=cpp.cpp_return_type, cpp_arg_type=cpp.cpp_arg_type,
                       kernel_params=cpp.kernel_params, composite_versions=composite_versions,
                       pointwise_info=pointwise_info, structured_name=structured_name)
    return env


def render(gen: Generation, template: str, located_by: list, /, **ctx) -> str:
    """Renders `template`; any error names the YAML entry of located_by[0] (render one
    op at a time where a file holds several entries, so the location is exact)."""
    try:
        return gen.env.get_template(template).render(ns=gen.ns, yaml_name=gen.yaml_name, backends=gen.backends,
                                                      template_name=f"codegen/templates/{template}", **ctx)
    except CodegenError:
        raise
    except Exception as e:  # jinja2 UndefinedError/TemplateError, an unsupported type, a helper's bug
        if not located_by:
            raise
        op = located_by[0]
        raise CodegenError(op.f.loc, f"{op.schema.name}: while rendering codegen/templates/{template}: "
                                     f"{type(e).__name__}: {e}") from e


def provenance(gen: Generation, ops: list) -> str:
    """Entries by name, in YAML order. No line numbers: a line added above an
    entry would otherwise rewrite (and recompile) every file below it."""
    entries = [n for n, _ in sorted({(str(o.f.func.name), o.f.loc.line) for o in ops}, key=lambda x: x[1])]
    return f"{gen.yaml_name} entries " + ", ".join(entries)


def shard_provenance(gen: Generation, members: list) -> str:
    return f"{gen.yaml_name} groups " + (", ".join(b for b, _ in members) or "(none)")


def path(gen: Generation, rel: str) -> str:
    return gen.ns.dir + rel
