"""Graph capture for torchlike.compile: the function runs once with the
dispatcher's Python layer switched on for this thread, and a boxed fallback
on that key records each operator call (operator, arguments, results) before
passing it on below itself. Nothing in Python is patched: whatever reaches
the dispatcher is seen, whichever way it was called.

Composite operators without a formula of their own (gelu, linear, ...) are
let through with the layer still on, so the calls they make are recorded
instead: that is how gelu(x) becomes the pointwise _gelu_erf the fuser
knows. A value leaving for Python (Tensor.item(), bool(t), float(t): the
operator aten::_local_scalar_dense) means control flow may depend on data,
which a recorded graph cannot follow: capture stops with a GraphBreak.
"""
from __future__ import annotations

import torchlike
from torchlike import _C
from torchlike import _python_key as _pk

__all__ = ["Value", "Node", "Graph", "GraphBreak", "capture"]

class GraphBreak(Exception):
    """The function cannot be captured as one graph; the reason says why."""


class Value:
    """A tensor in the graph: a flat input (`index`), a node's result, an
    external tensor used by reference (a parameter, a tensor the function
    closes over), or a constant (a Python number an operator wrapped)."""
    __slots__ = ("kind", "index", "ref", "const", "dtype", "shape", "device", "requires_grad", "producer", "uses",
                 "name", "slot")

    def __init__(self, kind, *, index=None, ref=None, const=None, meta=None):
        self.kind = kind
        self.index = index
        self.ref = ref
        self.const = const
        self.dtype, self.shape, self.device, self.requires_grad = meta if meta is not None else (None,) * 4
        self.producer = None
        self.uses = []
        self.name = None
        self.slot = None

    def __repr__(self):
        return f"%{self.name}"


class Node:
    """One recorded operator call. `args` mirrors the boxed arguments: a Value
    for a tensor, a list for a tensor list, anything else as given."""
    __slots__ = ("op", "args", "outputs", "result_kind", "mutates")

    def __init__(self, op, args, outputs, result_kind, mutates):
        self.op = op
        self.args = args
        self.outputs = outputs
        self.result_kind = result_kind  # "tensor" | "tuple" | "list"
        self.mutates = mutates

    @property
    def name(self):
        return self.op.name

    def tensor_args(self):
        for a in self.args:
            if isinstance(a, Value):
                yield a
            elif isinstance(a, list):
                yield from (x for x in a if isinstance(x, Value))


class Graph:
    def __init__(self):
        self.inputs = []      # Values of kind "input", in flat order
        self.nodes = []
        self.externals = []   # Values of kind "external"
        self.output = None    # the function's result with Values in place of tensors

    def pretty(self):
        lines = [f"graph({', '.join(f'%{v.name}: {_meta_str(v)}' for v in self.inputs)}):"]
        for n in self.nodes:
            outs = ", ".join(f"%{v.name}" for v in n.outputs)
            args = ", ".join(_arg_str(a) for a in n.args)
            lines.append(f"  {outs} = {n.name}({args})")
        lines.append(f"  return {_arg_str(self.output)}")
        return "\n".join(lines)


def _meta_str(v):
    return f"{str(v.dtype).split('.')[-1]}{list(v.shape)}"


def _arg_str(a):
    if isinstance(a, Value):
        return repr(a) if a.kind != "const" else repr(a.const)
    if isinstance(a, (list, tuple)):
        inner = ", ".join(_arg_str(x) for x in a)
        return f"[{inner}]" if isinstance(a, list) else f"({inner})"
    if isinstance(a, dict):
        return "{" + ", ".join(f"{k!r}: {_arg_str(x)}" for k, x in a.items()) + "}"
    return repr(a)


def _meta(t):
    return (t.dtype, tuple(t.shape), t.device, t.requires_grad)


