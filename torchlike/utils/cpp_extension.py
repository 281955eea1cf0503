"""C++ (and CUDA) extensions against torchlike's C++ API, built just in time
with ninja or ahead of time with setuptools. Same names, arguments and
return shapes as torch.utils.cpp_extension.

    ext = load("my_ext", ["my_ext.cpp"])       # builds, caches, imports
    ext.my_function(tensor)

An extension includes <torch/extension.h> (PyTorch's spelling, over
torchlike's) or <torchlike/extension.h>: the C++ API, the registration
macros and pybind11 with tensor casters. It links only to libtorchlike.so.

JIT builds go to a per-user cache (get_default_build_root(), or
$TORCH_EXTENSIONS_DIR), one folder per extension name. ninja rebuilds only
what changed: sources and the headers they include (depfiles), and any file
whose compile flags changed. A file lock in the folder makes two processes
building the same extension take turns. A compile error is raised as an
exception that carries the compiler's output.

An extension may also define operators in a YAML file of its own, written
as torchlike's native_functions.yaml is (docs/adding_an_operator.md):

    ops = load("my_ext", ["kernels.cpp"], functions_yaml="my_ops.yaml")
    ops.my_op(x)                                # = torchlike.ops.<namespace>.my_op

The generator (the `codegen` package, installed with torchlike) writes the
kernels, registration, autograd and autocast of those operators into the
build folder; they are compiled with the sources and registered when the
library loads.

Plain programs need only the two paths:

    g++ -std=c++17 prog.cpp -I<include_paths()[0]> -L<library_paths()[0]> -ltorchlike -Wl,-rpath,<...>
"""
import contextlib
import hashlib
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_DEVICE_TYPES = ("cpu", "cuda")

__all__ = [
    "include_paths", "library_paths", "load", "load_inline", "CppExtension", "CUDAExtension", "BuildExtension",
    "get_default_build_root", "is_ninja_available", "verify_ninja_availability", "get_cxx_compiler",
    "check_compiler_is_gcc", "check_compiler_ok_for_platform", "get_compiler_abi_compatibility_and_version",
    "CUDA_HOME",
]


def _find_cuda_home():
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home and os.path.isdir(home):
        return home
    if os.path.exists("/usr/local/cuda/bin/nvcc"):
        return "/usr/local/cuda"
    nvcc = shutil.which("nvcc")
    if nvcc:
        home = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        if os.path.isdir(os.path.join(home, "include")):
            return home
    return None


CUDA_HOME = _find_cuda_home()


def _check_device_type(device_type):
    if device_type not in _DEVICE_TYPES:
        raise ValueError(f"cpp_extension: device_type '{device_type}' is not supported by this build "
                         f"(supported: {', '.join(_DEVICE_TYPES)})")
    if device_type == "cuda" and CUDA_HOME is None:
        raise OSError("cpp_extension: device_type 'cuda' needs the CUDA toolkit (nvcc); set CUDA_HOME")


def include_paths(device_type: str = "cpu", torch_include_dirs: bool = True) -> list:
    """Include directories for the C++ API: the one root that holds c10/, aten/,
    autograd/, ops/, torch/, torchlike/, Functions.h, TensorBody.h (the build
    copies them into torchlike/include); for "cuda" also the toolkit's."""
    _check_device_type(device_type)
    if not torch_include_dirs:
        return []
    paths = [os.path.join(_PACKAGE_DIR, "include")]
    if device_type == "cuda":
        paths.append(os.path.join(CUDA_HOME, "include"))
    return paths


def library_paths(device_type: str = "cpu", torch_include_dirs: bool = True) -> list:
    """Directories to pass to the linker (-L) and as rpath: the one that holds
    libtorchlike.so (the torchlike package dir); for "cuda" also the toolkit's."""
    _check_device_type(device_type)
    if not torch_include_dirs:
        return []
    paths = [_PACKAGE_DIR]
    if device_type == "cuda":
        lib64 = os.path.join(CUDA_HOME, "lib64")
        paths.append(lib64 if os.path.isdir(lib64) else os.path.join(CUDA_HOME, "lib"))
    return paths


# ---------------------------------------------------------------- compilers and ninja

