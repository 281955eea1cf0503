#include "c10/cuda/CachingAllocatorPolicy.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace c10::cuda {

using namespace alloc_sizes;

size_t roundRequestSize(size_t bytes) {
  if (bytes == 0) return 0;
  return (bytes + kBlockGranularity - 1) / kBlockGranularity * kBlockGranularity;
}

size_t segmentSizeFor(size_t rounded_bytes) {
  if (rounded_bytes <= kSmallRequestMax) return kSmallSegment;
  if (rounded_bytes < kLargeRequestMin) return kMediumSegment;
  return (rounded_bytes + kLargeSegmentGranularity - 1) / kLargeSegmentGranularity * kLargeSegmentGranularity;
}

std::string formatMemorySize(uint64_t bytes) {
  char buf[64];
  if (bytes <= 1024) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 " bytes", bytes);
  } else {
    const char* unit = "KiB";
    double v = double(bytes) / 1024.0;
    if (bytes >= (uint64_t(1) << 30)) {
      unit = "GiB";
      v = double(bytes) / double(uint64_t(1) << 30);
    } else if (bytes >= (uint64_t(1) << 20)) {
      unit = "MiB";
      v = double(bytes) / double(uint64_t(1) << 20);
    }
    std::snprintf(buf, sizeof buf, "%.2f %s", v, unit);
  }
  return buf;
}

void StatCounter::increase(int64_t n) {
  current += n;
  allocated += n;
  peak = std::max(peak, current);
}

void StatCounter::decrease(int64_t n) {
  current -= n;
  freed += n;
}

void PooledStat::increase(bool small, int64_t n) {
  by_pool[kAll].increase(n);
  by_pool[small ? kSmallPool : kLargePool].increase(n);
}

void PooledStat::decrease(bool small, int64_t n) {
  by_pool[kAll].decrease(n);
  by_pool[small ? kSmallPool : kLargePool].decrease(n);
}

namespace {
void flattenCounter(std::vector<std::pair<std::string, int64_t>>& out, const std::string& prefix,
                    const StatCounter& c) {
  out.emplace_back(prefix + ".current", c.current);
  out.emplace_back(prefix + ".peak", c.peak);
  out.emplace_back(prefix + ".allocated", c.allocated);
  out.emplace_back(prefix + ".freed", c.freed);
}

// Visits the pooled statistics by name; `Stats` is AllocatorStats, const or not.
template <class Stats, class F>
void forEachPooledStat(Stats& s, F&& f) {
  f("allocation", s.allocation);
  f("segment", s.segment);
  f("active", s.active);
  f("inactive_split", s.inactive_split);
  f("allocated_bytes", s.allocated_bytes);
  f("reserved_bytes", s.reserved_bytes);
  f("active_bytes", s.active_bytes);
  f("inactive_split_bytes", s.inactive_split_bytes);
  f("requested_bytes", s.requested_bytes);
}

template <class F>
void forEachCounter(AllocatorStats& s, F&& f) {
  forEachPooledStat(s, [&](const char*, PooledStat& p) {
    for (StatCounter& c : p.by_pool) f(c);
  });
  f(s.oversize_allocations);
  f(s.oversize_segments);
}

const char* const kPoolNames[3] = {"all", "small_pool", "large_pool"};
}  // namespace

std::vector<std::pair<std::string, int64_t>> AllocatorStats::flatten() const {
  std::vector<std::pair<std::string, int64_t>> out;
  forEachPooledStat(*this, [&](const char* name, const PooledStat& p) {
    for (int i = 0; i < 3; ++i) flattenCounter(out, std::string(name) + "." + kPoolNames[i], p.by_pool[i]);
  });
  flattenCounter(out, "oversize_allocations", oversize_allocations);
  flattenCounter(out, "oversize_segments", oversize_segments);
  out.emplace_back("num_alloc_retries", num_alloc_retries);
  out.emplace_back("num_ooms", num_ooms);
  out.emplace_back("num_device_alloc", num_device_alloc);
  out.emplace_back("num_device_free", num_device_free);
  out.emplace_back("num_sync_all_streams", num_sync_all_streams);
  out.emplace_back("max_split_size", max_split_size);
  std::sort(out.begin(), out.end());
  return out;
}

