// DeviceType::CUDA's DeviceGuardImplInterface over the CUDA runtime: the
// current device (the runtime's own per-thread setting), device count and
// the reason when there is none, streams (default, pooled, external) with a
// per-thread current stream per device, and events.
#include <cuda_runtime.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
#include "c10/DeviceGuard.h"
#include "c10/GlobalContext.h"
#include "c10/cuda/CUDAContext.h"
#include "c10/cuda/CUDARuntime.h"

namespace c10::cuda::runtime {

// ------------------------------------------------------------------ devices

namespace {

struct DeviceCensus {
  DeviceIndex count = 0;
  std::string reason;
};

std::string describeMissingDevices(cudaError_t err) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  (void)cudaGetLastError();
  switch (err) {
    case cudaErrorNoDevice:
      return "no CUDA GPUs are available";
    case cudaErrorInsufficientDriver:
      if (driver == 0) return "Found no NVIDIA driver on your system (the CUDA driver library could not be loaded)";
      return "The NVIDIA driver on your system is too old (found version " + std::to_string(driver) +
             ", this build needs CUDA runtime " + std::to_string(CUDART_VERSION) + ")";
    default:
      return std::string("CUDA initialisation failed: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err);
  }
}

// Counted once: the runtime's answer cannot change within a process, and
// asking again after a failure costs a driver probe every time.
const DeviceCensus& census() noexcept {
  static const DeviceCensus c = []() noexcept {
    DeviceCensus r;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky; leave no error for later checks
      try {
        r.reason = describeMissingDevices(err);
      } catch (...) {
        r.reason = "CUDA initialisation failed";
      }
      return r;
    }
    if (n <= 0) {
      r.reason = "no CUDA GPUs are available";
      return r;
    }
    r.count = (DeviceIndex)(n > kMaxDeviceIndex ? kMaxDeviceIndex : n);
    return r;
  }();
  return c;
}

}  // namespace

DeviceIndex deviceCount() noexcept { return census().count; }
std::string unavailableReason() { return census().reason; }

DeviceIndex checkedIndex(DeviceIndex index, const char* what) {
  DeviceIndex n = deviceCount();
  TL_CHECK(n > 0, what, ": device type 'cuda' is not available: ", unavailableReason());
  if (index < 0) index = c10::cuda::currentDevice();
  TL_CHECK(index < n, what, ": invalid CUDA device index ", (int)index, " (there ", n == 1 ? "is " : "are ", (int)n,
           " CUDA device", n == 1 ? ")" : "s)");
  return index;
}

ScopedDevice::ScopedDevice(DeviceIndex index) {
  int cur = 0;
  TL_CUDA_CHECK(cudaGetDevice(&cur));
  if (cur != index) {
    TL_CUDA_CHECK(cudaSetDevice(index));
    previous_ = cur;
  }
}

ScopedDevice::~ScopedDevice() {
  if (previous_ >= 0) (void)cudaSetDevice(previous_);
}

// ------------------------------------------------------------------ streams

namespace {

struct StreamPool {
  std::once_flag created;
  std::array<cudaStream_t, kPoolSize> low{}, high{};
  std::atomic<uint32_t> next_low{0}, next_high{0};
};

struct PriorityRange {
  int least = 0, greatest = 0;
};

PriorityRange priorities() {
  static const PriorityRange r = [] {
    PriorityRange p;
    if (cudaDeviceGetStreamPriorityRange(&p.least, &p.greatest) != cudaSuccess) {
      (void)cudaGetLastError();
      p = PriorityRange{};
    }
    return p;
  }();
  return r;
}

// One pool per device, the vector sized once the devices are counted.
std::vector<std::unique_ptr<StreamPool>>& pools() {
  static std::vector<std::unique_ptr<StreamPool>> v = [] {
    std::vector<std::unique_ptr<StreamPool>> p;
    for (DeviceIndex i = 0; i < deviceCount(); ++i) p.push_back(std::make_unique<StreamPool>());
    return p;
  }();
  return v;
}

// The pooled streams of `index`, created on first use. They are never
// destroyed: work may still be queued on them at exit.
StreamPool& poolOf(DeviceIndex index) {
  StreamPool& pool = *pools().at(index);
  std::call_once(pool.created, [&] {
    ScopedDevice guard(index);
    PriorityRange pr = priorities();
    for (int k = 0; k < kPoolSize; ++k) {
      TL_CUDA_CHECK(cudaStreamCreateWithPriority(&pool.low[k], cudaStreamNonBlocking, pr.least));
      TL_CUDA_CHECK(cudaStreamCreateWithPriority(&pool.high[k], cudaStreamNonBlocking, pr.greatest));
    }
  });
  return pool;
}

// The calling thread's current stream id per device (0 until set).
std::vector<StreamId>& threadStreams() {
  thread_local std::vector<StreamId> v;
  if (v.size() < (size_t)deviceCount()) v.resize((size_t)deviceCount(), 0);
  return v;
}

std::atomic<int> g_sync_debug_mode{0};

}  // namespace

