"""The graph IR that jit.trace records and jit.load reads back.

A Graph is a straight line of Nodes over Values. A Value is a graph input,
a node's result, a parameter or buffer of the traced module (named by its
attribute path, so the module's structure stays in the graph), or a
constant tensor the function used by reference. A Node is one operator
call (kind = the operator's qualified name, e.g. "aten::add.Tensor", with
the boxed arguments: Values for tensors, Python values for the rest) or a
call into a scripted or traced callee ("prim::CallMethod" on a submodule,
"prim::CallFunction" on a script function), which keeps its own control
flow instead of being flattened.

Replay (Graph.executor) calls each operator through the dispatcher's boxed
entry, so autograd, autocast and backends apply as they do eagerly.
"""
from __future__ import annotations

import torchlike
from torchlike import _C

__all__ = ["Value", "Node", "Graph", "type_str", "const_str"]

_DTYPE_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
    "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


class Value:
    __slots__ = ("name", "kind", "dtype", "shape", "requires_grad", "device", "ref", "path", "slot")

    def __init__(self, kind, name, meta=None, *, ref=None, path=None):
        self.kind = kind            # "input" | "node" | "param" | "const"
        self.name = name
        self.dtype, self.shape, self.requires_grad, self.device = meta if meta is not None else (None,) * 4
        self.ref = ref              # the tensor, for "const"
        self.path = path            # attribute path on the module, for "param"
        self.slot = None

    def __repr__(self):
        return f"%{self.name}"

    def type(self):
        return type_str(self)


def meta_of(t):
    return (t.dtype, tuple(t.shape), bool(t.requires_grad), t.device)


def type_str(v):
    if v.dtype is None:
        return "Tensor"
    dt = _DTYPE_NAMES.get(str(v.dtype).split(".")[-1], str(v.dtype).split(".")[-1])
    dims = ", ".join(str(s) for s in v.shape)
    strides, acc = [], 1
    for s in reversed(v.shape):
        strides.insert(0, acc)
        acc *= max(int(s), 1)
    sep = ", " if dims else ""
    return (f"{dt}({dims}{sep}strides=[{', '.join(map(str, strides))}], requires_grad={int(v.requires_grad)}, "
            f"device={v.device})")


def const_str(c):
    if isinstance(c, torchlike.dtype):
        return str(c).split(".")[-1]
    if isinstance(c, torchlike.device):
        return f'"{c}"'
    if isinstance(c, str):
        return f'"{c}"'
    if isinstance(c, (list, tuple)):
        return "[" + ", ".join(const_str(x) for x in c) + "]"
    return repr(c)


def const_type(c):
    if c is None:
        return "NoneType"
    if isinstance(c, bool):
        return "bool"
    if isinstance(c, int):
        return "int"
    if isinstance(c, float):
        return "float"
    if isinstance(c, str):
        return "str"
    if isinstance(c, torchlike.dtype):
        return "int"  # ScalarType, printed as TorchScript does
    if isinstance(c, torchlike.device):
        return "Device"
    if isinstance(c, (list, tuple)):
        inner = {const_type(x) for x in c}
        return f"{'int' if not inner else inner.pop()}[]"
    return type(c).__name__


class Node:
    __slots__ = ("kind", "args", "outputs", "result", "scope", "attrs")

    def __init__(self, kind, args, outputs, result, scope="", attrs=None):
        self.kind = kind      # "aten::add.Tensor", "prim::CallMethod", "prim::CallFunction"
        self.args = args      # boxed arguments: Value | list (of Values / constants) | constant
        self.outputs = outputs
        self.result = result  # "tensor" | "tuple" | "list" | "none" | a structure spec for calls
        self.scope = scope    # the submodule path the call was made in ("" at the top)
        self.attrs = attrs or {}

    def values(self):
        for a in self.args:
            if isinstance(a, Value):
                yield a
            elif isinstance(a, list):
                yield from (x for x in a if isinstance(x, Value))