// One block of a segment. The blocks of a segment form an address-ordered
// doubly linked list; the segment is known by its first block.
struct DeviceCachingAllocator::Block {
  uintptr_t address;
  size_t size;
  StreamId stream;
  bool small;
  size_t requested = 0;       // bytes asked for, while handed out
  size_t segment_size = 0;    // only on a segment's first block
  bool handed_out = false;
  bool in_pool = false;       // in its pool's free set
  bool counted_split = false; // counted in inactive_split while in the pool
  Block* prev = nullptr;
  Block* next = nullptr;
  std::set<StreamId> other_streams;  // from recordStream
  Block(uintptr_t a, size_t s, StreamId st, bool sm) : address(a), size(s), stream(st), small(sm) {}
};

bool DeviceCachingAllocator::ByStreamSizeAddress::operator()(const Block* a, const Block* b) const {
  if (a->stream != b->stream) return a->stream < b->stream;
  if (a->size != b->size) return a->size < b->size;
  return a->address < b->address;
}

DeviceCachingAllocator::DeviceCachingAllocator(int device_index, std::shared_ptr<RawDeviceMemory> raw)
    : device_(device_index), raw_(std::move(raw)) {
  TL_CHECK(raw_ != nullptr, "DeviceCachingAllocator: no raw device memory source");
  stats_.max_split_size = -1;  // unlimited, reported as PyTorch reports it
}

DeviceCachingAllocator::~DeviceCachingAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  drainCompletedEvents(true);
  // Blocks still handed out die with the allocator: give every segment back.
  for (Block* head : std::vector<Block*>(segment_heads_.begin(), segment_heads_.end())) {
    for (Block* b = head->next; b != nullptr;) {
      Block* n = b->next;
      delete b;
      b = n;
    }
    raw_->free(reinterpret_cast<void*>(head->address));
    delete head;
  }
}

void* DeviceCachingAllocator::malloc(size_t bytes, StreamId stream) {
  if (bytes == 0) return nullptr;
  // Past this, rounding to a segment size could wrap around.
  TL_CHECK(bytes <= SIZE_MAX / 2, "caching allocator: request of ", bytes, " bytes is too large");
  std::lock_guard<std::mutex> lock(mu_);
  drainCompletedEvents(false);
  const size_t rounded = roundRequestSize(bytes);
  const bool small = rounded <= kSmallRequestMax;
  Block* block = takeBestFit(small, rounded, stream);
  if (block == nullptr) {
    const size_t segment_bytes = segmentSizeFor(rounded);
    block = fetchSegment(small, segment_bytes, stream);
    if (block == nullptr) {
      // The device said no: wait for blocks held back by other streams (one
      // of them may fit), then hand every unused cached segment back and retry.
      drainCompletedEvents(true);
      block = takeBestFit(small, rounded, stream);
      if (block == nullptr) {
        releaseWholeFreeSegments();
        stats_.num_alloc_retries += 1;
        block = fetchSegment(small, segment_bytes, stream);
        if (block == nullptr) {
          stats_.num_ooms += 1;
          throwOutOfMemory(segment_bytes);
        }
      }
    }
  }
  // Split off the tail when it is worth keeping: any 512-byte remainder in the
  // small pool; in the large pool only a remainder too big for the small pool,
  // and never for oversize requests, which keep their whole block.
  const size_t remainder = block->size - rounded;
  const bool split = small ? remainder >= kBlockGranularity
                           : remainder > kSmallRequestMax && rounded < max_split_size_;
  if (split) {
    Block* tail = new Block(block->address + rounded, remainder, block->stream, small);
    tail->prev = block;
    tail->next = block->next;
    if (block->next) block->next->prev = tail;
    block->next = tail;
    block->size = rounded;
    insertFree(tail);
  }
  block->handed_out = true;
  block->requested = bytes;
  live_[block->address] = block;
  stats_.allocation.increase(small, 1);
  stats_.allocated_bytes.increase(small, (int64_t)block->size);
  stats_.active.increase(small, 1);
  stats_.active_bytes.increase(small, (int64_t)block->size);
  stats_.requested_bytes.increase(small, (int64_t)bytes);
  if (block->size >= max_split_size_) stats_.oversize_allocations.increase(1);
  return reinterpret_cast<void*>(block->address);
}

void DeviceCachingAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  TL_CHECK(it != live_.end(), "caching allocator: free() of a pointer it did not hand out (or freed twice)");
  Block* block = it->second;
  live_.erase(it);
  block->handed_out = false;
  stats_.allocation.decrease(block->small, 1);
  stats_.allocated_bytes.decrease(block->small, (int64_t)block->size);
  stats_.requested_bytes.decrease(block->small, (int64_t)block->requested);
  if (block->size >= max_split_size_) stats_.oversize_allocations.decrease(1);
  block->requested = 0;
  if (block->other_streams.empty()) {
    returnToPool(block);
    return;
  }
  // Work already queued on the other streams may still read or write the
  // block: it stays active until an event recorded behind that work completes.
  std::vector<DeviceEventHandle> events;
  for (StreamId s : block->other_streams) events.push_back(raw_->recordEvent(s));
  block->other_streams.clear();
  pending_.emplace_back(block, std::move(events));
}

void DeviceCachingAllocator::recordStream(void* ptr, StreamId stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  TL_CHECK(it != live_.end(), "caching allocator: record_stream() on a pointer it did not hand out");
  if (stream != it->second->stream) it->second->other_streams.insert(stream);
}

void DeviceCachingAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  drainCompletedEvents(true);
  releaseWholeFreeSegments();
}

void DeviceCachingAllocator::setMemoryFraction(double fraction) {
  TL_CHECK_VALUE(fraction > 0.0 && fraction <= 1.0, "Invalid fraction value: ", fraction,
                 ". Allowed range: 0~1");
  std::lock_guard<std::mutex> lock(mu_);
  memory_fraction_ = fraction;
}

void DeviceCachingAllocator::setMaxSplitSize(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  // Changing the threshold under live oversize blocks would unbalance the oversize counters.
  TL_CHECK(live_.empty() && segment_heads_.empty(),
           "caching allocator: max_split_size can only be set while nothing is allocated or cached");
  // Above the 20 MiB segment size, so small-pool and medium segments are never oversize.
  TL_CHECK_VALUE(bytes > kMediumSegment, "caching allocator: max_split_size must exceed 20 MiB, got ", bytes);
  max_split_size_ = bytes;
  stats_.max_split_size = (int64_t)bytes;
}

DeviceCachingAllocator::Block* DeviceCachingAllocator::takeBestFit(bool small, size_t rounded, StreamId stream) {
  FreeSet& pool = poolFor(small);
  Block key(0, rounded, stream, small);
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  // An unsplittable oversize block is kept for requests of about its size:
  // a small request would waste it, and a much smaller big one too.
  if (rounded < max_split_size_ && b->size >= max_split_size_) return nullptr;
  if (rounded >= max_split_size_ && b->size >= rounded + kMediumSegment) return nullptr;
  eraseFree(b);
  return b;
}

bool DeviceCachingAllocator::segmentAllowed(size_t segment_bytes) {
  if (memory_fraction_ >= 1.0) return true;
  size_t free_bytes = 0, total_bytes = 0;
  raw_->memoryInfo(&free_bytes, &total_bytes);
  const double allowed = memory_fraction_ * double(total_bytes);
  const double reserved = double(stats_.reserved_bytes.by_pool[PooledStat::kAll].current);
  return reserved + double(segment_bytes) <= allowed;
}

DeviceCachingAllocator::Block* DeviceCachingAllocator::fetchSegment(bool small, size_t segment_bytes,
                                                                     StreamId stream) {
  if (!segmentAllowed(segment_bytes)) return nullptr;
  void* p = raw_->allocate(segment_bytes);
  if (p == nullptr) return nullptr;
  Block* head = new Block(reinterpret_cast<uintptr_t>(p), segment_bytes, stream, small);
  head->segment_size = segment_bytes;
  segment_heads_.insert(head);
  stats_.segment.increase(small, 1);
  stats_.reserved_bytes.increase(small, (int64_t)segment_bytes);
  stats_.num_device_alloc += 1;
  if (segment_bytes >= max_split_size_) stats_.oversize_segments.increase(1);
  return head;
}