def get_cxx_compiler():
    """The C++ compiler extensions are built with: $CXX, else c++."""
    return os.environ.get("CXX", "c++")


def _compiler_banner(compiler):
    try:
        return subprocess.run(shlex.split(compiler) + ["-v"], capture_output=True, text=True, timeout=60).stderr
    except (OSError, subprocess.SubprocessError):
        return ""


def check_compiler_is_gcc(compiler):
    """True when `compiler` is GCC (g++, or c++ pointing at g++)."""
    banner = _compiler_banner(compiler)
    return "gcc version" in banner and "clang" not in banner.lower()


def check_compiler_ok_for_platform(compiler):
    """True when `compiler` runs and is GCC or Clang (what the C++ API is tested with on Linux)."""
    banner = _compiler_banner(compiler)
    return "gcc version" in banner or "clang version" in banner


class _CompilerVersion(str):
    """A version string that compares as a tuple of ints ("12.2.0" < "13.1")."""

    def _key(self):
        return tuple(int(p) for p in re.findall(r"\d+", self)[:3])

    def __lt__(self, other):
        return self._key() < _CompilerVersion(other)._key()

    def __ge__(self, other):
        return not self < other


_MIN_GCC, _MIN_CLANG = "9.0.0", "10.0.0"


def get_compiler_abi_compatibility_and_version(compiler):
    """(whether `compiler` can build extensions for this torchlike, its version):
    GCC >= 9 or Clang >= 10 (C++17, the libstdc++ ABI of the core library)."""
    banner = _compiler_banner(compiler)
    m = re.search(r"(gcc|clang) version (\d+\.\d+(\.\d+)?)", banner)
    if not m:
        return False, _CompilerVersion("0.0.0")
    version = _CompilerVersion(m.group(2))
    minimum = _MIN_GCC if m.group(1) == "gcc" else _MIN_CLANG
    return version >= minimum, version


