"""Utilities outside the tensor API: data loading, checkpointing, hooks, model summary,
TensorBoard logging, C++ extensions, and naming a PrivateUse1 backend
(rename_privateuse1_backend, generate_methods_for_privateuse1_backend).

Submodules are imported on first use (`torchlike.utils.data` after a bare
`import torchlike` works), so `import torchlike` stays fast and NumPy-free."""
import importlib

from torchlike._privateuse1 import generate_methods_for_privateuse1_backend, rename_privateuse1_backend  # noqa: F401

_SUBMODULES = ("data", "checkpoint", "hooks", "tensorboard", "cpp_extension", "summary", "backend_registration")


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        if name == "summary" and hasattr(module, "summary"):
            # Importing the submodule bound the package attribute to the module;
            # rebind it to the function so that later lookups get the function too.
            globals()["summary"] = module.summary
            return module.summary
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