void DeviceCachingAllocator::releaseSegment(Block* head) {
  raw_->free(reinterpret_cast<void*>(head->address));
  stats_.segment.decrease(head->small, 1);
  stats_.reserved_bytes.decrease(head->small, (int64_t)head->segment_size);
  stats_.num_device_free += 1;
  if (head->segment_size >= max_split_size_) stats_.oversize_segments.decrease(1);
  segment_heads_.erase(head);
  delete head;
}

void DeviceCachingAllocator::releaseWholeFreeSegments() {
  for (bool small : {true, false}) {
    FreeSet& pool = poolFor(small);
    std::vector<Block*> whole;
    for (Block* b : pool)
      if (b->prev == nullptr && b->next == nullptr) whole.push_back(b);
    for (Block* b : whole) {
      eraseFree(b);
      releaseSegment(b);
    }
  }
}

void DeviceCachingAllocator::drainCompletedEvents(bool wait_for_all) {
  if (wait_for_all) stats_.num_sync_all_streams += 1;
  if (pending_.empty()) return;
  std::vector<std::pair<Block*, std::vector<DeviceEventHandle>>> still_pending;
  for (auto& entry : pending_) {
    bool done = true;
    for (DeviceEventHandle e : entry.second) {
      if (wait_for_all) raw_->waitEvent(e);
      if (!raw_->eventCompleted(e)) done = false;
    }
    if (!done) {
      still_pending.push_back(std::move(entry));
      continue;
    }
    for (DeviceEventHandle e : entry.second) raw_->destroyEvent(e);
    returnToPool(entry.first);
  }
  pending_ = std::move(still_pending);
}

void DeviceCachingAllocator::returnToPool(Block* block) {
  stats_.active.decrease(block->small, 1);
  stats_.active_bytes.decrease(block->small, (int64_t)block->size);
  // Coalesce with free neighbours; the lower-addressed block survives, so a
  // segment's first block (its identity in segment_heads_) is never deleted.
  if (block->prev != nullptr && block->prev->in_pool) {
    Block* before = block->prev;
    eraseFree(before);
    absorbNext(before);
    block = before;
  }
  if (block->next != nullptr && block->next->in_pool) {
    eraseFree(block->next);
    absorbNext(block);
  }
  insertFree(block);
}

// `lower` takes over its next neighbour's bytes; the neighbour is unlinked and deleted.
void DeviceCachingAllocator::absorbNext(Block* lower) {
  Block* upper = lower->next;
  lower->size += upper->size;
  lower->next = upper->next;
  if (upper->next) upper->next->prev = lower;
  delete upper;
}

void DeviceCachingAllocator::insertFree(Block* block) {
  block->in_pool = true;
  block->counted_split = block->prev != nullptr || block->next != nullptr;
  if (block->counted_split) {
    stats_.inactive_split.increase(block->small, 1);
    stats_.inactive_split_bytes.increase(block->small, (int64_t)block->size);
  }
  poolFor(block->small).insert(block);
}

void DeviceCachingAllocator::eraseFree(Block* block) {
  poolFor(block->small).erase(block);
  block->in_pool = false;
  if (block->counted_split) {
    stats_.inactive_split.decrease(block->small, 1);
    stats_.inactive_split_bytes.decrease(block->small, (int64_t)block->size);
    block->counted_split = false;
  }
}