def is_ninja_available():
    """True when the ninja build tool can be run."""
    try:
        subprocess.check_output(["ninja", "--version"], stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def verify_ninja_availability():
    if not is_ninja_available():
        raise RuntimeError("Ninja is required to load C++ extensions (pip install ninja)")


def get_default_build_root():
    """Where JIT-built extensions go: $TORCH_EXTENSIONS_DIR, else a folder in the user's cache."""
    root = os.environ.get("TORCH_EXTENSIONS_DIR")
    if root:
        return os.path.realpath(root)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    py = f"py{sys.version_info.major}{sys.version_info.minor}"
    return os.path.realpath(os.path.join(cache, "torchlike_extensions", py + "_cpu"))


# ---------------------------------------------------------------- flags

def _pybind11_include():
    try:
        import pybind11
    except ImportError as e:
        raise RuntimeError("C++ extensions need pybind11 (pip install pybind11)") from e
    return pybind11.get_include()


def _common_cflags(name, extra_include_paths):
    incs = include_paths() + [_pybind11_include(), sysconfig.get_paths()["include"]] + list(extra_include_paths or [])
    return ([f"-DTORCH_EXTENSION_NAME={name}", "-DTORCH_API_INCLUDE_EXTENSION_H"]
            + [f"-I{os.path.abspath(p)}" for p in incs])


def _cuda_archs():
    """-gencode flags: $TORCH_CUDA_ARCH_LIST / $TORCHLIKE_CUDA_ARCH ("8.0;9.0"), else sm_80 and sm_90."""
    spec = os.environ.get("TORCH_CUDA_ARCH_LIST") or os.environ.get("TORCHLIKE_CUDA_ARCH") or "8.0;9.0"
    flags = []
    for a in re.split(r"[;, ]+", spec.strip()):
        a = a.replace("+PTX", "").replace(".", "").removeprefix("sm_")
        if a.isdigit():
            flags += ["-gencode", f"arch=compute_{a},code=sm_{a}"]
    return flags


def _ninja_escape(s):
    return s.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def _write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as fh:
            if fh.read() == text:
                return
    with open(path, "w") as fh:
        fh.write(text)


def _build_ninja_text(sources, cflags, cuda_cflags, ldflags, with_cuda, target, shared=True, check_only=(),
                      generated=()):
    """generated: sources compiled without -DTORCH_EXTENSION_NAME, which
    changes with each in-process reload (name_v1, ...), so a reload after a
    YAML edit recompiles only the files whose text changed."""
    cxx = get_cxx_compiler()
    lines = ["ninja_required_version = 1.3", f"cxx = {cxx}"]
    lines.append("cflags = -std=c++17 -O2 -fPIC -fvisibility=hidden " + " ".join(shlex.quote(f) for f in cflags))
    lines.append("gen_cflags = -std=c++17 -O2 -fPIC -fvisibility=hidden " + " ".join(
        shlex.quote(f) for f in cflags if not f.startswith("-DTORCH_EXTENSION_NAME=")))
    lines += ["rule compile",
              "  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out",
              "  depfile = $out.d", "  deps = gcc", "  description = CXX $in"]
    if with_cuda:
        nvcc = os.path.join(CUDA_HOME, "bin", "nvcc")
        lines.append(f"nvcc = {nvcc}")
        lines.append("cuda_cflags = -std=c++17 -O2 -Xcompiler -fPIC --expt-relaxed-constexpr "
                     + " ".join(shlex.quote(f) for f in cuda_cflags))
        lines += ["rule cuda_compile",
                  "  command = $nvcc -MD -MF $out.d $cuda_cflags -c $in -o $out",
                  "  depfile = $out.d", "  deps = gcc", "  description = NVCC $in"]
    link = "$cxx $in -shared -o $out" if shared else "$cxx $in -o $out"  # an executable when not shared
    lines += ["rule link", f"  command = {link} {' '.join(shlex.quote(f) for f in ldflags)}",
              "  description = LINK $out"]
    objs, seen = [], set()

    def compile_rule(src):
        base = os.path.basename(src)
        stem, ext = os.path.splitext(base)
        obj = f"{stem}.cuda.o" if ext == ".cu" else f"{stem}.o"
        # two sources with one basename in different folders get distinct objects
        if obj in seen:
            obj = hashlib.sha1(src.encode()).hexdigest()[:8] + "_" + obj
        seen.add(obj)
        rule = "cuda_compile" if ext == ".cu" else "compile"
        lines.append(f"build {_ninja_escape(obj)}: {rule} {_ninja_escape(os.path.abspath(src))}")
        if src in generated and rule == "compile":
            lines.append("  cflags = $gen_cflags")
        return obj

    objs = [compile_rule(src) for src in sources]
    checked = [compile_rule(src) for src in check_only]  # compiled, not linked
    lines.append(f"build {_ninja_escape(target)}: link {' '.join(_ninja_escape(o) for o in objs)}")
    lines.append(f"default {' '.join(_ninja_escape(t) for t in [target] + checked)}")
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def _file_lock(path):
    """An exclusive lock held across processes (fcntl), so two builds of one
    extension take turns instead of writing the same files at once."""
    import fcntl
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


# Extensions loaded in this process: name -> (content hash, version); a
# changed extension loaded again gets a new module name (name_v1, ...), since
# Python cannot replace a loaded extension module.
_loaded = {}


def _content_hash(sources, *flag_lists):
    h = hashlib.sha256()
    for src in sources:
        with open(src, "rb") as fh:
            h.update(fh.read())
    for flags in flag_lists:
        h.update(repr(list(flags or [])).encode())
    return h.hexdigest()


# ---------------------------------------------------------------- an extension's own YAML

# Files per generated layer (registration, autograd, autocast) in an
# extension: an extension has a handful of operators, and each shard costs a
# compile even when empty. Editing one entry's expr recompiles its kernel file
# only; a schema edit recompiles the layer files.
_EXT_SHARDS = 1


class _YamlExtension:
    """What the generator made of an extension's YAML, for the build and the load."""

    def __init__(self, namespace, yaml_path, gen_dir, sources, cuda_sources, functions):
        self.namespace, self.yaml_path, self.gen_dir = namespace, yaml_path, gen_dir
        self.sources, self.cuda_sources, self.functions = sources, cuda_sources, functions


def _import_codegen():
    """torchlike's generator: the installed `codegen` package (a wheel ships it
    beside torchlike), else the source tree's."""
    for mod in ("jinja2", "yaml"):
        if importlib.util.find_spec(mod) is None:
            raise RuntimeError(f"load(functions_yaml=...) needs {'pyyaml' if mod == 'yaml' else mod}: "
                               f"pip install 'torchlike[ext]'")
    # The generator beside this torchlike package (site-packages/codegen, or
    # the source tree's codegen/), never another checkout's.
    tree = os.path.dirname(_PACKAGE_DIR)
    if not os.path.isfile(os.path.join(tree, "codegen", "gen.py")):
        raise RuntimeError("load(functions_yaml=...): torchlike's generator (the codegen package) is not "
                           f"installed beside {_PACKAGE_DIR}")
    if not any(os.path.abspath(p or os.curdir) == tree for p in sys.path):
        sys.path.append(tree)
    from codegen import gen, model
    if os.path.dirname(os.path.dirname(os.path.abspath(gen.__file__))) != tree:
        raise RuntimeError(f"load(functions_yaml=...): the codegen package imported is {gen.__file__}, not the "
                           f"generator installed with this torchlike ({tree}/codegen)")
    return gen, model


def _core_yaml():
    """The core's native_functions.yaml the installed headers were generated
    from: the package's copy (the build puts one there), else the source tree's."""
    for p in (os.path.join(_PACKAGE_DIR, "native_functions.yaml"),
              os.path.join(os.path.dirname(_PACKAGE_DIR), "native_functions.yaml")):
        if os.path.isfile(p):
            return p
    raise RuntimeError("load(functions_yaml=...): native_functions.yaml is not installed with this torchlike")


def _generate_yaml_ops(name, yaml_path, build_dir, with_cuda):
    """Runs the generator on the extension's YAML into <build_dir>/generated
    (the core's YAML is read for its operator names only: the core's files
    are installed already) and writes the file that registers the generated
    operators when the library loads. Files are rewritten only when their text
    changes, so ninja recompiles what an edit touched."""
    gen, model = _import_codegen()
    ns, functions = model.load_native_file(yaml_path)
    if ns == "aten":
        raise model.CodegenError(model.Location(yaml_path, 1),
                                 "an extension's YAML is a mapping 'namespace: <name>' with 'functions: [entries]'; "
                                 "a plain list is the aten namespace, which only torchlike itself generates")
    gen_dir = os.path.join(build_dir, "generated")
    gen.generate([yaml_path], gen_dir, None, context=[_core_yaml()], nshards=_EXT_SHARDS,
                 include_root=include_paths()[0])

    def listed(kind):
        with open(os.path.join(gen_dir, f"sources_{kind}.txt")) as fh:
            return [line.strip() for line in fh if line.strip()]

    # A static initialiser runs the generated registration when the library is
    # loaded; an error is recorded (not thrown through dlopen) and raised by load().
    init = os.path.join(build_dir, f"{ns}_register_generated.cpp")
    _write_if_changed(init, f"""// Written by torchlike.utils.cpp_extension for {os.path.basename(yaml_path)}.
#include <exception>
#include <string>

void tl_register_all_generated_ops_{ns}();
namespace c10::detail {{
void recordRegistrationError(const char* ns, const std::string& what);  // c10/Library.h; declared here, it is cheaper
}}  // namespace c10::detail

namespace {{
struct RegisterGenerated {{
  RegisterGenerated() {{
    try {{
      tl_register_all_generated_ops_{ns}();
    }} catch (const std::exception& e) {{
      c10::detail::recordRegistrationError("{ns}", e.what());
    }}
  }}
}} register_generated;
}}  // namespace
""")
    return _YamlExtension(ns, yaml_path, gen_dir, listed("core") + [init], listed("cuda") if with_cuda else [],
                          functions)


# Operators defined by an extension's YAML in this process: qualified name -> extension name.
_yaml_owner = {}


def _yaml_op_names(ext):
    """(qualified name, entry) of every operator the YAML defines, generated variants included."""
    from codegen.model import pointwise_variants
    for f in ext.functions:
        schemas = [f.func]
        if f.pointwise is not None:
            schemas += [s for s in pointwise_variants(f) if s is not None]
        for s in schemas:
            yield f"{ext.namespace}::{s.name}", f


def _missing_kernel_error(name, ext, message):
    """A clear error for a hand-written kernel the YAML names but no source
    defines (the loader reports its mangled symbol)."""
    m = re.search(r"undefined symbol: (\S+)", message)
    if not m:
        return None
    symbol = m.group(1)
    for f in ext.functions:
        for key, kernel in f.dispatch:
            # Itanium mangling: <ns>::native::<kernel> is N<len><ns>6native<len><kernel>.
            if f"{len(ext.namespace)}{ext.namespace}6native{len(kernel)}{kernel}" in symbol:
                return RuntimeError(
                    f"extension '{name}': {f.loc}: {ext.namespace}::{f.func.name} names the {key} kernel "
                    f"'{kernel}', but no source defines {ext.namespace}::native::{kernel} with the signature "
                    f"declared in {ext.namespace}/ops/{f.func.name.base}.h (undefined symbol {symbol})")
    return None


def _check_not_defined(name, ext):
    """Before building: an operator of the YAML that the dispatcher already
    has (from torchlike, another extension or a torchlike.library) is refused;
    one that this extension defined at an earlier load in this process is not."""
    from torchlike import _C
    for qualname, f in _yaml_op_names(ext):
        owner = _yaml_owner.get(qualname)
        try:
            defined = bool(_C._dispatch_schema(qualname))
        except ValueError:
            defined = False
        if defined and owner != name:
            raise RuntimeError(f"{f.loc}: operator {qualname} is already defined"
                               + (f" by extension '{owner}'" if owner else "")
                               + "; an extension's YAML cannot redefine an operator (rename it, or use another "
                                 "namespace)")


def _without_module_name(sources):
    """The sources that never read TORCH_EXTENSION_NAME (the generated ones, and
    kernel files without a PYBIND11_MODULE): built without the define, which
    changes at each in-process reload, so a YAML edit recompiles only what
    the edit changed."""
    out = set()
    for src in sources:
        with open(src, errors="replace") as fh:
            if "TORCH_EXTENSION_NAME" not in fh.read():
                out.add(src)
    return out


def _load_yaml_extension(name, path, module_name, ext, is_python_module):
    import ctypes
    from torchlike import _C, ops
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)  # the generated registration runs now
    except OSError as e:
        raise (_missing_kernel_error(name, ext, str(e))
               or RuntimeError(f"extension '{name}' failed to load: {e}")) from None
    errors = _C._take_registration_errors()
    if errors:
        raise RuntimeError(f"extension '{name}' failed to register the operators of {ext.yaml_path}:\n"
                           + "\n".join(errors))
    for qualname, _ in _yaml_op_names(ext):
        _yaml_owner[qualname] = name
    if not is_python_module:
        return path
    if not hasattr(lib, f"PyInit_{module_name}"):
        return getattr(ops, ext.namespace)  # no pybind11 module: the operators are the interface
    return _import_module(name, module_name, path)


