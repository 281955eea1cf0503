// The dispatcher: a registry of operators, each with a per-runtime-key table
// computed from what was registered (direct kernels, alias keys, backend
// fallbacks). A call computes its key set, masks fallthroughs, and jumps
// through the table entry of the highest key.
//
// Concurrency: registration and calls may run on different threads. Each
// operator publishes an immutable DispatchTable through an atomic pointer;
// registration (under the dispatcher's mutex) builds a new table and
// publishes it with a release store, and a call does one acquire load and
// no lock or read-modify-write. Replaced tables, and the KernelFunction
// objects they point to, are retired but never freed, since a caller on
// another thread may still be running through them; registration is rare
// (startup, library load/unload), so the leak is bounded by the number of
// registrations made (a table is 8 bytes per runtime key).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>
#include "FunctionSchema.h"
#include "KernelFunction.h"
#include "ProfilerHooks.h"

namespace c10 {

// Undoes one registration when destroyed (library unload); release() keeps it
// for the process's lifetime instead. Move-only.
class RegistrationHandle {
 public:
  RegistrationHandle() = default;
  explicit RegistrationHandle(std::function<void()> undo) : undo_(std::move(undo)) {}
  RegistrationHandle(RegistrationHandle&& o) noexcept : undo_(std::move(o.undo_)) { o.undo_ = nullptr; }
  RegistrationHandle& operator=(RegistrationHandle&& o) noexcept {
    if (this != &o) {
      reset();
      undo_ = std::move(o.undo_);
      o.undo_ = nullptr;
    }
    return *this;
  }
  RegistrationHandle(const RegistrationHandle&) = delete;
  RegistrationHandle& operator=(const RegistrationHandle&) = delete;
  ~RegistrationHandle() { reset(); }
  void reset() {
    if (undo_) {
      auto undo = std::move(undo_);
      undo_ = nullptr;
      undo();
    }
  }
  void release() { undo_ = nullptr; }
  bool active() const { return static_cast<bool>(undo_); }

 private:
  std::function<void()> undo_;
};

// What a call reads: for every runtime key the kernel to run (never null; a
// missing kernel is an invalid KernelFunction), plus one slot for the empty
// key set, and the keys whose kernel is not a fallthrough. Immutable once
// published.
struct DispatchTable {
  const KernelFunction* kernels[kNumRuntimeKeys + 1];
  DispatchKeySet non_fallthrough;
};

class OperatorEntry {
 public:
  explicit OperatorEntry(std::string name);
  const std::string& name() const { return name_; }  // "aten::add.Tensor"
  // The parsed schema, or nullptr while none is registered. Immutable; a
  // replaced schema is retired, never freed, like tables.
  const FunctionSchema* schemaOrNull() const { return schema_.load(std::memory_order_acquire); }
  bool hasSchema() const { return schemaOrNull() != nullptr; }
  std::string schema() const;  // printed back, "" when none
  size_t numArguments() const;
  size_t numReturns() const;

  const DispatchTable& table() const { return *table_.load(std::memory_order_acquire); }
  const KernelFunction& lookup(DispatchKey k) const { return *table().kernels[(int)k]; }
  DispatchKeySet nonFallthroughKeys() const { return table().non_fallthrough; }

  // Error path shared by typed and boxed calls.
  [[noreturn]] void reportMissing(DispatchKeySet ks) const;
  std::string dumpState() const;      // registrations, for tools/dispatch_table
  std::string dumpComputedTable() const;

 private:
  friend class Dispatcher;
  struct KernelRegistration {
    uint64_t id;
    DispatchKey key;
    const KernelFunction* kernel;  // immortal (see the note at the top)
  };
  // All below: called with the dispatcher's mutex held.
  void checkSignature(const std::string& actual, const std::string& what) const;
  std::string expectedSignature(std::string* from) const;
  void recompute(const std::vector<std::vector<std::pair<uint64_t, const KernelFunction*>>>& fallbacks);

