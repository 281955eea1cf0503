// The CUDA hooks registry and its "not built" default (CUDAHooks.h). Every
// query that needs a CUDA device raises the error a CPU-only PyTorch gives;
// the statistics queries answer "nothing allocated", as PyTorch's do before
// CUDA is initialised.
#include "CUDAHooks.h"

#include <atomic>
#include "c10/Exception.h"

namespace c10::cuda {

void raiseCUDANotBuilt(const char* what) {
  TL_ERROR(what, ": Torch not compiled with CUDA enabled (this torchlike was built without CUDA; "
           "rebuild with TORCHLIKE_CUDA=1 where nvcc is installed)");
}

std::string CUDAHooksInterface::unavailableReason() const { return "Torch not compiled with CUDA enabled"; }
DeviceProperties CUDAHooksInterface::deviceProperties(DeviceIndex) const {
  raiseCUDANotBuilt("get_device_properties");
}
std::pair<size_t, size_t> CUDAHooksInterface::memGetInfo(DeviceIndex) const { raiseCUDANotBuilt("mem_get_info"); }
std::vector<std::pair<std::string, int64_t>> CUDAHooksInterface::memoryStats(DeviceIndex) const { return {}; }
void CUDAHooksInterface::resetPeakMemoryStats(DeviceIndex) const {}
void CUDAHooksInterface::resetAccumulatedMemoryStats(DeviceIndex) const {}
std::string CUDAHooksInterface::memorySummary(DeviceIndex, bool) const { raiseCUDANotBuilt("memory_summary"); }
std::vector<SegmentSnapshot> CUDAHooksInterface::memorySnapshot() const { return {}; }
void CUDAHooksInterface::emptyCache() const {}
void CUDAHooksInterface::setMemoryFraction(double, DeviceIndex) const {
  raiseCUDANotBuilt("set_per_process_memory_fraction");
}
double CUDAHooksInterface::memoryFraction(DeviceIndex) const {
  raiseCUDANotBuilt("get_per_process_memory_fraction");
}
void CUDAHooksInterface::recordStream(void*, const Stream&) const { raiseCUDANotBuilt("record_stream"); }
DataPtr CUDAHooksInterface::allocatePinned(size_t) const { raiseCUDANotBuilt("pin_memory"); }
bool CUDAHooksInterface::isPinned(const void*) const { return false; }
std::vector<std::pair<std::string, int64_t>> CUDAHooksInterface::hostMemoryStats() const { return {}; }
void CUDAHooksInterface::resetPeakHostMemoryStats() const {}
void CUDAHooksInterface::resetAccumulatedHostMemoryStats() const {}
void CUDAHooksInterface::setCachingEnabled(bool) const {}
bool CUDAHooksInterface::canDeviceAccessPeer(DeviceIndex, DeviceIndex) const {
  raiseCUDANotBuilt("can_device_access_peer");
}
Stream CUDAHooksInterface::streamFromPool(bool, DeviceIndex) const { raiseCUDANotBuilt("Stream"); }
Stream CUDAHooksInterface::externalStream(uintptr_t, DeviceIndex) const { raiseCUDANotBuilt("ExternalStream"); }
uintptr_t CUDAHooksInterface::streamHandle(const Stream&) const { raiseCUDANotBuilt("cuda_stream"); }
int CUDAHooksInterface::streamPriority(const Stream&) const { raiseCUDANotBuilt("Stream.priority"); }
std::pair<int, int> CUDAHooksInterface::streamPriorityRange() const { raiseCUDANotBuilt("Stream.priority_range"); }
void CUDAHooksInterface::setSyncDebugMode(int) const { raiseCUDANotBuilt("set_sync_debug_mode"); }

namespace {
const CUDAHooksInterface g_default_hooks;
std::atomic<const CUDAHooksInterface*> g_hooks{&g_default_hooks};
}  // namespace

const CUDAHooksInterface& getCUDAHooks() { return *g_hooks.load(std::memory_order_acquire); }

const CUDAHooksInterface* setCUDAHooks(const CUDAHooksInterface* hooks) {
  return g_hooks.exchange(hooks ? hooks : &g_default_hooks, std::memory_order_acq_rel);
}

}  // namespace c10::cuda