def _import_module(name, module_name, path):
    """Imports the built extension module; raises what its TL_LIBRARY blocks could not register."""
    from torchlike import _C
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    errors = _C._take_registration_errors()
    if errors:
        raise RuntimeError(f"extension '{name}' failed to register its operators:\n" + "\n".join(errors))
    return module


def _jit_compile(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths,
                 build_directory, verbose, with_cuda, is_python_module, is_standalone, functions_yaml=None):
    verify_ninja_availability()
    if not name.isidentifier():
        raise ValueError(f"load: the extension name must be a Python identifier, got {name!r}")
    sources = [os.path.abspath(s) for s in ([sources] if isinstance(sources, str) else list(sources or []))]
    if not sources and functions_yaml is None:
        raise ValueError("load: no sources given")
    if functions_yaml is not None and is_standalone:
        raise ValueError("load: functions_yaml builds a library of operators, not a standalone program")
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError(f"load: source file not found: {s}")
    if with_cuda is None:
        with_cuda = any(s.endswith((".cu", ".cuh")) for s in sources)
    if with_cuda and CUDA_HOME is None:
        raise OSError("load: CUDA sources need the CUDA toolkit (nvcc), which was not found; set CUDA_HOME")

    yaml_ext = None
    if functions_yaml is not None:
        functions_yaml = os.path.abspath(functions_yaml)
        if not os.path.isfile(functions_yaml):
            raise FileNotFoundError(f"load: functions_yaml not found: {functions_yaml}")
    digest = _content_hash(sources + ([functions_yaml] if functions_yaml else []), extra_cflags, extra_cuda_cflags,
                           extra_ldflags, extra_include_paths)
    prev = _loaded.get(name)
    version = 0 if prev is None else (prev[1] if prev[0] == digest else prev[1] + 1)
    module_name = name if version == 0 else f"{name}_v{version}"

    build_dir = build_directory or os.path.join(get_default_build_root(), name)
    os.makedirs(build_dir, exist_ok=True)
    if functions_yaml is not None:
        with _file_lock(os.path.join(build_dir, "lock")):
            yaml_ext = _generate_yaml_ops(name, functions_yaml, build_dir, with_cuda)
        _check_not_defined(name, yaml_ext)
        extra_include_paths = [yaml_ext.gen_dir] + list(extra_include_paths or [])
        sources = yaml_ext.sources + sources
    cflags = _common_cflags(module_name, extra_include_paths) + list(extra_cflags or [])
    cuda_cflags = []
    if with_cuda:
        cuda_cflags = (_common_cflags(module_name, extra_include_paths) + [f"-I{os.path.join(CUDA_HOME, 'include')}"]
                       + _cuda_archs() + list(extra_cuda_cflags or []))
        cflags.append(f"-I{os.path.join(CUDA_HOME, 'include')}")
    lib_dir = library_paths()[0]
    ldflags = [f"-L{lib_dir}", "-ltorchlike", f"-Wl,-rpath,{lib_dir}"]
    if with_cuda:
        cuda_lib = library_paths("cuda")[1]
        ldflags += [f"-L{cuda_lib}", "-lcudart", f"-Wl,-rpath,{cuda_lib}"]
    ldflags += list(extra_ldflags or [])
    target = module_name + (sysconfig.get_config_var("EXT_SUFFIX") if is_python_module and not is_standalone
                            else ".so")
    if is_standalone:
        target = module_name

    check_only = []
    if yaml_ext is not None:
        # Generated kernels are built as the core builds them: OpenMP loops, no errno or FP-trap semantics.
        cflags += ["-fopenmp", "-fno-math-errno", "-fno-trapping-math"]
        ldflags.append("-fopenmp")
        if with_cuda:
            # The generated CUDA shards register on the CUDA key through
            # libtorchlike_cuda.so's loop helpers; they are always compiled (so
            # a YAML expr that nvcc rejects fails the build) but linked only
            # where that library exists and a GPU can run them (a CUDA build
            # on a machine without a driver compiles them only).
            check_only = yaml_ext.cuda_sources
            import torchlike
            if os.path.exists(os.path.join(_PACKAGE_DIR, "libtorchlike_cuda.so")) and torchlike.cuda.is_available():
                sources, check_only = sources + check_only, []
                ldflags += [f"-L{_PACKAGE_DIR}", "-ltorchlike_cuda"]
    with _file_lock(os.path.join(build_dir, "lock")):
        text = _build_ninja_text(sources, cflags, cuda_cflags, ldflags, with_cuda, target, shared=not is_standalone,
                                 check_only=check_only, generated=_without_module_name(sources) if yaml_ext else ())
        _write_if_changed(os.path.join(build_dir, "build.ninja"), text)
        cmd = ["ninja", "-v"] if verbose else ["ninja"]
        jobs = os.environ.get("MAX_JOBS")
        if jobs:
            cmd += ["-j", jobs]
        r = subprocess.run(cmd, cwd=build_dir, capture_output=True, text=True)
        if verbose:
            print(r.stdout, end="")
        if r.returncode != 0:
            raise RuntimeError(f"Error building extension '{name}':\n{r.stdout}{r.stderr}")
    _loaded[name] = (digest, version)
    path = os.path.join(build_dir, target)
    if is_standalone:
        return path
    import torchlike  # noqa: F401  (the casters need torchlike._C)
    from torchlike import _C
    _C._take_registration_errors()  # earlier libraries' errors are not this one's
    if yaml_ext is not None:
        return _load_yaml_extension(name, path, module_name, yaml_ext, is_python_module)
    if is_python_module:
        return _import_module(name, module_name, path)
    import ctypes
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)  # its TL_LIBRARY registrations run now
    errors = _C._take_registration_errors()
    if errors:
        raise RuntimeError(f"extension '{name}' failed to register its operators:\n" + "\n".join(errors))
    return path


