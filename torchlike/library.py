"""torchlike.library: define operators and register kernels from Python.

Two levels, as in PyTorch:

* `Library(ns, "DEF" | "IMPL" | "FRAGMENT")` with `define(schema)`,
  `impl(name, fn, dispatch_key)` and `fallback(fn, dispatch_key)`: a Python
  function becomes a boxed kernel on the dispatch key it names (CPU, CUDA,
  Meta, Autograd, AutocastCPU, CompositeImplicitAutograd, ...), called the
  way C++ kernels are, so autograd, autocast and tracing see it. Destroying
  the Library (or the interpreter exiting) removes what it registered.
* `custom_op("ns::name", mutates_args=...)`: the schema inferred from type
  hints, plus `register_kernel(device)`, `register_fake` (the Meta path),
  `register_autograd(backward, setup_context=...)` and `register_autocast`.
  `opcheck(op, args)` tests such an operator's claims.

Every operator is callable as `torchlike.ops.<ns>.<name>.<overload>`.
"""
import collections.abc
import contextlib
import functools
import inspect
import threading
import typing
import warnings
import weakref

import torchlike
from torchlike import _C
from torchlike._op_namespace import OpOverload, OpOverloadPacket, ops

__all__ = [
    "Library", "impl", "define", "fallthrough_kernel", "impl_abstract", "register_autocast", "register_fake",
    "get_ctx", "get_kernel", "custom_op", "infer_schema", "opcheck", "CustomOpDef", "OpCheckError",
    "register_autograd", "register_kernel",
]

_DEF_NAMESPACES = set()       # namespaces a "DEF" library owns (one each, as TORCH_LIBRARY)
_keep_alive = []               # libraries made by the module-level helpers (define/impl/register_*)

# Device-type names (torchlike.library.impl("ns::op", "cpu")) to dispatch keys.
_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "privateuseone": "PrivateUse1",
                "default": "CompositeExplicitAutograd"}


def _device_key(name):
    key = _DEVICE_KEYS.get(name)
    if key is not None:
        return key
    if name == _C.device("privateuseone").type:  # a renamed PrivateUse1 backend ("npu")
        return "PrivateUse1"
    return name  # a dispatch key name as is (CPU, AutogradCPU, CompositeImplicitAutograd, ...)


