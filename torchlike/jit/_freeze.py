"""freeze and optimize_for_inference.

freeze(module) (eval mode) turns parameters and buffers into constants: in a
traced graph they become constant tensors and every operator call whose
inputs are all constants (a weight's transpose, a scale folded into a bias)
is computed once and replaced by its result; in a scripted module they
become plain tensor attributes without gradients. optimize_for_inference
freezes, then drops calls that do nothing in eval mode (dropout with
train=False, detach of a constant) and calls whose results are unused.
"""
from __future__ import annotations

import ast

import torchlike
from torchlike import _C

from ._ir import Graph, Node, Value

__all__ = ["freeze", "optimize_for_inference", "collect_opnames"]

_NONDETERMINISTIC = ("rand", "bernoulli", "dropout", "normal", "multinomial", "poisson", "uniform", "exponential",
                     "cauchy", "geometric", "log_normal", "random")


def _foldable(n):
    if n.kind.startswith("prim::"):
        return False
    if any(k in n.kind for k in _NONDETERMINISTIC):
        return False
    try:
        schema = _C._dispatch_schema(n.kind)
    except ValueError:
        return False
    return "!" not in schema and n.result in ("tensor", "tuple", "list")


def _copy_graph(g):
    """A copy whose Values are new objects (so folding one copy leaves the other)."""
    m = {}

    def cv(v):
        if v not in m:
            nv = Value(v.kind, v.name, (v.dtype, v.shape, v.requires_grad, v.device), ref=v.ref, path=v.path)
            m[v] = nv
        return m[v]

    def ca(a):
        if isinstance(a, Value):
            return cv(a)
        if isinstance(a, list):
            return [ca(x) for x in a]
        if isinstance(a, tuple):
            return tuple(ca(x) for x in a)
        if isinstance(a, dict):
            return {k: ca(x) for k, x in a.items()}
        return a
    h = Graph()
    h.inputs = [cv(v) for v in g.inputs]
    h.params = [cv(v) for v in g.params]
    h.consts = [cv(v) for v in g.consts]
    h.nodes = [Node(n.kind, ca(n.args), [cv(v) for v in n.outputs], n.result, n.scope, dict(n.attrs))
               for n in g.nodes]
    h.output = ca(g.output)
    h._self_type = getattr(g, "_self_type", None)
    return h


def _resolve(a):
    if isinstance(a, Value):
        return a.ref
    if isinstance(a, list):
        return [_resolve(x) for x in a]
    if isinstance(a, tuple):
        return tuple(_resolve(x) for x in a)
    return a


def _all_const(n):
    def ok(a):
        if isinstance(a, Value):
            return a.kind == "const"
        if isinstance(a, (list, tuple)):
            return all(ok(x) for x in a)
        return True
    return all(ok(a) for a in n.args)


def _fold(g, root, preserved):
    """Parameters not preserved become constants; all-constant calls are computed."""
    keep_params = []
    for v in g.params:
        if ".".join(v.path) in preserved:
            keep_params.append(v)
            continue
        obj = root
        for p in v.path:
            obj = getattr(obj, p)
        v.kind, v.ref, v.requires_grad = "const", obj.detach(), False
        g.consts.append(v)
    g.params = keep_params
    kept = []
    with torchlike.no_grad():
        for n in g.nodes:
            if _foldable(n) and _all_const(n):
                r = _C._ops_call_boxed(_C._ops_handle(n.kind), tuple(_resolve(a) for a in n.args))
                rs = [r] if n.result == "tensor" else list(r)
                for v, t in zip(n.outputs, rs):
                    v.kind, v.ref, v.requires_grad = "const", t, False
                    g.consts.append(v)
                continue
            kept.append(n)
    g.nodes = kept
    _drop_unused_consts(g)


def _uses(g):
    used = set()

    def walk(a):
        if isinstance(a, Value):
            used.add(id(a))
        elif isinstance(a, (list, tuple)):
            for x in a:
                walk(x)
        elif isinstance(a, dict):
            for x in a.values():
                walk(x)
    for n in g.nodes:
        walk(n.args)
    walk(g.output)
    return used


def _drop_unused_consts(g):
    used = _uses(g)
    g.consts = [v for v in g.consts if id(v) in used]


def _frozen_traced(m, preserved):
    from ._trace import TopLevelTracedModule, TracedModule
    graphs = {}
    for name, g in m._graphs.items():
        h = _copy_graph(g)
        _fold(h, m, preserved)
        graphs[name] = h
    out = TopLevelTracedModule.__new__(TopLevelTracedModule)
    TracedModule.__init__(out, None, name=m.original_name)
    out._graphs.update(graphs)
    out.training = False
    called = set()
    for g in graphs.values():
        for n in g.nodes:
            if n.kind == "prim::CallMethod" and n.attrs["path"]:
                called.add(n.attrs["path"][0])
    for k, c in m._modules.items():
        if k in called:
            out._modules[k] = freeze(c, preserved_attrs=None) if not getattr(c, "_frozen", False) else c
    for p in preserved:
        if "." not in p and hasattr(m, p):
            v = getattr(m, p)
            if isinstance(v, torchlike.nn.Parameter):
                out._parameters[p] = v
            else:
                out.__dict__[p] = v
    out.__dict__["_frozen"] = True
    return out


