"""torchlike.version: what this build is (as torch.version).

`cuda` is the CUDA runtime version the CUDA library was built with ("13.0"),
or None in a build without CUDA, as in a CPU-only PyTorch."""
from torchlike import _C

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "xpu"]

__version__ = "0.1.0"
debug = False
hip = None
xpu = None
git_version = "Unknown"
cuda = _C._cuda_versions()[0]
