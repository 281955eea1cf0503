"""Generates the operator layer from native_functions.yaml.

    python codegen/gen.py --yaml native_functions.yaml --out build/generated --pyi torchlike/_C

For every operator group (all overloads sharing a base name, plus the in-place
and out= variants derived for pointwise entries) it writes one header and one
source file under ops/, so editing one YAML entry recompiles one small file.
Aggregate files (registration list, Python method tables, stubs) are tiny.
The user-facing C++ API (TensorBody.h: at::Tensor and its methods;
Functions.h: at:: functions on at::Tensor) is aggregate too, but only code
outside the library includes it; library code uses the per-op at::_ops.
Files are rewritten only when their text changes, so ninja rebuilds nothing
for an unchanged entry.
"""
from __future__ import annotations

import argparse
import dataclasses
import keyword
import os
import re
import sys
from collections import OrderedDict
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jinja2  # noqa: E402

from codegen.autograd import MissingHelper, autograd_info, known_helpers  # noqa: E402
from codegen.formula import POINTWISE_FUNCTIONS, tokenize  # noqa: E402
from codegen.model import (  # noqa: E402
    BaseType, CodegenError, FunctionSchema, ListType, NativeFunction, OptionalType,
    load_native_functions, pointwise_variants,
)

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

# ----------------------------------------------------------------- C++ types

_CPP_BASE = {
    "Tensor": "at::TensorBase", "int": "int64_t", "SymInt": "int64_t", "float": "double", "bool": "bool",
    "str": "std::string_view", "Scalar": "at::Scalar", "ScalarType": "at::ScalarType", "Layout": "at::Layout",
    "Device": "at::Device", "Generator": "c10::Generator", "MemoryFormat": "at::MemoryFormat",
}
_BY_CONST_REF = {"Tensor", "Scalar", "Generator"}


def cpp_value_type(t) -> str:
    """The C++ type used inside std::optional / as a by-value return."""
    if isinstance(t, BaseType):
        return _CPP_BASE[t.name]
    if isinstance(t, OptionalType):
        return f"std::optional<{cpp_value_type(t.elem)}>"
    if isinstance(t, ListType):
        if t.elem.base.name == "Tensor":
            return "at::TensorBaseList"
        if t.elem.base.name in ("int", "SymInt"):
            return "at::IntArrayRef"
        raise CodegenError(_current_loc, f"unsupported list type {t}")
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
        return _SCALARTYPE_DEFAULTS[d]
    if t.base.name == "MemoryFormat":
        return "at::MemoryFormat::Contiguous"
    if isinstance(t, ListType):  # int[2] stride=1
        return "at::IntArrayRef{" + d + "}"
    return d


_current_loc = None

# ----------------------------------------------------------------- op model


@dataclass
class Op:
    """One operator overload as emitted: schema plus how it is implemented."""
    schema: FunctionSchema
    f: NativeFunction               # the YAML entry it comes from
    kind: str                       # functional | inplace | out
    cpp_name: str
    dispatch: list = field(default_factory=list)   # [(key, native kernel name or None for pointwise)]
    pointwise: object = None
    autograd: object = None                        # codegen.autograd.AutogradInfo, when it gets an Autograd kernel

    @property
    def qualified(self):
        return f"aten::{self.schema.name}"

    @property
    def ident(self):
        return str(self.schema.name).replace(".", "_")

    # C++ argument order: out= arguments first (PyTorch's at::add_out(out, ...)).
    @property
    def cpp_args(self):
        a = list(self.schema.arguments)
        if self.kind == "out":
            outs = [x for x in a if x.is_write and x.kwarg_only]
            a = outs + [x for x in a if x not in outs]
        return a

    @property
    def has_tensor_args(self):
        return any(x.type.is_tensor_like for x in self.schema.arguments)

    @property
    def device_arg(self):
        a = self.schema.argument("device")
        return a.name if a is not None else None


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


def cpp_params(op: Op, required: int | None = None) -> str:
    """`required` None: no defaults (definitions)."""
    args = op.cpp_args
    return _params(args, [cpp_arg_type(a.type) for a in args], len(args) if required is None else required)


def cpp_arg_types(op: Op) -> str:
    return ", ".join(cpp_arg_type(a.type) for a in op.cpp_args)


def cpp_arg_names(op: Op) -> str:
    return ", ".join(a.name for a in op.cpp_args)


# ----------------------------------------------------------------- the user-facing C++ API
# at::Tensor methods (TensorBody.h) and at:: functions on at::Tensor (Functions.h),
# generated over the at::_ops entry points that take and return TensorBase.