def fallthrough_kernel():
    """Registered with Library.impl, makes calls skip that dispatch key for the operator."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


class Library:
    """A set of registrations in namespace `ns`.

    kind "DEF" may define operators and is the only DEF library of its
    namespace; "FRAGMENT" may define more in a namespace defined elsewhere;
    "IMPL" only registers kernels. `dispatch_key` is the default key of impl()."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if not isinstance(ns, str) or not ns.isidentifier():
            raise ValueError(f"Library: the namespace must be an identifier, got {ns!r}")
        if kind == "DEF":
            if ns in _DEF_NAMESPACES or (ns == "aten"):
                raise RuntimeError(f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                                   f"please put all of your definitions in a single TORCH_LIBRARY block. If you "
                                   f"were trying to specify implementations, consider using TORCH_LIBRARY_IMPL "
                                   f"(which can be duplicated).")
            _DEF_NAMESPACES.add(ns)
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._registrations = []
        self._op_defs = set()
        self._finalizer = weakref.finalize(self, Library._undo, self._registrations, self._op_defs, ns, kind)

    @staticmethod
    def _undo(registrations, op_defs, ns, kind):
        while registrations:
            _C._library_remove(registrations.pop())
        op_defs.clear()
        if kind == "DEF":
            _DEF_NAMESPACES.discard(ns)

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _qualify(self, name):
        return name if "::" in name else f"{self.ns}::{name}"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Declares an operator: "name.overload(Type arg, ...) -> Ret" (the
        namespace is this library's). Returns the operator's name."""
        if self.kind == "IMPL":
            raise RuntimeError("define: an IMPL library cannot define operators (use DEF or FRAGMENT)")
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        text = schema if "::" in schema.split("(")[0] else f"{self.ns}::{schema}"
        rid = _C._library_define(text)
        self._registrations.append(rid)
        name = text.split("(")[0].strip()
        self._op_defs.add(name)
        return name.split("::", 1)[1]

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=True):
        """Registers `fn` as the kernel of operator `op_name` (name, name.overload,
        or an OpOverload) for `dispatch_key` (default: this library's, else
        CompositeImplicitAutograd). fn gets the operator's arguments, in schema
        order (with_keyset=True: the dispatch key set's bits first)."""
        if isinstance(op_name, OpOverload):
            qual = op_name.name
        elif isinstance(op_name, str):
            qual = self._qualify(op_name)
        else:
            raise RuntimeError(f"impl: expected the operator's name or an OpOverload, got {type(op_name).__name__}")
        if self.kind == "DEF" and self.ns != qual.split("::")[0]:
            raise ValueError(f"impl: this library's namespace is {self.ns}, not {qual.split('::')[0]}")
        key = _device_key(dispatch_key or self.dispatch_key or "CompositeImplicitAutograd")
        if fn is fallthrough_kernel:
            rid = _C._library_impl_fallthrough(qual, key)
        else:
            if not callable(fn):
                raise TypeError(f"impl: the kernel must be callable, got {type(fn).__name__}")
            rid = _C._library_impl(qual, key, fn, bool(with_keyset))
        self._registrations.append(rid)

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        """Registers `fn` for every operator on `dispatch_key` (a boxed
        fallback). fn(op, *args) gets the OpOverload first (with_keyset=True:
        fn(op, keyset_bits, *args))."""
        if self.kind != "IMPL" or self.ns != "_":
            raise ValueError(f"fallback: only an IMPL library of namespace '_' registers fallbacks "
                             f"(got {self.kind} library of namespace '{self.ns}')")
        key = _device_key(dispatch_key or self.dispatch_key)
        if not key:
            raise ValueError("fallback: a dispatch key is needed")

        def boxed(op_name, keyset, *args):
            ns, rest = op_name.split("::", 1)
            name, _, overload = rest.partition(".")
            op = getattr(getattr(getattr(ops, ns), name), overload or "default")
            return fn(op, keyset, *args) if with_keyset else fn(op, *args)

        self._registrations.append(_C._library_fallback(key, boxed))

    def _destroy(self):
        self._finalizer()


def _lib_for(qualname, lib):
    if lib is not None:
        return lib
    lib = Library(qualname.split("::")[0], "FRAGMENT")
    _keep_alive.append(lib)
    return lib


def _qualname_of(op):
    if isinstance(op, CustomOpDef):
        return op._qualname
    if isinstance(op, OpOverload):
        return op.name
    if isinstance(op, OpOverloadPacket):
        return f"{op._ns}::{op._name}"
    if isinstance(op, str):
        if "::" not in op:
            raise ValueError(f"expected the operator's qualified name 'ns::name', got {op!r}")
        return op
    raise TypeError(f"expected an operator (a name, OpOverload or CustomOpDef), got {type(op).__name__}")


def define(qualname, schema, *, lib=None, tags=()):
    """Defines operator `qualname` ("ns::name") with `schema` "(Tensor x) -> Tensor"."""
    if not isinstance(qualname, str) or "::" not in qualname:
        raise ValueError(f"define(qualname, schema): expected qualname of the form 'ns::name', got {qualname!r}")
    ns, name = qualname.split("::", 1)
    lib = _lib_for(qualname, lib)
    lib.define(name + schema, tags=tags)


def impl(qualname, types, func=None, *, lib=None):
    """Registers `func` as operator `qualname`'s kernel for device type(s)
    `types` ("cpu", "cuda", ... or a dispatch key name). Works as a decorator."""
    if isinstance(types, str):
        types = (types,)
    qual = _qualname_of(qualname)

    def register(fn):
        target = _lib_for(qual, lib)
        for t in types:
            target.impl(qual, fn, _device_key(t))
        return fn

    return register if func is None else register(func)


# ---------------------------------------------------------------- fake (Meta) implementations

class FakeImplCtx:
    """What get_ctx() returns inside a fake implementation."""

    def new_dynamic_size(self, *, min=0, max=None):
        raise NotImplementedError("new_dynamic_size: torchlike's meta tensors have concrete sizes; an operator "
                                  "whose output size depends on its input values cannot run on the meta device")

    create_unbacked_symint = new_dynamic_size


_fake_ctx = threading.local()


def get_ctx():
    """The context of the fake implementation now running (for new_dynamic_size)."""
    ctx = getattr(_fake_ctx, "ctx", None)
    if ctx is None:
        raise RuntimeError("torchlike.library.get_ctx() may only be called inside a fake implementation")
    return ctx


def _fake_kernel(fn):
    def kernel(*args):
        prev = getattr(_fake_ctx, "ctx", None)
        _fake_ctx.ctx = FakeImplCtx()
        try:
            return fn(*args)
        finally:
            _fake_ctx.ctx = prev
    return kernel


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Registers `func` as the operator's fake implementation: given meta
    tensors, it returns meta tensors of the output's shapes and dtypes (it runs
    on the Meta key, for shape inference and opcheck)."""
    qual = _qualname_of(op)

    def register(fn):
        if isinstance(op, CustomOpDef):
            op.register_fake(fn)
        else:
            _lib_for(qual, lib).impl(qual, _fake_kernel(fn), "Meta")
        return fn

    return register if func is None else register(func)


def impl_abstract(qualname, func=None, *, lib=None, _stacklevel=1):
    """Deprecated spelling of register_fake."""
    warnings.warn("torch.library.impl_abstract was renamed to torch.library.register_fake. Please use that "
                  "instead; we will remove torch.library.impl_abstract in a future version of PyTorch.",
                  DeprecationWarning, stacklevel=2)
    return register_fake(qualname, func, lib=lib, _stacklevel=_stacklevel + 1)


# ---------------------------------------------------------------- autocast

def _cast_floating(x, dtype):
    if isinstance(x, torchlike.Tensor) and x.is_floating_point():
        return x.to(dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_cast_floating(e, dtype) for e in x)
    return x


def _autocast_kernel(qual, device_type, cast_inputs):
    packet_name = qual

    def kernel(*args):
        op = _overload(packet_name)
        with torchlike.autocast(device_type, enabled=False):
            return op(*(_cast_floating(a, cast_inputs) for a in args))
    return kernel


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    """Under autocast on `device_type`, the operator's floating-point inputs are
    cast to `cast_inputs` and it runs with autocast off."""
    if device_type not in ("cpu", "cuda"):
        raise ValueError(f"register_autocast: device_type must be 'cpu' or 'cuda', got {device_type!r}")
    qual = _qualname_of(op)
    key = "AutocastCPU" if device_type == "cpu" else "AutocastCUDA"
    _lib_for(qual, lib).impl(qual, _autocast_kernel(qual, device_type, cast_inputs), key)


def get_kernel(op, dispatch_key):
    """The kernel the operator runs for `dispatch_key`, callable as
    k.call_boxed(keyset, *args, **kwargs) or k(*args)."""
    ovl = _overload(_qualname_of(op))
    bit = _C._dispatch_key_bit(dispatch_key if isinstance(dispatch_key, str) else str(dispatch_key))

    class _Kernel:
        def call_boxed(self, keyset, *args, **kwargs):
            if kwargs:
                raise TypeError("get_kernel(...).call_boxed: pass arguments positionally")
            return _C._ops_redispatch(ovl._handle, bit, args)

        def __call__(self, *args):
            return _C._ops_redispatch(ovl._handle, bit, args)

        def __repr__(self):
            return f"<kernel of {ovl.name} for {dispatch_key}>"

    return _Kernel()


def _overload(qual):
    ns, rest = qual.split("::", 1)
    name, _, overload = rest.partition(".")
    return getattr(getattr(getattr(ops, ns), name), overload or "default")


# ---------------------------------------------------------------- schema inference

def _unwrap_optional(t):
    if typing.get_origin(t) is typing.Union:
        args = [a for a in typing.get_args(t) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(t)) == 2:
            return args[0], True
    return t, False


def _is_sequence_of(t):
    origin = typing.get_origin(t)
    if origin in (list, collections.abc.Sequence, typing.Sequence, typing.List):
        args = typing.get_args(t)
        return args[0] if args else None
    return None


def _scalar_union(t):
    if typing.get_origin(t) is typing.Union or type(t).__name__ == "UnionType":
        members = set(typing.get_args(t)) - {type(None)}
        return members <= {int, float, bool} and len(members) > 1
    return False


def _type_to_schema(t):
    """The schema spelling of a parameter annotation, or None when unsupported."""
    inner, optional = _unwrap_optional(t)
    if not optional and (typing.get_origin(t) is typing.Union or type(t).__name__ == "UnionType") \
            and type(None) in typing.get_args(t) and _scalar_union(t):
        return "Scalar?"
    suffix = "?" if optional else ""
    if inner is torchlike.Tensor:
        return "Tensor" + suffix
    if inner is int:
        return "SymInt" + suffix
    if inner is float:
        return "float" + suffix
    if inner is bool:
        return "bool" + suffix
    if inner is str:
        return "str" + suffix
    if inner is torchlike.dtype:
        return "ScalarType" + suffix
    if inner is torchlike.device:
        return "Device" + suffix
    if _scalar_union(inner):
        return "Scalar" + suffix
    elem = _is_sequence_of(inner)
    if elem is not None:
        e_inner, e_opt = _unwrap_optional(elem)
        if e_inner is torchlike.Tensor and not optional:
            return "Tensor?[]" if e_opt else "Tensor[]"
        if e_opt:
            return None
        base = {int: "SymInt", float: "float", bool: "bool"}.get(e_inner)
        if base is None and _scalar_union(e_inner):
            base = "Scalar"
        return None if base is None else base + "[]" + suffix
    return None


def _return_to_schema(t):
    if t is None or t is type(None):
        return "()"
    if t is torchlike.Tensor:
        return "Tensor"
    if typing.get_origin(t) is tuple:
        parts = [_return_to_schema(a) for a in typing.get_args(t)]
        if any(p is None or p == "()" for p in parts):
            return None
        return "(" + ", ".join(parts) + ")"
    simple = {int: "SymInt", float: "float", bool: "bool"}.get(t)
    if simple:
        return simple
    elem = _is_sequence_of(t)
    if elem is torchlike.Tensor:
        return "Tensor[]"
    return None


def _default_text(v):
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, torchlike.dtype):
        return str(v).split(".")[-1]
    return None


def infer_schema(prototype_function, /, *, mutates_args, op_name=None, tags=()):
    """The operator schema of a type-annotated function: "(Tensor x, SymInt n=2) -> Tensor"
    (with op_name: "name(...) -> ..."). Arguments named in mutates_args are
    written by the operator ("unknown": all tensor arguments may be)."""
    sig = inspect.signature(prototype_function)

    def fail(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    hints = typing.get_type_hints(prototype_function) if hasattr(prototype_function, "__annotations__") else {}
    params = []
    seen_kwonly = False
    alias = 0
    mutated_names = set()
    if mutates_args != "unknown":
        if isinstance(mutates_args, str) or not isinstance(mutates_args, collections.abc.Iterable):
            raise ValueError("mutates_args must be an iterable of argument names, or the string 'unknown'")
        mutated_names = set(mutates_args)
        missing = mutated_names - set(sig.parameters)
        if missing:
            fail(f"{missing} in mutates_args were not found in the custom op's signature. mutates_args should "
                 f"contain the names of all args that the custom op mutates, or just the string 'unknown' if "
                 f"you don't know.")
    for idx, (name, p) in enumerate(sig.parameters.items()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            fail("We do not support *args or **kwargs.")
        if p.annotation is inspect.Parameter.empty:
            fail(f"Parameter {name} must have a type annotation.")
        ann = hints.get(name, p.annotation)
        st = _type_to_schema(ann)
        if st is None:
            fail(f"Parameter {name} has unsupported type {ann}.")
        if p.kind == p.KEYWORD_ONLY and not seen_kwonly:
            params.append("*")
            seen_kwonly = True
        is_mutated = name in mutated_names or (mutates_args == "unknown" and st.startswith("Tensor"))
        if is_mutated:
            if not st.startswith("Tensor"):
                fail(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can be "
                     f"mutated")
            st = st.replace("Tensor", f"Tensor(a{idx}!)", 1)
        text = f"{st} {name}"
        if p.default is not inspect.Parameter.empty:
            d = _default_text(p.default)
            if d is None:
                fail(f"Parameter {name} has an unsupported default value type {type(p.default)}. Please file an "
                     f"issue on GitHub so we can prioritize this.")
            text += "=" + d
        params.append(text)
        alias += 1
    ret_ann = hints.get("return", sig.return_annotation)
    if ret_ann is inspect.Signature.empty:
        fail("No return type annotation was provided. Please add one.")
    ret = _return_to_schema(ret_ann)
    if ret is None:
        fail(f"Return has unsupported type {ret_ann}.")
    schema = f"({', '.join(params)}) -> {ret}"
    return (op_name + schema) if op_name is not None else schema


# ---------------------------------------------------------------- custom_op

class _RegisteredAutograd(torchlike.autograd.Function):
    """The Autograd-key kernel register_autograd gives an operator (a
    custom_op, one defined with Library.define, or one from C++'s
    TORCH_LIBRARY): forward runs the operator below autograd, backward is the
    user's."""

    @staticmethod
    def forward(ctx, entry, *args):
        out = entry.opoverload(*args)
        ctx._entry = entry
        if entry.setup_context is not None:
            entry.setup_context(ctx, args, out)
        ctx._nargs = len(args)
        return out

    @staticmethod
    def backward(ctx, *grads):
        entry = ctx._entry
        result = entry.backward(ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != ctx._nargs:
            raise RuntimeError(f"{entry.qualname}: the backward passed to register_autograd returned {len(result)} "
                               f"gradients, but the operator has {ctx._nargs} arguments; return one (or None) per "
                               f"argument")
        return (None,) + result


class _AutogradEntry:
    def __init__(self, qualname, backward, setup_context):
        self.qualname = qualname
        self.opoverload = _overload(qualname)
        self.backward = backward
        self.setup_context = setup_context

    def __call__(self, *args):
        return _RegisteredAutograd.apply(self, *args)


class _NoAutograd(torchlike.autograd.Function):
    """A custom op without register_autograd, called on inputs that require
    grad: the output requires grad, and backward says what is missing."""

    @staticmethod
    def forward(ctx, opdef, *args):
        ctx._name = opdef._qualname
        return opdef._opoverload(*args)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"Autograd has not been implemented for operator {ctx._name}. Please use "
                           f"register_autograd to add a backward formula.")


class CustomOpDef(functools.partial):
    """A custom operator made by custom_op: callable (a functools.partial over
    the dispatcher's entry point, so a call costs no Python frame), with
    register_* methods."""

    def __new__(cls, namespace, name, schema, fn, mutates_args):
        lib = Library(namespace, "FRAGMENT")
        lib.define(name + schema)
        self = super().__new__(cls, _C._ops_call_fast, _C._ops_handle(f"{namespace}::{name}"))
        self._lib = lib
        return self

    def __init__(self, namespace, name, schema, fn, mutates_args):
        self._namespace = namespace
        self._name = name
        self._qualname = f"{namespace}::{name}"
        self._schema = schema
        self._init_fn = fn
        self._autograd = None  # an _AutogradEntry once register_autograd is called
        self._kernels = {}
        self._opoverload = _overload(self._qualname)
        # Meta tensors reach the fake implementation only (never the Python
        # body, which may need real data): until register_fake, they raise.
        self._lib.impl(name, self._missing_fake, "Meta")
        # Called only when a gradient is needed; other calls skip it in C++.
        self._lib._registrations.append(_C._library_impl_autograd(self._qualname, self._autograd_kernel))
        self.__name__ = name
        self.__doc__ = fn.__doc__

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"

    def _missing_fake(self, *args):
        raise NotImplementedError(f"There was no fake impl registered for {self!r}. This is necessary for "
                                  f"meta tensors (shape inference, opcheck); add one with register_fake.")

    def _autograd_kernel(self, *args):
        if self._autograd is not None:
            return self._autograd(*args)
        return _NoAutograd.apply(self, *args)

    def register_kernel(self, device_types, fn=None, /):
        """Registers fn as the implementation for the device type(s) ("cpu", "cuda", ...)."""
        if isinstance(device_types, str) or device_types is None:
            device_types = (device_types,)

        def register(f):
            for dt in device_types:
                key = "CompositeExplicitAutograd" if dt is None else _device_key(dt)
                self._lib.impl(self._name, f, key)
                self._kernels[dt] = f
            return f

        return register if fn is None else register(fn)

    def register_fake(self, fn, /):
        """Registers fn as the fake (Meta) implementation: shapes and dtypes from meta inputs."""
        self._lib.impl(self._name, _fake_kernel(fn), "Meta")
        return fn

    def register_autograd(self, backward, /, *, setup_context=None):
        """backward(ctx, *grads) returns one gradient (or None) per argument;
        setup_context(ctx, inputs, output) saves what backward needs."""
        if not callable(backward):
            raise TypeError("register_autograd: backward must be callable")
        self._autograd = _AutogradEntry(self._qualname, backward, setup_context)

    def register_autocast(self, device_type, cast_inputs):
        register_autocast(self._qualname, device_type, cast_inputs, lib=self._lib)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type, enabled=True):
        """Inside the block the kernel for device_type is (not) used."""
        f = self._kernels.get(device_type)
        if f is None or enabled:
            yield
            return
        rid = _C._library_impl_fallthrough(self._qualname, _device_key(device_type))
        try:
            yield
        finally:
            _C._library_remove(rid)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Gives operator `op` a derivative: backward(ctx, *grads) returns one
    gradient (or None) per argument, and setup_context(ctx, inputs, output)
    saves what it needs. The operator's kernels run below autograd."""
    if isinstance(op, CustomOpDef):
        return op.register_autograd(backward, setup_context=setup_context)
    if not callable(backward):
        raise TypeError("register_autograd: backward must be callable")
    if setup_context is not None and not callable(setup_context):
        raise TypeError("register_autograd: setup_context must be callable or None")
    qual = _qualname_of(op)
    try:
        entry = _AutogradEntry(qual, backward, setup_context)
    except AttributeError:
        raise RuntimeError(f"register_autograd: there is no operator {qual}; define it first") from None
    _lib_for(qual, lib)._registrations.append(_C._library_impl_autograd(qual, entry))


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Registers `func` as operator `op`'s implementation for the device
    type(s) ("cpu", "cuda", ...; None for all). Works as a decorator."""
    if isinstance(op, CustomOpDef):
        return op.register_kernel(device_types, func)
    if isinstance(device_types, str) or device_types is None:
        device_types = (device_types,)
    qual = _qualname_of(op)

    def register(fn):
        target = _lib_for(qual, lib)
        for dt in device_types:
            target.impl(qual, fn, "CompositeExplicitAutograd" if dt is None else _device_key(dt))
        return fn

    return register if func is None else register(func)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Makes a Python function an operator "ns::name": its schema inferred from
    the type hints (or given), its body the kernel for `device_types` (all
    devices when None). Use as @custom_op("mylib::foo", mutates_args=())."""
    if not isinstance(name, str) or "::" not in name:
        raise ValueError(f"custom_op: expected name of the form 'namespace::opname', got {name!r}")
    namespace, opname = name.split("::", 1)
    if "." in opname:
        raise ValueError(f"custom_op: the name may not contain an overload ('.'): {name!r}")

    def inner(f):
        s = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        op = CustomOpDef(namespace, opname, s, f, mutates_args)
        op.register_kernel(device_types, f)
        return op

    return inner if fn is None else inner(fn)


