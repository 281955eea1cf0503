// Dispatch keys and key sets.
//
// The layout is generated from three lists below, so adding a backend or a
// functionality is one line in one of them; every derived constant (the
// enumerators, kNumRuntimeKeys, the functionality masks, names and parsing,
// alias-key expansion) follows from the lists.
//
// A runtime key is a bit. Per-backend functionalities occupy
// `functionality * kNumBackends + backend`, so "highest bit wins" orders a
// later functionality above an earlier one on every backend (Autocast above
// Autograd above the dense kernels); single keys (Python) sit above all of
// them. A tensor's key set is its backend's dense bit plus its autograd bit.
#pragma once
#include <cstdint>
#include <string>
#include "Device.h"

// Backends, one per device type of the same name (backendOf relies on the
// numbering matching DeviceType; a static_assert below checks it).
#define TL_FORALL_BACKENDS(_, extra) \
  _(extra, CPU)                      \
  _(extra, CUDA)                     \
  _(extra, Meta)                     \
  _(extra, PrivateUse1)

// Per-backend functionalities, LOWEST priority first: (Functionality enumerator,
// key-name prefix). The runtime key of functionality F on backend B is named
// <prefix><B>; Dense has an empty prefix, so its keys are plain CPU, CUDA, ...
// A new one (ADInplaceOrView, between Dense and Autograd, say) is one line here.
#define TL_FORALL_PER_BACKEND_FUNCTIONALITIES(_) \
  _(Dense, )                                      \
  _(Autograd, Autograd)                           \
  _(Autocast, Autocast)

// Functionality keys that are one bit for all backends, LOWEST priority first,
// all above every per-backend key (Python: kernels written in Python; a tracer
// would go here too).
#define TL_FORALL_SINGLE_KEYS(_) _(Python)

// Alias keys: only used when registering, expanded onto runtime keys when an
// operator's table is computed (see OperatorEntry::recompute).
#define TL_FORALL_ALIAS_KEYS(_) \
  _(Autograd)                   \
  _(Autocast)                   \
  _(CompositeImplicitAutograd)  \
  _(CompositeExplicitAutograd)

