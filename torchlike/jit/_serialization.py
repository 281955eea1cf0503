"""jit.save / jit.load: a zip archive holding

    archive/version        the format version ("1")
    archive/program.json   the program: modules, traced graphs (operator
                           names and arguments), scripted methods (their
                           checked syntax trees and what each free name
                           resolves to), constant attributes
    archive/tensors.pt     parameters, buffers and constant tensors
                           (torchlike.save; read back with weights_only=True)
    archive/extra/<name>   _extra_files

Loading never unpickles arbitrary objects and never runs code from the
file: every operator name must be a registered operator, every scripted
function passes the same check jit.script applies (its free names resolve
only through the namespace allow-list), and a built-in module's class must
be one of torchlike.nn's. Anything else raises a RuntimeError naming the
file and the problem.
"""
from __future__ import annotations

import ast
import importlib
import io
import json
import math
import os
import sys
import zipfile

import torchlike
from torchlike import _C

from . import frontend
from ._ir import Graph, Node, Value

__all__ = ["save", "load"]

VERSION = 1
_PREFIX = "archive/"


class _Malformed(Exception):
    pass


# ------------------------------------------------------------------ values

class _Writer:
    def __init__(self):
        self.tensors = []
        self.ids = {}

    def tensor(self, t):
        key = id(t)
        if key not in self.ids:
            self.ids[key] = len(self.tensors)
            self.tensors.append(t)
        return self.ids[key]

    def value(self, v):
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"$float": repr(v)}
        if isinstance(v, torchlike.Tensor):
            return {"$tensor": self.tensor(v)}
        if isinstance(v, torchlike.dtype):
            return {"$dtype": str(v).split(".")[-1]}
        if isinstance(v, torchlike.device):
            return {"$device": str(v)}
        if isinstance(v, tuple):
            return {"$tuple": [self.value(x) for x in v]}
        if isinstance(v, list):
            return {"$list": [self.value(x) for x in v]}
        if isinstance(v, dict):
            return {"$dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
        if isinstance(v, complex):
            return {"$complex": [v.real, v.imag]}
        if v is Ellipsis:
            return {"$ellipsis": True}
        for kind in ("layout", "memory_format"):
            cls = getattr(torchlike, kind, None)
            if isinstance(cls, type) and isinstance(v, cls):
                return {"$" + kind: str(v).split(".")[-1]}
        raise RuntimeError(f"jit.save: cannot save a value of type {type(v).__name__} ({v!r})")


def _read_value(v, tensors):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if not isinstance(v, dict) or len(v) != 1:
        raise _Malformed(f"bad value {v!r:.80}")
    (k, x), = v.items()
    if k == "$float":
        if x not in ("inf", "-inf", "nan"):
            raise _Malformed(f"bad float {x!r}")
        return float(x)
    if k == "$tensor":
        if not isinstance(x, int) or not 0 <= x < len(tensors):
            raise _Malformed(f"tensor index {x!r} out of range")
        return tensors[x]
    if k == "$dtype":
        d = getattr(torchlike, str(x), None)
        if not isinstance(d, torchlike.dtype):
            raise _Malformed(f"unknown dtype {x!r}")
        return d
    if k == "$device":
        return torchlike.device(str(x))
    if k == "$tuple":
        return tuple(_read_value(e, tensors) for e in _list(x))
    if k == "$list":
        return [_read_value(e, tensors) for e in _list(x)]
    if k == "$dict":
        return {_read_value(a, tensors): _read_value(b, tensors) for a, b in _list(x)}
    if k == "$complex":
        return complex(float(x[0]), float(x[1]))
    if k == "$ellipsis":
        return Ellipsis
    if k in ("$layout", "$memory_format"):
        r = getattr(torchlike, str(x), None)
        if r is None or isinstance(r, type) or callable(r):
            raise _Malformed(f"unknown {k[1:]} {x!r}")
        return r
    raise _Malformed(f"unknown value tag {k!r}")


def _list(x):
    if not isinstance(x, list):
        raise _Malformed(f"expected a list, got {type(x).__name__}")
    return x


# -------------------------------------------------------------------- ast

def _ast_to_json(node, w):
    if isinstance(node, ast.AST):
        d = {"_": type(node).__name__}
        for f in node._fields:
            d[f] = _ast_to_json(getattr(node, f, None), w)
        if hasattr(node, "lineno"):
            d["@"] = [node.lineno, node.col_offset, getattr(node, "end_lineno", None),
                      getattr(node, "end_col_offset", None)]
        return d
    if isinstance(node, list):
        return [_ast_to_json(x, w) for x in node]
    return w.value(node)


_AST_EXTRA = {"Module", "FunctionDef"}


def _ast_from_json(d, tensors):
    if isinstance(d, list):
        return [_ast_from_json(x, tensors) for x in d]
    if isinstance(d, dict) and "_" in d:
        name = d["_"]
        if name not in frontend._ALLOWED and name not in _AST_EXTRA:
            raise _Malformed(f"syntax node {name!r} is not allowed in a program")
        cls = getattr(ast, name)
        kw = {}
        for f in cls._fields:
            if f in d:
                kw[f] = _ast_from_json(d[f], tensors)
        node = cls(**kw)
        if "@" in d:
            loc = _list(d["@"])
            node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = \
                [int(x) if x is not None else None for x in loc]
        return node
    return _read_value(d, ())


# ------------------------------------------------------------------ write

def _function_json(cf, w):
    from ._script import ScriptFunction
    globs = {}
    for name, (kind, val) in cf.globals_spec.items():
        if kind == "python":
            raise RuntimeError(f"Could not export Python function call '{getattr(val, '__name__', name)}'. Remove "
                               f"calls to Python functions (@torch.jit.ignore) before export; use "
                               f"@torch.jit.unused for code that is never called")
        if kind == "script":
            if not isinstance(val, ScriptFunction):
                raise RuntimeError(f"jit.save: cannot save {name!r}")
            globs[name] = ["script", _callable_json(val, w)]
        elif kind == "unused":
            globs[name] = ["unused", name]
        elif kind == "object":
            raise RuntimeError(f"jit.save: {cf.name} uses the module {name!r} from a global; make it a submodule "
                               f"to save it")
        elif kind == "const":
            if type(val).__name__ == "SimpleNamespace":
                globs[name] = ["typing", None]
            else:
                globs[name] = ["const", w.value(val)]
        else:
            globs[name] = [kind, val]
    return {"name": cf.name, "filename": cf.filename, "method": cf.method, "ast": _ast_to_json(cf.fdef, w),
            "globals": globs}


def _graph_json(g, w):
    def meta(v):
        return [str(v.dtype).split(".")[-1], list(v.shape), v.requires_grad, str(v.device)]

    def arg(a):
        if isinstance(a, Value):
            return {"$v": a.name}
        if isinstance(a, list):
            return {"$list": [arg(x) for x in a]}
        if isinstance(a, tuple):
            return {"$tuple": [arg(x) for x in a]}
        return w.value(a)

    def out(o):
        if isinstance(o, Value):
            return {"$v": o.name}
        if isinstance(o, tuple):
            return {"$tuple": [out(x) for x in o]}
        if isinstance(o, list):
            return {"$list": [out(x) for x in o]}
        if isinstance(o, dict):
            return {"$dict": [[k, out(x)] for k, x in o.items()]}
        return w.value(o)
    nodes = []
    for n in g.nodes:
        d = {"k": n.kind, "a": [arg(a) for a in n.args], "o": [[v.name, meta(v)] for v in n.outputs],
             "r": n.result if isinstance(n.result, str) else None, "s": n.scope}
        if n.kind == "prim::CallMethod":
            d["attrs"] = {"path": list(n.attrs["path"]), "method": n.attrs["method"]}
        elif n.kind == "prim::CallFunction":
            d["attrs"] = {"name": n.attrs["name"], "fn": _callable_json(n.attrs["fn"], w)}
        nodes.append(d)
    return {"inputs": [[v.name, meta(v)] for v in g.inputs],
            "params": [[v.name, list(v.path), meta(v)] for v in g.params],
            "consts": [[v.name, w.tensor(v.ref), meta(v)] for v in g.consts],
            "nodes": nodes, "output": out(g.output)}


def _callable_json(fn, w):
    from ._script import ScriptFunction
    from ._trace import TracedFunction
    if isinstance(fn, TracedFunction):
        return {"type": "function", "kind": "trace", "name": fn.name, "graph": _graph_json(fn.graph, w)}
    if isinstance(fn, ScriptFunction):
        return {"type": "function", "kind": "script", "name": fn.name, "fn": _function_json(fn._cf, w)}
    raise RuntimeError(f"jit.save: cannot save a call to {type(fn).__name__} {getattr(fn, '__name__', '')!r}; "
                       f"only scripted and traced functions and submodules can be saved")


def _builtin_class(mod):
    """'torchlike.nn.modules.linear.Linear' for a layer of torchlike.nn's own (saved by name)."""
    cls = type(mod)
    if cls.__module__.startswith("torchlike.nn.modules.") and \
            getattr(sys.modules.get(cls.__module__), cls.__name__, None) is cls:
        return f"{cls.__module__}.{cls.__name__}"
    return None


def _find_builtin_class(name):
    mod, _, cls_name = str(name).rpartition(".")
    if not mod.startswith("torchlike.nn.modules.") or not cls_name.isidentifier() or cls_name.startswith("_"):
        return None
    try:
        module = importlib.import_module(mod)   # one of torchlike's own modules
    except ImportError:
        return None
    cls = getattr(module, cls_name, None)
    if isinstance(cls, type) and issubclass(cls, torchlike.nn.Module) and cls.__module__ == mod:
        return cls
    return None


def _module_json(m, w):
    from ._script import RecursiveScriptModule, ScriptModule, _constant_like
    if isinstance(m, RecursiveScriptModule) and m.__dict__.get("_builtin") is not None:
        m = m.__dict__["_builtin"]
    from ._trace import TracedModule
    d = {"type": "module", "name": getattr(m, "original_name", type(m).__name__), "training": bool(m.training),
         "params": {k: (None if p is None else w.tensor(p)) for k, p in m._parameters.items()},
         "buffers": {k: (None if b is None else w.tensor(b)) for k, b in m._buffers.items()},
         "non_persistent": sorted(getattr(m, "_non_persistent_buffers_set", ())),
         "children": {k: (None if c is None else _module_json(c, w)) for k, c in m._modules.items()}}
    attrs = {}
    machinery = _module_machinery()
    for k, v in m.__dict__.items():
        if k.startswith("__") or k in machinery or k in _SCRIPT_INTERNALS or k == "training":
            continue
        if _constant_like(v):
            attrs[k] = w.value(v)
    d["attrs"] = attrs
    if isinstance(m, TracedModule):
        d["kind"] = "trace"
        d["graphs"] = {k: _graph_json(g, w) for k, g in m._graphs.items()}
    elif isinstance(m, RecursiveScriptModule):
        d["kind"] = "script"
        d["container"] = m.__dict__.get("_container")
        d["methods"] = {k: _function_json(cf, w) for k, cf in m.__dict__["_methods"].items()}
        unused = []
        for k, f in m.__dict__["_py_methods"].items():
            if getattr(f, "__self__", None) is not None:
                raise RuntimeError(f"Could not export Python function call '{k}'. Remove calls to Python "
                                   f"functions (@torch.jit.ignore) before export; use @torch.jit.unused for code "
                                   f"that is never called")
            unused.append(k)
        d["unused"] = unused
    elif isinstance(m, ScriptModule):
        raise RuntimeError(f"jit.save: cannot save a {type(m).__name__}")
    else:
        cls = _builtin_class(m)
        if cls is None:
            raise RuntimeError(f"jit.save: the submodule {type(m).__name__} is neither scripted nor traced; script "
                               f"or trace it before saving")
        d["kind"] = "builtin"
        d["class"] = cls
    return d


_MACHINERY = None
# What RecursiveScriptModule / TracedModule keep in their own __dict__: never a model attribute.
_SCRIPT_INTERNALS = frozenset({"_methods", "_py_methods", "_container", "_graphs", "_original_name", "_builtin",
                               "_qualified_class", "_frozen"})


def _module_machinery():
    """The instance attributes every nn.Module has (hook tables, ...): not the model's."""
    global _MACHINERY
    if _MACHINERY is None:
        _MACHINERY = frozenset(torchlike.nn.Module().__dict__)
    return _MACHINERY


def save(m, f, _extra_files=None):
    """Saves a ScriptModule or ScriptFunction to a path or a binary file object."""
    from ._script import ScriptFunction, ScriptModule
    w = _Writer()
    if isinstance(m, ScriptModule):
        root = _module_json(m, w)
    elif isinstance(m, ScriptFunction):
        root = _callable_json(m, w)
    else:
        raise RuntimeError(f"jit.save: expected a ScriptModule or ScriptFunction (from jit.script or jit.trace), got "
                           f"{type(m).__name__}")
    program = {"format": "torchlike.jit", "version": VERSION, "root": root}
    buf = io.BytesIO()
    torchlike.save({str(i): t for i, t in enumerate(w.tensors)}, buf)
    if isinstance(f, (str, os.PathLike)):
        f = os.fspath(f)
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED) as z:
        z.writestr(_PREFIX + "version", str(VERSION))
        z.writestr(_PREFIX + "program.json", json.dumps(program, indent=None, separators=(",", ":")))
        z.writestr(_PREFIX + "tensors.pt", buf.getvalue())
        for name, data in (_extra_files or {}).items():
            z.writestr(_PREFIX + "extra/" + name, data if isinstance(data, (bytes, str)) else str(data))


