"""The per-element formulas of the pointwise operators, read from the same
native_functions.yaml the eager kernels are generated from, turned into C++
statements for a fused kernel.

Two kinds of formula are used:
- an operator's `pointwise: expr` ("self + alpha * other"): already C++ over
  scalars (the generated functors use it unchanged), so fusing is substituting
  the operator's parameters with the fused kernel's variables;
- its `derivatives:` ("grad * result * (1 - result)", "grad * self.sign()",
  "_gelu_erf_backward(grad, self)"): C++ over tensors. Those written with
  arithmetic, comparisons, where(), zeros_like() and calls of other pointwise
  operators (as functions or methods) have a per-element reading, which
  `Emitter.derivative` produces by inlining each called operator's `expr`.
  A formula using anything else (a reduction, a helper of FunctionsManual)
  has none, and its chain keeps the eager backward.
"""
from __future__ import annotations

import ast
import functools

__all__ = ["PointwiseOp", "pointwise_table", "composite_implicit_ops", "Emitter", "NoScalarForm"]


class NoScalarForm(Exception):
    """A formula that has no per-element C++ reading."""


class PointwiseOp:
    """One functional pointwise overload: its parameters in schema order
    (name, 'Tensor' | 'Scalar' | other), its C++ expression, dtype rules and
    derivative formulas."""

    def __init__(self, qualname, params, expr_tokens, dtypes, promote, result, derivatives):
        self.qualname = qualname
        self.params = params
        self.expr_tokens = expr_tokens
        self.dtypes = dtypes
        self.promote = promote
        self.result = result
        self.derivatives = dict(derivatives)

    @property
    def floating_result(self):
        return self.result == "same"

    def __repr__(self):
        return f"<PointwiseOp {self.qualname}>"


@functools.lru_cache(maxsize=1)
def _native_functions():
    # The generator and the core YAML installed with this torchlike (a wheel
    # ships both; cpp_extension finds them for functions_yaml= too).
    from torchlike.utils.cpp_extension import _core_yaml, _import_codegen
    try:
        _, model = _import_codegen()
    except RuntimeError as e:
        raise RuntimeError(f"torchlike.compile reads the operators' formulas with torchlike's generator: {e}") from None
    return model.load_native_file(_core_yaml())[1]


@functools.lru_cache(maxsize=1)
def pointwise_table():
    """{'aten::add.Tensor': PointwiseOp, ...} for every functional pointwise overload."""
    fns = _native_functions()
    from codegen.api.ops import cpp_pointwise_expr  # noqa: E402
    table = {}
    for f in fns:
        if f.pointwise is None or not f.func.is_functional:
            continue
        params = []
        for a in f.func.arguments:
            base = getattr(a.type, "name", None)
            params.append((a.name, base if base in ("Tensor", "Scalar") else str(a.type)))
        name = f.func.name
        qual = f"aten::{name.name}" + (f".{name.overload}" if name.overload else "")
        # cpp_pointwise_expr joins the formula's tokens with single spaces.
        table[qual] = PointwiseOp(qual, params, cpp_pointwise_expr(f.pointwise.expr).split(" "), f.pointwise.dtypes,
                                  f.pointwise.promote, f.pointwise.result, f.derivatives)
    return table


@functools.lru_cache(maxsize=1)
def composite_implicit_ops():
    """Qualified names of the operators whose kernel is a composite of other
    operators for every backend (CompositeImplicitAutograd)."""
    out = set()
    for f in _native_functions():
        if any(k == "CompositeImplicitAutograd" for k, _ in f.dispatch):
            name = f.func.name
            out.add(f"aten::{name.name}" + (f".{name.overload}" if name.overload else ""))
    return frozenset(out)


@functools.lru_cache(maxsize=1)
def _by_base_name():
    """'exp' -> [PointwiseOp of aten::exp], 'add' -> [add.Tensor, ...]: how a
    derivative formula's call of an operator by name finds its formula."""
    out = {}
    for qual, op in pointwise_table().items():
        base = qual.split("::", 1)[1].split(".", 1)[0]
        out.setdefault(base, []).append(op)
    return out


