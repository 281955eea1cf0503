"""The dispatcher's registration contract (issue 9 §3, §2 key layout).

Parsed FunctionSchema kept per operator and printed back; typed kernels and
handles checked against the schema; registration racing with calls;
registration handles undone by destroying a Library; TL_LIBRARY_IMPL in
several files; Python bindings added after _C is initialised; the key layout.
"""
import os
import re
import threading

import pytest
import torchlike as tl
from codegen.model import FunctionSchema, load_native_functions, pointwise_variants

C = tl._C
VF = tl._C._VariableFunctions
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:
    import torch
except ImportError:  # torch is an optional reference
    torch = None


def _trace():
    return VF._dispatch_testing_trace()


_counter = [0]


def _fresh(prefix):
    _counter[0] += 1
    return f"{prefix}_{os.getpid()}_{_counter[0]}"


# ---------------------------------------------------------------- schemas

def _float_text(x: float) -> str:
    # PyTorch prints a float default with 17 significant digits, "2." for integral values.
    s = "%.17g" % x
    return s if any(c in s for c in ".en") else s + "."


def _norm_literal(text: str, base: str) -> str:
    if text in ("None", "True", "False"):
        return text
    if text[0] in "'\"":
        return '"' + text[1:-1] + '"'
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        return text
    if base == "float" or any(c in text for c in ".eE"):
        return _float_text(float(text))
    return str(int(text))


def _norm_default(text: str, typ) -> str:
    if text == "None":
        return text
    base = typ.base.name
    if text.startswith("["):
        inner = text[1:-1].strip()
        return "[" + ", ".join(_norm_literal(x.strip(), base) for x in inner.split(",")) + "]" if inner else "[]"
    return _norm_literal(text, base)


def normalise_yaml_schema(text: str) -> str:
    """The YAML schema as the dispatcher should print it: aten:: prefix, canonical spacing, defaults normalised."""
    s = FunctionSchema.parse(text)
    parts = []
    for a in s.arguments:
        if a.kwarg_only and "*" not in parts:
            parts.append("*")
        d = None if a.default is None else _norm_default(a.default, a.type)
        parts.append(str(a.__class__(a.name, a.type, d, a.annotation, a.kwarg_only)))
    rets = s.returns
    r = str(rets[0]) if len(rets) == 1 and rets[0].name is None else f"({', '.join(map(str, rets))})"
    return f"aten::{s.name}({', '.join(parts)}) -> {r}"


def _yaml_schemas():
    """Every operator schema the YAML yields: each entry's, plus the in-place and
    out= variants generated for a pointwise entry."""
    out = []
    for f in load_native_functions(os.path.join(ROOT, "native_functions.yaml")):
        out.append(str(f.func))
        if f.pointwise is not None:
            out.extend(str(s) for s in pointwise_variants(f) if s is not None)
    return out


def test_every_operator_schema_round_trips():
    funcs = _yaml_schemas()
    registered = set(C._dispatch_list_ops())
    assert len(funcs) > 100
    for text in funcs:
        name = "aten::" + str(FunctionSchema.parse(text).name)
        assert name in registered, name
        assert C._dispatch_schema(name) == normalise_yaml_schema(text), text
    # Every aten operator the dispatcher knows came from the YAML.
    aten = {n for n in registered if n.startswith("aten::")}
    assert aten == {"aten::" + str(FunctionSchema.parse(t).name) for t in funcs}


