"""The front end of jit.script: a function's source, parsed with `ast`,
checked against the supported subset of Python, its free names resolved
once, and compiled into a Python function whose globals hold only what the
check allowed. The same check runs again on a program read by jit.load, so
a saved file can only reach what a scripted source could.

The subset: def with positional parameters (type annotations: Tensor, int,
float, bool, str, List/Tuple/Optional/Dict of those; an unannotated
parameter is a Tensor, as in TorchScript), assignments (also augmented and
annotated, tuple unpacking), if/elif/else, for over range/lists/tuples/
tensors/module lists, while, break, continue, pass, return, assert, raise
of an exception, expressions (arithmetic, comparisons, boolean operators,
conditional expressions, subscripts and slices, tuple/list/dict literals,
list comprehensions, f-strings), calls of torch / torch.nn.functional /
math functions, tensor methods, other scripted or traced callables,
methods and submodules of `self`, and plain Python functions (compiled in
turn). Not supported (an UnsupportedNodeError naming the construct, the
file and the line): lambda, nested def and class, with, try, global and
nonlocal, generators, yield, await, imports, set literals and
comprehensions, starred arguments, attributes whose name begins with an
underscore (other than on self), *args/**kwargs.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import math
import textwrap
import types
import typing

import torchlike

__all__ = ["FrontendError", "NotSupportedError", "UnsupportedNodeError", "get_jit_def", "CompiledFunction",
           "compile_def", "parse_type", "check_type", "type_name"]


# ------------------------------------------------------------------ errors

class SourceRange:
    def __init__(self, filename, lineno, col, end_col=None):
        self.filename, self.lineno, self.col, self.end_col = filename, lineno, col, end_col

    def highlight(self):
        text = linecache.getline(self.filename, self.lineno).rstrip("\n") if self.filename else ""
        out = f'  File "{self.filename}", line {self.lineno}\n'
        if text:
            width = max((self.end_col or len(text)) - self.col, 1)
            out += f"    {text}\n    {' ' * self.col}{'~' * width} <--- HERE\n"
        return out


class FrontendError(Exception):
    """A construct the script compiler rejects; the message names it and its place."""

    def __init__(self, source_range, msg):
        self.source_range = source_range
        self.msg = msg
        super().__init__(f"{msg}:\n{source_range.highlight()}" if source_range is not None else msg)


class NotSupportedError(FrontendError):
    pass


class UnsupportedNodeError(NotSupportedError):
    def __init__(self, ctx, node, reason=""):
        name = _NODE_NAMES.get(type(node).__name__, type(node).__name__ + " expressions")
        super().__init__(ctx.range(node), f"{name} aren't supported{reason}")


_NODE_NAMES = {
    "Lambda": "Lambda", "With": "with statements", "AsyncWith": "async with statements", "Try": "try blocks",
    "TryStar": "try blocks", "FunctionDef": "function definitions", "AsyncFunctionDef": "async function definitions",
    "ClassDef": "class definitions", "Global": "global variables", "Nonlocal": "nonlocal variables",
    "GeneratorExp": "GeneratorExp", "Yield": "yield statements", "YieldFrom": "yield from statements",
    "Await": "await expressions", "Import": "import statements", "ImportFrom": "import statements",
    "Set": "set literals", "SetComp": "set comprehensions", "DictComp": "dict comprehensions",
    "Starred": "starred expressions", "NamedExpr": "assignment expressions", "Delete": "del statements",
    "AsyncFor": "async for loops", "Match": "match statements",
}

_ALLOWED = {
    "FunctionDef", "arguments", "arg", "Return", "Assign", "AugAssign", "AnnAssign", "If", "For", "While",
    "Break", "Continue", "Pass", "Expr", "Assert", "Raise", "IfExp", "BoolOp", "BinOp", "UnaryOp", "Compare",
    "Call", "keyword", "Attribute", "Name", "Constant", "Tuple", "List", "Dict", "Subscript", "Slice",
    "ListComp", "comprehension", "JoinedStr", "FormattedValue", "Load", "Store", "Del",
    # operators
    "And", "Or", "Add", "Sub", "Mult", "MatMult", "Div", "Mod", "Pow", "LShift", "RShift", "BitOr", "BitXor",
    "BitAnd", "FloorDiv", "Invert", "Not", "UAdd", "USub", "Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is",
    "IsNot", "In", "NotIn",
}

# Attribute names a program may not read, whatever the object: they reach
# files, Python callables or process state rather than compute.
_DENY_ATTRS = {
    "numpy", "storage", "untyped_storage", "tofile", "from_file", "register_hook", "apply_", "map_", "map2_",
    "share_memory_", "save", "load", "load_state_dict", "state_dict", "register_forward_hook",
    "register_forward_pre_hook", "register_full_backward_hook", "register_full_backward_pre_hook",
    "register_backward_hook", "register_buffer", "register_parameter", "register_module", "add_module", "apply",
    "format_map", "register_post_accumulate_grad_hook", "cpp", "set_", "pin_memory", "share_memory",
    "register_prehook",
}


class _Ctx:
    def __init__(self, filename, name):
        self.filename = filename
        self.name = name

    def range(self, node):
        return SourceRange(self.filename, getattr(node, "lineno", 0), getattr(node, "col_offset", 0),
                           getattr(node, "end_col_offset", None) if getattr(node, "end_lineno", None) ==
                           getattr(node, "lineno", None) else None)


# ------------------------------------------------------------------- types

class _T:
    """A TorchScript type: kind in Tensor, int, float, bool, str, None, Any,
    List, Tuple, Optional, Dict, Device, dtype."""

    def __init__(self, kind, args=()):
        self.kind, self.args = kind, tuple(args)

    def __repr__(self):
        if self.args:
            return f"{self.kind}[{', '.join(map(repr, self.args))}]"
        return self.kind

    def __eq__(self, other):
        return isinstance(other, _T) and (self.kind, self.args) == (other.kind, other.args)

    def __hash__(self):
        return hash((self.kind, self.args))


TENSOR = _T("Tensor")
ANY = _T("Any")


def parse_type(obj):
    """A type from a Python annotation object (typing generics, classes)."""
    if obj is None or obj is type(None):
        return _T("NoneType")
    if obj is inspect.Parameter.empty:
        return TENSOR
    if isinstance(obj, _T):
        return obj
    if isinstance(obj, str):
        return parse_type_expr(ast.parse(obj, mode="eval").body)
    if obj is torchlike.Tensor or (isinstance(obj, type) and issubclass(obj, torchlike.Tensor)):
        return TENSOR
    simple = {int: "int", float: "float", bool: "bool", str: "str", torchlike.device: "Device",
              torchlike.dtype: "int", typing.Any: "Any"}
    if obj in simple:
        return _T(simple[obj])
    origin = typing.get_origin(obj)
    args = typing.get_args(obj)
    if origin in (list, typing.List):
        return _T("List", [parse_type(args[0]) if args else TENSOR])
    if origin in (tuple, typing.Tuple):
        return _T("Tuple", [parse_type(a) for a in args if a is not Ellipsis])
    if origin in (dict, typing.Dict):
        return _T("Dict", [parse_type(a) for a in args])
    if origin is typing.Union:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return _T("Optional", [parse_type(rest[0])])
        return _T("Union", [parse_type(a) for a in args])
    if origin is typing.Final or obj is typing.Final:
        return parse_type(args[0]) if args else ANY
    return ANY


_TYPE_NAMES = {"Tensor": "Tensor", "int": "int", "float": "float", "bool": "bool", "str": "str",
               "Any": "Any", "device": "Device", "dtype": "int", "None": "NoneType"}


def parse_type_expr(e):
    """A type from an annotation's AST (what jit.load reads: no evaluation)."""
    if isinstance(e, ast.Constant):
        if e.value is None:
            return _T("NoneType")
        if isinstance(e.value, str):
            return parse_type_expr(ast.parse(e.value, mode="eval").body)
    if isinstance(e, ast.Name):
        return _T(_TYPE_NAMES.get(e.id, "Any"))
    if isinstance(e, ast.Attribute):
        return _T(_TYPE_NAMES.get(e.attr, "Any"))
    if isinstance(e, ast.Subscript):
        base = e.value.attr if isinstance(e.value, ast.Attribute) else getattr(e.value, "id", "")
        items = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        args = [parse_type_expr(x) for x in items if not (isinstance(x, ast.Constant) and x.value is Ellipsis)]
        base = {"list": "List", "tuple": "Tuple", "dict": "Dict"}.get(base, base)
        if base == "Optional":
            return _T("Optional", args[:1])
        if base == "Union":
            rest = [a for a in args if a.kind != "NoneType"]
            return _T("Optional", rest) if len(rest) == 1 and len(args) == 2 else _T("Union", args)
        if base == "Final":
            return args[0] if args else ANY
        if base in ("List", "Tuple", "Dict"):
            return _T(base, args)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):
        a, b = parse_type_expr(e.left), parse_type_expr(e.right)
        if b.kind == "NoneType":
            return _T("Optional", [a])
        if a.kind == "NoneType":
            return _T("Optional", [b])
        return _T("Union", [a, b])
    return ANY


