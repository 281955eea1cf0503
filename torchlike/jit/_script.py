"""jit.script: ScriptFunction, ScriptModule and RecursiveScriptModule.

script(fn) checks and compiles fn's source (frontend.py); script(module)
builds a RecursiveScriptModule sharing the module's parameters and buffers,
with its submodules scripted in turn, its constant attributes copied, and
forward, @export methods and every method they call on self compiled.
@ignore'd methods and functions stay Python (and make the module
unsaveable); @unused ones are replaced by a stub that raises.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import types
import typing
import weakref

import torchlike

from . import frontend
from .frontend import CompiledFunction, NotSupportedError, check_def, get_jit_def

__all__ = ["ScriptModule", "ScriptFunction", "RecursiveScriptModule", "script", "ignore", "unused", "export",
           "CompilationUnit"]


# ---------------------------------------------------------------- modifiers

def _modifier(fn):
    return getattr(fn, "_torchscript_modifier", None)


def ignore(drop=False, **kwargs):
    """Leaves a function or method as Python: scripted code calls it through
    the interpreter. ignore(drop=True) is unused()."""
    if callable(drop):
        drop._torchscript_modifier = "ignore"
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export is not None:
        drop = drop_on_export

    def deco(fn):
        fn._torchscript_modifier = "unused" if drop else "ignore"
        return fn
    return deco


def unused(fn):
    """The compiler skips the function; a call raises at run time. On a
    property, the property is left out of the scripted module."""
    if isinstance(fn, property):
        prop = fn
        prop.fget._torchscript_modifier = "unused"
        if prop.fset:
            prop.fset._torchscript_modifier = "unused"
        return prop
    fn._torchscript_modifier = "unused"
    return fn


def export(fn):
    """Compiles this method too when its module is scripted (an entry point besides forward)."""
    fn._torchscript_modifier = "export"
    return fn


def _unused_stub(name):
    def stub(*args, **kwargs):
        raise RuntimeError(f"{name}: this function was marked @torch.jit.unused and cannot be called from "
                           f"TorchScript")
    stub.__name__ = name
    return stub


# ------------------------------------------------------------- resolution

_MISSING = object()
_compiled_fns = weakref.WeakKeyDictionary()
_compiling = set()


def _jit_api_name(value):
    from torchlike import jit
    for n in ("annotate", "isinstance", "is_scripting", "is_tracing", "fork", "wait"):
        if getattr(jit, n, None) is value:
            return n
    return None


def _resolve(name, value, ctx, fdef):
    """(kind, value) for a free name of a scripted function (see CompiledFunction)."""
    if value is _MISSING:
        if name in frontend._SAFE_BUILTINS or name == "isinstance":
            return ("builtin", name)
        raise frontend.undefined(ctx, fdef, name)
    if isinstance(value, types.ModuleType):
        from torchlike import jit
        if value is jit:
            return ("ns", "torch.jit")
        if value is typing:
            return ("typing", None)
        q = frontend.namespace_of(value)
        if q is None:
            raise _not_supported(ctx, fdef, name, f"Python module '{value.__name__}' is not supported in "
                                                 f"TorchScript")
        return ("ns", q)
    mod = _modifier(value)
    if mod == "ignore":
        return ("python", value)
    if mod == "unused":
        return ("unused", _unused_stub(getattr(value, "__name__", name)))
    if isinstance(value, ScriptFunction):
        return ("script", value)
    if isinstance(value, ScriptModule):
        return ("object", value)
    api = _jit_api_name(value)
    if api is not None:
        return ("jitfn", api)
    if value is torchlike.Tensor:
        return ("type", "Tensor")
    if callable(value) and not isinstance(value, type):
        q = frontend.function_qualname(value)
        if q is not None:
            return ("fn", q)
    if isinstance(value, types.FunctionType):
        return ("script", _script_function(value))
    if value is None or isinstance(value, (bool, int, float, str, torchlike.dtype, torchlike.device)) or (
            isinstance(value, tuple) and all(isinstance(x, (bool, int, float, str)) or x is None for x in value)):
        return ("const", value)
    for tn, tv in frontend._TYPING_VALUES.items():
        if value is tv:
            return ("type", tn)
    if typing.get_origin(value) is not None:
        return ("const", value)
    if isinstance(value, type) and issubclass(value, BaseException) and getattr(builtins, value.__name__, None) \
            is value:
        return ("builtin", value.__name__)
    if value in (int, float, bool, str, list, tuple, dict) and getattr(builtins, name, None) is value:
        return ("builtin", name)
    raise _not_supported(ctx, fdef, name, f"Python value of type '{type(value).__name__}' cannot be used as a "
                                          f"value in TorchScript ('{name}')")


def _not_supported(ctx, fdef, name, msg):
    node = next((n for n in ast.walk(fdef) if isinstance(n, ast.Name) and n.id == name), fdef)
    return NotSupportedError(ctx.range(node), msg)


def _free_values(fn):
    g = dict(getattr(fn, "__globals__", {}))
    code = getattr(fn, "__code__", None)
    if code is not None and fn.__closure__:
        for n, cell in zip(code.co_freevars, fn.__closure__):
            try:
                g[n] = cell.cell_contents
            except ValueError:
                pass
    return g


def _compile(fn, method, fdef=None, filename=None, env=None):
    if fdef is None:
        fdef, filename = get_jit_def(fn)
    checker, ctx = check_def(fdef, filename, method)
    env = _free_values(fn) if env is None else env
    spec = {}
    for name in checker.free:
        v = env.get(name, _MISSING)
        if v is _MISSING and hasattr(builtins, name) and name not in frontend._SAFE_BUILTINS \
                and name != "isinstance":
            raise _not_supported(ctx, fdef, name, f"Python builtin '{name}' is not supported in TorchScript")
        kind, val = _resolve(name, v, ctx, fdef)
        if kind == "typing":
            kind, val = "const", types.SimpleNamespace(**frontend._TYPING_VALUES)
        spec[name] = (kind, val)
    cf = CompiledFunction(fdef, filename, spec, method, checker.self_calls)
    cf.self_attrs = checker.self_attrs
    cf.ctx = ctx
    return cf


def _script_function(fn):
    cached = _compiled_fns.get(fn)
    if cached is not None:
        return cached
    if fn in _compiling:
        raise RuntimeError(f"jit.script: {fn.__qualname__} calls itself; recursive functions aren't supported")
    _compiling.add(fn)
    try:
        sf = ScriptFunction(_compile(fn, False), fn.__qualname__)
    finally:
        _compiling.discard(fn)
    _compiled_fns[fn] = sf
    return sf


# ---------------------------------------------------------------- classes

def _trace_current():
    """The trace recording on this thread, or None (_trace imports this module, hence the late import)."""
    global _trace_current
    from ._trace import current
    _trace_current = current
    return current()


class ScriptFunction:
    """A compiled function: calls check their arguments against the
    signature (an unannotated parameter is a Tensor) and run the compiled
    body."""

    def __init__(self, cf, qualname=None):
        self._cf = cf
        self.name = self.__name__ = cf.name
        self.qualified_name = f"__torch__.{qualname or cf.name}"

    def __call__(self, *args, **kwargs):
        st = _trace_current()
        if st is not None:
            return st.record_call(self, "forward", self._run, args, kwargs)
        return self._run(*args, **kwargs)

    def _run(self, *args, **kwargs):
        return self._cf.py(*self._cf.bind(args, dict(kwargs), self.name))

    @property
    def code(self):
        return self._cf.source() + "\n"

    @property
    def graph(self):
        from ._lower import lower
        return lower(self._cf, None)

    @property
    def schema(self):
        return self._cf.schema()

    def save(self, f, _extra_files=None):
        from ._serialization import save
        save(self, f, _extra_files)

    def __repr__(self):
        return f"<torchlike.jit.ScriptFunction {self.name}>"


class ScriptModule(torchlike.nn.Module):
    """Base of scripted and traced modules. A call while jit.trace records
    becomes one call node in the trace, so this module's own graph (and its
    control flow) is kept rather than flattened."""

    def __init__(self):
        super().__init__()

    def __call__(self, *args, **kwargs):
        st = _trace_current()
        if st is not None:
            return st.record_call(self, "forward", self.forward, args, kwargs)
        return super().__call__(*args, **kwargs)

    def save(self, f, _extra_files=None):
        from ._serialization import save
        save(self, f, _extra_files)

    @property
    def original_name(self):
        return self.__dict__.get("_original_name", type(self).__name__)

    @original_name.setter
    def original_name(self, v):
        self.__dict__["_original_name"] = v

    def extra_repr(self):
        return "original_name=" + self.original_name

    def _get_name(self):
        return self.original_name


class _ScriptMethod:
    def __init__(self, cf, owner):
        self._cf = cf
        self._owner = weakref.ref(owner)
        self.name = self.__name__ = cf.name

    def __call__(self, *args, **kwargs):
        owner = self._owner()
        return self._cf.py(owner, *self._cf.bind(args, dict(kwargs), f"{owner.original_name}.{self.name}"))

    @property
    def code(self):
        return self._cf.source() + "\n"

    @property
    def graph(self):
        from ._lower import lower
        return lower(self._cf, self._owner())

    @property
    def schema(self):
        return self._cf.schema()


def _constant_like(v):
    if v is None or isinstance(v, (bool, int, float, str, torchlike.dtype, torchlike.device, torchlike.Tensor)):
        return True
    if isinstance(v, (list, tuple)):
        return all(_constant_like(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, (str, int)) and _constant_like(x) for k, x in v.items())
    return False


class RecursiveScriptModule(ScriptModule):
    """script(module): shares the module's parameters and buffers, scripts
    its submodules, copies its constant attributes, compiles its methods."""

    def __init__(self, name="Module"):
        super().__init__()
        self.__dict__["_methods"] = {}
        self.__dict__["_py_methods"] = {}
        self.__dict__["_container"] = None
        self.original_name = name

    def forward(self, *args, **kwargs):
        b = self.__dict__.get("_builtin")
        if b is not None:
            return b(*args, **kwargs)
        cf = self.__dict__["_methods"].get("forward")
        if cf is None:
            raise RuntimeError(f"{self.original_name} has no forward (it is a container of submodules)")
        return cf.py(self, *cf.bind(args, kwargs, self.original_name + ".forward"))

    def __getattr__(self, name):
        d = self.__dict__
        if name in d.get("_methods", ()):
            return _ScriptMethod(d["_methods"][name], self)
        if name in d.get("_py_methods", ()):
            return d["_py_methods"][name]
        return super().__getattr__(name)

    # Containers (ModuleList, Sequential, ModuleDict) iterate and index their submodules.
    def __iter__(self):
        if self.__dict__.get("_container") == "dict":
            return iter(self._modules)
        return iter(self._modules.values())

    def __len__(self):
        return len(self._modules)

    def __getitem__(self, i):
        if self.__dict__.get("_container") == "dict":
            return self._modules[i]
        return list(self._modules.values())[i]

    def __contains__(self, k):
        return k in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    @property
    def code(self):
        return self.forward_method().code

    @property
    def graph(self):
        return self.forward_method().graph

    @property
    def inlined_graph(self):
        return self.graph

    def forward_method(self):
        m = self.__dict__["_methods"].get("forward")
        if m is None:
            raise RuntimeError(f"{self.original_name} has no forward")
        return _ScriptMethod(m, self)

    def _methods_names(self):
        return list(self.__dict__["_methods"])


def _is_builtin(cls):
    return cls.__module__.startswith("torchlike.nn.modules") and getattr(torchlike.nn, cls.__name__, None) is cls


def _container_kind(mod):
    nn = torchlike.nn
    if isinstance(mod, nn.ModuleDict):
        return "dict"
    if isinstance(mod, (nn.ModuleList, nn.Sequential)):
        return "list"
    return None


_SKIP_ATTRS = {"training", "_parameters", "_buffers", "_modules", "_non_persistent_buffers_set", "_state_dict_hooks",
               "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "dump_patches"}


def _script_module(mod, memo):
    if isinstance(mod, ScriptModule):
        return mod
    if id(mod) in memo:
        return memo[id(mod)]
    cls = type(mod)
    sm = RecursiveScriptModule(cls.__name__)
    memo[id(mod)] = sm
    sm.training = mod.training
    sm.__dict__["_container"] = _container_kind(mod)
    sm.__dict__["_qualified_class"] = f"{cls.__module__}.{cls.__qualname__}"
    for k, p in mod._parameters.items():
        sm._parameters[k] = p
    for k, b in mod._buffers.items():
        sm._buffers[k] = b
    sm._non_persistent_buffers_set = set(getattr(mod, "_non_persistent_buffers_set", ()))
    for k, m in mod._modules.items():
        sm._modules[k] = None if m is None else _script_module(m, memo)
    machinery = frozenset(torchlike.nn.Module().__dict__)
    for k, v in mod.__dict__.items():
        if k in _SKIP_ATTRS or k in machinery or k.startswith("__") or k.startswith("_forward") or k.startswith("_backward") \
                or k in sm._modules or k in sm._parameters or k in sm._buffers:
            continue
        if type(v).__name__ == "Attribute" and hasattr(v, "_fields") and v._fields == ("value", "type"):
            v = v.value
        if _constant_like(v):
            sm.__dict__[k] = v
    # Methods: forward, exported ones, and whatever they call on self.
    todo = []
    if _container_kind(mod) is None or "forward" in cls.__dict__:
        fwd = getattr(cls, "forward", None)
        if fwd is not None and fwd is not torchlike.nn.Module.forward and _modifier(fwd) not in ("ignore",
                                                                                                  "unused"):
            todo.append("forward")
    for name in dir(cls):
        f = inspect.getattr_static(cls, name, None)
        if isinstance(f, types.FunctionType) and _modifier(f) == "export":
            todo.append(name)
    done = set()
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        f = inspect.getattr_static(cls, name, None)
        if isinstance(f, (staticmethod, classmethod)) or not isinstance(f, types.FunctionType):
            continue
        m = _modifier(f)
        if m == "ignore":
            sm.__dict__["_py_methods"][name] = types.MethodType(f, mod)
            continue
        if m == "unused":
            sm.__dict__["_py_methods"][name] = _unused_stub(f"{cls.__name__}.{name}")
            continue
        try:
            cf = _compile(f, True)
        except (frontend.FrontendError, RuntimeError, OSError):
            if not _is_builtin(cls):
                raise
            # A torchlike.nn layer written with more Python than the subset
            # holds: it runs as the library's own code (and saves by class name).
            sm.__dict__["_builtin"] = mod
            sm.__dict__["_methods"].clear()
            return sm
        sm.__dict__["_methods"][name] = cf
        for callee in cf.self_calls:
            if callee not in sm._modules and callee not in done:
                todo.append(callee)
        _check_self_attrs(cf, sm, mod, cls)
    return sm


def _check_self_attrs(cf, sm, mod, cls):
    for name, node in cf.self_attrs:
        if name in sm._parameters or name in sm._buffers or name in sm._modules or name in sm.__dict__:
            continue
        if name in sm.__dict__["_methods"] or name in ("training",):
            continue
        f = inspect.getattr_static(cls, name, None)
        if isinstance(f, types.FunctionType):
            continue  # a method: compiled as it is reached
        if isinstance(f, property):
            if _modifier(f.fget) == "unused":
                continue
            raise NotSupportedError(cf.ctx.range(node), f"properties aren't supported on scripted modules "
                                                        f"('{name}'); make it a method")
        if f is not None and _constant_like(f):
            sm.__dict__[name] = f   # a class-level constant
            continue
        if name in sm.__dict__.get("_py_methods", {}):
            continue
        why = ""
        if hasattr(mod, name):
            why = (f" (This attribute exists on the Python module, but we failed to convert Python type: "
                   f"'{type(getattr(mod, name)).__name__}' to a TorchScript type.)")
        raise RuntimeError(f"Module '{cls.__name__}' has no attribute '{name}'{why}:\n"
                           f"{cf.ctx.range(node).highlight()}")


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Compiles a function or nn.Module (see frontend.py for the subset)."""
    if optimize is not None:
        import warnings
        warnings.warn("`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` "
                      "instead", FutureWarning, stacklevel=2)
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, torchlike.nn.Module):
        return _script_module(obj, {})
    if isinstance(obj, type):
        raise NotSupportedError(None, f"jit.script: scripting classes ({obj.__name__}) isn't supported; script an "
                                      f"nn.Module or a function")
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if isinstance(obj, types.FunctionType):
        if _modifier(obj) in ("ignore", "unused"):
            return obj
        return _script_function(obj)
    raise RuntimeError(f"jit.script: expected a function or an nn.Module, got {type(obj).__name__}")