namespace c10 {

#define TL_DK_BACKEND_ENUM(extra, b) b,
enum class BackendComponent : uint8_t { TL_FORALL_BACKENDS(TL_DK_BACKEND_ENUM, ) NumBackends };
#undef TL_DK_BACKEND_ENUM
constexpr int kNumBackends = static_cast<int>(BackendComponent::NumBackends);

#define TL_DK_FUNCTIONALITY_ENUM(f, prefix) f,
enum class Functionality : uint8_t { TL_FORALL_PER_BACKEND_FUNCTIONALITIES(TL_DK_FUNCTIONALITY_ENUM) NumPerBackend };
#undef TL_DK_FUNCTIONALITY_ENUM
constexpr int kNumPerBackendFunctionalities = static_cast<int>(Functionality::NumPerBackend);

#define TL_DK_RUNTIME_ENUM_ONE(prefix, b) prefix##b,
#define TL_DK_RUNTIME_ENUM(f, prefix) TL_FORALL_BACKENDS(TL_DK_RUNTIME_ENUM_ONE, prefix)
#define TL_DK_NAME_ENUM(k) k,
enum class DispatchKey : uint8_t {
  // Per-backend keys, functionality-major: CPU, CUDA, ..., AutogradCPU, ...
  TL_FORALL_PER_BACKEND_FUNCTIONALITIES(TL_DK_RUNTIME_ENUM)
  TL_FORALL_SINGLE_KEYS(TL_DK_NAME_ENUM)
  NumRuntimeKeys,
  // Alias keys follow the runtime keys; they never appear in a key set.
  TL_FORALL_ALIAS_KEYS(TL_DK_NAME_ENUM)
  EndOfAliasKeys,
  Undefined = 255,
};
#undef TL_DK_RUNTIME_ENUM_ONE
#undef TL_DK_RUNTIME_ENUM
#undef TL_DK_NAME_ENUM

constexpr int kNumRuntimeKeys = static_cast<int>(DispatchKey::NumRuntimeKeys);
constexpr int kNumPerBackendKeys = kNumPerBackendFunctionalities * kNumBackends;
constexpr int kFirstAliasKey = kNumRuntimeKeys + 1;
constexpr int kNumAliasKeys = static_cast<int>(DispatchKey::EndOfAliasKeys) - kFirstAliasKey;
// A key set is one 64-bit word: every runtime key needs its bit.
static_assert(kNumRuntimeKeys <= 64, "runtime dispatch keys no longer fit the 64-bit DispatchKeySet");
static_assert(static_cast<int>(DispatchKey::EndOfAliasKeys) < static_cast<int>(DispatchKey::Undefined),
              "too many dispatch keys for uint8_t");

// backendOf is a cast: each backend is numbered as the device type of its name.
#define TL_DK_CHECK_DEVICE(extra, b)                                                          \
  static_assert(static_cast<int>(BackendComponent::b) == static_cast<int>(DeviceType::b), \
                "BackendComponent::" #b " must be numbered as DeviceType::" #b);
TL_FORALL_BACKENDS(TL_DK_CHECK_DEVICE, )
#undef TL_DK_CHECK_DEVICE

constexpr DispatchKey runtimeKey(Functionality f, BackendComponent b) {
  return static_cast<DispatchKey>((int)f * kNumBackends + (int)b);
}
constexpr bool isRuntimeKey(DispatchKey k) { return (int)k < kNumRuntimeKeys; }
constexpr bool isAliasKey(DispatchKey k) {
  return (int)k >= kFirstAliasKey && (int)k < (int)DispatchKey::EndOfAliasKeys;
}
// Per-backend runtime keys have a backend and a functionality; single keys
// (Python) and alias keys do not.
constexpr bool isPerBackendKey(DispatchKey k) { return (int)k < kNumPerBackendKeys; }
constexpr BackendComponent toBackend(DispatchKey k) { return static_cast<BackendComponent>((int)k % kNumBackends); }
constexpr Functionality toFunctionality(DispatchKey k) { return static_cast<Functionality>((int)k / kNumBackends); }
constexpr BackendComponent backendOf(DeviceType t) { return static_cast<BackendComponent>((int)t); }

const char* toString(DispatchKey k);
const char* toString(BackendComponent b);
const char* toString(Functionality f);
DispatchKey parseDispatchKey(const std::string& s);  // throws ValueError on unknown

class DispatchKeySet;
// The runtime keys an alias key stands for when registering.
DispatchKeySet aliasExpansion(DispatchKey alias);

class DispatchKeySet {
 public:
  constexpr DispatchKeySet() : repr_(0) {}
  constexpr explicit DispatchKeySet(uint64_t repr) : repr_(repr) {}
  constexpr DispatchKeySet(DispatchKey k) : repr_(uint64_t(1) << (int)k) {}
  static constexpr DispatchKeySet fullSet() {
    return DispatchKeySet(kNumRuntimeKeys == 64 ? ~uint64_t(0) : (uint64_t(1) << kNumRuntimeKeys) - 1);
  }
  static constexpr DispatchKeySet backend(BackendComponent b) { return DispatchKeySet(runtimeKey(Functionality::Dense, b)); }
  // Every backend's key of one per-backend functionality.
  static constexpr DispatchKeySet functionality(Functionality f) {
    return DispatchKeySet(((uint64_t(1) << kNumBackends) - 1) << ((int)f * kNumBackends));
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
//
// Tensors never carry Autocast bits (nor Python ones): those layers are turned
// on per thread, by adding their key to the TLS *included* set (autocast adds
// the Autocast key of its device type), not by removing an exclusion that
// every tensor would otherwise trigger. The call's key set is
// `(tensor keys | tls.included) - tls.excluded` (applyTLS in Dispatcher.h);
// no_grad works the other way round, adding the Autograd keys to the TLS
// excluded set. So no kernel ever checks an "is autocast on" flag, and a tensor
// created inside an autocast region is no different from one created outside.
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
