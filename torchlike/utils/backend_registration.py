"""torchlike.utils.backend_registration: naming an out-of-tree PrivateUse1
backend, under the module name PyTorch gives these functions (they are also
torchlike.utils.rename_privateuse1_backend and
torchlike.utils.generate_methods_for_privateuse1_backend). See
torchlike/_privateuse1.py and docs/writing_a_backend.md."""
from torchlike._privateuse1 import (  # noqa: F401
    _get_privateuse1_backend_name, generate_methods_for_privateuse1_backend, rename_privateuse1_backend)

__all__ = ["rename_privateuse1_backend", "generate_methods_for_privateuse1_backend"]