def test_schema_examples_print_like_pytorch():
    assert C._dispatch_schema("aten::add.Tensor") == \
        "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert C._dispatch_schema("add.Tensor") == C._dispatch_schema("aten::add.Tensor")
    printed, _ = VF._dispatch_testing_parse_schema(
        "ns::f.o( Tensor self,int[2] a=[0,1],float p=2, float e=1e-5, str r='mean', *, "
        "Tensor(a!) out, SymInt[] sz=[], int x=-1)->(Tensor(a) values,Tensor indices)")
    assert printed == ("ns::f.o(Tensor self, int[2] a=[0, 1], float p=2., float e=1.0000000000000001e-05, "
                       "str r=\"mean\", *, Tensor(a!) out, SymInt[] sz=[], int x=-1) -> "
                       "(Tensor(a) values, Tensor indices)")
    printed, _ = VF._dispatch_testing_parse_schema(
        "g(Tensor[] t, Tensor?[] i, int[1]? dim, Tensor(a -> *) x, Tensor(a|b!) y, Scalar s=1, Scalar z=0.5, "
        "ScalarType? d=None, MemoryFormat m=contiguous_format, Generator? g=None) -> Tensor(a)[]")
    assert printed == ("g(Tensor[] t, Tensor?[] i, int[1]? dim, Tensor(a -> *) x, Tensor(a|b!) y, Scalar s=1, "
                       "Scalar z=0.5, ScalarType? d=None, MemoryFormat m=contiguous_format, Generator? g=None) "
                       "-> Tensor(a)[]")
    assert VF._dispatch_testing_parse_schema("h() -> ()")[0] == "h() -> ()"


