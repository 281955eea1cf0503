"""The `graph` text of a scripted function: its checked syntax tree printed
as TorchScript-style IR (one %value per expression, prim::If / prim::Loop
blocks for control flow). For reading only; the function runs from its
compiled form."""
from __future__ import annotations

import ast

__all__ = ["lower"]

_BIN = {ast.Add: "aten::add", ast.Sub: "aten::sub", ast.Mult: "aten::mul", ast.Div: "aten::div",
        ast.MatMult: "aten::matmul", ast.Pow: "aten::pow", ast.FloorDiv: "aten::floordiv", ast.Mod: "aten::remainder",
        ast.BitAnd: "aten::__and__", ast.BitOr: "aten::__or__", ast.BitXor: "aten::__xor__",
        ast.LShift: "aten::__lshift__", ast.RShift: "aten::__rshift__"}
_CMP = {ast.Gt: "aten::gt", ast.Lt: "aten::lt", ast.GtE: "aten::ge", ast.LtE: "aten::le", ast.Eq: "aten::eq",
        ast.NotEq: "aten::ne", ast.Is: "aten::__is__", ast.IsNot: "aten::__isnot__", ast.In: "aten::__contains__",
        ast.NotIn: "aten::__not_contains__"}
_UN = {ast.USub: "aten::neg", ast.Not: "aten::__not__", ast.Invert: "aten::bitwise_not", ast.UAdd: "aten::pos"}


