"""Build torchlike: run the operator generator, then compile csrc/ and the
generated sources with ninja into two shared libraries: libtorchlike.so, the
C++ core (c10, aten, autograd, generated kernels and registrations; no Python),
and torchlike._C, the Python bindings, which links to it. Both are installed
side by side in the torchlike/ package, with the public C++ headers in
torchlike/include (see torchlike.utils.cpp_extension).

The ninja build lives in build/ninja (persistent across builds, compiler
depfiles, so a header edit rebuilds exactly its dependents). Generated files
are only rewritten when their text changes, so an edit of one YAML entry
recompiles its kernel file and at most one shard per layer, then relinks.
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(ROOT, "build")
NINJA_DIR = os.path.join(BUILD, "ninja")
GEN_DIR = os.path.join(BUILD, "generated")
# The C++ core (no Python); torchlike._C links to it.
CORE_LIB = "libtorchlike.so"
# The CUDA kernels and runtime (TORCHLIKE_CUDA), linked to the core.
CUDA_LIB = "libtorchlike_cuda.so"


def _ninja_escape(s: str) -> str:
    return s.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def cuda_config():
    """The CUDA part of the build, or None when it is not built.

    TORCHLIKE_CUDA=0: never. 1: always (nvcc must be found; no driver or GPU is
    needed). nvcc: wherever nvcc is found, driver or not: README's test
    command uses it, so CI compiles every .cu file on a machine without a GPU
    and a machine without nvcc still tests the CPU build. auto (default): only
    where nvcc is found and the driver library loads, so a CPU-only machine's
    default build is the CPU build, in time and result.
    TORCHLIKE_CUDA_ARCH: compute capabilities, e.g. "90" or "8.0;9.0" (default 80 and 90)."""
    mode = os.environ.get("TORCHLIKE_CUDA", "auto").strip().lower()
    if mode not in ("auto", "0", "1", "nvcc"):
        sys.exit(f"error: TORCHLIKE_CUDA must be auto, nvcc, 0 or 1, not {mode!r}")
    if mode == "0":
        return None
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    nvcc = shutil.which("nvcc") or (os.path.join(home, "bin", "nvcc")
                                    if os.access(os.path.join(home, "bin", "nvcc"), os.X_OK) else None)
    if nvcc is None:
        if mode == "1":
            sys.exit("error: TORCHLIKE_CUDA=1 but nvcc was found neither on PATH nor in $CUDA_HOME/bin")
        return None
    if mode == "auto":
        import ctypes
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError:
            return None
    archs = []
    for a in os.environ.get("TORCHLIKE_CUDA_ARCH", "80;90").replace(",", ";").replace(" ", ";").split(";"):
        a = a.strip().lower().removeprefix("sm_").replace(".", "")
        if not a:
            continue
        if not a.isdigit():
            sys.exit(f"error: TORCHLIKE_CUDA_ARCH entry {a!r} is not a compute capability such as 90 or 9.0")
        archs.append(a)
    if not archs:
        sys.exit("error: TORCHLIKE_CUDA_ARCH names no architecture")
    return {"nvcc": nvcc, "archs": archs}


def _openblas():
    import scipy_openblas32 as ob
    return ob.get_include_dir(), ob.get_lib_dir(), ob.get_library()


def write_build_ninja(core_sources, python_sources, out_core, out_ext, pch_kind,
                      cuda=None, cuda_sources=(), out_cuda=None):
    """Two link targets: the core library out_core (libtorchlike.so: c10, aten,
    autograd, generated kernels and registrations; no Python) and the Python
    extension out_ext (torchlike._C), which links to it.
    pch_kind: generated source -> "core" or "python" (which precompiled header it gets)."""
    py_inc = sysconfig.get_paths()["include"]
    ob_inc, ob_lib, ob_name = _openblas()
    cxx = os.environ.get("CXX", "g++")
    # ccache, when present, shares object files between checkouts (worktrees, CI reruns).
    # Paths under the checkout's parent are hashed relative, so sibling checkouts hit.
    ccache = ""
    if shutil.which("ccache") and os.environ.get("TORCHLIKE_CCACHE", "1") != "0":
        ccache = (f"CCACHE_BASEDIR={shlex.quote(os.path.dirname(ROOT))} CCACHE_NOHASHDIR=1 "
                  f"CCACHE_SLOPPINESS=pch_defines,time_macros ccache ")
    host_cxx = cxx
    cxx = ccache + cxx
    # Hand-written files (reductions, copies, BLAS glue) get -O3. Generated
    # files get -O2 with -O3's vectoriser cost model: their loops are the
    # `#pragma omp simd` loops of Loops.h, vectorised the same either way, and
    # -O3's extra loop transforms (unswitching, versioning, peeling) of every
    # dtype's instantiation doubled their compile time for no measured speed.
    # TORCHLIKE_OPT overrides both.
    opt = os.environ.get("TORCHLIKE_OPT", "-O3")
    gen_opt = os.environ.get("TORCHLIKE_OPT", "-O2 -fvect-cost-model=dynamic")
    # TORCHLIKE_ARCH: "native" (default: fastest here, not portable), a -march
    # level such as "x86-64-v3" for a binary that runs on any AVX2 machine, or
    # raw compiler flags starting with "-".
    arch = os.environ.get("TORCHLIKE_ARCH", "native").strip()
    if not arch.startswith("-"):
        arch = f"-march={arch}"
    cflags = [arch, "-g0", "-std=c++17", "-fPIC", "-fopenmp", "-fno-math-errno",
              # FP exceptions are never read, so comparisons in element functions
              # (exp's range clamps) may be if-converted and the loops vectorised.
              "-fno-trapping-math", "-Wall", "-Wno-unused-function",
              "-Wno-sign-compare", "-Wno-missing-field-initializers", "-Wno-unused-variable",
              f"-I{os.path.join(ROOT, 'csrc')}", f"-I{GEN_DIR}", f"-I{ob_inc}"]
    # Python's headers are on the include path of the Python layer only, so a
    # core file that includes Python.h fails to compile.
    cflags_python = cflags + [f"-I{py_inc}"]
    # The core library: BLAS and OpenMP are its dependencies. -z defs makes any
    # undefined symbol (a Py* one, say) a link error. rpath: the installed layout
    # (site-packages/torchlike/ next to site-packages/scipy_openblas32) and, for
    # editable installs, the absolute dir.
    ldflags_core = ["-shared", "-fopenmp", f"-Wl,-soname,{os.path.basename(out_core)}", "-Wl,-z,defs",
                    f"-L{ob_lib}", f"-l{ob_name}",
                    "-Wl,-rpath,'$$ORIGIN/../scipy_openblas32/lib'", f"-Wl,-rpath,{ob_lib}"]
    # _C finds libtorchlike.so beside itself, in the build dir and once installed.
    ldflags_ext = ["-shared", f"-L{os.path.dirname(out_core)}", "-ltorchlike",
                   "-Wl,-rpath,'$$ORIGIN'"]
    # Generated files share heavy headers; parsing them once into a
    # precompiled header saves most of a second per generated file. Two PCHs:
    # kernels, registration and autograd (the core, which links without
    # Python) get one without Python.h; only the Python bindings get Python's.
    pch_dir = os.path.join(NINJA_DIR, "pch")
    os.makedirs(pch_dir, exist_ok=True)
    pch_headers = {
        "core": ('"c10/Dispatcher.h"', '"aten/TensorIterator.h"', '"aten/native/Math.h"',
                 '"aten/native/cpu/Loops.h"', '"autograd/FunctionsManual.h"'),
        "python": ("<Python.h>", '"python/PythonArgParser.h"'),
    }
    pch_h = {}
    for kind, headers in pch_headers.items():
        pch_h[kind] = os.path.join(pch_dir, f"generated_{kind}_pch.h")
        text = f"// @generated by setup.py: headers the generated {kind} files include\n" + "".join(
            f"#include {h}\n" for h in headers)
        if not os.path.exists(pch_h[kind]) or open(pch_h[kind]).read() != text:
            with open(pch_h[kind], "w") as fh:
                fh.write(text)
    lines = [
        "# @generated by setup.py; do not edit",
        f"cxx = {cxx}",
        f"cflags_core = {' '.join(shlex.quote(f) for f in cflags)}",
        f"cflags_python = {' '.join(shlex.quote(f) for f in cflags_python)}",
        f"opt = {opt}",
        f"gen_opt = {gen_opt}",
        f"ldflags_core = {' '.join(ldflags_core)}",
        f"ldflags_ext = {' '.join(ldflags_ext)}",
        "rule cxx",
        "  command = $cxx -MMD -MF $out.d $opt $cflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CXX $in",
        "rule pch",
        "  command = $cxx -MMD -MF $out.d $gen_opt $cflags -x c++-header $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = PCH $in",
        "rule cxx_pch_core",
        f"  command = $cxx -MMD -MF $out.d $gen_opt $cflags -Winvalid-pch -include {_ninja_escape(pch_h['core'])} -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CXX $in",
        "rule cxx_pch_python",
        f"  command = $cxx -MMD -MF $out.d $gen_opt $cflags -Winvalid-pch -include {_ninja_escape(pch_h['python'])} -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CXX $in",
        "rule link",
        "  command = $cxx -o $out $in $ldflags",
        "  description = LINK $out",
    ]
    gch = {}
    for kind, h in pch_h.items():
        gch[kind] = h + ".gch"
        lines.append(f"build {_ninja_escape(gch[kind])}: pch {_ninja_escape(h)}")
        lines.append(f"  cflags = $cflags_{kind}")

    def compile_all(sources, layer):
        objs = []
        for src in sources:
            rel = os.path.relpath(src, ROOT)
            obj = os.path.join(NINJA_DIR, "obj", rel.replace(os.sep, "_") + ".o")
            objs.append(obj)
            kind = pch_kind.get(src)
            if kind:
                lines.append(f"build {_ninja_escape(obj)}: cxx_pch_{kind} {_ninja_escape(src)} | {_ninja_escape(gch[kind])}")
            else:
                lines.append(f"build {_ninja_escape(obj)}: cxx {_ninja_escape(src)}")
            lines.append(f"  cflags = $cflags_{layer}")
        return objs

    core_objs = compile_all(core_sources, "core")
    ext_objs = compile_all(python_sources, "python")
    lines.append(f"build {_ninja_escape(out_core)}: link {' '.join(_ninja_escape(o) for o in core_objs)}")
    lines.append("  ldflags = $ldflags_core")
    # The library is an input of _C's link (a core edit that drops a symbol _C
    # uses fails here, not at import); a Python-layer edit relinks only _C.
    lines.append(f"build {_ninja_escape(out_ext)}: link {' '.join(_ninja_escape(o) for o in ext_objs)}"
                 f" | {_ninja_escape(out_core)}")
    lines.append("  ldflags = $ldflags_ext")
    defaults = [out_ext]
    if cuda:
        # The CUDA objects go into a library of their own, linked to the core,
        # so the core and _C are the same bytes with or without CUDA; only a
        # machine that has a driver needs to load it. cudart is static: the
        # runtime needs no CUDA toolkit installed, only the driver.
        gencode = []
        for a in cuda["archs"]:
            gencode += ["-gencode", f"arch=compute_{a},code=sm_{a}"]
        nvcc_flags = (["-std=c++17", "-O3", "-cudart=static", "-ccbin", host_cxx.split()[-1],
                       "--threads", str(len(cuda["archs"])), "-Xcompiler", "-fPIC",
                       "--expt-relaxed-constexpr", "-DTL_CUDA_BUILD=1",
                       f"-I{os.path.join(ROOT, 'csrc')}", f"-I{GEN_DIR}"] + gencode)
        lines += [
            f"nvcc = {ccache}{shlex.quote(cuda['nvcc'])}",
            f"nvcc_flags = {' '.join(shlex.quote(f) for f in nvcc_flags)}",
            "rule nvcc",
            "  command = $nvcc -MD -MF $out.d $nvcc_flags -c $in -o $out",
            "  depfile = $out.d",
            "  deps = gcc",
            "  description = NVCC $in",
            "rule nvcc_link",
            f"  command = {shlex.quote(cuda['nvcc'])} -shared -cudart=static -ccbin {host_cxx.split()[-1]} $in -o $out $ldflags",
            "  description = LINK $out",
        ]
        cuda_objs = []
        for src in cuda_sources:
            rel = os.path.relpath(src, ROOT)
            obj = os.path.join(NINJA_DIR, "obj", rel.replace(os.sep, "_") + ".o")
            cuda_objs.append(obj)
            lines.append(f"build {_ninja_escape(obj)}: nvcc {_ninja_escape(src)}")
        lines.append(f"build {_ninja_escape(out_cuda)}: nvcc_link {' '.join(_ninja_escape(o) for o in cuda_objs)}"
                     f" | {_ninja_escape(out_core)}")
        lines.append(f"  ldflags = -Xlinker -soname,{os.path.basename(out_cuda)} -L{os.path.dirname(out_core)}"
                     f" -ltorchlike -Xlinker -rpath,'$$ORIGIN'")
        defaults.append(out_cuda)
    lines.append(f"default {' '.join(_ninja_escape(d) for d in defaults)}")
    write_build_config(host_cxx, cflags, opt, gen_opt, ldflags_core, cuda,
                       nvcc_flags if cuda else None)
    text = "\n".join(lines) + "\n"
    path = os.path.join(NINJA_DIR, "build.ninja")
    os.makedirs(NINJA_DIR, exist_ok=True)
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as fh:
            fh.write(text)


BUILD_CONFIG_PY = os.path.join(ROOT, "torchlike", "_build_config.py")


def _probe(cmd):
    """stdout of a short tool query, "" when it cannot run."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def write_build_config(host_cxx, cflags, opt, gen_opt, ldflags, cuda, nvcc_flags):
    """torchlike/_build_config.py: what this build was made with (compiler and
    version, C++ standard, flags, BLAS, OpenMP, CUDA), read by
    torchlike.__config__.show(). Generated, ignored by git, rewritten only
    when its text changes (so a no-op build stays a no-op)."""
    import importlib.metadata
    import pprint
    import re
    cxx_cmd = shlex.split(host_cxx)
    version_text = _probe(cxx_cmd + ["--version"])
    dump = _probe(cxx_cmd + ["-dumpfullversion", "-dumpversion"]).strip()
    if "clang" in version_text.lower():
        m = re.search(r"clang version (\S+)", version_text)
        compiler = f"clang {m.group(1) if m else dump}"
    else:
        compiler = f"GCC {'.'.join(dump.split('.')[:2])}" if dump else (version_text.splitlines() or ["unknown"])[0]
    std = next((f for f in cflags if f.startswith("-std=")), "")
    macros = _probe(cxx_cmd + [std, "-fopenmp", "-dM", "-E", "-x", "c++", os.devnull])
    m = re.search(r"#define __cplusplus (\d+)L?", macros)
    cplusplus = int(m.group(1)) if m else None
    m = re.search(r"#define _OPENMP (\d+)", macros)
    openmp = int(m.group(1)) if m else None
    try:
        blas_version = importlib.metadata.version("scipy-openblas32")
    except importlib.metadata.PackageNotFoundError:
        blas_version = None
    cuda_version = None
    if cuda:
        m = re.search(r"release (\d+\.\d+)", _probe([cuda["nvcc"], "--version"]))
        cuda_version = m.group(1) if m else "unknown"
    commit = _probe(["git", "-C", ROOT, "rev-parse", "HEAD"]).strip() or None
    # Include paths are this machine's; the flags that shape the code are kept.
    flags = [f for f in cflags if not f.startswith("-I")]
    config = {
        "compiler": compiler,
        "compiler_path": shutil.which(cxx_cmd[-1]) or cxx_cmd[-1],
        "compiler_version_text": (version_text.splitlines() or [""])[0],
        "cxx_standard_flag": std,
        "cplusplus": cplusplus,
        "cxx_flags": " ".join(flags),
        "opt_flags": opt,
        "generated_opt_flags": gen_opt,
        "ld_flags": " ".join(f for f in ldflags if not f.startswith(("-L", "-Wl,-rpath"))),
        "arch_flag": next((f for f in cflags if f.startswith("-march") or f.startswith("-mcpu")), ""),
        "openmp": openmp,
        "blas": "scipy-openblas32",
        "blas_version": blas_version,
        "lapack": "scipy-openblas32",
        "use_cuda": bool(cuda),
        "cuda_version": cuda_version,
        "cuda_archs": list(cuda["archs"]) if cuda else [],
        "nvcc_flags": " ".join(f for f in (nvcc_flags or []) if not f.startswith("-I")),
        "use_cudnn": False,
        "commit": commit,
        "python": sys.version.split()[0],
    }
    text = ("# @generated by setup.py: the build configuration torchlike.__config__.show() prints. Do not edit.\n"
            "BUILD_CONFIG = " + pprint.pformat(config, width=110) + "\n")
    if not os.path.exists(BUILD_CONFIG_PY) or open(BUILD_CONFIG_PY).read() != text:
        with open(BUILD_CONFIG_PY, "w") as fh:
            fh.write(text)