def test_cpp_signature_from_schema():
    # out= arguments come first, as in at::add_out(out, self, other, alpha).
    _, sig = VF._dispatch_testing_parse_schema(
        "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    assert sig == "at::TensorBase(const at::TensorBase&, const at::TensorBase&, const at::TensorBase&, const at::Scalar&)"
    _, sig = VF._dispatch_testing_parse_schema(
        "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert sig == "std::tuple<at::TensorBase, at::TensorBase>(const at::TensorBase&, int64_t, bool)"
    _, sig = VF._dispatch_testing_parse_schema(
        "f(Tensor[] ts, int[1]? dim, Tensor? w, ScalarType? dtype, str mode, Generator? g) -> Tensor[]")
    assert sig == ("std::vector<at::TensorBase>(at::TensorBaseList, std::optional<at::IntArrayRef>, "
                   "const std::optional<at::TensorBase>&, std::optional<at::ScalarType>, std::string_view, "
                   "const std::optional<c10::Generator>&)")


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_schema_printing_matches_pytorch():
    checked = 0
    for text in _yaml_schemas():
        # PyTorch prints a MemoryFormat or ScalarType default (dtype=long) as an
        # integer and orders alias sets as a hash set; the dispatcher keeps all
        # three as written.
        if "MemoryFormat" in text or "|" in text or re.search(r"ScalarType\?? \w+=(?!None)", text):
            continue
        ours = C._dispatch_schema("aten::" + str(FunctionSchema.parse(text).name))
        assert ours == str(torch._C.parse_schema("aten::" + text)), text
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("text, what", [
    ("", "expected operator name"),
    ("(Tensor self) -> Tensor", "expected operator name"),
    ("foo(Tensor self", "expected ','"),
    ("foo(Tensor self) ->", "expected a type"),
    ("foo(Tensor self) Tensor", "expected '->'"),
    ("foo(Blah x) -> Tensor", "unknown type 'Blah'"),
    ("foo(Tensor x, Tensor x) -> Tensor", "duplicate argument name 'x'"),
    ("foo(int x=None) -> Tensor", "default None for argument of non-optional type int"),
    ("foo(*) -> Tensor", "'*' must be followed by keyword-only arguments"),
    ("foo(Tensor a, *, *, Tensor b) -> Tensor", "second '*'"),
    ("foo(Tensor(a x) -> Tensor", "expected ')'"),
    ("foo(int[2 x) -> Tensor", "expected ']'"),
    ("foo(str s='abc) -> Tensor", "unterminated string default"),
    ("foo(Tensor self) -> Tensor extra", "unexpected text after the returns"),
    ("foo(float x=1.2.3) -> Tensor", "invalid numeric default"),
    ("foo(int x=1.5) -> Tensor", "a floating-point default for an argument of type int"),
    ("foo(bool b=[1]) -> Tensor", "a list default for an argument of type bool"),
    ("foo(Tensor self) -> (Tensor a,", "expected a type"),
    ("foo.(Tensor self) -> Tensor", "expected overload name"),
])
def test_malformed_schema_is_a_clear_error(text, what):
    with pytest.raises(ValueError, match="invalid schema") as e:
        VF._dispatch_testing_parse_schema(text)
    assert what in str(e.value)
    assert "column" in str(e.value)


def test_library_def_rejects_malformed_schema_and_conflicts():
    name = _fresh("badschema")
    with pytest.raises(ValueError, match="unknown type 'Tensr'"):
        VF._dispatch_testing_define(f"{name}(Tensr self) -> Tensor")
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    VF._dispatch_testing_define(f"{name}(Tensor  self)->Tensor")  # the same schema again: accepted
    with pytest.raises(RuntimeError, match="refusing to redefine"):
        VF._dispatch_testing_define(f"{name}(Tensor self, int k) -> Tensor")
    assert C._dispatch_schema(f"_test::{name}") == f"_test::{name}(Tensor self) -> Tensor"


# ---------------------------------------------------------------- typed registration

def test_typed_kernel_must_match_schema():
    name = _fresh("typed")
    op = f"_test::{name}"
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    VF._dispatch_testing_register_typed(op, "CPU", "unary")
    with pytest.raises(RuntimeError) as e:
        VF._dispatch_testing_register_typed(op, "Meta", "by_value")
    msg = str(e.value)
    assert op in msg and "k_by_value" in msg
    assert "at::TensorBase(at::TensorBase)" in msg  # the kernel's
    assert "at::TensorBase(const at::TensorBase&)" in msg  # the schema's
    with pytest.raises(RuntimeError, match=re.escape("at::TensorBase(const at::TensorBase&, const at::Scalar&)")):
        VF._dispatch_testing_register_typed(op, "CPU", "with_scalar")
    with pytest.raises(RuntimeError, match=re.escape("int64_t(const at::TensorBase&)")):
        VF._dispatch_testing_register_typed(op, "AutogradCPU", "int_return")
    # The failed registrations changed nothing: the matching kernel still runs.
    x = tl.tensor([1.0, 2.0])
    _trace()
    assert VF._dispatch_testing_call(op, x) is not None
    assert _trace() == ["typed:unary"]
    assert "k_by_value" not in C._dispatch_dump(op)


def test_typed_handle_must_match_schema():
    name = _fresh("handle")
    op = f"_test::{name}"
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    VF._dispatch_testing_typed_handle(op, "unary")
    with pytest.raises(RuntimeError, match=re.escape("typed handle has C++ signature int64_t(const at::TensorBase&)")):
        VF._dispatch_testing_typed_handle(op, "int_return")
    with pytest.raises(RuntimeError, match="at::TensorBase\\(at::TensorBase\\)"):
        VF._dispatch_testing_typed_handle(op, "by_value")


def test_schema_arriving_after_kernel_is_checked():
    name = _fresh("late_schema")
    op = f"_test::{name}"
    VF._dispatch_testing_register_typed(op, "CPU", "with_scalar")  # no schema yet: accepted
    with pytest.raises(RuntimeError) as e:
        VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    msg = str(e.value)
    assert op in msg and "k_with_scalar" in msg
    assert "at::TensorBase(const at::TensorBase&, const at::Scalar&)" in msg
    assert "requires at::TensorBase(const at::TensorBase&)" in msg
    with pytest.raises(ValueError, match="has no schema"):
        C._dispatch_schema(op)
    # A matching schema is accepted.
    VF._dispatch_testing_define(f"{name}(Tensor self, Scalar s) -> Tensor")
    assert C._dispatch_schema(op) == f"{op}(Tensor self, Scalar s) -> Tensor"


def test_schema_arriving_after_typed_handle_is_checked():
    name = _fresh("late_handle")
    op = f"_test::{name}"
    VF._dispatch_testing_typed_handle(op, "int_return")  # no schema yet: accepted
    with pytest.raises(RuntimeError, match=re.escape("a typed handle has C++ signature int64_t(const at::TensorBase&)")):
        VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    VF._dispatch_testing_define(f"{name}(Tensor self) -> int")
    assert C._dispatch_schema(op) == f"{op}(Tensor self) -> int"


def test_schemaless_typed_kernels_must_agree():
    op = "_test::" + _fresh("schemaless")
    VF._dispatch_testing_register_typed(op, "CPU", "unary")
    with pytest.raises(RuntimeError, match="registered earlier"):
        VF._dispatch_testing_register_typed(op, "Meta", "by_value")
    with pytest.raises(RuntimeError, match="registered earlier"):
        VF._dispatch_testing_typed_handle(op, "int_return")


# ---------------------------------------------------------------- concurrency

def test_registration_racing_with_calls():
    name = _fresh("stress")
    op = f"_test::{name}"
    VF._dispatch_testing_define(f"{name}(Tensor self) -> int")
    x = tl.tensor([1.0])
    got_a, got_b, other, cycles = VF._dispatch_testing_stress(op, x, 2, 100)
    # Every cycle saw callers switch to kernel A and back to B, and every call
    # ran one of the two kernels.
    assert cycles == 100
    assert other == 0
    assert got_a > 0 and got_b > 0
    # After the last deregistration the permanent kernel B is what remains.
    assert "stress A" not in C._dispatch_dump_table(op)
    assert "CPU: stress B [kernel]" in C._dispatch_dump_table(op)


def test_python_threads_call_while_registering():
    name = _fresh("pystress")
    op = f"_test::{name}"
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    VF._dispatch_testing_register(op, "CPU", "unboxed")
    x = tl.tensor([3.0])
    errors = []
    stop = threading.Event()

    def caller():
        try:
            while not stop.is_set():
                assert VF._dispatch_testing_call(op, x).tolist() == [3.0]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=caller) for _ in range(2)]
    for t in threads:
        t.start()
    for i in range(200):
        VF._dispatch_testing_register(op, "AutogradCPU", "boxed_redispatch")
        VF._dispatch_testing_deregister(op, "AutogradCPU")
    stop.set()
    for t in threads:
        t.join()
    _trace()
    assert errors == []


