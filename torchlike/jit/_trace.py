"""jit.trace: runs a function or module once on example inputs and records
every operator call that reaches the dispatcher (through the process-wide
Python-key layer of torchlike._python_key; nothing in Python is patched)
into a Graph (_ir.py). Calling the result replays the graph.

What a graph cannot hold is baked in as it was seen, with a TracerWarning,
as PyTorch does: a tensor's value read in Python (item(), bool(), int(),
float(): the operator aten::_local_scalar_dense), hence the branch taken by
data-dependent control flow; an operator returning a Python value. Calls to
scripted or traced modules and functions are recorded as one call node
(prim::CallMethod / prim::CallFunction), so their control flow survives.
"""
from __future__ import annotations

import dis
import inspect
import sys
import warnings

import torchlike
from torchlike import _C
from torchlike import _python_key as _pk

from ._ir import Graph, Node, Value, flatten_tensors, meta_of
from ._script import ScriptFunction, ScriptModule

__all__ = ["trace", "trace_module", "TracerWarning", "TracingCheckError", "TracedModule", "TopLevelTracedModule",
           "is_tracing", "current"]


class TracerWarning(Warning):
    """A trace may not generalize: a Python value was baked in."""

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torchlike.(?!jit)")


class TracingCheckError(Exception):
    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error + "\n"
        if tensor_compare_error is not None:
            self.message += ("ERROR: Tensor-valued Constant nodes differed in value across invocations. This often "
                             "indicates that the tracer has encountered untraceable code.\n" + tensor_compare_error)
        super().__init__(self.message)


_BAKED = ("might cause the trace to be incorrect. We can't record the data flow of Python values, so this value "
          "will be treated as a constant in the future. This means that the trace might not generalize to other "
          "inputs!")


def _user_stacklevel():
    """The stack level of the first frame outside torchlike (where the warning belongs)."""
    f = sys._getframe(1)
    level = 1
    while f is not None and f.f_globals.get("__name__", "").startswith("torchlike"):
        f = f.f_back
        level += 1
    return level


def _conversion_kind():
    """'boolean' when the user's line is branching on the tensor (if/while/and/or/not), else 'number'."""
    f = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__", "").startswith("torchlike"):
        f = f.f_back
    if f is None:
        return "value"
    op = dis.opname[f.f_code.co_code[f.f_lasti]] if f.f_lasti < len(f.f_code.co_code) else ""
    if "JUMP" in op or op in ("UNARY_NOT", "TO_BOOL"):
        return "boolean"
    return "number"


def current():
    """The trace being recorded on this thread, or None."""
    h = _pk.current()
    st = getattr(h, "__self__", None)
    if isinstance(st, _TraceState) and not st.suspended:
        return st
    return None


def is_tracing():
    """True while jit.trace is recording on this thread (outside scripted code)."""
    return current() is not None


