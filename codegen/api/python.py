"""Python-facing mappings: the signatures PythonArgParser reads, how a parsed
argument becomes a C++ value, which overloads form one Python callable, and
the types of the .pyi stubs."""
from __future__ import annotations

import keyword
from collections import OrderedDict

from codegen.api.ops import Op, is_function, is_method, is_out_of
from codegen.api.types import UnsupportedType
from codegen.model import BaseType, FunctionSchema, ListType, OptionalType

_PY_TYPE = {"Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool", "str": "str",
            "Scalar": "Scalar", "ScalarType": "ScalarType", "Layout": "Layout", "Device": "Device",
            "Generator": "Generator", "MemoryFormat": "MemoryFormat"}


def py_type(t) -> str:
    if isinstance(t, BaseType):
        if t.name not in _PY_TYPE:
            raise UnsupportedType(f"unsupported type {t.name}: no Python signature type in codegen/api/python.py")
        return _PY_TYPE[t.name]
    if isinstance(t, OptionalType):
        return py_type(t.elem) + "?"
    if isinstance(t, ListType):
        inner = py_type(t.elem)
        return f"{inner}[{t.size}]" if t.size else f"{inner}[]"
    raise AssertionError(t)


def py_signature(op: Op, name: str, method: bool, out_op: Op | None) -> str:
    """The signature string the C++ PythonArgParser reads, e.g.
    add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)."""
    parts, star = [], False
    for a in op.schema.arguments:
        if a.kwarg_only and not star:
            parts.append("*")
            star = True
        pname = "input" if (a.name == "self" and not method) else a.name
        if method and a.name == "self":
            pname = "self"
        s = f"{py_type(a.type)} {pname}"
        if a.default is not None:
            s += f"={a.default}"
        parts.append(s)
    if out_op is not None:
        if not star:
            parts.append("*")
        outs = out_op.schema.out_arguments
        # Several outputs are passed as one tuple: torch.max(x, 1, out=(values, indices)).
        parts.append(f"Tensor {outs[0].name}=None" if len(outs) == 1 else f"Tensor[{len(outs)}] out=None")
    return f"{name}({', '.join(parts)})"


def python_module(op: Op) -> str:
    """The Python module a function binding goes to ("" is torchlike itself).
    An extension's functions go to a module named after its namespace, so
    they never replace a core function of the same name."""
    pm = op.f.python_module or ""
    if op.ns.is_core:
        return pm
    return op.ns.name + ("_" + pm if pm else "")


def python_bindings(ops: list[Op]):
    """Groups overloads into Python callables: {(module, name, is_method): [(op, out_op, signature)]}."""
    table: OrderedDict = OrderedDict()
    functional = [o for o in ops if o.kind != "out"]
    outs = [o for o in ops if o.kind == "out"]

    def matching_out(op: Op):
        return next((o for o in outs if is_out_of(o, op)), None)

    for op in functional:
        f = op.f
        if f.manual_binding:
            continue
        pyname = str(op.schema.name.name)
        module = python_module(op)
        if is_function(op):
            out = matching_out(op) if op.kind == "functional" else None
            table.setdefault((module, pyname, False), []).append((op, out, py_signature(op, pyname, False, out)))
        if is_method(op):
            table.setdefault(("", pyname, True), []).append((op, None, py_signature(op, pyname, True, None)))
    # out-only entries (no functional twin) are reachable from Python under their base name
    for o in outs:
        if o.f.manual_binding or "function" not in o.f.variants:
            continue
        if not any(out is o for entries in table.values() for (_, out, _) in entries):
            pyname = o.schema.name.name
            table.setdefault((python_module(o), pyname, False), []).append(
                (o, None, py_signature(o, pyname, False, None)))
    return table


PARSED_ACCESSOR = {
    "Tensor": "tensor", "Tensor?": "optionalTensor", "Tensor[]": "tensorlist", "Tensor?[]": "tensorlist",
    "Scalar": "scalar", "Scalar?": "optionalScalar",
    "int": "toInt64", "SymInt": "toInt64", "int?": "optionalInt64", "SymInt?": "optionalInt64",
    "float": "toDouble", "float?": "optionalDouble", "bool": "toBool", "bool?": "optionalBool",
    "str": "stringView", "str?": "optionalStringView",
    "ScalarType": "scalartype", "ScalarType?": "optionalScalarType", "Layout?": "optionalLayout",
    "Device": "device", "Device?": "optionalDevice", "Generator?": "optionalGenerator",
    "MemoryFormat?": "optionalMemoryFormat", "MemoryFormat": "memoryformat",
}


