"""Data model for native_functions.yaml.

Frozen dataclasses for PyTorch's function-schema grammar (with a parser whose output
prints back to the exact canonical input), the per-operator entry model, and a YAML
loader that validates every entry and reports each problem as `file:line: message`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Union

import yaml

try:  # works both as `codegen.model` and when codegen/ itself is on sys.path
    from .formula import FormulaError, check_derivative_formula, check_pointwise_expr
except ImportError:  # pragma: no cover
    from formula import FormulaError, check_derivative_formula, check_pointwise_expr


class SchemaError(ValueError):
    """A schema string does not follow the grammar."""


class CodegenError(Exception):
    """A problem in native_functions.yaml; str() is exactly `file:line: message`."""

    def __init__(self, loc: "Location", message: str):
        super().__init__(f"{loc}: {message}")
        self.loc, self.message = loc, message


# ------------------------------------------------------------------------- types

BASE_TYPES = frozenset({"Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType",
                        "Layout", "Device", "Generator", "MemoryFormat", "Dimname"})


class _TypeMixin:
    @property
    def is_tensor_like(self) -> bool:
        """Tensor, Tensor?, Tensor[], Tensor?[] ...: anything autograd may track."""
        return self.base.name == "Tensor"


@dataclass(frozen=True)
class BaseType(_TypeMixin):
    name: str

    def __post_init__(self):
        if self.name not in BASE_TYPES:
            raise SchemaError(f"unknown type {self.name!r}; known: {', '.join(sorted(BASE_TYPES))}")

    base = property(lambda self: self)

    def __str__(self):
        return self.name


@dataclass(frozen=True)
class OptionalType(_TypeMixin):
    elem: Type
    base = property(lambda self: self.elem.base)

    def __str__(self):
        return f"{self.elem}?"


@dataclass(frozen=True)
class ListType(_TypeMixin):
    elem: Type
    size: int | None = None
    base = property(lambda self: self.elem.base)

    def __str__(self):
        return f"{self.elem}[{'' if self.size is None else self.size}]"


Type = Union[BaseType, OptionalType, ListType]
TENSOR, SCALAR = BaseType("Tensor"), BaseType("Scalar")


@dataclass(frozen=True)
class Annotation:
    alias_set: tuple[str, ...]
    is_write: bool = False
    alias_set_after: tuple[str, ...] = ()

    def __str__(self):
        s = "|".join(self.alias_set) + ("!" if self.is_write else "")
        return f"{s} -> {'|'.join(self.alias_set_after)}" if self.alias_set_after else s


def _annotated(t: Type, ann: Annotation | None) -> str:
    # The annotation sits right after the base name: `Tensor(a)[]`, `Tensor(a!)?`.
    s, n = str(t), len(t.base.name)
    return s if ann is None else f"{s[:n]}({ann}){s[n:]}"


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None = None  # verbatim C++/Python-ish text, e.g. `[0,1]`, `"mean"`
    annotation: Annotation | None = None
    kwarg_only: bool = False

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self):
        s = f"{_annotated(self.type, self.annotation)} {self.name}"
        return s if self.default is None else f"{s}={self.default}"


@dataclass(frozen=True)
class Return:
    name: str | None
    type: Type
    annotation: Annotation | None = None

    def __str__(self):
        s = _annotated(self.type, self.annotation)
        return s if self.name is None else f"{s} {self.name}"


@dataclass(frozen=True)
class OperatorName:
    name: str
    overload: str = ""

    @property
    def inplace(self) -> bool:
        # Dunders such as `__and__` end with `_` but are not in-place variants.
        return self.name.endswith("_") and not self.name.startswith("__")

    @property
    def base(self) -> str:
        return self.name[:-1] if self.inplace else self.name

    def __str__(self):
        return f"{self.name}.{self.overload}" if self.overload else self.name


@dataclass(frozen=True)
class FunctionSchema:
    name: OperatorName
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @staticmethod
    def parse(text: str) -> FunctionSchema:
        return _SchemaParser(text).schema()

    def __str__(self):
        parts = []
        for a in self.arguments:
            if a.kwarg_only and "*" not in parts:  # `*` goes before the first keyword-only one
                parts.append("*")
            parts.append(str(a))
        rets = self.returns
        r = str(rets[0]) if len(rets) == 1 and rets[0].name is None else f"({', '.join(map(str, rets))})"
        return f"{self.name}({', '.join(parts)}) -> {r}"

    def argument(self, name: str) -> Argument | None:
        return next((a for a in self.arguments if a.name == name), None)

    positional = property(lambda self: tuple(a for a in self.arguments if not a.kwarg_only))
    kwarg_only = property(lambda self: tuple(a for a in self.arguments if a.kwarg_only))
    out_arguments = property(lambda self: tuple(a for a in self.kwarg_only if a.is_write))
    tensor_arguments = property(lambda self: tuple(a for a in self.arguments if a.type.is_tensor_like))
    is_out = property(lambda self: bool(self.out_arguments))
    is_inplace = property(lambda self: self.name.inplace)
    is_functional = property(lambda self: not self.is_inplace and not any(a.is_write for a in self.arguments))


# ------------------------------------------------------------------------ parser

_IDENT = re.compile(r"[A-Za-z_]\w*")
_TOKEN = re.compile(r"\s*(->|\w+|[*!|?\[\](),.=])")


class _SchemaParser:
    """Recursive descent over the schema text; defaults are sliced out verbatim."""

    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def fail(self, msg: str):
        col = len(self.text) - len(self.text[self.pos:].lstrip()) + 1
        raise SchemaError(f"{msg} at column {col} in '{self.text}'")

    def peek(self) -> str:
        m = _TOKEN.match(self.text, self.pos)
        return m.group(1) if m else self.text[self.pos:].strip()[:1]  # '' at the end

    def found(self) -> str:
        tok = self.peek()
        return f"found {tok!r}" if tok else "found end of schema"

    def take(self) -> str:
        m = _TOKEN.match(self.text, self.pos)
        if not m:
            self.fail(f"unexpected {self.peek()!r}" if self.peek() else "unexpected end of schema")
        self.pos = m.end()
        return m.group(1)

    def accept(self, tok: str) -> bool:
        if self.peek() != tok:
            return False
        self.take()
        return True

    def expect(self, *toks: str) -> str:
        if self.peek() not in toks:
            self.fail(f"expected {' or '.join(map(repr, toks))} but {self.found()}")
        return self.take()

    def ident(self, what: str) -> str:
        if not _IDENT.fullmatch(self.peek()):
            self.fail(f"expected {what} but {self.found()}")
        return self.take()

    def schema(self) -> FunctionSchema:
        name = self.ident("operator name")
        overload = ""
        if self.accept("."):
            if not re.fullmatch(r"\w+", self.peek()):
                self.fail(f"expected overload name but {self.found()}")
            overload = self.take()
        self.expect("(")
        args = self.arguments()
        self.expect("->")
        returns = self.returns()
        if self.peek():
            self.fail(f"unexpected {self.peek()!r} after the returns")
        return FunctionSchema(OperatorName(name, overload), args, returns)

    def arguments(self) -> tuple[Argument, ...]:
        args: list[Argument] = []
        kwarg_only = False
        if self.accept(")"):
            return ()
        while True:
            if self.accept("*"):
                if kwarg_only:
                    self.fail("second '*'")
                kwarg_only = True
                if self.peek() != ",":
                    self.fail(f"'*' must be followed by keyword-only arguments but {self.found()}")
            else:
                typ, ann = self.type()
                if any(a.name == self.peek() for a in args):
                    self.fail(f"duplicate argument name {self.peek()!r}")
                name = self.ident("argument name")
                default = self.default() if self.accept("=") else None
                args.append(Argument(name, typ, default, ann, kwarg_only))
            if self.expect(",", ")") == ")":
                return tuple(args)

    def type(self) -> tuple[Type, Annotation | None]:
        if _IDENT.fullmatch(self.peek()) and self.peek() not in BASE_TYPES:
            self.fail(f"unknown type {self.peek()!r}")
        name = self.ident("a type")
        typ: Type = BaseType(name)
        ann = self.annotation() if self.accept("(") else None
        while True:
            if self.accept("?"):
                typ = OptionalType(typ)
            elif self.accept("["):
                size = None
                if self.peek() != "]":
                    if not self.peek().isdigit():
                        self.fail(f"expected a list size or ']' but {self.found()}")
                    size = int(self.take())
                self.expect("]")
                typ = ListType(typ, size)
            else:
                return typ, ann

    def annotation(self) -> Annotation:
        before = self.alias_set()
        write = self.accept("!")
        after = self.alias_set() if self.accept("->") else ()
        self.expect(")")
        return Annotation(before, write, after)

    def alias_set(self) -> tuple[str, ...]:
        names = []
        while True:
            if self.peek() != "*" and not _IDENT.fullmatch(self.peek()):
                self.fail(f"expected an alias set name but {self.found()}")
            names.append(self.take())
            if not self.accept("|"):
                return tuple(names)

    def default(self) -> str:
        # Scan to the next top-level ',' or ')', skipping brackets and quoted strings.
        text, i, depth, quote = self.text, self.pos, 0, None
        while i < len(text):
            c = text[i]
            if quote:
                i += c == "\\"
                quote = None if c == quote else quote
            elif c in "\"'":
                quote = c
            elif c in "([":
                depth += 1
            elif c in ")]" and depth:
                depth -= 1
            elif c in ",)" and not depth:
                break
            i += 1
        value = text[self.pos:i].strip()
        if not value:
            self.fail("empty default value")
        self.pos = i
        return value

    def returns(self) -> tuple[Return, ...]:
        if not self.accept("("):  # a bare return has no name: `-> Tensor`
            return (self.ret(named=False),)
        rets: list[Return] = []
        if self.accept(")"):
            return ()
        while True:
            rets.append(self.ret())
            if self.expect(",", ")") == ")":
                return tuple(rets)

    def ret(self, named: bool = True) -> Return:
        typ, ann = self.type()
        return Return(self.take() if named and _IDENT.fullmatch(self.peek()) else None, typ, ann)


# ------------------------------------------------------------------- entry model

FIELDS = ("func", "variants", "dispatch", "pointwise", "derivatives", "output_differentiability",
          "autocast", "tags", "autogen", "python_module", "manual_binding")
POINTWISE_FIELDS = ("expr", "dtypes", "promote", "result", "check", "inplace")
DISPATCH_KEYS = ("CPU", "CUDA", "Meta", "PrivateUse1", "CompositeImplicitAutograd",
                 "CompositeExplicitAutograd", "Autograd")
COMPOSITE_KEYS = ("CompositeImplicitAutograd", "CompositeExplicitAutograd")
VARIANTS = ("function", "method")
DTYPES = ("all", "numeric", "integral", "integral_and_bool", "floating", "bool")
PROMOTE = ("default", "int_to_float", "none")
RESULT = ("same", "bool")
# Autocast policies, as PyTorch's autocast lists name them: run in the lower
# precision, in fp32, in fp32 taking (set_opt_dtype) or appending
# (append_dtype) a dtype argument, at the widest input type, or refused.
# Parsed and validated only; the mixed-precision issue enforces them.
AUTOCAST = ("lower", "fp32", "fp32_set_opt_dtype", "fp32_append_dtype", "promote", "banned")
AUTOCAST_DEVICES = ("CPU", "CUDA", "PrivateUse1")
# C++ and file names a YAML namespace may not take (they are the core's or the generator's).
RESERVED_NAMESPACES = ("at", "c10", "std", "tl", "torchlike", "native", "ops", "kernels", "functors",
                       "registration", "autograd", "python")
TAGS = ("pointwise", "reduction", "view", "inplace_view", "factory", "random", "nondeterministic", "core")


@dataclass(frozen=True)
class Location:
    file: str
    line: int

    def __str__(self):
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Pointwise:
    expr: str
    dtypes: str
    promote: str = "default"
    result: str = "same"
    # A function in aten/native/PointwiseChecks.h called with the op's name and
    # its tensor inputs (as the caller passed them) before the loop: for rules
    # a formula cannot state (bool subtraction, negative integer powers).
    check: str | None = None
    # PyTorch has no in-place form of some pointwise ops (isnan_, maximum_):
    # `inplace: false` leaves it out, so torchlike has none either.
    inplace: bool = True


@dataclass(frozen=True)
class NativeFunction:
    func: FunctionSchema
    loc: Location
    variants: tuple[str, ...] = ("function",)
    dispatch: tuple[tuple[str, str], ...] = ()  # (key, kernel) in YAML order
    pointwise: Pointwise | None = None
    derivatives: tuple[tuple[str, str], ...] = ()  # (argument name, formula) in YAML order
    output_differentiability: tuple[bool, ...] | None = None
    autocast: tuple[tuple[str, str], ...] = ()  # (device, policy); one policy for all: every device listed
    tags: tuple[str, ...] = ()
    autogen: tuple[str, ...] = ()
    python_module: str | None = None
    manual_binding: bool = False

    def kernel(self, key: str) -> str | None:
        return dict(self.dispatch).get(key)

    @property
    def has_composite(self) -> bool:
        return any(k in COMPOSITE_KEYS for k, _ in self.dispatch)


def pointwise_variants(f: NativeFunction | FunctionSchema) -> tuple[FunctionSchema | None, FunctionSchema]:
    """The in-place and out schemas generated for a pointwise op. The in-place one is
    None when the first argument is not a Tensor (e.g. `pow.Scalar(Scalar self, ...)`)."""
    s = f.func if isinstance(f, NativeFunction) else f
    write = Annotation(("a",), True)
    ret = (Return(None, TENSOR, write),)
    inplace = None
    wants_inplace = not (isinstance(f, NativeFunction) and f.pointwise is not None and not f.pointwise.inplace)
    if wants_inplace and s.arguments and s.arguments[0].type == TENSOR:
        args = (replace(s.arguments[0], annotation=write),) + s.arguments[1:]
        inplace = FunctionSchema(OperatorName(s.name.name + "_", s.name.overload), args, ret)
    ov = s.name.overload
    out_name = OperatorName(s.name.name, "out" if ov in ("", "Tensor") else f"{ov}_out")
    out = FunctionSchema(out_name, s.arguments + (Argument("out", TENSOR, None, write, True),), ret)
    return inplace, out


# ------------------------------------------------------------------------ loader

class _LineDict(dict):
    """A YAML mapping that remembers its own line and each key's line (1-based)."""
    line: int = 0
    key_lines: dict


