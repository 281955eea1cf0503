// What CUDA kernels ask of the runtime: the current stream, device
// properties, the allocator, Philox counters, and error checking. Included
// only by code compiled into libtorchlike_cuda.so (.cu files); the core and
// _C never see a CUDA header. Implemented in CUDAContext.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>
#include "c10/Device.h"
#include "c10/Exception.h"
#include "c10/Stream.h"

namespace c10::cuda {

// ---- errors
// Raises RuntimeError "CUDA error: <name>: <string> (in <what>)". Clears the
// sticky error state where CUDA allows it.
[[noreturn]] void raiseCUDAError(cudaError_t err, const char* what, const char* file, int line);

#define TL_CUDA_CHECK(expr)                                                     \
  do {                                                                          \
    cudaError_t tl_cuda_err_ = (expr);                                          \
    if (TL_UNLIKELY(tl_cuda_err_ != cudaSuccess))                               \
      ::c10::cuda::raiseCUDAError(tl_cuda_err_, #expr, __FILE__, __LINE__);     \
  } while (0)
// After a <<<...>>> launch: raises the launch error, naming `op`.
#define TL_CUDA_KERNEL_LAUNCH_CHECK(op)                                         \
  do {                                                                          \
    cudaError_t tl_cuda_err_ = cudaGetLastError();                              \
    if (TL_UNLIKELY(tl_cuda_err_ != cudaSuccess))                               \
      ::c10::cuda::raiseCUDAError(tl_cuda_err_, op, __FILE__, __LINE__);        \
  } while (0)

// ---- devices and streams
// The calling thread's current CUDA device.
DeviceIndex currentDevice();
// The calling thread's current stream on device `index` (-1: current device)
// as a cudaStream_t; the default stream is the legacy null stream.
cudaStream_t getCurrentCUDAStream(DeviceIndex index = -1);
// The cudaStream_t behind a c10::Stream of type CUDA.
cudaStream_t toCUDAStream(const Stream& s);
// Cached cudaDeviceProp of device `index` (-1: current device).
const cudaDeviceProp& getDeviceProperties(DeviceIndex index = -1);

// ---- memory
// Device memory from the caching allocator, for scratch space inside a
// kernel (cuBLAS workspace, reduction partials), freed with cachingFree. It
// is ordered on `stream`.
void* cachingMalloc(size_t bytes, cudaStream_t stream);
void cachingFree(void* ptr);

// ---- random numbers
// Reserves `increment` Philox counters of device `index`'s default generator
// (or of `gen` when given): returns (seed, first counter). Element i of a
// random op uses counter offset + i, as on CPU, so CPU and CUDA draw the same
// values for the same seed where the op consumes counters the same way.
std::pair<uint64_t, uint64_t> philoxSeedOffset(DeviceIndex index, uint64_t increment);

}  // namespace c10::cuda
