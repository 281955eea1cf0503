// Counter-based random generator (Philox4x32-10). A random op reserves a block
// of counters up front; element i's value depends only on (seed, offset + i),
// never on how the work was split across threads.
#pragma once
#include <cstdint>
#include <mutex>
#include "Device.h"
#include "intrusive_ptr.h"

namespace c10 {

struct Philox4x32 {
  // Returns 4 uint32 for (key, counter).
  static inline void block(uint64_t key, uint64_t ctr_hi, uint64_t ctr_lo, uint32_t out[4]) {
    uint32_t c0 = (uint32_t)ctr_lo, c1 = (uint32_t)(ctr_lo >> 32), c2 = (uint32_t)ctr_hi, c3 = (uint32_t)(ctr_hi >> 32);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; ++r) {
      uint64_t p0 = (uint64_t)0xD2511F53u * c0;
      uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
      uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
      uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
      c1 = (uint32_t)p1;
      c3 = (uint32_t)p0;
      c0 = n0;
      c2 = n2;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
  }
};

class GeneratorImpl : public intrusive_ptr_target {
 public:
  explicit GeneratorImpl(Device d, uint64_t seed = 67280421310721ull) : device_(d), seed_(seed) {}
  void set_seed(uint64_t s) {
    std::lock_guard<std::mutex> g(mu_);
    seed_ = s;
    offset_ = 0;
  }
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_offset(uint64_t o) {
    std::lock_guard<std::mutex> g(mu_);
    offset_ = o;
  }
  // A block of counters and the seed they belong to, taken under one lock so
  // a concurrent manual_seed can't pair an old seed with new counters.
  struct Reservation {
    uint64_t seed, offset;
  };
  // Reserve n counter values. Each counter yields 4 uint32.
  Reservation reserve(uint64_t n) {
    std::lock_guard<std::mutex> g(mu_);
    Reservation r{seed_, offset_};
    offset_ += n;
    return r;
  }
  Device device() const { return device_; }

 private:
  Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
  std::mutex mu_;
};

using Generator = intrusive_ptr<GeneratorImpl>;

// ---- one default generator per device
// A device type with random numbers registers a factory; its default
// generator for each device is made on first use and kept for the process.
// CPU's factory is built in (one generator, whatever index is asked for,
// since there is one CPU device); Meta has none: meta tensors hold no values.
using GeneratorFactory = Generator (*)(Device device);
// Returns the factory it replaces (or null). Already-made default generators stay.
GeneratorFactory registerGeneratorFactory(DeviceType t, GeneratorFactory make);
bool hasGeneratorFactory(DeviceType t) noexcept;

// The default generator of device d; index -1 means the current device of
// its type. Raises for a device type without generators, or an index out of
// range for its type.
Generator& defaultGenerator(Device d = Device(DeviceType::CPU));
// A fresh generator for d (torchlike.Generator(device=...)), with the same
// checks as defaultGenerator.
Generator makeGenerator(Device d);
// Seeds the default generator of every device of every type with a factory
// (torchlike.manual_seed).
void manualSeedAll(uint64_t seed);

}  // namespace c10
