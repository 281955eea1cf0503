// The kernel-facing CUDA API (CUDAContext.h): errors, the current stream,
// cached device properties, scratch memory from the caching allocator and
// Philox counters from the per-device default generators.
#include "c10/cuda/CUDAContext.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>
#include "c10/Generator.h"
#include "c10/cuda/CachingAllocatorPolicy.h"
#include "c10/cuda/CUDARuntime.h"

namespace c10::cuda {

void raiseCUDAError(cudaError_t err, const char* what, const char* file, int line) {
  // Clears the error when it is not sticky, so the next call does not see it
  // again; a sticky one (a kernel fault) poisons the context for good anyway.
  (void)cudaGetLastError();
  (void)file;
  (void)line;
  TL_ERROR("CUDA error: ", cudaGetErrorName(err), ": ", cudaGetErrorString(err), " (in ", what, ")");
}

DeviceIndex currentDevice() {
  TL_CHECK(runtime::deviceCount() > 0, "device type 'cuda' is not available: ", runtime::unavailableReason());
  int d = 0;
  TL_CUDA_CHECK(cudaGetDevice(&d));
  return (DeviceIndex)d;
}

cudaStream_t getCurrentCUDAStream(DeviceIndex index) {
  index = runtime::checkedIndex(index, "getCurrentCUDAStream");
  return runtime::streamHandle(index, runtime::currentStreamId(index));
}

cudaStream_t toCUDAStream(const Stream& s) {
  TL_CHECK(s.device_type() == DeviceType::CUDA, "toCUDAStream: ", s.device(), " is not a CUDA device");
  return runtime::streamHandle(runtime::checkedIndex(s.device_index(), "toCUDAStream"), s.id());
}

namespace {

struct CachedProperties {
  std::once_flag once;
  cudaDeviceProp prop{};
};

}  // namespace

const cudaDeviceProp& getDeviceProperties(DeviceIndex index) {
  static std::vector<std::unique_ptr<CachedProperties>> cache = [] {
    std::vector<std::unique_ptr<CachedProperties>> v;
    for (DeviceIndex i = 0; i < runtime::deviceCount(); ++i) v.push_back(std::make_unique<CachedProperties>());
    return v;
  }();
  index = runtime::checkedIndex(index, "get_device_properties");
  CachedProperties& c = *cache[index];
  std::call_once(c.once, [&] { TL_CUDA_CHECK(cudaGetDeviceProperties(&c.prop, index)); });
  return c.prop;
}

namespace {

// The stream id behind a raw handle, so scratch memory joins the stream-
// ordered pools of the stream it is used on.
StreamId streamIdOf(DeviceIndex index, cudaStream_t stream) {
  if (stream == nullptr) return 0;
  StreamId current = runtime::currentStreamId(index);
  if (runtime::streamHandle(index, current) == stream) return current;
  for (int k = 0; k < runtime::kPoolSize; ++k) {
    for (bool high : {false, true}) {
      StreamId id = runtime::poolStreamId(high, k);
      if (runtime::streamHandle(index, id) == stream) return id;
    }
  }
  return runtime::externalStream(reinterpret_cast<uintptr_t>(stream), index).id();
}

// Which device each scratch pointer came from, for cachingFree.
std::mutex g_scratch_mu;
std::unordered_map<void*, DeviceIndex> g_scratch_owner;

}  // namespace

void* cachingMalloc(size_t bytes, cudaStream_t stream) {
  DeviceIndex index = currentDevice();
  void* p = runtime::deviceAllocator(index).malloc(bytes, streamIdOf(index, stream));
  if (p) {
    std::lock_guard<std::mutex> g(g_scratch_mu);
    g_scratch_owner[p] = index;
  }
  return p;
}

void cachingFree(void* ptr) {
  if (ptr == nullptr) return;
  DeviceIndex index;
  {
    std::lock_guard<std::mutex> g(g_scratch_mu);
    auto it = g_scratch_owner.find(ptr);
    TL_CHECK(it != g_scratch_owner.end(), "cachingFree: pointer was not allocated by cachingMalloc");
    index = it->second;
    g_scratch_owner.erase(it);
  }
  runtime::deviceAllocator(index).free(ptr);
}

std::pair<uint64_t, uint64_t> philoxSeedOffset(DeviceIndex index, uint64_t increment) {
  GeneratorImpl::Reservation r = defaultGenerator(Device(DeviceType::CUDA, index))->reserve(increment);
  return {r.seed, r.offset};
}

}  // namespace c10::cuda
