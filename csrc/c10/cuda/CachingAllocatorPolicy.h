// The device caching allocator's policy, written against an abstract source
// of raw device memory so it can be built and tested without a GPU. The CUDA
// backend plugs in an adaptor over cudaMalloc/cudaFree/cudaEvent*; the tests
// plug in a counting fake (FakeRawDeviceMemory below).
//
// Policy (PyTorch's documented behaviour, "CUDA semantics → memory management"):
//  * requests are rounded up to 512-byte multiples;
//  * requests up to 1 MiB come from the small pool, carved from 2 MiB segments;
//    larger ones from the large pool, whose segments are 20 MiB for requests
//    under 10 MiB and the request rounded up to 2 MiB otherwise;
//  * a free block is found by best fit among the free blocks of the same pool
//    and the same stream; a block bigger than needed is split, and a freed
//    block merges with its free neighbours;
//  * a block that record_stream() marked as used on other streams goes back to
//    its pool only once events recorded on those streams at free() time have
//    completed;
//  * when the device refuses memory, cached unused segments are released and
//    the request retried once; a second refusal raises OutOfMemoryError.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include "c10/Exception.h"
#include "c10/Stream.h"

namespace c10::cuda {

// Opaque handle of a device event (a cudaEvent_t on the real adaptor).
using DeviceEventHandle = std::uintptr_t;

// Raw device memory and the few stream/event operations the policy needs.
// Every call is made with the allocator's lock held.
class RawDeviceMemory {
 public:
  virtual ~RawDeviceMemory() = default;
  // `bytes` of device memory, or nullptr when the device has none left.
  virtual void* allocate(size_t bytes) = 0;
  virtual void free(void* ptr) = 0;
  // Free and total device memory in bytes (cudaMemGetInfo).
  virtual void memoryInfo(size_t* free_bytes, size_t* total_bytes) = 0;
  // An event recorded on `stream` now; completes when the stream's work so far has run.
  virtual DeviceEventHandle recordEvent(StreamId stream) = 0;
  virtual bool eventCompleted(DeviceEventHandle event) = 0;
  // Block until the event completes.
  virtual void waitEvent(DeviceEventHandle event) = 0;
  virtual void destroyEvent(DeviceEventHandle event) = 0;
};

// Raised when a request cannot be served even after emptying the cache. A
// RuntimeError on the Python side, as torch.cuda.OutOfMemoryError is.
class OutOfMemoryError : public c10::Error {
 public:
  explicit OutOfMemoryError(std::string msg) : c10::Error(c10::ErrorKind::Runtime, std::move(msg)) {}
};

namespace alloc_sizes {
constexpr size_t kBlockGranularity = 512;          // every block is a multiple of this
constexpr size_t kSmallRequestMax = 1 << 20;       // 1 MiB: largest small-pool request
constexpr size_t kSmallSegment = 2 << 20;          // 2 MiB segments feed the small pool
constexpr size_t kMediumSegment = 20 << 20;        // 20 MiB segments for 1..10 MiB requests
constexpr size_t kLargeRequestMin = 10 << 20;      // from here, segments fit the request
constexpr size_t kLargeSegmentGranularity = 2 << 20;
}  // namespace alloc_sizes

// The size a request occupies once rounded (0 stays 0: nothing is allocated).
size_t roundRequestSize(size_t bytes);
// The size of the segment fetched from the device when no cached block fits.
size_t segmentSizeFor(size_t rounded_bytes);

// PyTorch's memory-size rendering in error messages: "512 bytes", "1.50 KiB", "20.00 MiB".
std::string formatMemorySize(uint64_t bytes);

// current/peak/allocated/freed of one quantity.
struct StatCounter {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;  // total ever added
  int64_t freed = 0;      // total ever removed
  void increase(int64_t n);
  void decrease(int64_t n);
};

// A quantity tracked over both pools and over each.
struct PooledStat {
  enum Index { kAll = 0, kSmallPool = 1, kLargePool = 2 };
  StatCounter by_pool[3];
  void increase(bool small, int64_t n);
  void decrease(bool small, int64_t n);
};

struct AllocatorStats {
  PooledStat allocation, segment, active, inactive_split;
  PooledStat allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes, requested_bytes;
  StatCounter oversize_allocations, oversize_segments;
  int64_t num_alloc_retries = 0;
  int64_t num_ooms = 0;
  int64_t num_device_alloc = 0;
  int64_t num_device_free = 0;
  int64_t num_sync_all_streams = 0;
  int64_t max_split_size = 0;
  // Flattened as torch.cuda.memory_stats() keys ("allocated_bytes.all.peak", ...), sorted by key.
  std::vector<std::pair<std::string, int64_t>> flatten() const;
};

class DeviceCachingAllocator {
 public:
  DeviceCachingAllocator(int device_index, std::shared_ptr<RawDeviceMemory> raw);
  ~DeviceCachingAllocator();
  DeviceCachingAllocator(const DeviceCachingAllocator&) = delete;
  DeviceCachingAllocator& operator=(const DeviceCachingAllocator&) = delete;

