"""torchlike.library and torchlike.ops: operators by name through the
dispatcher's boxed path, Python kernels on dispatch keys, custom_op with
inferred schemas, fake (Meta), autograd and autocast registrations, opcheck,
and the error paths (redefinition, bad schemas, undefined ops, kernels that
return the wrong thing)."""
import itertools
import typing

import numpy as np
import pytest

import torchlike as tl
import torchlike.library as L
from torchlike import Tensor

_counter = itertools.count()


def fresh_ns():
    """A namespace no other test uses (registrations are process-wide)."""
    return f"tlt{next(_counter)}"


# ---------------------------------------------------------------- torchlike.ops

def test_builtin_ops_by_name():
    a, b = tl.tensor([1.0, 2.0, 3.0]), tl.tensor([10.0, 20.0, 30.0])
    add = tl.ops.aten.add.Tensor
    assert repr(add) == "aten.add.Tensor" and add.name == "aten::add.Tensor" and add.namespace == "aten"
    assert add._schema == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    np.testing.assert_array_equal(add(a, b).numpy(), [11, 22, 33])
    np.testing.assert_array_equal(add(a, b, alpha=2).numpy(), [21, 42, 63])
    np.testing.assert_array_equal(add(a, 1).numpy(), [2, 3, 4])  # a number where a Tensor goes
    assert tl.ops.aten.add(a, b).tolist() == [11, 22, 33]  # the packet picks the overload
    assert "Tensor" in tl.ops.aten.add.overloads()
    values, indices = tl.ops.aten.max.dim(tl.tensor([[1.0, 5.0], [3.0, 2.0]]), 1)
    assert values.tolist() == [5.0, 3.0] and indices.tolist() == [1, 0]
    z = tl.ops.aten.zeros.default([2, 3], dtype=tl.int64)
    assert z.dtype == tl.int64 and tuple(z.shape) == (2, 3)
    c = tl.ops.aten.cat.default([a, b])
    assert c.tolist() == [1, 2, 3, 10, 20, 30]
    s = tl.ops.aten.sum.dim_IntList(tl.ones(2, 3), [1], keepdim=True)
    assert tuple(s.shape) == (2, 1) and s.flatten().tolist() == [3.0, 3.0]
    # out= overloads: `out` is keyword-only in the schema and first on a boxed stack
    o = tl.empty(3)
    r = tl.ops.aten.add.out(a, b, alpha=2, out=o)
    assert r is o and o.tolist() == [21.0, 42.0, 63.0]
    assert tl.ops.aten.mul.out(a, b, out=o).tolist() == [10.0, 40.0, 90.0]
    with pytest.raises(TypeError, match="missing required argument 'out'"):
        tl.ops.aten.mul.out(a, b)


def test_builtin_ops_by_name_record_autograd():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = tl.ops.aten.mul.Tensor(x, x)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("call, exc, match", [
    (lambda: tl.ops.aten.add.Tensor(tl.ones(1)), TypeError, "missing required argument 'other'"),
    (lambda: tl.ops.aten.add.Tensor(tl.ones(1), "x"), TypeError, "'other' to be of type Tensor but got str"),
    (lambda: tl.ops.aten.add.Tensor(tl.ones(1), tl.ones(1), beta=2), TypeError, "unexpected keyword argument 'beta'"),
    (lambda: tl.ops.aten.add.Tensor(tl.ones(1), tl.ones(1), 2), TypeError, "takes 2 positional arguments"),
    (lambda: tl.ops.aten.add.Tensor(tl.ones(1), tl.ones(1), other=tl.ones(1)), TypeError, "multiple values"),
    (lambda: tl.ops.aten.add.nosuchoverload, AttributeError, "no overload name 'nosuchoverload'"),
    (lambda: tl.ops.aten.nosuchop_xyz, AttributeError, "nosuchop_xyz"),
    (lambda: tl.ops.aten.add(tl.ones(1), "x"), TypeError, "no overload matches"),
    (lambda: tl.ops.aten.add.Tensor(tl.ones(2), tl.ones(3)), RuntimeError, "size"),
])
def test_ops_by_name_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------------------------------------------------------------- Library