def run_codegen():
    sys.path.insert(0, ROOT)
    from codegen.gen import generate
    from codegen.model import CodegenError
    try:
        generate(os.path.join(ROOT, "native_functions.yaml"), GEN_DIR, os.path.join(ROOT, "torchlike", "_C"))
    except CodegenError as e:
        sys.exit(f"error: {e}")
    # Core sources (no Python) and the Python bindings, listed apart so the
    # core can be linked into a library of its own; the CUDA shards apart too.
    sources = {}
    for kind in ("core", "python", "cuda"):
        with open(os.path.join(GEN_DIR, f"sources_{kind}.txt")) as fh:
            sources[kind] = [line.strip() for line in fh if line.strip()]
    return sources


def build_extension():
    """Codegen, then ninja. Returns (core library, extension module) in the build dir."""
    t0 = time.perf_counter()
    generated = run_codegen()
    t1 = time.perf_counter()
    handwritten = sorted(glob.glob(os.path.join(ROOT, "csrc", "**", "*.cpp"), recursive=True))
    python_dir = os.path.join(ROOT, "csrc", "python") + os.sep
    # Init.cpp goes last: its static initialiser registers every operator when
    # the library loads, and ELF runs a library's initialisers in link order, so
    # every other static object of the library is constructed by then.
    init_cpp = os.path.join(ROOT, "csrc", "aten", "Init.cpp")
    core = [s for s in handwritten if not s.startswith(python_dir) and s != init_cpp]
    core += generated["core"] + [init_cpp]
    python = [s for s in handwritten if s.startswith(python_dir)] + generated["python"]
    out_core = os.path.join(NINJA_DIR, CORE_LIB)
    out_ext = os.path.join(NINJA_DIR, "_C" + sysconfig.get_config_var("EXT_SUFFIX"))
    pch_kind = {src: kind for kind, srcs in generated.items() if kind != "cuda" for src in srcs}
    cuda = cuda_config()
    cuda_sources = []
    if cuda:
        cuda_sources = sorted(glob.glob(os.path.join(ROOT, "csrc", "**", "*.cu"), recursive=True)) + generated["cuda"]
    out_cuda = os.path.join(NINJA_DIR, CUDA_LIB) if cuda else None
    write_build_ninja(core, python, out_core, out_ext, pch_kind, cuda, cuda_sources, out_cuda)
    jobs = os.environ.get("MAX_JOBS", str(os.cpu_count() or 2))
    ninja = shutil.which("ninja")
    cmd = [ninja] if ninja else [sys.executable, "-m", "ninja"]
    subprocess.check_call(cmd + ["-C", NINJA_DIR, "-j", jobs])
    t2 = time.perf_counter()
    # Read by .ci/run, which prints the time of each phase.
    with open(os.path.join(NINJA_DIR, "phase_times.txt"), "w") as fh:
        fh.write(f"codegen {t1 - t0:.1f} s\ncompile and link ({jobs} jobs) {t2 - t1:.1f} s\n")
        fh.write(f"cuda: {'built for sm_' + ',sm_'.join(cuda['archs']) if cuda else 'not built'}"
                 f" (TORCHLIKE_CUDA={os.environ.get('TORCHLIKE_CUDA', 'auto')})\n")
    # A build without CUDA leaves no stale CUDA library behind to be installed.
    if not cuda and os.path.exists(os.path.join(NINJA_DIR, CUDA_LIB)):
        os.remove(os.path.join(NINJA_DIR, CUDA_LIB))
    return out_core, out_ext


