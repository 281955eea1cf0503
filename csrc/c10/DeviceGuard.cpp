#include "DeviceGuard.h"

#include <chrono>
#include <mutex>
#include <string>
#include "cuda/CUDAHooks.h"

namespace c10 {

// ------------------------------------------------------------------ defaults

// PyTorch's wording, for a device type that has no streams or events.
[[noreturn]] static void no_streams(const DeviceGuardImplInterface* impl) {
  TL_ERROR(deviceTypeName(impl->type()), " backend doesn't support streams.");
}
[[noreturn]] static void no_events(const DeviceGuardImplInterface* impl) {
  TL_ERROR(deviceTypeName(impl->type()), " backend doesn't support events.");
}

Stream DeviceGuardImplInterface::getStream(Device) const {
  no_streams(this);
}
Stream DeviceGuardImplInterface::getDefaultStream(Device) const {
  no_streams(this);
}
Stream DeviceGuardImplInterface::exchangeStream(Stream) const {
  no_streams(this);
}
bool DeviceGuardImplInterface::queryStream(const Stream&) const {
  no_streams(this);
}
void DeviceGuardImplInterface::synchronizeStream(const Stream&) const {
  no_streams(this);
}
Stream DeviceGuardImplInterface::getNewStream(Device, int) const {
  no_streams(this);
}
Stream DeviceGuardImplInterface::getStreamFromExternal(void*, Device) const {
  no_streams(this);
}
void* DeviceGuardImplInterface::nativeStreamHandle(const Stream&) const {
  no_streams(this);
}
void DeviceGuardImplInterface::recordEvent(void**, const Stream&, EventFlag) const {
  no_events(this);
}
void DeviceGuardImplInterface::blockOnEvent(void*, const Stream&) const {
  no_events(this);
}
bool DeviceGuardImplInterface::queryEvent(void*) const {
  no_events(this);
}
void DeviceGuardImplInterface::synchronizeEvent(void*) const {
  no_events(this);
}
double DeviceGuardImplInterface::elapsedTime(void*, void*, DeviceIndex) const {
  no_events(this);
}
void DeviceGuardImplInterface::destroyEvent(void*, DeviceIndex) const noexcept {}

// ------------------------------------------------------------------ CPU and Meta

namespace {

// Host-synchronous device types: one device (reported without an index, as
// PyTorch does), one stream (id 0), and all work done when an op returns.
// Events are complete once recorded; they keep a host timestamp so that
// elapsed_time measures the real time between two records.
class HostSyncGuardImpl final : public DeviceGuardImplInterface {
 public:
  constexpr explicit HostSyncGuardImpl(DeviceType t) : type_(t) {}
  DeviceType type() const override { return type_; }
  Device getDevice() const override { return Device(type_); }
  void setDevice(Device d) const override {
    TL_CHECK(d.type == type_ && d.index <= 0, "cannot make ", d, " the current ", deviceTypeName(type_),
             " device: there is only one");
  }
  Device exchangeDevice(Device d) const override {
    setDevice(d);
    return Device(type_);
  }
  DeviceIndex deviceCount() const noexcept override { return 1; }
  void synchronizeDevice(DeviceIndex) const override {}

  Stream getStream(Device) const override { return Stream(Device(type_), 0); }
  Stream getDefaultStream(Device) const override { return Stream(Device(type_), 0); }
  Stream exchangeStream(Stream s) const override {
    check_stream(s);
    return Stream(Device(type_), 0);
  }
  bool queryStream(const Stream& s) const override {
    check_stream(s);
    return true;
  }
  void synchronizeStream(const Stream& s) const override { check_stream(s); }
  Stream getNewStream(Device, int) const override { return Stream(Device(type_), 0); }

  struct HostEvent {
    std::chrono::steady_clock::time_point recorded_at;
  };
  void recordEvent(void** handle, const Stream& s, EventFlag) const override {
    check_stream(s);
    if (!*handle) *handle = new HostEvent();
    static_cast<HostEvent*>(*handle)->recorded_at = std::chrono::steady_clock::now();
  }
  void blockOnEvent(void*, const Stream& s) const override { check_stream(s); }
  bool queryEvent(void*) const override { return true; }
  void synchronizeEvent(void*) const override {}
  double elapsedTime(void* start, void* end, DeviceIndex) const override {
    auto d = static_cast<HostEvent*>(end)->recorded_at - static_cast<HostEvent*>(start)->recorded_at;
    return std::chrono::duration<double, std::milli>(d).count();
  }
  void destroyEvent(void* handle, DeviceIndex) const noexcept override { delete static_cast<HostEvent*>(handle); }

