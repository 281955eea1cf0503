// The npu device runtime: what every PrivateUse1 backend registers before
// any operator can run. An allocator (with counters, so tests see memory come
// back), a DeviceGuard implementation (device count, a per-thread current
// device), copy kernels between npu and CPU, and a random generator factory.
// install() registers them (and the CPU fallback), uninstall() puts back
// what was there before.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "aten/native/Copy.h"
#include "c10/Allocator.h"
#include "c10/DeviceGuard.h"
#include "c10/Generator.h"
#include "npu.h"
#include "ops/copy.h"

namespace npu {
namespace {

using c10::Device;
using c10::DeviceIndex;
using c10::DeviceType;
constexpr DeviceType kNpu = DeviceType::PrivateUse1;

std::atomic<int> g_num_devices{0};
std::atomic<int64_t> g_bytes_live{0}, g_blocks_live{0}, g_blocks_total{0}, g_bytes_peak{0};
thread_local DeviceIndex t_current = 0;

// ---- allocator: host memory, counted. The block's size travels in the
// DataPtr's ctx so the deleter can give it back to the counters.
void free_block(void* ctx, void* ptr) {
  std::free(ptr);
  g_bytes_live -= (int64_t)(uintptr_t)ctx;
  g_blocks_live -= 1;
}

class NpuAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes, DeviceIndex index, c10::StreamId) override {
    TL_CHECK(index >= 0 && index < g_num_devices.load(), "npu allocator: no device ", (int)index);
    c10::DataPtr d;
    d.ptr = std::malloc(nbytes ? nbytes : 1);
    TL_CHECK(d.ptr != nullptr, "npu allocator: out of memory allocating ", nbytes, " bytes");
    d.ctx = reinterpret_cast<void*>((uintptr_t)nbytes);
    d.deleter = &free_block;
    d.device = Device(kNpu, index);
    int64_t now = (g_bytes_live += (int64_t)nbytes);
    g_blocks_live += 1;
    g_blocks_total += 1;
    int64_t peak = g_bytes_peak.load();
    while (now > peak && !g_bytes_peak.compare_exchange_weak(peak, now)) {
    }
    return d;
  }
  void copy_data(void* dst, const void* src, size_t n) const override { std::memcpy(dst, src, n); }
};

// ---- DeviceGuard: which npu is current on this thread, and how many there are.
class NpuGuard final : public c10::DeviceGuardImplInterface {
 public:
  DeviceType type() const override { return kNpu; }
  Device getDevice() const override { return Device(kNpu, t_current); }
  void setDevice(Device d) const override {
    TL_CHECK(d.type == kNpu && d.index >= 0 && d.index < g_num_devices.load(), "npu: no device ", d);
    t_current = d.index;
  }
  DeviceIndex deviceCount() const noexcept override { return (DeviceIndex)g_num_devices.load(); }
  void synchronizeDevice(DeviceIndex) const override {}  // every kernel finishes before it returns
};

// ---- copies: npu memory is host memory, so a copy in any direction is the
// CPU copy between host aliases (it broadcasts and converts dtypes).
void copy_npu(const c10::TensorBase& dst, const c10::TensorBase& src, bool) {
  at::_ops::copy_(host_alias(dst), host_alias(src), false);
}

c10::Generator make_generator(Device d) { return c10::Generator::make(d); }

NpuAllocator g_allocator;
NpuGuard g_guard;

// What install() replaced, put back by uninstall().
struct Previous {
  const c10::DeviceGuardImplInterface* guard = nullptr;
  c10::Allocator* allocator = nullptr;
  at::native::CopyKernel to_npu = nullptr, from_npu = nullptr, within = nullptr;
  c10::GeneratorFactory generators = nullptr;
  bool installed = false;
} g_previous;

}  // namespace

c10::TensorBase host_alias(const c10::TensorBase& t) {
  if (t.is_cpu()) return t;
  TL_CHECK(t.device().type == kNpu, "npu: expected an npu or cpu tensor, got one on ", t.device());
  auto impl = c10::intrusive_ptr<c10::TensorImpl>::make(t.unsafeGetTensorImpl()->storage(), t.scalar_type(),
                                                          Device(DeviceType::CPU));
  impl->set_sizes_and_strides(t.sizes(), t.strides(), t.storage_offset());
  return c10::TensorBase(std::move(impl));
}

Counters counters() { return {g_bytes_live.load(), g_blocks_live.load(), g_blocks_total.load(), g_bytes_peak.load()}; }

void install(int num_devices) {
  TL_CHECK_VALUE(num_devices >= 1 && num_devices <= 8, "npu.install: 1..8 devices, got ", num_devices);
  g_num_devices = num_devices;
  t_current = 0;
  if (g_previous.installed) return;
  g_previous.guard = c10::registerDeviceGuardImpl(&g_guard);
  g_previous.allocator = c10::setAllocator(kNpu, &g_allocator);
  g_previous.to_npu = at::native::registerCopyKernel(DeviceType::CPU, kNpu, &copy_npu);
  g_previous.from_npu = at::native::registerCopyKernel(kNpu, DeviceType::CPU, &copy_npu);
  g_previous.within = at::native::registerCopyKernel(kNpu, kNpu, &copy_npu);
  g_previous.generators = c10::registerGeneratorFactory(kNpu, &make_generator);
  install_fallback();
  g_previous.installed = true;
}

void uninstall() {
  if (!g_previous.installed) return;
  uninstall_fallback();
  if (g_previous.guard) c10::registerDeviceGuardImpl(g_previous.guard);
  else c10::deregisterDeviceGuardImpl(kNpu);
  c10::setAllocator(kNpu, g_previous.allocator);
  at::native::registerCopyKernel(DeviceType::CPU, kNpu, g_previous.to_npu);
  at::native::registerCopyKernel(kNpu, DeviceType::CPU, g_previous.from_npu);
  at::native::registerCopyKernel(kNpu, kNpu, g_previous.within);
  c10::registerGeneratorFactory(kNpu, g_previous.generators);
  g_previous = Previous();
  g_num_devices = 0;
}

}  // namespace npu
