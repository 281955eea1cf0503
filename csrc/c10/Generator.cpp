#include "Generator.h"

#include <atomic>
#include <mutex>
#include "DeviceGuard.h"

namespace c10 {

namespace {

Generator makeCPUGenerator(Device) { return Generator::make(Device(DeviceType::CPU)); }

std::atomic<GeneratorFactory> g_factories[kNumDeviceTypes] = {{&makeCPUGenerator}, {nullptr}, {nullptr}, {nullptr}};

// One slot per possible device. Leaked: Python objects and tensors may still
// hold a generator while static destructors run at exit.
struct Slot {
  std::once_flag made;
  Generator gen;
};
Slot& slot(DeviceType t, DeviceIndex index) {
  static Slot* slots = new Slot[kNumDeviceTypes * (kMaxDeviceIndex + 1)];
  return slots[(int)t * (kMaxDeviceIndex + 1) + index];
}

GeneratorFactory factoryFor(DeviceType t) {
  GeneratorFactory make = g_factories[(int)t].load(std::memory_order_acquire);
  TL_CHECK(make != nullptr, "device type '", deviceTypeName(t), "' has no random number generator",
           t == DeviceType::Meta ? " (meta tensors hold no values)" : " (is its backend loaded?)");
  return make;
}

// The concrete device a generator for d belongs to: CPU for any CPU index;
// for an indexed type the given or current device, checked against the count.
Device generatorDevice(Device d) { return isIndexedDeviceType(d.type) ? tensorDeviceSlow(d) : Device(d.type); }

}  // namespace

GeneratorFactory registerGeneratorFactory(DeviceType t, GeneratorFactory make) {
  TL_CHECK((int)t >= 0 && (int)t < kNumDeviceTypes, "registerGeneratorFactory: invalid device type ", (int)t);
  return g_factories[(int)t].exchange(make, std::memory_order_acq_rel);
}

bool hasGeneratorFactory(DeviceType t) noexcept {
  return g_factories[(int)t].load(std::memory_order_acquire) != nullptr;
}

Generator& defaultGenerator(Device d) {
  GeneratorFactory make = factoryFor(d.type);
  Device dev = generatorDevice(d);
  Slot& s = slot(dev.type, dev.index < 0 ? 0 : dev.index);
  std::call_once(s.made, [&] { s.gen = make(dev); });
  return s.gen;
}

Generator makeGenerator(Device d) {
  GeneratorFactory make = factoryFor(d.type);
  return make(generatorDevice(d));
}

void manualSeedAll(uint64_t seed) {
  for (int t = 0; t < kNumDeviceTypes; ++t) {
    DeviceType type = (DeviceType)t;
    if (!hasGeneratorFactory(type)) continue;
    if (!isIndexedDeviceType(type)) {
      defaultGenerator(Device(type))->set_seed(seed);
      continue;
    }
    DeviceIndex n = deviceCount(type);  // 0 when the backend is absent: nothing to seed
    for (DeviceIndex i = 0; i < n; ++i) defaultGenerator(Device(type, i))->set_seed(seed);
  }
}

}  // namespace c10
