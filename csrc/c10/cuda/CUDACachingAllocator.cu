// Device memory for CUDA tensors: the device-neutral caching policy
// (CachingAllocatorPolicy.h) over cudaMalloc/cudaFree and CUDA events, one
// policy instance per device, behind the c10::Allocator registered for
// DeviceType::CUDA.
#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>
#include "c10/cuda/CUDAContext.h"
#include "c10/cuda/CUDARuntime.h"
#include "c10/cuda/CachingAllocatorPolicy.h"

namespace c10::cuda::runtime {

namespace {

// Raw memory and events of one device. The policy calls it under its lock;
// every call makes the device current first, because cudaMalloc and
// cudaEventCreate act on the current device.
class CudaDeviceMemory final : public RawDeviceMemory {
 public:
  explicit CudaDeviceMemory(DeviceIndex index) : index_(index) {}

  void* allocate(size_t bytes) override {
    ScopedDevice guard(index_);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // the policy frees its cache and retries
      return nullptr;
    }
    TL_CUDA_CHECK(err);
    return p;
  }

  void free(void* ptr) override {
    ScopedDevice guard(index_);
    TL_CUDA_CHECK(cudaFree(ptr));
  }

  void memoryInfo(size_t* free_bytes, size_t* total_bytes) override {
    ScopedDevice guard(index_);
    TL_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  }

  DeviceEventHandle recordEvent(StreamId stream) override {
    ScopedDevice guard(index_);
    cudaEvent_t ev = nullptr;
    TL_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    cudaError_t err = cudaEventRecord(ev, streamHandle(index_, stream));
    if (err != cudaSuccess) {
      (void)cudaEventDestroy(ev);
      raiseCUDAError(err, "cudaEventRecord", __FILE__, __LINE__);
    }
    return reinterpret_cast<DeviceEventHandle>(ev);
  }

  bool eventCompleted(DeviceEventHandle event) override {
    cudaError_t err = cudaEventQuery(reinterpret_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    TL_CUDA_CHECK(err);
    return true;
  }

  void waitEvent(DeviceEventHandle event) override {
    TL_CUDA_CHECK(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(event)));
  }

  void destroyEvent(DeviceEventHandle event) override {
    ScopedDevice guard(index_);
    TL_CUDA_CHECK(cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event)));
  }

 private:
  const DeviceIndex index_;
};

struct PerDevice {
  std::once_flag once;
  std::unique_ptr<DeviceCachingAllocator> allocator;  // set inside `once`
  std::atomic<DeviceCachingAllocator*> published{nullptr};
};

std::vector<std::unique_ptr<PerDevice>>& perDevice() {
  // Leaked on purpose: storages freed during interpreter shutdown still
  // return their blocks here after static destructors would have run.
  static auto* v = [] {
    auto* p = new std::vector<std::unique_ptr<PerDevice>>();
    for (DeviceIndex i = 0; i < deviceCount(); ++i) p->push_back(std::make_unique<PerDevice>());
    return p;
  }();
  return *v;
}

// torch.cuda.caching_allocator_enable(False): every free gives the device's
// unused segments straight back to the driver.
std::atomic<bool> g_caching_enabled{true};

void freeDeviceBlock(void* ctx, void* ptr) {
  // ctx holds the device index + 1. A deleter must not throw (it runs in
  // the storage's destructor); a failure here means the context is already
  // broken, and the memory is lost with it.
  DeviceIndex index = (DeviceIndex)(reinterpret_cast<intptr_t>(ctx) - 1);
  try {
    deviceAllocator(index).free(ptr);
    if (!g_caching_enabled.load(std::memory_order_relaxed)) deviceAllocator(index).emptyCache();
  } catch (...) {
  }
}

class CUDACachingAllocatorFront final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, DeviceIndex index, StreamId stream) override {
    index = checkedIndex(index, "CUDA allocator");
    // Storages ask for "stream 0"; the memory is really first used on the
    // thread's current stream, which is the pool it must come from.
    if (stream == 0) stream = currentStreamId(index);
    DataPtr d;
    d.device = Device(DeviceType::CUDA, index);
    d.ptr = deviceAllocator(index).malloc(nbytes, stream);
    if (d.ptr) {
      d.ctx = reinterpret_cast<void*>(intptr_t(index) + 1);
      d.deleter = &freeDeviceBlock;
    }
    return d;
  }

  void copy_data(void* dst, const void* src, size_t n) const override {
    if (n == 0) return;
    TL_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, getCurrentCUDAStream()));
  }
};

CUDACachingAllocatorFront g_front;

}  // namespace

DeviceCachingAllocator& deviceAllocator(DeviceIndex index) {
  index = checkedIndex(index, "CUDA caching allocator");
  PerDevice& slot = *perDevice()[index];
  std::call_once(slot.once, [&] {
    slot.allocator = std::make_unique<DeviceCachingAllocator>(index, std::make_shared<CudaDeviceMemory>(index));
    slot.published.store(slot.allocator.get(), std::memory_order_release);
  });
  return *slot.allocator;
}

DeviceCachingAllocator* deviceAllocatorIfCreated(DeviceIndex index) {
  if (index < 0 || index >= deviceCount()) return nullptr;
  return (*perDevice()[index]).published.load(std::memory_order_acquire);
}

Allocator* cudaAllocator() { return &g_front; }

void registerAllocator() { c10::setAllocator(DeviceType::CUDA, &g_front); }

void setCachingEnabled(bool enabled) { g_caching_enabled.store(enabled); }

}  // namespace c10::cuda::runtime
