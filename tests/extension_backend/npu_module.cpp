// The npu backend's Python module: install/uninstall the device runtime, the
// device queries torchlike.npu answers (once registered with
// torchlike._register_device_module), and the allocator's counters.
#include <torchlike/extension.h>

#include "c10/DeviceGuard.h"
#include "npu.h"

namespace {
int device_count() { return c10::deviceCount(c10::DeviceType::PrivateUse1); }
int current_device() { return c10::currentDevice(c10::DeviceType::PrivateUse1).index; }
void set_device(int index) {
  c10::getDeviceGuardImpl(c10::DeviceType::PrivateUse1)->setDevice(c10::Device(c10::DeviceType::PrivateUse1,
                                                                               (c10::DeviceIndex)index));
}
}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "npu: a PrivateUse1 test backend over host memory";
  m.def("install", &npu::install, pybind11::arg("num_devices") = 2);
  m.def("uninstall", &npu::uninstall);
  m.def("is_available", [] { return device_count() > 0; });
  m.def("device_count", &device_count);
  m.def("current_device", &current_device);
  m.def("set_device", &set_device);
  m.def("memory_allocated", [] { return npu::counters().bytes_live; }, "bytes held by live npu blocks");
  m.def("live_blocks", [] { return npu::counters().blocks_live; });
  m.def("total_blocks", [] { return npu::counters().blocks_total; });
  m.def("max_memory_allocated", [] { return npu::counters().bytes_peak; });
  m.def("fallback_calls", &npu::fallback_calls);
  m.def("native_calls", &npu::native_calls);
}