def _frozen_scripted(m, preserved):
    from ._script import RecursiveScriptModule
    out = RecursiveScriptModule(m.original_name)
    out.training = False
    machinery = set(torchlike.nn.Module().__dict__)
    for k, v in m.__dict__.items():
        if k not in machinery and not k.startswith("__"):
            out.__dict__[k] = v
    out.__dict__["_methods"] = dict(m.__dict__["_methods"])
    out.__dict__["_py_methods"] = dict(m.__dict__["_py_methods"])
    for k, p in list(m._parameters.items()) + list(m._buffers.items()):
        if k in preserved:
            (out._parameters if k in m._parameters else out._buffers)[k] = p
        else:
            out.__dict__[k] = None if p is None else p.detach()
    for k, c in m._modules.items():
        if c is None:
            out._modules[k] = None
        elif isinstance(c, (RecursiveScriptModule,)) or hasattr(c, "_graphs"):
            out._modules[k] = freeze(c)
        else:
            out._modules[k] = c
    out.__dict__["_frozen"] = True
    return out


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Inlines parameters and attributes as constants (the module must be in eval mode)."""
    from ._script import RecursiveScriptModule, ScriptModule
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() on "
                           "your module before freezing.")
    preserved = set(preserved_attrs or ())
    if hasattr(mod, "_graphs"):
        return _frozen_traced(mod, preserved)
    if isinstance(mod, RecursiveScriptModule):
        return _frozen_scripted(mod, preserved)
    raise RuntimeError(f"freeze: cannot freeze a {type(mod).__name__}")


def _drop_noops(g):
    """Rewires the uses of calls that return their input unchanged in eval mode."""
    alias = {}

    def sub(a):
        if isinstance(a, Value):
            return alias.get(id(a), a)
        if isinstance(a, list):
            return [sub(x) for x in a]
        if isinstance(a, tuple):
            return tuple(sub(x) for x in a)
        if isinstance(a, dict):
            return {k: sub(x) for k, x in a.items()}
        return a
    kept = []
    for n in g.nodes:
        n.args = sub(n.args)
        base = n.kind.split(".")[0]
        if base in ("aten::dropout", "aten::feature_dropout", "aten::alpha_dropout") and len(n.args) >= 3 \
                and n.args[2] is False:
            alias[id(n.outputs[0])] = n.args[0]
            continue
        kept.append(n)
    g.nodes = kept
    g.output = sub(g.output)
    # Dead calls: results unused, no side effect.
    changed = True
    while changed:
        used = _uses(g)
        keep = [n for n in g.nodes if n.kind.startswith("prim::") or "!" in _C._dispatch_schema(n.kind)
                or any(id(v) in used for v in n.outputs)]
        changed = len(keep) != len(g.nodes)
        g.nodes = keep
    _drop_unused_consts(g)
    g.invalidate()


def optimize_for_inference(mod, other_methods=None):
    """freeze(mod) if it is not frozen yet, then removes eval-mode no-ops and dead calls."""
    from ._script import ScriptModule
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if not getattr(mod, "_frozen", False):
        mod = freeze(mod.eval())
    for g in getattr(mod, "_graphs", {}).values():
        _drop_noops(g)
    return mod


def collect_opnames(m, seen=None):
    """Operator names a scripted/traced module or function calls."""
    from ._script import RecursiveScriptModule, ScriptFunction
    from ._trace import TracedFunction
    seen = set() if seen is None else seen
    names = set()
    if id(m) in seen:
        return names
    seen.add(id(m))
    graphs = list(getattr(m, "_graphs", {}).values())
    if isinstance(m, TracedFunction):
        graphs.append(m.graph)
    for g in graphs:
        for n in g.nodes:
            if n.kind == "prim::CallFunction":
                names |= collect_opnames(n.attrs["fn"], seen)
            elif n.kind != "prim::CallMethod":
                names.add(n.kind)
    cfs = []
    if isinstance(m, RecursiveScriptModule):
        cfs += list(m.__dict__["_methods"].values())
    elif isinstance(m, ScriptFunction) and not isinstance(m, TracedFunction):
        cfs.append(m._cf)
    for cf in cfs:
        names |= _ast_opnames(cf)
        for kind, val in cf.globals_spec.values():
            if kind == "script":
                names |= collect_opnames(val, seen)
    for c in getattr(m, "_modules", {}).values():
        if c is not None:
            names |= collect_opnames(c, seen)
    return names


_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.MatMult: "matmul",
           ast.Pow: "pow", ast.FloorDiv: "floor_divide", ast.Mod: "remainder"}


def _ast_opnames(cf):
    ops = set(_C._dispatch_list_ops())
    out = set()
    for node in ast.walk(cf.fdef):
        name = None
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        elif isinstance(node, ast.BinOp):
            name = _BINOPS.get(type(node.op))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            name = "neg"
        if name and f"aten::{name}" in ops:
            out.add(f"aten::{name}")
    return out