_CONSTANTS = {"M_PI": "3.14159265358979323846", "M_LN2": "0.69314718055994530942",
              "M_LN10": "2.30258509299404568402", "INFINITY": "INFINITY", "NAN": "NAN"}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class Emitter:
    """Writes the statements of one fused loop body. Variables are C++ names of
    the computation type C; `fresh()` gives new ones; `lines` is the body."""

    def __init__(self):
        self.lines = []
        self._n = 0

    def fresh(self, prefix="t"):
        self._n += 1
        return f"{prefix}{self._n}"

    @staticmethod
    def literal(v):
        if isinstance(v, bool):
            return "C(1)" if v else "C(0)"
        if isinstance(v, int):
            return f"C({v})"
        if isinstance(v, float):
            if v != v:
                return "C(NAN)"
            if v in (float("inf"), float("-inf")):
                return "C(INFINITY)" if v > 0 else "C(-INFINITY)"
            return f"C({v!r})"
        raise NoScalarForm(f"no scalar literal for {v!r}")

    def apply(self, op, bindings):
        """Emits op's expr with its parameters bound to C++ expressions
        (`bindings`: name -> C++ text); returns the variable holding it."""
        out = []
        for i, tok in enumerate(op.expr_tokens):
            if tok in bindings and not (i + 1 < len(op.expr_tokens) and op.expr_tokens[i + 1] == "("):
                # A comparison bound to a tensor parameter is a bool tensor
                # promoted to the computation type in eager: the same here.
                out.append(f"static_cast<C>({bindings[tok]})")
            else:
                out.append(tok)
        v = self.fresh("v")
        self.lines.append(f"C {v} = static_cast<C>({' '.join(out)});")
        return v

    # ------------------------------------------------------------ derivatives

    def derivative(self, formula, names):
        """The per-element value of derivative `formula`; `names` binds grad,
        result and the operator's parameters to C++ expressions (scalars to
        literals). Raises NoScalarForm when the formula has none."""
        try:
            tree = ast.parse(formula.replace("&&", " and ").replace("||", " or "), mode="eval")
        except SyntaxError as e:
            raise NoScalarForm(f"{formula!r} is not an expression this reader knows") from e
        return self._expr(tree.body, names)

    def _expr(self, n, names):
        if isinstance(n, ast.Name):
            if n.id in names:
                return names[n.id]
            if n.id in _CONSTANTS:
                return f"C({_CONSTANTS[n.id]})"
            raise NoScalarForm(f"unknown name {n.id!r}")
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return self.literal(n.value)
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return f"({self._expr(n.left, names)} {_BINOPS[type(n.op)]} {self._expr(n.right, names)})"
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return f"(-{self._expr(n.operand, names)})"
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return f"(!{self._expr(n.operand, names)})"
        if isinstance(n, ast.BoolOp):
            op = " && " if isinstance(n.op, ast.And) else " || "
            return "(" + op.join(self._expr(v, names) for v in n.values) + ")"
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in _CMPOPS:
            return f"({self._expr(n.left, names)} {_CMPOPS[type(n.ops[0])]} {self._expr(n.comparators[0], names)})"
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Attribute):       # self.sign(), (x).rsqrt()
                fname, args = n.func.attr, [n.func.value] + list(n.args)
            elif isinstance(n.func, ast.Name):
                fname, args = n.func.id, list(n.args)
            else:
                raise NoScalarForm("a call of something that is not a name")
            if n.keywords:
                raise NoScalarForm(f"{fname}: keyword arguments")
            return self._call(fname, args, names)
        raise NoScalarForm(f"{ast.dump(n)[:60]}")

    def _call(self, fname, args, names):
        if fname == "zeros_like":
            return "C(0)"
        if fname == "where" and len(args) == 3:
            c, a, b = (self._expr(x, names) for x in args)
            return f"({c} ? {a} : {b})"
        if fname in ("logical_and", "logical_or") and len(args) == 2:
            a, b = (self._expr(x, names) for x in args)
            return f"({a} {'&&' if fname == 'logical_and' else '||'} {b})"
        candidates = [op for op in _by_base_name().get(fname, ()) if len(op.params) >= len(args)]
        for op in candidates:
            kinds = [k for _, k in op.params]
            if any(k not in ("Tensor", "Scalar") for k in kinds):
                continue
            if not op.floating_result:
                continue
            # Parameters past the call's arguments must be Scalars with defaults
            # we cannot see here: only exact arity is accepted.
            if len(op.params) != len(args):
                continue
            bindings = {}
            for (pname, kind), a in zip(op.params, args):
                bindings[pname] = self._expr(a, names)
            v = self.apply(op, bindings)
            return v
        raise NoScalarForm(f"{fname}() is not a pointwise operator with a formula")
