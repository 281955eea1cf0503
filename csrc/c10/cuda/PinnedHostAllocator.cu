// Page-locked host memory (Tensor.pin_memory, DataLoader(pin_memory=True)),
// cached. cudaHostAlloc is slow (it maps the pages for the device), so freed
// blocks are kept by size class (powers of two) and reused. A block that an
// asynchronous copy touched is reused only once events recorded on the
// copy's streams at free time have completed: the DMA engine may still be
// reading it after the tensor that owned it is gone.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include "c10/cuda/CUDAContext.h"
#include "c10/cuda/CUDARuntime.h"
#include "c10/cuda/CachingAllocatorPolicy.h"

namespace c10::cuda::runtime {

namespace {

struct HostBlock {
  void* ptr = nullptr;
  size_t size = 0;
  bool in_use = false;
  std::set<std::pair<DeviceIndex, StreamId>> used_on;  // streams of copies since allocation
};

// Time spent in cudaHostAlloc / cudaFreeHost, in microseconds.
struct DurationStat {
  int64_t total = 0, max = 0, min = 0, count = 0;
  void add(int64_t us) {
    min = count == 0 ? us : std::min(min, us);
    max = std::max(max, us);
    total += us;
    ++count;
  }
};

size_t sizeClass(size_t n) {
  size_t c = 512;  // small requests share one class, as in cudaHostAlloc's own granularity
  while (c < n) c <<= 1;
  return c;
}

class PinnedCache {
 public:
  DataPtr allocate(size_t nbytes);
  void release(void* ptr);
  bool owns(const void* ptr);
  void recordUse(const void* ptr, const Stream& s);
  std::vector<std::pair<std::string, int64_t>> stats();
  void resetPeak();
  void resetAccumulated();
  void emptyCache();

 private:
  HostBlock* findContaining(const void* ptr);  // mu_ held
  void collectCompleted(bool wait);            // mu_ held
  void freeToDriver(HostBlock* b);             // mu_ held

  std::mutex mu_;
  std::map<uintptr_t, HostBlock*> blocks_;            // every live block, by address
  std::map<size_t, std::vector<HostBlock*>> free_;    // reusable blocks by size class
  std::vector<std::pair<HostBlock*, std::vector<cudaEvent_t>>> pending_;  // freed, events outstanding
  StatCounter allocations_, allocated_bytes_, segments_, reserved_bytes_;
  int64_t num_host_alloc_ = 0, num_host_free_ = 0;
  DurationStat alloc_time_, free_time_;
};

void freePinned(void*, void* ptr);

int64_t microsecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
}

DataPtr PinnedCache::allocate(size_t nbytes) {
  TL_CHECK(deviceCount() > 0, "pin_memory: CUDA is not available: ", unavailableReason());
  DataPtr d;
  d.device = Device(DeviceType::CPU);
  if (nbytes == 0) return d;
  const size_t cls = sizeClass(nbytes);
  std::lock_guard<std::mutex> g(mu_);
  collectCompleted(false);
  HostBlock* b = nullptr;
  auto it = free_.find(cls);
  if (it != free_.end() && !it->second.empty()) {
    b = it->second.back();
    it->second.pop_back();
  } else {
    void* p = nullptr;
    auto t0 = std::chrono::steady_clock::now();
    cudaError_t err = cudaHostAlloc(&p, cls, cudaHostAllocDefault);
    if (err == cudaErrorMemoryAllocation) {
      // Cached blocks may be what is missing: give them back and try once more.
      (void)cudaGetLastError();
      collectCompleted(true);
      for (auto& kv : free_)
        for (HostBlock* f : kv.second) freeToDriver(f);
      free_.clear();
      err = cudaHostAlloc(&p, cls, cudaHostAllocDefault);
    }
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw OutOfMemoryError("CUDA out of memory: could not allocate " + formatMemorySize(cls) +
                             " of pinned host memory");
    }
    TL_CUDA_CHECK(err);
    alloc_time_.add(microsecondsSince(t0));
    ++num_host_alloc_;
    b = new HostBlock();
    b->ptr = p;
    b->size = cls;
    blocks_[reinterpret_cast<uintptr_t>(p)] = b;
    segments_.increase(1);
    reserved_bytes_.increase((int64_t)cls);
  }
  b->in_use = true;
  b->used_on.clear();
  allocations_.increase(1);
  allocated_bytes_.increase((int64_t)b->size);
  d.ptr = b->ptr;
  d.deleter = &freePinned;
  return d;
}

HostBlock* PinnedCache::findContaining(const void* ptr) {
  uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  auto it = blocks_.upper_bound(a);
  if (it == blocks_.begin()) return nullptr;
  --it;
  HostBlock* b = it->second;
  return a < it->first + b->size ? b : nullptr;
}

void PinnedCache::release(void* ptr) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || !it->second->in_use) return;
  HostBlock* b = it->second;
  b->in_use = false;
  allocations_.decrease(1);
  allocated_bytes_.decrease((int64_t)b->size);
  std::vector<cudaEvent_t> events;
  for (const auto& use : b->used_on) {
    cudaEvent_t ev = nullptr;
    try {
      ScopedDevice guard(use.first);
      TL_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
      TL_CUDA_CHECK(cudaEventRecord(ev, streamHandle(use.first, use.second)));
      events.push_back(ev);
    } catch (...) {
      // Without an event the block's safety is unknown: synchronise that
      // device instead (rare: it takes a broken context).
      if (ev) (void)cudaEventDestroy(ev);
      (void)cudaGetLastError();
      (void)cudaDeviceSynchronize();
    }
  }
  b->used_on.clear();
  if (events.empty()) {
    free_[b->size].push_back(b);
  } else {
    pending_.emplace_back(b, std::move(events));
  }
}