# ------------------------------------------------------------------- read

class _Reader:
    def __init__(self, tensors):
        self.tensors = tensors
        self.ops = None

    def op_ok(self, name):
        if self.ops is None:
            self.ops = set(_C._dispatch_list_ops())
        return name in self.ops and frontend_has_schema(name)

    def function(self, d):
        from ._script import _compile
        fdef = _ast_from_json(d["ast"], self.tensors)
        if not isinstance(fdef, ast.FunctionDef):
            raise _Malformed("a scripted function's syntax tree must be a def")
        ast.fix_missing_locations(fdef)
        env = {}
        for name, spec in d["globals"].items():
            kind, val = _list(spec)
            if kind == "ns":
                if val not in frontend._NAMESPACES and val != "torch.jit":
                    raise _Malformed(f"namespace {val!r} is not allowed")
                env[name] = frontend._NAMESPACES.get(val) if val != "torch.jit" else __import__(
                    "torchlike.jit", fromlist=["jit"])
            elif kind == "fn":
                try:
                    env[name] = frontend.resolve_qualname(str(val))
                except (AttributeError, RuntimeError) as e:
                    raise _Malformed(f"function {val!r} is not allowed ({e})") from None
            elif kind == "builtin":
                if val not in frontend._SAFE_BUILTINS and val != "isinstance":
                    raise _Malformed(f"builtin {val!r} is not allowed")
            elif kind == "script":
                env[name] = self.callable(val)
            elif kind == "unused":
                from ._script import _unused_stub
                stub = _unused_stub(str(val))
                stub._torchscript_modifier = "unused"
                env[name] = stub
            elif kind == "const":
                v = _read_value(val, self.tensors)
                if not (v is None or isinstance(v, (bool, int, float, str, tuple, torchlike.dtype,
                                                    torchlike.device))):
                    raise _Malformed(f"constant {name!r} has a type a program cannot hold")
                env[name] = v
            elif kind == "type":
                if val not in frontend._TYPING_VALUES:
                    raise _Malformed(f"type {val!r} is not allowed")
                env[name] = frontend._TYPING_VALUES[val]
            elif kind == "jitfn":
                if val not in ("annotate", "isinstance", "is_scripting", "is_tracing", "fork", "wait"):
                    raise _Malformed(f"torch.jit.{val} is not allowed")
                from torchlike import jit
                env[name] = getattr(jit, val)
            elif kind == "typing":
                import typing
                env[name] = typing
            else:
                raise _Malformed(f"unknown global kind {kind!r}")
        return _compile(None, bool(d.get("method")), fdef, str(d.get("filename", "<saved>")), env=env)

    def callable(self, d):
        from ._script import ScriptFunction
        from ._trace import TracedFunction
        if not isinstance(d, dict) or d.get("type") != "function":
            raise _Malformed("expected a function")
        if d.get("kind") == "trace":
            return TracedFunction(str(d["name"]), self.graph(d["graph"]))
        if d.get("kind") == "script":
            return ScriptFunction(self.function(d["fn"]), str(d["name"]))
        raise _Malformed(f"unknown function kind {d.get('kind')!r}")

    def graph(self, d):
        g = Graph()
        vals = {}

        def meta(m):
            dt, shape, rg, dev = _list(m)
            dtype = getattr(torchlike, str(dt), None)
            if not isinstance(dtype, torchlike.dtype):
                raise _Malformed(f"unknown dtype {dt!r}")
            return (dtype, tuple(int(s) for s in _list(shape)), bool(rg), torchlike.device(str(dev)))

        def define(v):
            if v.name in vals:
                raise _Malformed(f"value %{v.name} defined twice")
            vals[v.name] = v
            return v
        for name, m in d["inputs"]:
            g.inputs.append(define(Value("input", str(name), meta(m))))
        for name, path, m in d["params"]:
            g.params.append(define(Value("param", str(name), meta(m), path=tuple(str(p) for p in _list(path)))))
        for name, tid, m in d["consts"]:
            g.consts.append(define(Value("const", str(name), meta(m), ref=_read_value({"$tensor": tid},
                                                                                      self.tensors))))

        def arg(a):
            if isinstance(a, dict) and "$v" in a:
                v = vals.get(a["$v"])
                if v is None:
                    raise _Malformed(f"value %{a['$v']} used before it is defined")
                return v
            if isinstance(a, dict) and "$list" in a:
                return [arg(x) for x in _list(a["$list"])]
            if isinstance(a, dict) and "$tuple" in a:
                return tuple(arg(x) for x in _list(a["$tuple"]))
            if isinstance(a, dict) and "$dict" in a:
                return {k: arg(x) for k, x in _list(a["$dict"])}
            return _read_value(a, self.tensors)
        for nd in _list(d["nodes"]):
            kind = str(nd["k"])
            attrs = {}
            if kind == "prim::CallMethod":
                attrs = {"path": [str(p) for p in nd["attrs"]["path"]], "method": str(nd["attrs"]["method"])}
                if attrs["method"].startswith("_") or any(p.startswith("_") for p in attrs["path"]):
                    raise _Malformed(f"method name {attrs['method']!r} is not allowed")
            elif kind == "prim::CallFunction":
                attrs = {"name": str(nd["attrs"]["name"]), "fn": self.callable(nd["attrs"]["fn"])}
            elif not self.op_ok(kind):
                raise _Malformed(f"unknown operator {kind!r}")
            result = nd.get("r")
            if kind.startswith("aten::") or "::" in kind and not kind.startswith("prim::"):
                if result not in ("tensor", "tuple", "list", "none"):
                    raise _Malformed(f"bad result kind {result!r}")
            n = Node(kind, [arg(a) for a in _list(nd["a"])], [], result, str(nd.get("s", "")), attrs)
            n.outputs = [define(Value("node", str(name), meta(m))) for name, m in nd["o"]]
            g.nodes.append(n)
        g.output = arg(d["output"])
        for p in (v.path for v in g.params):
            if any(x.startswith("_") for x in p):
                raise _Malformed(f"attribute path {'.'.join(p)!r} is not allowed")
        return g

    def module(self, d):
        from ._script import RecursiveScriptModule
        from ._trace import TracedModule
        if not isinstance(d, dict) or d.get("type") != "module":
            raise _Malformed("expected a module")
        kind = d.get("kind")
        name = str(d.get("name", "Module"))
        if kind == "trace":
            m = TracedModule(None, name=name)
        elif kind == "script":
            m = RecursiveScriptModule(name)
            m.__dict__["_container"] = d.get("container")
        elif kind == "builtin":
            cls = _find_builtin_class(d.get("class"))
            if cls is None:
                raise _Malformed(f"module class {d.get('class')!r} is not one of torchlike.nn's")
            m = cls.__new__(cls)
            torchlike.nn.Module.__init__(m)
        else:
            raise _Malformed(f"unknown module kind {kind!r}")
        m.training = bool(d.get("training", False))
        for k, tid in d.get("params", {}).items():
            t = None if tid is None else _read_value({"$tensor": tid}, self.tensors)
            if t is not None and not isinstance(t, torchlike.nn.Parameter):
                t = torchlike.nn.Parameter(t, requires_grad=t.requires_grad)
            m._parameters[str(k)] = t
        for k, tid in d.get("buffers", {}).items():
            m._buffers[str(k)] = None if tid is None else _read_value({"$tensor": tid}, self.tensors)
        m._non_persistent_buffers_set = set(d.get("non_persistent", ()))
        for k, c in d.get("children", {}).items():
            m._modules[str(k)] = None if c is None else self.module(c)
        for k, v in d.get("attrs", {}).items():
            # An attribute may not shadow the module's own machinery (forward, _parameters, ...).
            if str(k).startswith("__") or hasattr(type(m), str(k)) or str(k) in m.__dict__:
                raise _Malformed(f"attribute name {k!r} is not allowed")
            m.__dict__[str(k)] = _read_value(v, self.tensors)
        if kind == "trace":
            m._graphs.update({str(k): self.graph(g) for k, g in d.get("graphs", {}).items()})
            for g in m._graphs.values():
                g._self_type = f"__torch__.{name}"
        elif kind == "script":
            for k, fd in d.get("methods", {}).items():
                m.__dict__["_methods"][str(k)] = self.function(fd)
            # A method reads on self only what the module holds (as script() checked when it compiled).
            machinery = _module_machinery()
            for cf in m.__dict__["_methods"].values():
                for attr, _node in cf.self_attrs:
                    held = (attr in m._parameters or attr in m._buffers or attr in m._modules or attr in m.__dict__
                            or attr in d.get("unused", ()) or attr == "training")
                    if attr in machinery or attr in _SCRIPT_INTERNALS or not held:
                        raise _Malformed(f"{name}.{cf.name} reads self.{attr}, which the module does not hold")
            from ._script import _unused_stub
            for k in d.get("unused", ()):
                m.__dict__["_py_methods"][str(k)] = _unused_stub(f"{name}.{k}")
        return m