def public_headers():
    """{path relative to the include root: source path} of every header the C++
    API needs: csrc/**/*.h and the generated headers. The build compiles with
    -Icsrc -Ibuild/generated, so one merged include root resolves every include."""
    headers = {}
    for root in (os.path.join(ROOT, "csrc"), GEN_DIR):
        # .cuh: the CUDA loop headers an extension's generated CUDA kernels include.
        for path in glob.glob(os.path.join(root, "**", "*.h"), recursive=True) + \
                glob.glob(os.path.join(root, "**", "*.cuh"), recursive=True):
            rel = os.path.relpath(path, root)
            if rel in headers:
                sys.exit(f"error: header {rel} exists in both csrc/ and build/generated/")
            headers[rel] = path
    return headers


def install_headers(dest_root):
    """Copy the public headers into dest_root (torchlike/include), writing only
    files whose bytes changed, so an unchanged build touches nothing there; a
    header that is no longer produced is removed."""
    headers = public_headers()
    for rel, src in headers.items():
        dest = os.path.join(dest_root, rel)
        with open(src, "rb") as fh:
            data = fh.read()
        if os.path.exists(dest):
            with open(dest, "rb") as fh:
                if fh.read() == data:
                    continue
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest + ".tmp", "wb") as fh:
            fh.write(data)
        os.replace(dest + ".tmp", dest)
    for path in glob.glob(os.path.join(dest_root, "**", "*"), recursive=True):
        if os.path.isfile(path) and os.path.relpath(path, dest_root) not in headers:
            os.remove(path)


