"""Unmodified PyTorch-style training scripts (tests/e2e/*.py, written with `import torch`)
run on torchlike through `python -m torchlike.as_torch`. Each must train (finite loss
that goes down). With PyTorch installed, the same script runs on PyTorch first, saves
its initial weights with torch.save, and torchlike starts from that file: the two loss
curves must agree step by step."""
import os
import subprocess
import sys

import pytest

from conftest import requires_torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "e2e")
SCRIPTS = {
    # script: (steps, relative tolerance per step against PyTorch)
    "mlp.py": (20, 2e-4),
    "cnn.py": (8, 2e-4),
    "lstm_lm.py": (8, 2e-4),
    "gpt.py": (6, 2e-3),
}


def _run(script, *extra, real_torch=False, env_extra=None):
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    # The torchlike under test is this checkout's, whatever is installed.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not real_torch:
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra or {})
    if real_torch:
        cmd = [sys.executable, os.path.join(HERE, script)]
    else:
        cmd = [sys.executable, "-m", "torchlike.as_torch", os.path.join(HERE, script)]
    out = subprocess.run(cmd + list(extra), capture_output=True, text=True, timeout=600, env=env, cwd=HERE)
    assert out.returncode == 0, f"{script} failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    losses = [float(line.split()[2]) for line in out.stdout.splitlines() if line.startswith("loss ")]
    return losses


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_trains_on_torchlike(script):
    steps, _ = SCRIPTS[script]
    losses = _run(script, "--steps", str(steps))
    assert len(losses) == steps
    assert all(l == l and abs(l) < 1e6 for l in losses)
    assert min(losses[-3:]) < losses[0], losses


@requires_torch
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_matches_pytorch_from_same_weights(script, tmp_path):
    steps, rtol = SCRIPTS[script]
    init = str(tmp_path / "init.pt")
    ref = _run(script, "--steps", str(steps), "--save-init", init, real_torch=True)
    ours = _run(script, "--steps", str(steps), "--load-init", init)
    assert len(ref) == len(ours) == steps
    for step, (a, b) in enumerate(zip(ours, ref)):
        assert abs(a - b) <= rtol * max(1.0, abs(b)), f"step {step}: torchlike {a} vs PyTorch {b}\n{ours}\n{ref}"