def frontend_has_schema(name):
    try:
        return bool(_C._dispatch_schema(name))
    except ValueError:
        return False


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Loads what jit.save wrote. map_location: a device, a string, or a
    dict/function as torchlike.load takes. _extra_files: a dict whose keys
    are filled with the saved extra files' contents."""
    where = f if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "<file object>")
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    try:
        z = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise RuntimeError(f"jit.load: {where}: not a TorchScript archive (not a zip file: {e})") from None
    with z:
        names = set(z.namelist())
        prefix = _PREFIX
        for need in ("version", "program.json", "tensors.pt"):
            if prefix + need not in names:
                raise RuntimeError(f"jit.load: {where}: not a TorchScript archive written by torchlike.jit.save "
                                   f"({prefix + need} is missing)")
        try:
            version = int(z.read(prefix + "version").decode().strip())
        except ValueError:
            raise RuntimeError(f"jit.load: {where}: malformed archive: bad version record") from None
        if version != VERSION:
            raise RuntimeError(f"jit.load: {where}: archive format version {version} is not supported (this "
                               f"torchlike reads version {VERSION})")
        try:
            program = json.loads(z.read(prefix + "program.json").decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError) as e:
            raise RuntimeError(f"jit.load: {where}: malformed archive: program.json is not valid JSON ({e})") \
                from None
        try:
            tensors_map = torchlike.load(io.BytesIO(z.read(prefix + "tensors.pt")), map_location=map_location,
                                         weights_only=True)
        except Exception as e:
            raise RuntimeError(f"jit.load: {where}: malformed archive: the tensor record cannot be read "
                               f"({type(e).__name__}: {e})") from None
        if _extra_files is not None:
            for k in list(_extra_files):
                if prefix + "extra/" + k in names:
                    _extra_files[k] = z.read(prefix + "extra/" + k)
    try:
        if not isinstance(program, dict) or program.get("format") != "torchlike.jit":
            raise _Malformed("program.json is not a torchlike.jit program")
        if not isinstance(tensors_map, dict):
            raise _Malformed("the tensor record is not a dict")
        tensors = [tensors_map[str(i)] for i in range(len(tensors_map))]
        r = _Reader(tensors)
        root = program["root"]
        if root.get("type") == "module":
            m = r.module(root)
            if root.get("kind") == "builtin":
                from ._script import _script_module
                m = _script_module(m, {})
            return m
        return r.callable(root)
    except frontend.FrontendError as e:
        raise RuntimeError(f"jit.load: {where}: the saved program is not valid TorchScript: {e}") from None
    except (_Malformed, KeyError, TypeError, ValueError, AttributeError, SyntaxError, RecursionError) as e:
        raise RuntimeError(f"jit.load: {where}: malformed archive: {type(e).__name__ + ': ' if not isinstance(e, _Malformed) else ''}{e}") from None
