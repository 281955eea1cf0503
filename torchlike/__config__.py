"""torchlike.__config__: how this torchlike was built (show()) and how it runs
in parallel (parallel_info()), printed as PyTorch's are.

The build facts come from torchlike/_build_config.py, which setup.py writes
at build time; the runtime facts (CPU capability in use, thread counts, BLAS
library, MPI) are read when asked.
"""
import ctypes
import importlib.metadata
import importlib.util
import os
import sys

__all__ = ["show", "parallel_info"]


def _build_config():
    try:
        from torchlike._build_config import BUILD_CONFIG
        return dict(BUILD_CONFIG)
    except ImportError:  # built by something other than setup.py
        return {}


def _cxx_flags():
    """The C++ flags this build compiled with."""
    return _build_config().get("cxx_flags", "")


def _openblas_lib():
    import scipy_openblas32 as ob
    name = ob.get_library()
    for cand in (f"lib{name}.so", f"{name}.so"):
        path = os.path.join(ob.get_lib_dir(), cand)
        if os.path.exists(path):
            return ctypes.CDLL(path)
    return None


def _openblas_runtime():
    """(config string, threads) from the loaded OpenBLAS, or (None, None)."""
    try:
        lib = _openblas_lib()
    except Exception:  # noqa: BLE001  (no scipy_openblas32: report nothing)
        return None, None
    if lib is None:
        return None, None
    cfg = threads = None
    for prefix in ("scipy_openblas_", "openblas_", "scipy_"):
        try:
            f = getattr(lib, prefix + "get_config")
            f.restype = ctypes.c_char_p
            cfg = f().decode().strip()
            break
        except AttributeError:
            continue
    for prefix in ("scipy_openblas_", "openblas_"):
        try:
            f = getattr(lib, prefix + "get_num_threads")
            f.restype = ctypes.c_int
            threads = f()
            break
        except AttributeError:
            continue
    return cfg, threads


_OPENMP_NAMES = {201511: "4.5", 201811: "5.0", 202011: "5.1", 202111: "5.2", 201307: "4.0", 201107: "3.1"}


def _openmp_line(version):
    if version is None:
        return None
    return f"OpenMP {version} (a.k.a. OpenMP {_OPENMP_NAMES.get(version, 'unknown')})"


def _mpi_line():
    """MPI through mpi4py, when it is importable: the library's version if
    mpi4py.MPI is already loaded (importing it would initialise MPI), else
    the installed packages' versions."""
    if importlib.util.find_spec("mpi4py") is None:
        return None
    mod = sys.modules.get("mpi4py.MPI")
    if mod is not None:
        try:
            return "MPI: " + mod.Get_library_version().strip().splitlines()[0]
        except Exception:  # noqa: BLE001
            pass
    parts = []
    for dist in ("mpi4py", "mpich", "openmpi"):
        try:
            parts.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            pass
    return "MPI: " + ", ".join(parts) if parts else "MPI: mpi4py"


def show():
    """The build configuration, as a string (print it)."""
    import torchlike
    from torchlike.backends.cpu import get_cpu_capability
    cfg = _build_config()
    lines = ["torchlike built with:"]
    if cfg.get("compiler"):
        lines.append(f"  - {cfg['compiler']}")
    if cfg.get("cplusplus"):
        lines.append(f"  - C++ Version: {cfg['cplusplus']}")
    blas_ver = cfg.get("blas_version")
    blas_cfg, _ = _openblas_runtime()
    blas = f"{cfg.get('blas', 'scipy-openblas32')} {blas_ver}" if blas_ver else cfg.get("blas", "scipy-openblas32")
    lines.append(f"  - BLAS: {blas}" + (f" ({blas_cfg})" if blas_cfg else ""))
    omp = _openmp_line(cfg.get("openmp"))
    if omp:
        lines.append(f"  - {omp}")
    lines.append(f"  - LAPACK is enabled (provided by {cfg.get('lapack', 'scipy-openblas32')})")
    lines.append(f"  - CPU capability usage: {get_cpu_capability()}")
    if cfg.get("use_cuda"):
        lines.append(f"  - CUDA Runtime {cfg.get('cuda_version')}")
        archs = ";".join(f"-gencode;arch=compute_{a},code=sm_{a}" for a in cfg.get("cuda_archs", []))
        if archs:
            lines.append(f"  - NVCC architecture flags: {archs}")
    if cfg.get("use_cudnn"):
        lines.append("  - CuDNN")
    mpi = _mpi_line()
    if mpi:
        lines.append(f"  - {mpi}")
    settings = {
        "BLAS_INFO": "open",
        "BUILD_TYPE": "Release",
        "COMMIT_SHA": cfg.get("commit") or "unknown",
        "CXX_COMPILER": cfg.get("compiler_path", "unknown"),
        "CXX_FLAGS": " " + cfg.get("cxx_flags", ""),
        "CXX_OPT_FLAGS": cfg.get("opt_flags", ""),
        "LAPACK_INFO": "open",
        "TORCHLIKE_VERSION": torchlike.__version__,
        "USE_CUDA": "ON" if cfg.get("use_cuda") else "OFF",
        "USE_CUDNN": "ON" if cfg.get("use_cudnn") else "OFF",
        "USE_MPI": "ON" if mpi else "OFF",
        "USE_OPENMP": "ON" if cfg.get("openmp") else "OFF",
    }
    if cfg.get("use_cuda"):
        settings["CUDA_FLAGS"] = cfg.get("nvcc_flags", "")
        settings["CUDA_VERSION"] = cfg.get("cuda_version")
    if not cfg:
        lines.append("  - (no build record: torchlike/_build_config.py is written by setup.py)")
    lines.append("  - Build settings: " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items())) + ", ")
    return "\n".join(lines) + "\n"


def parallel_info():
    """Thread settings of the intra-op pool, OpenMP and BLAS, as a string."""
    import torchlike
    cfg = _build_config()
    _, blas_threads = _openblas_runtime()
    lines = ["ATen/Parallel:",
             f"\tat::get_num_threads() : {torchlike.get_num_threads()}",
             f"\tat::get_num_interop_threads() : {torchlike.get_num_interop_threads()}"]
    omp = _openmp_line(cfg.get("openmp"))
    if omp:
        lines.append(omp)
        lines.append(f"\tomp_get_max_threads() : {torchlike.get_num_threads()}")
    blas_ver = cfg.get("blas_version")
    lines.append(f"OpenBLAS (scipy-openblas32{' ' + blas_ver if blas_ver else ''})")
    if blas_threads is not None:
        lines.append(f"\topenblas_get_num_threads() : {blas_threads}")
    lines.append(f"std::thread::hardware_concurrency() : {os.cpu_count()}")
    lines.append("Environment variables:")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        lines.append(f"\t{var} : {os.environ.get(var, '[not set]')}")
    lines.append("ATen parallel backend: OpenMP")
    return "\n".join(lines) + "\n"
