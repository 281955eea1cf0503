// An event: a marker recorded on a stream, which other streams or the host
// can wait for, and whose recording times can be compared. The backend keeps
// its own handle (created on first record, freed with the Event) through the
// device type's DeviceGuardImplInterface (DeviceGuard.h).
//
// On CPU and Meta work is finished when an op returns, so a recorded event is
// complete at once: query() is true and waits return immediately. Recording
// still takes a host timestamp, so elapsedTime() between two CPU events with
// timing enabled is the real wall-clock time between their records.
#pragma once
#include <cstdint>
#include "Device.h"
#include "Stream.h"

namespace c10 {

enum class EventFlag : int8_t { Default = 0, EnableTiming = 1 };

class Event {
 public:
  explicit Event(DeviceType type, EventFlag flag = EventFlag::Default) : type_(type), flag_(flag) {}
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept { take(o); }
  Event& operator=(Event&& o) noexcept {
    if (this != &o) {
      destroy();
      take(o);
    }
    return *this;
  }

  DeviceType device_type() const { return type_; }
  // -1 until the first record fixes the device.
  DeviceIndex device_index() const { return index_; }
  Device device() const { return Device(type_, index_); }
  EventFlag flag() const { return flag_; }
  bool was_recorded() const { return recorded_; }

  // Marks the point, on `stream`, after all work queued so far. The stream
  // must be on this event's device type (and, after the first record, on the
  // same device).
  void record(const Stream& stream);
  // Makes `stream` wait (without blocking the host) until this event is
  // complete. A never-recorded event is complete.
  void block(const Stream& stream) const;
  // True when the recorded work has finished (or nothing was recorded).
  bool query() const;
  // Blocks the host until the recorded work has finished.
  void synchronize() const;
  // Milliseconds from this event's record to `end`'s. Both events need
  // EnableTiming and must have been recorded on the same device.
  double elapsedTime(const Event& end) const;

 private:
  void take(Event& o) noexcept {
    type_ = o.type_;
    index_ = o.index_;
    flag_ = o.flag_;
    recorded_ = o.recorded_;
    handle_ = o.handle_;
    o.handle_ = nullptr;
    o.recorded_ = false;
  }
  void destroy() noexcept;

  DeviceType type_ = DeviceType::CPU;
  DeviceIndex index_ = -1;
  EventFlag flag_ = EventFlag::Default;
  bool recorded_ = false;
  void* handle_ = nullptr;  // owned by the backend; see DeviceGuardImplInterface
};

}  // namespace c10