def test_define_impl_call_and_destroy():
    ns = fresh_ns()
    lib = L.Library(ns, "DEF")
    assert lib.define("scale(Tensor x, *, float alpha=2.0) -> Tensor") == "scale"
    lib.impl("scale", lambda x, alpha: x * alpha, "CPU")
    op = getattr(tl.ops, ns).scale.default
    assert op(tl.ones(2)).tolist() == [2.0, 2.0] and op(tl.ones(2), alpha=3.0).tolist() == [3.0, 3.0]
    assert op._schema == f"{ns}::scale(Tensor x, *, float alpha=2.) -> Tensor"
    with pytest.raises(RuntimeError, match="registered with a single call to def"):
        lib.define("scale(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match="invalid schema"):
        lib.define("broken(Tensor x -> Tensor")
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
        L.Library(ns, "DEF")
    with pytest.raises(ValueError, match="Unsupported kind"):
        L.Library(ns, "WRONG")
    lib._destroy()
    with pytest.raises(RuntimeError, match="schema was removed"):
        op(tl.ones(2))
    L.Library(ns, "DEF")._destroy()  # the namespace is free again


def test_python_kernels_sit_on_their_dispatch_key():
    ns = fresh_ns()
    lib = L.Library(ns, "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    seen = []
    lib.impl("twice", lambda x: (seen.append("cpu"), x * 2)[1], "CPU")
    lib.impl("twice", lambda x: (seen.append("meta"), tl.empty_like(x))[1], "Meta")
    op = getattr(tl.ops, ns).twice.default
    assert op(tl.ones(3)).tolist() == [2.0, 2.0, 2.0]
    m = op(tl.empty(4, 5, device="meta"))
    assert m.device.type == "meta" and tuple(m.shape) == (4, 5)
    assert seen == ["cpu", "meta"]
    # with_keyset=True: the kernel sees the dispatch key set's bits first.
    lib2 = L.Library(ns, "FRAGMENT")
    lib2.define("ks(Tensor x) -> Tensor")
    got = []
    lib2.impl("ks", lambda keyset, x: (got.append(keyset), x.clone())[1], "CPU", with_keyset=True)
    getattr(tl.ops, ns).ks.default(tl.ones(1))
    assert got and got[0] & tl._C._dispatch_key_bit("CPU")
    lib2._destroy()
    lib._destroy()


def test_python_kernel_errors_propagate_unchanged():
    ns = fresh_ns()
    lib = L.Library(ns, "DEF")
    lib.define("boom(Tensor x) -> Tensor")
    lib.define("wrong(Tensor x) -> Tensor")
    lib.define("pair(Tensor x) -> (Tensor, Tensor)")

    class MyError(Exception):
        pass

    def boom(x):
        raise MyError("kernel failed")
    lib.impl("boom", boom, "CPU")
    lib.impl("wrong", lambda x: 3, "CPU")
    lib.impl("pair", lambda x: x, "CPU")
    ops = getattr(tl.ops, ns)
    with pytest.raises(MyError, match="kernel failed"):
        ops.boom(tl.ones(1))
    with pytest.raises(TypeError, match="to be of type Tensor but got int"):
        ops.wrong(tl.ones(1))
    with pytest.raises(TypeError, match="must return a tuple of 2 values"):
        ops.pair(tl.ones(1))
    lib._destroy()


def test_impl_of_an_undefined_op_fails_when_called():
    ns = fresh_ns()
    lib = L.Library(ns, "IMPL")
    lib.impl("nothere", lambda x: x, "CPU")
    with pytest.raises(AttributeError, match="nothere"):
        getattr(tl.ops, ns).nothere(tl.ones(1))
    with pytest.raises(RuntimeError, match="IMPL library cannot define"):
        lib.define("f(Tensor x) -> Tensor")
    lib._destroy()


def test_fallthrough_and_fallback():
    ns = fresh_ns()
    lib = L.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x + 1000, "AutogradCPU")
    lib.impl("f", lambda x: x + 100, "CPU")
    f = getattr(tl.ops, ns).f.default
    assert f(tl.zeros(1)).item() == 1000
    lib2 = L.Library(ns, "IMPL")
    lib2.impl("f", L.fallthrough_kernel, "AutogradCPU")  # skip AutogradCPU: the CPU kernel runs
    assert f(tl.zeros(1)).item() == 100
    lib2._destroy()
    assert f(tl.zeros(1)).item() == 1000
    with pytest.raises(NotImplementedError):
        L.fallthrough_kernel()
    # A boxed fallback on Meta serves every operator without a Meta kernel.
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x * 3, "CPU")
    calls = []
    fb = L.Library("_", "IMPL")

    def meta_fallback(op, *args):
        calls.append(op.name)
        return tl.empty_like(args[0])
    fb.fallback(meta_fallback, "Meta")
    out = getattr(tl.ops, ns).g.default(tl.empty(2, device="meta"))
    fb._destroy()
    assert out.device.type == "meta" and calls == [f"{ns}::g"]
    with pytest.raises(ValueError, match="namespace '_'"):
        lib.fallback(meta_fallback, "Meta")
    lib._destroy()


