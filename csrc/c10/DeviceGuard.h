// Per-device-type control of "which device is current", device counts,
// synchronisation, streams and events, behind one interface that each device
// type implements once (CPU and Meta here; CUDA or an out-of-tree PrivateUse1
// backend register their own). Code that must run on a given device uses the
// RAII DeviceGuard, which sets the device and restores the previous one.
#pragma once
#include <atomic>
#include "Device.h"
#include "Event.h"
#include "Stream.h"

namespace c10 {

class DeviceGuardImplInterface {
 public:
  virtual ~DeviceGuardImplInterface() = default;

  virtual DeviceType type() const = 0;

  // ---- devices
  // The calling thread's current device of this type (CPU: Device(CPU), index -1).
  virtual Device getDevice() const = 0;
  // Makes d (of this type, with an index) the calling thread's current device.
  virtual void setDevice(Device d) const = 0;
  // setDevice(d), returning the device that was current before.
  virtual Device exchangeDevice(Device d) const {
    Device old = getDevice();
    if (old != d) setDevice(d);
    return old;
  }
  // How many devices of this type the process can use; 0 when there is no
  // driver or no device. Never throws: it is how availability is asked.
  virtual DeviceIndex deviceCount() const noexcept = 0;
  // Blocks until all work queued on device `index` has finished.
  virtual void synchronizeDevice(DeviceIndex index) const = 0;

  // ---- streams (defaults: this type has no streams; each raises)
  virtual Stream getStream(Device d) const;
  virtual Stream getDefaultStream(Device d) const;
  // Makes s the current stream of its device; returns the previous one.
  virtual Stream exchangeStream(Stream s) const;
  virtual bool queryStream(const Stream& s) const;
  virtual void synchronizeStream(const Stream& s) const;
  // A stream other than the current one, from the device's pool (priority:
  // 0 normal, negative higher, as torch.cuda.Stream(priority=)); the default
  // raises. Devices whose one stream is always done (CPU) give that stream.
  virtual Stream getNewStream(Device d, int priority) const;
  // A stream that wraps a handle created outside (torch.cuda.ExternalStream).
  virtual Stream getStreamFromExternal(void* native_handle, Device d) const;
  // The backend's own handle of `s` (a cudaStream_t); the default raises.
  virtual void* nativeStreamHandle(const Stream& s) const;

  // ---- events (defaults raise). `*handle` starts null; recordEvent creates
  // the backend's event on first use and destroyEvent frees it.
  virtual void recordEvent(void** handle, const Stream& s, EventFlag flag) const;
  virtual void blockOnEvent(void* handle, const Stream& s) const;
  virtual bool queryEvent(void* handle) const;
  virtual void synchronizeEvent(void* handle) const;
  virtual double elapsedTime(void* start, void* end, DeviceIndex index) const;
  virtual void destroyEvent(void* handle, DeviceIndex index) const noexcept;
};

// Registers `impl` for impl->type() and returns the one it replaces (or
// null). Implementations are never freed by the registry and must outlive
// every caller: register objects with static storage, or leak them. Readers
// see either the old or the new pointer, never a torn one (atomic publish).
const DeviceGuardImplInterface* registerDeviceGuardImpl(const DeviceGuardImplInterface* impl);
// Removes the implementation of `t` (for test hooks); returns it.
const DeviceGuardImplInterface* deregisterDeviceGuardImpl(DeviceType t);

namespace detail {
extern std::atomic<const DeviceGuardImplInterface*> g_device_guard_impls[kNumDeviceTypes];
[[noreturn]] void raiseNoDeviceGuardImpl(DeviceType t);
}  // namespace detail

// The implementation for `t`, or null when none is registered.
inline const DeviceGuardImplInterface* deviceGuardImplOrNull(DeviceType t) noexcept {
  return detail::g_device_guard_impls[(int)t].load(std::memory_order_acquire);
}
// The implementation for `t`; raises, naming the type, when none is registered.
inline const DeviceGuardImplInterface* getDeviceGuardImpl(DeviceType t) {
  const DeviceGuardImplInterface* impl = deviceGuardImplOrNull(t);
  if (!impl) detail::raiseNoDeviceGuardImpl(t);
  return impl;
}

// Number of devices of type t; 0 when no implementation is registered.
DeviceIndex deviceCount(DeviceType t) noexcept;
// The calling thread's current device of type t (raises when t has no implementation).
Device currentDevice(DeviceType t);

// Makes `d` concrete: the index-less form of an unindexed type (CPU, Meta:
// their tensors report no index, as in PyTorch) and, for an indexed type
// (CUDA, PrivateUse1), the current device when no index is given, after
// checking the index against the device count. Raises for a type whose
// backend is not registered. This is the device a tensor made on `d` gets.
Device tensorDeviceSlow(Device d);
inline Device tensorDevice(Device d) {
  if (!isIndexedDeviceType(d.type)) return Device(d.type);
  return tensorDeviceSlow(d);
}

// RAII: makes `device` current for its type, and restores the previous
// current device on destruction. An index-less device (or an unindexed type
// such as CPU) changes nothing.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

  // Switches to another device of the same type, keeping the original for the restore.
  void reset_device(Device device);
  Device original_device() const { return original_; }
  Device current_device() const { return current_; }

 private:
  const DeviceGuardImplInterface* impl_ = nullptr;
  Device original_, current_;
};

// RAII: makes `stream` current on its device (and its device current), and
// restores both on destruction.
class StreamGuard {
 public:
  explicit StreamGuard(Stream stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  Stream original_stream() const { return original_stream_; }

 private:
  DeviceGuard device_guard_;
  const DeviceGuardImplInterface* impl_;
  Stream original_stream_;
};

// The CPU and Meta implementations are in the registry from the start
// (constant-initialised); this puts them back if a test replaced them.
void registerBuiltinDeviceGuards();

}  // namespace c10
