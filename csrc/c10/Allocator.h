// One allocator per device type, looked up through a registry so a backend
// (CUDA, an out-of-tree PrivateUse1 device) plugs in by registering its own.
#pragma once
#include <cstddef>
#include <cstdint>
#include "Device.h"

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
  virtual DataPtr allocate(size_t nbytes) = 0;
  // Copy bytes within this device (used by Storage-level copies).
  virtual void copy_data(void* dst, const void* src, size_t n) const;
};

void setAllocator(DeviceType t, Allocator* a);
Allocator* getAllocator(DeviceType t);  // throws if none registered

// Statistics and control of the CPU caching allocator.
struct CPUCacheStats {
  size_t cached_bytes, allocated_bytes, cache_limit_bytes;
  uint64_t hits, misses;
};
CPUCacheStats cpuCacheStats();
void cpuEmptyCache();
void cpuSetCacheLimit(size_t bytes);

}  // namespace c10
