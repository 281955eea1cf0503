"""Run PyTorch programs on torchlike without changing them.

`torchlike.as_torch.install()` puts an import finder in front of sys.meta_path that
answers every `torch` / `torch.<sub>` import with the matching `torchlike` module, so
`import torch`, `import torch.nn as nn` and `from torch.utils.data import DataLoader`
all bind torchlike's objects. An installed PyTorch is never imported or modified: the
finder only changes what the name `torch` means inside this process.

    python -m torchlike.as_torch script.py [args...]
    python -m torchlike.as_torch -m package.module [args...]
"""
import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install", "uninstall", "is_installed", "main"]

_ALIAS = "torch"
_TARGET = "torchlike"


def _target_name(fullname):
    if fullname == _ALIAS:
        return _TARGET
    if fullname.startswith(_ALIAS + "."):
        return _TARGET + fullname[len(_ALIAS):]
    return None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        # The torchlike module itself becomes sys.modules["torch..."], so both names
        # give the same objects (isinstance checks, module globals, monkeypatching).
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        target_name = _target_name(fullname)
        if target_name is None:
            return None
        if importlib.util.find_spec(target_name) is None:
            return None  # torch.<sub> that torchlike lacks: the usual ModuleNotFoundError
        is_package = hasattr(importlib.import_module(target_name), "__path__")
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name), is_package=is_package)


_finder = _TorchAliasFinder()


def is_installed():
    return _finder in sys.meta_path


def install():
    """Makes `import torch` (and every torch submodule) resolve to torchlike in this process.

    Raises RuntimeError if the real PyTorch was already imported here: two libraries
    would then answer to one name."""
    existing = sys.modules.get(_ALIAS)
    if existing is not None and getattr(existing, "__name__", None) != _TARGET:
        raise RuntimeError("torchlike.as_torch.install(): the real `torch` is already imported in this "
                           "process; call install() before anything imports torch")
    if not is_installed():
        sys.meta_path.insert(0, _finder)
    import torchlike
    sys.modules[_ALIAS] = torchlike
    # Submodules torchlike has already imported answer to their torch.* names at once.
    for name, module in list(sys.modules.items()):
        if name.startswith(_TARGET + ".") and module is not None:
            sys.modules.setdefault(_ALIAS + name[len(_TARGET):], module)
    return torchlike


def uninstall():
    """Removes the finder and the torch.* aliases it created."""
    if is_installed():
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == _ALIAS or n.startswith(_ALIAS + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(_TARGET):
            del sys.modules[name]


_USAGE = "usage: python -m torchlike.as_torch script.py [args...] | -m module [args...]"


def main(argv=None):
    import runpy
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        import os
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
