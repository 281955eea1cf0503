// Test hooks for the device model (torchlike._C._device_testing_*). With no
// GPU on the test machines, tests/test_devices.py installs a fake PrivateUse1
// backend whose "devices" are host memory: a DeviceGuard implementation with
// N devices and a per-thread current device and stream, an allocator that
// records the device index it was asked for, copy kernels for the
// (cpu, privateuseone) pairs, and a generator factory. Everything a real
// backend registers goes through the same public registries, so the tests
// exercise device normalisation, guards, allocation, the copy registry and
// per-device generators end to end.
#include <Python.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/TensorIterator.h"
#include "aten/native/Copy.h"
#include "c10/DeviceGuard.h"

namespace tl::python {
namespace {

using c10::Device;
using c10::DeviceIndex;
using c10::DeviceType;
constexpr DeviceType kFake = DeviceType::PrivateUse1;
constexpr int kMaxFakeDevices = 8;

std::atomic<int> g_count{0};
thread_local DeviceIndex t_current = 0;
thread_local c10::StreamId t_stream[kMaxFakeDevices] = {};

std::mutex g_log_mu;
std::vector<std::string> g_log;
void log(const std::string& s) {
  std::lock_guard<std::mutex> g(g_log_mu);
  g_log.push_back(s);
}

DeviceIndex checked(Device d) {
  DeviceIndex i = d.index < 0 ? t_current : d.index;
  TL_CHECK(d.type == kFake && i >= 0 && i < g_count.load(), "fake privateuseone backend: no device ", d);
  return i;
}

class FakeGuard final : public c10::DeviceGuardImplInterface {
 public:
  DeviceType type() const override { return kFake; }
  Device getDevice() const override { return Device(kFake, t_current); }
  void setDevice(Device d) const override {
    t_current = checked(d);
    log("set_device:" + std::to_string(t_current));
  }
  DeviceIndex deviceCount() const noexcept override { return (DeviceIndex)g_count.load(); }
  void synchronizeDevice(DeviceIndex i) const override { log("synchronize:" + std::to_string(i)); }

  c10::Stream getStream(Device d) const override {
    DeviceIndex i = checked(d);
    return c10::Stream(Device(kFake, i), t_stream[i]);
  }
  c10::Stream getDefaultStream(Device d) const override { return c10::Stream(Device(kFake, checked(d)), 0); }
  c10::Stream exchangeStream(c10::Stream s) const override {
    DeviceIndex i = checked(s.device());
    c10::Stream old(Device(kFake, i), t_stream[i]);
    t_stream[i] = s.id();
    return old;
  }
  bool queryStream(const c10::Stream&) const override { return true; }
  void synchronizeStream(const c10::Stream& s) const override { log("synchronize_stream:" + std::to_string(s.id())); }

  struct FakeEvent {
    std::chrono::steady_clock::time_point at;
  };
  void recordEvent(void** handle, const c10::Stream& s, c10::EventFlag) const override {
    checked(s.device());
    if (!*handle) *handle = new FakeEvent();
    static_cast<FakeEvent*>(*handle)->at = std::chrono::steady_clock::now();
    log("record_event:" + std::to_string(s.device_index()));
  }
  void blockOnEvent(void*, const c10::Stream& s) const override { log("block:" + std::to_string(s.id())); }
  bool queryEvent(void*) const override { return true; }
  void synchronizeEvent(void*) const override {}
  double elapsedTime(void* a, void* b, DeviceIndex) const override {
    auto d = static_cast<FakeEvent*>(b)->at - static_cast<FakeEvent*>(a)->at;
    return std::chrono::duration<double, std::milli>(d).count();
  }
  void destroyEvent(void* h, DeviceIndex) const noexcept override { delete static_cast<FakeEvent*>(h); }
};

void free_fake(void*, void* p) { std::free(p); }

class FakeAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes, DeviceIndex index, c10::StreamId stream) override {
    TL_CHECK(index >= 0 && index < g_count.load(), "fake allocator: bad device index ", (int)index);
    log("allocate:" + std::to_string(index) + ":stream" + std::to_string(stream));
    c10::DataPtr d;
    d.ptr = std::malloc(nbytes ? nbytes : 1);
    TL_CHECK(d.ptr, "fake allocator: out of memory");
    d.deleter = &free_fake;
    d.device = Device(kFake, index);
    return d;
  }
};

// A CPU tensor over the same (host) bytes, so the fake copy can reuse the
// CPU copy loop.
c10::TensorBase host_alias(const c10::TensorBase& t) {
  if (t.is_cpu()) return t;
  auto impl = c10::intrusive_ptr<c10::TensorImpl>::make(t.unsafeGetTensorImpl()->storage(), t.scalar_type(),
                                                          Device(DeviceType::CPU));
  impl->set_sizes_and_strides(t.sizes(), t.strides(), t.storage_offset());
  return c10::TensorBase(std::move(impl));
}