def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None, extra_ldflags=None,
         extra_include_paths=None, build_directory=None, verbose=False, with_cuda=None, with_sycl=None,
         is_python_module=True, is_standalone=False, keep_intermediates=True, functions_yaml=None):
    """Builds the extension `name` from `sources` (.cpp, and .cu with nvcc)
    with ninja into its build folder, and imports it: returns the module
    (is_python_module=False: loads the library for its operator
    registrations and returns its path; is_standalone=True: links an
    executable and returns its path).

    functions_yaml: an extension's own operator YAML (`namespace: <ns>` and
    `functions: [...]`, the entries written as in native_functions.yaml).
    torchlike's generator turns it into kernels, dispatcher registrations,
    autograd and autocast in the build folder; they are compiled with
    `sources` (which define any hand-written kernel the YAML names) into the
    extension, whose operators are registered when it loads and are called
    as torchlike.ops.<ns>.<name>. Without a PYBIND11_MODULE in the sources,
    load returns that torchlike.ops.<ns> namespace. Needs jinja2 and pyyaml
    (the `ext` extra)."""
    if with_sycl or extra_sycl_cflags:
        raise RuntimeError("load: SYCL sources are not supported by torchlike")
    return _jit_compile(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths,
                        build_directory, verbose, with_cuda, is_python_module, is_standalone, functions_yaml)


