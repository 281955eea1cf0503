"""C++ types for schema types: the library API (at::_ops on TensorBase) and
the user-facing API (at::Tensor)."""
from __future__ import annotations

import re

from codegen.model import BaseType, FunctionSchema, ListType, OptionalType


class UnsupportedType(Exception):
    """A schema type the generator has no C++ (or Python) mapping for. The
    caller adds the YAML entry's file:line (see gen.py's validation pass)."""


_CPP_BASE = {
    "Tensor": "at::TensorBase", "int": "int64_t", "SymInt": "int64_t", "float": "double", "bool": "bool",
    "str": "std::string_view", "Scalar": "at::Scalar", "ScalarType": "at::ScalarType", "Layout": "at::Layout",
    "Device": "at::Device", "Generator": "c10::Generator", "MemoryFormat": "at::MemoryFormat",
}
_BY_CONST_REF = {"Tensor", "Scalar", "Generator"}


def cpp_value_type(t) -> str:
    """The C++ type used inside std::optional / as a by-value return."""
    if isinstance(t, BaseType):
        if t.name not in _CPP_BASE:
            # The schema grammar knows it (PyTorch's YAML uses it), the generated C++ does not.
            raise UnsupportedType(f"unsupported type {t.name}: no C++ mapping in codegen/api/types.py")
        return _CPP_BASE[t.name]
    if isinstance(t, OptionalType):
        return f"std::optional<{cpp_value_type(t.elem)}>"
    if isinstance(t, ListType):
        if t.elem.base.name == "Tensor":
            return "at::TensorBaseList"
        if t.elem.base.name in ("int", "SymInt"):
            return "at::IntArrayRef"
        if t.elem.base.name not in _CPP_BASE:
            cpp_value_type(t.elem.base)  # raises the clearer "unsupported type X"
        raise UnsupportedType(f"unsupported list type {t}")
    raise AssertionError(t)


def cpp_arg_type(t) -> str:
    v = cpp_value_type(t)
    if isinstance(t, BaseType) and t.name in _BY_CONST_REF:
        return f"const {v}&"
    if isinstance(t, OptionalType) and isinstance(t.elem, BaseType) and t.elem.name in _BY_CONST_REF:
        return f"const {v}&"
    return v


def cpp_return_type(schema: FunctionSchema) -> str:
    rets = schema.returns
    if not rets:
        return "void"

    def one(t):
        if isinstance(t, ListType) and t.elem.base.name == "Tensor":
            return "std::vector<at::TensorBase>"
        return cpp_value_type(t)
    if len(rets) == 1:
        return one(rets[0].type)
    return "std::tuple<" + ", ".join(one(r.type) for r in rets) + ">"


_SCALARTYPE_DEFAULTS = {"long": "at::ScalarType::Long", "float": "at::ScalarType::Float", "int": "at::ScalarType::Int",
                        "double": "at::ScalarType::Double", "bool": "at::ScalarType::Bool"}


def cpp_default(arg) -> str:
    d, t = arg.default, arg.type
    if d == "None":
        return "std::nullopt"
    if d in ("True", "False"):
        return d.lower()
    if d.startswith("["):
        return "at::IntArrayRef{" + d[1:-1] + "}" if d != "[]" else "at::IntArrayRef{}"
    if d.startswith('"') or d.startswith("'"):
        return '"' + d[1:-1] + '"'
    if t.base.name == "ScalarType":
        if d not in _SCALARTYPE_DEFAULTS:
            raise UnsupportedType(f"unsupported ScalarType default {d!r} for '{arg.name}'")
        return _SCALARTYPE_DEFAULTS[d]
    if t.base.name == "MemoryFormat":
        return "at::MemoryFormat::Contiguous"
    if isinstance(t, ListType):  # int[2] stride=1
        return "at::IntArrayRef{" + d + "}"
    return d