cudaStream_t streamHandle(DeviceIndex index, StreamId id) {
  if (id == 0) return nullptr;  // the legacy default stream
  if (isPoolStreamId(id)) {
    StreamPool& pool = poolOf(checkedIndex(index, "stream"));
    int k = int(id - 1);
    return k < kPoolSize ? pool.low[k] : pool.high[k - kPoolSize];
  }
  TL_CHECK(isExternalStreamId(id), "invalid CUDA stream id ", id);
  return reinterpret_cast<cudaStream_t>(uintptr_t(id & ~kExternalTag));
}

StreamId currentStreamId(DeviceIndex index) { return threadStreams()[checkedIndex(index, "current_stream")]; }

Stream streamFromPool(bool high_priority, DeviceIndex index) {
  index = checkedIndex(index, "Stream");
  StreamPool& pool = poolOf(index);
  uint32_t k = (high_priority ? pool.next_high : pool.next_low).fetch_add(1, std::memory_order_relaxed) % kPoolSize;
  return Stream(Device(DeviceType::CUDA, index), poolStreamId(high_priority, (int)k));
}

Stream externalStream(uintptr_t handle, DeviceIndex index) {
  index = checkedIndex(index, "ExternalStream");
  if (handle == 0) return Stream(Device(DeviceType::CUDA, index), 0);
  TL_CHECK_VALUE((StreamId(handle) & kExternalTag) == 0, "ExternalStream: invalid stream handle ", handle);
  return Stream(Device(DeviceType::CUDA, index), StreamId(handle) | kExternalTag);
}

std::pair<int, int> priorityRange() {
  PriorityRange p = priorities();
  return {p.least, p.greatest};
}

int streamPriority(const Stream& s) {
  TL_CHECK(s.device_type() == DeviceType::CUDA, "stream priority: not a CUDA stream");
  if (s.id() == 0) return 0;
  ScopedDevice guard(checkedIndex(s.device_index(), "Stream.priority"));
  int p = 0;
  TL_CUDA_CHECK(cudaStreamGetPriority(streamHandle(s.device_index(), s.id()), &p));
  return p;
}

int syncDebugMode() { return g_sync_debug_mode.load(std::memory_order_relaxed); }

void setSyncDebugMode(int mode) {
  TL_CHECK_VALUE(mode >= 0 && mode <= 2, "invalid value of debug_mode, expected one of 0, 1, 2 (got ", mode, ")");
  g_sync_debug_mode.store(mode, std::memory_order_relaxed);
}

void onSynchronize(const char* what) {
  int mode = syncDebugMode();
  if (mode == 0) return;
  std::string msg = std::string("called a synchronizing CUDA operation (") + what + ")";
  TL_CHECK(mode != 2, msg);
  c10::warn(msg.c_str());
}

// ------------------------------------------------------------------ the guard

namespace {

cudaEvent_t asEvent(void* h) { return static_cast<cudaEvent_t>(h); }

class CUDAGuardImpl final : public DeviceGuardImplInterface {
 public:
  DeviceType type() const override { return DeviceType::CUDA; }

  Device getDevice() const override {
    TL_CHECK(deviceCount() > 0, "device type 'cuda' is not available: ", unavailableReason());
    int d = 0;
    TL_CUDA_CHECK(cudaGetDevice(&d));
    return Device(DeviceType::CUDA, (DeviceIndex)d);
  }

  void setDevice(Device d) const override {
    TL_CHECK(d.type == DeviceType::CUDA, "CUDA DeviceGuard: expected a CUDA device, got ", d);
    DeviceIndex i = checkedIndex(d.index, "set_device");
    int cur = 0;
    TL_CUDA_CHECK(cudaGetDevice(&cur));
    if (cur != i) TL_CUDA_CHECK(cudaSetDevice(i));
  }

  DeviceIndex deviceCount() const noexcept override { return runtime::deviceCount(); }

  void synchronizeDevice(DeviceIndex index) const override {
    ScopedDevice guard(checkedIndex(index, "synchronize"));
    onSynchronize("torchlike.cuda.synchronize");
    TL_CUDA_CHECK(cudaDeviceSynchronize());
  }

  Stream getStream(Device d) const override {
    DeviceIndex i = checkedIndex(d.index, "current_stream");
    return Stream(Device(DeviceType::CUDA, i), threadStreams()[i]);
  }

  Stream getDefaultStream(Device d) const override {
    return Stream(Device(DeviceType::CUDA, checkedIndex(d.index, "default_stream")), 0);
  }