def user_type(cpp: str) -> str:
    return (cpp.replace("at::TensorBaseList", "at::TensorList").replace("at::TensorBase", "at::Tensor")
            .replace("std::optional<at::IntArrayRef>", "at::OptionalIntArrayRef"))


def _user_return(op: "Op") -> tuple[str, str, str]:
    """(return type, wrap_open, wrap_close) for forwarding an at::_ops result."""
    ret = cpp_return_type(op.schema)
    if ret == "std::vector<at::TensorBase>":
        return "std::vector<at::Tensor>", "detail::from_base_list(", ")"
    return user_type(ret), "", ""


def _forward_arg(a) -> str:
    if isinstance(a.type, ListType) and a.type.elem.base.name == "Tensor":
        return f"detail::to_base_list({a.name})"
    return a.name


def _user_params(args, required: int | None) -> str:
    return _params(args, [user_type(cpp_arg_type(a.type)) for a in args], len(args) if required is None else required)


# Which operators are methods and which are functions, in Python and in C++ alike.
# The in-place variant derived from a pointwise entry is a method only (t.add_(u)).
def is_method(op: "Op") -> bool:
    return op.kind != "out" and ("method" in op.f.variants or (op.kind == "inplace" and op.f.pointwise is not None))


def is_function(op: "Op") -> bool:
    return "function" in op.f.variants and not (op.kind == "inplace" and op.f.pointwise is not None)


def tensorbase_members(header: str) -> set[str]:
    """Member function names of c10::TensorBase: a generated method must not hide one."""
    text = open(header).read()
    body = text.split("class TensorBase {", 1)[1].split("\n};", 1)[0]
    return set(re.findall(r"(\w+)\(", body))


@dataclass
class _MethodOp:
    """An operator seen as a method: its C++ arguments without self (for the defaults rule)."""
    op: "Op"

    @property
    def cpp_name(self):
        return self.op.cpp_name

    @property
    def cpp_args(self):
        return [a for a in self.op.cpp_args if a.name != "self"]


def scalar_operand(op: "Op") -> str | None:
    """A binary pointwise op (self plus one other tensor) also takes a number for
    that operand in the C++ API (t.add(2), t.pow(2)); the number is wrapped as
    Python wraps it, so it promotes the same way. Returns the operand's name."""
    if op.f.pointwise is None or op.kind == "out":
        return None
    tensors = [a.name for a in op.schema.arguments if a.type == BaseType("Tensor") and not a.is_write]
    if op.kind == "inplace":
        return tensors[0] if len(tensors) == 1 else None
    return tensors[1] if len(tensors) == 2 and tensors[0] == "self" else None


def _with_scalar(name: str, params: list, forwarded: list) -> tuple[list, list]:
    """(parameters, forwarded argument texts) with operand `name` as a Scalar."""
    from codegen.model import SCALAR
    return ([dataclasses.replace(a, type=SCALAR) if a.name == name else a for a in params],
            [f"c10::wrapped_scalar_tensor({a.name})" if a.name == name else None for a in forwarded])


def user_api(groups, base_members: set[str]) -> tuple[list, list]:
    global _current_loc
    methods, functions = [], []
    for ops in groups.values():
        fn_ops = [o for o in ops if is_function(o)]
        fn_req = required_arguments(fn_ops)
        for o in fn_ops:
            ret, wo, wc = _user_return(o)
            functions.append(dict(op=o, wrap_open=wo, wrap_close=wc,
                                  decl=f"{ret} {o.cpp_name}({_user_params(o.cpp_args, fn_req[id(o)])})",
                                  call_args=", ".join(_forward_arg(a) for a in o.cpp_args)))
            operand = scalar_operand(o)
            if operand:
                params, fwd = _with_scalar(operand, o.cpp_args, o.cpp_args)
                functions.append(dict(op=o, wrap_open=wo, wrap_close=wc,
                                      decl=f"{ret} {o.cpp_name}({_user_params(params, fn_req[id(o)])})",
                                      call_args=", ".join(f or _forward_arg(a) for a, f in zip(o.cpp_args, fwd))))
        m_ops = [_MethodOp(o) for o in ops if is_method(o)]
        m_req = required_arguments(m_ops)
        for m in m_ops:
            o = m.op
            _current_loc = o.f.loc
            if o.cpp_name in base_members:
                raise CodegenError(o.f.loc, f"{o.schema.name}: a method named {o.cpp_name!r} would hide "
                                            f"c10::TensorBase::{o.cpp_name}; drop the 'method' variant")
            inplace = o.kind == "inplace"
            ret, wo, wc = ("at::Tensor&", "", "") if inplace else _user_return(o)
            variants = [(m.cpp_args, [None] * len(o.cpp_args))]
            operand = scalar_operand(o)
            if operand:
                variants.append(_with_scalar(operand, m.cpp_args, o.cpp_args))
            for params, fwd in variants:
                call = ", ".join("*this" if a.name == "self" else (f or _forward_arg(a))
                                 for a, f in zip(o.cpp_args, fwd))
                methods.append(dict(op=o, inplace=inplace, wrap_open=wo, wrap_close=wc, call_args=call,
                                    decl=f"{ret} {o.cpp_name}({_user_params(params, m_req[id(m)])}) const",
                                    definition=f"{ret} Tensor::{o.cpp_name}({_user_params(params, None)}) const"))
    return methods, functions


