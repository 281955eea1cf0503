"""torchlike.compile: graph capture, guards and fused pointwise kernels.

compile(fn) returns a callable that, on each call, looks up a compiled graph
for the arguments' guard key (the shape, dtype, device and requires_grad of
every tensor argument, the other arguments' values, grad mode), capturing
and compiling one on a miss (capture.py, fuser.py). A graph also records the
tensors it uses by reference (a module's parameters): their metadata is
checked on every call, and a change recompiles. After `recompile_limit`
graphs for one function, it warns once and runs eagerly.

What cannot be captured (a tensor's value read in Python, an unsupported
result) runs eagerly; with fullgraph=True it raises instead. Set
TORCHLIKE_LOGS=graph_breaks (or recompiles, fusion, or a comma-separated
mix) to see why.
"""
from __future__ import annotations

import functools
import logging
import os
import sys
import time
import warnings

import torchlike

from .capture import GraphBreak, capture, flatten
from .formulas import composite_implicit_ops, pointwise_table
from .fuser import plan

__all__ = ["compile", "OptimizedModule", "config", "reset", "GraphBreak"]

log = logging.getLogger("torchlike._compile")


class _Config:
    """Settings (PyTorch's torch._dynamo.config names)."""

    def __init__(self):
        self.cache_size_limit = 8
        self.recompile_limit = 8
        self.suppress_errors = False


config = _Config()


def _channels():
    return {c.strip() for c in os.environ.get("TORCHLIKE_LOGS", "").split(",") if c.strip()}


def _emit(channel, msg):
    if channel in _channels():
        print(f"[torchlike.compile] [{channel}] {msg}", file=sys.stderr)
    log.debug("%s: %s", channel, msg)


_ALL_COMPILED = []


def reset():
    """Forgets every compiled graph (torch._dynamo.reset)."""
    for c in list(_ALL_COMPILED):
        c._cache.clear()
        c._eager_only = False


def _decompose(name):
    return name not in pointwise_table() and name in composite_implicit_ops()


def _arg_key(obj):
    """The guard key of the non-tensor part of the arguments, and the tensors' metadata."""
    if isinstance(obj, torchlike.Tensor):
        return ("T", obj.dtype, tuple(obj.shape), obj.device, obj.requires_grad)
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(_arg_key(x) for x in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((k, _arg_key(v)) for k, v in obj.items()))
    try:
        hash(obj)
        return ("C", type(obj).__name__, obj)
    except TypeError:
        return ("id", id(obj))


def _rebuild(spec, env):
    from .capture import Value
    if isinstance(spec, Value):
        return env[spec.slot] if spec.kind != "const" else spec.ref
    if isinstance(spec, list):
        return [_rebuild(x, env) for x in spec]
    if isinstance(spec, tuple):
        return tuple(_rebuild(x, env) for x in spec)
    if isinstance(spec, dict):
        return {k: _rebuild(v, env) for k, v in spec.items()}
    return spec


class _Entry:
    def __init__(self, plan_, externals, compile_seconds):
        self.plan = plan_
        self.externals = externals   # [(tensor, (dtype, shape, device, requires_grad))]
        self.compile_seconds = compile_seconds

    def externals_hold(self):
        for t, meta in self.externals:
            if (t.dtype, tuple(t.shape), t.device, t.requires_grad) != meta:
                return False
        return True