def _install_copy(src, dest):
    """Copy then rename: overwriting a loaded .so in place can crash the
    processes that have it mapped (a running test run, say). An identical copy
    (same size and mtime, which copy2 preserves) is left alone."""
    if os.path.exists(dest):
        a, b = os.stat(src), os.stat(dest)
        if a.st_size == b.st_size and a.st_mtime_ns == b.st_mtime_ns:
            return
    tmp = dest + ".tmp"
    shutil.copy2(src, tmp)
    os.replace(tmp, dest)


def install_into(package_dir, core_so, ext_so, ext_name):
    """The core library, _C and the public headers, side by side in a torchlike/
    package dir (_C's rpath is $ORIGIN)."""
    os.makedirs(package_dir, exist_ok=True)
    _install_copy(core_so, os.path.join(package_dir, CORE_LIB))
    _install_copy(ext_so, os.path.join(package_dir, ext_name))
    cuda_so = os.path.join(os.path.dirname(core_so), CUDA_LIB)
    if os.path.exists(cuda_so):
        _install_copy(cuda_so, os.path.join(package_dir, CUDA_LIB))
    elif os.path.exists(os.path.join(package_dir, CUDA_LIB)):
        os.remove(os.path.join(package_dir, CUDA_LIB))
    install_headers(os.path.join(package_dir, "include"))
    # The generated build configuration, for installs outside the source tree.
    if os.path.exists(BUILD_CONFIG_PY) and os.path.abspath(package_dir) != os.path.dirname(BUILD_CONFIG_PY):
        _install_copy(BUILD_CONFIG_PY, os.path.join(package_dir, "_build_config.py"))
    # The core's YAML, read (names only) when an extension's own YAML is
    # generated against the installed headers (cpp_extension.load(functions_yaml=...)).
    src_yaml = os.path.join(ROOT, "native_functions.yaml")
    with open(src_yaml, "rb") as fh:
        data = fh.read()
    dest_yaml = os.path.join(package_dir, "native_functions.yaml")
    if not os.path.exists(dest_yaml) or open(dest_yaml, "rb").read() != data:
        with open(dest_yaml + ".tmp", "wb") as fh:
            fh.write(data)
        os.replace(dest_yaml + ".tmp", dest_yaml)


