"""Parametrizations: make a module's tensor the output of a function of other tensors.

After ``register_parametrization(module, "weight", f)`` the module no longer owns
``weight``. What it stores instead is ``module.parametrizations.weight``, a
ParametrizationList holding ``f`` and the unconstrained tensor(s) it is applied to
(``original``, or ``original0``, ``original1``... when ``f.right_inverse`` splits a
value into several). Reading ``module.weight`` evaluates the list; assigning to it
runs the right inverses and stores the result in the originals.

Reading and assigning go through a property, and a property lives on a class, so the
module's class is swapped for a one-off subclass (``ParametrizedLinear`` for a Linear)
that holds the properties of this module alone; removing the last parametrization
restores the original class.
"""
import collections.abc
import contextlib
import copy

import torchlike
from torchlike._tensor import Tensor
from torchlike.nn.modules.container import ModuleDict, ModuleList
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

# While at least one `cached()` block is open, each parametrized tensor is computed once
# and reused; keys are (id(module), tensor name).
_cache_depth = 0
_cache = {}
# Values that stateless.functional_call substitutes for a parametrized tensor during
# one call, by the same keys.
_overrides = {}


@contextlib.contextmanager
def cached():
    """Within this context each parametrized tensor is evaluated once and the value
    reused (useful when a weight is read several times in a forward, as in an RNN
    loop). Nested uses share one cache, emptied when the outermost block exits."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if _cache_depth == 0:
            _cache.clear()


def _store(slot_owner, name, tensor, as_parameter, requires_grad):
    """Registers tensor on slot_owner as a parameter or a (persistent) buffer."""
    if as_parameter:
        slot_owner.register_parameter(name, Parameter(tensor, requires_grad))
    else:
        slot_owner.register_buffer(name, tensor)


def _replace_data(target, value):
    # Keep the same tensor object (an optimizer may hold it) and swap what it holds.
    with torchlike.no_grad():
        target.data = value.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they are
    applied to: ``original`` or ``original0, original1, ...``.

    On construction the right inverses (last to first) turn `original` into what is
    stored, so that evaluating the list gives back `original`'s value. A Parameter
    original stays the same Parameter object (its data replaced); a plain tensor is
    stored as a buffer."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        wanted_shape, wanted_dtype = original.shape, original.dtype

        with torchlike.no_grad():
            stored = original
            for parametrization in reversed(self):
                inverse = getattr(parametrization, "right_inverse", None)
                if inverse is None:
                    continue
                # A parametrization that cannot invert (it raises NotImplementedError)
                # starts from the given tensor as is.
                try:
                    stored = inverse(stored)
                except NotImplementedError:
                    pass

        as_parameter = isinstance(original, Parameter)
        if isinstance(stored, Tensor):
            self.is_tensor, self.ntensors = True, 1
            if not unsafe and stored.dtype != original.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {stored.dtype}")
            if stored is not original:
                _replace_data(original, stored)
            if as_parameter:
                self.register_parameter("original", original)
            else:
                self.register_buffer("original", original)
        elif isinstance(stored, collections.abc.Sequence) and not isinstance(stored, str):
            for i, piece in enumerate(stored):
                if not isinstance(piece, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                     f"(list, tuple...). Got element {i} of the sequence with type "
                                     f"{type(piece).__name__}.")
            self.is_tensor, self.ntensors = False, len(stored)
            for i, piece in enumerate(stored):
                _store(self, f"original{i}", piece.detach(), as_parameter, original.requires_grad)
        else:
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                             f"tuple...). Got {type(stored).__name__}")

        if unsafe:
            return
        with torchlike.no_grad():
            value = self()
        if not isinstance(value, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
        if value.dtype != wanted_dtype:
            raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                             f"`unsafe` flag is enabled.\nunparametrized dtype: {wanted_dtype}\n"
                             f"parametrized dtype: {value.dtype}")
        if value.shape != wanted_shape:
            raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                             f"`unsafe` flag is enabled.\nunparametrized shape: {wanted_shape}\n"
                             f"parametrized shape: {value.shape}")

    def _originals(self):
        if self.is_tensor:
            return (self.original,)
        return tuple(getattr(self, f"original{i}") for i in range(self.ntensors))

    def right_inverse(self, value):
        """Stores in the originals the tensor(s) whose parametrized value is `value`,
        by running every parametrization's right_inverse from the last to the first."""
        with torchlike.no_grad():
            for parametrization in reversed(self):
                inverse = getattr(parametrization, "right_inverse", None)
                if inverse is None:
                    raise RuntimeError(f"parametrization {type(parametrization).__name__} does not implement "
                                       "right_inverse.")
                value = inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _replace_data(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence) or isinstance(value, str):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, (target, piece) in enumerate(zip(self._originals(), value)):
                if not isinstance(piece, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors. Got element "
                                     f"{i} of type {type(piece).__name__}.")
                if piece.dtype != target.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {piece.dtype} while "
                                     f"`original{i}` has dtype {target.dtype}")
                _replace_data(target, piece)

    def forward(self):
        value = self[0](*self._originals())
        for parametrization in list(self)[1:]:
            value = parametrization(value)
        return value


# ---------------------------------------------------------------------------------------
# The per-module subclass and its properties.
def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _deepcopy_parametrized(self, memo):
    # Pickling is refused, so deepcopy cannot go through __reduce_ex__: build the copy
    # by hand, keeping the one-off class (each copy shares it, as properties are the same).
    clone = type(self).__new__(type(self))
    memo[id(self)] = clone
    for key, value in self.__dict__.items():
        object.__setattr__(clone, key, copy.deepcopy(value, memo))
    return clone