class _LineLoader(yaml.SafeLoader):
    def construct_line_mapping(self, node):
        key_lines = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in key_lines:  # plain PyYAML would silently keep the last one
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}",
                                                        key_node.start_mark)
            key_lines[key] = key_node.start_mark.line + 1
        m = _LineDict(self.construct_mapping(node, deep=True))
        m.line, m.key_lines = node.start_mark.line + 1, key_lines
        return m


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                            _LineLoader.construct_line_mapping)


NAMESPACE_FIELDS = ("namespace", "functions")


def load_native_functions(path: str, *, backends=("CPU", "Meta")) -> list[NativeFunction]:
    """Parse and validate every entry; the first problem raises CodegenError."""
    return load_native_file(path, backends=backends)[1]


def load_native_file(path: str, *, backends=("CPU", "Meta")) -> tuple[str, list[NativeFunction]]:
    """(namespace, entries) of one YAML file. The file is either a list of
    entries (namespace `aten`, the core) or a mapping
    `{namespace: myext, functions: [entries]}` (an extension's operators)."""
    with open(path, encoding="utf-8") as fh:
        loader = _LineLoader(fh)
        try:
            root = loader.get_single_node()
            namespace = "aten"
            if isinstance(root, yaml.MappingNode):
                top = {}
                for k, v in root.value:
                    key = loader.construct_object(k, deep=True)
                    if key not in NAMESPACE_FIELDS:
                        raise CodegenError(Location(path, k.start_mark.line + 1),
                                           f"unknown top-level field {key!r}; allowed: {', '.join(NAMESPACE_FIELDS)}")
                    top[key] = (k, v)
                if "namespace" not in top or "functions" not in top:
                    raise CodegenError(Location(path, root.start_mark.line + 1),
                                       "a mapping at the top needs 'namespace: <name>' and 'functions: [entries]'")
                k, v = top["namespace"]
                namespace = loader.construct_object(v, deep=True)
                if not (isinstance(namespace, str) and re.fullmatch(r"[a-z][a-z0-9_]*", namespace)) \
                        or namespace in RESERVED_NAMESPACES:
                    raise CodegenError(Location(path, k.start_mark.line + 1),
                                       f"namespace {namespace!r} must be a lower-case C++ identifier, not one of "
                                       f"{', '.join(RESERVED_NAMESPACES)}")
                root = top["functions"][1]
            if root is not None and not isinstance(root, yaml.SequenceNode):
                raise CodegenError(Location(path, root.start_mark.line + 1), "expected a list of entries")
            items = [(n.start_mark.line + 1, loader.construct_object(n, deep=True))
                     for n in (root.value if root is not None else ())]
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            raise CodegenError(Location(path, mark.line + 1 if mark else 1), f"YAML error: {e.problem}") from None
        finally:
            loader.dispose()

    functions, seen = [], {}
    for line, entry in items:
        if not isinstance(entry, _LineDict):
            raise CodegenError(Location(path, line), "entry must be a mapping starting with 'func:'")
        f = _parse_entry(entry, path, backends)
        # Generated variants share the namespace, so they take part in the duplicate check.
        names = {str(f.func.name): ""}
        if f.pointwise:
            names.update((str(s.name), f" (generated by pointwise {f.func.name})")
                         for s in pointwise_variants(f) if s is not None)
        names.update((a, f" (autogen of {f.func.name})") for a in f.autogen if a not in names)
        for name, why in names.items():
            if name in seen:
                raise CodegenError(f.loc, f"duplicate operator {name}{why}; first defined at {seen[name]}")
            seen[name] = f"{f.loc}{why}"
        functions.append(f)
    return namespace, functions


