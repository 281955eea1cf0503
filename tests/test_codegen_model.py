"""Tests for codegen/model.py and codegen/formula.py (schema grammar, YAML validation,
formula name checks)."""
import os
import textwrap

import pytest
import yaml

from codegen.formula import (FormulaError, check_derivative_formula, check_pointwise_expr,
                             tokenize, uses_only_sizes)
from codegen.model import (Annotation, BaseType, CodegenError, FunctionSchema, ListType,
                           OperatorName, OptionalType, SchemaError, load_native_functions,
                           pointwise_variants)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE_FUNCTIONS = os.path.join(ROOT, "native_functions.yaml")

ROUND_TRIP = [
    "relu(Tensor self) -> Tensor",
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "sum.dim_IntList(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    "split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]",
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "_foreach_add.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]",
    "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
    "_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()",
    "_fused_adam_(Tensor(a!)[] self, Tensor(b!)[] grads, *, float lr, Tensor? grad_scale=None) -> ()",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor",
    "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, str padding=\"valid\", int[2] dilation=1, int groups=1) -> Tensor",
    "mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
    "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor",
    "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
    "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
    "native_batch_norm.out(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))",
    "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=contiguous_format) -> Tensor",
    "full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None) -> Tensor",
    "normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)",
    "randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=long, Generator? generator=None) -> Tensor",
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor(a)",
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    "flip(Tensor self, int[] dims=[0,1]) -> Tensor",
    "sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
    "__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "_assert_async.msg(Tensor self, str assert_msg) -> ()",
    "set_(Tensor(a!) self, Tensor source) -> Tensor(a!)",
    "alias(Tensor(a) self) -> Tensor(a)",
    "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
    "weird(Tensor(a! -> a|b) self, Tensor(*) other, Tensor(a!)? maybe=None) -> Tensor(a|b)",
    "ones(int[] size, *, str? name=\"x, y\", float scale=-1.5) -> Tensor",
    "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
    "kw(*, Tensor(a!) out) -> Tensor(a!)",
    "nothing() -> ()",
    "single_named(Tensor self) -> (Tensor out)",
]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_round_trip(text):
    assert str(FunctionSchema.parse(text)) == text


def test_parsed_structure():
    s = FunctionSchema.parse(
        "f(Tensor?[] a, int[1]? b=None, Tensor(a -> *) c, *, Tensor(a!) out) -> Tensor(a)[]")
    a, b, c, out = s.arguments
    assert a.type == ListType(OptionalType(BaseType("Tensor")), None)
    assert b.type == OptionalType(ListType(BaseType("int"), 1)) and b.default == "None"
    assert c.annotation == Annotation(("a",), False, ("*",))
    assert out.annotation == Annotation(("a",), True, ()) and out.kwarg_only
    assert s.returns[0].type == ListType(BaseType("Tensor")) and s.returns[0].annotation.alias_set == ("a",)
    assert [x.name for x in s.positional] == ["a", "b", "c"]
    assert s.out_arguments == (out,) and s.is_out and not s.is_functional
    assert [x.name for x in s.tensor_arguments] == ["a", "c", "out"]


def test_operator_name():
    assert str(OperatorName("add", "Tensor")) == "add.Tensor" and str(OperatorName("exp", "")) == "exp"
    assert OperatorName("add_", "Tensor").inplace and OperatorName("add_").base == "add"
    assert not OperatorName("__and__").inplace and OperatorName("__and__").base == "__and__"
    assert FunctionSchema.parse("relu_(Tensor(a!) self) -> Tensor(a!)").is_inplace
    assert FunctionSchema.parse("relu(Tensor self) -> Tensor").is_functional


@pytest.mark.parametrize("text, token", [
    ("add(Tensor self", "end of schema"),
    ("add(Foo x) -> Tensor", "'Foo'"),
    ("add(Tensor x,) -> Tensor", "')'"),
    ("add(Tensor x, *) -> Tensor", "'*' must be followed"),
    ("add(Tensor x) Tensor", "'Tensor'"),
    ("add(Tensor x=) -> Tensor", "empty default"),
    ("add(Tensor x, Tensor x) -> Tensor", "duplicate argument name 'x'"),
    ("add(Tensor x) -> Tensor junk", "'junk'"),
    ("add(Tensor(a x) -> Tensor", "'x'"),
    ("add(int[x] x) -> Tensor", "'x'"),
    ("add(Tensor x, *, *, int y) -> Tensor", "second '*'"),
])
def test_schema_errors(text, token):
    with pytest.raises(SchemaError) as e:
        FunctionSchema.parse(text)
    assert token in str(e.value)