class _TraceState:
    def __init__(self, root):
        self.graph = Graph()
        self.values = {}    # TensorImpl address -> Value
        self.keep = []      # every tensor seen stays alive, so addresses stay unique
        self.n = 0
        self.suspended = 0
        self.scopes = []
        self.paths = {}     # id(module) -> attribute path from the root
        self.param_paths = {}  # TensorImpl address -> attribute path
        if root is not None:
            for name, m in root.named_modules():
                self.paths.setdefault(id(m), tuple(name.split(".")) if name else ())
            for name, t in list(root.named_parameters()) + list(root.named_buffers()):
                if t is not None:
                    self.param_paths.setdefault(_C._tensor_impl_id(t), tuple(name.split(".")))

    def fresh(self, kind, t, **kw):
        v = Value(kind, str(self.n), meta_of(t), **kw)
        self.n += 1
        return v

    def value_of(self, t):
        key = _C._tensor_impl_id(t)
        v = self.values.get(key)
        if v is not None:
            return v
        if _C._tensor_is_wrapped_number(t):
            with _pk.layer_off():
                return t.item()   # a Python number: replay passes it the same way
        path = self.param_paths.get(key)
        if path is not None:
            v = self.fresh("param", t, path=path)
            v.name = "_".join(path) if path else v.name
            self.graph.params.append(v)
        else:
            v = self.fresh("const", t, ref=t.detach() if t.requires_grad else t)
            self.graph.consts.append(v)
        self.values[key] = v
        self.keep.append(t)
        return v

    def new_value(self, t):
        v = self.fresh("node", t)
        self.values[_C._tensor_impl_id(t)] = v
        self.keep.append(t)
        return v

    def convert(self, a):
        if isinstance(a, torchlike.Tensor):
            return self.value_of(a)
        if isinstance(a, list):
            return [self.convert(x) for x in a]
        if isinstance(a, tuple):
            return tuple(self.convert(x) for x in a)
        return a

    def scope(self):
        return ".".join(self.scopes[-1]) if self.scopes and self.scopes[-1] else ""

    # The Python-key handler.
    def handle(self, op, keyset, args):
        name = op.name
        if name == "aten::_local_scalar_dense":
            warnings.warn(f"Converting a tensor to a Python {_conversion_kind()} " + _BAKED,
                          TracerWarning, stacklevel=_user_stacklevel())
            return _pk.below(op, keyset, args)
        out = _pk.below(op, keyset, args)
        if isinstance(out, torchlike.Tensor):
            results, kind = [out], "tensor"
        elif isinstance(out, (tuple, list)) and all(isinstance(x, torchlike.Tensor) for x in out):
            results, kind = list(out), ("tuple" if isinstance(out, tuple) else "list")
        elif out is None:
            results, kind = [], "none"
        else:
            warnings.warn(f"{name} returned a Python value ({type(out).__name__}), which " + _BAKED,
                          TracerWarning, stacklevel=_user_stacklevel())
            return out
        node = Node(name, [self.convert(a) for a in args], [], kind, self.scope())
        node.outputs = [self.new_value(t) for t in results]
        self.graph.nodes.append(node)
        return out

    def record_call(self, target, method, fn, args, kwargs):
        """A scripted/traced module's method or a script function called while tracing: one call node."""
        if kwargs:
            raise RuntimeError(f"jit.trace: keyword arguments in a call to the scripted {method} are not "
                               f"supported while tracing; pass them positionally")
        self.suspended += 1
        try:
            with _pk.layer_off():
                r = fn(*args)
        finally:
            self.suspended -= 1
        conv = [self.convert(a) for a in args]
        path = self.paths.get(id(target)) if isinstance(target, ScriptModule) else None
        if path is not None:
            node = Node("prim::CallMethod", conv, [], None, self.scope(), {"path": list(path), "method": method})
        else:
            nm = getattr(fn, "qualified_name", None) or getattr(fn, "__qualname__", type(fn).__name__)
            node = Node("prim::CallFunction", conv, [], None, self.scope(), {"name": nm, "fn": fn})
        node.outputs = [self.new_value(t) for t in flatten_tensors(r, [])]
        self.graph.nodes.append(node)
        return r


def _check_input(obj, what="input"):
    if isinstance(obj, torchlike.Tensor):
        return
    if isinstance(obj, (list, tuple)):
        for x in obj:
            _check_input(x)
        return
    if isinstance(obj, dict):
        for x in obj.values():
            _check_input(x)
        return
    raise RuntimeError(f"Type '{type(obj).__name__}' cannot be traced. Only Tensors and (possibly nested) Lists, "
                       f"Dicts, and Tuples of Tensors can be traced")


def _record(fn, args, kwargs, root, strict):
    for a in list(args) + list(kwargs.values()):
        _check_input(a)
    st = _TraceState(root)
    flat = flatten_tensors((args, kwargs), [])
    names = _param_names(fn.forward if isinstance(fn, torchlike.nn.Module) else fn, len(args), kwargs)
    g = st.graph
    counts = {}
    for i, t in enumerate(flat):
        key = _C._tensor_impl_id(t)
        if key in st.values:
            raise RuntimeError("jit.trace: the same tensor is passed twice as an input; pass distinct tensors")
        v = st.fresh("input", t)
        base = names[i] if i < len(names) else "input"
        k = counts.get(base, 0)
        counts[base] = k + 1
        v.name = base if k == 0 else f"{base}.{k}"
        st.values[key] = v
        st.keep.append(t)
        g.inputs.append(v)
    pre = post = None
    if root is not None:
        def pre(mod, _args):
            if current() is st:
                st.scopes.append(st.paths.get(id(mod), (type(mod).__name__,)))

        def post(mod, _args, _out):
            if current() is st and st.scopes:
                st.scopes.pop()
        pre = torchlike.nn.modules.module.register_module_forward_pre_hook(pre)
        post = torchlike.nn.modules.module.register_module_forward_hook(post)
    try:
        with _pk.active(st.handle):
            result = fn(*args, **kwargs)
    finally:
        if pre is not None:
            pre.remove()
            post.remove()
    _check_output(result, strict)
    g.output = _to_values(st, result)
    return g, result


