// What the Python layer (torchlike.cuda) asks of the CUDA backend beyond the
// generic device registries (DeviceGuard, Allocator, copy kernels,
// generators): device properties, the caching allocator's statistics and
// controls, pinned host memory, library versions.
//
// The core library holds only this interface and a default implementation
// that answers "not built" (every query that needs CUDA raises, as a
// CPU-only PyTorch does). libtorchlike_cuda.so, when it is built and loaded,
// registers the real one. So _C never links to CUDA, and a machine without
// a driver never loads a CUDA symbol it cannot resolve.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "c10/Allocator.h"
#include "c10/Device.h"
#include "c10/Stream.h"

namespace c10::cuda {

// torch.cuda.get_device_properties(i)'s fields.
struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;
  int64_t total_memory = 0;
  int multi_processor_count = 0;
  int is_integrated = 0;
  int is_multi_gpu_board = 0;
  int max_threads_per_multi_processor = 0;
  int warp_size = 0;
  int regs_per_multiprocessor = 0;
  int64_t shared_memory_per_block = 0;
  int64_t shared_memory_per_block_optin = 0;
  int64_t shared_memory_per_multiprocessor = 0;
  int64_t L2_cache_size = 0;
  int pci_bus_id = 0, pci_device_id = 0, pci_domain_id = 0;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-..." form
  int clock_rate = 0;         // kHz
  int memory_clock_rate = 0;  // kHz
  int memory_bus_width = 0;   // bits
};

// One segment of the caching allocator, for torch.cuda.memory_snapshot().
struct SegmentSnapshot {
  int device = 0;
  uintptr_t address = 0;
  int64_t total_size = 0, allocated_size = 0, active_size = 0, requested_size = 0;
  StreamId stream = 0;
  bool small_pool = false;
  struct BlockSnapshot {
    uintptr_t address = 0;
    int64_t size = 0, requested_size = 0;
    bool allocated = false;
  };
  std::vector<BlockSnapshot> blocks;
};

class CUDAHooksInterface {
 public:
  virtual ~CUDAHooksInterface() = default;

  // True when this is the CUDA library's implementation (torch.backends.cuda.is_built()).
  virtual bool isBuilt() const { return false; }
  // Why the backend is unusable when it is built but sees no device ("no
  // driver", "CUDA driver too old", "no CUDA GPUs are available"); empty when usable.
  virtual std::string unavailableReason() const;
  // The CUDA runtime version the library was built with, e.g. "13.0"; empty when not built.
  virtual std::string runtimeVersion() const { return {}; }
  // cudaDriverGetVersion as an int (13000), 0 when there is no driver.
  virtual int driverVersion() const { return 0; }
  // "sm_80", "sm_90", ... compiled in; empty when not built.
  virtual std::vector<std::string> archList() const { return {}; }

  virtual DeviceProperties deviceProperties(DeviceIndex index) const;
  // (free, total) bytes on the device, as cudaMemGetInfo.
  virtual std::pair<size_t, size_t> memGetInfo(DeviceIndex index) const;

  // ---- caching allocator of device `index`
  // Flattened statistics (torch.cuda.memory_stats() keys); empty when the
  // device's allocator was never used.
  virtual std::vector<std::pair<std::string, int64_t>> memoryStats(DeviceIndex index) const;
  virtual void resetPeakMemoryStats(DeviceIndex index) const;
  virtual void resetAccumulatedMemoryStats(DeviceIndex index) const;
  virtual std::string memorySummary(DeviceIndex index, bool abbreviated) const;
  virtual std::vector<SegmentSnapshot> memorySnapshot() const;
  // Every device's cached, unused memory goes back to the driver.
  virtual void emptyCache() const;
  virtual void setMemoryFraction(double fraction, DeviceIndex index) const;
  virtual double memoryFraction(DeviceIndex index) const;
  // Tensor.record_stream: the block holding `ptr` is also used on `stream`.
  virtual void recordStream(void* ptr, const Stream& stream) const;

  // ---- pinned (page-locked) host memory, cached
  virtual DataPtr allocatePinned(size_t nbytes) const;
  virtual bool isPinned(const void* ptr) const;
  virtual std::vector<std::pair<std::string, int64_t>> hostMemoryStats() const;
  virtual void resetPeakHostMemoryStats() const;
  virtual void resetAccumulatedHostMemoryStats() const;

  // torch.cuda.caching_allocator_enable: off, freed blocks go straight back to the driver.
  virtual void setCachingEnabled(bool enabled) const;
  // cudaDeviceCanAccessPeer.
  virtual bool canDeviceAccessPeer(DeviceIndex device, DeviceIndex peer) const;
  // Cached pinned blocks that no copy still uses go back to the driver.
  virtual void emptyPinnedCache() const {}

  // ---- streams beyond the DeviceGuard's current/default stream
  // The next stream of device `index`'s pool (torch.cuda.Stream()), high
  // priority or normal; pooled streams never synchronise with the default one.
  virtual Stream streamFromPool(bool high_priority, DeviceIndex index) const;
  // A cudaStream_t made elsewhere, as a Stream of device `index`
  // (torch.cuda.ExternalStream); the caller keeps it alive.
  virtual Stream externalStream(uintptr_t handle, DeviceIndex index) const;
  // The cudaStream_t behind `s` as an integer (torch.cuda.Stream.cuda_stream).
  virtual uintptr_t streamHandle(const Stream& s) const;
  virtual int streamPriority(const Stream& s) const;
  // (least, greatest) as cudaDeviceGetStreamPriorityRange: greater priority is the smaller number.
  virtual std::pair<int, int> streamPriorityRange() const;

  // ---- torch.cuda.set_sync_debug_mode: 0 default, 1 warn, 2 error on synchronizing calls.
  virtual int syncDebugMode() const { return 0; }
  virtual void setSyncDebugMode(int mode) const;
};

// The registered implementation: the CUDA library's once it has loaded, else
// the "not built" default. Never null.
const CUDAHooksInterface& getCUDAHooks();
// Installs `hooks` (static storage; never freed) and returns the previous one.
const CUDAHooksInterface* setCUDAHooks(const CUDAHooksInterface* hooks);

// The error a CPU-only build gives for every call that needs CUDA.
[[noreturn]] void raiseCUDANotBuilt(const char* what);

}  // namespace c10::cuda
