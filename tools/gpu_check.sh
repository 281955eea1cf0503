#!/usr/bin/env bash
# One command for a GPU machine (issue 13): build torchlike in place with CUDA
# for sm_90 on every core, run the CUDA tests, the whole suite, and the GPU
# benchmark. Meant to finish in under 10 minutes on a freshly started H100
# machine (16 cores, nvcc 13, PyTorch's CUDA build installed, no network).
#
#   tools/gpu_check.sh            # from the repository root
#
# Logs go to $OUT when it is set (the device tool's output folder), else to
# build/gpu_check/. Environment:
#   TORCHLIKE_CUDA_ARCH  (default 90)   MAX_JOBS (default: all cores)
#   TORCHLIKE_WHEELS     folder of carried wheels (default .whl): installed
#                        with --no-index when a build dependency is missing
#                        (scipy-openblas32 is not in the GPU image; fetch it
#                        beforehand with `pip download --no-deps
#                        --only-binary=:all: --python-version 3.12
#                        --platform manylinux2014_x86_64 -d .whl scipy-openblas32`)
#   GPU_CHECK_SKIP_SUITE=1  skip the whole-suite run (CUDA tests and bench only)
set -u -o pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOG=${OUT:-$ROOT/build/gpu_check}
mkdir -p "$LOG"
PY=${PYTHON:-python3}
JOBS=${MAX_JOBS:-$(nproc)}
export PYTHONUNBUFFERED=1
status=0
start=$(date +%s)
stamp() { echo "== [$(( $(date +%s) - start ))s] $*"; }

stamp "machine"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  nvcc --version 2>&1 | tail -1
  $PY -c "import sys, torch; print('python', sys.version.split()[0], '| torch', torch.__version__, '| cuda', torch.version.cuda)" 2>&1
  $PY - <<'EOF' 2>&1
import glob, os, site, sys
# Where NVIDIA's wheels put cuBLAS/cuDNN on this machine (the loader's search, checked by eye).
for d in dict.fromkeys(sys.path + site.getsitepackages()):
    for f in sorted(glob.glob(os.path.join(d, "nvidia", "*", "lib", "libcu[bd]*.so.*"))):
        print("found", f)
EOF
} | tee "$LOG/machine.txt"

# Build dependencies: everything but scipy-openblas32 is in the GPU image.
missing=$($PY - <<'EOF'
import importlib.util
need = {"yaml": "pyyaml", "jinja2": "jinja2", "ninja": "ninja", "numpy": "numpy", "scipy_openblas32": "scipy-openblas32"}
print(" ".join(pkg for mod, pkg in need.items() if importlib.util.find_spec(mod) is None))
EOF
)
if [ -n "$missing" ]; then
  WHEELS=${TORCHLIKE_WHEELS:-$ROOT/.whl}
  stamp "installing $missing from $WHEELS"
  if ls "$WHEELS"/*.whl >/dev/null 2>&1; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/gpu_check_site \
      "$WHEELS"/*.whl 2>&1 | tail -5
    export PYTHONPATH=/tmp/gpu_check_site${PYTHONPATH:+:$PYTHONPATH}
  else
    echo "gpu_check: missing build dependencies ($missing) and no wheels in $WHEELS; see this script's header" >&2
    exit 2
  fi
fi

stamp "build (TORCHLIKE_CUDA=1, sm_${TORCHLIKE_CUDA_ARCH:-90}, $JOBS jobs)"
if ! TORCHLIKE_CUDA=1 TORCHLIKE_CUDA_ARCH=${TORCHLIKE_CUDA_ARCH:-90} MAX_JOBS=$JOBS \
     timeout 420 $PY setup.py build_ninja >"$LOG/build.log" 2>&1; then
  tail -30 "$LOG/build.log"
  stamp "build FAILED"
  exit 1
fi
tail -2 "$LOG/build.log"

stamp "torchlike sees the GPU"
$PY - <<'EOF' 2>&1 | tee "$LOG/device.txt"
import torchlike
from torchlike import _cuda_lib
print("cuda available:", torchlike.cuda.is_available(), "| load error:", _cuda_lib.load_error())
if torchlike.cuda.is_available():
    print("device:", torchlike.cuda.get_device_name(0))
    a = torchlike.randn(64, 64)
    err = ((a.cuda() @ a.cuda()).cpu() - a @ a).abs().max().item()
    print("mm on cuda vs cpu, max abs diff:", err)
EOF

XDIST="-n $(( JOBS < 8 ? JOBS : 8 ))"
$PY -c "import xdist" 2>/dev/null || XDIST=""

stamp "CUDA tests (-k cuda)"
timeout 240 $PY -m pytest -q $XDIST tests -k cuda -p no:cacheprovider 2>&1 | tee "$LOG/tests_cuda.log" | tail -25
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

if [ "${GPU_CHECK_SKIP_SUITE:-0}" != 1 ]; then
  # With a GPU, tests/test_ops_device.py runs every registry op on CUDA
  # against the CPU, and the e2e tests compare CUDA loss curves with the CPU's.
  stamp "whole suite"
  timeout 300 $PY -m pytest -q $XDIST tests -p no:cacheprovider 2>&1 | tee "$LOG/tests_all.log" | tail -25
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

stamp "GPU benchmark"
timeout 240 $PY tools/bench/bench_gpu.py 2>&1 | tee "$LOG/bench_gpu.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

stamp "done, status $status (logs in $LOG)"
exit $status