def type_name(v):
    """The TorchScript type of a Python value, for messages."""
    if isinstance(v, torchlike.Tensor):
        return "Tensor"
    if v is None:
        return "NoneType"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return f"List[{type_name(v[0]) if v else 'Tensor'}]"
    if isinstance(v, tuple):
        return f"Tuple[{', '.join(type_name(x) for x in v)}]"
    if isinstance(v, dict):
        return "Dict"
    return type(v).__name__


def check_type(v, t):
    """Whether the Python value v has TorchScript type t."""
    k = t.kind
    if k == "Any":
        return True
    if k == "Tensor":
        return isinstance(v, torchlike.Tensor)
    if k == "int":
        return isinstance(v, int) and not isinstance(v, bool) or isinstance(v, torchlike.dtype)
    if k == "float":
        return isinstance(v, (float, int)) and not isinstance(v, bool)
    if k == "bool":
        return isinstance(v, bool)
    if k == "str":
        return isinstance(v, str)
    if k == "Device":
        return isinstance(v, (torchlike.device, str))
    if k == "NoneType":
        return v is None
    if k == "Optional":
        return v is None or check_type(v, t.args[0])
    if k == "Union":
        return any(check_type(v, a) for a in t.args)
    if k == "List":
        return isinstance(v, list) and all(check_type(x, t.args[0]) for x in v)
    if k == "Tuple":
        return isinstance(v, tuple) and (not t.args or (len(v) == len(t.args) and
                                                         all(check_type(x, a) for x, a in zip(v, t.args))))
    if k == "Dict":
        return isinstance(v, dict) and all(check_type(a, t.args[0]) and check_type(b, t.args[1])
                                           for a, b in v.items()) if len(t.args) == 2 else isinstance(v, dict)
    return True


