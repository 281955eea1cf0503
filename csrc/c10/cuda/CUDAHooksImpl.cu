// The CUDA library's CUDAHooksInterface (what torchlike.cuda asks beyond the
// generic registries), the per-device Philox generator factory, and
// tl_cuda_init, the entry point _cuda_lib.py calls once the library is loaded.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>
#include "c10/Generator.h"
#include "c10/cuda/CUDAContext.h"
#include "c10/cuda/CUDAHooks.h"
#include "c10/cuda/CUDARuntime.h"
#include "c10/cuda/CachingAllocatorPolicy.h"

namespace c10::cuda::runtime {

namespace {

std::string formatUuid(const cudaUUID_t& u) {
  // "GPU-" + 8-4-4-4-12 lowercase hex digits, as nvidia-smi prints it.
  static const int kGroups[] = {4, 2, 2, 2, 6};
  std::string s = "GPU-";
  int byte = 0;
  for (int g = 0; g < 5; ++g) {
    if (g) s += '-';
    for (int k = 0; k < kGroups[g]; ++k, ++byte) {
      char hex[3];
      std::snprintf(hex, sizeof(hex), "%02x", (unsigned)(unsigned char)u.bytes[byte]);
      s += hex;
    }
  }
  return s;
}

int deviceAttribute(cudaDeviceAttr attr, DeviceIndex index) {
  int v = 0;
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, index));
  return v;
}

DeviceIndex storageDevice(const void* ptr, DeviceIndex fallback) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return fallback;
  }
  return attr.type == cudaMemoryTypeDevice ? (DeviceIndex)attr.device : fallback;
}

class CUDAHooksImpl final : public CUDAHooksInterface {
 public:
  bool isBuilt() const override { return true; }
  std::string unavailableReason() const override { return runtime::unavailableReason(); }