  Stream exchangeStream(Stream s) const override {
    DeviceIndex i = checkedIndex(s.device_index(), "set_stream");
    (void)streamHandle(i, s.id());  // rejects an id that names no stream
    StreamId& slot = threadStreams()[i];
    Stream old(Device(DeviceType::CUDA, i), slot);
    slot = s.id();
    return old;
  }

  Stream getNewStream(Device d, int priority) const override {
    return runtime::streamFromPool(priority < 0, checkedIndex(d.index, "Stream"));
  }
  Stream getStreamFromExternal(void* handle, Device d) const override {
    return runtime::externalStream(reinterpret_cast<uintptr_t>(handle), checkedIndex(d.index, "ExternalStream"));
  }
  void* nativeStreamHandle(const Stream& s) const override {
    return runtime::streamHandle(checkedIndex(s.device_index(), "cuda_stream"), s.id());
  }

  bool queryStream(const Stream& s) const override {
    DeviceIndex i = checkedIndex(s.device_index(), "Stream.query");
    ScopedDevice guard(i);
    cudaError_t err = cudaStreamQuery(streamHandle(i, s.id()));
    if (err == cudaSuccess) return true;
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    raiseCUDAError(err, "cudaStreamQuery", __FILE__, __LINE__);
  }

  void synchronizeStream(const Stream& s) const override {
    DeviceIndex i = checkedIndex(s.device_index(), "Stream.synchronize");
    ScopedDevice guard(i);
    onSynchronize("Stream.synchronize");
    TL_CUDA_CHECK(cudaStreamSynchronize(streamHandle(i, s.id())));
  }

  void recordEvent(void** handle, const Stream& s, EventFlag flag) const override {
    DeviceIndex i = checkedIndex(s.device_index(), "Event.record");
    ScopedDevice guard(i);
    if (*handle == nullptr) {
      cudaEvent_t ev = nullptr;
      unsigned flags = flag == EventFlag::EnableTiming ? cudaEventDefault : cudaEventDisableTiming;
      TL_CUDA_CHECK(cudaEventCreateWithFlags(&ev, flags));
      *handle = ev;
    }
    TL_CUDA_CHECK(cudaEventRecord(asEvent(*handle), streamHandle(i, s.id())));
  }

  void blockOnEvent(void* handle, const Stream& s) const override {
    if (handle == nullptr) return;  // never recorded: nothing to wait for
    DeviceIndex i = checkedIndex(s.device_index(), "Event.wait");
    ScopedDevice guard(i);
    TL_CUDA_CHECK(cudaStreamWaitEvent(streamHandle(i, s.id()), asEvent(handle), 0));
  }

  bool queryEvent(void* handle) const override {
    if (handle == nullptr) return true;
    cudaError_t err = cudaEventQuery(asEvent(handle));
    if (err == cudaSuccess) return true;
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    raiseCUDAError(err, "cudaEventQuery", __FILE__, __LINE__);
  }

  void synchronizeEvent(void* handle) const override {
    if (handle == nullptr) return;
    onSynchronize("Event.synchronize");
    TL_CUDA_CHECK(cudaEventSynchronize(asEvent(handle)));
  }

  double elapsedTime(void* start, void* end, DeviceIndex index) const override {
    TL_CHECK(start != nullptr && end != nullptr,
             "elapsed_time: both events must have been recorded before the elapsed time can be computed");
    ScopedDevice guard(checkedIndex(index, "Event.elapsed_time"));
    float ms = 0.f;
    cudaError_t err = cudaEventElapsedTime(&ms, asEvent(start), asEvent(end));
    if (err == cudaErrorInvalidResourceHandle) {
      (void)cudaGetLastError();
      TL_ERROR("elapsed_time: both events must be created with enable_timing=True");
    }
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      TL_ERROR("elapsed_time: the events have not completed yet (synchronize the end event first)");
    }
    TL_CUDA_CHECK(err);
    return ms;
  }

  void destroyEvent(void* handle, DeviceIndex index) const noexcept override {
    if (handle == nullptr) return;
    // No exceptions here (called from destructors): switch devices by hand.
    int cur = -1;
    bool switched = false;
    if (index >= 0 && cudaGetDevice(&cur) == cudaSuccess && cur != index)
      switched = cudaSetDevice(index) == cudaSuccess;
    (void)cudaEventDestroy(asEvent(handle));
    if (switched) (void)cudaSetDevice(cur);
    (void)cudaGetLastError();
  }
};

CUDAGuardImpl g_guard_impl;

}  // namespace

void registerGuardImpl() { c10::registerDeviceGuardImpl(&g_guard_impl); }

}  // namespace c10::cuda::runtime
