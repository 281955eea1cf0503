// Autocast: thread-local mixed-precision state and the helpers the generated
// Autocast kernels (build/generated/autocast/shardN.cpp) call.
//
// "Enabled for a device type" is not a flag: it is that device's Autocast key
// in the thread's included dispatch-key set, so a region costs the ops it does
// not touch nothing (their Autocast entry is a fallthrough, masked out of every
// table). Everything else here (the region dtype per device type, the cast
// cache, the nesting depth) is per thread, like the key sets.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "c10/Device.h"
#include "c10/DispatchKey.h"
#include "c10/ScalarType.h"
#include "c10/Tensor.h"

namespace at::autocast {

// The Autocast runtime key of a device type (AutocastCPU, AutocastCUDA, ...).
constexpr c10::DispatchKey key_of(c10::DeviceType t) {
  return c10::runtimeKey(c10::Functionality::Autocast, c10::backendOf(t));
}

bool is_enabled(c10::DeviceType t);
void set_enabled(c10::DeviceType t, bool on);

// The dtype `lower` ops run in inside a region: bfloat16 on CPU, float16 elsewhere
// until set otherwise.
c10::ScalarType get_dtype(c10::DeviceType t);
void set_dtype(c10::DeviceType t, c10::ScalarType st);

bool is_cache_enabled();
void set_cache_enabled(bool on);

// Depth of nested autocast regions on this thread. Leaving the outermost one
// (decrement reaching 0) is where callers clear the cast cache.
int64_t increment_nesting();
int64_t decrement_nesting();
void clear_cache();
size_t cache_size();  // entries held, for tests

// Test-only: lets the kernels of device type `as` treat tensors of device type
// `from` as their own, so a machine without CUDA can run the generated
// AutocastCUDA kernels on CPU tensors (tests/test_autocast_policy.py). Read only
// when a tensor's device type differs from the kernel's, never on the common path.
struct EligibleAlias {
  int from = -1;
  int as = -1;
};
EligibleAlias& tls_eligible_alias();

// A floating, non-float64 tensor on device type `dev`: the only kind a policy casts.
inline bool is_eligible(const c10::TensorBase& t, c10::DeviceType dev) {
  if (!t.defined()) return false;
  c10::ScalarType st = t.scalar_type();
  if (!c10::isFloatingType(st) || st == c10::ScalarType::Double) return false;
  c10::DeviceType on = t.device().type;
  if (on == dev) return true;
  const EligibleAlias& a = tls_eligible_alias();
  return a.from == static_cast<int>(on) && a.as == static_cast<int>(dev);
}

// Casts an eligible tensor to `to` (anything else is returned as it is). A
// leaf weight that requires grad is cast once per region and reused from the
// cache while caching is on. The cast records autograd history, so gradients
// reach the original tensor in its own dtype.
c10::TensorBase cast(c10::ScalarType to, const c10::TensorBase& t, c10::DeviceType dev);
std::optional<c10::TensorBase> cast(c10::ScalarType to, const std::optional<c10::TensorBase>& t, c10::DeviceType dev);
std::vector<c10::TensorBase> cast(c10::ScalarType to, c10::ArrayRef<c10::TensorBase> ts, c10::DeviceType dev);

// `promote`: the widest floating type among the eligible arguments, starting
// from the region's dtype (a float32 argument makes it float32; float64 ones
// are not eligible and do not count).
inline void widen(c10::ScalarType& acc, const c10::TensorBase& t, c10::DeviceType dev) {
  if (is_eligible(t, dev)) acc = c10::promoteTypes(acc, t.scalar_type());
}
inline void widen(c10::ScalarType& acc, const std::optional<c10::TensorBase>& t, c10::DeviceType dev) {
  if (t) widen(acc, *t, dev);
}
inline void widen(c10::ScalarType& acc, c10::ArrayRef<c10::TensorBase> ts, c10::DeviceType dev) {
  for (const c10::TensorBase& t : ts) widen(acc, t, dev);
}

// The first tensor argument decides whether an fp32_set_opt_dtype op gets dtype=float32.
inline bool first_is_eligible(const c10::TensorBase& t, c10::DeviceType dev) { return is_eligible(t, dev); }
inline bool first_is_eligible(c10::ArrayRef<c10::TensorBase> ts, c10::DeviceType dev) {
  return !ts.empty() && is_eligible(ts[0], dev);
}

// `banned`: the op refuses to run inside this device's region.
[[noreturn]] void raise_banned(const char* op, c10::DeviceType dev);

// The generated shards record each op's policy per device type, so Python can
// report the table the kernels were generated from (tests, docs).
void record_policy(const char* op, c10::DeviceType dev, const char* policy);
std::string policy_of(const std::string& op, c10::DeviceType dev);  // "" when none
std::vector<std::string> ops_with_policy(c10::DeviceType dev);

}  // namespace at::autocast