void fake_copy(const c10::TensorBase& dst, const c10::TensorBase& src, bool non_blocking) {
  TL_CHECK(src.sizes().equals(dst.sizes()), "fake copy: the registry must pass equal sizes");
  log("copy:" + src.device().str() + "->" + dst.device().str() + (non_blocking ? ":non_blocking" : ""));
  at::native::copy_into(host_alias(dst), host_alias(src));
}

c10::Generator make_fake_generator(Device d) { return c10::Generator::make(d); }

FakeGuard g_guard;
FakeAllocator g_allocator;

PyObject* t_install(PyObject*, PyObject* n) {
  TL_PY_BEGIN
  long count = PyLong_AsLong(n);
  if (count == -1 && PyErr_Occurred()) return nullptr;
  TL_CHECK_VALUE(count >= 0 && count <= kMaxFakeDevices, "install: 0..", kMaxFakeDevices, " devices");
  g_count = (int)count;
  t_current = 0;
  c10::registerDeviceGuardImpl(&g_guard);
  c10::setAllocator(kFake, &g_allocator);
  at::native::registerCopyKernel(DeviceType::CPU, kFake, &fake_copy);
  at::native::registerCopyKernel(kFake, DeviceType::CPU, &fake_copy);
  at::native::registerCopyKernel(kFake, kFake, &fake_copy);
  c10::registerGeneratorFactory(kFake, &make_fake_generator);
  Py_RETURN_NONE;
  TL_PY_END
}

// Removes every registration the fake backend made.
PyObject* t_uninstall(PyObject*, PyObject*) {
  TL_PY_BEGIN
  c10::deregisterDeviceGuardImpl(kFake);
  c10::setAllocator(kFake, nullptr);
  at::native::registerCopyKernel(DeviceType::CPU, kFake, nullptr);
  at::native::registerCopyKernel(kFake, DeviceType::CPU, nullptr);
  at::native::registerCopyKernel(kFake, kFake, nullptr);
  c10::registerGeneratorFactory(kFake, nullptr);
  g_count = 0;
  Py_RETURN_NONE;
  TL_PY_END
}

