"""nn.Module: the base class of every layer.

A module owns three ordered name tables (parameters, buffers, child modules) that
attribute assignment fills, and everything else is a walk over that tree: traversal,
state dicts, device/dtype conversion, hooks and printing. Traversal order is
registration order, depth first with a module before its children, which is the
order PyTorch users rely on for state-dict keys and optimizer parameter lists.
"""
import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple

import torchlike
from torchlike._tensor import Tensor
from torchlike.utils.hooks import RemovableHandle
from torchlike.nn.parameter import Buffer, Parameter, is_lazy

__all__ = [
    "Module", "register_module_forward_pre_hook", "register_module_forward_hook",
    "register_module_full_backward_pre_hook", "register_module_full_backward_hook",
    "register_module_backward_hook", "register_module_buffer_registration_hook",
    "register_module_module_registration_hook", "register_module_parameter_registration_hook",
]


# ----------------------------------------------------------------------------------------
# Hooks that apply to every module (PyTorch's torch.nn.modules.module.register_module_*).
_global = {
    "forward_pre": OrderedDict(), "forward": OrderedDict(), "forward_with_kwargs": OrderedDict(),
    "forward_always": OrderedDict(), "backward_pre": OrderedDict(), "backward": OrderedDict(),
    "backward_is_full": None, "buffer_reg": OrderedDict(), "module_reg": OrderedDict(),
    "parameter_reg": OrderedDict(),
}