# Types a number literal converts to. Arithmetic types take it by a standard
# conversion, Scalar and IntArrayRef by a user-defined one; two parameters are
# confusable when a call could match both at the same rank (or pick the wrong
# one silently: 1.5 -> int64_t over Scalar). int64_t vs IntArrayRef is not: the
# int64_t overload wins for a number and only IntArrayRef takes a list.
_ARITHMETIC = {"int64_t", "double", "bool", "at::Scalar"}
_FROM_INT_BY_CONSTRUCTOR = {"at::Scalar", "at::IntArrayRef"}


def _type_family(cpp_type: str) -> str:
    t = cpp_type.replace("const ", "").replace("&", "").strip()
    m = re.fullmatch(r"std::optional<(.*)>", t)
    return m.group(1) if m else t


def _confusable(x: str, y: str) -> bool:
    return x == y or {x, y} <= _ARITHMETIC or {x, y} <= _FROM_INT_BY_CONSTRUCTOR


def required_arguments(ops: list) -> dict:
    """For each overload (by id), how many leading C++ arguments a call must pass.
    Starts from the schema (arguments up to the last one without a default) and
    is raised, one argument at a time on the longer overload, until no call
    could match two overloads of one name whose leading parameter types are
    confusable (C++ would call it ambiguous, or pick by a narrowing conversion)."""
    req, fam, by_name = {}, {}, {}
    for o in ops:
        args = o.cpp_args
        req[id(o)] = max((i + 1 for i, a in enumerate(args) if a.default is None), default=0)
        fam[id(o)] = [_type_family(cpp_arg_type(a.type)) for a in args]
        by_name.setdefault(o.cpp_name, []).append(o)

    def clash(a, b):
        fa, fb = fam[id(a)], fam[id(b)]
        return any(all(_confusable(x, y) for x, y in zip(fa[:k], fb[:k]))
                   for k in range(max(req[id(a)], req[id(b)]), min(len(fa), len(fb)) + 1))

    for group in by_name.values():
        changed = True
        while changed:
            changed = False
            for i, a in enumerate(group):
                for b in group[i + 1:]:
                    if not clash(a, b):
                        continue
                    longer, shorter = (a, b) if len(fam[id(a)]) >= len(fam[id(b)]) else (b, a)
                    for x in (longer, shorter):
                        if req[id(x)] < len(fam[id(x)]):
                            req[id(x)] += 1
                            changed = True
                            break
    return req


def _params(args, types, required: int) -> str:
    """C++ parameters; arguments from index `required` on keep their defaults."""
    out = []
    for i, (a, t) in enumerate(zip(args, types)):
        s = f"{t} {a.name}"
        if i >= required and a.default is not None:
            s += f" = {cpp_default(a)}"
        out.append(s)
    return ", ".join(out)


def cpp_params(op, required: int | None = None) -> str:
    """`required` None: no defaults (definitions)."""
    args = op.cpp_args
    return _params(args, [cpp_arg_type(a.type) for a in args], len(args) if required is None else required)


def cpp_arg_types(op) -> str:
    return ", ".join(cpp_arg_type(a.type) for a in op.cpp_args)


def cpp_arg_names(op) -> str:
    return ", ".join(a.name for a in op.cpp_args)


def kernel_params(op) -> str:
    """Parameters of a dispatcher kernel: the key set, then the C++ arguments."""
    return "".join([f", {cpp_arg_type(a.type)} {a.name}" for a in op.cpp_args])


# ----------------------------------------------------------------- the user-facing C++ API

def user_type(cpp: str) -> str:
    return (cpp.replace("at::TensorBaseList", "at::TensorList").replace("at::TensorBase", "at::Tensor")
            .replace("std::optional<at::IntArrayRef>", "at::OptionalIntArrayRef"))


def user_params(args, required: int | None) -> str:
    return _params(args, [user_type(cpp_arg_type(a.type)) for a in args], len(args) if required is None else required)


def check_types(op) -> None:
    """Raises UnsupportedType when any argument, default or return of `op` has
    no C++ mapping; run once per op before rendering, so the error names the entry."""
    for a in op.schema.arguments:
        cpp_arg_type(a.type)
        if a.default is not None:
            cpp_default(a)
    cpp_return_type(op.schema)
