"""What a checkpoint may name, and the restricted unpickler of load(weights_only=True).

A pickle can call any importable callable it names. Loading weights must not
give a file that power, so the unpickler below resolves each global a
checkpoint names against three sources only:

* the names checkpoints are made of (tensor rebuilders, storage types, dtypes,
  ``torch.device``, ``torch.Size``, ``collections.OrderedDict``, a few builtins);
  names written by PyTorch (``torch.*``) resolve to torchlike's objects;
* globals the user allow-listed with add_safe_globals / safe_globals;
* nothing else: any other name raises pickle.UnpicklingError before the object
  is looked up, so its module is never even imported.

The C unpickler asks find_class for every GLOBAL, STACK_GLOBAL, INST, OBJ and
EXT* opcode, and REDUCE/NEWOBJ/BUILD can only act on what find_class returned,
so overriding find_class is enough to bound what a file can run.
"""
import builtins
import collections
import contextlib
import pickle
import threading

__all__ = []

# Modules whose names mean "run something": a file naming them is refused
# with a message saying so, even if the user allow-listed something there.
_DANGEROUS_MODULES = frozenset({
    "os", "posix", "nt", "sys", "subprocess", "shutil", "socket", "runpy", "importlib", "pty", "ctypes",
    "code", "codeop", "signal", "webbrowser", "marshal", "pickle", "_pickle", "multiprocessing", "threading",
    "_thread", "asyncio", "tempfile", "pathlib", "io", "_io", "operator", "functools", "inspect", "pdb",
})

# What protocol-2 pickles of plain values name (a set, a bytearray, a complex).
# Type objects such as int or dict are values too, but pickled as globals:
# like PyTorch, they need allow-listing.
_ALLOWED_BUILTINS = ("set", "bytearray", "complex")

_lock = threading.RLock()
# Insertion-ordered {qualified name: object} of what the user allow-listed.
_user_allowed = {}


def _qualified_name(obj):
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if module is None or name is None:
        raise TypeError(f"cannot allow-list {obj!r}: it has no __module__/__qualname__ to match a pickled "
                        "global against; pass (obj, 'module.name') instead")
    return f"{module}.{name}"


def _entry_name(entry):
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError(f"expected (callable, 'module.name'), got {entry!r}")
        return entry[1], entry[0]
    return _qualified_name(entry), entry


def add_safe_globals(safe_globals):
    """Allow-list globals for weights_only loading: each entry is the object, or
    (object, "module.name") when it is pickled under another name."""
    with _lock:
        for entry in safe_globals:
            name, obj = _entry_name(entry)
            _user_allowed[name] = entry


def get_safe_globals():
    """The user allow-list, in the order entries were added."""
    with _lock:
        return list(_user_allowed.values())


def clear_safe_globals():
    """Empty the user allow-list."""
    with _lock:
        _user_allowed.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """Allow-list globals for the duration of a with block."""
    with _lock:
        before = dict(_user_allowed)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        with _lock:
            _user_allowed.clear()
            _user_allowed.update(before)


def _user_lookup(full_name):
    with _lock:
        entry = _user_allowed.get(full_name)
    if entry is None:
        return None
    return entry[0] if isinstance(entry, tuple) else entry


def _latin1_bytes(text, encoding="latin1"):
    # Protocol-2 pickles spell a bytes object as _codecs.encode(str, "latin1").
    # Only that codec is admitted: others can be made to import codec modules.
    if encoding not in ("latin1", "latin-1") or not isinstance(text, str):
        raise pickle.UnpicklingError(f"_codecs.encode is only allowed with the latin1 codec, got {encoding!r}")
    return text.encode("latin1")


def _dtype_names():
    import torchlike
    names = {}
    for name in dir(torchlike):
        value = getattr(torchlike, name)
        if isinstance(value, torchlike.dtype):
            names[name] = value
    return names


_table = None


