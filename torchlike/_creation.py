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
    t.requires_grad_(True)
    return t


# Factories with an out= overload. The out overloads' schemas carry no
# dtype/device (the result takes out's), so, as in PyTorch, dtype=/device=
# given together with out= must agree with out and are then dropped here.
_WITH_OUT = {"zeros", "ones", "full", "arange", "linspace", "eye", "rand", "randn", "randint", "randperm"}


def _check_out_options(name, out, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    kwargs.pop("layout", None)
    kwargs.pop("pin_memory", None)
    if dtype is not None and dtype != out.dtype:
        raise RuntimeError(f"{name}(): dtype {dtype} does not match dtype of out parameter ({out.dtype})")
    if device is not None and _C.device(device) != out.device:
        raise RuntimeError(f"{name}(): device {device} does not match device of out parameter ({out.device})")


def _with_requires_grad(name):
    fn = getattr(_F, name)
    has_out = name in _WITH_OUT

    def factory(*args, requires_grad=False, **kwargs):
        if has_out and kwargs.get("out") is not None:
            _check_out_options(name, kwargs["out"], kwargs)
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