# ------------------------------------------------------------ namespaces

# The only modules a program reaches, under the names it saves them by.
_NAMESPACES = {
    "torch": torchlike, "torch.nn": torchlike.nn, "torch.nn.functional": torchlike.nn.functional,
    "torch.linalg": torchlike.linalg, "torch.special": torchlike.special, "math": math,
}
# Members of `torch` that touch files or process-wide state, not compute.
_DENY_TORCH = {"save", "load", "from_file", "compile", "manual_seed", "seed", "initial_seed", "hub", "ops",
               "library", "utils", "backends", "multiprocessing", "distributed", "serialization", "cuda", "jit",
               "use_deterministic_algorithms", "set_printoptions", "set_num_threads", "set_num_interop_threads",
               "set_anomaly_enabled", "set_rng_state", "get_rng_state", "random", "testing", "profiler", "cpu",
               "accelerator", "amp", "autograd", "optim", "distributions", "nn", "classes", "as_torch", "types",
               "version", "set_default_device", "set_default_dtype", "set_default_tensor_type", "set_flush_denormal",
               "set_float32_matmul_precision", "set_warn_always", "set_deterministic_debug_mode",
               "get_device_module"}   # returns a module, which would bypass _NAMESPACES


class Namespace:
    """A module as a program sees it: functions and constants only, never
    a module outside _NAMESPACES, never a name beginning with '_'."""

    def __init__(self, qualname):
        self._qualname = qualname
        self._module = _NAMESPACES[qualname]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        q = f"{self._qualname}.{name}"
        if q in _NAMESPACES:
            self.__dict__[name] = Namespace(q)
            return self.__dict__[name]
        if q == "torch.jit":
            return _jit_namespace()
        if self._qualname == "torch" and (name in _DENY_TORCH or name.startswith("set_")):
            raise AttributeError(f"torch.{name} is not supported in TorchScript")
        if self._qualname == "torch.nn":
            raise AttributeError(f"torch.nn.{name} is not supported in TorchScript (use torch.nn.functional)")
        obj = getattr(self._module, name)
        if isinstance(obj, types.ModuleType):
            raise AttributeError(f"{q} is not supported in TorchScript")
        self.__dict__[name] = obj   # allowed once, allowed always: later reads skip this check
        return obj

    def __repr__(self):
        return f"<TorchScript namespace {self._qualname}>"


