// Internals shared by the CUDA runtime's translation units (CUDAGuardImpl,
// CUDACachingAllocator, PinnedHostAllocator, CUDACopy, CUDAHooksImpl): how
// stream ids map to cudaStream_t, the per-device allocators, pinned-block
// bookkeeping, and the registration entry points tl_cuda_init() calls.
// Included only by .cu files of libtorchlike_cuda.so; kernels use
// CUDAContext.h instead.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "c10/Allocator.h"
#include "c10/Device.h"
#include "c10/Stream.h"
#include "c10/cuda/CUDAHooks.h"

namespace c10::cuda {

class DeviceCachingAllocator;

namespace runtime {

// ---- devices (CUDAGuardImpl.cu)
// Devices the process can use; 0 (never an exception) when the runtime
// cannot be initialised. Counted once, on first use.
DeviceIndex deviceCount() noexcept;
// Why deviceCount() is 0 ("" when devices were found).
std::string unavailableReason();
// Raises unless 0 <= index < deviceCount(); resolves -1 to the current device.
DeviceIndex checkedIndex(DeviceIndex index, const char* what);

// Makes `index` the current device for its scope (no runtime call when it
// already is). Cheap: cudaGetDevice does not create a context.
class ScopedDevice {
 public:
  explicit ScopedDevice(DeviceIndex index);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = -1;
};

// ---- streams (CUDAGuardImpl.cu)
// Stream ids: 0 is the legacy default stream; 1..2*kPoolSize a pooled stream
// (see poolStreamId); an external cudaStream_t is its address tagged with
// kExternalTag, so handles from other libraries need no table.
constexpr int kPoolSize = 32;
constexpr StreamId kExternalTag = StreamId(1) << 60;
constexpr StreamId poolStreamId(bool high_priority, int slot) { return 1 + (high_priority ? kPoolSize : 0) + slot; }
inline bool isPoolStreamId(StreamId id) { return id >= 1 && id <= 2 * kPoolSize; }
inline bool isExternalStreamId(StreamId id) { return (id & kExternalTag) != 0 && id > 0; }

cudaStream_t streamHandle(DeviceIndex index, StreamId id);
StreamId currentStreamId(DeviceIndex index);
// The next pooled stream of `index`, round-robin within its priority class.
Stream streamFromPool(bool high_priority, DeviceIndex index);
Stream externalStream(uintptr_t handle, DeviceIndex index);
// (least, greatest) priority as cudaDeviceGetStreamPriorityRange reports them.
std::pair<int, int> priorityRange();
int streamPriority(const Stream& s);

// torch.cuda.set_sync_debug_mode: called before every synchronizing call.
int syncDebugMode();
void setSyncDebugMode(int mode);
void onSynchronize(const char* what);

// ---- device memory (CUDACachingAllocator.cu)
// The caching allocator of device `index`, created on first use.
DeviceCachingAllocator& deviceAllocator(DeviceIndex index);
// Null when device `index` never allocated.
DeviceCachingAllocator* deviceAllocatorIfCreated(DeviceIndex index);
Allocator* cudaAllocator();

// ---- pinned host memory (PinnedHostAllocator.cu)
DataPtr allocatePinned(size_t nbytes);
// True when ptr lies in a block this allocator handed out, or the runtime
// reports it as page-locked host memory.
bool isPinned(const void* ptr);
// A copy on `stream` reads or writes the pinned block holding ptr: the block
// is not reused until the work queued there so far has finished.
void recordPinnedUse(const void* ptr, const Stream& stream);
std::vector<std::pair<std::string, int64_t>> pinnedStats();
void resetPinnedPeakStats();
void resetPinnedAccumulatedStats();
void emptyPinnedCache();

// ---- registration (each in its own file)
void registerGuardImpl();
void registerAllocator();
void registerCopyKernels();
void registerGeneratorFactory();
void registerHooks();

// torch.cuda.caching_allocator_enable (CUDACachingAllocator.cu).
void setCachingEnabled(bool enabled);

}  // namespace runtime
}  // namespace c10::cuda
