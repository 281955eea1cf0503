#include "ProfilerHooks.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "Dispatcher.h"
#include "Exception.h"

namespace c10::profiler {

namespace detail {
std::atomic<bool> g_enabled{false};
}

namespace {

// The session's state. `id` is the session recording now (0: none); a range
// remembers the id it started under and is dropped if that session has ended,
// so stop() never waits for calls still running on other threads.
struct Session {
  std::mutex mu;
  uint64_t id = 0;
  uint64_t last_id = 0;
  Config cfg;
  std::vector<Event> events;
  std::unordered_map<uint64_t, Event*> open_by_id;  // pushRange()'s ranges
};
Session& session() {
  static Session* s = new Session();  // leaked: allocator frees may run at exit
  return *s;
}
std::atomic<uint64_t> g_session{0};
std::atomic<bool> g_record_shapes{false};
std::atomic<bool> g_profile_memory{false};
std::atomic<uint64_t> g_next_event{1};

// The ranges open on this thread, innermost last, tagged with their session;
// `op` is the event of an operator range (owned by its RangeGuard), else null.
struct Open {
  uint64_t session, id;
  Event* op;
};
thread_local std::vector<Open> t_open;

uint64_t thread_id() {
  static thread_local uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
  return tid;
}

uint64_t innermost(uint64_t s) {
  // Entries of an ended session (a range whose exit never came) are stale.
  while (!t_open.empty() && t_open.back().session != s) t_open.pop_back();
  return t_open.empty() ? 0 : t_open.back().id;
}

void remove_open(uint64_t id) {
  for (size_t i = t_open.size(); i-- > 0;)
    if (t_open[i].id == id) {
      t_open.erase(t_open.begin() + (std::ptrdiff_t)i);
      return;
    }
}

// A new open event on this thread, or nullptr when no session records.
Event* begin(std::string name, EventKind kind, uint64_t* session_out) {
  uint64_t s = g_session.load(std::memory_order_acquire);
  if (s == 0) return nullptr;
  Event* e = new Event();
  e->name = std::move(name);
  e->kind = kind;
  e->tid = thread_id();
  e->id = g_next_event.fetch_add(1, std::memory_order_relaxed);
  e->parent = innermost(s);
  t_open.push_back({s, e->id, kind == EventKind::Op ? e : nullptr});
  *session_out = s;
  e->start_ns = nowNs();
  return e;
}

void finish(Event* e, uint64_t s) {
  e->end_ns = nowNs();
  remove_open(e->id);
  {
    Session& S = session();
    std::lock_guard<std::mutex> g(S.mu);
    if (S.id == s) S.events.push_back(std::move(*e));
  }
  delete e;
}

// "aten::add.Tensor" -> "aten::add", as PyTorch names op events.
std::string event_name(const std::string& op) {
  size_t ns = op.find("::");
  size_t dot = op.find('.', ns == std::string::npos ? 0 : ns + 2);
  return dot == std::string::npos ? op : op.substr(0, dot);
}

}  // namespace

int64_t nowNs() {
  // CLOCK_MONOTONIC explicitly: the Python layer reads the same clock with
  // time.monotonic_ns() to place its own events (with_stack) among these.
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void start(const Config& cfg) {
  Session& S = session();
  std::lock_guard<std::mutex> g(S.mu);
  TL_CHECK(S.id == 0, "profiler: a profiling session is already running (stop it before starting another)");
  S.id = ++S.last_id;
  S.cfg = cfg;
  S.events.clear();
  g_record_shapes.store(cfg.record_shapes, std::memory_order_relaxed);
  g_profile_memory.store(cfg.profile_memory, std::memory_order_relaxed);
  g_session.store(S.id, std::memory_order_release);
  detail::g_enabled.store(true, std::memory_order_release);
}

std::vector<Event> stop() {
  Session& S = session();
  std::lock_guard<std::mutex> g(S.mu);
  TL_CHECK(S.id != 0, "profiler: no profiling session is running");
  detail::g_enabled.store(false, std::memory_order_release);
  g_session.store(0, std::memory_order_release);
  S.id = 0;
  for (auto& kv : S.open_by_id) delete kv.second;  // record_function ranges never exited
  S.open_by_id.clear();
  std::vector<Event> out;
  out.swap(S.events);
  return out;
}

RangeGuard::RangeGuard(const OperatorEntry& op, DispatchKeySet ks) {
  rec_ = begin(event_name(op.name()), EventKind::Op, &session_);
  if (!rec_) return;
  DispatchKey k = (ks & op.nonFallthroughKeys()).highestPriorityKey();
  rec_->dispatch_key = k == DispatchKey::Undefined ? "" : toString(k);
  record_inputs_ = g_record_shapes.load(std::memory_order_relaxed);
}

RangeGuard::RangeGuard(std::string name, EventKind kind, int64_t sequence_nr) {
  rec_ = begin(std::move(name), kind, &session_);
  if (!rec_) return;
  rec_->sequence_nr = sequence_nr;
  record_inputs_ = g_record_shapes.load(std::memory_order_relaxed);
}

RangeGuard::~RangeGuard() {
  if (rec_) finish(rec_, session_);
}

void RangeGuard::addInput(const TensorBase& t) {
  if (!t.defined()) return addNonTensorInput();
  IntArrayRef sz = t.sizes(), st = t.strides();
  rec_->input_sizes.emplace_back(sz.begin(), sz.end());
  rec_->input_strides.emplace_back(st.begin(), st.end());
  rec_->input_dtypes.push_back(toPythonName(t.scalar_type()));
}

void RangeGuard::addInput(const std::optional<TensorBase>& t) {
  if (t) addInput(*t);
  else addNonTensorInput();
}

// A list counts as one argument; like PyTorch, its shapes are not listed.
void RangeGuard::addInput(ArrayRef<TensorBase>) { addNonTensorInput(); }

void RangeGuard::addNonTensorInput() {
  rec_->input_sizes.emplace_back();
  rec_->input_strides.emplace_back();
  rec_->input_dtypes.push_back("");
}

uint64_t pushRange(const std::string& name, EventKind kind) {
  uint64_t s = 0;
  Event* e = begin(name, kind, &s);
  if (!e) return 0;
  Session& S = session();
  std::lock_guard<std::mutex> g(S.mu);
  if (S.id != s) {  // the session ended in between
    remove_open(e->id);
    delete e;
    return 0;
  }
  S.open_by_id[e->id] = e;
  return e->id;
}

void popRange(uint64_t id) {
  if (id == 0) return;
  Session& S = session();
  Event* e = nullptr;
  {
    std::lock_guard<std::mutex> g(S.mu);
    auto it = S.open_by_id.find(id);
    if (it == S.open_by_id.end()) {  // its session ended: nothing to record
      remove_open(id);
      return;
    }
    e = it->second;
    S.open_by_id.erase(it);
  }
  finish(e, g_session.load(std::memory_order_acquire));
}

void tagSequenceNr(int64_t sequence_nr) {
  uint64_t s = g_session.load(std::memory_order_acquire);
  if (s == 0 || t_open.empty()) return;
  const Open& top = t_open.back();
  // Only the first Node made inside an op is its own (the ones made after,
  // AccumulateGrad for a leaf input, belong to the inputs).
  if (top.session == s && top.op != nullptr && top.op->sequence_nr < 0) top.op->sequence_nr = sequence_nr;
}

void recordMemory(const void* ptr, int64_t bytes, int64_t total_allocated, Device device) {
  if (!g_profile_memory.load(std::memory_order_relaxed)) return;
  uint64_t s = g_session.load(std::memory_order_acquire);
  if (s == 0) return;
  Event e;
  e.name = "[memory]";
  e.kind = EventKind::Memory;
  e.tid = thread_id();
  e.id = g_next_event.fetch_add(1, std::memory_order_relaxed);
  e.parent = innermost(s);
  e.start_ns = e.end_ns = nowNs();
  e.bytes = bytes;
  e.total_allocated = total_allocated;
  e.addr = reinterpret_cast<uint64_t>(ptr);
  e.device = device;
  Session& S = session();
  std::lock_guard<std::mutex> g(S.mu);
  if (S.id == s) S.events.push_back(std::move(e));
}

}  // namespace c10::profiler