  std::string name_;
  std::atomic<const FunctionSchema*> schema_{nullptr};
  std::atomic<const DispatchTable*> table_;
  // Registration state, guarded by the dispatcher's mutex.
  std::vector<uint64_t> schema_registrations_;  // one id per def of the (identical) schema
  std::vector<KernelRegistration> kernels_;     // in registration order; the newest per key wins
  std::vector<std::string> typed_signatures_;   // Sig of every typed<Sig>() handle made
  std::string table_source_[kNumRuntimeKeys];
};

// The key set for a call: tensor keys plus TLS include, minus TLS exclude.
// Autocast (like Python) is a TLS *include*: tensors never carry Autocast
// bits, so `autocast` adds its device's Autocast key to tls.included and every
// call inside the region then reaches the Autocast kernel, which redispatches
// below itself. It is not the removal of an exclusion (which every tensor would
// have to trigger by carrying the bit). no_grad, by contrast, adds the
// Autograd keys to tls.excluded. Highest bit of the result wins.
inline DispatchKeySet applyTLS(DispatchKeySet ks) {
  const LocalDispatchKeySet& tls = tlsLocalDispatchKeySet();
  return (ks | tls.included) - tls.excluded;
}

namespace detail {
inline void collect_keys(DispatchKeySet&) {}
template <class... Rest> void collect_keys(DispatchKeySet& ks, const TensorBase& t, const Rest&... rest);
template <class... Rest> void collect_keys(DispatchKeySet& ks, const std::optional<TensorBase>& t, const Rest&... rest);
template <class... Rest> void collect_keys(DispatchKeySet& ks, ArrayRef<TensorBase> ts, const Rest&... rest);
template <class T, class... Rest> void collect_keys(DispatchKeySet& ks, const T&, const Rest&... rest) {
  collect_keys(ks, rest...);
}
template <class... Rest> void collect_keys(DispatchKeySet& ks, const TensorBase& t, const Rest&... rest) {
  if (t.defined()) ks = ks | t.key_set();
  collect_keys(ks, rest...);
}
template <class... Rest> void collect_keys(DispatchKeySet& ks, const std::optional<TensorBase>& t, const Rest&... rest) {
  if (t && t->defined()) ks = ks | t->key_set();
  collect_keys(ks, rest...);
}
template <class... Rest> void collect_keys(DispatchKeySet& ks, ArrayRef<TensorBase> ts, const Rest&... rest) {
  for (const TensorBase& t : ts)
    if (t.defined()) ks = ks | t.key_set();
  collect_keys(ks, rest...);
}

// Hands each argument's metadata to a profiler range (record_shapes).
inline void profile_inputs(profiler::RangeGuard&) {}
template <class... Rest> void profile_inputs(profiler::RangeGuard& g, const TensorBase& t, const Rest&... rest);
template <class... Rest> void profile_inputs(profiler::RangeGuard& g, const std::optional<TensorBase>& t, const Rest&... rest);
template <class... Rest> void profile_inputs(profiler::RangeGuard& g, ArrayRef<TensorBase> ts, const Rest&... rest);
template <class T, class... Rest> void profile_inputs(profiler::RangeGuard& g, const T&, const Rest&... rest) {
  g.addNonTensorInput();
  profile_inputs(g, rest...);
}
template <class... Rest> void profile_inputs(profiler::RangeGuard& g, const TensorBase& t, const Rest&... rest) {
  g.addInput(t);
  profile_inputs(g, rest...);
}
template <class... Rest> void profile_inputs(profiler::RangeGuard& g, const std::optional<TensorBase>& t, const Rest&... rest) {
  g.addInput(t);
  profile_inputs(g, rest...);
}
template <class... Rest> void profile_inputs(profiler::RangeGuard& g, ArrayRef<TensorBase> ts, const Rest&... rest) {
  g.addInput(ts);
  profile_inputs(g, rest...);
}
}  // namespace detail

template <class... Args>
DispatchKeySet keySetOf(const Args&... args) {
  DispatchKeySet ks;
  detail::collect_keys(ks, args...);
  return ks;
}

// A typed view of an operator; generated code keeps one per op in a static.
template <class Sig> class TypedOperatorHandle;
template <class R, class... Args>
class TypedOperatorHandle<R(Args...)> {
 public:
  explicit TypedOperatorHandle(OperatorEntry* e) : e_(e) {}
  // `extra` carries keys not derivable from tensor arguments (a factory's device).
  R call(DispatchKeySet extra, Args... args) const {
    DispatchKeySet ks = applyTLS(keySetOf(args...) | extra);
    // The profiler sees top-level calls only (a kernel's redispatch below
    // itself is the same call); off, this is one predictable branch.
    if (TL_UNLIKELY(profiler::enabled())) return call_profiled(ks, std::forward<Args>(args)...);
    return redispatch_masked(ks, std::forward<Args>(args)...);
  }
  R call(Args... args) const { return call(DispatchKeySet(), std::forward<Args>(args)...); }
  // Call with a key set computed by the caller, e.g. ks.keysBelow(current) from a kernel.
  R redispatch(DispatchKeySet ks, Args... args) const { return redispatch_masked(ks, std::forward<Args>(args)...); }
  OperatorEntry& entry() const { return *e_; }