def test_unknown_base_type():
    with pytest.raises(SchemaError):
        BaseType("Tensr")


# ------------------------------------------------------------------ native_functions.yaml

def test_repo_yaml_round_trips():
    with open(NATIVE_FUNCTIONS) as fh:
        raw = [e["func"] for e in yaml.safe_load(fh)]
    fs = load_native_functions(NATIVE_FUNCTIONS, backends=("CPU", "Meta"))
    assert [str(f.func) for f in fs] == raw
    by_name = {str(f.func.name): f for f in fs}
    add = by_name["add.Tensor"]
    assert add.variants == ("function", "method") and add.pointwise.dtypes == "all"
    assert add.pointwise.promote == "default" and add.pointwise.result == "same"
    assert add.derivatives == (("self", "grad"), ("other", "grad * alpha"))
    assert by_name["eq.Tensor"].pointwise.result == "bool"
    # copy_ is composite (every backend routes device pairs through the copy registry); Meta keeps its own.
    assert by_name["copy_"].kernel("CompositeExplicitAutograd") == "copy_"
    assert by_name["copy_"].kernel("Meta") == "copy_meta_" and by_name["copy_"].kernel("CPU") is None
    assert by_name["select.int"].has_composite
    assert by_name["div_.Tensor_mode"].variants == ("method",)
    with open(NATIVE_FUNCTIONS) as fh:  # loc is the `- func:` line
        lines = fh.read().splitlines()
    for f in fs:
        assert lines[f.loc.line - 1].startswith(f"- func: {f.func.name.name}")


def load(tmp_path, text, **kw):
    path = tmp_path / "nf.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(path), (lambda: load_native_functions(str(path), **kw))


GOOD = """
- func: exp(Tensor self) -> Tensor
  pointwise: {expr: "exp(self)", dtypes: floating}
"""


def test_small_file_ok(tmp_path):
    path, run = load(tmp_path, GOOD + """
- func: foo(Tensor self) -> Tensor
  dispatch: {CompositeExplicitAutograd: foo}
""")
    fs = run()
    assert [str(f.func.name) for f in fs] == ["exp", "foo"]
    assert str(fs[1].loc) == f"{path}:4"  # GOOD is 2 lines, then a blank one


# (yaml text, expected 1-based line, text the message must contain)
ERRORS = [
    ("unknown_field", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CPU: a, Meta: b}
  dispatchh: {CPU: a}
""", 3, ["unknown field 'dispatchh'", "allowed fields: func, variants"]),
    ("malformed_schema", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CPU: a, Meta: b}

- func: bar(Tensr self) -> Tensor
  dispatch: {CPU: a, Meta: b}
""", 4, ["malformed schema", "unknown type 'Tensr'"]),
    ("duplicate", GOOD + """
- func: foo(Tensor self) -> Tensor
  dispatch: {CPU: a, Meta: b}
- func: exp(Tensor self) -> Tensor
  dispatch: {CPU: a, Meta: b}
""", 6, ["duplicate operator exp;", ":1"]),
    ("duplicate_generated", GOOD + """
- func: exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch: {CPU: a, Meta: b}
""", 4, ["duplicate operator exp.out", "generated by pointwise exp"]),
    ("dispatch_key", """
- func: foo(Tensor self) -> Tensor
  dispatch:
    CPU: a
    Meta: b
    GPU: c
""", 5, ["unknown dispatch key 'GPU'", "CompositeImplicitAutograd"]),
    ("dtypes", """
- func: foo(Tensor self) -> Tensor
  pointwise:
    expr: "self"
    dtypes: floats
""", 4, ["unknown dtypes 'floats'", "floating"]),
    ("promote", """
- func: foo(Tensor self) -> Tensor
  pointwise:
    expr: "self"
    dtypes: all
    promote: float
""", 5, ["unknown promote 'float'"]),
    ("result", """
- func: foo(Tensor self) -> Tensor
  pointwise:
    expr: "self"
    dtypes: all
    result: int
""", 5, ["unknown result 'int'"]),
    ("autocast", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CompositeImplicitAutograd: foo}
  autocast: fp16
""", 3, ["unknown autocast 'fp16'"]),
    ("variant", """
- func: foo(Tensor self) -> Tensor
  variants: [function, methd]
  dispatch: {CompositeImplicitAutograd: foo}
""", 2, ["unknown variant 'methd'"]),
    ("method_without_self", """
- func: foo(Tensor x) -> Tensor
  variants: method
  dispatch: {CompositeImplicitAutograd: foo}