  std::string runtimeVersion() const override {
    return std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10);
  }

  int driverVersion() const override {
    int v = 0;
    if (cudaDriverGetVersion(&v) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return v;
  }

  std::vector<std::string> archList() const override {
    std::vector<std::string> out;
#ifdef __CUDA_ARCH_LIST__
    // nvcc defines it in host code as the compiled architectures, e.g. 800,900.
    for (int a : {__CUDA_ARCH_LIST__}) out.push_back("sm_" + std::to_string(a / 10));
#endif
    return out;
  }

  DeviceProperties deviceProperties(DeviceIndex index) const override {
    index = checkedIndex(index, "get_device_properties");
    const cudaDeviceProp& p = getDeviceProperties(index);
    DeviceProperties d;
    d.name = p.name;
    d.major = p.major;
    d.minor = p.minor;
    d.total_memory = (int64_t)p.totalGlobalMem;
    d.multi_processor_count = p.multiProcessorCount;
    d.is_integrated = p.integrated;
    d.is_multi_gpu_board = p.isMultiGpuBoard;
    d.max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
    d.warp_size = p.warpSize;
    d.regs_per_multiprocessor = p.regsPerMultiprocessor;
    d.shared_memory_per_block = (int64_t)p.sharedMemPerBlock;
    d.shared_memory_per_block_optin = (int64_t)p.sharedMemPerBlockOptin;
    d.shared_memory_per_multiprocessor = (int64_t)p.sharedMemPerMultiprocessor;
    d.L2_cache_size = p.l2CacheSize;
    d.pci_bus_id = p.pciBusID;
    d.pci_device_id = p.pciDeviceID;
    d.pci_domain_id = p.pciDomainID;
    d.uuid = formatUuid(p.uuid);
    // Clock rates left cudaDeviceProp in CUDA 13; the attributes remain.
    d.clock_rate = deviceAttribute(cudaDevAttrClockRate, index);
    d.memory_clock_rate = deviceAttribute(cudaDevAttrMemoryClockRate, index);
    d.memory_bus_width = deviceAttribute(cudaDevAttrGlobalMemoryBusWidth, index);
    return d;
  }

  std::pair<size_t, size_t> memGetInfo(DeviceIndex index) const override {
    ScopedDevice guard(checkedIndex(index, "mem_get_info"));
    size_t free_bytes = 0, total_bytes = 0;
    TL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return {free_bytes, total_bytes};
  }

  std::vector<std::pair<std::string, int64_t>> memoryStats(DeviceIndex index) const override {
    if (deviceCount() == 0) return {};
    DeviceCachingAllocator* a = deviceAllocatorIfCreated(checkedIndex(index, "memory_stats"));
    return a ? a->stats().flatten() : std::vector<std::pair<std::string, int64_t>>{};
  }

  void resetPeakMemoryStats(DeviceIndex index) const override {
    if (deviceCount() == 0) return;
    if (DeviceCachingAllocator* a = deviceAllocatorIfCreated(checkedIndex(index, "reset_peak_memory_stats")))
      a->resetPeakStats();
  }

  void resetAccumulatedMemoryStats(DeviceIndex index) const override {
    if (deviceCount() == 0) return;
    if (DeviceCachingAllocator* a = deviceAllocatorIfCreated(checkedIndex(index, "reset_accumulated_memory_stats")))
      a->resetAccumulatedStats();
  }

  std::string memorySummary(DeviceIndex index, bool abbreviated) const override {
    return deviceAllocator(checkedIndex(index, "memory_summary")).summary(abbreviated);
  }

  std::vector<SegmentSnapshot> memorySnapshot() const override {
    std::vector<SegmentSnapshot> out;
    for (DeviceIndex i = 0; i < deviceCount(); ++i) {
      DeviceCachingAllocator* a = deviceAllocatorIfCreated(i);
      if (!a) continue;
      for (const auto& seg : a->segments()) {
        SegmentSnapshot s;
        s.device = i;
        s.address = seg.address;
        s.total_size = (int64_t)seg.total;
        s.allocated_size = (int64_t)seg.allocated;
        s.active_size = (int64_t)seg.active;
        s.requested_size = (int64_t)seg.requested;
        s.stream = seg.stream;
        s.small_pool = seg.small_pool;
        for (const auto& b : seg.blocks)
          s.blocks.push_back({b.address, (int64_t)b.size, (int64_t)b.requested, b.allocated});
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  void emptyCache() const override {
    for (DeviceIndex i = 0; i < deviceCount(); ++i)
      if (DeviceCachingAllocator* a = deviceAllocatorIfCreated(i)) a->emptyCache();
  }

  void setMemoryFraction(double fraction, DeviceIndex index) const override {
    deviceAllocator(checkedIndex(index, "set_per_process_memory_fraction")).setMemoryFraction(fraction);
  }

  double memoryFraction(DeviceIndex index) const override {
    DeviceCachingAllocator* a = deviceAllocatorIfCreated(checkedIndex(index, "get_per_process_memory_fraction"));
    return a ? a->memoryFraction() : 1.0;
  }

  void recordStream(void* ptr, const Stream& stream) const override {
    TL_CHECK(stream.device_type() == DeviceType::CUDA, "record_stream: expected a CUDA stream, got ", stream);
    DeviceIndex si = checkedIndex(stream.device_index(), "record_stream");
    if (ptr == nullptr) return;  // an empty storage holds no block
    deviceAllocator(storageDevice(ptr, si)).recordStream(ptr, stream.id());
  }

  DataPtr allocatePinned(size_t nbytes) const override { return runtime::allocatePinned(nbytes); }
  bool isPinned(const void* ptr) const override { return runtime::isPinned(ptr); }
  std::vector<std::pair<std::string, int64_t>> hostMemoryStats() const override { return pinnedStats(); }
  void resetPeakHostMemoryStats() const override { resetPinnedPeakStats(); }
  void resetAccumulatedHostMemoryStats() const override { resetPinnedAccumulatedStats(); }
  void emptyPinnedCache() const override { runtime::emptyPinnedCache(); }

  Stream streamFromPool(bool high_priority, DeviceIndex index) const override {
    return runtime::streamFromPool(high_priority, index);
  }
  Stream externalStream(uintptr_t handle, DeviceIndex index) const override {
    return runtime::externalStream(handle, index);
  }
  uintptr_t streamHandle(const Stream& s) const override {
    return reinterpret_cast<uintptr_t>(toCUDAStream(s));
  }
  int streamPriority(const Stream& s) const override { return runtime::streamPriority(s); }
  std::pair<int, int> streamPriorityRange() const override { return priorityRange(); }

  void setCachingEnabled(bool enabled) const override { runtime::setCachingEnabled(enabled); }
  bool canDeviceAccessPeer(DeviceIndex device, DeviceIndex peer) const override {
    int can = 0;
    TL_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, checkedIndex(device, "can_device_access_peer"),
                                          checkedIndex(peer, "can_device_access_peer")));
    return can != 0;
  }

  int syncDebugMode() const override { return runtime::syncDebugMode(); }
  void setSyncDebugMode(int mode) const override { runtime::setSyncDebugMode(mode); }
};

CUDAHooksImpl g_hooks;

// One Philox generator per device, the same generator type as CPU's: a
// kernel reserves counters with philoxSeedOffset.
Generator makeCUDAGenerator(Device d) { return Generator::make(d); }

}  // namespace

void registerGeneratorFactory() { c10::registerGeneratorFactory(DeviceType::CUDA, &makeCUDAGenerator); }
void registerHooks() { setCUDAHooks(&g_hooks); }

}  // namespace c10::cuda::runtime

// Connects the runtime to the core's registries. Makes no CUDA call, so a
// machine without a driver loads the library silently; the devices are
// counted on first use. Returns 0 on success.
extern "C" __attribute__((visibility("default"))) int tl_cuda_init() noexcept {
  using namespace c10::cuda::runtime;
  try {
    registerGuardImpl();
    registerAllocator();
    registerCopyKernels();
    registerGeneratorFactory();
    registerHooks();
    return 0;
  } catch (...) {
    return 1;
  }
}
