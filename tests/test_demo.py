"""README's demo (examples/train_digits.py) trains to high accuracy, reloads its
checkpoint to the same accuracy, and writes its plot. Needs the demo extra."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_train_digits_demo(tmp_path):
    for mod in ("sklearn", "tqdm", "matplotlib"):
        pytest.importorskip(mod)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "train_digits.py"), "--epochs", "6",
                          "--no-progress", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600,
                         env=env)
    assert out.returncode == 0, out.stderr[-4000:]
    accs = [float(line.split("test accuracy ")[1].rstrip("%")) for line in out.stdout.splitlines()
            if line.startswith("epoch")]
    assert len(accs) == 6 and accs[-1] >= 97.0, out.stdout
    assert "Total params: 151,498" in out.stdout  # the summary table
    assert "(same as before saving)" in out.stdout
    assert (tmp_path / "digits_curves.png").stat().st_size > 1000
    assert (tmp_path / "digits_cnn.pt").exists()
