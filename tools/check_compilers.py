#!/usr/bin/env python3
"""Compiles the whole C++ tree, generated files included, with every compiler
at hand, so code that one compiler accepts and another rejects is caught here
rather than on a user's machine (GCC 13 wanted <algorithm> where GCC 12 did
not; Clang rejects capturing a structured binding in a lambda under C++17).

    python tools/check_compilers.py [--jobs N] [--only gcc|clang-libc++|...]

For each configuration it runs `-fsyntax-only -std=c++17` over every
translation unit (csrc/**/*.cpp and build/generated's sources; the generator
runs first) and prints the first errors of each failing file. Configurations:

  gcc           the default g++ (GCC 12 on Debian 12)
  gcc-<N>       any other g++-<N> found on PATH (g++-13, g++-14, ...)
  clang-libc++  clang++ with -stdlib=libc++: a different standard library,
                so a missing #include shows even where libstdc++ pulls it in
                transitively. Install: apt-get install clang libc++-dev
                libc++abi-dev libomp-dev

Exit status is non-zero when any configuration fails, and 2 when none could run.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN_DIR = os.path.join(ROOT, "build", "generated")


def _version(cmd):
    return subprocess.run([cmd, "--version"], capture_output=True, text=True).stdout.splitlines()[0]


def _gcc_release(cmd):
    return subprocess.run([cmd, "-dumpfullversion"], capture_output=True, text=True).stdout.strip()


def configurations():
    configs = []
    default_gcc = None
    if shutil.which("g++"):
        configs.append(("gcc", ["g++"]))
        default_gcc = _gcc_release("g++")
    seen = set()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        for path in glob.glob(os.path.join(d, "g++-[0-9]*")):
            name = os.path.basename(path)
            if re.fullmatch(r"g\+\+-\d+", name) and name not in seen:
                seen.add(name)
                if _gcc_release(path) == default_gcc:  # g++-12 when g++ is GCC 12: checked already
                    continue
                configs.append(("gcc-" + name.split("-")[1], [path]))
    if shutil.which("clang++"):
        configs.append(("clang-libc++", ["clang++", "-stdlib=libc++"]))
    return configs


def sources():
    sys.path.insert(0, ROOT)
    from codegen.gen import generate
    generate(os.path.join(ROOT, "native_functions.yaml"), GEN_DIR, os.path.join(ROOT, "torchlike", "_C"))
    generated = []
    for lst in sorted(glob.glob(os.path.join(GEN_DIR, "sources_*.txt"))):  # (not a stale pre-split sources.txt)
        with open(lst) as fh:
            generated += [line.strip() for line in fh if line.strip()]
    handwritten = sorted(glob.glob(os.path.join(ROOT, "csrc", "**", "*.cpp"), recursive=True))
    return handwritten + sorted(set(generated))


def include_flags():
    flags = [f"-I{os.path.join(ROOT, 'csrc')}", f"-I{GEN_DIR}", f"-I{sysconfig.get_paths()['include']}"]
    try:
        import scipy_openblas32 as ob
        flags.append(f"-I{ob.get_include_dir()}")
    except ImportError:
        pass
    return flags


def check_one(cmd, src):
    full = cmd + ["-fsyntax-only", "-std=c++17", "-fopenmp", "-Wno-unknown-pragmas"] + include_flags() + [src]
    p = subprocess.run(full, capture_output=True, text=True)
    return src, p.returncode, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", action="append", help="configuration name(s) to run")
    a = ap.parse_args()
    configs = [c for c in configurations() if not a.only or c[0] in a.only]
    if not configs:
        print("no compiler configuration available", file=sys.stderr)
        return 2
    srcs = sources()
    failed = False
    for name, cmd in configs:
        version = _version(cmd[0])
        with ThreadPoolExecutor(a.jobs) as ex:
            results = list(ex.map(lambda s: check_one(cmd, s), srcs))
        bad = [(s, err) for s, rc, err in results if rc != 0]
        print(f"{name:14s} {version}: {len(srcs) - len(bad)}/{len(srcs)} files ok")
        for s, err in bad:
            failed = True
            errors = [ln for ln in err.splitlines() if "error" in ln][:3]
            print(f"  FAIL {os.path.relpath(s, ROOT)}")
            for ln in errors:
                print(f"    {ln}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
