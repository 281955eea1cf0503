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


# ---------------------------------------------------------------- mixed precision (issue 12)

def _run_with_scales(script, *extra, real_torch=False):
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if real_torch:
        cmd = [sys.executable, os.path.join(HERE, script)]
    else:
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        cmd = [sys.executable, "-m", "torchlike.as_torch", os.path.join(HERE, script)]
    out = subprocess.run(cmd + list(extra), capture_output=True, text=True, timeout=600, env=env, cwd=HERE)
    assert out.returncode == 0, f"{script} failed:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    rows = [line.split() for line in out.stdout.splitlines()]
    losses = [float(r[2]) for r in rows if r[0] == "loss"]
    scales = [float(r[2]) for r in rows if r[0] == "scale"]
    return losses, scales


AMP_STEPS = 16
AMP_TOL = 0.05  # bf16 keeps 8 bits of mantissa: loss curves drift a few percent over 16 Adam steps


def test_amp_cnn_bf16_and_fp16_scaler_track_float32():
    ref, _ = _run_with_scales("cnn_amp.py", "--steps", str(AMP_STEPS), "--mode", "fp32")
    bf16, _ = _run_with_scales("cnn_amp.py", "--steps", str(AMP_STEPS), "--mode", "bf16")
    assert len(ref) == len(bf16) == AMP_STEPS and ref[-1] < 0.5 * ref[0]
    for step, (a, b) in enumerate(zip(bf16, ref)):
        assert abs(a - b) <= AMP_TOL * max(1.0, abs(b)), f"bf16 step {step}: {a} vs fp32 {b}\n{bf16}\n{ref}"
    init = 2.0 ** 20
    fp16, scales = _run_with_scales("cnn_amp.py", "--steps", str(AMP_STEPS), "--mode", "fp16",
                                    "--init-scale", str(init))
    # the scale started high enough to overflow: it backed off, and grew again
    # after growth_interval (3) clean steps
    assert min(scales) < init
    assert any(b == 2 * a for a, b in zip(scales, scales[1:]))
    skipped = [i for i, (s0, s1) in enumerate(zip([init] + scales, scales)) if s1 < s0]
    assert skipped and all(fp16[i + 1] == fp16[i] for i in skipped if i + 1 < len(fp16))
    applied = [l for i, l in enumerate(fp16) if i == 0 or i - 1 not in skipped]
    for step, (a, b) in enumerate(zip(applied, ref)):
        assert abs(a - b) <= 2e-2 * max(1.0, abs(b)), f"fp16 update {step}: {a} vs fp32 {b}\n{applied}\n{ref}"


@requires_torch
def test_amp_cnn_matches_pytorch_from_same_weights(tmp_path):
    init = str(tmp_path / "init.pt")
    for mode, tol in (("bf16", 3e-2), ("fp16", 1e-2)):
        ref, ref_scales = _run_with_scales("cnn_amp.py", "--steps", "10", "--mode", mode,
                                           "--save-init", init, real_torch=True)
        ours, scales = _run_with_scales("cnn_amp.py", "--steps", "10", "--mode", mode, "--load-init", init)
        if mode == "fp16":
            assert scales[:3] == ref_scales[:3], (scales, ref_scales)  # the same overflow decisions at the start
        for step, (a, b) in enumerate(zip(ours, ref)):
            assert abs(a - b) <= tol * max(1.0, abs(b)), f"{mode} step {step}: {a} vs {b}\n{ours}\n{ref}"


# ---------------------------------------------------------------- on the GPU (issue 13)

def _cuda_available():
    import torchlike
    return torchlike.cuda.is_available()


@pytest.mark.skipif(not _cuda_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_on_cuda_tracks_cpu_from_same_weights(script, tmp_path):
    """The same script, model and batches on CUDA and on the CPU: the loss
    curves agree within float32 reordering (TF32 is off by default)."""
    steps, rtol = SCRIPTS[script]
    init = str(tmp_path / "init.pt")
    cpu = _run(script, "--steps", str(steps), "--save-init", init)
    gpu = _run(script, "--steps", str(steps), "--load-init", init, "--device", "cuda")
    assert len(cpu) == len(gpu) == steps
    for step, (a, b) in enumerate(zip(gpu, cpu)):
        assert abs(a - b) <= max(10 * rtol, 1e-3) * max(1.0, abs(b)), f"step {step}: cuda {a} vs cpu {b}\n{gpu}\n{cpu}"


@pytest.mark.skipif(not _cuda_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("mode", ["bf16", "fp16"])
def test_amp_cnn_on_cuda_trains_and_tracks_float32(mode, tmp_path):
    """AutocastCUDA (float16 with GradScaler("cuda"), or bfloat16) against the
    float32 run of the same script on the GPU."""
    init = str(tmp_path / "init.pt")
    ref, _ = _run_with_scales("cnn_amp.py", "--steps", "8", "--mode", "fp32", "--device", "cuda", "--save-init", init)
    amp, scales = _run_with_scales("cnn_amp.py", "--steps", "8", "--mode", mode, "--device", "cuda",
                                   "--load-init", init)
    assert all(l == l for l in amp) and min(amp[-3:]) < amp[0]
    for a, b in zip(amp, ref):
        assert abs(a - b) <= 5e-2 * max(1.0, abs(b)), (amp, ref)
    if mode == "fp16":
        assert len(scales) == 8 and all(s > 0 for s in scales)
