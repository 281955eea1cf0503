// Dispatch keys and key sets. A runtime key is a bit: functionality * 4 +
// backend, so "highest bit wins" orders Autocast above Autograd above the
// dense backend kernels, and a tensor's key set is two bits.
#pragma once
#include <cstdint>
#include <string>
#include "Device.h"

namespace c10 {

enum class BackendComponent : uint8_t { CPU = 0, CUDA = 1, Meta = 2, PrivateUse1 = 3 };
constexpr int kNumBackends = 4;

enum class DispatchKey : uint8_t {
  CPU = 0, CUDA, Meta, PrivateUse1,
  AutogradCPU, AutogradCUDA, AutogradMeta, AutogradPrivateUse1,
  AutocastCPU, AutocastCUDA, AutocastMeta, AutocastPrivateUse1,
  // A single key above every backend for kernels written in Python (torchlike.library).
  Python,
  NumRuntimeKeys,
  // Alias keys: only used when registering, expanded onto runtime keys.
  Autograd = 32,
  Autocast,
  CompositeImplicitAutograd,
  CompositeExplicitAutograd,
  Undefined = 63,
};
constexpr int kNumRuntimeKeys = static_cast<int>(DispatchKey::NumRuntimeKeys);

enum class Functionality : uint8_t { Dense = 0, Autograd = 1, Autocast = 2 };

inline DispatchKey runtimeKey(Functionality f, BackendComponent b) {
  return static_cast<DispatchKey>((int)f * kNumBackends + (int)b);
}
inline bool isRuntimeKey(DispatchKey k) { return (int)k < kNumRuntimeKeys; }
inline bool isAliasKey(DispatchKey k) { return (int)k >= 32 && k != DispatchKey::Undefined; }
inline BackendComponent toBackend(DispatchKey k) { return static_cast<BackendComponent>((int)k % kNumBackends); }
inline Functionality toFunctionality(DispatchKey k) { return static_cast<Functionality>((int)k / kNumBackends); }
inline BackendComponent backendOf(DeviceType t) { return static_cast<BackendComponent>((int)t); }

const char* toString(DispatchKey k);
DispatchKey parseDispatchKey(const std::string& s);  // throws ValueError on unknown

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() : repr_(0) {}
  constexpr explicit DispatchKeySet(uint64_t repr) : repr_(repr) {}
  constexpr DispatchKeySet(DispatchKey k) : repr_(uint64_t(1) << (int)k) {}
  static DispatchKeySet fullSet() { return DispatchKeySet((uint64_t(1) << kNumRuntimeKeys) - 1); }
  static DispatchKeySet backend(BackendComponent b) { return DispatchKeySet(runtimeKey(Functionality::Dense, b)); }
  static DispatchKeySet functionality(Functionality f) {
    return DispatchKeySet(uint64_t(0xf) << ((int)f * kNumBackends));
  }

  bool has(DispatchKey k) const { return (repr_ >> (int)k) & 1; }
  bool empty() const { return repr_ == 0; }
  uint64_t raw() const { return repr_; }
  DispatchKeySet operator|(DispatchKeySet o) const { return DispatchKeySet(repr_ | o.repr_); }
  DispatchKeySet operator&(DispatchKeySet o) const { return DispatchKeySet(repr_ & o.repr_); }
  DispatchKeySet operator-(DispatchKeySet o) const { return DispatchKeySet(repr_ & ~o.repr_); }
  DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  bool operator==(DispatchKeySet o) const { return repr_ == o.repr_; }
  DispatchKey highestPriorityKey() const {
    return repr_ ? static_cast<DispatchKey>(63 - __builtin_clzll(repr_)) : DispatchKey::Undefined;
  }
  // Every key strictly below k: what a kernel at k redispatches to.
  DispatchKeySet keysBelow(DispatchKey k) const { return DispatchKeySet(repr_ & ((uint64_t(1) << (int)k) - 1)); }
  std::string str() const;

 private:
  uint64_t repr_;
};

// The keys a tensor on a device carries: its dense backend and its autograd key.
inline DispatchKeySet tensorKeySet(DeviceType t) {
  BackendComponent b = backendOf(t);
  return DispatchKeySet(runtimeKey(Functionality::Dense, b)) | DispatchKeySet(runtimeKey(Functionality::Autograd, b));
}

// Thread-local include/exclude sets. Grad mode excludes the autograd keys,
// autocast includes the autocast keys: no kernel checks a flag.
struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};
LocalDispatchKeySet& tlsLocalDispatchKeySet();

class IncludeDispatchKeyGuard {
 public:
  explicit IncludeDispatchKeyGuard(DispatchKeySet ks) : tls_(tlsLocalDispatchKeySet()), saved_(tls_.included) {
    tls_.included = tls_.included | ks;
  }
  ~IncludeDispatchKeyGuard() { tls_.included = saved_; }
 private:
  LocalDispatchKeySet& tls_;
  DispatchKeySet saved_;
};

class ExcludeDispatchKeyGuard {
 public:
  explicit ExcludeDispatchKeyGuard(DispatchKeySet ks) : tls_(tlsLocalDispatchKeySet()), saved_(tls_.excluded) {
    tls_.excluded = tls_.excluded | ks;
  }
  ~ExcludeDispatchKeyGuard() { tls_.excluded = saved_; }
 private:
  LocalDispatchKeySet& tls_;
  DispatchKeySet saved_;
};

}  // namespace c10
