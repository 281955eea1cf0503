"""Time from editing an extension's YAML to a working operator.

    python tools/bench/bench_extension_yaml.py [--edits N] [--cold N]

Builds tests/extensions/yaml_ops.yaml (+ yaml_ops.cpp) with
cpp_extension.load(..., functions_yaml=...) and prints:

- cold: an empty build folder to a callable operator (generator, every
  compile, link, load), in a fresh process each time, so nothing is cached;
- warm edit: one entry's `expr` edited, then load() again in the same
  process until the edited operator returns the new values (generator on the
  changed file, ninja recompiling that operator's kernel file, link, load);
- no-op reload: load() again with nothing changed (generator + ninja's check);
- the generator alone (warm, the core's YAML already parsed in the process).

Medians over the repeats (builds are seconds long, so fewer than the
op benchmarks' 15; each repeat is a full build). There is no PyTorch figure
to compare with: PyTorch has no YAML workflow for extensions."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import torchlike as tl  # noqa: E402
from torchlike.utils import cpp_extension as ce  # noqa: E402

EXT = os.path.join(ROOT, "tests", "extensions")
EXPR = 'expr: "limit * self / (limit + abs(self))"'

COLD = """\
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[4])
import torchlike as tl
from torchlike.utils import cpp_extension as ce
ops = ce.load("yamlops_bench", [sys.argv[1]], functions_yaml=sys.argv[2], build_directory=sys.argv[3])
assert float(ops.soft_clip(tl.tensor([1.0]))) == 0.5
print(time.perf_counter() - t0)
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--edits", type=int, default=5)
    p.add_argument("--cold", type=int, default=3)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        yaml_path = os.path.join(tmp, "yaml_ops.yaml")
        shutil.copy(os.path.join(EXT, "yaml_ops.yaml"), yaml_path)
        cpp = os.path.join(EXT, "yaml_ops.cpp")

        cold = []
        for i in range(a.cold):
            build = os.path.join(tmp, f"cold{i}")
            r = subprocess.run([sys.executable, "-c", COLD, cpp, yaml_path, build, ROOT], capture_output=True,
                               text=True, check=True)
            cold.append(float(r.stdout.strip().splitlines()[-1]))

        build = os.path.join(tmp, "warm")
        ops = ce.load("yamlops_bench", [cpp], functions_yaml=yaml_path, build_directory=build)
        x = tl.tensor([1.0, -3.0])
        reload = []
        for _ in range(a.edits):
            t0 = time.perf_counter()
            ce.load("yamlops_bench", [cpp], functions_yaml=yaml_path, build_directory=build)
            reload.append(time.perf_counter() - t0)
        with open(yaml_path) as fh:
            original = fh.read()
        assert EXPR in original
        edits = []
        for k in range(1, a.edits + 1):
            # A new scale each time, so each edit is a real change of the kernel.
            with open(yaml_path, "w") as fh:
                fh.write(original.replace(EXPR, f'expr: "{k + 1} * limit * self / (limit + abs(self))"'))
            t0 = time.perf_counter()
            ops = ce.load("yamlops_bench", [cpp], functions_yaml=yaml_path, build_directory=build)
            got = ops.soft_clip(x).numpy()
            edits.append(time.perf_counter() - t0)
            np.testing.assert_allclose(got, (k + 1) * np.array([0.5, -0.75]), rtol=1e-6)

        gen_times = []
        from codegen import gen
        for _ in range(a.edits):
            t0 = time.perf_counter()
            gen.generate([yaml_path], os.path.join(tmp, "gen_only"), None, context=[ce._core_yaml()], nshards=1,
                         include_root=ce.include_paths()[0])
            gen_times.append(time.perf_counter() - t0)

    jobs = os.environ.get("MAX_JOBS", "ninja default")
    print(f"extension YAML -> working op ({os.cpu_count()} cores, MAX_JOBS={jobs})")
    print(f"  cold build + load (fresh process, median of {a.cold}): {statistics.median(cold):6.2f} s"
          f"   [{', '.join(f'{c:.2f}' for c in cold)}]")
    print(f"  warm: edit one entry's expr -> op returns new values (median of {a.edits}): "
          f"{statistics.median(edits):6.2f} s   [{', '.join(f'{e:.2f}' for e in edits)}]")
    print(f"  no-op reload (nothing changed):           {statistics.median(reload):6.3f} s")
    print(f"  generator alone (core YAML parsed once):  {statistics.median(gen_times):6.3f} s")


if __name__ == "__main__":
    main()