void DeviceCachingAllocator::throwOutOfMemory(size_t segment_bytes) {
  size_t free_bytes = 0, total_bytes = 0;
  raw_->memoryInfo(&free_bytes, &total_bytes);
  const int64_t allocated = stats_.allocated_bytes.by_pool[PooledStat::kAll].current;
  const int64_t reserved = stats_.reserved_bytes.by_pool[PooledStat::kAll].current;
  std::ostringstream msg;
  msg << "CUDA out of memory. Tried to allocate " << formatMemorySize(segment_bytes) << ". GPU " << device_
      << " has a total capacity of " << formatMemorySize(total_bytes) << " of which "
      << formatMemorySize(free_bytes) << " is free. Including non-torchlike memory, this process has "
      << formatMemorySize(total_bytes - free_bytes) << " memory in use. ";
  if (memory_fraction_ < 1.0)
    msg << formatMemorySize(uint64_t(memory_fraction_ * double(total_bytes))) << " allowed; ";
  msg << "Of the allocated memory " << formatMemorySize((uint64_t)allocated)
      << " is allocated by torchlike, and " << formatMemorySize((uint64_t)(reserved - allocated))
      << " is reserved by torchlike but unallocated. torchlike.cuda.empty_cache() returns the unallocated "
         "part to the device; torchlike.cuda.memory_summary() shows where the rest is.";
  throw OutOfMemoryError(msg.str());
}

AllocatorStats DeviceCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void DeviceCachingAllocator::resetPeakStats() {
  std::lock_guard<std::mutex> lock(mu_);
  forEachCounter(stats_, [](StatCounter& c) { c.peak = c.current; });
}

void DeviceCachingAllocator::resetAccumulatedStats() {
  std::lock_guard<std::mutex> lock(mu_);
  forEachCounter(stats_, [](StatCounter& c) { c.allocated = c.freed = 0; });
  stats_.num_alloc_retries = stats_.num_ooms = 0;
  stats_.num_device_alloc = stats_.num_device_free = 0;
  stats_.num_sync_all_streams = 0;
}

DeviceCachingAllocator::BlockInfo DeviceCachingAllocator::blockInfo(void* ptr) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  TL_CHECK(it != live_.end(), "caching allocator: no live block at this address");
  const Block* b = it->second;
  const Block* head = b;
  while (head->prev) head = head->prev;
  return {b->size, b->requested, b->stream, head->address, head->segment_size, b->small};
}

std::vector<DeviceCachingAllocator::SegmentView> DeviceCachingAllocator::segments() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<SegmentView> out;
  out.reserve(segment_heads_.size());
  for (const Block* head : segment_heads_) {
    SegmentView seg;
    seg.address = head->address;
    seg.total = head->segment_size;
    seg.stream = head->stream;
    seg.small_pool = head->small;
    for (const Block* b = head; b != nullptr; b = b->next) {
      seg.blocks.push_back({b->address, b->size, b->handed_out ? b->requested : 0, b->handed_out});
      if (b->handed_out) {
        seg.allocated += b->size;
        seg.requested += b->requested;
      }
      if (!b->in_pool) seg.active += b->size;  // handed out, or freed and pending
    }
    out.push_back(std::move(seg));
  }
  std::sort(out.begin(), out.end(), [](const SegmentView& a, const SegmentView& b) { return a.address < b.address; });
  return out;
}

double DeviceCachingAllocator::memoryFraction() const {
  std::lock_guard<std::mutex> lock(mu_);
  return memory_fraction_;
}