def _give_own_class(module):
    base = type(module)
    namespace = {
        "__getstate__": _refuse_pickling,
        "__deepcopy__": _deepcopy_parametrized,
        "__module__": __name__,
        "__doc__": f"{base.__name__} with parametrized tensors (see torchlike.nn.utils.parametrize).",
    }
    module.__class__ = type(f"Parametrized{base.__name__}", (base,), namespace)


def _add_property(module, tensor_name):
    def read(self):
        if _overrides:
            value = _overrides.get((id(self), tensor_name))
            if value is not None:
                return value
        plist = self.parametrizations[tensor_name]
        if not _cache_depth:
            return plist()
        key = (id(self), tensor_name)
        value = _cache.get(key)
        if value is None:
            value = plist()
            _cache[key] = value
        return value

    def write(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(read, write))


def _check_appended(module, tensor_name, parametrization):
    """The checks made when a parametrization is added to an existing list: it keeps
    the current value's shape and dtype, and so does its right_inverse."""
    with torchlike.no_grad():
        current = getattr(module, tensor_name)
        produced = parametrization(current)
        if not isinstance(produced, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(produced).__name__}.")
        where = f"module.{tensor_name}"
        if produced.dtype != current.dtype:
            raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless the "
                             f"`unsafe` flag is enabled.\n{where}.dtype: {current.dtype}\n"
                             f"parametrization({where}).dtype: {produced.dtype}")
        if produced.shape != current.shape:
            raise ValueError("Registering a parametrization may not change the shape of the tensor, unless the "
                             f"`unsafe` flag is enabled.\n{where}.shape: {current.shape}\n"
                             f"parametrization({where}).shape: {produced.shape}")
        inverse = getattr(parametrization, "right_inverse", None)
        if inverse is None:
            return
        back = inverse(produced)
        if not isinstance(back, Tensor):
            raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(back).__name__}")
        if back.dtype != current.dtype:
            raise ValueError("The tensor returned by parametrization.right_inverse must have the same dtype as "
                             f"{where}, unless the `unsafe` flag is enabled.\n{where}.dtype: {current.dtype}\n"
                             f"returned dtype: {back.dtype}")
        if back.shape != current.shape:
            raise ValueError("The tensor returned by parametrization.right_inverse must have the same shape as "
                             f"{where}, unless the `unsafe` flag is enabled.\n{where}.shape: {current.shape}\n"
                             f"returned shape: {back.shape}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes `module.<tensor_name>` the value of `parametrization` applied to stored
    tensor(s) (see the module docstring). A second parametrization on the same name is
    applied after the first. Unless `unsafe`, the parametrization must keep the
    tensor's shape and dtype. Returns module."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        plist.append(parametrization)
        plist.unsafe |= unsafe
        return module

    owned = tensor_name in module._parameters or tensor_name in module._buffers
    original = getattr(module, tensor_name, None) if owned else None
    if original is None:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
                         f"with name '{tensor_name}'")
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _give_own_class(module)
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    _add_property(module, tensor_name)
    return module


def is_parametrized(module, tensor_name=None):
    """Whether module has any parametrization (or one on tensor_name)."""
    plists = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(plists, ModuleDict):
        return False
    if tensor_name is None:
        return len(plists) > 0
    return tensor_name in plists


def type_before_parametrizations(module):
    """The class the module had before its first parametrization."""
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undoes the parametrizations of tensor_name. With leave_parametrized the tensor
    keeps its current (parametrized) value, otherwise it goes back to the stored
    original, which needs a single original tensor. Returns module."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        restored = plist.original
        if leave_parametrized:
            with torchlike.no_grad():
                value = getattr(module, tensor_name)
            if value.dtype == restored.dtype:
                _replace_data(restored, value)
            elif isinstance(restored, Parameter):  # an unsafe parametrization changed the dtype
                restored = Parameter(value.detach(), restored.requires_grad)
            else:
                restored = value.detach()
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        with torchlike.no_grad():
            value = getattr(module, tensor_name).detach()
        first = plist.original0
        restored = Parameter(value, first.requires_grad) if isinstance(first, Parameter) else value

    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(restored, Parameter):
        module.register_parameter(tensor_name, restored)
    else:
        module.register_buffer(tensor_name, restored)

    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type(module).__bases__[0]
    return module


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Gives to_module the parametrizations of from_module (all, or those of tensor_name),
    sharing the parametrization modules and the stored original tensors; a tensor that
    to_module lacks is created. Does nothing when from_module has no parametrization.
    Returns to_module."""
    if not is_parametrized(from_module):
        return to_module
    if tensor_name is None:
        names = list(from_module.parametrizations)
    else:
        if not is_parametrized(from_module, tensor_name):
            raise ValueError(f"Module {type(from_module).__name__} does not have a parametrization on "
                             f"{tensor_name}")
        names = [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            with torchlike.no_grad():
                value = getattr(from_module, name).detach().clone()
            setattr(to_module, name, Parameter(value, source._originals()[0].requires_grad))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if source.is_tensor:
            slots = ["original"]
        else:
            slots = [f"original{i}" for i in range(source.ntensors)]
        for slot in slots:
            shared = getattr(source, slot)
            if isinstance(shared, Parameter):
                target.register_parameter(slot, shared)
            else:
                target.register_buffer(slot, shared)
    return to_module