# ---------------------------------------------------------------- opcheck

class OpCheckError(Exception):
    pass


DEFAULT_TEST_UTILS = ("test_schema", "test_autograd_registration", "test_faketensor")


def _tensors(x):
    if isinstance(x, torchlike.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for e in x for t in _tensors(e)]
    return []


def _clone_args(args, requires_grad=False):
    def c(x):
        if isinstance(x, torchlike.Tensor):
            y = x.detach().clone()
            if requires_grad and y.is_floating_point():
                y.requires_grad_(True)
            return y
        if isinstance(x, (list, tuple)):
            return type(x)(c(e) for e in x)
        return x
    return tuple(c(a) for a in args)


def _to_meta(args):
    def m(x):
        if isinstance(x, torchlike.Tensor):
            return torchlike.empty_strided(tuple(x.shape), x.stride(), dtype=x.dtype, device="meta")
        if isinstance(x, (list, tuple)):
            return type(x)(m(e) for e in x)
        return x
    return tuple(m(a) for a in args)


def _resolve_op(op):
    if isinstance(op, CustomOpDef):
        return op._opoverload
    if isinstance(op, OpOverload):
        return op
    if isinstance(op, OpOverloadPacket):
        raise ValueError("opcheck: pass one overload (e.g. torchlike.ops.ns.op.default), not the packet")
    raise ValueError(f"opcheck: expected an OpOverload or CustomOpDef, got {type(op).__name__}")