def prebuilt():
    """TORCHLIKE_PREBUILT=1: package the libraries build/ninja already holds,
    running neither the generator nor ninja (a wheel of exactly what was
    built and tested, made in seconds; the tests' wheel check uses it)."""
    core_so = os.path.join(NINJA_DIR, CORE_LIB)
    ext_so = os.path.join(NINJA_DIR, "_C" + sysconfig.get_config_var("EXT_SUFFIX"))
    for p in (core_so, ext_so):
        if not os.path.exists(p):
            sys.exit(f"error: TORCHLIKE_PREBUILT=1 but {p} is not built (run python setup.py build_ninja)")
    return core_so, ext_so


class NinjaBuildExt(build_ext):
    def build_extension(self, ext):
        if os.environ.get("TORCHLIKE_PREBUILT") == "1":
            core_so, ext_so = prebuilt()
            install_into(os.path.dirname(self.get_ext_fullpath(ext.name)), core_so, ext_so,
                         os.path.basename(self.get_ext_fullpath(ext.name)))
            return
        core_so, ext_so = build_extension()
        dest = self.get_ext_fullpath(ext.name)
        install_into(os.path.dirname(dest), core_so, ext_so, os.path.basename(dest))
        # Editable installs import from the source tree: keep a copy next to the package.
        inplace = os.path.join(ROOT, "torchlike")
        if os.path.abspath(os.path.dirname(dest)) != inplace:
            install_into(inplace, core_so, ext_so, os.path.basename(dest))


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "build_ninja":
    # `python setup.py build_ninja`: the fast developer loop (no pip).
    core_so, ext_so = build_extension()
    install_into(os.path.join(ROOT, "torchlike"), core_so, ext_so, os.path.basename(ext_so))
    sys.exit(0)

setup(
    ext_modules=[Extension("torchlike._C", sources=[])],
    cmdclass={"build_ext": NinjaBuildExt},
)
