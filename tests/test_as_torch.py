"""torchlike.as_torch: `import torch` inside a program resolves to torchlike."""
import os
import subprocess
import sys
import textwrap


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _run(args, script=None, tmp_path=None):
    if script is not None:
        path = tmp_path / "prog.py"
        path.write_text(textwrap.dedent(script))
        args = [str(path)] + list(args)
    return subprocess.run([sys.executable, "-m", "torchlike.as_torch"] + list(args), capture_output=True,
                          text=True, timeout=120, env=ENV)


def test_import_forms_resolve_to_torchlike(tmp_path):
    out = _run(["x", "--flag"], """
        import sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.nn import Linear
        import torchlike
        assert torch is torchlike and nn is torchlike.nn and F is torchlike.nn.functional
        assert Linear is torchlike.nn.Linear
        assert sys.modules["torch.nn"] is torchlike.nn
        assert __name__ == "__main__"
        print("ARGV", sys.argv[1:])
        try:
            import torch.no_such_module
        except ModuleNotFoundError as e:
            print("MISSING", e.name)
    """, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "ARGV ['x', '--flag']" in out.stdout
    assert "MISSING torch.no_such_module" in out.stdout


def test_script_errors_propagate(tmp_path):
    out = _run([], "import torch\nraise SystemExit(3)\n", tmp_path)
    assert out.returncode == 3
    out = _run([], "import torch\nraise ValueError('boom')\n", tmp_path)
    assert out.returncode != 0 and "ValueError: boom" in out.stderr


def test_module_mode(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "run.py").write_text("import torch\nprint('MOD', torch.__name__, torch.ones(2).sum().item())\n")
    env = dict(ENV, PYTHONPATH=str(tmp_path) + os.pathsep + ENV["PYTHONPATH"])
    out = subprocess.run([sys.executable, "-m", "torchlike.as_torch", "-m", "mypkg.run"], capture_output=True,
                         text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert "MOD torchlike 2.0" in out.stdout


def test_usage_without_arguments():
    out = subprocess.run([sys.executable, "-m", "torchlike.as_torch"], capture_output=True, text=True, timeout=60, env=ENV)
    assert out.returncode == 2 and "usage:" in out.stderr


def test_install_and_uninstall_in_process():
    code = textwrap.dedent("""
        import sys
        import torchlike.as_torch as at
        at.install()
        import torch
        import torchlike
        assert torch is torchlike and at.is_installed()
        at.uninstall()
        assert not at.is_installed() and "torch" not in sys.modules
        print("OK")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=ENV)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr


def test_install_refuses_when_real_torch_is_loaded():
    code = textwrap.dedent("""
        import sys, types
        sys.modules["torch"] = types.ModuleType("torch")   # stands in for an imported PyTorch
        import torchlike.as_torch as at
        try:
            at.install()
        except RuntimeError as e:
            print("REFUSED", "already imported" in str(e))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=ENV)
    assert "REFUSED True" in out.stdout, out.stderr
