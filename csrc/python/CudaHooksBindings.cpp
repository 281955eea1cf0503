// torchlike._C._cuda_* (what torchlike.cuda asks the CUDA backend through
// c10::cuda::getCUDAHooks(), so _C never links to CUDA) and _C._global_*
// (the numerical flags in c10::GlobalContext that kernels read). Also
// installs the C++ warning sink that turns c10::warn into Python warnings.
#include <Python.h>

#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include "PythonArgParser.h"
#include "c10/Allocator.h"
#include "c10/Device.h"
#include "c10/GlobalContext.h"
#include "c10/cuda/CUDAHooks.h"

namespace tl::python {
namespace {

const c10::cuda::CUDAHooksInterface& hooks() { return c10::cuda::getCUDAHooks(); }

PyObject* pairs_to_dict(const std::vector<std::pair<std::string, int64_t>>& kv) {
  PyObject* d = PyDict_New();
  if (!d) return nullptr;
  for (const auto& [k, v] : kv) {
    PyObject* val = PyLong_FromLongLong(v);
    if (!val || PyDict_SetItemString(d, k.c_str(), val) < 0) {
      Py_XDECREF(val);
      Py_DECREF(d);
      return nullptr;
    }
    Py_DECREF(val);
  }
  return d;
}

c10::DeviceIndex index_arg(PyObject* o) {
  long v = PyLong_AsLong(o);
  if (v == -1 && PyErr_Occurred()) throw python_error_set();
  return (c10::DeviceIndex)v;
}

PyObject* c_is_built(PyObject*, PyObject*) { return PyBool_FromLong(hooks().isBuilt()); }

PyObject* c_unavailable_reason(PyObject*, PyObject*) {
  TL_PY_BEGIN
  return PyUnicode_FromString(hooks().unavailableReason().c_str());
  TL_PY_END
}

PyObject* c_versions(PyObject*, PyObject*) {
  TL_PY_BEGIN
  std::string rt = hooks().runtimeVersion();
  PyObject* runtime = rt.empty() ? (Py_INCREF(Py_None), Py_None) : PyUnicode_FromString(rt.c_str());
  return Py_BuildValue("(Ni)", runtime, hooks().driverVersion());
  TL_PY_END
}

PyObject* c_arch_list(PyObject*, PyObject*) {
  TL_PY_BEGIN
  std::vector<std::string> archs = hooks().archList();
  PyObject* l = PyList_New((Py_ssize_t)archs.size());
  if (!l) return nullptr;
  for (size_t i = 0; i < archs.size(); ++i) PyList_SET_ITEM(l, (Py_ssize_t)i, PyUnicode_FromString(archs[i].c_str()));
  return l;
  TL_PY_END
}

PyObject* c_device_properties(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  c10::cuda::DeviceProperties p = hooks().deviceProperties(index_arg(arg));
  return Py_BuildValue(
      "{s:s,s:i,s:i,s:L,s:i,s:i,s:i,s:i,s:i,s:i,s:L,s:L,s:L,s:L,s:i,s:i,s:i,s:s,s:i,s:i,s:i}", "name",
      p.name.c_str(), "major", p.major, "minor", p.minor, "total_memory", (long long)p.total_memory,
      "multi_processor_count", p.multi_processor_count, "is_integrated", p.is_integrated, "is_multi_gpu_board",
      p.is_multi_gpu_board, "max_threads_per_multi_processor", p.max_threads_per_multi_processor, "warp_size",
      p.warp_size, "regs_per_multiprocessor", p.regs_per_multiprocessor, "shared_memory_per_block",
      (long long)p.shared_memory_per_block, "shared_memory_per_block_optin", (long long)p.shared_memory_per_block_optin,
      "shared_memory_per_multiprocessor", (long long)p.shared_memory_per_multiprocessor, "L2_cache_size",
      (long long)p.L2_cache_size, "pci_bus_id", p.pci_bus_id, "pci_device_id", p.pci_device_id, "pci_domain_id",
      p.pci_domain_id, "uuid", p.uuid.c_str(), "clock_rate", p.clock_rate, "memory_clock_rate", p.memory_clock_rate,
      "memory_bus_width", p.memory_bus_width);
  TL_PY_END
}

PyObject* c_mem_get_info(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  auto [free_b, total_b] = hooks().memGetInfo(index_arg(arg));
  return Py_BuildValue("(KK)", (unsigned long long)free_b, (unsigned long long)total_b);
  TL_PY_END
}

PyObject* c_memory_stats(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  return pairs_to_dict(hooks().memoryStats(index_arg(arg)));
  TL_PY_END
}

PyObject* c_reset_peak(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  hooks().resetPeakMemoryStats(index_arg(arg));
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_reset_accumulated(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  hooks().resetAccumulatedMemoryStats(index_arg(arg));
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_memory_summary(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  int index = 0, abbreviated = 0;
  if (!PyArg_ParseTuple(args, "ip", &index, &abbreviated)) return nullptr;
  return PyUnicode_FromString(hooks().memorySummary((c10::DeviceIndex)index, abbreviated != 0).c_str());
  TL_PY_END
}

PyObject* c_memory_snapshot(PyObject*, PyObject*) {
  TL_PY_BEGIN
  std::vector<c10::cuda::SegmentSnapshot> segs = hooks().memorySnapshot();
  PyObject* out = PyList_New(0);
  if (!out) return nullptr;
  for (const auto& s : segs) {
    PyObject* blocks = PyList_New(0);
    if (!blocks) {
      Py_DECREF(out);
      return nullptr;
    }
    for (const auto& b : s.blocks) {
      PyObject* bd = Py_BuildValue("{s:K,s:L,s:L,s:s}", "address", (unsigned long long)b.address, "size",
                                   (long long)b.size, "requested_size", (long long)b.requested_size, "state",
                                   b.allocated ? "active_allocated" : "inactive");
      if (!bd || PyList_Append(blocks, bd) < 0) {
        Py_XDECREF(bd);
        Py_DECREF(blocks);
        Py_DECREF(out);
        return nullptr;
      }
      Py_DECREF(bd);
    }
    PyObject* sd = Py_BuildValue("{s:i,s:K,s:L,s:L,s:L,s:L,s:L,s:s,s:N}", "device", s.device, "address",
                                 (unsigned long long)s.address, "total_size", (long long)s.total_size,
                                 "allocated_size", (long long)s.allocated_size, "active_size", (long long)s.active_size,
                                 "requested_size", (long long)s.requested_size, "stream", (long long)s.stream,
                                 "segment_type", s.small_pool ? "small" : "large", "blocks", blocks);
    if (!sd || PyList_Append(out, sd) < 0) {
      Py_XDECREF(sd);
      Py_DECREF(out);
      return nullptr;
    }
    Py_DECREF(sd);
  }
  return out;
  TL_PY_END
}

PyObject* c_empty_cache(PyObject*, PyObject*) {
  TL_PY_BEGIN
  hooks().emptyCache();
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_set_memory_fraction(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  double fraction = 0;
  int index = 0;
  if (!PyArg_ParseTuple(args, "di", &fraction, &index)) return nullptr;
  hooks().setMemoryFraction(fraction, (c10::DeviceIndex)index);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_get_memory_fraction(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  return PyFloat_FromDouble(hooks().memoryFraction(index_arg(arg)));
  TL_PY_END
}

PyObject* c_host_memory_stats(PyObject*, PyObject*) {
  TL_PY_BEGIN
  return pairs_to_dict(hooks().hostMemoryStats());
  TL_PY_END
}

PyObject* c_reset_peak_host(PyObject*, PyObject*) {
  TL_PY_BEGIN
  hooks().resetPeakHostMemoryStats();
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_reset_accumulated_host(PyObject*, PyObject*) {
  TL_PY_BEGIN
  hooks().resetAccumulatedHostMemoryStats();
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_get_sync_debug_mode(PyObject*, PyObject*) {
  TL_PY_BEGIN
  return PyLong_FromLong(hooks().syncDebugMode());
  TL_PY_END
}

PyObject* c_set_sync_debug_mode(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  hooks().setSyncDebugMode((int)index_arg(arg));
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_set_caching_enabled(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  int b = PyObject_IsTrue(arg);
  if (b < 0) return nullptr;
  hooks().setCachingEnabled(b != 0);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_can_device_access_peer(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  int d = 0, p = 0;
  if (!PyArg_ParseTuple(args, "ii", &d, &p)) return nullptr;
  return PyBool_FromLong(hooks().canDeviceAccessPeer((c10::DeviceIndex)d, (c10::DeviceIndex)p));
  TL_PY_END
}

// ---- raw allocations from a device type's allocator (torch.cuda.caching_allocator_alloc/delete):
// each DataPtr is kept here, by address, until _raw_delete gives it back.
std::mutex g_raw_mu;
std::unordered_map<uintptr_t, c10::DataPtr> g_raw;

PyObject* c_raw_alloc(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* type = nullptr;
  unsigned long long size = 0;
  int index = 0;
  long long stream = 0;
  if (!PyArg_ParseTuple(args, "sKiL", &type, &size, &index, &stream)) return nullptr;
  c10::DeviceType t = c10::Device(std::string(type)).type;
  c10::DataPtr p = c10::getAllocator(t)->allocate((size_t)size, (c10::DeviceIndex)index, (c10::StreamId)stream);
  uintptr_t addr = reinterpret_cast<uintptr_t>(p.ptr);
  if (addr == 0) {
    p.release();
    return PyLong_FromLong(0);
  }
  std::lock_guard<std::mutex> g(g_raw_mu);
  g_raw[addr] = p;
  return PyLong_FromUnsignedLongLong(addr);
  TL_PY_END
}

PyObject* c_raw_delete(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  unsigned long long addr = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return nullptr;
  if (addr == 0) Py_RETURN_NONE;
  c10::DataPtr p;
  {
    std::lock_guard<std::mutex> g(g_raw_mu);
    auto it = g_raw.find((uintptr_t)addr);
    TL_CHECK_VALUE(it != g_raw.end(), "caching_allocator_delete: ", (void*)(uintptr_t)addr,
                   " was not allocated by caching_allocator_alloc (or was already freed)");
    p = it->second;
    g_raw.erase(it);
  }
  p.release();
  Py_RETURN_NONE;
  TL_PY_END
}

// ---- c10::GlobalContext: _C._global_set(name, value) / _C._global_get(name)

std::atomic<bool>* bool_flag(const std::string& name) {
  c10::GlobalContext& g = c10::globalContext();
  if (name == "deterministic") return &g.deterministic;
  if (name == "deterministic_warn_only") return &g.deterministic_warn_only;
  if (name == "allow_fp16_reduced_precision_reduction") return &g.allow_fp16_reduced_precision_reduction;
  if (name == "allow_bf16_reduced_precision_reduction") return &g.allow_bf16_reduced_precision_reduction;
  if (name == "cudnn_enabled") return &g.cudnn_enabled;
  if (name == "cudnn_benchmark") return &g.cudnn_benchmark;
  if (name == "cudnn_deterministic") return &g.cudnn_deterministic;
  if (name == "cudnn_allow_tf32") return &g.cudnn_allow_tf32;
  if (name == "sdp_flash") return &g.sdp_flash;
  if (name == "sdp_mem_efficient") return &g.sdp_mem_efficient;
  if (name == "sdp_math") return &g.sdp_math;
  if (name == "sdp_cudnn") return &g.sdp_cudnn;
  return nullptr;
}

PyObject* c_global_set(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* name = nullptr;
  PyObject* value = nullptr;
  if (!PyArg_ParseTuple(args, "sO", &name, &value)) return nullptr;
  std::string n(name);
  if (n == "float32_matmul_precision") {
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) return nullptr;
    TL_CHECK_VALUE(v >= 0 && v <= 2, "float32_matmul_precision must be 0, 1 or 2");
    c10::globalContext().float32_matmul_precision.store((c10::Float32MatmulPrecision)v);
    Py_RETURN_NONE;
  }
  std::atomic<bool>* slot = bool_flag(n);
  TL_CHECK_VALUE(slot != nullptr, "_global_set: unknown flag ", n);
  int b = PyObject_IsTrue(value);
  if (b < 0) return nullptr;
  slot->store(b != 0);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* c_global_get(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  const char* name = PyUnicode_AsUTF8(arg);
  if (!name) return nullptr;
  std::string n(name);
  if (n == "float32_matmul_precision") return PyLong_FromLong((long)c10::globalContext().float32_matmul_precision.load());
  std::atomic<bool>* slot = bool_flag(n);
  TL_CHECK_VALUE(slot != nullptr, "_global_get: unknown flag ", n);
  return PyBool_FromLong(slot->load());
  TL_PY_END
}

// _global_alert_not_deterministic(op): what a kernel with only a
// nondeterministic implementation calls (for tests of the setting's effect).
PyObject* c_alert_not_deterministic(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  const char* op = PyUnicode_AsUTF8(arg);
  if (!op) return nullptr;
  c10::alertNotDeterministic(op);
  if (PyErr_Occurred()) return nullptr;  // a warning the filters turned into an error
  Py_RETURN_NONE;
  TL_PY_END
}

// c10::warn from any thread: a Python UserWarning (under the GIL).
void python_warning_handler(const char* message) {
  PyGILState_STATE st = PyGILState_Ensure();
  if (PyErr_WarnEx(PyExc_UserWarning, message, 1) < 0) {
    // The filters made it an error. A binding on this thread that checks
    // PyErr_Occurred() raises it; anywhere else it is reported and cleared.
    if (st == PyGILState_UNLOCKED) PyErr_WriteUnraisable(nullptr);
  }
  PyGILState_Release(st);
}

PyMethodDef g_methods[] = {
    {"_cuda_is_built", c_is_built, METH_NOARGS, nullptr},
    {"_cuda_unavailable_reason", c_unavailable_reason, METH_NOARGS, nullptr},
    {"_cuda_versions", c_versions, METH_NOARGS, nullptr},
    {"_cuda_arch_list", c_arch_list, METH_NOARGS, nullptr},
    {"_cuda_device_properties", c_device_properties, METH_O, nullptr},
    {"_cuda_mem_get_info", c_mem_get_info, METH_O, nullptr},
    {"_cuda_memory_stats", c_memory_stats, METH_O, nullptr},
    {"_cuda_reset_peak_memory_stats", c_reset_peak, METH_O, nullptr},
    {"_cuda_reset_accumulated_memory_stats", c_reset_accumulated, METH_O, nullptr},
    {"_cuda_memory_summary", c_memory_summary, METH_VARARGS, nullptr},
    {"_cuda_memory_snapshot", c_memory_snapshot, METH_NOARGS, nullptr},
    {"_cuda_empty_cache", c_empty_cache, METH_NOARGS, nullptr},
    {"_cuda_set_memory_fraction", c_set_memory_fraction, METH_VARARGS, nullptr},
    {"_cuda_get_memory_fraction", c_get_memory_fraction, METH_O, nullptr},
    {"_cuda_host_memory_stats", c_host_memory_stats, METH_NOARGS, nullptr},
    {"_cuda_reset_peak_host_memory_stats", c_reset_peak_host, METH_NOARGS, nullptr},
    {"_cuda_reset_accumulated_host_memory_stats", c_reset_accumulated_host, METH_NOARGS, nullptr},
    {"_cuda_get_sync_debug_mode", c_get_sync_debug_mode, METH_NOARGS, nullptr},
    {"_cuda_set_sync_debug_mode", c_set_sync_debug_mode, METH_O, nullptr},
    {"_cuda_set_caching_enabled", c_set_caching_enabled, METH_O, nullptr},
    {"_cuda_can_device_access_peer", c_can_device_access_peer, METH_VARARGS, nullptr},
    {"_raw_alloc", c_raw_alloc, METH_VARARGS, nullptr},
    {"_raw_delete", c_raw_delete, METH_O, nullptr},
    {"_global_set", c_global_set, METH_VARARGS, nullptr},
    {"_global_get", c_global_get, METH_O, nullptr},
    {"_global_alert_not_deterministic", c_alert_not_deterministic, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_cuda_hooks_bindings(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
  c10::setWarningHandler(&python_warning_handler);
}

}  // namespace tl::python
