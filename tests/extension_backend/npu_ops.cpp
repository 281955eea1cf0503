// The npu backend's operator kernels, registered with the library macros on
// the PrivateUse1 key. A handful run natively: the factories (so tensors are
// made by the npu allocator), the view ops (geometry over npu storage),
// fill_ and add.Tensor; every other operator reaches the CPU kernels through
// the CPU fallback (aten/native/CpuFallback.h, at the end of this file),
// which copies the arguments to the CPU, runs the op there and copies the
// results back. Autograd and autocast need nothing here: their kernels are
// registered for every backend.
#include <atomic>
#include <memory>
#include <optional>

#include "aten/native/CpuFallback.h"
#include "c10/Library.h"
#include "npu.h"
#include "ops/add.h"
#include "ops/as_strided.h"
#include "ops/copy.h"
#include "ops/empty_strided.h"
#include "ops/fill.h"
#include "ops/view.h"

namespace npu {
namespace {

using at::IntArrayRef;
using at::TensorBase;
using c10::Device;

std::atomic<int64_t> g_fallback_calls{0}, g_native_calls{0};

Device npu_device(std::optional<Device> device) {
  // The dispatcher reached this kernel because the device names the backend.
  return device.value_or(Device(c10::DeviceType::PrivateUse1));
}

TensorBase empty_npu(IntArrayRef size, std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                     std::optional<Device> device, std::optional<bool> pin_memory,
                     std::optional<at::MemoryFormat> memory_format) {
  (void)pin_memory;
  (void)memory_format;  // every npu tensor is made contiguous
  TL_CHECK(!layout || *layout == at::Layout::Strided, "npu: only strided tensors are supported");
  count_native_call();
  return c10::make_empty(size, c10::TensorOptions(dtype.value_or(c10::defaultFloatType()), npu_device(device)));
}

TensorBase empty_strided_npu(IntArrayRef size, IntArrayRef stride, std::optional<at::ScalarType> dtype,
                             std::optional<at::Layout> layout, std::optional<Device> device,
                             std::optional<bool> pin_memory) {
  (void)pin_memory;
  TL_CHECK(!layout || *layout == at::Layout::Strided, "npu: only strided tensors are supported");
  count_native_call();
  return c10::make_empty_strided(size, stride,
                                 c10::TensorOptions(dtype.value_or(c10::defaultFloatType()), npu_device(device)));
}

// Views only change geometry over the same storage; the shared
// implementations check sizes, strides and bounds the same way for any device.
TensorBase as_strided_npu(const TensorBase& self, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) {
  count_native_call();
  return at::native::as_strided(self, size, stride, storage_offset);
}

TensorBase view_npu(const TensorBase& self, IntArrayRef size) {
  count_native_call();
  return at::native::view(self, size);
}

// In-place kernels bump the version counter themselves (autograd's saved
// tensors check it); the host alias has a counter of its own.
TensorBase fill_npu(const TensorBase& self, const at::Scalar& value) {
  count_native_call();
  at::_ops::fill_(host_alias(self), value);
  self.bump_version();
  return self;
}

// A native elementwise op: the CPU kernel over host aliases, result made by
// the npu allocator. Mixed devices are refused as every backend refuses them.
TensorBase add_npu(const TensorBase& self, const TensorBase& other, const at::Scalar& alpha) {
  bool other_is_scalar = other.is_cpu() && other.dim() == 0;
  TL_CHECK(self.device() == other.device() || other_is_scalar,
           "Expected all tensors to be on the same device, but found at least two devices, ", self.device(), " and ",
           other.device(), "! (when checking arguments for aten::add.Tensor)");
  count_native_call();
  TensorBase cpu = at::_ops::add(host_alias(self), host_alias(other), alpha);
  TensorBase out = c10::make_empty_strided(cpu.sizes(), cpu.strides(), cpu.options().with_device(self.device()));
  at::_ops::copy_(host_alias(out), cpu, false);
  return out;
}

// The CPU fallback, counted so the tests can tell which path an op took.
void counting_fallback(void*, const c10::OperatorEntry& op, c10::DispatchKeySet, c10::Stack* stack) {
  g_fallback_calls += 1;
  at::native::cpuFallback(op, stack);
}

}  // namespace

int64_t fallback_calls() { return g_fallback_calls.load(); }
int64_t native_calls() { return g_native_calls.load(); }
void count_native_call() { g_native_calls += 1; }

}  // namespace npu

TL_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TL_KERNEL(npu::empty_npu));
  m.impl("empty_strided", TL_KERNEL(npu::empty_strided_npu));
  m.impl("as_strided", TL_KERNEL(npu::as_strided_npu));
  m.impl("view", TL_KERNEL(npu::view_npu));
  m.impl("fill_.Scalar", TL_KERNEL(npu::fill_npu));
  m.impl("add.Tensor", TL_KERNEL(npu::add_npu));
}

// Everything else runs on the CPU and is copied back. The fallback is
// registered by install() and removed by uninstall() (a Library object
// undoes its registrations when destroyed), so a process that uninstalls the
// backend is left as it was: the tests share their process with others that
// install a PrivateUse1 backend of their own. A backend that stays for the
// process's lifetime writes it with the macro instead:
//
//   TL_LIBRARY_IMPL(_, PrivateUse1, m) { at::native::registerCpuFallback(m); }
namespace npu {
namespace {
std::unique_ptr<c10::Library> g_fallback;
}  // namespace

void install_fallback() {
  if (g_fallback) return;
  g_fallback = std::make_unique<c10::Library>("_", c10::DispatchKey::PrivateUse1);
  g_fallback->fallback(c10::KernelFunction::makeFromBoxed(&counting_fallback, nullptr, nullptr, "npu CPU fallback"));
}

void uninstall_fallback() { g_fallback.reset(); }

}  // namespace npu