# ----------------------------------------------------------------- Python signatures

_PY_TYPE = {"Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool", "str": "str",
            "Scalar": "Scalar", "ScalarType": "ScalarType", "Layout": "Layout", "Device": "Device",
            "Generator": "Generator", "MemoryFormat": "MemoryFormat"}


def py_type(t) -> str:
    if isinstance(t, BaseType):
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


def is_out_of(out: Op, op: Op) -> bool:
    """Whether out= overload `out` computes op into its out= tensors: the same
    arguments once the out= ones are dropped."""
    rest = [a for a in out.schema.arguments if not (a.is_write and a.kwarg_only)]
    return [(a.name, a.type, a.default) for a in rest] == [(a.name, a.type, a.default) for a in op.schema.arguments]


def functional_of(out: Op, group: list) -> Op | None:
    """The functional overload an out= overload belongs to."""
    return next((o for o in group if o.kind == "functional" and is_out_of(out, o)), None)


def composite_versions(op: Op, key: str) -> dict | None:
    """How the generated wrapper of a CompositeExplicitAutograd kernel settles
    version counters (c10/Tensor.h, finish_composite_*): the (a!) arguments it
    writes get one bump for the whole op, and a functional op's fresh results
    start at 0, however many nested in-place ops the composite used. Views (an
    aliasing return) and other backends' kernels are left alone."""
    if key != "CompositeExplicitAutograd":
        return None
    s = op.schema
    written = [a for a in s.arguments if a.is_write]
    if written:
        for a in written:
            if a.type != BaseType("Tensor"):
                raise CodegenError(op.f.loc, f"{s.name}: written argument '{a.name}' of type {a.type} is not "
                                             "supported by composite version handling")
        return dict(written=[a.name for a in written], fresh=[])
    rets = s.returns
    if not rets or any(r.annotation is not None or r.type != BaseType("Tensor") for r in rets):
        return None
    fresh = ["r_"] if len(rets) == 1 else [f"std::get<{i}>(r_)" for i in range(len(rets))]
    return dict(written=[], fresh=fresh)


# ----------------------------------------------------------------- building ops


def build_ops(fns: list[NativeFunction]) -> "OrderedDict[str, list[Op]]":
    global _current_loc
    groups: OrderedDict[str, list[Op]] = OrderedDict()
    for f in fns:
        _current_loc = f.loc
        s = f.func
        base = s.name.base
        kind = "inplace" if s.is_inplace else ("out" if s.is_out else "functional")
        cpp = _cpp_name(s, kind)
        op = Op(schema=s, f=f, kind=kind, cpp_name=cpp, dispatch=list(f.dispatch), pointwise=f.pointwise)
        ops = [op]
        if f.pointwise is not None:
            inplace, out = pointwise_variants(f)
            if inplace is not None:
                ops.append(Op(schema=inplace, f=f, kind="inplace", cpp_name=_cpp_name(inplace, "inplace"),
                              pointwise=f.pointwise))
            ops.append(Op(schema=out, f=f, kind="out", cpp_name=_cpp_name(out, "out"), pointwise=f.pointwise))
        groups.setdefault(base, []).extend(ops)
    return groups


def _cpp_name(s: FunctionSchema, kind: str) -> str:
    n = s.name.name
    return n + "_out" if kind == "out" else n


# ----------------------------------------------------------------- rendering

def make_env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.globals.update(cpp_params=cpp_params, cpp_arg_types=cpp_arg_types, cpp_arg_names=cpp_arg_names,
                       cpp_return_type=cpp_return_type, cpp_arg_type=cpp_arg_type,
                       composite_versions=composite_versions)
    return env


def write_if_changed(path: str, text: str, written: list):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path) as fh:
            if fh.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as fh:
        fh.write(text)
    written.append(path)


