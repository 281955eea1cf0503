"""`import torchlike` stays light: NumPy is imported only when first needed."""
import subprocess
import sys


def test_import_does_not_import_numpy():
    code = "import sys, torchlike; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_numpy_interop_imports_numpy_on_demand():
    code = ("import sys, torchlike; t = torchlike.ones(2); a = t.numpy(); "
            "print('numpy' in sys.modules, type(a).__name__, a.tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True ndarray [1.0, 1.0]"
