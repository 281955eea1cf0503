"""Creation functions: the generated factory operators plus PyTorch's
`requires_grad=` keyword, which is a Python-level option (it is not part of
an operator's schema, so the generated bindings do not take it)."""
from torchlike import _C

_F = _C._VariableFunctions

# Factories that take requires_grad= in PyTorch.
_FACTORIES = (
    "tensor", "empty", "empty_strided", "zeros", "ones", "full", "arange", "linspace", "eye",
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "randint_like",
    "rand", "randn", "randint", "randperm",
)


def _set_requires_grad(t):
    if not hasattr(t, "requires_grad_"):
        raise NotImplementedError("requires_grad=True needs autograd, which this torchlike build does not have yet")
    t.requires_grad_(True)
    return t


def _with_requires_grad(name):
    fn = getattr(_F, name)

    def factory(*args, requires_grad=False, **kwargs):
        t = fn(*args, **kwargs)
        if requires_grad:
            _set_requires_grad(t)
        return t

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = fn.__doc__
    return factory


for _name in _FACTORIES:
    globals()[_name] = _with_requires_grad(_name)

as_tensor = _F.as_tensor
from_numpy = _F.from_numpy

__all__ = list(_FACTORIES) + ["as_tensor", "from_numpy"]