def _add_hook(table, hook, prepend=False, extra=()):
    """Files hook in the table (at the front with prepend) and returns its handle,
    which removes it from the table and from the flag tables in `extra`."""
    handle = RemovableHandle(table, extra_dict=list(extra))
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook):
    """Registers hook(module, args) to run before every module's forward."""
    return _add_hook(_global["forward_pre"], hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Registers hook(module, args, output) to run after every module's forward."""
    handle = _add_hook(_global["forward"], hook,
                       extra=(_global["forward_with_kwargs"], _global["forward_always"]))
    if with_kwargs:
        _global["forward_with_kwargs"][handle.id] = True
    if always_call:
        _global["forward_always"][handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """Registers hook(module, grad_output) for every module's backward."""
    return _add_hook(_global["backward_pre"], hook)


def _set_global_backward_kind(full):
    if _global["backward_is_full"] is not None and _global["backward_is_full"] != full:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global["backward_is_full"] = full


def register_module_full_backward_hook(hook):
    """Registers hook(module, grad_input, grad_output) for every module's backward."""
    _set_global_backward_kind(True)
    return _add_hook(_global["backward"], hook)


def register_module_backward_hook(hook):
    """Registers a non-full backward hook for every module (deprecated in PyTorch)."""
    _set_global_backward_kind(False)
    return _add_hook(_global["backward"], hook)


def register_module_buffer_registration_hook(hook):
    """hook(module, name, buffer) runs on every register_buffer; it may return a replacement."""
    return _add_hook(_global["buffer_reg"], hook)


def register_module_module_registration_hook(hook):
    """hook(module, name, submodule) runs on every register_module; it may return a replacement."""
    return _add_hook(_global["module_reg"], hook)


def register_module_parameter_registration_hook(hook):
    """hook(module, name, param) runs on every register_parameter; it may return a replacement."""
    return _add_hook(_global["parameter_reg"], hook)


def _run_registration_hooks(table, module, name, value):
    for hook in list(table.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value


# ----------------------------------------------------------------------------------------
class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's result: the keys the module wanted but did not get, and the
    keys it got but has no place for."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _indent_after_first_line(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _type_name(value):
    return torchlike.typename(value)


def _check_member_name(module, kind, name, table_name):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in module.__dict__.get(table_name, {}):
        raise KeyError(f"attribute '{name}' already exists")


_NO_EXTRA_STATE = object()


class Module:
    """Base class for all neural network modules.

    Subclasses call ``super().__init__()`` first, then assign parameters, buffers and
    submodules as attributes, and define ``forward``."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and (args or kwargs):
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                                f"argument '{next(iter(kwargs))}'")
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        setattr_(self, "_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # -- forward ---------------------------------------------------------------------
    def forward(self, *input):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def _has_hooks(self):
        d = self.__dict__
        return bool(d["_forward_hooks"] or d["_forward_pre_hooks"] or d["_backward_hooks"]
                    or d["_backward_pre_hooks"] or _global["forward_pre"] or _global["forward"]
                    or _global["backward"] or _global["backward_pre"])

    def __call__(self, *args, **kwargs):
        if not self._has_hooks():
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    _call_impl = __call__

    def _call_with_hooks(self, args, kwargs):
        d = self.__dict__
        # Forward pre-hooks: global first, then the module's; each may replace the inputs.
        for key, hook in itertools.chain(_global["forward_pre"].items(), d["_forward_pre_hooks"].items()):
            if key in d["_forward_pre_hooks_with_kwargs"]:
                out = hook(self, args, kwargs)
                if out is not None:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {out}.")
                    args, kwargs = out
            else:
                out = hook(self, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)

        full_hooks, pre_hooks, legacy_hooks = self._backward_hook_lists()
        bw = None
        if full_hooks or pre_hooks:
            bw = _BackwardHookState(self, full_hooks, pre_hooks)
            args = bw.wrap_inputs(args)

        forward_hooks = list(itertools.chain(_global["forward"].items(), d["_forward_hooks"].items()))
        called = set()
        try:
            result = self.forward(*args, **kwargs)
            for key, hook in forward_hooks:
                called.add(key)
                if key in d["_forward_hooks_with_kwargs"] or key in _global["forward_with_kwargs"]:
                    out = hook(self, args, kwargs, result)
                else:
                    out = hook(self, args, result)
                if out is not None:
                    result = out
        except Exception:
            # Hooks registered with always_call run even when forward (or a hook) failed.
            for key, hook in forward_hooks:
                if key in called:
                    continue
                if key in d["_forward_hooks_always_called"] or key in _global["forward_always"]:
                    try:
                        if key in d["_forward_hooks_with_kwargs"] or key in _global["forward_with_kwargs"]:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception as e:  # the original error is the one to report
                        warnings.warn("global module forward hook with ``always_call=True`` raised an "
                                      f"exception that was silenced as another error was raised in forward: {e}")
            raise

        if bw is not None:
            result = bw.wrap_outputs(result)
        elif legacy_hooks:
            self._attach_legacy_backward_hooks(args, result, legacy_hooks)
        return result

    def _backward_hook_lists(self):
        d = self.__dict__
        full, legacy = [], []
        if _global["backward_is_full"] is True:
            full.extend(_global["backward"].values())
        elif _global["backward_is_full"] is False:
            legacy.extend(_global["backward"].values())
        if d["_is_full_backward_hook"] is True:
            full.extend(d["_backward_hooks"].values())
        elif d["_is_full_backward_hook"] is False:
            legacy.extend(d["_backward_hooks"].values())
        pre = list(_global["backward_pre"].values()) + list(d["_backward_pre_hooks"].values())
        return full, pre, legacy

    def _attach_legacy_backward_hooks(self, args, result, hooks):
        # Old-style hooks see the gradients of the last autograd node of the output.
        out = result
        while not isinstance(out, Tensor):
            if isinstance(out, dict):
                out = next(iter(out.values()), None)
            elif isinstance(out, (list, tuple)) and out:
                out = out[0]
            else:
                return
        node = out.grad_fn
        if node is None:
            return
        # The hook only sees the last node's gradients; warn when that node's inputs are
        # themselves results of this forward, i.e. the gradients it sees are not the
        # module's input gradients.
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        nexts = [fn for fn, _ in node.next_functions]
        inner = len(nexts) != len(tensor_args) or any(
            fn is not None and fn is not a.grad_fn and fn.name() != "AccumulateGrad"
            for fn, a in zip(nexts, tensor_args))
        if inner or not isinstance(result, Tensor):
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd "
                          "Nodes is deprecated and will be removed in future versions. This hook will be "
                          "missing some grad_input. Please use register_full_backward_hook to get the "
                          "documented behavior.", FutureWarning, stacklevel=4)
        for hook in hooks:
            node.register_hook(functools.partial(_call_legacy_hook, hook, self))

    # -- registration ----------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer: state that is saved in the state dict (unless persistent=False)
        and moved by .to(), but is not a parameter."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name(self, "buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        tensor = _run_registration_hooks(_global["buffer_reg"], self, name, tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter; None is allowed (a declared but absent parameter, like bias=False)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name(self, "parameter", name, "_parameters")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                "the value in the forward() method.")
        param = _run_registration_hooks(_global["parameter_reg"], self, name, param)
        self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module, reachable as an attribute under `name`."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{torchlike.typename(module) if isinstance(module, Tensor) else type(module).__module__ + '.' + type(module).__qualname__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        module = _run_registration_hooks(_global["module_reg"], self, name, module)
        self._modules[name] = module

    register_module = add_module

    # -- attribute protocol ----------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            members = d.get(table)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def forget(*tables):
            for t in tables:
                if name in t:
                    del t[name]
            d.pop(name, None)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            forget(d["_buffers"], d["_modules"])
            d["_non_persistent_buffers_set"].discard(name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            forget(d["_buffers"], params)
            d["_non_persistent_buffers_set"].discard(name)
            modules[name] = _run_registration_hooks(_global["module_reg"], self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = _run_registration_hooks(_global["module_reg"], self, name, value)
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in d["_non_persistent_buffers_set"]
            if name not in buffers:
                d.pop(name, None)
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        d = self.__dict__
        if name in d["_parameters"]:
            del d["_parameters"][name]
        elif name in d["_buffers"]:
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d["_modules"]:
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        names = set(dir(type(self))) | set(self.__dict__)
        names |= set(self._parameters) | set(self._modules) | set(self._buffers)
        return sorted(n for n in names if not n[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Modules pickled by older versions may lack the newer tables.
        for name, default in (("_forward_pre_hooks_with_kwargs", OrderedDict),
                              ("_forward_hooks_with_kwargs", OrderedDict),
                              ("_forward_hooks_always_called", OrderedDict),
                              ("_state_dict_pre_hooks", OrderedDict),
                              ("_load_state_dict_post_hooks", OrderedDict),
                              ("_backward_pre_hooks", OrderedDict),
                              ("_non_persistent_buffers_set", set)):
            if name not in self.__dict__:
                object.__setattr__(self, name, default())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)

    # -- traversal -------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Yields (qualified name, module) for this module and every descendant."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            child_prefix = prefix + ("." if prefix else "") + name
            yield from child.named_modules(memo, child_prefix, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, child in self._modules.items():
            if child is not None and child not in seen:
                seen.add(child)
                yield name, child

    def children(self):
        for _, child in self.named_children():
            yield child

    def _named_members(self, table, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for owner_name, owner in owners:
            for name, value in owner.__dict__[table].items():
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield (owner_name + ("." if owner_name else "") + name), value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Yields (qualified name, parameter); a parameter shared by two modules comes once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def _resolve(self, target):
        module = self
        if target == "":
            return module
        for part in target.split("."):
            if not hasattr(module, part):
                raise AttributeError(f"{module._get_name()} has no attribute `{part}`")
            module = getattr(module, part)
            if not isinstance(module, Module):
                raise AttributeError(f"`{part}` is not an nn.Module")
        return module

    def get_submodule(self, target):
        """The module at the dotted path `target` ('' is self)."""
        return self._resolve(target)

    def set_submodule(self, target, module, strict=False):
        """Replaces (or, unless strict, adds) the submodule at the dotted path `target`."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, leaf = target.rpartition(".")
        parent = self._resolve(parent_path)
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        if strict and not hasattr(parent, leaf):
            raise AttributeError(f"{parent._get_name()} has no attribute `{leaf}`")
        if hasattr(parent, leaf) and not isinstance(getattr(parent, leaf), Module):
            raise AttributeError(f"`{leaf}` is not an nn.Module")
        setattr(parent, leaf, module)

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        module = self._resolve(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        value = getattr(module, name)
        if not isinstance(value, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return value

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        module = self._resolve(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    # -- modes and gradients ---------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def apply(self, fn):
        """Calls fn on every submodule (children first), then on self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # -- conversions -----------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        if recurse:
            for child in self.children():
                child._apply(fn)
        for name, param in list(self._parameters.items()):
            if param is None:
                continue
            with torchlike.no_grad():
                new_data = fn(param)
            self._parameters[name] = _converted_parameter(param, new_data, fn)
        for name, buf in list(self._buffers.items()):
            if buf is not None and is_lazy(buf):
                probe = fn(buf.data)
                self._buffers[name] = type(buf)(buf.requires_grad, probe.device, probe.dtype,
                                                getattr(buf, "persistent", True))
            elif buf is not None:
                new = fn(buf)
                if getattr(buf, "_is_buffer", False) and new is not buf:
                    new.persistent = buf.persistent
                    new._is_buffer = True
                self._buffers[name] = new
        return self

    def to(self, *args, **kwargs):
        """Moves and/or casts parameters and buffers: to(device), to(dtype),
        to(device, dtype), to(tensor), with non_blocking and memory_format keywords.
        Only floating point (and complex) tensors change dtype."""
        device, dtype, non_blocking, memory_format = _parse_to(*args, **kwargs)
        if dtype is not None and not (dtype.is_floating_point or getattr(dtype, "is_complex", False)):
            raise TypeError("nn.Module.to only accepts floating point or complex "
                            f"dtypes, but got desired dtype={dtype}")

        def convert(t):
            if is_lazy(t):
                return t
            kw = {"non_blocking": non_blocking}
            if memory_format is not None and t.dim() in (4, 5):
                kw["memory_format"] = memory_format
            if device is not None:
                kw["device"] = device
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                kw["dtype"] = dtype
            return t.to(**kw)

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse=True):
        """Replaces every parameter and buffer by an uninitialised tensor on `device`."""
        return self._apply(lambda t: torchlike.empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    # -- state dict ------------------------------------------------------------------
    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/issues/new"
                           "?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/issues/new"
                           "?template=bug-report.yml to report this bug.")

    def _has_extra_state(self):
        return type(self).get_extra_state is not Module.get_extra_state

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._has_extra_state():
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by qualified name,
        with a `_metadata` attribute holding each module's version."""
        if args:
            # The old positional form state_dict(destination, prefix, keep_vars).
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            names = ("destination", "prefix", "keep_vars")
            given = dict(zip(names, args))
            destination = given.get("destination", destination)
            prefix = given.get("prefix", prefix)
            keep_vars = given.get("keep_vars", keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            out = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False) and out is not None:
                raise RuntimeError("state_dict post-hook must return None")
            if out is not None:
                destination = out
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                       persistent_buffers.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, current in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            incoming = state_dict[key]
            if not isinstance(incoming, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                                  f"or Tensor-like object from checkpoint but received {type(incoming)}")
                continue
            lazy = is_lazy(current)
            # A 1-element 1-d tensor loads into a 0-d one (checkpoints from before 0-d tensors).
            if not lazy and current.dim() == 0 and incoming.dim() == 1 and incoming.shape[0] == 1:
                incoming = incoming[0]
            if not lazy and tuple(incoming.shape) != tuple(current.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {incoming.shape} from "
                    f"checkpoint, the shape in current model is {current.shape}.")
                continue
            try:
                with torchlike.no_grad():
                    if assign:
                        if isinstance(current, Parameter):
                            new = incoming if isinstance(incoming, Parameter) else \
                                Parameter(incoming, requires_grad=current.requires_grad)
                            if isinstance(incoming, Parameter):
                                new.requires_grad_(current.requires_grad)
                            self._parameters[name] = new
                        else:
                            self._buffers[name] = incoming
                    elif lazy:
                        current.materialize(incoming.shape)
                        current.copy_(incoming)
                    else:
                        current.copy_(incoming)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{current.shape} and whose dimensions in the checkpoint are {incoming.shape}, "
                    f"an exception occurred : {ex.args}.")
        extra_key = prefix + "_extra_state"
        if self._has_extra_state():
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict.keys():
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head = key[len(prefix):].split(".", 1)
                if len(head) > 1:
                    if head[0] not in self._modules:
                        unexpected_keys.append(key)
                elif head[0] not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies parameters and buffers from state_dict. With strict, any missing or
        unexpected key is an error; a shape mismatch always is. Returns the
        (missing_keys, unexpected_keys) named tuple."""
        from collections.abc import Mapping
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_dict, prefix, local_metadata, True,
                                         missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_dict = {k: v for k, v in local_dict.items() if k.startswith(child_prefix)}
                    load(child, child_dict, child_prefix)
            result = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, result)
                if out is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` "
                                       "are not expected to return new values, if incompatible_keys "
                                       "need to be modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- hook registration -----------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) -> None or new args; with_kwargs: hook(module, args, kwargs)
        -> None or (args, kwargs)."""
        handle = _add_hook(self._forward_pre_hooks, hook, prepend, (self._forward_pre_hooks_with_kwargs,))
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) -> None or new output; with_kwargs:
        hook(module, args, kwargs, output); always_call runs it even if forward raised."""
        handle = _add_hook(self._forward_hooks, hook, prepend,
                           (self._forward_hooks_with_kwargs, self._forward_hooks_always_called))
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> None or new grad_output, before the module's
        input gradients are computed."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or new grad_input, once the
        gradients with respect to the module's inputs are computed."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated: hook(module, grad_input, grad_output) on the output's last node."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        return _add_hook(self._backward_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) before state_dict saves this module."""
        return _add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) after state_dict saved this
        module; it edits state_dict in place and returns None."""
        hook._from_public_api = True
        return _add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        # The private form may return a replacement dict.
        return _add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) before this module loads."""
        bound = functools.partial(_call_with_module, hook, self)
        return _add_hook(self._load_state_dict_pre_hooks, bound)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        fn = functools.partial(_call_with_module, hook, self) if with_module else hook
        return _add_hook(self._load_state_dict_pre_hooks, fn)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) after this module loaded; it may edit the
        key lists in place."""
        return _add_hook(self._load_state_dict_post_hooks, hook)

    # -- printing --------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside this module's parentheses; layers override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, child in self._modules.items():
            lines.append(f"({name}): " + _indent_after_first_line(repr(child), 2))
        head = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                return head + lines[0] + ")"
            return head + "\n  " + "\n  ".join(lines) + "\n)"
        return head + ")"

    def compile(self, *args, **kwargs):
        """Compiles this module's forward in place with torchlike.compile."""
        compile_fn = getattr(torchlike, "compile", None)
        if compile_fn is None:
            raise RuntimeError("Module.compile needs torchlike.compile, which this build does not have")
        self._compiled_call_impl = compile_fn(self._call_impl, *args, **kwargs)


def _call_with_module(hook, module, *args, **kwargs):
    return hook(module, *args, **kwargs)


def _call_legacy_hook(hook, module, grad_inputs, grad_outputs):
    out = hook(module, grad_inputs, grad_outputs)
    return out


def _converted_parameter(param, new_data, fn):
    """The parameter after a conversion: the same object with new data swapped in
    (dtype and device included, as PyTorch's default `param.data = ...`), so
    optimizers holding it keep working after `model.half()` or `model.to(...)`."""
    if new_data is param:
        return param
    if is_lazy(param):
        # Still shapeless: only its future dtype/device change.
        return type(param)(param.requires_grad, new_data.device, new_data.dtype)
    grad = param.grad
    param.data = new_data
    if grad is not None:
        with torchlike.no_grad():
            new_grad = fn(grad)
        if new_grad is not grad:
            grad.data = new_grad
    return param


def _parse_to(*args, **kwargs):
    """(device, dtype, non_blocking, memory_format) from Module.to's call forms."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    tensor = kwargs.pop("tensor", None)
    copy = kwargs.pop("copy", False)  # accepted as Tensor.to accepts it
    del copy
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"keyword(s) {', '.join(kwargs)}")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        tensor = rest.pop(0)
    if tensor is not None:
        device, dtype = tensor.device, tensor.dtype
    while rest:
        a = rest.pop(0)
        if isinstance(a, torchlike.dtype):
            dtype = a
        elif isinstance(a, (str, torchlike.device, int)) and not isinstance(a, bool):
            device = a
        elif isinstance(a, bool):
            non_blocking = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    if device is not None:
        device = torchlike.device(device)
    return device, dtype, non_blocking, memory_format


# ----------------------------------------------------------------------------------------
# Full backward hooks. The module's tensor inputs and outputs pass through identity
# autograd functions: the one on the outputs sees grad_output first (pre-hooks may
# replace it) and the one on the inputs sees grad_input last, which is when the full
# hooks run. A module whose inputs need no grad gets its hooks called from the output
# side with grad_input all None.
class _BackwardHookState:
    def __init__(self, module, full_hooks, pre_hooks):
        self.module = module
        self.full_hooks = full_hooks
        self.pre_hooks = pre_hooks
        self.grad_output = None
        self.n_inputs = 0
        self.input_slots = []

    def wrap_inputs(self, args):
        slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(slots)
        grad_slots = [i for i in slots if args[i].requires_grad]
        self.input_slots = slots
        self.inputs_need_grad = bool(grad_slots) and torchlike.is_grad_enabled()
        if not self.inputs_need_grad or not self.full_hooks:
            return args
        tensors = [args[i] for i in slots]
        outs = _InputIdentity.apply(self, *tensors)
        if not isinstance(outs, tuple):
            outs = (outs,)
        args = list(args)
        for i, t in zip(slots, outs):
            args[i] = t
        return tuple(args)

    def wrap_outputs(self, result):
        if not torchlike.is_grad_enabled():
            return result
        flat, rebuild = _flatten_tensors(result)
        if not any(t.requires_grad for t in flat):
            return result
        outs = _OutputIdentity.apply(self, *flat)
        if not isinstance(outs, tuple):
            outs = (outs,)
        return rebuild(list(outs))

    def on_grad_output(self, grads):
        grads = tuple(grads)
        for hook in self.pre_hooks:
            out = hook(self.module, grads)
            if out is not None:
                out = out if isinstance(out, tuple) else (out,)
                if len(out) != len(grads):
                    raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                       f"got {len(out)}, but expected {len(grads)}")
                grads = out
        self.grad_output = grads
        if self.full_hooks and not self.inputs_need_grad:
            self.run_full_hooks((None,) * self.n_inputs)
        return grads

    def run_full_hooks(self, grad_input):
        for hook in self.full_hooks:
            out = hook(self.module, grad_input, self.grad_output)
            if out is not None:
                out = out if isinstance(out, tuple) else (out,)
                if len(out) != len(grad_input):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(out)}, but expected {len(grad_input)}")
                grad_input = out
        return grad_input


class _InputIdentity(torchlike.autograd.Function):
    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        ctx.set_materialize_grads(False)
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.state.run_full_hooks(grads))


class _OutputIdentity(torchlike.autograd.Function):
    @staticmethod
    def forward(ctx, state, *tensors):
        ctx.state = state
        ctx.set_materialize_grads(False)
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.state.on_grad_output(grads))


def _flatten_tensors(obj):
    """The tensors inside obj (a tensor or nested list/tuple/dict) and a function that
    puts replacements back in the same places."""
    flat = []

    def collect(o):
        if isinstance(o, Tensor):
            flat.append(o)
        elif isinstance(o, (list, tuple)):
            for x in o:
                collect(x)
        elif isinstance(o, dict):
            for x in o.values():
                collect(x)

    collect(obj)

    def rebuild(new):
        it = iter(new)

        def put(o):
            if isinstance(o, Tensor):
                return next(it)
            if isinstance(o, tuple) and hasattr(o, "_fields"):
                return type(o)(*[put(x) for x in o])
            if isinstance(o, (list, tuple)):
                return type(o)(put(x) for x in o)
            if isinstance(o, dict):
                return type(o)((k, put(v)) for k, v in o.items())
            return o
        return put(obj)

    return flat, rebuild