""", 2, ["'method' variant needs a Tensor argument named 'self'"]),
    ("tag", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CompositeImplicitAutograd: foo}
  tags: [pointwize]
""", 3, ["unknown tag 'pointwize'"]),
    ("pointwise_field", """
- func: foo(Tensor self) -> Tensor
  pointwise:
    expr: "self"
    dtype: all
""", 4, ["unknown pointwise field 'dtype'"]),
    ("no_kernel", """
- func: foo(Tensor self) -> Tensor
  variants: [function]
""", 1, ["foo has no kernel"]),
    ("no_meta", """
- func: foo(Tensor self) -> Tensor
  variants: [function]
  dispatch: {CPU: foo_cpu, CUDA: foo_cuda}
""", 3, ["no kernel for backend Meta and no composite"]),
    ("pointwise_and_dispatch", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CPU: a, Meta: b}
  pointwise: {expr: "self", dtypes: all}
""", 3, ["cannot be combined with 'dispatch'"]),
    ("pointwise_bad_schema", """
- func: foo(Tensor self, int dim) -> Tensor
  pointwise: {expr: "self", dtypes: all}
""", 2, ["only Tensor/Scalar arguments"]),
    ("pointwise_two_returns", """
- func: foo(Tensor self) -> (Tensor, Tensor)
  pointwise: {expr: "self", dtypes: all}
""", 2, ["single Tensor return"]),
    ("pointwise_expr_name", """
- func: foo(Tensor self, Tensor other) -> Tensor
  pointwise:
    dtypes: all
    expr: "self + othr"
""", 4, ["unknown name 'othr'", "did you mean 'other'"]),
    ("pointwise_expr_function", """
- func: foo(Tensor self) -> Tensor
  pointwise:
    expr: "sqroot(self)"
    dtypes: all
""", 3, ["unknown function 'sqroot'"]),
    ("derivative_name", """
- func: foo(Tensor self, Tensor other) -> Tensor
  dispatch: {CPU: a, Meta: b}
  derivatives:
    self: "grad * other"
    other: "grad * selff"
""", 5, ["unknown name 'selff'"]),
    ("derivative_key", """
- func: foo(Tensor self, Tensor other) -> Tensor
  dispatch: {CPU: a, Meta: b}
  derivatives:
    self: "grad"
    input: "grad"
""", 5, ["derivative for 'input', which is not an argument", "self, other"]),
    ("derivative_multi_key", """
- func: foo(Tensor self, Tensor other) -> Tensor
  dispatch: {CPU: a, Meta: b}
  derivatives:
    self, other: "grad"
""", 4, ["'self, other', which is not an argument"]),
    ("derivative_result_index", """
- func: foo(Tensor self) -> (Tensor a, Tensor b)
  dispatch: {CPU: a, Meta: b}
  derivatives:
    self: "grad * result2"
""", 4, ["'result2'", "2 return"]),
    ("output_differentiability", """
- func: foo(Tensor self) -> (Tensor a, Tensor b)
  dispatch: {CPU: a, Meta: b}
  output_differentiability: [true]
