import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

try:
    import torch as _torch  # noqa: F401  (optional parity reference: PyTorch 2.13.0 CPU)
    HAS_TORCH = True
except Exception:  # pragma: no cover
    HAS_TORCH = False

requires_torch = pytest.mark.skipif(not HAS_TORCH, reason="PyTorch (parity reference) is not installed")