_DTYPE_MACRO = {"all": "TL_DISPATCH_ALL_TYPES", "numeric": "TL_DISPATCH_NUMERIC_TYPES",
                "integral": "TL_DISPATCH_INTEGRAL_TYPES", "integral_and_bool": "TL_DISPATCH_INTEGRAL_AND_BOOL_TYPES",
                "floating": "TL_DISPATCH_FLOATING_TYPES", "bool": "TL_DISPATCH_BOOL_TYPES"}


def cpp_pointwise_expr(expr: str) -> str:
    """The formula as C++: function calls are qualified into tl_math (aten/native/Math.h),
    so a name never resolves to an unrelated global overload (glibc's ::isinf)."""
    toks = tokenize(expr)
    out = []
    for i, t in enumerate(toks):
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        out.append(f"tl_math::{t}" if t in POINTWISE_FUNCTIONS and nxt == "(" else t)
    return " ".join(out)


def pointwise_info(op: Op) -> dict:
    """What the pointwise template needs: tensor inputs, scalar members, the expression."""
    s = op.schema
    tensors = [a for a in s.arguments if a.type == BaseType("Tensor") and not (a.is_write and a.kwarg_only)]
    scalars = [a for a in s.arguments if a.type.base.name == "Scalar"]
    return dict(tensors=[a.name for a in tensors], scalars=[a.name for a in scalars],
                expr=cpp_pointwise_expr(op.pointwise.expr), dtype_macro=_DTYPE_MACRO[op.pointwise.dtypes],
                int_to_float=op.pointwise.promote == "int_to_float", promote=op.pointwise.promote != "none",
                result_bool=op.pointwise.result == "bool", check=op.pointwise.check,
                # A floating-only op that does not turn integers into floats
                # refuses integer tensors even when a Python float joins them
                # (frac(int_tensor), lerp(int, int, 0.5)), as PyTorch does.
                floating_only=op.pointwise.dtypes == "floating" and op.pointwise.promote == "default")


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
        module = f.python_module or ""
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
            table.setdefault((o.f.python_module or "", pyname, False), []).append(
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
        raise CodegenError(_current_loc, f"no Python argument conversion for type {key}")
    return PARSED_ACCESSOR[key]


def _call_without_gil(cpp_name: str, args: list[str]) -> str:
    """The kernel call of a binding: arguments converted with the GIL held, the
    operator run without it (tl::python::call_without_gil)."""
    fwd = "[](auto&&... a_) { return at::_ops::%s(std::forward<decltype(a_)>(a_)...); }" % cpp_name
    return f"tl::python::call_without_gil({', '.join([fwd] + args)})"


def binding_cases(entries, method: bool):
    """For each signature: how to call C++ with parsed arguments."""
    cases = []
    for idx, (op, out, sig) in enumerate(entries):
        args = op.schema.arguments
        pos = {a.name: i for i, a in enumerate(args)}
        call_args = [f"r.{parsed_accessor(a.type)}({pos[a.name]})" for a in op.cpp_args]
        case = dict(idx=idx, op=op, call=_call_without_gil(op.cpp_name, call_args),
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
            case["out_call"] = _call_without_gil(out.cpp_name, o_args)
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


def generate(yaml_path: str, out_dir: str, pyi_dir: str | None, backends=("CPU", "Meta")) -> list[str]:
    global _current_loc
    fns = load_native_functions(yaml_path, backends=backends)
    groups = build_ops(fns)
    # Which generated header declares each C++ operator name, for formula includes.
    header_of = {o.cpp_name: base for base, ops in groups.items() for o in ops}
    helpers = known_helpers(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                         "csrc", "autograd", "FunctionsManual.h"))
    # Developer escape hatch while writing helpers: such derivatives raise NotImplementedError at backward.
    allow_missing = os.environ.get("TORCHLIKE_ALLOW_MISSING_BACKWARD") == "1"
    for ops in groups.values():
        for o in ops:
            _current_loc = o.f.loc
            try:
                o.autograd = autograd_info(o, set(header_of), helpers, allow_missing,
                                           warn=lambda m, o=o: print(f"warning: {o.f.loc}: {o.schema.name}: {m}",
                                                                     file=sys.stderr),
                                           functional=functional_of(o, ops) if o.kind == "out" else None)
            except MissingHelper as e:
                raise CodegenError(o.f.loc, f"{o.schema.name}: {e}") from e
            except Exception as e:  # a formula the translator can't handle: name the entry
                raise CodegenError(o.f.loc, f"{o.schema.name}: derivative formula: {e}") from e
    env = make_env()
    written: list[str] = []
    yaml_name = os.path.basename(yaml_path)
    sources = []
    all_python: list = []
    for base, ops in groups.items():
        # Entries by name, in YAML order. No line numbers: a line added above an
        # entry would otherwise rewrite (and recompile) every file below it.
        entries = [n for n, _ in sorted({(str(o.f.func.name), o.f.loc.line) for o in ops}, key=lambda x: x[1])]
        provenance = f"{yaml_name} entries " + ", ".join(entries)
        # C++ defaults only where no call could match two overloads.
        required = required_arguments(ops)
        ag_includes = sorted({header_of[n] for o in ops if o.autograd for n in o.autograd.includes if n in header_of}
                             | ({"zeros"} if any(o.autograd and len(o.schema.returns) > 1 for o in ops) else set())
                             | ({"clone"} if any(o.autograd and any(c for _, _, c in o.autograd.saved_tensors)
                                                 for o in ops) else set())
                             - {base})
        natives = OrderedDict()
        for o in ops:
            for key, kernel in o.dispatch:
                natives.setdefault((kernel, cpp_return_type(o.schema), cpp_params(o)), None)
        pybind = python_bindings(ops)
        py_entries = []
        for (module, pyname, method), entries_ in pybind.items():
            py_entries.append(dict(module=module, name=pyname, method=method,
                                   signatures=[sig for (_, _, sig) in entries_],
                                   cases=binding_cases(entries_, method),
                                   cname=f"py{'method' if method else 'fn'}_{module + '_' if module else ''}{pyname}"))
            all_python.append((module, pyname, method, entries_))
        ctx = dict(base=base, ops=ops, required=lambda o: required[id(o)], natives=list(natives), provenance=provenance,
                   ag_includes=ag_includes, has_autograd=any(o.autograd for o in ops),
                   pointwise_info=pointwise_info, py_entries=py_entries, return_kind=return_kind,
                   template_name="")
        h = env.get_template("op.h.j2").render(ctx, template_name="codegen/templates/op.h.j2")
        write_if_changed(os.path.join(out_dir, "ops", f"{base}.h"), h, written)
        cpp = env.get_template("op.cpp.j2").render(ctx, template_name="codegen/templates/op.cpp.j2")
        path = os.path.join(out_dir, "ops", f"{base}.cpp")
        write_if_changed(path, cpp, written)
        sources.append(path)

    bases = list(groups)
    agg = dict(bases=bases, provenance=f"all entries of {yaml_name}")
    methods, functions = user_api(groups, tensorbase_members(os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "csrc", "c10", "Tensor.h")))
    write_if_changed(os.path.join(out_dir, "TensorBody.h"), env.get_template("TensorBody.h.j2").render(
        agg, methods=methods, template_name="codegen/templates/TensorBody.h.j2"), written)
    write_if_changed(os.path.join(out_dir, "Functions.h"), env.get_template("Functions.h.j2").render(
        agg, functions=functions, template_name="codegen/templates/Functions.h.j2"), written)
    reg = os.path.join(out_dir, "RegisterAll.cpp")
    write_if_changed(reg, env.get_template("RegisterAll.cpp.j2").render(
        agg, template_name="codegen/templates/RegisterAll.cpp.j2"), written)
    sources.append(reg)
    write_if_changed(os.path.join(out_dir, "sources.txt"), "\n".join(sorted(sources)) + "\n", written)

    if pyi_dir:
        fn_defs, method_defs = [], []
        for module, pyname, method, entries_ in all_python:
            defs = [pyi_def(op, pyname, method, out) for (op, out, _) in entries_]
            target = method_defs if method else fn_defs
            if module:
                continue
            if len(defs) > 1:
                defs = ["@overload\n" + ("    " if method else "") + d for d in defs]
            target.extend(defs)
        pyi = env.get_template("pyi.j2").render(fn_defs=fn_defs, method_defs=method_defs,
                                                template_name="codegen/templates/pyi.j2", provenance=agg["provenance"])
        write_if_changed(os.path.join(pyi_dir, "__init__.pyi"), pyi, written)
    return written


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--yaml", default="native_functions.yaml")
    p.add_argument("--out", default="build/generated")
    p.add_argument("--pyi", default=None)
    p.add_argument("--backends", default="CPU,Meta")
    a = p.parse_args(argv)
    try:
        written = generate(a.yaml, a.out, a.pyi, tuple(a.backends.split(",")))
    except CodegenError as e:
        print(str(e), file=sys.stderr)
        return 1
    print(f"codegen: {len(written)} file(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
