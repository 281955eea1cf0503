"""Utilities outside the tensor API: data loading, checkpointing, hooks, model summary,
TensorBoard logging, C++ extensions.

Submodules are imported on first use (`torchlike.utils.data` after a bare
`import torchlike` works), so `import torchlike` stays fast and NumPy-free."""
import importlib

_SUBMODULES = ("data", "checkpoint", "hooks", "tensorboard", "cpp_extension", "summary")


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        if name == "summary" and hasattr(module, "summary"):
            return module.summary
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