def _known_globals():
    """{pickled name: object} for everything a checkpoint is made of. Built on
    first use: it needs torchlike, which imports this module."""
    global _table
    if _table is not None:
        return _table
    import torchlike
    from torchlike import serialization as ser
    table = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "_codecs.encode": _latin1_bytes,
    }
    for short in _ALLOWED_BUILTINS:
        table[f"builtins.{short}"] = getattr(builtins, short)
    for prefix in ("torch", "torchlike"):
        table[f"{prefix}._utils._rebuild_tensor_v2"] = ser._rebuild_tensor_v2
        table[f"{prefix}._utils._rebuild_parameter"] = ser._rebuild_parameter
        table[f"{prefix}._utils._rebuild_parameter_with_state"] = ser._rebuild_parameter_with_state
        table[f"{prefix}._tensor._rebuild_from_type_v2"] = ser._rebuild_from_type_v2
        table[f"{prefix}.device"] = torchlike.device
        table[f"{prefix}.Size"] = torchlike.Size
        table[f"{prefix}.Tensor"] = torchlike.Tensor
        table[f"{prefix}._tensor.Tensor"] = torchlike.Tensor
        for dname, dtype in _dtype_names().items():
            table[f"{prefix}.{dname}"] = dtype
        for sname, storage_type in ser._STORAGE_TYPES.items():
            table[f"{prefix}.{sname}"] = storage_type
    table["torch.nn.parameter.Parameter"] = torchlike.nn.Parameter
    table["torchlike.nn.parameter.Parameter"] = torchlike.nn.Parameter
    _table = table
    return table


class RefusedGlobal(pickle.UnpicklingError):
    """A checkpoint named a global that weights_only loading does not admit."""


def _refusal(full_name, module):
    if module.split(".")[0] in _DANGEROUS_MODULES:
        return (f"Trying to load unsupported GLOBAL {full_name} whose module {module} is blocked: "
                "weights_only loading never imports or calls it.")
    shown = full_name[len("builtins."):] if module == "builtins" else full_name
    return (f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`torchlike.serialization.add_safe_globals([{shown}])` or the "
            f"`torchlike.serialization.safe_globals([{shown}])` context manager to allowlist this global if you "
            "trust this class/function.")


def resolve_global(module, name, weights_only):
    """The object a pickled (module, name) stands for: torchlike's own for the
    checkpoint vocabulary; under weights_only, an allow-listed global or an
    UnpicklingError; otherwise an ordinary import (torch.* read as torchlike.*)."""
    full_name = f"{module}.{name}"
    known = _known_globals().get(full_name)
    if known is not None:
        return known
    if weights_only:
        if module.split(".")[0] not in _DANGEROUS_MODULES:
            allowed = _user_lookup(full_name)
            if allowed is not None:
                return allowed
        raise RefusedGlobal(_refusal(full_name, module))
    return None


def _python3_name(module, name):
    import _compat_pickle
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


class WeightsUnpickler(pickle.Unpickler):
    """pickle.Unpickler whose globals come from resolve_global."""

    def __init__(self, file, persistent_load, weights_only, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent = persistent_load
        self._weights_only = weights_only

    def persistent_load(self, pid):
        return self._persistent(pid)

    def find_class(self, module, name):
        # Protocol-2 pickles use Python 2 names (__builtin__.set, ...).
        module, name = _python3_name(module, name)
        found = resolve_global(module, name, self._weights_only)
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):
            # A PyTorch name outside the vocabulary: torchlike mirrors PyTorch's
            # module layout, so look it up at the same path there. Never fall
            # back to an installed PyTorch: its objects cannot hold torchlike
            # tensors.
            own = "torchlike" + module[len("torch"):]
            try:
                return super().find_class(own, name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(f"the checkpoint names the PyTorch global {module}.{name}, and torchlike "
                                             f"has no {own}.{name} to load it as") from None
        return super().find_class(module, name)


def globals_named_in(pickle_bytes):
    """Every 'module.name' a pickle names through GLOBAL / STACK_GLOBAL / INST,
    found by reading its opcodes (nothing is executed)."""
    import pickletools
    names = []
    strings = []  # string operands seen, for STACK_GLOBAL's (module, name)
    memo = {}     # memo slot -> string, for strings fetched back with GET
    just_pushed = None  # the string the previous opcode pushed, if it pushed one
    memo_count = 0
    for op, arg, _pos in pickletools.genops(pickle_bytes):
        kind = op.name
        pushed = None
        if kind in ("GLOBAL", "INST"):
            module, _, name = arg.partition(" ")
            module, name = _python3_name(module, name)
            names.append(f"{module}.{name}")
        elif kind in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"):
            pushed = arg
        elif kind in ("BINPUT", "LONG_BINPUT", "PUT"):
            if just_pushed is not None:
                memo[arg] = just_pushed
            pushed = just_pushed
        elif kind == "MEMOIZE":
            if just_pushed is not None:
                memo[memo_count] = just_pushed
            memo_count += 1
            pushed = just_pushed
        elif kind in ("BINGET", "LONG_BINGET", "GET"):
            pushed = memo.get(arg)
        elif kind == "STACK_GLOBAL" and len(strings) >= 2:
            names.append(f"{strings[-2]}.{strings[-1]}")
        if pushed is not None and pushed is not just_pushed:
            strings.append(pushed)
        just_pushed = pushed
    seen = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return seen