_JIT_NS = None


def _jit_namespace():
    """torch.jit inside a program: is_scripting() is True there."""
    global _JIT_NS
    if _JIT_NS is None:
        from torchlike import jit
        _JIT_NS = types.SimpleNamespace(
            is_scripting=lambda: True, is_tracing=lambda: False, annotate=jit.annotate, isinstance=jit.isinstance,
            fork=jit.fork, wait=jit.wait, Error=jit.Error, Final=jit.Final)
    return _JIT_NS


def namespace_of(obj):
    for q, m in _NAMESPACES.items():
        if obj is m:
            return q
    return None


def function_qualname(obj):
    """'torch.tanh' for a function reachable through an allowed namespace."""
    name = getattr(obj, "__name__", None)
    if not name or name.startswith("_"):
        return None
    for q, m in _NAMESPACES.items():
        if q in ("torch.nn",):
            continue
        if getattr(m, name, None) is obj:
            if q == "torch" and (name in _DENY_TORCH or name.startswith("set_")):
                return None
            return f"{q}.{name}"
    return None


def resolve_qualname(q):
    """The function for a saved qualified name, through the same allow-list."""
    mod, _, name = q.rpartition(".")
    if mod not in _NAMESPACES:
        raise RuntimeError(f"{q}: not a function TorchScript may call")
    return getattr(Namespace(mod), name)


_SAFE_BUILTINS = {
    name: getattr(builtins, name) for name in (
        "range", "len", "int", "float", "bool", "str", "min", "max", "abs", "print", "list", "tuple", "enumerate",
        "zip", "sum", "round", "divmod", "any", "all", "sorted", "reversed", "hasattr", "ord", "chr", "dict",
        "Exception", "RuntimeError", "ValueError", "TypeError", "AssertionError", "IndexError", "KeyError",
        "NotImplementedError", "ZeroDivisionError", "StopIteration", "ArithmeticError", "True", "False", "None")
    if hasattr(builtins, name)}


def safe_builtins():
    from torchlike import jit
    d = dict(_SAFE_BUILTINS)
    d["isinstance"] = jit.isinstance
    return d


# --------------------------------------------------------------- checking

