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


def pytest_terminal_summary(terminalreporter):
    """Test time by area (file), so CI's log shows where its minutes go."""
    per_file = {}
    for reports in terminalreporter.stats.values():
        for r in reports:
            nodeid, duration = getattr(r, "nodeid", None), getattr(r, "duration", None)
            if nodeid and duration is not None:
                area = nodeid.split("::", 1)[0]
                per_file[area] = per_file.get(area, 0.0) + duration
    if not per_file:
        return
    terminalreporter.write_sep("-", "test time by area (summed over workers)")
    for area, t in sorted(per_file.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{t:8.1f} s  {area}")
