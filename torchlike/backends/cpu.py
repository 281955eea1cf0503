"""torchlike.backends.cpu: what the CPU kernels can use."""


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def get_cpu_capability():
    """The widest vector instruction set this CPU offers, named as PyTorch
    names it: "AVX512", "AVX2" or "DEFAULT" (on x86; "DEFAULT" elsewhere)."""
    flags = _cpu_flags()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "AVX512"
    if {"avx2", "fma"} <= flags:
        return "AVX2"
    return "DEFAULT"