def _parse_entry(e: _LineDict, path: str, backends) -> NativeFunction:
    def fail(msg: str, key: str | None = None, within: _LineDict = e):
        # Point at the offending key's own line when there is one, else at the entry.
        raise CodegenError(Location(path, within.key_lines.get(key, within.line)), msg)

    def mapping(key: str) -> _LineDict:
        value = e[key]
        if not isinstance(value, _LineDict) or not value:
            fail(f"{name}: '{key}' must be a non-empty mapping", key)
        return value

    def choice(value, allowed, what: str, key: str, within: _LineDict = e):
        if value not in allowed:
            fail(f"{name}: unknown {what} {value!r}; expected one of: {', '.join(allowed)}", key, within)
        return value

    def strings(key: str, default=()) -> tuple[str, ...]:
        value = e.get(key, default)
        if isinstance(value, str):  # PyTorch style `variants: function, method`
            value = [v.strip() for v in value.split(",")]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            fail(f"{name}: '{key}' must be a list of strings", key)
        return tuple(value)

    for key in e:
        if key not in FIELDS:
            fail(f"unknown field {key!r}; allowed fields: {', '.join(FIELDS)}", key)
    if not isinstance(e.get("func"), str):
        fail("entry needs a 'func: <schema>' string")
    try:
        schema = FunctionSchema.parse(e["func"])
    except SchemaError as x:
        fail(f"malformed schema: {x}", "func")
    name, arg_names = schema.name, {a.name for a in schema.arguments}

    variants = strings("variants", ("function",))
    for v in variants:
        choice(v, VARIANTS, "variant", "variants")
    if "method" in variants and not (schema.argument("self") and schema.argument("self").type.is_tensor_like):
        fail(f"{name}: a 'method' variant needs a Tensor argument named 'self'", "variants")

    dispatch = ()
    if "dispatch" in e:
        d = mapping("dispatch")
        for k, kernel in d.items():
            choice(k, DISPATCH_KEYS, "dispatch key", k, d)
            if not isinstance(kernel, str) or not re.fullmatch(r"[A-Za-z_][\w:]*", kernel):
                fail(f"{name}: kernel for {k} must be a C++ function name, got {kernel!r}", k, d)
        dispatch = tuple(d.items())

    pointwise = None
    if "pointwise" in e:
        p = mapping("pointwise")
        for k in p:
            choice(k, POINTWISE_FIELDS, "pointwise field", k, p)
        if "dispatch" in e:
            fail(f"{name}: 'pointwise' generates the kernels, so it cannot be combined with 'dispatch'",
                 "pointwise")
        if not (all(a.type in (TENSOR, SCALAR) and a.annotation is None for a in schema.arguments)
                and schema.tensor_arguments and not name.inplace and len(schema.returns) == 1
                and schema.returns[0].type == TENSOR and schema.returns[0].annotation is None):
            fail(f"{name}: 'pointwise' needs a functional schema with only Tensor/Scalar arguments "
                 "(at least one Tensor) and a single Tensor return", "pointwise")
        for k in ("expr", "dtypes"):
            if not isinstance(p.get(k), str):
                fail(f"{name}: pointwise needs a string '{k}'", k, p)
        try:
            check_pointwise_expr(p["expr"], arg_names)
        except FormulaError as x:
            fail(f"{name}: {x}", "expr", p)
        pointwise = Pointwise(p["expr"], choice(p["dtypes"], DTYPES, "dtypes", "dtypes", p),
                              choice(p.get("promote", "default"), PROMOTE, "promote", "promote", p),
                              choice(p.get("result", "same"), RESULT, "result", "result", p),
                              p.get("check"), p.get("inplace", True))
        if not isinstance(pointwise.inplace, bool):
            fail(f"{name}: pointwise 'inplace' must be true or false", "inplace", p)
        if pointwise.check is not None and not re.fullmatch(r"[A-Za-z_]\w*", str(pointwise.check)):
            fail(f"{name}: pointwise 'check' must name a C++ function", "check", p)

    if not dispatch and not pointwise:
        fail(f"{name} has no kernel: give it 'dispatch' or 'pointwise'")
    if dispatch and not any(k in COMPOSITE_KEYS for k, _ in dispatch):
        for b in backends:
            if b not in dict(dispatch):
                fail(f"{name} has no kernel for backend {b} and no composite "
                     f"({' or '.join(COMPOSITE_KEYS)})", "dispatch")

    derivatives = ()
    if "derivatives" in e:
        d = mapping("derivatives")
        return_names = [r.name for r in schema.returns if r.name]
        for arg, formula in d.items():
            a = schema.argument(arg) if isinstance(arg, str) else None
            if a is None:
                fail(f"{name}: derivative for {arg!r}, which is not an argument; arguments: "
                     f"{', '.join(x.name for x in schema.arguments)}", arg, d)
            if not a.type.is_tensor_like:
                fail(f"{name}: derivative for non-Tensor argument {arg!r}", arg, d)
            if not isinstance(formula, str):
                fail(f"{name}: derivative formula for {arg!r} must be a string", arg, d)
            try:
                check_derivative_formula(formula, arg_names, len(schema.returns), return_names)
            except FormulaError as x:
                fail(f"{name}: {x}", arg, d)
        derivatives = tuple(d.items())

    out_diff = e.get("output_differentiability")
    if out_diff is not None:
        if not isinstance(out_diff, list) or not all(isinstance(b, bool) for b in out_diff):
            fail(f"{name}: 'output_differentiability' must be a list of true/false", "output_differentiability")
        if len(out_diff) != len(schema.returns):
            fail(f"{name}: 'output_differentiability' has {len(out_diff)} entries but the op has "
                 f"{len(schema.returns)} returns", "output_differentiability")
        out_diff = tuple(out_diff)

    autocast = ()
    if "autocast" in e:
        a = e["autocast"]
        if isinstance(a, _LineDict):
            for dev, policy in a.items():
                choice(dev, AUTOCAST_DEVICES, "autocast device", dev, a)
                choice(policy, AUTOCAST, "autocast", dev, a)
            autocast = tuple(a.items())
        else:
            choice(a, AUTOCAST, "autocast", "autocast")
            autocast = tuple((dev, a) for dev in AUTOCAST_DEVICES)
    tags = strings("tags")
    for t in tags:
        choice(t, TAGS, "tag", "tags")
    if "autogen" in e:
        # PyTorch derives out=/functional variants from `autogen`; nothing here
        # does yet, and an ignored field would silently leave the op missing.
        fail(f"{name}: 'autogen' is not implemented: write the generated variants as entries of their own "
             "(a pointwise entry gets its in-place and out= variants without it)", "autogen")
    autogen = ()
    python_module = e.get("python_module")
    if python_module is not None and not (isinstance(python_module, str) and _IDENT.fullmatch(python_module)):
        fail(f"{name}: 'python_module' must be a module name like 'nn'", "python_module")
    manual_binding = e.get("manual_binding", False)
    if not isinstance(manual_binding, bool):
        fail(f"{name}: 'manual_binding' must be true or false", "manual_binding")

    return NativeFunction(schema, Location(path, e.line), variants, dispatch, pointwise, derivatives,
                          out_diff, autocast, tags, autogen, python_module, manual_binding)
