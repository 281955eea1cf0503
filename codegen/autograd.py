"""Autograd codegen: from an entry's `derivatives:` formulas, the backward
Node class and the Autograd-key kernel that records it.

Formulas are written the way PyTorch writes them (`grad * self.cos()`,
`grad.t().mm(mat2)`); here they become C++ over the operator API: method calls
on expressions turn into `at::` calls (`at::cos(self)`), operator names are
qualified, and the names a formula uses decide what the node saves — a whole
tensor, only its metadata (sizes, dtype) or a plain value.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from codegen.formula import METADATA_METHODS, check_derivative_formula, tokenize, uses_only_sizes
from codegen.model import BaseType, ListType, OptionalType

_IDENT = re.compile(r"[A-Za-z_][\w:]*$")


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


def _primary_start(toks: list[str], end: int) -> int:
    """Index where the primary expression ending at toks[end] starts
    (identifier, call f(...), index a[...], parenthesised (...), with :: chains)."""
    i = end
    while True:
        t = toks[i]
        if t in (")", "]"):
            opener = "(" if t == ")" else "["
            depth = 0
            while i >= 0:
                if toks[i] in (")", "]"):
                    depth += 1
                elif toks[i] in ("(", "["):
                    depth -= 1
                    if depth == 0:
                        break
                i -= 1
            assert toks[i] == opener, "unbalanced formula"
            if i > 0 and (_IDENT.match(toks[i - 1]) or toks[i - 1] in (")", "]")):
                i -= 1
                continue
            return i
        if _IDENT.match(t):
            if i >= 2 and toks[i - 1] == "::":
                i -= 2
                continue
            return i
        return end


def known_helpers(header: str) -> set[str]:
    """Backward helpers declared in csrc/autograd/FunctionsManual.h (namespace generated)."""
    try:
        text = open(header).read()
    except FileNotFoundError:
        return set()
    body = re.split(r"namespace (?:[\w:]*::)?generated \{", text, maxsplit=1)[-1]
    names = set(re.findall(r"^\s*(?:[\w:<>, ]+?)\s+(\w+)\(", body, flags=re.M))
    # The per-area headers it includes (csrc/autograd/manual/*.h) declare more helpers.
    csrc = os.path.dirname(os.path.dirname(header))
    for inc in re.findall(r'^#include "(autograd/manual/\w+\.h)"', text, flags=re.M):
        names |= known_helpers(os.path.join(csrc, inc))
    return names


def called_functions(formula: str) -> set[str]:
    """Names called as free functions in a formula (not methods, not qualified)."""
    toks = tokenize(formula)
    names = set()
    for i, t in enumerate(toks):
        if i + 1 < len(toks) and toks[i + 1] == "(" and _IDENT.match(t) and (i == 0 or toks[i - 1] not in (".", "->")):
            qualified_by = toks[i - 2] if i >= 2 and toks[i - 1] == "::" else None
            if qualified_by == "at":
                names.add(t)  # an explicit at:: call must still name an operator
            elif qualified_by is None:
                names.add(t)
    return names


def translate(formula: str, op_names: set[str]) -> tuple[str, set[str]]:
    """C++ for a formula, and the operator names it calls (for includes)."""
    toks = tokenize(formula)
    used: set[str] = set()
    changed = True
    while changed:  # rewrite one `<expr>.method(` at a time, innermost receivers first
        changed = False
        for k in range(1, len(toks) - 2):
            if toks[k] == "." and toks[k + 2] == "(" and toks[k + 1] in op_names \
                    and toks[k + 1] not in METADATA_METHODS:
                start = _primary_start(toks, k - 1)
                recv = toks[start:k]
                method = toks[k + 1]
                has_args = toks[k + 3] != ")"
                toks = toks[:start] + ["at::_ops::" + method, "("] + recv + ([","] if has_args else []) + toks[k + 3:]
                used.add(method)
                changed = True
                break
    out = []
    for i, t in enumerate(toks):
        prev = toks[i - 1] if i else ""
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if t in op_names and nxt == "(" and prev not in (".", "::") and not t.startswith("at::"):
            out.append("at::_ops::" + t)
            used.add(t)
        elif t == "at" and nxt == "::" and i + 2 < len(toks) and toks[i + 2] in op_names:
            out.append("at::_ops")  # a formula may spell an operator at::name
        else:
            out.append(t)
            if t.startswith("at::_ops::"):
                used.add(t[len("at::_ops::"):])
            elif prev == "::" and i >= 2 and toks[i - 2] == "at" and t in op_names:
                used.add(t)
    text = " ".join(out)
    text = re.sub(r"\s*(::|\.)\s*", r"\1", text)
    text = re.sub(r"(\w)\s+\(", r"\1(", text)
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s+\)", ")", text)
    text = re.sub(r"\s+,", ",", text)
    return text, used


# C++ member type used to store a non-tensor argument in a node.
def _stored_type(t) -> tuple[str, str]:
    """(member type, expression turning the member into the argument's C++ type)."""
    if isinstance(t, BaseType):
        return {
            "int": ("int64_t", "{}"), "SymInt": ("int64_t", "{}"), "float": ("double", "{}"), "bool": ("bool", "{}"),
            "Scalar": ("at::Scalar", "{}"), "ScalarType": ("at::ScalarType", "{}"), "str": ("std::string", "std::string_view({})"),
            "Layout": ("at::Layout", "{}"), "Device": ("at::Device", "{}"), "MemoryFormat": ("at::MemoryFormat", "{}"),
        }[t.name]
    if isinstance(t, ListType) and t.elem.base.name in ("int", "SymInt"):
        return "std::vector<int64_t>", "at::IntArrayRef({})"
    if isinstance(t, OptionalType):
        if isinstance(t.elem, ListType) and t.elem.elem.base.name in ("int", "SymInt"):
            return ("std::optional<std::vector<int64_t>>",
                    "({0} ? std::optional<at::IntArrayRef>(at::IntArrayRef(*{0})) : std::nullopt)")
        if isinstance(t.elem, BaseType) and t.elem.name == "str":
            return ("std::optional<std::string>",
                    "({0} ? std::optional<std::string_view>(*{0}) : std::nullopt)")
        inner, _ = _stored_type(t.elem)
        return f"std::optional<{inner}>", "{}"
    raise KeyError(str(t))


def _store_expr(t, name: str) -> str:
    if isinstance(t, ListType):
        return f"{name}.vec()"
    if isinstance(t, OptionalType) and isinstance(t.elem, ListType):
        return f"({name} ? std::optional<std::vector<int64_t>>({name}->vec()) : std::nullopt)"
    if isinstance(t, OptionalType) and isinstance(t.elem, BaseType) and t.elem.name == "str":
        return f"({name} ? std::optional<std::string>(std::string(*{name})) : std::nullopt)"
    if isinstance(t, BaseType) and t.name == "str":
        return f"std::string({name})"
    return name


@dataclass
class AutogradInfo:
    node: str                     # display name, PyTorch's: AddBackward0
    cls: str                      # C++ class, unique per overload
    kind: str                     # functional | inplace | out
    diff_args: list = field(default_factory=list)     # tensor / tensor-list args with edges, in edge order
    # [(first edge: C++ expression, is_list, arg name, C++ or None)]: a Tensor[]
    # argument has one edge per element, so edges after it start at a
    # position known only at run time (its size is saved in the node).
    formulas: list = field(default_factory=list)
    list_args: list = field(default_factory=list)     # names of Tensor[] diff args (their sizes are saved)
    saved_tensors: list = field(default_factory=list)  # [(name, is_output, clone_before_inplace)]
    saved_meta: list = field(default_factory=list)     # tensor args whose metadata only is saved
    saved_lists: list = field(default_factory=list)    # Tensor[] args saved whole (std::vector<SavedVariable>)
    saved_list_meta: list = field(default_factory=list)  # Tensor[] args whose elements' metadata only is saved
    saved_values: list = field(default_factory=list)   # [(name, member type, store expr, use expr)]
    result_names: list = field(default_factory=list)   # local names for outputs (result / result0..)
    differentiable_outputs: list = field(default_factory=list)  # output indices that get history
    includes: set = field(default_factory=set)
    is_view: bool = False
    uses_grads: bool = False
    # No derivative formula at all: outputs get a NotImplemented node whose
    # backward raises naming the op (PyTorch's not-implemented fallback).
    not_implemented: bool = False
    self_edge: int = 0                                # in-place: edge of the written tensor
    # tags: [inplace_view] (transpose_, squeeze_ ...): self changes geometry,
    # not values; its history is set, not rebased onto a view's base.
    inplace_view: bool = False
    out_args: list = field(default_factory=list)      # out=: the written tensors, checked with diff_args
    out_error_name: str = ""                          # out=: how the error names the op


def _is_tensor(t) -> bool:
    return t == BaseType("Tensor") or t == OptionalType(BaseType("Tensor"))


def _is_tensor_list(t) -> bool:
    """Tensor[]: one differentiable input per element. (Tensor?[] is an index
    list, as in index_put: never differentiable.)"""
    return isinstance(t, ListType) and t.elem == BaseType("Tensor")


def _is_optional_tensor_list(t) -> bool:
    return isinstance(t, ListType) and t.elem == OptionalType(BaseType("Tensor"))


CXX_CALLABLE = {"static_cast", "std"}


class MissingHelper(Exception):
    pass


class UnsupportedOperator(MissingHelper):
    """An operator shape the autograd generator cannot record. Raised (and
    reported by gen.py with the entry's file:line, as a missing helper is)
    rather than letting the op silently run without autograd."""


# Helpers that read only the metadata of a Tensor[] argument's elements.
LIST_METADATA_HELPERS = frozenset({"to_args_sizes", "to_args_scalartypes"})


def _list_uses_only_metadata(formula: str, name: str) -> bool:
    toks = tokenize(formula)
    return all(i >= 2 and toks[i - 1] == "(" and toks[i - 2] in LIST_METADATA_HELPERS and toks[i + 1:i + 2] == [")"]
               for i, t in enumerate(toks) if t == name and (i == 0 or toks[i - 1] not in (".", "::", "->")))


def _out_info(op, functional) -> AutogradInfo | None:
    """out= overloads record no graph. As PyTorch: when the op is
    differentiable, an input or an out= tensor that requires grad (grad mode
    on) is an error; a factory's out= tensor that requires grad is too (named
    aten::op, the way PyTorch's fallback names it); a non-differentiable op
    (argmax, eq, any ...) takes them as they are, so it needs no kernel."""
    f, s = op.f, op.schema
    fn = functional.f if functional is not None else f
    # A pointwise op with a bool result (eq, isnan ...) has formulas only for
    # its in-place form on float tensors; the function itself is not differentiable.
    bool_result = fn.pointwise is not None and fn.pointwise.result == "bool"
    differentiable = bool(fn.derivatives) and any(fn.output_differentiability or (True,)) and not bool_result
    factory = not differentiable and bool({"factory", "random"} & (set(f.tags) | set(fn.tags)))
    if not differentiable and not factory:
        return None
    base = s.name.name
    info = AutogradInfo(node=_camel(base) + "Backward0", cls=op.ident + "_Node", kind="out")
    info.diff_args = [a for a in s.arguments if (_is_tensor(a.type) or _is_tensor_list(a.type))
                      and not (a.is_write and a.kwarg_only)] if differentiable else []
    info.out_args = [a for a in s.arguments if a.is_write and a.kwarg_only]
    info.out_error_name = base if differentiable else f"{op.ns.name}::{base}"
    return info


def autograd_info(op, op_names: set[str], helpers: set[str] | None = None,
                  allow_missing: bool = False, warn=None, functional=None) -> AutogradInfo | None:
    """None when the op needs no autograd kernel (no tensor in, no tensor out,
    or CompositeImplicitAutograd: its parts record the graph). `functional`:
    for an out= overload, the functional overload it belongs to."""
    f, s = op.f, op.schema
    if any(k == "CompositeImplicitAutograd" for k, _ in f.dispatch) and op.pointwise is None:
        return None
    if op.kind == "out":
        return _out_info(op, functional)
    tensor_args = [a for a in s.arguments if (_is_tensor(a.type) or _is_tensor_list(a.type))
                   and not (a.is_write and a.kwarg_only)]
    rets = s.returns
    derivs = dict(f.derivatives)
    for name in derivs:
        arg = s.argument(name)
        if arg is not None and _is_optional_tensor_list(arg.type):
            raise UnsupportedOperator(f"derivative for {name!r}: a Tensor?[] argument holds indices and is not "
                                      "differentiable")
    if not tensor_args:
        return None  # nothing can require grad
    if f.output_differentiability and not any(f.output_differentiability):
        return None  # declared non-differentiable (detach ...)
    tensor_rets = all(r.type == BaseType("Tensor") for r in rets)
    if not rets or not tensor_rets:
        # Nothing to attach history to (no returns), or returns the generated
        # node cannot carry (Tensor[], Tensor?, numbers).
        if f.derivatives:
            what = "no returns" if not rets else f"returns ({', '.join(str(r.type) for r in rets)})"
            raise UnsupportedOperator(f"has derivatives but {what}; autograd is generated only for operators "
                                      "returning one or more Tensors")
        if rets and any(r.type != BaseType("Tensor") and r.type.is_tensor_like for r in rets):
            raise UnsupportedOperator(f"returns ({', '.join(str(r.type) for r in rets)}) and has no "
                                      "derivatives: autograd (even the not-implemented fallback) is generated only "
                                      "for operators returning Tensors; give it output_differentiability: [false] "
                                      "or a composite definition")
        return None  # returns only numbers/None: nothing differentiable comes out
    # Factories and random fills: tensor inputs only lend shape/dtype (*_like)
    # or are overwritten; nothing flows back through them.
    if not f.derivatives and ({"factory", "random"} & set(f.tags)):
        return None
    base = s.name.name.rstrip("_") if s.name.inplace else s.name.name
    info = AutogradInfo(node=_camel(base) + "Backward0", cls=op.ident + "_Node", kind=op.kind)
    diff = f.output_differentiability or tuple(True for _ in rets)
    if not any(diff):
        return None
    # A pointwise op with a bool result (eq, isnan ...) never has a floating
    # output: nothing of it can require grad.
    if not f.derivatives and op.pointwise is not None and op.pointwise.result == "bool":
        return None
    info.differentiable_outputs = [i for i, d in enumerate(diff) if d]
    info.result_names = ["result"] if len(rets) == 1 else [f"result{i}" for i in range(len(rets))]
    named = {r.name: f"result{i}" for i, r in enumerate(rets) if r.name and len(rets) > 1}
    info.is_view = "view" in f.tags or (len(rets) == 1 and rets[0].annotation is not None
                                         and not rets[0].annotation.is_write)
    info.diff_args = tensor_args
    info.list_args = [a.name for a in tensor_args if _is_tensor_list(a.type)]
    if op.kind == "inplace":
        # CopySlices reroutes the written tensor's edge to a view's base: it
        # must sit at a position known at compile time.
        names = [a.name for a in tensor_args]
        if "self" not in names or any(_is_tensor_list(a.type) for a in tensor_args[:names.index("self") + 1]):
            raise UnsupportedOperator("an in-place operator needs a Tensor argument `self` with no Tensor[] "
                                      "argument before it")
        info.self_edge = names.index("self")
        info.inplace_view = "inplace_view" in f.tags
    if not f.derivatives:
        info.not_implemented = True
        info.node = "NotImplemented"
        return info
    arg_names = {a.name for a in s.arguments}
    saved_t, saved_m, saved_v, saved_l, saved_lm = {}, set(), {}, set(), set()
    start = "0"  # C++ expression: first edge of the current argument
    for idx, a in enumerate(tensor_args):
        is_list = _is_tensor_list(a.type)
        here = start
        start = (f"{start} + {a.name}_size_" if start != "0" else f"{a.name}_size_") if is_list else \
            (str(int(start) + 1) if start.isdigit() else f"{start} + 1")
        formula = derivs.get(a.name)
        if formula is None:
            info.formulas.append((here, is_list, a.name, None))
            continue
        text = formula
        for rname, local in named.items():  # named returns -> result0/result1
            text = re.sub(rf"\b{rname}\b", local, text)
        used = check_derivative_formula(text, arg_names, len(rets))
        if helpers is not None:
            unknown = called_functions(text) - op_names - helpers - CXX_CALLABLE
            if unknown:
                msg = (f"formula for '{a.name}' calls {', '.join(sorted(unknown))}, which is neither an "
                       f"operator nor a helper declared in csrc/autograd/FunctionsManual.h")
                if not allow_missing:
                    raise MissingHelper(msg)
                if warn:
                    warn(msg)
                info.formulas.append((here, is_list, a.name, None))  # raises NotImplementedError at backward
                continue
        cpp, ops_used = translate(text, op_names)
        info.includes |= ops_used
        if "grads" in tokenize(text):
            info.uses_grads = True
        for name in sorted(used):  # sorted: generated text must not depend on hash order
            if name == "result" or re.fullmatch(r"result\d+", name):
                saved_t[name] = (name, True, False)
                continue
            arg = s.argument(name)
            if arg is None:
                continue
            if _is_tensor(arg.type):
                if uses_only_sizes(text, name) and name not in saved_t:
                    saved_m.add(name)
                elif info.inplace_view and arg.is_write:
                    # Saved whole before the call, its version would be stale
                    # by backward; its old geometry is all such a formula needs.
                    raise UnsupportedOperator(f"formula for '{a.name}' reads {name!r} beyond its metadata "
                                              "(sizes(), strides(), storage_offset() ...); an inplace_view "
                                              "operator's formula may read only the old geometry of the tensor "
                                              "it changes")
                else:
                    # In-place ops overwrite self: save a copy of its old value.
                    clone = op.kind == "inplace" and arg.is_write
                    saved_t[name] = (name, False, clone)
                    saved_m.discard(name)
            elif isinstance(arg.type, ListType) and arg.type.elem.base.name == "Tensor":
                if arg.is_write:
                    raise UnsupportedOperator(f"formula for '{a.name}' reads {name!r}, a Tensor[] the op writes")
                if _list_uses_only_metadata(text, name) and name not in saved_l:
                    saved_lm.add(name)
                else:
                    saved_l.add(name)
                    saved_lm.discard(name)
            else:
                mtype, use = _stored_type(arg.type)
                saved_v[name] = (name, mtype, _store_expr(arg.type, name), use.format(name + "_"))
        info.formulas.append((here, is_list, a.name, cpp))
    info.saved_tensors = list(saved_t.values())
    info.saved_meta = sorted(saved_m)
    info.saved_values = list(saved_v.values())
    info.saved_lists = sorted(saved_l)
    info.saved_list_meta = sorted(saved_lm)
    return info