""", 3, ["'output_differentiability' has 1 entries but the op has 2 returns"]),
    ("duplicate_key", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CPU: a, Meta: b}
  dispatch: {CPU: a, Meta: b}
""", 3, ["duplicate key 'dispatch'"]),
    ("yaml_syntax", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CPU: a, Meta: b
""", 3, ["YAML error"]),
]


@pytest.mark.parametrize("text, line, needles", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_yaml_errors(tmp_path, text, line, needles):
    path, run = load(tmp_path, text)
    with pytest.raises(CodegenError) as e:
        run()
    msg = str(e.value)
    assert msg.startswith(f"{path}:{line}: "), msg
    for needle in needles:
        assert needle in msg, msg


def test_backends_parameter(tmp_path):
    text = """
- func: foo(Tensor self) -> Tensor
  dispatch: {CPU: foo_cpu, Meta: foo_meta}
"""
    path, run = load(tmp_path, text, backends=("CPU", "Meta", "CUDA"))
    with pytest.raises(CodegenError, match="backend CUDA"):
        run()
    assert len(load(tmp_path, text, backends=("CPU",))[1]()) == 1


def test_error_str_is_exact(tmp_path):
    path, run = load(tmp_path, "- func: foo(Tensor self) -> Tensor\n")
    with pytest.raises(CodegenError) as e:
        run()
    assert str(e.value) == f"{path}:1: {e.value.message}" and e.value.loc.line == 1


# ------------------------------------------------------------------------- formulas

def test_tokenize():
    assert tokenize('a+1e-5*2.0f >= b.sizes()') == ["a", "+", "1e-5", "*", "2.0f", ">=", "b", ".", "sizes", "(", ")"]
    assert tokenize('at::f("x, y", .5) << 3') == ["at", "::", "f", "(", '"x, y"', ",", ".5", ")", "<<", "3"]
    with pytest.raises(FormulaError, match="'@'"):
        tokenize("a @ b")


def test_pointwise_expr():
    args = {"self", "other", "alpha"}
    assert check_pointwise_expr("self + alpha * other", args) == {"self", "other", "alpha"}
    assert check_pointwise_expr("where(isnan(self), NAN, sqrt(self * self + 1.0f)) ? true : !false", args) == {"self"}
    assert check_pointwise_expr("self << 2 | ~other && self != -1e-05", args) == {"self", "other"}
    for bad, needle in [("self + beta", "'beta'"), ("std::exp(self)", "'std'"), ("self.abs()", "'.'"),
                        ("foo(self)", "'foo'"), ('self + "x"', '\'"x"\''), ("(self", "unclosed"),
                        ("self)", "unbalanced"), ("self(1)", "'self'")]:
        with pytest.raises(FormulaError, match=needle):
            check_pointwise_expr(bad, args)


def test_derivative_formula():
    args = {"self", "dim", "keepdim", "other"}
    f = "value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)"
    assert check_derivative_formula(f, args, 2, ["values", "indices"]) == {"dim", "indices", "self", "keepdim"}
    assert check_derivative_formula("grad * result", args, 1) == {"result"}
    assert check_derivative_formula("grads[0] * result0 + grads[1] * result1", args, 2) == {"result0", "result1"}
    assert check_derivative_formula(
        "at::native::foo(grad, c10::nullopt).to(self.options()) * static_cast<double>(M_PI)", args, 1) == {"self"}
    for bad, n, needle in [("grad * result1", 1, "'result1'"), ("grad * result", 2, "'result'"),
                           ("grad * input", 1, "'input'"), ("grad * values", 1, "'values'")]:
        with pytest.raises(FormulaError, match=needle):
            check_derivative_formula(bad, args, n)


def test_uses_only_sizes():
    assert uses_only_sizes("sum_backward(grad, self.sizes(), dim, keepdim)", "self")
    assert uses_only_sizes("grad.expand(self.sym_sizes()).to(self.scalar_type()) / self.dim()", "self")
    assert uses_only_sizes("zeros(self.options())", "self")
    assert not uses_only_sizes("grad * self", "self")
    assert not uses_only_sizes("grad.expand(self.sizes()) * self.size(0)", "self")
    assert not uses_only_sizes("grad * self.sizes()[0] + self", "self")
    assert uses_only_sizes("grad.self * 2", "self")  # a member named `self` is not a use
    assert uses_only_sizes("grad", "self")  # vacuously true


# ---------------------------------------------------------------- pointwise variants

@pytest.mark.parametrize("func, inplace, out", [
    ("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
     "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
     "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"),
    ("exp(Tensor self) -> Tensor", "exp_(Tensor(a!) self) -> Tensor(a!)",
     "exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"),
    ("mul.Scalar(Tensor self, Scalar other) -> Tensor", "mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
     "mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)"),
    ("pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
     "pow_.Tensor_Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
     "pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)"),
    ("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", None,
     "pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out) -> Tensor(a!)"),
])
def test_pointwise_variants(func, inplace, out):
    got_inplace, got_out = pointwise_variants(FunctionSchema.parse(func))
    assert (got_inplace and str(got_inplace)) == inplace
    assert str(got_out) == out and got_out.is_out
    if got_inplace:
        assert got_inplace.is_inplace


def test_pointwise_variants_of_entry():
    add = next(f for f in load_native_functions(NATIVE_FUNCTIONS) if str(f.func.name) == "add.Tensor")
    assert [str(s.name) for s in pointwise_variants(add)] == ["add_.Tensor", "add.out"]


@pytest.mark.parametrize("name,text,line,needles", [
    ("autogen", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CompositeImplicitAutograd: foo}
  autogen: foo.out
""", 3, ["'autogen' is not implemented", "foo"]),
    ("autocast_device", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CompositeImplicitAutograd: foo}
  autocast: {CPU: fp32, GPU: lower}
""", 3, ["unknown autocast device 'GPU'", "CUDA"]),
    ("autocast_device_policy", """
