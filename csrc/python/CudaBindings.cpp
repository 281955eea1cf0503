// torchlike._C bindings of the CUDA runtime that the generic device
// bindings (Devices.cpp) do not cover: pinned host memory (Tensor.pin_memory,
// is_pinned), pooled and external streams, and the backend's build/driver
// status. Everything goes through c10::cuda::getCUDAHooks(), so this file
// (part of _C) never includes a CUDA header; in a build without the CUDA
// library the "not built" hooks answer.
#include <Python.h>

#include <string>
#include <utility>
#include <vector>
#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/native/Copy.h"
#include "c10/Storage.h"
#include "c10/TensorImpl.h"
#include "c10/cuda/CUDAHooks.h"

namespace tl::python {
namespace {

using c10::Device;
using c10::DeviceType;

PyObject* stream_tuple(const c10::Stream& s) {
  return Py_BuildValue("(iL)", (int)s.device_index(), (long long)s.id());
}

// _cuda_backend_status() -> dict: is_built, unavailable_reason, runtime_version,
// driver_version, arch_list.
PyObject* t_status(PyObject*, PyObject*) {
  TL_PY_BEGIN
  const auto& h = c10::cuda::getCUDAHooks();
  std::vector<std::string> archs = h.archList();
  PyObject* arch_list = PyList_New((Py_ssize_t)archs.size());
  if (!arch_list) return nullptr;
  for (size_t i = 0; i < archs.size(); ++i) PyList_SET_ITEM(arch_list, i, PyUnicode_FromString(archs[i].c_str()));
  return Py_BuildValue("{s:O,s:s,s:s,s:i,s:N}", "is_built", h.isBuilt() ? Py_True : Py_False, "unavailable_reason",
                       h.unavailableReason().c_str(), "runtime_version", h.runtimeVersion().c_str(),
                       "driver_version", h.driverVersion(), "arch_list", arch_list);
  TL_PY_END
}

// _cuda_is_pinned(tensor) -> bool
PyObject* t_is_pinned(PyObject*, PyObject* o) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(o), "is_pinned: expected a Tensor, got ", Py_TYPE(o)->tp_name);
  const c10::TensorBase& t = unpack(o);
  if (!t.is_cpu() || t.data_ptr() == nullptr) Py_RETURN_FALSE;
  return PyBool_FromLong(c10::cuda::getCUDAHooks().isPinned(t.data_ptr()));
  TL_PY_END
}

// _cuda_pin_memory(tensor) -> a contiguous copy in pinned host memory (the
// tensor itself when it already is pinned).
PyObject* t_pin_memory(PyObject*, PyObject* o) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(o), "pin_memory: expected a Tensor, got ", Py_TYPE(o)->tp_name);
  const c10::TensorBase& t = unpack(o);
  TL_CHECK(t.is_cpu(), "cannot pin '", t.device(), "' memory: only dense CPU tensors can be pinned");
  const auto& hooks = c10::cuda::getCUDAHooks();
  if (t.data_ptr() != nullptr && hooks.isPinned(t.data_ptr())) {
    Py_INCREF(o);
    return o;
  }
  const size_t nbytes = t.nbytes();
  c10::DataPtr block = hooks.allocatePinned(nbytes);
  auto storage = c10::Storage::make(block, nbytes);
  auto impl = c10::intrusive_ptr<c10::TensorImpl>::make(std::move(storage), t.scalar_type(), Device(DeviceType::CPU));
  impl->set_sizes_contiguous(t.sizes());
  c10::TensorBase out(std::move(impl));
  at::native::copy_into(out, t);
  return wrap_tensor(out);
  TL_PY_END
}

// _cuda_host_empty_cache() (the host statistics are CudaHooksBindings.cpp's)
PyObject* t_host_empty_cache(PyObject*, PyObject*) {
  TL_PY_BEGIN
  c10::cuda::getCUDAHooks().emptyPinnedCache();
  Py_RETURN_NONE;
  TL_PY_END
}