class _Capture:
    def __init__(self, decompose):
        self.graph = Graph()
        self.values = {}     # TensorImpl address -> Value
        self.keep = []       # every tensor seen, alive until capture ends (addresses stay unique)
        self.decompose = decompose
        self._n = 0

    def name(self, v):
        v.name = str(self._n)
        self._n += 1
        return v

    def value_of(self, t):
        key = _C._tensor_impl_id(t)
        v = self.values.get(key)
        if v is not None:
            return v
        if _C._tensor_is_wrapped_number(t):
            # The wrapped tensor itself is kept for eager replay: it promotes
            # as a Python number does, which a plain 0-dim tensor would not.
            v = Value("const", ref=t, const=_below(lambda: t.item()), meta=_meta(t))
        else:
            v = self.name(Value("external", ref=t, meta=_meta(t)))
            self.graph.externals.append(v)
        self.values[key] = v
        self.keep.append(t)
        return v

    def new_value(self, t, producer):
        v = self.name(Value("node", meta=_meta(t)))
        v.producer = producer
        self.values[_C._tensor_impl_id(t)] = v
        self.keep.append(t)
        return v

    def convert_arg(self, a):
        if isinstance(a, torchlike.Tensor):
            return self.value_of(a)
        if isinstance(a, (list, tuple)) and any(isinstance(x, torchlike.Tensor) for x in a):
            return [self.value_of(x) if isinstance(x, torchlike.Tensor) else x for x in a]
        return a


def _below(fn):
    """Runs fn with the Python layer off on this thread (calls it makes are not recorded)."""
    with _pk.layer_off():
        return fn()


def _handler(cap):
    def handle(op, keyset, args):
        name = op.name
        if name == "aten::_local_scalar_dense":
            raise GraphBreak("a tensor's value is read in Python (Tensor.item(), bool(), float(), int()): control "
                             "flow may depend on data")
        if cap.decompose(name):
            # Let the composite run with the layer on: the calls it makes are recorded.
            return _pk.through(op, keyset, args)
        out = _pk.below(op, keyset, args)
        node_args = [cap.convert_arg(a) for a in args]
        if isinstance(out, torchlike.Tensor):
            results, kind = [out], "tensor"
        elif isinstance(out, (tuple, list)) and all(isinstance(x, torchlike.Tensor) for x in out):
            results, kind = list(out), ("tuple" if isinstance(out, tuple) else "list")
        elif out is None:
            results, kind = [], "none"
        else:
            raise GraphBreak(f"{name} returns a Python value ({type(out).__name__}), which the graph cannot hold")
        node = Node(op, node_args, [], kind, "!" in op._schema)
        node.outputs = [cap.new_value(t, node) for t in results]
        for v in node.tensor_args():
            v.uses.append(node)
        cap.graph.nodes.append(node)
        return out
    return handle


def flatten(obj, out):
    """The tensors of nested tuples/lists/dicts, in order; returns the
    structure with their positions."""
    if isinstance(obj, torchlike.Tensor):
        out.append(obj)
        return ("T", len(out) - 1)
    if isinstance(obj, (list, tuple)):
        return (type(obj), [flatten(x, out) for x in obj])
    if isinstance(obj, dict):
        return (dict, {k: flatten(v, out) for k, v in obj.items()})
    return ("C", obj)


def capture(fn, args, kwargs, decompose):
    """Runs fn(*args, **kwargs) recording its operator calls. Returns (graph,
    result of this run). `decompose(opname)` says which operators to see
    through."""
    cap = _Capture(decompose)
    flat = []
    flatten((args, kwargs), flat)
    for i, t in enumerate(flat):
        v = cap.name(Value("input", index=i, meta=_meta(t)))
        cap.values.setdefault(_C._tensor_impl_id(t), v)
        cap.graph.inputs.append(v)
        cap.keep.append(t)
    with _pk.active(_handler(cap)):
        result = fn(*args, **kwargs)

    def to_values(obj):
        if isinstance(obj, torchlike.Tensor):
            return cap.value_of(obj)
        if isinstance(obj, (list, tuple)):
            return type(obj)(to_values(x) for x in obj)
        if isinstance(obj, dict):
            return {k: to_values(v) for k, v in obj.items()}
        if obj is None or isinstance(obj, (int, float, bool, str)):
            return obj
        raise GraphBreak(f"the function returns a {type(obj).__name__}, which the graph cannot hold")
    cap.graph.output = to_values(result)
    return cap.graph, result