def test_python_key_fallback_sees_every_call_and_redispatches_below_itself():
    """A boxed fallback on the Python key (what a tracer or logging mode is):
    it gets every operator call with all arguments positionally, keyword-only
    ones included, and passes them on with _ops_redispatch."""
    py = tl._C._dispatch_key_bit("Python")
    seen = []

    def fallback(op, keyset, *args):
        seen.append(op.name)
        inc, exc = tl._C._dispatch_tls_get()
        tl._C._dispatch_tls_set(inc & ~py, exc)  # calls made by the kernel below are not seen again
        try:
            return tl._C._ops_redispatch(op._handle, keyset & ~py, args)
        finally:
            tl._C._dispatch_tls_set(inc, exc)
    fb = L.Library("_", "IMPL")
    fb.fallback(fallback, "Python", with_keyset=True)
    inc, exc = tl._C._dispatch_tls_get()
    tl._C._dispatch_tls_set(inc | py, exc)
    try:
        z = tl.zeros(2, 3, dtype=tl.float64)          # keyword-only dtype, passed on positionally
        y = tl.nn.functional.linear(tl.ones(2, 3), tl.ones(4, 3))
        # a value leaving for Python is an operator call too
        flag, value = bool(z.sum() == 0), y[0, 0].item()
    finally:
        tl._C._dispatch_tls_set(inc, exc)
        fb._destroy()
    assert z.dtype == tl.float64 and z.shape == (2, 3)
    assert y.tolist() == [[3.0] * 4] * 2
    assert flag is True and value == 3.0
    assert seen == ["aten::zeros", "aten::ones", "aten::ones", "aten::linear", "aten::sum", "aten::eq.Tensor",
                    "aten::_local_scalar_dense", "aten::select.int", "aten::select.int", "aten::_local_scalar_dense"]
    with pytest.raises(TypeError, match="takes 1 positional arguments but 2 were given"):
        tl.ops.aten.zeros.default([2], tl.float64)


def test_module_level_define_and_impl():
    ns = fresh_ns()
    L.define(f"{ns}::neg2", "(Tensor x) -> Tensor")

    @L.impl(f"{ns}::neg2", "cpu")
    def _(x):
        return -2 * x
    assert getattr(tl.ops, ns).neg2(tl.ones(2)).tolist() == [-2.0, -2.0]
    with pytest.raises(ValueError, match="ns::name"):
        L.define("noqualifier", "(Tensor x) -> Tensor")
    k = L.get_kernel(f"{ns}::neg2", "CPU")
    assert k(tl.ones(1)).item() == -2.0
    assert k.call_boxed(None, tl.ones(1)).item() == -2.0