def _check_schema(op, args, kwargs):
    arg_info, ret_info = op._schema_info()
    written = {name for name, _, _, _, is_write in arg_info if is_write}
    names = [a[0] for a in arg_info]
    bound = dict(zip(names, args))
    bound.update(kwargs)
    before = {n: [t.detach().clone() for t in _tensors(v)] for n, v in bound.items()}
    versions = {n: [t._version for t in _tensors(v)] for n, v in bound.items()}
    out = op(*args, **kwargs)
    for n, v in bound.items():
        for old, new, ver in zip(before[n], _tensors(v), versions[n]):
            changed = not torchlike.equal(old, new.detach()) if old.shape == new.shape else True
            if changed and n not in written:
                raise OpCheckError(f"{op.name}: argument '{n}' was mutated, but the schema does not mark it as "
                                   f"written (Tensor(a!)); pass it in mutates_args")
    outs = out if isinstance(out, tuple) else (out,)
    if len(ret_info) == 0:
        if out is not None:
            raise OpCheckError(f"{op.name}: the schema returns nothing, but the kernel returned {type(out).__name__}")
        return out
    if len(outs) != len(ret_info):
        raise OpCheckError(f"{op.name}: the schema returns {len(ret_info)} values, the kernel {len(outs)}")
    def span(t):  # the bytes a tensor can reach
        extent = sum((n - 1) * st for n, st in zip(t.shape, t.stride()) if n > 0) + 1
        return t.data_ptr(), t.data_ptr() + extent * t.element_size()

    in_spans = [span(t) for t in _tensors(list(bound.values())) if t.numel() > 0 and t.device.type != "meta"]
    for (rname, rtype, is_write), o in zip(ret_info, outs):
        if rtype.startswith("Tensor") and not rtype.endswith("[]"):
            if not isinstance(o, torchlike.Tensor):
                raise OpCheckError(f"{op.name}: the schema returns {rtype}, the kernel returned {type(o).__name__}")
            lo, hi = span(o) if o.numel() > 0 and o.device.type != "meta" else (0, 0)
            if "(" not in rtype and any(lo < b and a < hi for a, b in in_spans):
                raise OpCheckError(f"{op.name}: an output aliases an input, but the schema does not say so; "
                                   f"return a new tensor (e.g. x.clone()) instead")
    return out