def parsed_accessor(t) -> str:
    key = str(t)
    if isinstance(t, ListType) and t.elem.base.name in ("int", "SymInt"):
        return "intlist"
    if isinstance(t, OptionalType) and isinstance(t.elem, ListType) and t.elem.elem.base.name in ("int", "SymInt"):
        return "optionalIntlist"
    if key not in PARSED_ACCESSOR:
        raise UnsupportedType(f"unsupported type {t.base.name}: no Python argument conversion for {key}")
    return PARSED_ACCESSOR[key]


def _call_without_gil(op: Op, cpp_name: str, args: list[str]) -> str:
    """The kernel call of a binding: arguments converted with the GIL held, the
    operator run without it (tl::python::call_without_gil)."""
    fwd = "[](auto&&... a_) { return %s::_ops::%s(std::forward<decltype(a_)>(a_)...); }" % (op.ns.cpp, cpp_name)
    return f"tl::python::call_without_gil({', '.join([fwd] + args)})"


def binding_cases(entries, method: bool):
    """For each signature: how to call C++ with parsed arguments."""
    cases = []
    for idx, (op, out, sig) in enumerate(entries):
        args = op.schema.arguments
        pos = {a.name: i for i, a in enumerate(args)}
        call_args = [f"r.{parsed_accessor(a.type)}({pos[a.name]})" for a in op.cpp_args]
        case = dict(idx=idx, op=op, call=_call_without_gil(op, op.cpp_name, call_args),
                    returns=op.schema.returns, out_call=None, out_index=len(args))
        if out is not None:
            o_args = []
            outs = out.schema.out_arguments
            for a in out.cpp_args:
                if a.is_write and a.kwarg_only:
                    o_args.append(f"r.tensor({len(args)})" if len(outs) == 1 else
                                  f"r.tensorlist({len(args)})[{outs.index(a)}]")
                else:
                    o_args.append(f"r.{parsed_accessor(a.type)}({pos[a.name]})")
            case["out_call"] = _call_without_gil(out, out.cpp_name, o_args)
        cases.append(case)
    return cases


def return_kind(schema: FunctionSchema) -> str:
    r = schema.returns
    if not r:
        return "none"
    if len(r) > 1:
        return "namedtuple" if all(x.name for x in r) else "tuple"
    t = r[0].type
    if isinstance(t, ListType):
        return "tensorlist"
    return {"Tensor": "tensor", "float": "double", "int": "int", "bool": "bool", "Scalar": "scalar"}[t.base.name]


_PYI_TYPE = {"Tensor": "Tensor", "int": "_int", "SymInt": "_int", "float": "_float", "bool": "_bool", "str": "str",
             "Scalar": "Number", "ScalarType": "_dtype", "Layout": "_layout", "Device": "DeviceLikeType",
             "Generator": "Generator", "MemoryFormat": "memory_format"}


def pyi_type(t) -> str:
    if isinstance(t, BaseType):
        return _PYI_TYPE[t.name]
    if isinstance(t, OptionalType):
        return f"Optional[{pyi_type(t.elem)}]"
    if isinstance(t, ListType):
        if t.elem.base.name in ("int", "SymInt"):
            return "Union[_int, Sequence[_int]]" if t.size else "Sequence[_int]"
        return f"Sequence[{pyi_type(t.elem)}]"
    raise AssertionError(t)


def pyi_def(op: Op, name: str, method: bool, out: Op | None) -> str:
    parts, star = [], False
    if method:
        parts.append("self")
    for a in op.schema.arguments:
        if method and a.name == "self":
            continue
        if a.kwarg_only and not star:
            parts.append("*")
            star = True
        pname = "input" if a.name == "self" else a.name
        if keyword.iskeyword(pname):  # uniform_(from=...) is fine as **kwargs, not as a stub parameter
            pname += "_"
        t = pyi_type(a.type)
        if a.type == BaseType("Tensor") and a.name != "self":
            t = "Union[Tensor, Number]"
        s = f"{pname}: {t}"
        if a.default is not None:
            s += " = ..."
        parts.append(s)
    if out is not None:
        if not star:
            parts.append("*")
        n = len(out.schema.out_arguments)
        parts.append("out: Optional[Tensor] = None" if n == 1 else
                     f"out: Optional[tuple[{', '.join(['Tensor'] * n)}]] = None")
    rets = op.schema.returns
    if not rets:
        ret = "None"
    elif len(rets) == 1:
        ret = {"tensor": "Tensor", "tensorlist": "tuple[Tensor, ...]", "double": "_float", "int": "_int",
               "bool": "_bool", "scalar": "Number"}[return_kind(op.schema)]
    else:
        ret = "tuple[" + ", ".join("Tensor" for _ in rets) + "]"
    return f"def {name}({', '.join(parts)}) -> {ret}: ..."