def test_module_level_register_kernel_and_autograd_on_a_defined_op():
    """register_autograd / register_kernel for an operator custom_op did not
    make (defined with Library.define here, or in C++ by TORCH_LIBRARY)."""
    ns = fresh_ns()
    L.define(f"{ns}::scaled_mul", "(Tensor x, Tensor y, float alpha) -> Tensor")

    @L.register_kernel(f"{ns}::scaled_mul", "cpu")
    def _(x, y, alpha):
        return tl.tensor(x.detach().numpy() * y.detach().numpy() * alpha)  # opaque to autograd
    op = getattr(tl.ops, ns).scaled_mul
    x = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    y = tl.tensor([3.0, -1.0], dtype=tl.float64, requires_grad=True)
    assert op(x, y, 2.0).tolist() == [6.0, -4.0]

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1])
        ctx.alpha = inputs[2]

    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b * ctx.alpha, grad * a * ctx.alpha, None

    L.register_autograd(f"{ns}::scaled_mul", backward, setup_context=setup_context)
    out = op(x, y, 2.0)
    assert out.requires_grad
    out.sum().backward()
    assert x.grad.tolist() == [6.0, -2.0] and y.grad.tolist() == [2.0, 4.0]
    assert tl.autograd.gradcheck(lambda a, b: op(a, b, 0.5), (x.detach().requires_grad_(), y.detach().requires_grad_()))
    with tl.no_grad():
        assert not op(x, y, 1.0).requires_grad

    # one gradient per argument, or a clear error at backward
    L.define(f"{ns}::twice", "(Tensor x) -> Tensor")
    L.register_kernel(f"{ns}::twice", None, lambda x: x * 2)
    L.register_autograd(f"{ns}::twice", lambda ctx, g: (g * 2, None))
    with pytest.raises(RuntimeError, match="returned 2 gradients, but the operator has 1 arguments"):
        getattr(tl.ops, ns).twice(tl.ones(1, requires_grad=True)).sum().backward()
    with pytest.raises(TypeError, match="backward must be callable"):
        L.register_autograd(f"{ns}::twice", None)
    with pytest.raises(RuntimeError, match=f"there is no operator {ns}::missing"):
        L.register_autograd(f"{ns}::missing", lambda ctx, g: g)


# ---------------------------------------------------------------- infer_schema

def test_infer_schema():
    def f(x: Tensor, y: typing.Optional[Tensor], n: int, s: float = 1.0, b: bool = False, st: str = "a",
          d: typing.Optional[tl.dtype] = None, ts: list[Tensor] = None,
          sc: typing.Union[int, float, bool] = 2) -> tuple[Tensor, Tensor]: ...
    assert L.infer_schema(f, mutates_args=()) == ('(Tensor x, Tensor? y, SymInt n, float s=1.0, bool b=False, '
                                                 'str st="a", ScalarType? d=None, Tensor[] ts=None, Scalar sc=2) '
                                                 '-> (Tensor, Tensor)')

    def g(x: Tensor, out: Tensor) -> None: ...
    assert L.infer_schema(g, mutates_args={"out"}) == "(Tensor x, Tensor(a1!) out) -> ()"
    assert L.infer_schema(g, mutates_args={"out"}, op_name="foo") == "foo(Tensor x, Tensor(a1!) out) -> ()"
    assert L.infer_schema(g, mutates_args="unknown") == "(Tensor(a0!) x, Tensor(a1!) out) -> ()"

    def h(x: Tensor, n: typing.Optional[int] = None, dv: typing.Optional[tl.device] = None,
          li: list[int] = None) -> list[Tensor]: ...
    assert L.infer_schema(h, mutates_args=()) == "(Tensor x, SymInt? n=None, Device? dv=None, SymInt[] li=None) -> Tensor[]"

    def k(x: Tensor) -> int: ...
    assert L.infer_schema(k, mutates_args=()) == "(Tensor x) -> SymInt"
    with pytest.raises(ValueError, match="Parameter x must have a type annotation"):
        L.infer_schema(lambda x: x, mutates_args=())

    def bad(x: dict) -> Tensor: ...
    with pytest.raises(ValueError, match="Parameter x has unsupported type"):
        L.infer_schema(bad, mutates_args=())
    with pytest.raises(ValueError, match="were not found in the custom op's signature"):
        L.infer_schema(g, mutates_args={"zz"})

    def tup(x: Tensor, l: list[int] = (1, 2)) -> Tensor: ...
    with pytest.raises(ValueError, match="unsupported default value type"):
        L.infer_schema(tup, mutates_args=())