def load_inline(name, cpp_sources, cuda_sources=None, sycl_sources=None, functions=None, extra_cflags=None,
                extra_cuda_cflags=None, extra_sycl_cflags=None, extra_ldflags=None, extra_include_paths=None,
                build_directory=None, verbose=False, with_cuda=None, with_sycl=None, is_python_module=True,
                with_pytorch_error_handling=True, keep_intermediates=True, use_pch=False,
                no_implicit_headers=False, functions_yaml=None):
    """load() from source strings: cpp_sources (and cuda_sources) are written to
    main.cpp (cuda.cu) in the build folder; `functions` (a list of names, or
    {name: docstring}) get pybind11 bindings generated for them.
    functions_yaml: as for load(), a path (or the YAML text itself, written
    to functions.yaml in the build folder)."""
    if sycl_sources or with_sycl:
        raise RuntimeError("load_inline: SYCL sources are not supported by torchlike")
    build_dir = build_directory or os.path.join(get_default_build_root(), name)
    os.makedirs(build_dir, exist_ok=True)
    if isinstance(cpp_sources, str):
        cpp_sources = [cpp_sources]
    cuda_sources = [cuda_sources] if isinstance(cuda_sources, str) else list(cuda_sources or [])
    header = [] if no_implicit_headers else ["#include <torch/extension.h>"]
    body = header + list(cpp_sources)
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        if isinstance(functions, list):
            functions = {f: f for f in functions}
        if not isinstance(functions, dict):
            raise ValueError(f"load_inline: functions must be a list or dict, got {type(functions).__name__}")
        body.append("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {")
        for fn, doc in functions.items():
            body.append(f'  m.def("{fn}", {fn}, "{doc}");')
        body.append("}")
    sources = [os.path.join(build_dir, "main.cpp")]
    _write_if_changed(sources[0], "\n".join(body) + "\n")
    if cuda_sources:
        cuda_header = [] if no_implicit_headers else ["#include <torch/types.h>", "#include <cuda.h>",
                                                      "#include <cuda_runtime.h>"]
        sources.append(os.path.join(build_dir, "cuda.cu"))
        _write_if_changed(sources[1], "\n".join(cuda_header + cuda_sources) + "\n")
    if functions_yaml is not None and not os.path.isfile(functions_yaml) and "\n" in functions_yaml:
        _write_if_changed(os.path.join(build_dir, "functions.yaml"), functions_yaml)
        functions_yaml = os.path.join(build_dir, "functions.yaml")
    return _jit_compile(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths,
                        build_dir, verbose, with_cuda if with_cuda is not None else bool(cuda_sources),
                        is_python_module, False, functions_yaml)