- func: foo(Tensor self) -> Tensor
  dispatch: {CompositeImplicitAutograd: foo}
  autocast: {CPU: fp32, CUDA: half}
""", 3, ["unknown autocast 'half'", "fp32_set_opt_dtype"]),
])
def test_unimplemented_fields_are_rejected_with_line(tmp_path, name, text, line, needles):
    path, run = load(tmp_path, text)
    with pytest.raises(CodegenError) as e:
        run()
    msg = str(e.value)
    assert msg.startswith(f"{path}:{line}: "), msg
    for needle in needles:
        assert needle in msg, msg


def test_autocast_policy_per_device_or_for_all(tmp_path):
    text = """
- func: foo(Tensor self) -> Tensor
  dispatch: {CompositeImplicitAutograd: foo}
  autocast: {CPU: fp32, CUDA: lower}
- func: bar(Tensor self) -> Tensor
  dispatch: {CompositeImplicitAutograd: bar}
  autocast: fp32_append_dtype
"""
    foo, bar = load(tmp_path, text)[1]()
    assert foo.autocast == (("CPU", "fp32"), ("CUDA", "lower"))
    assert dict(bar.autocast) == {"CPU": "fp32_append_dtype", "CUDA": "fp32_append_dtype",
                                  "PrivateUse1": "fp32_append_dtype"}


@pytest.mark.parametrize("fn,instead", [("min", "minimum"), ("max", "maximum")])
def test_min_max_in_pointwise_expr_point_to_nan_propagating_functions(fn, instead):
    with pytest.raises(FormulaError, match=f"{fn}\\(\\) is not available.*{instead}"):
        check_pointwise_expr(f"{fn}(self, other)", {"self", "other"})
    # An argument named min/max is still a plain name (clamp's bounds).
    assert check_pointwise_expr(f"clamp_{fn}(self, {fn})", {"self", fn}) == {"self", fn}


def test_every_pointwise_function_exists_in_tl_math():
    """A name the expr checker accepts must compile: it is defined in, or
    brought into, namespace tl_math (aten/native/Math.h)."""
    import re
    from codegen.formula import POINTWISE_FUNCTIONS
    native = os.path.join(ROOT, "csrc", "aten", "native")
    with open(os.path.join(native, "Math.h")) as fh:
        src = fh.read()
    for inc in re.findall(r'#include "(\w+\.h)"', src):  # headers Math.h pulls in (SpecialFunctions.h)
        if os.path.exists(os.path.join(native, inc)):
            with open(os.path.join(native, inc)) as fh:
                src += fh.read()
    defined = set(re.findall(r"\b(\w+)\s*\(", src)) | set(re.findall(r"using std::(\w+);", src))
    defined |= set(re.findall(r"TL_SF_(?:UNARY|BINARY)\((\w+),", src))  # SpecialFunctions.h's wrapper macros
    assert POINTWISE_FUNCTIONS <= defined, sorted(POINTWISE_FUNCTIONS - defined)


def test_namespace_file(tmp_path):
    from codegen.model import load_native_file
    p = tmp_path / "ext.yaml"
    p.write_text("namespace: myext\nfunctions:\n- func: foo(Tensor self) -> Tensor\n"
                 "  dispatch: {CompositeImplicitAutograd: foo}\n")
    ns, fns = load_native_file(str(p))
    assert ns == "myext" and [str(f.func.name) for f in fns] == ["foo"] and fns[0].loc.line == 3
    p.write_text("namespace: at\nfunctions: []\n")
    with pytest.raises(CodegenError, match=f"{p}:1: namespace 'at'"):
        load_native_file(str(p))
    p.write_text("namespace: myext\nfuncs: []\n")
    with pytest.raises(CodegenError, match=f"{p}:2: unknown top-level field 'funcs'"):
        load_native_file(str(p))


def test_pointwise_inplace_false_leaves_out_the_inplace_variant():
    """PyTorch has no isnan_ or maximum_: `inplace: false` in the YAML says so."""
    import torchlike as tl
    from codegen.model import pointwise_variants, load_native_functions
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fns = {f.func.name.name: f for f in load_native_functions(os.path.join(root, "native_functions.yaml"))
           if f.pointwise is not None}
    assert pointwise_variants(fns["isnan"])[0] is None and pointwise_variants(fns["exp"])[0] is not None
    for name in ("isnan_", "isinf_", "isfinite_", "maximum_", "minimum_"):
        assert not hasattr(tl.Tensor, name)
    assert hasattr(tl.Tensor, "exp_") and hasattr(tl.Tensor, "clamp_min_")
