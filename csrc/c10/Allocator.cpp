#include "Allocator.h"
#include "ProfilerHooks.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace c10 {

void Allocator::copy_data(void* dst, const void* src, size_t n) const { std::memcpy(dst, src, n); }

namespace detail {
std::atomic<Allocator*> g_allocators[kNumDeviceTypes] = {};

void raiseNoAllocator(DeviceType t) {
  TL_ERROR("no allocator registered for device type '", deviceTypeName(t),
           "' (torchlike was built without that backend, or its extension is not loaded)");
}
}  // namespace detail

Allocator* setAllocator(DeviceType t, Allocator* a) {
  TL_CHECK((int)t >= 0 && (int)t < kNumDeviceTypes, "setAllocator: invalid device type ", (int)t);
  return detail::g_allocators[(int)t].exchange(a, std::memory_order_acq_rel);
}

namespace {

// Size-bucketed free lists. A freed block is kept under its rounded size and
// handed out again for the next request of that size, so a loop that makes a
// large temporary every iteration touches already-mapped pages instead of
// paying page faults for fresh mmap'd memory each time. The cache is bounded:
// blocks that would push it over the limit go back to the system.
class CPUCachingAllocator final : public Allocator {
 public:
  static constexpr size_t kAlignment = 64;

  // One CPU device and no streams: the index and stream are not consulted.
  DataPtr allocate(size_t nbytes, DeviceIndex, StreamId) override {
    size_t size = round_size(nbytes);
    void* p = nullptr;
    size_t total;
    {
      std::lock_guard<std::mutex> g(mu_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        p = it->second.back();
        it->second.pop_back();
        cached_ -= size;
        ++hits_;
      } else {
        ++misses_;
      }
      allocated_ += size;
      total = allocated_;
    }
    if (!p) {
      p = system_alloc(size);
      if (!p) {
        cpuEmptyCacheLocked();
        p = system_alloc(size);
      }
      TL_CHECK(p != nullptr, "CPU out of memory: tried to allocate ", nbytes, " bytes");
    }
    if (TL_UNLIKELY(profiler::enabled())) profiler::recordMemory(p, (int64_t)nbytes, (int64_t)total, Device(DeviceType::CPU));
    DataPtr d;
    d.ptr = p;
    // The requested size (the profiler reports it); the block's size is
    // round_size() of it again.
    d.ctx = reinterpret_cast<void*>(nbytes);
    d.deleter = &CPUCachingAllocator::free_block;
    d.device = Device(DeviceType::CPU);
    return d;
  }

  static void free_block(void* ctx, void* ptr) {
    auto& self = instance();
    size_t nbytes = reinterpret_cast<size_t>(ctx);
    size_t size = round_size(nbytes);
    size_t total;
    bool cached = false;
    {
      std::lock_guard<std::mutex> g(self.mu_);
      self.allocated_ -= size;
      total = self.allocated_;
      if (self.cached_ + size <= self.limit_) {
        self.free_[size].push_back(ptr);
        self.cached_ += size;
        cached = true;
      }
    }
    if (TL_UNLIKELY(profiler::enabled())) profiler::recordMemory(ptr, -(int64_t)nbytes, (int64_t)total, Device(DeviceType::CPU));
    if (!cached) std::free(ptr);
  }

  void cpuEmptyCacheLocked() {
    std::vector<void*> to_free;
    {
      std::lock_guard<std::mutex> g(mu_);
      for (auto& kv : free_)
        for (void* p : kv.second) to_free.push_back(p);
      free_.clear();
      cached_ = 0;
    }
    for (void* p : to_free) std::free(p);
  }

  CPUCacheStats stats() {
    std::lock_guard<std::mutex> g(mu_);
    return {cached_, allocated_, limit_, hits_, misses_};
  }
  void set_limit(size_t b) {
    {
      std::lock_guard<std::mutex> g(mu_);
      limit_ = b;
    }
    cpuEmptyCacheLocked();
  }

  static CPUCachingAllocator& instance() {
    static CPUCachingAllocator* a = new CPUCachingAllocator();  // leaked: outlives static tensors
    return *a;
  }

 private:
  // Small sizes round to 64 bytes; larger to 1/8 of their power of two, so
  // repeated requests for one size always hit while waste stays under 12.5%.
  static size_t round_size(size_t n) {
    if (n == 0) n = 1;
    if (n <= 4096) return (n + 63) & ~size_t(63);
    size_t p = size_t(1) << (63 - __builtin_clzll(n - 1));
    size_t step = p / 8 < 4096 ? 4096 : p / 8;
    return (n + step - 1) / step * step;
  }

  // Large blocks are 2 MiB aligned and advised as huge pages (the kernel's THP
  // mode is usually `madvise`): streaming kernels then take far fewer TLB
  // misses and first-touch faults, as NumPy's large arrays do.
  static constexpr size_t kHugePage = size_t(2) << 20;
  static void* system_alloc(size_t size) {
    if (size < 4 * kHugePage) return std::aligned_alloc(kAlignment, size);
    size_t padded = (size + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, padded);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, padded, MADV_HUGEPAGE);
#endif
    return p;
  }

  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0, allocated_ = 0;
  size_t limit_ = size_t(2) << 30;  // 2 GiB of cached free blocks at most
  uint64_t hits_ = 0, misses_ = 0;
};

// Meta tensors have shapes and dtypes but no data.
class MetaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t, DeviceIndex, StreamId) override {
    DataPtr d;
    d.device = Device(DeviceType::Meta);
    return d;
  }
  void copy_data(void*, const void*, size_t) const override {}
};

struct RegisterBuiltinAllocators {
  RegisterBuiltinAllocators() {
    setAllocator(DeviceType::CPU, &CPUCachingAllocator::instance());
    static MetaAllocator meta;
    setAllocator(DeviceType::Meta, &meta);
  }
};

}  // namespace

// Explicit entry point (called from module init) so nothing relies on a
// static initialiser surviving the link.
void registerBuiltinAllocators() { static RegisterBuiltinAllocators r; }

CPUCacheStats cpuCacheStats() { return CPUCachingAllocator::instance().stats(); }
void cpuEmptyCache() { CPUCachingAllocator::instance().cpuEmptyCacheLocked(); }
void cpuSetCacheLimit(size_t bytes) { CPUCachingAllocator::instance().set_limit(bytes); }

}  // namespace c10
