// C entry points that torchlike.cuda.nvtx, torchlike.cuda.profiler and
// torchlike.cuda.check_error call through ctypes: NVTX is header-only (nvtx3)
// and costs nothing unless a profiler injects itself, and cudaProfilerStart/
// Stop bracket Nsight's capture range. None of them throws across the C
// boundary.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>

extern "C" {

__attribute__((visibility("default"))) int tl_nvtx_range_push(const char* msg) { return nvtxRangePushA(msg); }

__attribute__((visibility("default"))) int tl_nvtx_range_pop() { return nvtxRangePop(); }

__attribute__((visibility("default"))) uint64_t tl_nvtx_range_start(const char* msg) {
  return (uint64_t)nvtxRangeStartA(msg);
}

__attribute__((visibility("default"))) void tl_nvtx_range_end(uint64_t id) { nvtxRangeEnd((nvtxRangeId_t)id); }

__attribute__((visibility("default"))) void tl_nvtx_mark(const char* msg) { nvtxMarkA(msg); }

__attribute__((visibility("default"))) int tl_cuda_profiler_start() { return (int)cudaProfilerStart(); }

__attribute__((visibility("default"))) int tl_cuda_profiler_stop() { return (int)cudaProfilerStop(); }

// The runtime's text for an error code ("invalid argument", ...).
__attribute__((visibility("default"))) const char* tl_cuda_error_string(int code) {
  return cudaGetErrorString((cudaError_t)code);
}
}
