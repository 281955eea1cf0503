// A stream: an ordered queue of work on one device, named by (device, id).
// Stream is a plain value; what it means (and whether work on it is done) is
// asked of its device type's DeviceGuardImplInterface (DeviceGuard.h). On CPU
// and Meta there is one stream, id 0, and all its work is already done when
// an op returns, so every query answers "done" and every wait is free.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include "Device.h"

namespace c10 {

using StreamId = int64_t;

class Stream {
 public:
  Stream(Device device, StreamId id) : device_(device), id_(id) {}

  Device device() const { return device_; }
  DeviceType device_type() const { return device_.type; }
  DeviceIndex device_index() const { return device_.index; }
  StreamId id() const { return id_; }

  bool operator==(const Stream& o) const { return device_ == o.device_ && id_ == o.id_; }
  bool operator!=(const Stream& o) const { return !(*this == o); }

  // True when all work queued on this stream has finished.
  bool query() const;
  // Blocks the calling thread until all work queued on this stream finishes.
  void synchronize() const;

 private:
  Device device_;
  StreamId id_;
};

// The calling thread's current stream on `device` (index -1: the current
// device of its type), and the device's default stream.
Stream getCurrentStream(Device device);
Stream getDefaultStream(Device device);

std::ostream& operator<<(std::ostream& os, const Stream& s);

}  // namespace c10

template <>
struct std::hash<c10::Stream> {
  size_t operator()(const c10::Stream& s) const noexcept {
    uint64_t bits = ((uint64_t)(uint8_t)s.device_type() << 56) ^ ((uint64_t)(uint8_t)s.device_index() << 48) ^
                    (uint64_t)s.id();
    return std::hash<uint64_t>()(bits);
  }
};