def _check_fake(op, args, kwargs, real):
    try:
        fake = op(*_to_meta(args), **{k: _to_meta((v,))[0] for k, v in kwargs.items()})
    except NotImplementedError as e:
        raise OpCheckError(f"{op.name}: no fake (Meta) implementation; add one with register_fake ({e})") from e
    for r, f in zip(_tensors(real), _tensors(fake)):
        if f.device.type != "meta":
            raise OpCheckError(f"{op.name}: the fake implementation returned a tensor on {f.device}, not meta")
        if tuple(r.shape) != tuple(f.shape) or r.dtype != f.dtype:
            raise OpCheckError(f"{op.name}: the fake implementation gives {f.dtype}{tuple(f.shape)} but the real "
                               f"kernel {r.dtype}{tuple(r.shape)}")


def _check_autograd(op, args, kwargs):
    gargs = _clone_args(args, requires_grad=True)
    if not any(t.requires_grad for t in _tensors(gargs)):
        return
    out = op(*gargs, **kwargs)
    outs = [t for t in _tensors(out) if t.requires_grad]
    if not outs:
        if any(t.is_floating_point() for t in _tensors(out)):
            raise OpCheckError(f"{op.name}: inputs require grad but no output does: the operator has no autograd "
                               f"registration; add one with register_autograd")
        return
    loss = sum((t.float().sum() for t in outs), torchlike.zeros(()))
    try:
        loss.backward()
    except RuntimeError as e:
        if "Autograd has not been implemented for operator" in str(e):
            return  # no backward formula: the operator says so when differentiated, which is allowed
        raise OpCheckError(f"{op.name}: backward failed: {e}") from e