class _Checker(ast.NodeVisitor):
    def __init__(self, ctx, fdef):
        self.ctx = ctx
        self.fdef = fdef
        self.locals = set()
        self.free = []               # free names in order of first use
        self.self_name = None
        self.self_calls = set()      # names called as self.<name>(...)
        self.self_attrs = []         # (name, node) read as self.<name>

    def run(self, method):
        f = self.fdef
        a = f.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise NotSupportedError(self.ctx.range(f), "Compiled functions can't take variable number of "
                                    "arguments or use keyword-only arguments with defaults")
        for d in a.defaults:
            try:
                ast.literal_eval(d)
            except ValueError:
                raise NotSupportedError(self.ctx.range(d), "Default values of parameters must be constants "
                                        "(numbers, strings, booleans, None, tuples of those)") from None
        names = [x.arg for x in a.args]
        if method:
            if not names:
                raise NotSupportedError(self.ctx.range(f), "a method needs a 'self' parameter")
            self.self_name = names[0]
        self.locals.update(names)
        for node in ast.walk(ast.Module(body=f.body, type_ignores=[])):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.locals.add(node.id)
            elif isinstance(node, ast.arg):
                self.locals.add(node.arg)
        for stmt in f.body:
            self.visit(stmt)
        return self

    def generic_visit(self, node):
        if type(node).__name__ not in _ALLOWED:
            raise UnsupportedNodeError(self.ctx, node)
        super().generic_visit(node)

    def visit_FunctionDef(self, node):
        raise UnsupportedNodeError(self.ctx, node, " (define the function at module level instead)")

    def visit_Name(self, node):
        if node.id.startswith("__"):
            raise NotSupportedError(self.ctx.range(node), f"names beginning with '__' ({node.id}) aren't supported")
        if isinstance(node.ctx, ast.Load) and node.id not in self.locals and node.id not in self.free:
            self.free.append(node.id)

    def visit_Attribute(self, node):
        name = node.attr
        on_self = isinstance(node.value, ast.Name) and node.value.id == self.self_name
        if name.startswith("__") or (name.startswith("_") and not on_self):
            raise NotSupportedError(self.ctx.range(node), f"attribute names beginning with '_' ({name}) "
                                    f"aren't supported (except a module's own attributes on self)")
        if name in _DENY_ATTRS:
            raise NotSupportedError(self.ctx.range(node), f"the attribute '{name}' isn't supported in TorchScript")
        if on_self:
            self.self_attrs.append((name, node))
        self.visit(node.value)

    def visit_Call(self, node):
        for k in node.keywords:
            if k.arg is None:
                raise NotSupportedError(self.ctx.range(node), "keyword argument unpacking (**kwargs) isn't "
                                        "supported")
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == self.self_name:
            self.self_calls.add(f.attr)
        self.generic_visit(node)

    def visit_Constant(self, node):
        if not isinstance(node.value, (int, float, bool, str, type(None), complex)) and node.value is not Ellipsis:
            raise NotSupportedError(self.ctx.range(node), f"constants of type {type(node.value).__name__} aren't "
                                    f"supported")

    def visit_Raise(self, node):
        if node.cause is not None:
            raise NotSupportedError(self.ctx.range(node), "raise ... from ... isn't supported")
        self.generic_visit(node)


# --------------------------------------------------------------- compiling