// _device_testing_unregister_copy(src_type, dst_type)
PyObject* t_unregister_copy(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *s, *d;
  if (!PyArg_ParseTuple(args, "ss", &s, &d)) return nullptr;
  at::native::registerCopyKernel(c10::parseDeviceType(s), c10::parseDeviceType(d), nullptr);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_log(PyObject*, PyObject*) {
  std::vector<std::string> v;
  {
    std::lock_guard<std::mutex> g(g_log_mu);
    v.swap(g_log);
  }
  PyObject* l = PyList_New((Py_ssize_t)v.size());
  for (size_t i = 0; i < v.size(); ++i) PyList_SET_ITEM(l, i, PyUnicode_FromString(v[i].c_str()));
  return l;
}

// _device_testing_empty(n, device): a float tensor of n elements made by
// c10::make_empty on `device` (the fake backend has no operator kernels).
PyObject* t_empty(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long n;
  PyObject* dev;
  if (!PyArg_ParseTuple(args, "LO", &n, &dev)) return nullptr;
  return wrap_tensor(c10::make_empty({(int64_t)n}, c10::TensorOptions(c10::ScalarType::Float, parse_device(dev))));
  TL_PY_END
}

// _device_testing_guard(device) -> (current before, inside a DeviceGuard, after), as indices.
PyObject* t_guard(PyObject*, PyObject* dev) {
  TL_PY_BEGIN
  Device d = parse_device(dev);
  const c10::DeviceGuardImplInterface* impl = c10::getDeviceGuardImpl(d.type);
  int before = impl->getDevice().index, inside;
  {
    c10::DeviceGuard g(d);
    inside = impl->getDevice().index;
  }
  int after = impl->getDevice().index;
  return Py_BuildValue("(iii)", before, inside, after);
  TL_PY_END
}

// _device_testing_stream_guard(device, stream_id) -> (id before, inside, after)
PyObject* t_stream_guard(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* dev;
  long long id;
  if (!PyArg_ParseTuple(args, "OL", &dev, &id)) return nullptr;
  Device d = c10::tensorDevice(parse_device(dev));
  long long before = c10::getCurrentStream(d).id(), inside;
  {
    c10::StreamGuard g(c10::Stream(d, id));
    inside = c10::getCurrentStream(d).id();
  }
  long long after = c10::getCurrentStream(d).id();
  return Py_BuildValue("(LLL)", before, inside, after);
  TL_PY_END
}

// _device_testing_iter(a, b) -> (iterator device, [is_cpu_scalar per input],
// value of the first CPU-scalar input as float or None): builds the
// TensorIterator that a binary op would, without running a loop.
PyObject* t_iter(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO", &a, &b)) return nullptr;
  TL_CHECK_TYPE(is_tensor(a) && is_tensor(b), "expected two tensors");
  at::TensorIterator it =
      at::TensorIteratorConfig("_device_testing_iter").add_output(c10::TensorBase()).add_input(unpack(a)).add_input(unpack(b)).build();
  PyObject* flags = PyList_New(2);
  PyObject* value = Py_None;
  Py_INCREF(value);
  for (int k = 0; k < 2; ++k) {
    bool s = it.is_cpu_scalar(1 + k);
    PyList_SET_ITEM(flags, k, PyBool_FromLong(s));
    if (s && value == Py_None && it.dtype(1 + k) == c10::ScalarType::Float) {
      Py_DECREF(value);
      value = PyFloat_FromDouble(it.cpu_scalar_value<float>(1 + k));
    }
  }
  return Py_BuildValue("(NNNN)", device_object(it.device()), flags, value, wrap_tensor(it.output(0)));
  TL_PY_END
}

// _device_testing_registry_race(iterations) -> calls made by the readers.
// One thread swaps the fake backend's guard, allocator, copy kernel and
// generator factory between two sets of registrations while two threads look
// them up and call them. Registrations are never freed, so every pointer a
// reader loaded stays valid; the test checks nothing tears or crashes (run it
// under ThreadSanitizer to check the publishing itself).
FakeGuard g_guard2;
FakeAllocator g_allocator2;
void fake_copy2(const c10::TensorBase& dst, const c10::TensorBase& src, bool nb) { fake_copy(dst, src, nb); }

PyObject* t_registry_race(PyObject*, PyObject* n) {
  TL_PY_BEGIN
  long iters = PyLong_AsLong(n);
  if (iters == -1 && PyErr_Occurred()) return nullptr;
  TL_CHECK(g_count.load() > 0, "install the fake backend first");
  std::atomic<bool> stop{false};
  std::atomic<long> calls{0};
  std::atomic<int> failures{0};
  Py_BEGIN_ALLOW_THREADS
  auto reader = [&] {
    c10::TensorBase src = c10::make_empty({4}, c10::TensorOptions(c10::ScalarType::Float, Device(DeviceType::CPU)));
    while (!stop.load()) {
      try {
        const c10::DeviceGuardImplInterface* impl = c10::getDeviceGuardImpl(kFake);
        if (impl->deviceCount() != g_count.load()) failures++;
        c10::TensorBase t = c10::make_empty({4}, c10::TensorOptions(c10::ScalarType::Float, Device(kFake, 0)));
        at::native::copy_across_devices(t, src, false);
        if (c10::defaultGenerator(Device(kFake, 0))->device() != Device(kFake, 0)) failures++;
        calls++;
      } catch (...) {
        failures++;
      }
    }
  };
  std::thread r1(reader), r2(reader);
  // Keep swapping until the readers have made enough calls to overlap it.
  for (long i = 0; i < iters || calls.load() < 200; ++i) {
    bool odd = i & 1;
    c10::registerDeviceGuardImpl(odd ? &g_guard2 : &g_guard);
    c10::setAllocator(kFake, odd ? &g_allocator2 : &g_allocator);
    at::native::registerCopyKernel(DeviceType::CPU, kFake, odd ? &fake_copy2 : &fake_copy);
  }
  stop = true;
  r1.join();
  r2.join();
  c10::registerDeviceGuardImpl(&g_guard);
  c10::setAllocator(kFake, &g_allocator);
  at::native::registerCopyKernel(DeviceType::CPU, kFake, &fake_copy);
  Py_END_ALLOW_THREADS
  {
    std::lock_guard<std::mutex> g(g_log_mu);
    g_log.clear();
  }
  TL_CHECK(failures.load() == 0, "registry race: ", failures.load(), " failed lookups or calls");
  return PyLong_FromLong(calls.load());
  TL_PY_END
}

PyMethodDef g_methods[] = {
    {"_device_testing_registry_race", t_registry_race, METH_O, nullptr},
    {"_device_testing_install_fake_privateuse1", t_install, METH_O, nullptr},
    {"_device_testing_uninstall_fake_privateuse1", t_uninstall, METH_NOARGS, nullptr},
    {"_device_testing_unregister_copy", t_unregister_copy, METH_VARARGS, nullptr},
    {"_device_testing_log", t_log, METH_NOARGS, nullptr},
    {"_device_testing_empty", t_empty, METH_VARARGS, nullptr},
    {"_device_testing_guard", t_guard, METH_O, nullptr},
    {"_device_testing_stream_guard", t_stream_guard, METH_VARARGS, nullptr},
    {"_device_testing_iter", t_iter, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_device_testing(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