# ---------------------------------------------------------------- setuptools

def CppExtension(name, sources, *args, **kwargs):
    """A setuptools.Extension for a C++ extension: torchlike's headers,
    pybind11's, and libtorchlike.so (rpath included). Build it with
    cmdclass={"build_ext": BuildExtension}."""
    import setuptools
    kwargs["include_dirs"] = list(kwargs.get("include_dirs", [])) + include_paths() + [_pybind11_include()]
    kwargs["library_dirs"] = list(kwargs.get("library_dirs", [])) + library_paths()
    kwargs["libraries"] = list(kwargs.get("libraries", [])) + ["torchlike"]
    kwargs["runtime_library_dirs"] = list(kwargs.get("runtime_library_dirs", [])) + library_paths()
    kwargs["language"] = "c++"
    return setuptools.Extension(name, sources, *args, **kwargs)


def CUDAExtension(name, sources, *args, **kwargs):
    """CppExtension plus the CUDA toolkit's headers and cudart; .cu sources are
    compiled by nvcc (through BuildExtension)."""
    ext = CppExtension(name, sources, *args, **kwargs)
    ext.include_dirs += include_paths("cuda")[1:]
    ext.library_dirs += library_paths("cuda")[1:]
    ext.runtime_library_dirs += library_paths("cuda")[1:]
    ext.libraries.append("cudart")
    return ext