class _CompiledFunction:
    def __init__(self, fn, fullgraph, dynamic, mode, options, extra_key=None):
        self._fn = fn
        self._extra_key = extra_key
        self._fullgraph = fullgraph
        self._dynamic = dynamic
        self._mode = mode
        self._options = dict(options or {})
        self._cache = {}
        self._eager_only = False
        self._warned_limit = False
        self.compile_times = []
        _ALL_COMPILED.append(self)
        functools.update_wrapper(self, fn)

    def _key(self, args, kwargs):
        return (_arg_key(args), _arg_key(kwargs), torchlike.is_grad_enabled(),
                torchlike.is_autocast_enabled() if hasattr(torchlike, "is_autocast_enabled") else False,
                self._extra_key() if self._extra_key is not None else None)

    def __call__(self, *args, **kwargs):
        if self._eager_only or _disabled_depth():
            return self._fn(*args, **kwargs)
        key = self._key(args, kwargs)
        entries = self._cache.get(key)
        if entries:
            for entry in entries:
                if entry.externals_hold():
                    flat = []
                    flatten((args, kwargs), flat)
                    env = entry.plan.run(flat)
                    return _rebuild(entry.plan.graph.output, env)
            _emit("recompiles", f"{_name(self._fn)}: a tensor it uses (a parameter?) changed dtype, shape, "
                                f"device or requires_grad")
        elif self._cache:
            _emit("recompiles", f"{_name(self._fn)}: guard failed on the arguments' shapes, dtypes, devices, "
                                f"requires_grad or values")
        total = sum(len(v) for v in self._cache.values())
        limit = self._options.get("recompile_limit", min(config.cache_size_limit, config.recompile_limit))
        if total >= limit:
            if not self._warned_limit:
                self._warned_limit = True
                warnings.warn(f"torchlike.compile: {_name(self._fn)} hit the recompile limit ({limit}): it has "
                              f"been compiled for {total} different argument signatures. Later new signatures run "
                              f"eagerly; raise torchlike._dynamo.config.cache_size_limit to allow more.")
            return self._fn(*args, **kwargs)
        t0 = time.perf_counter()
        try:
            graph, result = capture(self._fn, args, kwargs, _decompose)
        except GraphBreak as e:
            if self._fullgraph:
                raise RuntimeError(f"torchlike.compile(fullgraph=True): {_name(self._fn)} cannot be captured as "
                                   f"one graph: {e}") from None
            _emit("graph_breaks", f"{_name(self._fn)}: {e}; it runs eagerly")
            self._eager_only = True
            return self._fn(*args, **kwargs)
        grad_needed = torchlike.is_grad_enabled() and (
            any(v.requires_grad for v in graph.inputs) or any(v.requires_grad for v in graph.externals))
        reasons = []
        p = plan(graph, grad_needed, log=reasons.append if "fusion" in _channels() or "graph_breaks" in _channels()
                 else None, fuse=self._options.get("fuse", True))
        for r in reasons:
            _emit("graph_breaks", f"{_name(self._fn)}: not fused: {r}")
        for g in p.groups:
            _emit("fusion", f"{_name(self._fn)}: fused {g.describe()}")
        seconds = time.perf_counter() - t0
        self.compile_times.append(seconds)
        entry = _Entry(p, [(v.ref, (v.dtype, tuple(v.shape), v.device, v.requires_grad)) for v in graph.externals],
                       seconds)
        self._cache.setdefault(key, []).append(entry)
        return result

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)


def _name(fn):
    return getattr(fn, "__qualname__", None) or type(fn).__name__


_disabled = __import__("threading").local()


def _disabled_depth():
    return getattr(_disabled, "depth", 0)


class OptimizedModule(torchlike.nn.Module):
    """What compile(module) returns: an nn.Module whose calls run the
    compiled forward. The original is its submodule `_orig_mod` (so, as in
    PyTorch, its state_dict keys carry the `_orig_mod.` prefix); other
    attributes are read from and written to the original."""

    _OWN = ("_orig_mod", "_compiled_call")

    def __init__(self, mod, compiled):
        super().__init__()
        super().__setattr__("_orig_mod", mod)
        object.__setattr__(self, "_compiled_call", compiled)

    def __call__(self, *args, **kwargs):
        return self._compiled_call(*args, **kwargs)

    def forward(self, *args, **kwargs):
        return self._compiled_call(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)

    def __setattr__(self, name, value):
        if name in self._OWN or "_orig_mod" not in self.__dict__.get("_modules", {}):
            super().__setattr__(name, value)
        else:
            setattr(self._orig_mod, name, value)


_BACKENDS = ("inductor", "eager", "aot_eager")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """Compiles `model` (a function or an nn.Module): see the module docstring.
    Used bare or as a decorator, with or without arguments."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, name=name, disable=disable, recompile_limit=recompile_limit)
    backend = "inductor" if backend is None else backend
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode not in (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: default, reduce-overhead, max-autotune, "
                           f"max-autotune-no-cudagraphs")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise ValueError(f"torchlike.compile: unknown backend {backend!r}; known: {', '.join(_BACKENDS)}")
    if not callable(model):
        raise RuntimeError(f"torchlike.compile: expected a function or an nn.Module, got {type(model).__name__}")
    if disable:
        return model
    opts = dict(options or {})
    if backend in ("eager", "aot_eager"):
        opts["fuse"] = False
    if recompile_limit is not None:
        opts["recompile_limit"] = int(recompile_limit)
    if isinstance(model, torchlike.nn.Module):
        # The module's mode is part of the guard: train() and eval() graphs differ (dropout, batch norm).
        compiled = _CompiledFunction(model.__call__, fullgraph, dynamic, mode, opts, extra_key=lambda: model.training)
        return OptimizedModule(model, compiled)
    return _CompiledFunction(model, fullgraph, dynamic, mode, opts)