class CompilationUnit:
    """Functions compiled from source text: cu = CompilationUnit(src); cu.foo(x)."""

    def __init__(self, lang=None, _frames_up=0):
        self._functions = {}
        if lang is not None:
            self.define(lang, _frames_up=_frames_up + 1)

    def define(self, src, rcb=None, _frames_up=0):
        import linecache
        import textwrap
        src = textwrap.dedent(src)
        filename = f"<CompilationUnit-{id(self)}-{len(self._functions)}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        mod = ast.parse(src, filename)
        frame = inspect.currentframe().f_back
        for _ in range(_frames_up):
            frame = frame.f_back if frame.f_back is not None else frame
        env = dict(frame.f_globals)
        env.update(frame.f_locals)
        env.update({k: ScriptFunction(v, k) for k, v in self._functions.items()})
        defs = []
        for node in mod.body:
            if not isinstance(node, ast.FunctionDef):
                raise frontend.UnsupportedNodeError(frontend._Ctx(filename, "<module>"), node,
                                                    " at the top of a CompilationUnit (only def)")
            defs.append(node)
        for node in defs:
            names = {d.name for d in defs}
            local_env = dict(env)
            local_env.update({k: _Lazy(self, k) for k in names if k != node.name})
            cf = _compile(None, False, node, filename, env=local_env)
            self._functions[node.name] = cf
            env[node.name] = ScriptFunction(cf, node.name)

    def __getattr__(self, name):
        fns = self.__dict__.get("_functions", {})
        if name in fns:
            return ScriptFunction(fns[name], name)
        raise AttributeError(f"CompilationUnit has no function '{name}'")

    def find_function(self, name):
        cf = self._functions.get(name)
        return ScriptFunction(cf, name) if cf is not None else None

    def get_functions(self):
        return [ScriptFunction(v, k) for k, v in self._functions.items()]


class _Lazy(ScriptFunction):
    """A function of the same CompilationUnit defined later in the source."""

    def __init__(self, cu, name):
        self._cu, self.name, self.__name__ = cu, name, name
        self.qualified_name = f"__torch__.{name}"

    @property
    def _cf(self):
        return self._cu._functions[self.name]
