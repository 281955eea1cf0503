// The profiler's hooks into the dispatcher, the allocator and the autograd
// engine. Every operator call made through the dispatcher, every CPU
// allocation and free, every backward Node the engine runs, and every
// record_function range opened from Python becomes one event of the same
// stream, with CPU start/end times, the thread, and the enclosing range.
//
// Cost when no session records: the callers test one relaxed atomic load
// (`enabled()`) on their fast path; the recording code is out of line, in
// ProfilerHooks.cpp, so this header (which every operator's call site sees)
// stays small and stable.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "ArrayRef.h"
#include "Device.h"
#include "DispatchKey.h"
#include "Tensor.h"

namespace c10 {
class OperatorEntry;

namespace profiler {

namespace detail {
extern std::atomic<bool> g_enabled;
}
// Whether a profiling session is recording (any thread).
inline bool enabled() { return detail::g_enabled.load(std::memory_order_relaxed); }

enum class EventKind : uint8_t {
  Op = 0,         // an operator call through the dispatcher
  UserScope = 1,  // a record_function range
  Backward = 2,   // a backward Node run by the autograd engine
  Memory = 3,     // an allocation (bytes > 0) or free (bytes < 0): an instant
};

// One finished event, as handed to the Python layer.
struct Event {
  std::string name;
  EventKind kind = EventKind::Op;
  const char* dispatch_key = "";  // the key the op first dispatched to
  int64_t start_ns = 0, end_ns = 0;  // CLOCK_MONOTONIC, as Python's time.monotonic_ns()
  uint64_t tid = 0;                  // OS thread id
  uint64_t id = 0, parent = 0;       // parent: the innermost range open on that thread (0: none)
  int64_t sequence_nr = -1;          // autograd sequence number (backward nodes)
  // Inputs, when the session records shapes; one entry per argument, a
  // non-tensor argument with empty sizes and dtype "".
  std::vector<std::vector<int64_t>> input_sizes, input_strides;
  std::vector<const char*> input_dtypes;
  // Memory events.
  int64_t bytes = 0, total_allocated = 0;
  uint64_t addr = 0;
  Device device = Device(DeviceType::CPU);
};

struct Config {
  bool record_shapes = false;
  bool profile_memory = false;
};

// Starts a session (raises if one is already recording); stop() ends it and
// returns its events, ranges still open being dropped.
void start(const Config& cfg);
std::vector<Event> stop();
int64_t nowNs();

// A range from construction to destruction on this thread. Records nothing
// when no session is on at construction, or when that session ended before.
class RangeGuard {
 public:
  RangeGuard(const OperatorEntry& op, DispatchKeySet ks);
  RangeGuard(std::string name, EventKind kind, int64_t sequence_nr = -1);
  ~RangeGuard();
  RangeGuard(const RangeGuard&) = delete;
  RangeGuard& operator=(const RangeGuard&) = delete;
  // True when the session records input shapes (then call addInput per argument).
  bool recordsInputs() const { return rec_ != nullptr && record_inputs_; }
  void addInput(const TensorBase& t);
  void addInput(const std::optional<TensorBase>& t);
  void addInput(ArrayRef<TensorBase> ts);
  void addNonTensorInput();

 private:
  Event* rec_ = nullptr;
  uint64_t session_ = 0;
  bool record_inputs_ = false;
};

// Ranges opened and closed by id, for Python's record_function (whose exit
// may come from another frame, or never). 0 means "not recorded".
uint64_t pushRange(const std::string& name, EventKind kind);
void popRange(uint64_t id);

// The autograd hook: a Node was made with this sequence number. The
// innermost operator event open on this thread (the op whose Autograd kernel
// made the Node) takes it if it has none yet, linking forward and backward as
// PyTorch's "Sequence number" does.
void tagSequenceNr(int64_t sequence_nr);

// The allocator's hook: bytes > 0 for an allocation, < 0 for a free.
void recordMemory(const void* ptr, int64_t bytes, int64_t total_allocated, Device device);

}  // namespace profiler
}  // namespace c10