  // nullptr for 0 bytes; throws OutOfMemoryError.
  void* malloc(size_t bytes, StreamId stream);
  void free(void* ptr);
  // The block holding `ptr` is also used on `stream`: it is not reused until
  // that stream's work queued before its free() has finished.
  void recordStream(void* ptr, StreamId stream);
  // Waits for pending events and gives every cached whole segment back to the device.
  void emptyCache();
  // Caps reserved memory at fraction × total device memory (0 < fraction <= 1).
  void setMemoryFraction(double fraction);
  // Blocks at least this big are never split, and serve only requests close to their size.
  void setMaxSplitSize(size_t bytes);

  AllocatorStats stats() const;
  void resetPeakStats();
  void resetAccumulatedStats();
  std::string summary(bool abbreviated) const;

  struct BlockInfo {
    size_t size, requested;
    StreamId stream;
    uintptr_t segment_address;
    size_t segment_size;
    bool small_pool;
  };
  BlockInfo blockInfo(void* ptr) const;
  // Every segment with its blocks, by address (torch.cuda.memory_snapshot()).
  // "active" counts allocated blocks and freed ones still waiting for events.
  struct SegmentView {
    uintptr_t address = 0;
    size_t total = 0, allocated = 0, active = 0, requested = 0;
    StreamId stream = 0;
    bool small_pool = false;
    struct BlockView {
      uintptr_t address;
      size_t size, requested;
      bool allocated;
    };
    std::vector<BlockView> blocks;
  };
  std::vector<SegmentView> segments() const;
  double memoryFraction() const;
  // Walks every segment and recomputes the statistics; empty when consistent,
  // else a description of the first inconsistency found (for the tests).
  std::string checkInvariants() const;

 private:
  struct Block;
  struct ByStreamSizeAddress {
    bool operator()(const Block* a, const Block* b) const;
  };
  using FreeSet = std::set<Block*, ByStreamSizeAddress>;

  FreeSet& poolFor(bool small) { return small ? small_free_ : large_free_; }
  const FreeSet& poolFor(bool small) const { return small ? small_free_ : large_free_; }
  Block* takeBestFit(bool small, size_t rounded, StreamId stream);
  Block* fetchSegment(bool small, size_t segment_bytes, StreamId stream);
  bool segmentAllowed(size_t segment_bytes);
  void releaseWholeFreeSegments();
  void drainCompletedEvents(bool wait_for_all);
  void returnToPool(Block* block);
  void absorbNext(Block* lower);
  void insertFree(Block* block);
  void eraseFree(Block* block);
  void releaseSegment(Block* head);
  [[noreturn]] void throwOutOfMemory(size_t segment_bytes);

  const int device_;
  std::shared_ptr<RawDeviceMemory> raw_;
  mutable std::mutex mu_;
  FreeSet small_free_, large_free_;
  std::unordered_map<uintptr_t, Block*> live_;  // handed-out blocks by address
  std::set<Block*> segment_heads_;
  // Freed blocks waiting for events on the streams record_stream() named.
  std::vector<std::pair<Block*, std::vector<DeviceEventHandle>>> pending_;
  AllocatorStats stats_;
  double memory_fraction_ = 1.0;
  size_t max_split_size_ = SIZE_MAX;
};

// A device made of counters: hands out addresses from a never-reused range
// (nothing is mapped behind them), refuses requests past `capacity`, and
// keeps events pending until the test completes their stream.
class FakeRawDeviceMemory final : public RawDeviceMemory {
 public:
  explicit FakeRawDeviceMemory(size_t capacity);
  ~FakeRawDeviceMemory() override;
  void* allocate(size_t bytes) override;
  void free(void* ptr) override;
  void memoryInfo(size_t* free_bytes, size_t* total_bytes) override;
  DeviceEventHandle recordEvent(StreamId stream) override;
  bool eventCompleted(DeviceEventHandle event) override;
  void waitEvent(DeviceEventHandle event) override;
  void destroyEvent(DeviceEventHandle event) override;

  // Every event recorded on `stream` so far completes.
  void completeStream(StreamId stream);
  // Memory used outside the allocator (another process), counted against capacity.
  void setForeignUsage(size_t bytes);

  struct Counters {
    int64_t allocate_calls, refused_calls, free_calls, live_allocations, live_bytes, live_events, waits;
  };
  Counters counters() const;

 private:
  mutable std::mutex mu_;
  const size_t capacity_;
  size_t foreign_ = 0;
  uintptr_t next_address_ = uintptr_t(1) << 32;
  std::unordered_map<uintptr_t, size_t> live_;
  size_t live_bytes_ = 0;
  struct EventState {
    StreamId stream;
    bool done;
  };
  std::unordered_map<DeviceEventHandle, EventState> events_;
  DeviceEventHandle next_event_ = 1;
  int64_t allocate_calls_ = 0, refused_calls_ = 0, free_calls_ = 0, waits_ = 0;
};

}  // namespace c10::cuda
