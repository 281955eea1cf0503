// The dispatcher: a registry of operators, each with a per-runtime-key table
// computed from what was registered (direct kernels, alias keys, backend
// fallbacks). A call computes its key set, masks fallthroughs, and jumps
// through the table entry of the highest key.
#pragma once
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>
#include "KernelFunction.h"

namespace c10 {

class OperatorEntry {
 public:
  OperatorEntry(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }  // "aten::add.Tensor"
  const std::string& schema() const { return schema_; }
  bool hasSchema() const { return !schema_.empty(); }
  size_t numArguments() const { return num_args_; }
  size_t numReturns() const { return num_returns_; }

  const KernelFunction& lookup(DispatchKey k) const { return table_[(int)k]; }
  DispatchKeySet nonFallthroughKeys() const { return non_fallthrough_; }

  // Error path shared by typed and boxed calls.
  [[noreturn]] void reportMissing(DispatchKeySet ks) const;
  std::string dumpState() const;      // registrations, for tools/dispatch_table
  std::string dumpComputedTable() const;

  // Mutation happens under the dispatcher's lock.
  void setSchema(std::string schema, size_t nargs, size_t nret);
  void addKernel(DispatchKey k, KernelFunction f);
  void removeKernel(DispatchKey k);
  void recompute(const KernelFunction* fallbacks);

 private:
  std::string name_, schema_;
  size_t num_args_ = 0, num_returns_ = 0;
  std::map<DispatchKey, KernelFunction> kernels_;
  KernelFunction table_[kNumRuntimeKeys + 1];  // last slot: Undefined (empty key set) stays invalid
  std::string table_source_[kNumRuntimeKeys];
  DispatchKeySet non_fallthrough_ = DispatchKeySet::fullSet();
};

// The key set for a call: tensor keys plus TLS include, minus TLS exclude.
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
    return redispatch_masked(ks, std::forward<Args>(args)...);
  }
  R call(Args... args) const { return call(DispatchKeySet(), std::forward<Args>(args)...); }
  // Call with a key set computed by the caller, e.g. ks.keysBelow(current) from a kernel.
  R redispatch(DispatchKeySet ks, Args... args) const { return redispatch_masked(ks, std::forward<Args>(args)...); }
  OperatorEntry& entry() const { return *e_; }

 private:
  R redispatch_masked(DispatchKeySet ks, Args... args) const {
    ks = ks & e_->nonFallthroughKeys();
    DispatchKey k = ks.highestPriorityKey();
    const KernelFunction& fn = e_->lookup(k == DispatchKey::Undefined ? DispatchKey::NumRuntimeKeys : k);
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
  template <class Sig>
  TypedOperatorHandle<Sig> typed(const std::string& name) {
    return TypedOperatorHandle<Sig>(findOrCreate(name));
  }

  void registerSchema(const std::string& name, const std::string& schema, size_t nargs, size_t nret);
  void registerKernel(const std::string& name, DispatchKey k, KernelFunction f);
  void deregisterKernel(const std::string& name, DispatchKey k);
  void registerFallback(DispatchKey k, KernelFunction f);
  void deregisterFallback(DispatchKey k);

  // Boxed entry: computes the key set from the Tensors/lists/devices on the stack.
  void callBoxed(const OperatorEntry& op, Stack* stack) const;
  void redispatchBoxed(const OperatorEntry& op, DispatchKeySet ks, Stack* stack) const;

  std::vector<std::string> allOperatorNames() const;

 private:
  Dispatcher();
  mutable std::mutex mu_;
  std::unordered_map<std::string, OperatorEntry*> ops_;
  KernelFunction fallbacks_[kNumRuntimeKeys];
};

}  // namespace c10