 private:
  void check_stream(const Stream& s) const {
    TL_CHECK(s.device_type() == type_ && s.id() == 0, "invalid ", deviceTypeName(type_), " stream (", s,
             "): this device type has only its default stream, id 0");
  }
  DeviceType type_;
};

// Constant-initialised (constexpr constructor), so the registry below holds
// them before any code runs, with no static initialiser to order or lose.
HostSyncGuardImpl g_cpu_guard(DeviceType::CPU);
HostSyncGuardImpl g_meta_guard(DeviceType::Meta);

}  // namespace

// ------------------------------------------------------------------ registry

namespace detail {
std::atomic<const DeviceGuardImplInterface*> g_device_guard_impls[kNumDeviceTypes] = {
    {&g_cpu_guard}, {nullptr}, {&g_meta_guard}, {nullptr}};

void raiseNoDeviceGuardImpl(DeviceType t) {
  TL_ERROR("device type '", deviceTypeName(t), "' is not available: no DeviceGuard implementation is "
           "registered for it (torchlike was built without that backend, or its extension is not loaded)");
}
}  // namespace detail

// Writers are serialised so register/deregister pairs from different threads
// hand back the pointer each one actually replaced.
static std::mutex g_registry_mu;

const DeviceGuardImplInterface* registerDeviceGuardImpl(const DeviceGuardImplInterface* impl) {
  TL_CHECK(impl != nullptr, "registerDeviceGuardImpl: null implementation");
  DeviceType t = impl->type();
  TL_CHECK((int)t >= 0 && (int)t < kNumDeviceTypes, "registerDeviceGuardImpl: invalid device type ", (int)t);
  std::lock_guard<std::mutex> g(g_registry_mu);
  return detail::g_device_guard_impls[(int)t].exchange(impl, std::memory_order_acq_rel);
}

const DeviceGuardImplInterface* deregisterDeviceGuardImpl(DeviceType t) {
  std::lock_guard<std::mutex> g(g_registry_mu);
  return detail::g_device_guard_impls[(int)t].exchange(nullptr, std::memory_order_acq_rel);
}

DeviceIndex deviceCount(DeviceType t) noexcept {
  const DeviceGuardImplInterface* impl = deviceGuardImplOrNull(t);
  return impl ? impl->deviceCount() : 0;
}

Device currentDevice(DeviceType t) { return getDeviceGuardImpl(t)->getDevice(); }

Device tensorDeviceSlow(Device d) {
  const DeviceGuardImplInterface* impl = getDeviceGuardImpl(d.type);
  DeviceIndex n = impl->deviceCount();
  if (n <= 0) {
    // The CUDA backend knows why (no driver, driver too old, no GPU).
    std::string why = d.type == DeviceType::CUDA ? cuda::getCUDAHooks().unavailableReason() : std::string();
    TL_ERROR("device type '", deviceTypeName(d.type), "' is not available: ",
             why.empty() ? std::string("its device count is 0") : why);
  }
  if (d.index < 0) {
    Device cur = impl->getDevice();
    TL_CHECK(cur.type == d.type && cur.index >= 0, "the ", deviceTypeName(d.type),
             " DeviceGuard implementation reported current device ", cur, ", which is not a ", deviceTypeName(d.type),
             " device with an index");
    return cur;
  }
  TL_CHECK(d.index < n, "Invalid device index ", d, ": there ", n == 1 ? "is " : "are ", (int)n, " ",
           deviceTypeName(d.type), " device", n == 1 ? "" : "s");
  return d;
}

// ------------------------------------------------------------------ guards

DeviceGuard::DeviceGuard(Device device) : original_(device), current_(device) {
  if (!isIndexedDeviceType(device.type) || device.index < 0) return;  // nothing to switch
  impl_ = getDeviceGuardImpl(device.type);
  original_ = impl_->exchangeDevice(device);
}

DeviceGuard::~DeviceGuard() {
  if (!impl_ || original_ == current_) return;
  // A destructor must not throw; a backend failing to switch back is left
  // with the guarded device current, which is all it can do here.
  try {
    impl_->setDevice(original_);
  } catch (...) {
  }
}

void DeviceGuard::reset_device(Device device) {
  TL_CHECK(device.type == current_.type, "DeviceGuard::reset_device: cannot switch from a ",
           deviceTypeName(current_.type), " device to ", device, " (a guard restores one device type)");
  if (!isIndexedDeviceType(device.type) || device.index < 0) return;
  if (!impl_) {
    impl_ = getDeviceGuardImpl(device.type);
    original_ = impl_->exchangeDevice(device);
  } else if (device != current_) {
    impl_->setDevice(device);
  }
  current_ = device;
}

StreamGuard::StreamGuard(Stream stream)
    : device_guard_(stream.device()),
      impl_(getDeviceGuardImpl(stream.device_type())),
      original_stream_(impl_->exchangeStream(stream)) {}

StreamGuard::~StreamGuard() {
  try {
    impl_->exchangeStream(original_stream_);
  } catch (...) {
  }
}

// ------------------------------------------------------------------ Stream / Event

bool Stream::query() const { return getDeviceGuardImpl(device_.type)->queryStream(*this); }
void Stream::synchronize() const { getDeviceGuardImpl(device_.type)->synchronizeStream(*this); }

Stream getCurrentStream(Device device) { return getDeviceGuardImpl(device.type)->getStream(device); }
Stream getDefaultStream(Device device) { return getDeviceGuardImpl(device.type)->getDefaultStream(device); }

std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "stream " << s.id() << " on device " << deviceTypeName(s.device_type()) << ":" << (int)s.device_index();
}