def get_jit_def(fn):
    """(FunctionDef with the file's line numbers, filename) of a Python function."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as e:
        raise OSError(f"jit.script: can't get the source of {getattr(fn, '__qualname__', fn)!r} ({e}); "
                      f"TorchScript needs the function's source code") from None
    src = textwrap.dedent("".join(lines))
    mod = ast.parse(src)
    fdef = mod.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise RuntimeError(f"jit.script: expected a def, got {type(fdef).__name__}")
    ast.increment_lineno(fdef, first - 1)
    indent = len(lines[0]) - len(lines[0].lstrip())
    if indent:
        for n in ast.walk(fdef):
            if hasattr(n, "col_offset"):
                n.col_offset += indent
                if getattr(n, "end_col_offset", None) is not None:
                    n.end_col_offset += indent
    linecache.checkcache(filename)
    return fdef, filename


class CompiledFunction:
    """A checked def compiled against its resolved free names.

    `globals_spec` says, for each free name, what it resolved to in a form
    jit.save can write: ("ns", qualname), ("fn", qualname), ("const", value),
    ("builtin", name), ("script", ScriptFunction), ("python", fn) (ignored:
    not saveable), ("unused", name), ("object", obj) (a ScriptModule)."""

    def __init__(self, fdef, filename, globals_spec, method, self_calls):
        self.fdef = fdef
        self.filename = filename
        self.name = fdef.name
        self.globals_spec = globals_spec
        self.method = method
        self.self_calls = self_calls
        a = fdef.args
        self.arg_names = [x.arg for x in a.args]
        self.arg_types = [parse_type_expr(x.annotation) if x.annotation is not None else TENSOR for x in a.args]
        self.defaults = [ast.literal_eval(d) for d in a.defaults]
        self.return_type = parse_type_expr(fdef.returns) if fdef.returns is not None else None
        self._ptypes = self.arg_types[1:] if method else self.arg_types
        self._nparams = len(self._ptypes)
        g = {"__builtins__": safe_builtins(), "__name__": f"__torch__.{self.name}"}
        for name, (kind, val) in globals_spec.items():
            g[name] = _materialize(kind, val)
        stripped = _strip_annotations(fdef)
        code = compile(ast.Module(body=[stripped], type_ignores=[]), filename, "exec")
        ns = {}
        exec(code, g, ns)  # defines the function from the checked AST; runs no program code
        self.py = ns[self.name]

    def source(self):
        return ast.unparse(self.fdef)

    def bind(self, args, kwargs, owner_name):
        """Checks and completes the arguments (PyTorch's schema matching)."""
        if not kwargs and len(args) == self._nparams:
            # Every argument given positionally: only the type checks remain.
            for v, t in zip(args, self._ptypes):
                if not (t is TENSOR and isinstance(v, torchlike.Tensor)):
                    break
            else:
                return args
        kwargs = dict(kwargs)
        names, types_ = self.arg_names, self.arg_types
        start = 1 if self.method else 0
        params = names[start:]
        ptypes = types_[start:]
        nd = len(self.defaults)
        defaults = dict(zip(names[len(names) - nd:], self.defaults)) if nd else {}
        if len(args) > len(params):
            raise RuntimeError(f"{owner_name}() expected at most {len(params)} argument(s) but received "
                               f"{len(args)} argument(s). Declaration: {self.schema()}")
        vals = list(args)
        for p in params[len(args):]:
            if p in kwargs:
                vals.append(kwargs.pop(p))
            elif p in defaults:
                vals.append(defaults[p])
            else:
                raise RuntimeError(f"{owner_name}() is missing value for argument '{p}'. Declaration: "
                                   f"{self.schema()}")
        if kwargs:
            raise RuntimeError(f"{owner_name}() got an unexpected keyword argument '{next(iter(kwargs))}'. "
                               f"Declaration: {self.schema()}")
        for i, (p, t, v) in enumerate(zip(params, ptypes, vals)):
            if not check_type(v, t):
                raise RuntimeError(f"{owner_name}() Expected a value of type '{t!r}' for argument '{p}' but "
                                   f"instead found type '{type_name(v)}'.\nPosition: {i + start}\n"
                                   f"Declaration: {self.schema()}")
            if t.kind == "float" and isinstance(v, int):
                vals[i] = float(v)
        return vals

    def schema(self):
        start = 1 if self.method else 0
        ps = [f"{t!r} {n}" for n, t in zip(self.arg_names[start:], self.arg_types[start:])]
        ret = repr(self.return_type) if self.return_type is not None else "Any"
        return f"{self.name}({', '.join(ps)}) -> {ret}"


def _strip_annotations(fdef):
    import copy
    f = copy.deepcopy(fdef)
    f.decorator_list = []
    f.returns = None
    for a in f.args.args:
        a.annotation = None
    return f


def _materialize(kind, val):
    if kind == "ns":
        return Namespace(val) if val != "torch.jit" else _jit_namespace()
    if kind == "fn":
        return resolve_qualname(val)
    if kind == "builtin":
        return safe_builtins()[val]
    if kind == "type":
        return _TYPING_VALUES.get(val, val)
    if kind == "jitfn":
        return getattr(_jit_namespace(), val)
    return val  # const, script, python, object, unused


_TYPING_VALUES = {"List": typing.List, "Tuple": typing.Tuple, "Optional": typing.Optional, "Dict": typing.Dict,
                  "Tensor": torchlike.Tensor, "Any": typing.Any, "Union": typing.Union}


def check_def(fdef, filename, method):
    """Checks a def against the subset; returns (checker with the free names, context)."""
    ctx = _Ctx(filename, fdef.name)
    return _Checker(ctx, fdef).run(method), ctx


class UndefinedValueError(FrontendError, RuntimeError):
    """A name that is neither local nor resolvable (a RuntimeError, as PyTorch raises)."""


def undefined(ctx, fdef, name):
    node = next((n for n in ast.walk(fdef) if isinstance(n, ast.Name) and n.id == name), fdef)
    return UndefinedValueError(ctx.range(node), f"undefined value {name}")