// _cuda_stream_from_pool(high_priority: bool, device_index: int) -> (device_index, stream_id)
PyObject* t_stream_from_pool(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  int high = 0, index = -1;
  if (!PyArg_ParseTuple(args, "pi", &high, &index)) return nullptr;
  return stream_tuple(c10::cuda::getCUDAHooks().streamFromPool(high != 0, (c10::DeviceIndex)index));
  TL_PY_END
}

// _cuda_external_stream(handle: int, device_index: int) -> (device_index, stream_id)
PyObject* t_external_stream(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  unsigned long long handle = 0;
  int index = -1;
  if (!PyArg_ParseTuple(args, "Ki", &handle, &index)) return nullptr;
  return stream_tuple(c10::cuda::getCUDAHooks().externalStream((uintptr_t)handle, (c10::DeviceIndex)index));
  TL_PY_END
}

c10::Stream stream_from_args(PyObject* args) {
  int index = -1;
  long long id = 0;
  if (!PyArg_ParseTuple(args, "iL", &index, &id)) throw python_error_set();
  return c10::Stream(Device(DeviceType::CUDA, (c10::DeviceIndex)index), id);
}

// _cuda_stream_handle(device_index, stream_id) -> int (the cudaStream_t)
PyObject* t_stream_handle(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  return PyLong_FromUnsignedLongLong(c10::cuda::getCUDAHooks().streamHandle(stream_from_args(args)));
  TL_PY_END
}

// _cuda_stream_priority(device_index, stream_id) -> int
PyObject* t_stream_priority(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  return PyLong_FromLong(c10::cuda::getCUDAHooks().streamPriority(stream_from_args(args)));
  TL_PY_END
}

// _cuda_stream_priority_range() -> (least, greatest)
PyObject* t_priority_range(PyObject*, PyObject*) {
  TL_PY_BEGIN
  auto r = c10::cuda::getCUDAHooks().streamPriorityRange();
  return Py_BuildValue("(ii)", r.first, r.second);
  TL_PY_END
}

// _cuda_record_stream(tensor, device_index, stream_id)
PyObject* t_record_stream(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* o;
  int index = -1;
  long long id = 0;
  if (!PyArg_ParseTuple(args, "OiL", &o, &index, &id)) return nullptr;
  TL_CHECK_TYPE(is_tensor(o), "record_stream: expected a Tensor, got ", Py_TYPE(o)->tp_name);
  const c10::TensorBase& t = unpack(o);
  TL_CHECK(t.device().type == DeviceType::CUDA, "record_stream: expected a CUDA tensor, got one on ", t.device());
  // The caching allocator knows blocks by their start: the storage's pointer.
  void* base = t.unsafeGetTensorImpl()->storage()->data.ptr;
  c10::cuda::getCUDAHooks().recordStream(base, c10::Stream(Device(DeviceType::CUDA, (c10::DeviceIndex)index), id));
  Py_RETURN_NONE;
  TL_PY_END
}



PyMethodDef g_methods[] = {
    {"_cuda_backend_status", t_status, METH_NOARGS, nullptr},
    {"_cuda_is_pinned", t_is_pinned, METH_O, nullptr},
    {"_cuda_pin_memory", t_pin_memory, METH_O, nullptr},
    {"_cuda_host_empty_cache", t_host_empty_cache, METH_NOARGS, nullptr},
    {"_cuda_stream_from_pool", t_stream_from_pool, METH_VARARGS, nullptr},
    {"_cuda_external_stream", t_external_stream, METH_VARARGS, nullptr},
    {"_cuda_stream_handle", t_stream_handle, METH_VARARGS, nullptr},
    {"_cuda_stream_priority", t_stream_priority, METH_VARARGS, nullptr},
    {"_cuda_stream_priority_range", t_priority_range, METH_NOARGS, nullptr},
    {"_cuda_record_stream", t_record_stream, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_cuda_bindings(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