# ---------------------------------------------------------------- handles

def test_scoped_library_restores_previous_kernel():
    name = _fresh("scoped")
    op = f"_test::{name}"
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    VF._dispatch_testing_register(op, "CPU", "boxed")
    x = tl.tensor([1.0])
    _trace()
    VF._dispatch_testing_call(op, x)
    assert _trace() == ["CPU"]
    assert VF._dispatch_testing_scoped_library("s1", "impl", name) == 1
    VF._dispatch_testing_call(op, x, True)
    assert _trace() == ["s1"]
    VF._dispatch_testing_scoped_library("s2", "impl", name)
    VF._dispatch_testing_call(op, x)
    assert _trace() == ["s2"]
    VF._dispatch_testing_scoped_library("s1", "destroy", "")  # the older one goes: s2 still wins
    VF._dispatch_testing_call(op, x)
    assert _trace() == ["s2"]
    VF._dispatch_testing_scoped_library("s2", "destroy", "")
    VF._dispatch_testing_call(op, x)
    assert _trace() == ["CPU"]
    assert "scoped s" not in C._dispatch_dump(op)


def test_scoped_library_removes_its_schema():
    name = _fresh("scoped_def")
    tag = _fresh("tag")
    VF._dispatch_testing_scoped_library(tag, "def", f"{name}(Tensor self, int k=2) -> Tensor")
    assert C._dispatch_schema(f"_test::{name}") == f"_test::{name}(Tensor self, int k=2) -> Tensor"
    VF._dispatch_testing_scoped_library(tag, "destroy", "")
    with pytest.raises(ValueError, match="has no schema"):
        C._dispatch_schema(f"_test::{name}")
    # Defined again, differently, after the unload: fine.
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    assert C._dispatch_schema(f"_test::{name}") == f"_test::{name}(Tensor self) -> Tensor"


