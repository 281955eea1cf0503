"""torchlike.jit: graphs that run and save without the model's Python source.

- trace(fn_or_module, example_inputs) records the operator calls one run
  makes (through the dispatcher's Python layer) into a graph (_trace.py).
- script(fn_or_module) compiles a subset of Python (frontend.py, _script.py).
- save(m, path) / load(path, map_location=...) write and read a zip holding
  a versioned JSON program, checked on load against the operator and
  namespace allow-lists, and the tensors (_serialization.py).
- freeze / optimize_for_inference fold parameters and constants (_freeze.py).
"""
from __future__ import annotations

import collections
import contextlib
import typing
import warnings

from . import frontend
from ._script import (CompilationUnit, RecursiveScriptModule, ScriptFunction, ScriptModule, export, ignore,
                      script, unused)
from ._trace import (TopLevelTracedModule, TracedModule, TracerWarning, TracingCheckError, is_tracing, trace,
                     trace_module)
from ._serialization import load, save
from ._freeze import freeze, optimize_for_inference

__all__ = ["Attribute", "CompilationUnit", "Error", "RecursiveScriptModule", "TopLevelTracedModule", "TracedModule",
           "TracingCheckError", "Final", "Future", "ScriptFunction", "ScriptModule",
           "TracerWarning", "annotate", "enable_onednn_fusion", "export", "export_opnames", "fork", "freeze",
           "ignore", "interface", "is_scripting", "is_tracing", "isinstance", "load", "onednn_fusion_enabled",
           "optimize_for_inference", "save", "script", "script_if_tracing", "set_fusion_strategy", "trace",
           "trace_module", "unused", "wait", "strict_fusion", "optimized_execution", "fuser"]

Final = typing.Final
_builtin_isinstance = isinstance


class Error(RuntimeError):
    """An exception raised inside TorchScript code (torch.jit.Error)."""


# Attribute(value, type) declares a module attribute's type; script() takes the value.
Attribute = collections.namedtuple("Attribute", ["value", "type"])


def annotate(the_type, the_value):
    """Tells the compiler the type of the_value; in Python, returns the_value."""
    return the_value


def is_scripting():
    """True inside scripted code (there the compiler replaces this call), False in Python."""
    return False


def isinstance(obj, target_type):
    """isinstance that understands typing generics (List[int], Dict[str, Tensor], Optional[...])."""
    if _builtin_isinstance(target_type, tuple):
        return any(isinstance(obj, t) for t in target_type)
    if _builtin_isinstance(target_type, type) and typing.get_origin(target_type) is None:
        return _builtin_isinstance(obj, target_type)
    t = frontend.parse_type(target_type)
    if t.kind == "Any" and typing.get_origin(target_type) is None:
        return _builtin_isinstance(obj, target_type)
    return frontend.check_type(obj, t)


def interface(obj):
    """Marks a class as a module interface (a type for attributes holding one of several modules)."""
    if not _builtin_isinstance(obj, type):
        raise RuntimeError("interface must be applied to a class")
    obj.__torch_script_interface__ = True
    return obj


def script_if_tracing(fn):
    """Compiles fn the first time it is called while tracing (so its control
    flow is kept); called eagerly otherwise."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not is_tracing():
            return fn(*args, **kwargs)
        sf = wrapper.__dict__.get("_scripted")
        if sf is None:
            sf = wrapper.__dict__["_scripted"] = script(fn)
        return sf(*args, **kwargs)
    wrapper.__original_fn = fn
    wrapper.__script_if_tracing_wrapper = True
    return wrapper


class Future:
    """The result of fork(): wait() returns the value (torch.jit.Future)."""

    def __init__(self, value=None, exc=None):
        self._value, self._exc = value, exc
        self._done = True

    def wait(self):
        if self._exc is not None:
            raise self._exc
        return self._value

    def value(self):
        return self.wait()

    def done(self):
        return self._done

    def then(self, callback):
        return Future(callback(self))


def fork(func, *args, **kwargs):
    """Starts func(*args, **kwargs) and returns a Future. Runs it at once,
    on this thread, as PyTorch's eager mode does."""
    try:
        return Future(func(*args, **kwargs))
    except Exception as e:  # delivered by wait(), as an asynchronous task's error would be
        return Future(exc=e)


def wait(future):
    """The value of a Future from fork()."""
    return future.wait()


def export_opnames(m):
    """The operator names a scripted or traced module uses (sorted)."""
    from ._freeze import collect_opnames
    if not _builtin_isinstance(m, (ScriptModule, ScriptFunction)):
        raise RuntimeError("export_opnames expects a ScriptModule or a ScriptFunction")
    return sorted(collect_opnames(m))


_onednn = [False]


def enable_onednn_fusion(enabled: bool):
    """Switches oneDNN graph fusion (a no-op fuser here, kept for PyTorch's API)."""
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn[0]


_fusion_strategy = [("STATIC", 2), ("DYNAMIC", 10)]


def set_fusion_strategy(strategy):
    """Records the fusion strategy [(\"STATIC\"|\"DYNAMIC\", depth), ...]; returns the previous one."""
    for kind, depth in strategy:
        if kind not in ("STATIC", "DYNAMIC") or not _builtin_isinstance(depth, int):
            raise RuntimeError(f"set_fusion_strategy: expected (\"STATIC\"|\"DYNAMIC\", int) pairs, got "
                               f"{(kind, depth)!r}")
    old = list(_fusion_strategy)
    _fusion_strategy[:] = list(strategy)
    return old


class strict_fusion:
    """Context manager asserting fusion inside a scripted region (nothing to check when run in Python)."""

    def __init__(self):
        if not is_scripting():
            warnings.warn("Only works in script mode")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def optimized_execution(should_optimize):
    yield


@contextlib.contextmanager
def fuser(name):
    if name not in ("fuser0", "fuser1", "fuser2", "fuser3", "none"):
        raise ValueError(f"unrecognized fuser option (name: {name})")
    yield


def _overload(func):
    return func


def _overload_method(func):
    return func
