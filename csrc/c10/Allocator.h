// One allocator per device type, looked up through a registry so a backend
// (CUDA, an out-of-tree PrivateUse1 device) plugs in by registering its own.
// An allocator serves every device of its type: each request names the
// device index and the stream the memory will first be used on, so a
// stream-ordered caching allocator can reuse blocks without a device sync.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include "Device.h"
#include "Stream.h"

namespace c10 {

using DeleterFn = void (*)(void* ctx, void* ptr);

// Memory plus how to give it back. `ctx` lets a deleter keep foreign owners
// (a NumPy array) alive for as long as the storage lives.
struct DataPtr {
  void* ptr = nullptr;
  void* ctx = nullptr;
  DeleterFn deleter = nullptr;
  Device device;
  void release() {
    if (deleter) deleter(ctx, ptr);
    ptr = nullptr;
    ctx = nullptr;
    deleter = nullptr;
  }
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // nbytes on device `index` of this allocator's type (-1 for unindexed
  // types such as CPU), for use on stream `stream` of that device (0: its
  // default stream). The DataPtr's device names where the memory lives.
  virtual DataPtr allocate(size_t nbytes, DeviceIndex index, StreamId stream) = 0;
  // Copy bytes within one device of this type (used by Storage-level copies).
  virtual void copy_data(void* dst, const void* src, size_t n) const;
};

// Registers `a` for device type t and returns the allocator it replaces (or
// null). Allocators are never freed by the registry and must outlive every
// storage they allocated: register objects with static storage, or leak them.
// The pointer is published atomically, so a lookup racing a registration sees
// the old or the new allocator, never a torn one.
Allocator* setAllocator(DeviceType t, Allocator* a);

namespace detail {
extern std::atomic<Allocator*> g_allocators[kNumDeviceTypes];
[[noreturn]] void raiseNoAllocator(DeviceType t);
}  // namespace detail

// The allocator for t; raises, naming the type, when none is registered.
// One acquire load (a plain load on x86): cheap enough for every tensor made.
inline Allocator* getAllocator(DeviceType t) {
  Allocator* a = detail::g_allocators[(int)t].load(std::memory_order_acquire);
  if (TL_UNLIKELY(a == nullptr)) detail::raiseNoAllocator(t);
  return a;
}

// Statistics and control of the CPU caching allocator.
struct CPUCacheStats {
  size_t cached_bytes, allocated_bytes, cache_limit_bytes;
  uint64_t hits, misses;
};
CPUCacheStats cpuCacheStats();
void cpuEmptyCache();
void cpuSetCacheLimit(size_t bytes);

}  // namespace c10