 private:
  // Out of line and cold, so the unprofiled path keeps its size and layout.
  __attribute__((noinline, cold)) R call_profiled(DispatchKeySet ks, Args... args) const {
    profiler::RangeGuard range(*e_, ks);
    if (range.recordsInputs()) detail::profile_inputs(range, args...);
    return redispatch_masked(ks, std::forward<Args>(args)...);
  }
  // Always inlined: with two callers (call and call_profiled) the inliner
  // would otherwise keep it out of line for many ops, adding a call to every
  // unprofiled operator call.
  __attribute__((always_inline)) R redispatch_masked(DispatchKeySet ks, Args... args) const {
    // One acquire load of the published table; everything it points to is immutable.
    const DispatchTable& t = e_->table();
    ks = ks & t.non_fallthrough;
    DispatchKey k = ks.highestPriorityKey();
    const KernelFunction& fn = *t.kernels[k == DispatchKey::Undefined ? kNumRuntimeKeys : (int)k];
    if (TL_UNLIKELY(!fn.isValid())) e_->reportMissing(ks);
    return fn.template call<R, Args...>(*e_, ks, std::forward<Args>(args)...);
  }
  OperatorEntry* e_;
};

class Dispatcher {
 public:
  static Dispatcher& singleton();

  // Finds or creates the entry (kernels may be registered before the schema).
  OperatorEntry* findOrCreate(const std::string& name);
  OperatorEntry* find(const std::string& name) const;  // nullptr when unknown
  OperatorEntry* findSchemaOrThrow(const std::string& name) const;
  // A typed view. Sig is checked against the schema (and the typed kernels)
  // here, once, and again if the schema is registered later: a mismatch is a
  // registration error naming both signatures, never an unchecked cast.
  template <class Sig>
  TypedOperatorHandle<Sig> typed(const std::string& name) {
    OperatorEntry* e = findOrCreate(name);
    addTypedSignature(e, detail::CppSignature<Sig>::get());
    return TypedOperatorHandle<Sig>(e);
  }

  // Scoped registrations: each returns a handle that undoes it when destroyed.
  // A schema may be defined again only identically (the handles then count).
  [[nodiscard]] RegistrationHandle addSchema(const std::string& schema);
  [[nodiscard]] RegistrationHandle addKernel(const std::string& name, DispatchKey k, KernelFunction f);
  [[nodiscard]] RegistrationHandle addFallback(DispatchKey k, KernelFunction f);

  // Permanent registrations, for the built-in operators (generated code):
  // they live as long as the process. nargs/nret are checked against the schema.
  void registerSchema(const std::string& name, const std::string& schema, size_t nargs, size_t nret);
  void registerKernel(const std::string& name, DispatchKey k, KernelFunction f);
  void registerFallback(DispatchKey k, KernelFunction f);
  // Remove every registration on the key (permanent or scoped).
  void deregisterKernel(const std::string& name, DispatchKey k);
  void deregisterFallback(DispatchKey k);

  // Boxed entry: computes the key set from the Tensors/lists/devices on the stack.
  void callBoxed(const OperatorEntry& op, Stack* stack) const;
  void redispatchBoxed(const OperatorEntry& op, DispatchKeySet ks, Stack* stack) const;

  std::vector<std::string> allOperatorNames() const;
  // Held while registration state is read or changed (never by calls).
  std::mutex& registrationMutex() const { return mu_; }

 private:
  Dispatcher();
  void addTypedSignature(OperatorEntry* e, const std::string& sig);
  void removeSchema(OperatorEntry* e, uint64_t id);
  void removeKernel(OperatorEntry* e, uint64_t id);
  void removeFallback(DispatchKey k, uint64_t id);
  mutable std::mutex mu_;
  std::unordered_map<std::string, OperatorEntry*> ops_;  // entries are never freed
  // Per runtime key, the registered fallbacks (id, kernel); the newest wins.
  std::vector<std::vector<std::pair<uint64_t, const KernelFunction*>>> fallbacks_;
  uint64_t next_id_ = 1;
};

}  // namespace c10