def opcheck(op, args, kwargs=None, *, test_utils=DEFAULT_TEST_UTILS, raise_exception=True, atol=None, rtol=None):
    """Checks an operator's registrations against what it does on `args`:
    test_schema (outputs match the schema's returns; only arguments marked
    written change; outputs don't alias inputs unannotated),
    test_autograd_registration (differentiable inputs give outputs with a
    working backward, or a clear error), test_faketensor (the Meta path gives
    the real outputs' shapes and dtypes). Returns {test: "SUCCESS" | error}."""
    op = _resolve_op(op)
    kwargs = dict(kwargs or {})
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    unknown = set(test_utils) - set(DEFAULT_TEST_UTILS)
    if unknown:
        raise ValueError(f"opcheck: unknown test_utils {sorted(unknown)}; choose from {DEFAULT_TEST_UTILS}")
    results = {}
    real = None
    for test in test_utils:
        try:
            if test == "test_schema":
                real = _check_schema(op, _clone_args(args), kwargs)
            elif test == "test_autograd_registration":
                _check_autograd(op, args, kwargs)
            elif test == "test_faketensor":
                if real is None:
                    real = op(*_clone_args(args), **kwargs)
                _check_fake(op, args, kwargs, real)
            results[test] = "SUCCESS"
        except OpCheckError as e:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {test} failed: {e}") from e
            results[test] = e
    return results
