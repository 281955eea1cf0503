"""torchlike.ops: every operator by name, built-in or custom.

    torchlike.ops.aten.add.Tensor(a, b, alpha=2)   # one overload (OpOverload)
    torchlike.ops.aten.add(a, b)                   # the packet: tries each overload in turn
    torchlike.ops.aten.add.Tensor._schema          # its schema, as PyTorch prints it

A call binds the Python arguments to the schema (defaults, keyword-only
arguments) and enters the dispatcher's boxed path, so it runs exactly the
kernels a C++ call would: autograd, autocast and any Python kernel
registered through torchlike.library included."""
import functools
import types

from torchlike import _C

__all__ = ["ops", "OpOverload", "OpOverloadPacket"]


def _has_schema(qualname):
    try:
        return bool(_C._dispatch_schema(qualname))
    except ValueError:  # no entry at all
        return False


class OpOverload(functools.partial):
    """One operator overload, callable; `default` names the overload without a
    suffix. A functools.partial over the C entry point, so a call costs no
    Python frame."""

    def __new__(cls, qualname, packet, overloadname):
        self = super().__new__(cls, _C._ops_call_fast, _C._ops_handle(qualname))
        self._qualname = qualname
        self._overloadpacket = packet
        self._overloadname = overloadname
        self.__name__ = f"{qualname.split('::', 1)[1].split('.')[0]}.{overloadname}"
        return self

    @property
    def _handle(self):
        return self.args[0]

    @property
    def _schema(self):
        return _C._dispatch_schema(self._qualname)

    @property
    def name(self):
        return self._qualname

    @property
    def namespace(self):
        return self._qualname.split("::", 1)[0]

    @property
    def overloadpacket(self):
        return self._overloadpacket

    def _schema_info(self):
        return _C._ops_schema_info(self._handle)

    def __repr__(self):
        ns, rest = self._qualname.split("::", 1)
        return f"{ns}.{rest.split('.')[0]}.{self._overloadname}"

    def __hash__(self):
        return hash(self._qualname)

    def __eq__(self, other):
        return isinstance(other, OpOverload) and other._qualname == self._qualname

    def __reduce__(self):
        raise TypeError("OpOverload objects are not picklable; refer to the operator by name")


class OpOverloadPacket:
    """All overloads of one operator name; attribute access gives an overload."""

    def __init__(self, ns, name):
        self._ns = ns
        self._name = name
        self._cache = {}
        self.__name__ = name

    def _qualname(self, overload):
        return f"{self._ns}::{self._name}" + ("" if overload == "default" else f".{overload}")

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        cache = self.__dict__["_cache"]
        if overload not in cache:
            q = self._qualname(overload)
            if not _has_schema(q):
                raise AttributeError(f"The underlying op of '{self._ns}.{self._name}' has no overload name "
                                     f"'{overload}'")
            cache[overload] = OpOverload(q, self, overload)
            # An instance attribute: later lookups skip __getattr__.
            self.__dict__[overload] = cache[overload]
        return cache[overload]

    def overloads(self):
        prefix = f"{self._ns}::{self._name}"
        out = []
        for q in _C._dispatch_list_ops():
            if not (q == prefix or q.startswith(prefix + ".")) or not _has_schema(q):
                continue
            if q == prefix:
                out.append("default")
            elif q.startswith(prefix + "."):
                out.append(q[len(prefix) + 1:])
        return out

    def __call__(self, /, *args, **kwargs):
        names = self.overloads()
        if not names:
            raise RuntimeError(f"{self._ns}::{self._name}: no such operator")
        names.sort(key=lambda n: n != "default")
        errors = []
        for n in names:
            try:
                return getattr(self, n)(*args, **kwargs)
            except TypeError as e:  # the arguments do not bind to this overload's schema
                errors.append(f"  {n}: {e}")
        raise TypeError(f"{self._ns}::{self._name}(): no overload matches the arguments:\n" + "\n".join(errors))

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"


class _OpNamespace(types.ModuleType):
    """torchlike.ops.<ns>: operator packets by name, made on first access."""

    def __init__(self, name):
        super().__init__("torchlike.ops." + name)
        self.name = name

    def __getattr__(self, op_name):
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        prefix = f"{self.name}::{op_name}"
        if not any((q == prefix or q.startswith(prefix + ".")) and _has_schema(q) for q in _C._dispatch_list_ops()):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(self.name, op_name)
        setattr(self, op_name, packet)
        return packet


class _Ops(types.ModuleType):
    def __init__(self):
        super().__init__("torchlike.ops")

    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        mod = _OpNamespace(ns)
        setattr(self, ns, mod)
        return mod

    def load_library(self, path):
        """Loads a shared library whose TL_LIBRARY registrations then show up here."""
        import ctypes
        _C._take_registration_errors()
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        errors = _C._take_registration_errors()
        if errors:
            raise RuntimeError(f"{path} failed to register its operators:\n" + "\n".join(errors))


ops = _Ops()