void PinnedCache::collectCompleted(bool wait) {
  for (size_t i = 0; i < pending_.size();) {
    auto& evs = pending_[i].second;
    bool done = true;
    for (cudaEvent_t ev : evs) {
      cudaError_t err = wait ? cudaEventSynchronize(ev) : cudaEventQuery(ev);
      if (err == cudaErrorNotReady) {
        (void)cudaGetLastError();
        done = false;
        break;
      }
    }
    if (!done) {
      ++i;
      continue;
    }
    for (cudaEvent_t ev : evs) (void)cudaEventDestroy(ev);
    free_[pending_[i].first->size].push_back(pending_[i].first);
    pending_[i] = std::move(pending_.back());
    pending_.pop_back();
  }
}

void PinnedCache::freeToDriver(HostBlock* b) {
  auto t0 = std::chrono::steady_clock::now();
  (void)cudaFreeHost(b->ptr);
  free_time_.add(microsecondsSince(t0));
  ++num_host_free_;
  segments_.decrease(1);
  reserved_bytes_.decrease((int64_t)b->size);
  blocks_.erase(reinterpret_cast<uintptr_t>(b->ptr));
  delete b;
}

bool PinnedCache::owns(const void* ptr) {
  std::lock_guard<std::mutex> g(mu_);
  return findContaining(ptr) != nullptr;
}

void PinnedCache::recordUse(const void* ptr, const Stream& s) {
  std::lock_guard<std::mutex> g(mu_);
  HostBlock* b = findContaining(ptr);
  if (b && b->in_use) b->used_on.emplace(s.device_index(), s.id());
}

void PinnedCache::emptyCache() {
  std::lock_guard<std::mutex> g(mu_);
  collectCompleted(true);
  for (auto& kv : free_)
    for (HostBlock* b : kv.second) freeToDriver(b);
  free_.clear();
}

void addCounter(std::vector<std::pair<std::string, int64_t>>& out, const char* name, const StatCounter& c) {
  std::string p(name);
  out.emplace_back(p + ".current", c.current);
  out.emplace_back(p + ".peak", c.peak);
  out.emplace_back(p + ".allocated", c.allocated);
  out.emplace_back(p + ".freed", c.freed);
}

void addDuration(std::vector<std::pair<std::string, int64_t>>& out, const char* name, const DurationStat& d) {
  std::string p(name);
  out.emplace_back(p + ".total", d.total);
  out.emplace_back(p + ".max", d.max);
  out.emplace_back(p + ".min", d.min);
  out.emplace_back(p + ".count", d.count);
  out.emplace_back(p + ".avg", d.count ? d.total / d.count : 0);
}

std::vector<std::pair<std::string, int64_t>> PinnedCache::stats() {
  std::lock_guard<std::mutex> g(mu_);
  std::vector<std::pair<std::string, int64_t>> out;
  addCounter(out, "allocations", allocations_);
  addCounter(out, "allocated_bytes", allocated_bytes_);
  addCounter(out, "segment", segments_);
  addCounter(out, "reserved_bytes", reserved_bytes_);
  out.emplace_back("num_host_alloc", num_host_alloc_);
  out.emplace_back("num_host_free", num_host_free_);
  addDuration(out, "host_alloc_time", alloc_time_);
  addDuration(out, "host_free_time", free_time_);
  std::sort(out.begin(), out.end());
  return out;
}

void PinnedCache::resetPeak() {
  std::lock_guard<std::mutex> g(mu_);
  for (StatCounter* c : {&allocations_, &allocated_bytes_, &segments_, &reserved_bytes_}) c->peak = c->current;
}

void PinnedCache::resetAccumulated() {
  std::lock_guard<std::mutex> g(mu_);
  for (StatCounter* c : {&allocations_, &allocated_bytes_, &segments_, &reserved_bytes_}) {
    c->allocated = 0;
    c->freed = 0;
  }
  num_host_alloc_ = num_host_free_ = 0;
  alloc_time_ = free_time_ = DurationStat{};
}

// Leaked: pinned storages may be freed during interpreter shutdown.
PinnedCache& cache() {
  static PinnedCache* c = new PinnedCache();
  return *c;
}

void freePinned(void*, void* ptr) {
  try {
    cache().release(ptr);
  } catch (...) {
  }
}

}  // namespace

DataPtr allocatePinned(size_t nbytes) { return cache().allocate(nbytes); }

bool isPinned(const void* ptr) {
  if (ptr == nullptr || deviceCount() == 0) return false;
  if (cache().owns(ptr)) return true;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();  // plain pageable memory is an error on old runtimes
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

void recordPinnedUse(const void* ptr, const Stream& stream) { cache().recordUse(ptr, stream); }
std::vector<std::pair<std::string, int64_t>> pinnedStats() { return cache().stats(); }
void resetPinnedPeakStats() { cache().resetPeak(); }
void resetPinnedAccumulatedStats() { cache().resetAccumulated(); }
void emptyPinnedCache() { cache().emptyCache(); }

}  // namespace c10::cuda::runtime