def test_infer_schema_matches_pytorch():
    torch = pytest.importorskip("torch")

    def f(x: Tensor, y: typing.Optional[Tensor], n: int, s: float = 1.0, b: bool = False,
          ts: list[Tensor] = None) -> tuple[Tensor, Tensor]: ...

    def ft(x: torch.Tensor, y: typing.Optional[torch.Tensor], n: int, s: float = 1.0, b: bool = False,
           ts: list[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]: ...
    assert L.infer_schema(f, mutates_args=()) == torch.library.infer_schema(ft, mutates_args=())


# ---------------------------------------------------------------- custom_op

def _numpy_sin_op(ns):
    @L.custom_op(f"{ns}::numpy_sin", mutates_args=())
    def numpy_sin(x: Tensor) -> Tensor:
        return tl.from_numpy(np.sin(x.numpy()))
    return numpy_sin


def test_custom_op_forward_fake_autograd_and_opcheck():
    ns = fresh_ns()
    op = _numpy_sin_op(ns)
    assert isinstance(op, L.CustomOpDef)
    assert getattr(tl.ops, ns).numpy_sin.default._schema == f"{ns}::numpy_sin(Tensor x) -> Tensor"
    x = tl.tensor([0.0, 0.5, 1.0], dtype=tl.float64)
    np.testing.assert_allclose(op(x).numpy(), np.sin(x.numpy()))
    # no fake yet: the Meta path says so, and opcheck names it
    with pytest.raises(NotImplementedError):
        op(tl.empty(2, device="meta"))
    with pytest.raises(L.OpCheckError, match="test_faketensor.*register_fake"):
        L.opcheck(op, (x,), test_utils="test_faketensor")
    op.register_fake(lambda x: tl.empty_like(x))
    assert op(tl.empty(2, 3, device="meta")).shape == (2, 3)
    # no autograd yet: outputs require grad, and backward says what is missing
    xg = x.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="Autograd has not been implemented for operator"):
        op(xg).sum().backward()

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * tl.from_numpy(np.cos(x.detach().numpy()))
    op.register_autograd(backward, setup_context=setup_context)
    xg = x.clone().requires_grad_()
    op(xg).sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), np.cos(x.numpy()))
    assert tl.autograd.gradcheck(op, (tl.rand(4, dtype=tl.float64, requires_grad=True),))
    assert L.opcheck(op, (tl.randn(5),)) == {"test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS",
                                            "test_faketensor": "SUCCESS"}
    # no grad needed: the autograd kernel is skipped
    with tl.no_grad():
        assert not op(xg).requires_grad


def test_custom_op_autocast_and_device_kernels():
    ns = fresh_ns()

    @L.custom_op(f"{ns}::mm", mutates_args=(), device_types="cpu")
    def mm(a: Tensor, b: Tensor) -> Tensor:
        return a @ b
    a, b = tl.randn(3, 4), tl.randn(4, 2)
    with tl.autocast("cpu", dtype=tl.bfloat16):
        assert mm(a, b).dtype == tl.bfloat16  # no policy: the body's matmul autocasts, as in PyTorch
    mm.register_autocast("cpu", tl.float64)
    with tl.autocast("cpu", dtype=tl.bfloat16):
        # the policy casts the inputs and runs the body with autocast off
        assert mm(a, b).dtype == tl.float64
    assert mm(a, b).dtype == tl.float32
    calls = []
    mm.register_kernel("cpu", lambda a, b: (calls.append(1), a @ b)[1])
    mm(a, b)
    assert calls == [1]
    with pytest.raises(ValueError, match="device_type must be"):
        mm.register_autocast("tpu", tl.float16)


