"""TensorBody.h (at::Tensor and its methods) and Functions.h (namespace
functions on at::Tensor): the user-facing C++ API, over the at::_ops entry
points that take and return TensorBase. Only code outside the library
includes them, so adding an operator recompiles only that code."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from codegen.api.ops import Op, is_function, is_method, scalar_operand, with_scalar
from codegen.api.types import cpp_return_type, required_arguments, user_params, user_type
from codegen.dest.common import HEADER, Output, path, render
from codegen.model import CodegenError, ListType

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _user_return(op: Op) -> tuple[str, str, str]:
    """(return type, wrap_open, wrap_close) for forwarding an at::_ops result."""
    ret = cpp_return_type(op.schema)
    if ret == "std::vector<at::TensorBase>":
        return "std::vector<at::Tensor>", "detail::from_base_list(", ")"
    return user_type(ret), "", ""


def _forward_arg(a) -> str:
    if isinstance(a.type, ListType) and a.type.elem.base.name == "Tensor":
        return f"detail::to_base_list({a.name})"
    return a.name


def tensorbase_members(header: str) -> set[str]:
    """Member function names of c10::TensorBase: a generated method must not hide one."""
    text = open(header).read()
    body = text.split("class TensorBase {", 1)[1].split("\n};", 1)[0]
    return set(re.findall(r"(\w+)\(", body))


@dataclass
class _MethodOp:
    """An operator seen as a method: its C++ arguments without self (for the defaults rule)."""
    op: Op

    @property
    def cpp_name(self):
        return self.op.cpp_name

    @property
    def cpp_args(self):
        return [a for a in self.op.cpp_args if a.name != "self"]


def user_api(groups, base_members: set[str]) -> tuple[list, list]:
    methods, functions = [], []
    for ops in groups.values():
        fn_ops = [o for o in ops if is_function(o)]
        fn_req = required_arguments(fn_ops)
        for o in fn_ops:
            ret, wo, wc = _user_return(o)
            functions.append(dict(op=o, wrap_open=wo, wrap_close=wc,
                                  decl=f"{ret} {o.cpp_name}({user_params(o.cpp_args, fn_req[id(o)])})",
                                  call_args=", ".join(_forward_arg(a) for a in o.cpp_args)))
            operand = scalar_operand(o)
            if operand:
                params, fwd = with_scalar(operand, o.cpp_args, o.cpp_args)
                functions.append(dict(op=o, wrap_open=wo, wrap_close=wc,
                                      decl=f"{ret} {o.cpp_name}({user_params(params, fn_req[id(o)])})",
                                      call_args=", ".join(f or _forward_arg(a) for a, f in zip(o.cpp_args, fwd))))
        m_ops = [_MethodOp(o) for o in ops if is_method(o)]
        m_req = required_arguments(m_ops)
        for m in m_ops:
            o = m.op
            if o.cpp_name in base_members:
                raise CodegenError(o.f.loc, f"{o.schema.name}: a method named {o.cpp_name!r} would hide "
                                            f"c10::TensorBase::{o.cpp_name}; drop the 'method' variant")
            inplace = o.kind == "inplace"
            ret, wo, wc = ("at::Tensor&", "", "") if inplace else _user_return(o)
            variants = [(m.cpp_args, [None] * len(o.cpp_args))]
            operand = scalar_operand(o)
            if operand:
                variants.append(with_scalar(operand, m.cpp_args, o.cpp_args))
            for params, fwd in variants:
                call = ", ".join("*this" if a.name == "self" else (f or _forward_arg(a))
                                 for a, f in zip(o.cpp_args, fwd))
                methods.append(dict(op=o, inplace=inplace, wrap_open=wo, wrap_close=wc, call_args=call,
                                    decl=f"{ret} {o.cpp_name}({user_params(params, m_req[id(m)])}) const",
                                    definition=f"{ret} Tensor::{o.cpp_name}({user_params(params, None)}) const"))
    return methods, functions


def render_all(gen) -> list:
    bases = list(gen.groups)
    prov = f"all entries of {gen.yaml_name}"
    out = []
    methods, functions = user_api(gen.groups, tensorbase_members(
        os.path.join(gen.include_root or os.path.join(ROOT, "csrc"), "c10", "Tensor.h")))
    if gen.ns.is_core:
        out.append(Output("TensorBody.h", render(gen, "TensorBody.h.j2", [], bases=bases, methods=methods,
                                                 provenance=prov), HEADER))
    out.append(Output(path(gen, "Functions.h"), render(gen, "Functions.h.j2", [], bases=bases, functions=functions,
                                                        provenance=prov), HEADER))
    return out