class _Lowerer:
    def __init__(self, cf):
        self.cf = cf
        self.n = 0
        self.lines = []
        self.env = {}
        self.depth = 1

    def new(self):
        self.n += 1
        return f"%{self.n}"

    def emit(self, s):
        self.lines.append("  " * self.depth + s)

    def expr(self, e):
        if isinstance(e, ast.Name):
            if e.id in self.env:
                return self.env[e.id]
            v = self.new()
            self.emit(f"{v} = prim::Global[name=\"{e.id}\"]()")
            return v
        if isinstance(e, ast.Constant):
            v = self.new()
            self.emit(f"{v} : {type(e.value).__name__} = prim::Constant[value={e.value!r}]()")
            return v
        if isinstance(e, ast.BinOp):
            a, b = self.expr(e.left), self.expr(e.right)
            v = self.new()
            self.emit(f"{v} = {_BIN.get(type(e.op), 'aten::binop')}({a}, {b})")
            return v
        if isinstance(e, ast.UnaryOp):
            a = self.expr(e.operand)
            v = self.new()
            self.emit(f"{v} = {_UN[type(e.op)]}({a})")
            return v
        if isinstance(e, ast.Compare):
            left, out = self.expr(e.left), None
            for op, right in zip(e.ops, e.comparators):
                r = self.expr(right)
                v = self.new()
                self.emit(f"{v} : bool = {_CMP[type(op)]}({left}, {r})")
                if out is not None:
                    w = self.new()
                    self.emit(f"{w} : bool = aten::__and__({out}, {v})")
                    v = w
                out, left = v, r
            return out
        if isinstance(e, ast.BoolOp):
            vals = [self.expr(x) for x in e.values]
            v = self.new()
            self.emit(f"{v} : bool = aten::__{'and' if isinstance(e.op, ast.And) else 'or'}__({', '.join(vals)})")
            return v
        if isinstance(e, ast.Attribute):
            base = self.expr(e.value)
            v = self.new()
            self.emit(f"{v} = prim::GetAttr[name=\"{e.attr}\"]({base})")
            return v
        if isinstance(e, ast.Call):
            f = e.func
            args = [self.expr(a) for a in e.args] + [self.expr(k.value) for k in e.keywords]
            v = self.new()
            q = self.qualname(f)
            if q is not None:
                root = q.split(".")[0]
                spec = self.cf.globals_spec.get(root, (None, None))
                if spec[0] == "ns" and spec[1] in ("torch", "torch.nn.functional", "torch.linalg", "torch.special"):
                    self.emit(f"{v} = aten::{f.attr}({', '.join(args)})")
                else:
                    self.emit(f"{v} = prim::CallFunction[name=\"{q}\"]({', '.join(args)})")
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and \
                    self.cf.method:
                self.emit(f"{v} = prim::CallMethod[name=\"{f.attr}\"](%self{', ' if args else ''}{', '.join(args)})")
            elif isinstance(f, ast.Attribute):
                obj = self.expr(f.value)
                self.emit(f"{v} = aten::{f.attr}({', '.join([obj] + args)})")
            elif isinstance(f, ast.Name) and f.id in self.cf.globals_spec and \
                    self.cf.globals_spec[f.id][0] == "script":
                self.emit(f"{v} = prim::CallFunction[name=\"{f.id}\"]({', '.join(args)})")
            else:
                name = f.id if isinstance(f, ast.Name) else "call"
                self.emit(f"{v} = aten::{name}({', '.join(args)})")
            return v
        if isinstance(e, (ast.Tuple, ast.List)):
            vals = [self.expr(x) for x in e.elts]
            v = self.new()
            kind = "TupleConstruct" if isinstance(e, ast.Tuple) else "ListConstruct"
            self.emit(f"{v} = prim::{kind}({', '.join(vals)})")
            return v
        if isinstance(e, ast.Subscript):
            a, b = self.expr(e.value), self.expr(e.slice) if not isinstance(e.slice, ast.Slice) else "%slice"
            v = self.new()
            self.emit(f"{v} = aten::__getitem__({a}, {b})")
            return v
        if isinstance(e, ast.IfExp):
            c = self.expr(e.test)
            return self.branch(c, [ast.Expr(e.body)], [ast.Expr(e.orelse)], value=True)
        v = self.new()
        self.emit(f"{v} = prim::PythonOp[{type(e).__name__}]()")
        return v

    def qualname(self, f):
        """'torch.jit.annotate' for a call target that is a chain of attributes on a global."""
        parts = []
        while isinstance(f, ast.Attribute):
            parts.insert(0, f.attr)
            f = f.value
        if isinstance(f, ast.Name) and f.id not in self.env and parts:
            return ".".join([f.id] + parts)
        return None

    def assign(self, target, v):
        if isinstance(target, ast.Name):
            self.env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)):
            outs = [self.new() for _ in target.elts]
            self.emit(f"{', '.join(outs)} = prim::TupleUnpack({v})")
            for t, o in zip(target.elts, outs):
                self.assign(t, o)
        else:
            base = self.expr(target.value) if hasattr(target, "value") else "%?"
            self.emit(f"prim::SetAttr[name=\"{getattr(target, 'attr', '[]')}\"]({base}, {v})")

    def block(self, stmts):
        last = None
        saved = getattr(self, "rest", [])
        self.rest = list(stmts)
        while self.rest:
            last = self.stmt(self.rest.pop(0))
        self.rest = saved
        return last

    def branch(self, cond, body, orelse, value=False):
        returns = bool(body) and bool(orelse) and isinstance(body[-1], ast.Return) and \
            isinstance(orelse[-1], ast.Return)
        if returns:   # both arms return: the If yields the value, and the function returns it
            body = body[:-1] + [ast.Expr(body[-1].value)]
            orelse = orelse[:-1] + [ast.Expr(orelse[-1].value)]
            value = True
        before = dict(self.env)
        outs = self.new()
        self.emit(f"{outs} = prim::If({cond})")
        results = []
        for i, stmts in enumerate((body, orelse)):
            self.depth += 1
            self.emit(f"block{i}():")
            self.depth += 1
            self.env = dict(before)
            r = self.block(stmts)
            changed = sorted(k for k in self.env if self.env[k] != before.get(k))
            results.append((r, dict(self.env), changed))
            self.emit(f"-> ({r if value else ', '.join(self.env[k] for k in changed)})")
            self.depth -= 2
        self.env = dict(before)
        for k in sorted(set(results[0][2]) | set(results[1][2])):
            self.env[k] = f"{outs}.{k}"
        if returns:
            self.emit(f"return ({outs})")
        return outs

    def stmt(self, s):
        if isinstance(s, ast.Expr):
            return self.expr(s.value)
        if isinstance(s, ast.Assign):
            v = self.expr(s.value)
            for t in s.targets:
                self.assign(t, v)
            return v
        if isinstance(s, ast.AnnAssign) and s.value is not None:
            v = self.expr(s.value)
            self.assign(s.target, v)
            return v
        if isinstance(s, ast.AugAssign):
            v = self.expr(ast.BinOp(left=s.target if not isinstance(s.target, ast.Name) else
                                    ast.Name(id=s.target.id, ctx=ast.Load()), op=s.op, right=s.value))
            self.assign(s.target, v)
            return v
        if isinstance(s, ast.Return):
            v = self.expr(s.value) if s.value is not None else "%None"
            self.emit(f"return ({v})")
            return v
        if isinstance(s, ast.If):
            orelse = s.orelse
            if not orelse and isinstance(s.body[-1], ast.Return) and self.rest:
                orelse, self.rest[:] = list(self.rest), []   # `if c: return a` then `return b`: one If
            return self.branch(self.expr(s.test), s.body, orelse)
        if isinstance(s, (ast.For, ast.While)):
            it = self.expr(s.iter) if isinstance(s, ast.For) else self.expr(s.test)
            assigned = {n.id for n in ast.walk(ast.Module(body=s.body, type_ignores=[]))
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            carried = sorted(k for k in self.env if k in assigned)
            out = self.new()
            self.emit(f"{out} = prim::Loop({it}, {', '.join(self.env[k] for k in carried)})")
            self.depth += 1
            i = self.new()
            self.emit(f"block0({i}{', ' if carried else ''}{', '.join('%' + k for k in carried)}):")
            self.depth += 1
            before = dict(self.env)
            for k in carried:
                self.env[k] = f"%{k}"
            if isinstance(s, ast.For):
                self.assign(s.target, i)
            self.block(s.body)
            self.emit(f"-> ({', '.join(self.env[k] for k in carried)})")
            self.depth -= 2
            self.env = before
            for k in carried:
                self.env[k] = f"{out}.{k}"
            return out
        self.emit(f"prim::{type(s).__name__}()")
        return None


def lower(cf, owner):
    low = _Lowerer(cf)
    heads = []
    for i, (n, t) in enumerate(zip(cf.arg_names, cf.arg_types)):
        if i == 0 and cf.method:
            heads.append(f"%self : __torch__.{getattr(owner, 'original_name', 'Module')}")
            low.env[n] = "%self"
        else:
            heads.append(f"%{n} : {t!r}")
            low.env[n] = f"%{n}"
    low.block(cf.fdef.body)
    return "graph(" + ",\n      ".join(heads) + "):\n" + "\n".join(low.lines) + "\n"