class Graph:
    def __init__(self):
        self.inputs = []       # Values, in flat order of the example inputs
        self.input_names = []  # the Python parameter names the inputs came from
        self.nodes = []
        self.params = []       # Values of kind "param"
        self.consts = []       # Values of kind "const"
        self.output = None     # the result's structure with Values in place of tensors
        self.input_spec = None  # the structure of the arguments (see flatten)
        self._exec = None

    # ---------------------------------------------------------------- text
    def all_values(self):
        vals = list(self.inputs) + list(self.params) + list(self.consts)
        for n in self.nodes:
            vals += n.outputs
        return vals

    def __str__(self):
        heads = [f"%self : {self._self_type}"] if getattr(self, "_self_type", None) else []
        heads += [f"%{v.name} : {type_str(v)}" for v in self.inputs]
        lines = ["graph(" + ",\n      ".join(heads) + "):"]
        k = [0]

        def const_line(c):
            name = f"c{k[0]}"
            k[0] += 1
            lines.append(f"  %{name} : {const_type(c)} = prim::Constant[value={const_str(c)}]()")
            return f"%{name}"

        def arg(a):
            if isinstance(a, Value):
                return repr(a)
            if isinstance(a, list):
                parts = [arg(x) for x in a]
                name = f"l{k[0]}"
                k[0] += 1
                lines.append(f"  %{name} : {'Tensor' if any(isinstance(x, Value) for x in a) else const_type(a)}[]"
                             f" = prim::ListConstruct({', '.join(parts)})")
                return f"%{name}"
            return const_line(a)
        for v in self.params:
            lines.append(f"  %{v.name} : {type_str(v)} = prim::GetAttr[name=\"{'.'.join(v.path)}\"](%self)")
        for v in self.consts:
            lines.append(f"  %{v.name} : {type_str(v)} = prim::Constant[value=<Tensor>]()")
        for n in self.nodes:
            args = ", ".join(arg(a) for a in n.args)
            outs = ", ".join(f"%{v.name} : {type_str(v)}" for v in n.outputs) or "%_"
            attr = ""
            if n.kind == "prim::CallMethod":
                attr = f"[name=\"{n.attrs['method']}\"]"
                args = f"%{'.'.join(n.attrs['path']) or 'self'}" + (", " + args if args else "")
            elif n.kind == "prim::CallFunction":
                attr = f"[name=\"{n.attrs['name']}\"]"
            scope = f", scope: {n.scope}" if n.scope else ""
            kind = n.kind if n.kind.startswith("prim::") else n.kind.split(".")[0]  # printed without the overload
            lines.append(f"  {outs} = {kind}{attr}({args}){scope}")
        lines.append(f"  return ({_out_str(self.output)})")
        return "\n".join(lines) + "\n"

    def code(self, name="forward", with_self=True):
        params = (["self"] if with_self else []) + [f"{_pyname(v.name)}: Tensor" for v in self.inputs]
        lines = [f"def {name}({(',' + chr(10) + '    ').join(params)}) -> {_py_type(self.output)}:"]

        def arg(a):
            if isinstance(a, Value):
                if a.kind == "param":
                    return "self." + ".".join(a.path)
                if a.kind == "const":
                    return f"CONSTANTS.c{self.consts.index(a)}"
                return _pyname(a.name)
            if isinstance(a, list):
                return "[" + ", ".join(arg(x) for x in a) + "]"
            return _py_const(a)
        for n in self.nodes:
            outs = ", ".join(_pyname(v.name) for v in n.outputs) or "_"
            args = ", ".join(arg(a) for a in n.args)
            if n.kind == "prim::CallMethod":
                target = "self" + "".join("." + p for p in n.attrs["path"])
                lines.append(f"  {outs} = {target}.{n.attrs['method']}({args})")
            elif n.kind == "prim::CallFunction":
                lines.append(f"  {outs} = {n.attrs['name']}({args})")
            else:
                ns, rest = n.kind.split("::", 1)
                nm, _, ov = rest.partition(".")
                fn = f"torch.{nm}" if ns == "aten" and hasattr(torchlike, nm) else f"ops.{ns}.{nm}"
                lines.append(f"  {outs} = {fn}({args})")
        lines.append(f"  return {_out_code(self.output, arg)}")
        return "\n".join(lines) + "\n"

    # -------------------------------------------------------------- replay
    def executor(self):
        """A function (root module, flat input tensors) -> result, replaying the nodes."""
        if self._exec is None:
            self._exec = _build_executor(self)
        return self._exec

    def invalidate(self):
        self._exec = None


def _pyname(name):
    """A value's name as a Python identifier (graph names may be numbers or have dots)."""
    name = name.replace(".", "_")
    return f"_{name}" if name[:1].isdigit() else name


def _out_str(o):
    if isinstance(o, Value):
        return repr(o)
    if isinstance(o, (list, tuple)):
        return ", ".join(_out_str(x) for x in o)
    if isinstance(o, dict):
        return ", ".join(_out_str(x) for x in o.values())
    return const_str(o)