def _build_ext_base():
    from setuptools.command.build_ext import build_ext
    return build_ext


class BuildExtension(_build_ext_base()):
    """setuptools' build_ext for CppExtension/CUDAExtension: C++17, the
    TORCH_EXTENSION_NAME macro, and nvcc for .cu files. extra_compile_args may
    be a dict {"cxx": [...], "nvcc": [...]}, as in PyTorch."""

    @classmethod
    def with_options(cls, **options):
        class _WithOptions(cls):
            def __init__(self, *args, **kwargs):
                kwargs.update(options)
                super().__init__(*args, **kwargs)
        return _WithOptions

    def __init__(self, *args, **kwargs):
        self.no_python_abi_suffix = kwargs.pop("no_python_abi_suffix", False)
        self.use_ninja = kwargs.pop("use_ninja", True)
        super().__init__(*args, **kwargs)

    def build_extensions(self):
        compiler = self.compiler
        if ".cu" not in compiler.src_extensions:
            compiler.src_extensions += [".cu", ".cuh"]
        original_compile = compiler._compile

        def compile_one(obj, src, ext, cc_args, extra_postargs, pp_opts):
            if isinstance(extra_postargs, dict):
                extra = extra_postargs.get("nvcc" if src.endswith(".cu") else "cxx", [])
            else:
                extra = list(extra_postargs or [])
            if src.endswith(".cu"):
                if CUDA_HOME is None:
                    raise OSError(f"BuildExtension: {src} needs nvcc, which was not found; set CUDA_HOME")
                nvcc = os.path.join(CUDA_HOME, "bin", "nvcc")
                cmd = ([nvcc, "-c", src, "-o", obj, "-std=c++17", "-Xcompiler", "-fPIC", "--expt-relaxed-constexpr"]
                       + pp_opts + _cuda_archs() + extra)
                self.spawn(cmd)
                return
            original_compile(obj, src, ext, cc_args, ["-std=c++17"] + extra, pp_opts)

        compiler._compile = compile_one
        for ext in self.extensions:
            macro = ("TORCH_EXTENSION_NAME", ext.name.split(".")[-1])
            if macro not in ext.define_macros:
                ext.define_macros.append(macro)
            ext.define_macros.append(("TORCH_API_INCLUDE_EXTENSION_H", None))
        try:
            super().build_extensions()
        finally:
            compiler._compile = original_compile

    def get_ext_filename(self, ext_name):
        name = super().get_ext_filename(ext_name)
        if self.no_python_abi_suffix:
            suffix = sysconfig.get_config_var("EXT_SUFFIX")
            if name.endswith(suffix):
                name = name[: -len(suffix)] + ".so"
        return name