# ---------------------------------------------------------------- TL_LIBRARY in several files

def test_library_macros_in_several_files():
    x = tl.tensor([1.0, -2.0])
    for op, factor in (("first", 3), ("second", 5), ("third", 7)):
        r = VF._dispatch_testing_call(f"_test_multi::{op}", x)
        assert r.tolist() == [factor * 1.0, factor * -2.0]
        assert C._dispatch_schema(f"_test_multi::{op}") == f"_test_multi::{op}(Tensor self) -> Tensor"


# ---------------------------------------------------------------- late Python bindings

def test_bindings_added_after_init():
    name = _fresh("late_op")
    op = f"_test::{name}"
    fname = "_late_" + name
    VF._dispatch_testing_define(f"{name}(Tensor self) -> Tensor")
    VF._dispatch_testing_register(op, "CPU", "unboxed")
    x = tl.tensor([4.0, 5.0])
    assert not hasattr(VF, fname)
    assert not hasattr(x, fname)  # looked up once, so the type's attribute cache holds the miss
    VF._dispatch_testing_add_late(VF, fname, op)
    _trace()
    assert getattr(VF, fname)(x).tolist() == [4.0, 5.0]
    assert getattr(x, fname)().tolist() == [4.0, 5.0]
    assert _trace() == ["unboxed:CPU", "unboxed:CPU"]
    assert getattr(tl.zeros(1), fname)().tolist() == [0.0]


# ---------------------------------------------------------------- key layout

def _keys():
    return VF._dispatch_testing_keys()


def test_every_key_name_round_trips():
    keys = _keys()
    names = [k[0] for k in keys]
    assert len(names) == len(set(names))
    for name, value, printed, is_alias, bits in keys:
        assert printed == name
        if not is_alias:
            assert C._dispatch_key_bit(name) == bits == 1 << value
    for n in ("CPU", "AutogradCPU", "AutocastCUDA", "Python", "Meta", "PrivateUse1", "AutogradPrivateUse1",
              "Autograd", "Autocast", "CompositeImplicitAutograd", "CompositeExplicitAutograd"):
        assert n in names
    with pytest.raises(ValueError, match="unknown dispatch key 'Bogus'"):
        VF._dispatch_testing_register("aten::add.Tensor", "Bogus", "boxed")
    # Runtime keys fit the 64-bit key set.
    assert max(v for _, v, _, a, _ in keys if not a) < 64


def test_priority_order_per_backend():
    bit = C._dispatch_key_bit
    backends = ("CPU", "CUDA", "Meta", "PrivateUse1")
    for b in backends:
        assert bit("Autocast" + b) > bit("Autograd" + b) > bit(b)
        assert bit("Python") > bit("Autocast" + b)
    # Every autocast key above every autograd key above every dense key.
    assert min(bit("Autograd" + b) for b in backends) > max(bit(b) for b in backends)
    assert min(bit("Autocast" + b) for b in backends) > max(bit("Autograd" + b) for b in backends)


def test_alias_expansion():
    keys = {k[0]: k for k in _keys()}
    bit = C._dispatch_key_bit
    backends = ("CPU", "CUDA", "Meta", "PrivateUse1")
    dense = sum(bit(b) for b in backends)
    autograd = sum(bit("Autograd" + b) for b in backends)
    assert keys["Autograd"][4] == autograd
    assert keys["Autocast"][4] == sum(bit("Autocast" + b) for b in backends)
    assert keys["CompositeExplicitAutograd"][4] == dense
    assert keys["CompositeImplicitAutograd"][4] == dense | autograd