def _py_type(o):
    if isinstance(o, Value):
        return "Tensor"
    if isinstance(o, tuple):
        return f"Tuple[{', '.join(_py_type(x) for x in o)}]"
    if isinstance(o, list):
        return f"List[{_py_type(o[0]) if o else 'Tensor'}]"
    if isinstance(o, dict):
        return "Dict[str, Tensor]"
    return const_type(o)


def _py_const(c):
    if isinstance(c, torchlike.dtype):
        return str(c).replace("torchlike.", "torch.")
    if isinstance(c, torchlike.device):
        return f'torch.device("{c}")'
    return repr(c)


def _out_code(o, arg):
    if isinstance(o, Value):
        return arg(o)
    if isinstance(o, tuple):
        inner = ", ".join(_out_code(x, arg) for x in o)
        return f"({inner}{',' if len(o) == 1 else ''})"
    if isinstance(o, list):
        return "[" + ", ".join(_out_code(x, arg) for x in o) + "]"
    if isinstance(o, dict):
        return "{" + ", ".join(f"{k!r}: {_out_code(x, arg)}" for k, x in o.items()) + "}"
    return _py_const(o)


def _get_path(root, path):
    """The attribute at `path` (a parameter, buffer or submodule), read at call time."""
    obj = root
    for p in path:
        d = obj.__dict__
        # nn.Module keeps these in its tables; reading them there skips two __getattr__ frames.
        for table in ("_parameters", "_buffers", "_modules"):
            t = d.get(table)
            if t is not None and p in t:
                obj = t[p]
                break
        else:
            obj = getattr(obj, p)
    return obj


def _resolve(a, env):
    if isinstance(a, Value):
        return env[a.slot]
    if isinstance(a, list):
        return [_resolve(x, env) for x in a]
    if isinstance(a, tuple):
        return tuple(_resolve(x, env) for x in a)
    return a


def rebuild(spec, env):
    if isinstance(spec, Value):
        return env[spec.slot]
    if isinstance(spec, list):
        return [rebuild(x, env) for x in spec]
    if isinstance(spec, tuple):
        return tuple(rebuild(x, env) for x in spec)
    if isinstance(spec, dict):
        return {k: rebuild(v, env) for k, v in spec.items()}
    return spec


def flatten_tensors(obj, out):
    if isinstance(obj, torchlike.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            flatten_tensors(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            flatten_tensors(x, out)
    return out


def _build_executor(g):
    vals = g.all_values()
    for i, v in enumerate(vals):
        v.slot = i
    n_slots = len(vals)
    steps = []
    for n in g.nodes:
        steps.append(_step(n))
    inputs = [(v.slot, i) for i, v in enumerate(g.inputs)]
    params = [(v.slot, tuple(v.path)) for v in g.params]
    consts = [(v.slot, v.ref) for v in g.consts]
    output = g.output

    def run(root, flat):
        if len(flat) != len(inputs):
            raise RuntimeError(f"the traced function takes {len(inputs)} tensor input(s), got {len(flat)}")
        env = [None] * n_slots
        for s, i in inputs:
            env[s] = flat[i]
        for s, path in params:
            env[s] = _get_path(root, path)
        for s, t in consts:
            env[s] = t
        for st in steps:
            st(env, root)
        return rebuild(output, env)
    return run


def _step(n):
    args = n.args
    outs = [v.slot for v in n.outputs]
    if n.kind == "prim::CallMethod":
        path, method, spec = tuple(n.attrs["path"]), n.attrs["method"], n.result

        def call(env, root):
            target = _get_path(root, path)
            r = getattr(target, method)(*_resolve(args, env))
            for s, t in zip(outs, flatten_tensors(r, [])):
                env[s] = t
        return call
    if n.kind == "prim::CallFunction":
        fn = n.attrs["fn"]

        def callf(env, root):
            r = fn(*_resolve(args, env))
            for s, t in zip(outs, flatten_tensors(r, [])):
                env[s] = t
        return callf
    handle = _C._ops_handle(n.kind)
    kind = n.result
    call = _C._ops_call_boxed
    if all(not isinstance(a, (list, tuple)) for a in args):
        # The common case (tensors and scalars, no lists): slots looked up in one comprehension.
        spec = [(a.slot, None) if isinstance(a, Value) else (-1, a) for a in args]

        def boxed(env):
            return tuple([env[s] if s >= 0 else c for s, c in spec])
    else:
        def boxed(env):
            return tuple([_resolve(a, env) for a in args])
    if kind == "tensor":
        o = outs[0]

        def step(env, root):
            env[o] = call(handle, boxed(env))
    else:
        def step(env, root):
            r = call(handle, boxed(env))
            if outs:
                for s, t in zip(outs, r):
                    env[s] = t
    return step