std::string DeviceCachingAllocator::checkInvariants() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t seen_live = 0, seen_pooled = 0;
  int64_t allocated[2] = {0, 0}, active[2] = {0, 0}, reserved[2] = {0, 0};
  int64_t split_count[2] = {0, 0}, split_bytes[2] = {0, 0}, segments[2] = {0, 0};
  std::set<const Block*> pending;
  for (const auto& e : pending_) pending.insert(e.first);
  for (const Block* head : segment_heads_) {
    if (head->prev != nullptr) return "a segment head has a predecessor";
    const int pool = head->small ? 0 : 1;
    segments[pool] += 1;
    reserved[pool] += (int64_t)head->segment_size;
    size_t covered = 0;
    for (const Block* b = head; b != nullptr; b = b->next) {
      if (b->address != head->address + covered) return "blocks of a segment are not contiguous";
      if (b->next && b->next->prev != b) return "broken back link in a segment";
      if (b->stream != head->stream || b->small != head->small) return "a block left its segment's stream or pool";
      if (b->size == 0 || b->size % kBlockGranularity != 0) return "a block size is not a multiple of 512";
      covered += b->size;
      const int states = int(b->handed_out) + int(b->in_pool) + int(pending.count(b));
      if (states != 1) return "a block is not in exactly one of handed out / pooled / pending";
      if (b->handed_out) {
        if (!live_.count(b->address)) return "a handed-out block is missing from the live map";
        seen_live += 1;
        allocated[pool] += (int64_t)b->size;
      }
      if (b->handed_out || pending.count(b)) active[pool] += (int64_t)b->size;
      if (b->in_pool) {
        seen_pooled += 1;
        if (!poolFor(b->small).count(const_cast<Block*>(b))) return "a pooled block is missing from its free set";
        if (b->next && b->next->in_pool) return "two adjacent free blocks were not coalesced";
        if (b->prev || b->next) {
          split_count[pool] += 1;
          split_bytes[pool] += (int64_t)b->size;
        }
      }
    }
    if (covered != head->segment_size) return "blocks do not cover their segment exactly";
  }
  if (seen_live != (int64_t)live_.size()) return "live map holds blocks outside every segment";
  if (seen_pooled != (int64_t)(small_free_.size() + large_free_.size())) return "free sets hold stray blocks";
  auto cur = [](const PooledStat& p, int pool) { return p.by_pool[pool == 0 ? PooledStat::kSmallPool : PooledStat::kLargePool].current; };
  for (int pool = 0; pool < 2; ++pool) {
    if (cur(stats_.allocated_bytes, pool) != allocated[pool]) return "allocated_bytes disagrees with the blocks";
    if (cur(stats_.active_bytes, pool) != active[pool]) return "active_bytes disagrees with the blocks";
    if (cur(stats_.reserved_bytes, pool) != reserved[pool]) return "reserved_bytes disagrees with the segments";
    if (cur(stats_.segment, pool) != segments[pool]) return "segment count disagrees with the segments";
    if (cur(stats_.inactive_split, pool) != split_count[pool]) return "inactive_split disagrees with the blocks";
    if (cur(stats_.inactive_split_bytes, pool) != split_bytes[pool]) return "inactive_split_bytes disagrees";
  }
  if (stats_.allocation.by_pool[PooledStat::kAll].current != (int64_t)live_.size())
    return "allocation count disagrees with the live map";
  return "";
}

// ---------------------------------------------------------------------------
// memory_summary: the table torch.cuda.memory_summary() prints.

namespace {
std::string summaryBytes(int64_t v) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  // A unit is kept until the figure reaches 768 of the next one, so that
  // 20 MiB reads "20480 KiB" as in the reference table.
  while ((v >= 768 * 1024 || v <= -768 * 1024) && u < 5) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, " %6" PRId64 " %-3s ", v, units[u]);
  return buf;
}

std::string summaryCount(int64_t v) {
  char buf[32];
  if (v >= 768 * 1000 || v <= -768 * 1000)
    std::snprintf(buf, sizeof buf, " %7" PRId64 "K   ", v / 1000);
  else
    std::snprintf(buf, sizeof buf, " %7" PRId64 "    ", v);
  return buf;
}

std::string padTo(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string centred(const std::string& s, size_t width) {
  if (s.size() >= width) return s;
  const size_t left = (width - s.size()) / 2;
  return std::string(left, ' ') + s + std::string(width - s.size() - left, ' ');
}
}  // namespace

