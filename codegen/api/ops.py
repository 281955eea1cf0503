"""The operator model as emitted: one Op per overload (the YAML entry's own
schema plus the in-place and out= variants derived for pointwise entries),
and the YAML namespace it belongs to."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from codegen.formula import POINTWISE_FUNCTIONS, tokenize
from codegen.model import SCALAR, BaseType, CodegenError, FunctionSchema, ListType, NativeFunction


@dataclass(frozen=True)
class Namespace:
    """Where one YAML file's operators live. `aten` is the core: its files sit
    at the top of the output folder and its C++ names are PyTorch's (at::_ops,
    at::native). Any other namespace (an extension's `myext`) gets its own
    folder and C++ namespaces, so nothing it generates can collide with aten's."""
    name: str

    @property
    def is_core(self) -> bool:
        return self.name == "aten"

    @property
    def cpp(self) -> str:
        """C++ namespace holding _ops (entry points) and native (handwritten kernels)."""
        return "at" if self.is_core else self.name

    @property
    def gen(self) -> str:
        """C++ namespace of generated kernels, functors and registration functions."""
        return f"tl_gen_{self.name}"

    @property
    def dir(self) -> str:
        """Folder of this namespace's files under the output (and include) root."""
        return "" if self.is_core else self.name + "/"

    @property
    def suffix(self) -> str:
        """Suffix of global C++ names (module init hooks) for non-core namespaces."""
        return "" if self.is_core else "_" + self.name


@dataclass
class Op:
    """One operator overload as emitted: schema plus how it is implemented."""
    schema: FunctionSchema
    f: NativeFunction               # the YAML entry it comes from
    kind: str                       # functional | inplace | out
    cpp_name: str
    ns: Namespace = Namespace("aten")
    dispatch: list = field(default_factory=list)   # [(key, native kernel name)]
    pointwise: object = None
    autograd: object = None                        # codegen.autograd.AutogradInfo, when it gets an Autograd kernel

    @property
    def qualified(self):
        return f"{self.ns.name}::{self.schema.name}"

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
    def list_only_tensor_args(self):
        """Names of the Tensor[] arguments when they are the op's only tensors
        (cat, stack): an empty list carries no device to dispatch on."""
        ts = [x for x in self.schema.arguments if x.type.is_tensor_like]
        if ts and all(isinstance(x.type, ListType) for x in ts):
            return [x.name for x in ts]
        return []

    @property
    def device_arg(self):
        a = self.schema.argument("device")
        return a.name if a is not None else None


def cpp_name(s: FunctionSchema, kind: str) -> str:
    n = s.name.name
    return n + "_out" if kind == "out" else n


# Which operators are methods and which are functions, in Python and in C++ alike.
# The in-place variant derived from a pointwise entry is a method only (t.add_(u)).
# Only the core adds methods to at::Tensor; an extension's operators, in-place
# variants included, are functions of its namespace.
def is_method(op: Op) -> bool:
    if not op.ns.is_core:
        return False
    return op.kind != "out" and ("method" in op.f.variants or (op.kind == "inplace" and op.f.pointwise is not None))


def is_function(op: Op) -> bool:
    if not op.ns.is_core:
        return "function" in op.f.variants
    return "function" in op.f.variants and not (op.kind == "inplace" and op.f.pointwise is not None)


def is_out_of(out: Op, op: Op) -> bool:
    """Whether out= overload `out` computes op into its out= tensors: the same
    arguments once the out= ones are dropped."""
    rest = [a for a in out.schema.arguments if not (a.is_write and a.kwarg_only)]
    return [(a.name, a.type, a.default) for a in rest] == [(a.name, a.type, a.default) for a in op.schema.arguments]


def functional_of(out: Op, group: list) -> Op | None:
    """The functional overload an out= overload belongs to."""
    return next((o for o in group if o.kind == "functional" and is_out_of(out, o)), None)


def scalar_operand(op: Op) -> str | None:
    """A binary pointwise op (self plus one other tensor) also takes a number for
    that operand in the C++ API (t.add(2), t.pow(2)); the number is wrapped as
    Python wraps it, so it promotes the same way. Returns the operand's name."""
    if op.f.pointwise is None or op.kind == "out":
        return None
    tensors = [a.name for a in op.schema.arguments if a.type == BaseType("Tensor") and not a.is_write]
    if op.kind == "inplace":
        return tensors[0] if len(tensors) == 1 else None
    return tensors[1] if len(tensors) == 2 and tensors[0] == "self" else None


def with_scalar(name: str, params: list, forwarded: list) -> tuple[list, list]:
    """(parameters, forwarded argument texts) with operand `name` as a Scalar."""
    return ([dataclasses.replace(a, type=SCALAR) if a.name == name else a for a in params],
            [f"c10::wrapped_scalar_tensor({a.name})" if a.name == name else None for a in forwarded])


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


# ----------------------------------------------------------------- pointwise

DTYPE_MACRO = {"all": "TL_DISPATCH_ALL_TYPES", "numeric": "TL_DISPATCH_NUMERIC_TYPES",
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
    """What the pointwise templates need: tensor inputs, scalar members, the expression."""
    s = op.schema
    tensors = [a for a in s.arguments if a.type == BaseType("Tensor") and not (a.is_write and a.kwarg_only)]
    scalars = [a for a in s.arguments if a.type.base.name == "Scalar"]
    return dict(tensors=[a.name for a in tensors], scalars=[a.name for a in scalars],
                expr=cpp_pointwise_expr(op.pointwise.expr), dtype_macro=DTYPE_MACRO[op.pointwise.dtypes],
                int_to_float=op.pointwise.promote == "int_to_float", promote=op.pointwise.promote != "none",
                result_bool=op.pointwise.result == "bool", check=op.pointwise.check,
                # A floating-only op that does not turn integers into floats
                # refuses integer tensors even when a Python float joins them
                # (frac(int_tensor), lerp(int, int, 0.5)), as PyTorch does.
                floating_only=op.pointwise.dtypes == "floating" and op.pointwise.promote == "default")


def structured_name(op: Op) -> str:
    """The device-neutral half of a pointwise kernel (TensorIterator set-up and
    argument checks) for the functional overload `op` belongs to."""
    return str(op.f.func.name).replace(".", "_") + "_structured"