def _param_names(fn, nargs, kwargs):
    """Names for the flat inputs, from the function's parameters where each argument is one tensor."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:nargs]]
    names += [f"input{i}" for i in range(len(names), nargs)]
    return names + list(kwargs)


def _check_output(result, strict):
    def walk(o, top):
        if isinstance(o, torchlike.Tensor):
            return
        if isinstance(o, tuple):
            for x in o:
                walk(x, False)
            return
        if isinstance(o, (list, dict)):
            if strict:
                kind = "list" if isinstance(o, list) else "dict"
                raise RuntimeError(
                    f"Encountering a {kind} at the output of the tracer might cause the trace to be incorrect, this "
                    f"is only valid if the container structure does not change based on the module's inputs. "
                    f"Consider using a constant container instead (e.g. for `list`, use a `tuple` instead. for "
                    f"`dict`, use a `NamedTuple` instead). If you absolutely need this and know the side effects, "
                    f"pass strict=False to trace() to allow this behavior.")
            for x in (o if isinstance(o, list) else o.values()):
                walk(x, False)
            return
        raise RuntimeError(f"Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
                           f"traced functions (got {type(o).__name__})")
    walk(result, True)


def _to_values(st, obj):
    if isinstance(obj, torchlike.Tensor):
        return st.value_of(obj)
    if isinstance(obj, tuple):
        return tuple(_to_values(st, x) for x in obj)
    if isinstance(obj, list):
        return [_to_values(st, x) for x in obj]
    if isinstance(obj, dict):
        return {k: _to_values(st, v) for k, v in obj.items()}
    return obj


# ----------------------------------------------------------------- results

def _run_graph(g, root, args, kwargs):
    if not kwargs and all(type(a) is torchlike.Tensor for a in args):
        return g.executor()(root, args) if len(args) == len(g.inputs) else _run_graph_checked(g, root, args, {})
    return _run_graph_checked(g, root, args, kwargs)


def _run_graph_checked(g, root, args, kwargs):
    flat = flatten_tensors((args, kwargs), [])
    for a in list(args) + list(kwargs.values()):
        _check_input(a)
    if len(flat) != len(g.inputs):
        raise RuntimeError(f"forward() expected {len(g.inputs)} tensor input(s) (as traced), got {len(flat)}")
    return g.executor()(root, flat)


class TracedFunction(ScriptFunction):
    """What trace(fn) returns: a ScriptFunction whose body is the recorded graph."""

    def __init__(self, name, graph):
        self.__name__ = self.name = name
        self.qualified_name = name
        self._graph = graph

    @property
    def graph(self):
        return self._graph

    @property
    def code(self):
        return self._graph.code(self.name, with_self=False)

    def __call__(self, *args, **kwargs):
        st = current()
        if st is not None:
            return st.record_call(self, "forward", self._run, args, kwargs)
        return self._run(*args, **kwargs)

    def _run(self, *args, **kwargs):
        return _run_graph(self._graph, None, args, kwargs)

    def save(self, f, _extra_files=None):
        from ._serialization import save
        save(self, f, _extra_files)


class TracedModule(ScriptModule):
    """A module rebuilt around a traced graph: the original's parameters,
    buffers and submodules (shared, not copied), and a forward that replays
    the graph. Submodules that were not scripted are TracedModules too;
    only methods that were traced can be called."""

    def __init__(self, orig, graphs=None, name=None):
        super().__init__()
        self._graphs = dict(graphs or {})
        self.original_name = name or type(orig).__name__
        if orig is None:  # jit.load fills it
            return
        self.training = orig.training
        for k, p in orig._parameters.items():
            self._parameters[k] = p
        for k, b in orig._buffers.items():
            self._buffers[k] = b
        for k, m in orig._modules.items():
            if m is None or isinstance(m, ScriptModule):
                self._modules[k] = m
            else:
                self._modules[k] = TracedModule(m)
        for g in self._graphs.values():
            g._self_type = f"__torch__.{self.original_name}"

    def _method(self, name):
        g = self._graphs.get(name)
        if g is None:
            raise RuntimeError(f"{self.original_name}.{name}: this method was not traced (a submodule of a traced "
                               f"module can only be called through its parent's graph)")
        return g

    def forward(self, *args, **kwargs):
        return _run_graph(self._method("forward"), self, args, kwargs)

    def _call_method(self, name, *args, **kwargs):
        return _run_graph(self._method(name), self, args, kwargs)

    def __getattr__(self, name):
        graphs = self.__dict__.get("_graphs")
        if graphs and name in graphs and name != "forward":
            return lambda *a, **k: self._call_method(name, *a, **k)
        return super().__getattr__(name)

    @property
    def graph(self):
        return self._method("forward")

    @property
    def code(self):
        return self._method("forward").code("forward")

    @property
    def inlined_graph(self):
        return self.graph

    def _methods(self):
        return list(self._graphs)


class TopLevelTracedModule(TracedModule):
    pass


def _compare(a, b, tol):
    ta, tb = flatten_tensors(a, []), flatten_tensors(b, [])
    if len(ta) != len(tb):
        return f"the traced function returned {len(tb)} tensors, the Python function {len(ta)}"
    for i, (x, y) in enumerate(zip(ta, tb)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return f"Output nr {i + 1}. differs in shape or dtype: {tuple(y.shape)} {y.dtype} vs {tuple(x.shape)} {x.dtype}"
        if x.dtype.is_floating_point or x.dtype.is_complex:
            ok = torchlike.allclose(x.detach(), y.detach(), rtol=tol, atol=tol, equal_nan=True)
        else:
            ok = torchlike.equal(x, y)
        if not ok:
            return (f"Output nr {i + 1}. of the traced function does not match the corresponding output of the "
                    f"Python function. Detailed error:\nNot within tolerance rtol={tol} atol={tol}")
    return None


def _graph_signature(g):
    return [(n.kind, tuple(v.shape for v in n.outputs)) for n in g.nodes]


def _check(fn, replay, graph, check_inputs, tol, root, strict):
    for inputs in check_inputs:
        args, kwargs = (inputs, {}) if isinstance(inputs, tuple) else ((inputs,), {})
        if isinstance(inputs, dict):
            args, kwargs = (), inputs
        g2, expected = _record(fn, args, kwargs, root, strict)
        if [k for k, _ in _graph_signature(g2)] != [k for k, _ in _graph_signature(graph)]:
            raise TracingCheckError(f"First graph:\n{graph}\nSecond graph:\n{g2}", None)
        got = replay(*args, **kwargs)
        err = _compare(expected, got, tol)
        if err:
            warnings.warn(err, TracerWarning, stacklevel=3)


def _as_args(example_inputs):
    if isinstance(example_inputs, tuple):
        return example_inputs
    return (example_inputs,)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """Traces a function or nn.Module on example inputs (a tensor or a tuple
    of arguments; example_kwarg_inputs for keyword arguments)."""
    if isinstance(func, (ScriptModule, ScriptFunction)):
        warnings.warn("The input to trace is already a ScriptModule, tracing it is a no-op. Returning the object "
                      "as is.")
        return func
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("jit.trace: example_inputs or example_kwarg_inputs must be given")
    if example_kwarg_inputs is not None and not isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    if isinstance(func, torchlike.nn.Module):
        return trace_module(func, {"forward": example_inputs if example_inputs is not None else ()},
                            check_trace=check_trace, check_inputs=[{"forward": c} for c in check_inputs]
                            if check_inputs else None, check_tolerance=check_tolerance, strict=strict,
                            example_inputs_is_kwarg=example_kwarg_inputs is not None,
                            _kwargs=example_kwarg_inputs)
    if not callable(func):
        raise RuntimeError(f"jit.trace: expected a function or an nn.Module, got {type(func).__name__}")
    args = _as_args(example_inputs) if example_inputs is not None else ()
    kwargs = dict(example_kwarg_inputs or {})
    graph, _ = _record(func, args, kwargs, None, strict)
    traced = TracedFunction(getattr(func, "__name__", "traced"), graph)
    if check_trace:
        _check(func, traced._run, graph, check_inputs or [(args if not kwargs else kwargs)], check_tolerance,
               None, strict)
    return traced


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True, _kwargs=None):
    """Traces the methods of `mod` named in `inputs` ({method name: example inputs})."""
    if not isinstance(mod, torchlike.nn.Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    graphs = {}
    for method, example in inputs.items():
        fn = getattr(mod, method)
        if method == "forward":
            fn = mod  # through __call__, so hooks and the module's own scope apply
        if _kwargs is not None and method == "forward":
            args, kwargs = (), dict(_kwargs)
        elif isinstance(example, dict) and example_inputs_is_kwarg:
            args, kwargs = (), example
        else:
            args, kwargs = _as_args(example), {}
        graphs[method], _ = _record(fn, args, kwargs, mod, strict)
    traced = TopLevelTracedModule(mod, graphs)
    if check_trace:
        for method, example in inputs.items():
            fn = mod if method == "forward" else getattr(mod, method)
            replay = (lambda *a, _m=method, **k: traced._call_method(_m, *a, **k))
            checks = [c[method] for c in check_inputs] if check_inputs else \
                [_kwargs if (_kwargs is not None and method == "forward") else
                 (example if isinstance(example, dict) and example_inputs_is_kwarg else _as_args(example))]
            _check(fn, replay, graphs[method], checks, check_tolerance, mod, strict)
    return traced