std::string DeviceCachingAllocator::summary(bool abbreviated) const {
  const AllocatorStats s = stats();
  const std::string thick = "|" + std::string(75, '=') + "|\n";
  const std::string thin = "|" + std::string(75, '-') + "|\n";
  std::ostringstream out;
  out << thick;
  out << "|" << centred("torchlike CUDA memory summary, device ID " + std::to_string(device_), 75) << "|\n";
  out << thin;
  out << "|" << centred("CUDA OOMs: " + std::to_string(s.num_ooms), 36) << "|"
      << centred("cudaMalloc retries: " + std::to_string(s.num_alloc_retries), 38) << "|\n";
  out << thick;
  out << "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n";

  auto row = [&](const std::string& label, const StatCounter& c, bool bytes) {
    auto cell = [&](int64_t v) { return bytes ? summaryBytes(v) : summaryCount(v); };
    out << "| " << padTo(label, 22) << "|" << cell(c.current) << "|" << cell(c.peak) << "|" << cell(c.allocated)
        << "|" << cell(c.freed) << "|\n";
  };
  auto pooled = [&](const std::string& label, const PooledStat& p, bool bytes) {
    out << thin;
    row(label, p.by_pool[PooledStat::kAll], bytes);
    if (!abbreviated) {
      row("      from large pool", p.by_pool[PooledStat::kLargePool], bytes);
      row("      from small pool", p.by_pool[PooledStat::kSmallPool], bytes);
    }
  };
  pooled("Allocated memory", s.allocated_bytes, true);
  pooled("Active memory", s.active_bytes, true);
  pooled("Requested memory", s.requested_bytes, true);
  pooled("GPU reserved memory", s.reserved_bytes, true);
  pooled("Non-releasable memory", s.inactive_split_bytes, true);
  pooled("Allocations", s.allocation, false);
  pooled("Active allocs", s.active, false);
  pooled("GPU reserved segments", s.segment, false);
  pooled("Non-releasable allocs", s.inactive_split, false);
  out << thin;
  row("Oversize allocations", s.oversize_allocations, false);
  out << thin;
  row("Oversize GPU segments", s.oversize_segments, false);
  out << thick;
  return out.str();
}

// ---------------------------------------------------------------------------
// FakeRawDeviceMemory

FakeRawDeviceMemory::FakeRawDeviceMemory(size_t capacity) : capacity_(capacity) {}
FakeRawDeviceMemory::~FakeRawDeviceMemory() = default;

void* FakeRawDeviceMemory::allocate(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  allocate_calls_ += 1;
  if (bytes > capacity_ || live_bytes_ + foreign_ > capacity_ - bytes) {
    refused_calls_ += 1;
    return nullptr;
  }
  const uintptr_t a = next_address_;
  // Leave a gap after each segment so that blocks of different segments are
  // never adjacent: a coalescing bug across segments would show as a broken invariant.
  next_address_ += (bytes + 4095) / 4096 * 4096 + 4096;
  live_[a] = bytes;
  live_bytes_ += bytes;
  return reinterpret_cast<void*>(a);
}

void FakeRawDeviceMemory::free(void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(reinterpret_cast<uintptr_t>(ptr));
  TL_CHECK(it != live_.end(), "fake device: free() of an address it never handed out");
  free_calls_ += 1;
  live_bytes_ -= it->second;
  live_.erase(it);
}

void FakeRawDeviceMemory::memoryInfo(size_t* free_bytes, size_t* total_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  *total_bytes = capacity_;
  const size_t used = std::min(capacity_, live_bytes_ + foreign_);
  *free_bytes = capacity_ - used;
}

DeviceEventHandle FakeRawDeviceMemory::recordEvent(StreamId stream) {
  std::lock_guard<std::mutex> lock(mu_);
  const DeviceEventHandle h = next_event_++;
  events_[h] = EventState{stream, false};
  return h;
}

bool FakeRawDeviceMemory::eventCompleted(DeviceEventHandle event) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(event);
  TL_CHECK(it != events_.end(), "fake device: query of an unknown event");
  return it->second.done;
}

void FakeRawDeviceMemory::waitEvent(DeviceEventHandle event) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = events_.find(event);
  TL_CHECK(it != events_.end(), "fake device: wait on an unknown event");
  // A host wait lets the stream run to the event.
  it->second.done = true;
  waits_ += 1;
}

void FakeRawDeviceMemory::destroyEvent(DeviceEventHandle event) {
  std::lock_guard<std::mutex> lock(mu_);
  TL_CHECK(events_.erase(event) == 1, "fake device: destroy of an unknown event");
}

void FakeRawDeviceMemory::completeStream(StreamId stream) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& kv : events_)
    if (kv.second.stream == stream) kv.second.done = true;
}

void FakeRawDeviceMemory::setForeignUsage(size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  foreign_ = bytes;
}

FakeRawDeviceMemory::Counters FakeRawDeviceMemory::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {allocate_calls_, refused_calls_, free_calls_, (int64_t)live_.size(), (int64_t)live_bytes_,
          (int64_t)events_.size(), waits_};
}

}  // namespace c10::cuda
