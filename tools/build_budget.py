"""Measures the build budget of issue 9 in CPU seconds, which stay meaningful
on a machine shared with other builds (wall-clock times there are not).

    python tools/build_budget.py [--jobs 2] [--only SUBSTRING ...]

Needs a configured build (python setup.py build_ninja). Every compile command
of build/ninja/build.ninja is rerun without ccache, writing to a temporary
folder (the build's own objects are untouched); each command's CPU time
(user + system, from wait4) is recorded. Reported: CPU seconds by kind of
source, the clean-build wall time they imply on --jobs idle cores (their
sum / jobs, bounded below by the longest file), the generated code's cost per
YAML entry and the projection to 600 operators.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NINJA_DIR = os.path.join(ROOT, "build", "ninja")


def kind_of(out):
    name = os.path.basename(out)
    for prefix, kind in (("build_generated_kernels_cpu_", "generated CPU kernel files"),
                         ("build_generated_ops_", "generated per-op files (one-file layout)"),
                         ("build_generated_registration_", "generated registration shards"),
                         ("build_generated_autograd_", "generated autograd shards"),
                         ("build_generated_python_", "generated python shards"),
                         ("build_generated_", "generated other"), ("csrc_", "handwritten csrc")):
        if name.startswith(prefix):
            return kind
    return "precompiled headers" if name.endswith(".gch") else "other"


def commands():
    text = subprocess.run(["ninja", "-C", NINJA_DIR, "-t", "commands"], capture_output=True, text=True,
                          check=True).stdout
    out = []
    for line in text.splitlines():
        if " -c " not in line and "-x c++-header" not in line:
            continue  # the link
        line = re.sub(r"^.*?\bccache ", "", line)  # no ccache: measure the compiler
        target = re.search(r" -o (\S+)", line).group(1)
        out.append((target, line))
    return out


def run(cmds, jobs, tmp):
    """[(target, cpu seconds, wall seconds)], running `jobs` at a time."""
    pending, running, done = list(cmds), {}, []
    while pending or running:
        while pending and len(running) < jobs:
            target, cmd = pending.pop(0)
            if target.endswith(".gch"):
                # Rebuild the PCH elsewhere; dependents keep using the build's own.
                dest = os.path.join(tmp, os.path.basename(target))
            else:
                dest = os.path.join(tmp, os.path.basename(target))
            cmd = cmd.replace(f"-o {target}", f"-o {dest}").replace(f"-MF {target}.d", f"-MF {dest}.d")
            p = subprocess.Popen(cmd, shell=True, cwd=NINJA_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            running[p.pid] = (target, time.perf_counter())
        pid, status, usage = os.wait4(-1, 0)
        if pid not in running:
            continue
        target, t0 = running.pop(pid)
        if status != 0:
            sys.exit(f"failed: {target}")
        done.append((target, usage.ru_utime + usage.ru_stime, time.perf_counter() - t0))
    return done


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", help="measure only targets containing one of these")
    ap.add_argument("--yaml-entries", type=int, default=None, help="default: count '- func:' in native_functions.yaml")
    ap.add_argument("--build-dir", default=None, help="another checkout's build/ninja (to compare layouts)")
    a = ap.parse_args(argv)
    global NINJA_DIR
    NINJA_DIR = a.build_dir or NINJA_DIR
    cmds = commands()
    if a.only:
        cmds = [c for c in cmds if any(s in c[0] for s in a.only)]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        done = run(cmds, a.jobs, tmp)
        wall = time.perf_counter() - t0
    by_kind = collections.defaultdict(list)
    for target, cpu, _ in done:
        by_kind[kind_of(target)].append(cpu)
    total = sum(cpu for _, cpu, _ in done)
    print(f"{'kind':32s} {'files':>5s} {'CPU s':>8s} {'max s':>6s}")
    for kind, cpus in sorted(by_kind.items()):
        print(f"{kind:32s} {len(cpus):5d} {sum(cpus):8.1f} {max(cpus):6.1f}")
    longest = max(cpu for _, cpu, _ in done)
    print(f"{'total':32s} {len(done):5d} {total:8.1f}   (wall here {wall:.0f} s, machine shared)")
    print(f"clean build on {a.jobs} idle cores: about {max(total / a.jobs, longest):.0f} s of compiling, plus the link")
    entries = a.yaml_entries or read_entries()
    generated = sum(sum(c) for k, c in by_kind.items() if k.startswith("generated"))
    fixed = total - generated
    per_op = generated / entries
    print(f"generated code: {generated:.1f} CPU s for {entries} YAML entries = {per_op:.2f} CPU s per entry")
    print(f"projection at 600 entries: ({fixed:.0f} + 600 x {per_op:.2f}) / {a.jobs} = "
          f"{(fixed + 600 * per_op) / a.jobs:.0f} s")
    for target, cpu, _ in sorted(done, key=lambda d: -d[1])[:12]:
        print(f"  {cpu:6.1f}  {os.path.basename(target)}")


def read_entries():
    with open(os.path.join(ROOT, "native_functions.yaml")) as fh:
        return sum(1 for line in fh if line.startswith("- func:"))


if __name__ == "__main__":
    main()