Event::~Event() { destroy(); }

void Event::destroy() noexcept {
  if (!handle_) return;
  if (const DeviceGuardImplInterface* impl = deviceGuardImplOrNull(type_)) impl->destroyEvent(handle_, index_);
  handle_ = nullptr;
}

void Event::record(const Stream& stream) {
  TL_CHECK(stream.device_type() == type_, "Event device type ", deviceTypeName(type_),
           " does not match recording stream's device type ", deviceTypeName(stream.device_type()), ".");
  TL_CHECK(!recorded_ || index_ == stream.device_index(), "Event device index ", (int)index_,
           " does not match recording stream's device index ", (int)stream.device_index(), ".");
  getDeviceGuardImpl(type_)->recordEvent(&handle_, stream, flag_);
  index_ = stream.device_index();
  recorded_ = true;
}

void Event::block(const Stream& stream) const {
  if (!recorded_) return;
  TL_CHECK(stream.device_type() == type_, "Event device type ", deviceTypeName(type_),
           " does not match blocking stream's device type ", deviceTypeName(stream.device_type()), ".");
  getDeviceGuardImpl(type_)->blockOnEvent(handle_, stream);
}

bool Event::query() const { return !recorded_ || getDeviceGuardImpl(type_)->queryEvent(handle_); }

void Event::synchronize() const {
  if (recorded_) getDeviceGuardImpl(type_)->synchronizeEvent(handle_);
}

double Event::elapsedTime(const Event& end) const {
  TL_CHECK_VALUE(flag_ == EventFlag::EnableTiming && end.flag_ == EventFlag::EnableTiming,
                 "Both events must be created with argument 'enable_timing=True'.");
  TL_CHECK(end.type_ == type_, "elapsed_time: events are on different device types (", deviceTypeName(type_),
           " and ", deviceTypeName(end.type_), ")");
  TL_CHECK(recorded_ && end.recorded_, "Both events must be recorded before calculating elapsed time.");
  TL_CHECK(index_ == end.index_, "elapsed_time: events were recorded on different devices (", (int)index_, " and ",
           (int)end.index_, ")");
  return getDeviceGuardImpl(type_)->elapsedTime(handle_, end.handle_, index_);
}

void registerBuiltinDeviceGuards() {
  registerDeviceGuardImpl(&g_cpu_guard);
  registerDeviceGuardImpl(&g_meta_guard);
}

}  // namespace c10