def test_opcheck_catches_false_claims():
    ns = fresh_ns()

    @L.custom_op(f"{ns}::bad_fake", mutates_args=())
    def bad_fake(x: Tensor) -> Tensor:
        return x * 2
    bad_fake.register_fake(lambda x: tl.empty(x.shape[0] + 1, dtype=x.dtype, device=x.device))
    with pytest.raises(L.OpCheckError, match="fake implementation gives"):
        L.opcheck(bad_fake, (tl.ones(3),))
    assert isinstance(L.opcheck(bad_fake, (tl.ones(3),), raise_exception=False)["test_faketensor"], L.OpCheckError)

    @L.custom_op(f"{ns}::sneaky", mutates_args=())
    def sneaky(x: Tensor) -> Tensor:
        x.add_(1)
        return x.clone()
    with pytest.raises(L.OpCheckError, match="argument 'x' was mutated"):
        L.opcheck(sneaky, (tl.ones(3),), test_utils="test_schema")

    @L.custom_op(f"{ns}::honest", mutates_args={"x"})
    def honest(x: Tensor) -> None:
        x.add_(1)
    assert L.opcheck(honest, (tl.ones(3),), test_utils="test_schema") == {"test_schema": "SUCCESS"}

    @L.custom_op(f"{ns}::alias", mutates_args=())
    def alias(x: Tensor) -> Tensor:
        return x.view(-1)
    with pytest.raises(L.OpCheckError, match="aliases an input"):
        L.opcheck(alias, (tl.ones(3),), test_utils="test_schema")

    @L.custom_op(f"{ns}::wrong_count", mutates_args=())
    def wrong_count(x: Tensor) -> Tensor:
        return x * 1

    def two_grads(ctx, g):
        return g, g
    wrong_count.register_autograd(two_grads)
    with pytest.raises(L.OpCheckError, match="returned 2 gradients, but the operator has 1"):
        L.opcheck(wrong_count, (tl.ones(3),), test_utils="test_autograd_registration")
    with pytest.raises(ValueError, match="unknown test_utils"):
        L.opcheck(wrong_count, (tl.ones(3),), test_utils="test_everything")
    with pytest.raises(ValueError, match="not the packet"):
        L.opcheck(getattr(tl.ops, ns).wrong_count, (tl.ones(3),))


def test_custom_op_name_errors():
    with pytest.raises(ValueError, match="namespace::opname"):
        L.custom_op("noqualifier", mutates_args=())(lambda x: x)
    with pytest.raises(ValueError, match="overload"):
        L.custom_op("ns::a.b", mutates_args=())(lambda x: x)


def test_register_fake_get_ctx_and_impl_abstract():
    ns = fresh_ns()
    L.define(f"{ns}::nz", "(Tensor x) -> Tensor")
    L.impl(f"{ns}::nz", "cpu", lambda x: x.nonzero())

    def fake(x):
        ctx = L.get_ctx()
        return tl.empty(ctx.new_dynamic_size(), x.dim(), dtype=tl.int64, device=x.device)
    with pytest.warns(DeprecationWarning, match="register_fake"):
        L.impl_abstract(f"{ns}::nz", fake)
    with pytest.raises(NotImplementedError, match="new_dynamic_size"):
        getattr(tl.ops, ns).nz(tl.empty(3, device="meta"))
    with pytest.raises(RuntimeError, match="inside a fake implementation"):
        L.get_ctx()
    assert getattr(tl.ops, ns).nz(tl.tensor([0.0, 1.0, 2.0])).flatten().tolist() == [1, 2]


def test_library_names_cover_pytorchs():
    torch = pytest.importorskip("torch")
    for name in torch.library.__all__:
        if name in ("register_torch_dispatch", "register_vmap", "triton_op", "wrap_triton"):
            continue  # need torch_dispatch subclasses, vmap or Triton, which torchlike does not have
        assert hasattr(L, name), name
