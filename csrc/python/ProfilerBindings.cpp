// torchlike._C's profiler controls (off the hot path: called when a session
// starts or stops, and per record_function range). The Python layer
// (torchlike/profiler, torchlike/autograd/profiler.py) builds PyTorch's API on
// the events handed back here.
#include <Python.h>

#include "Objects.h"
#include "PythonArgParser.h"
#include "c10/ProfilerHooks.h"

namespace tl::python {
namespace {

namespace prof = c10::profiler;

PyObject* int_list(const std::vector<int64_t>& v) {
  PyObject* l = PyList_New((Py_ssize_t)v.size());
  if (!l) throw python_error_set();
  for (size_t i = 0; i < v.size(); ++i) PyList_SET_ITEM(l, (Py_ssize_t)i, PyLong_FromLongLong(v[i]));
  return l;
}

PyObject* shape_list(const std::vector<std::vector<int64_t>>& v) {
  PyObject* l = PyList_New((Py_ssize_t)v.size());
  if (!l) throw python_error_set();
  for (size_t i = 0; i < v.size(); ++i) PyList_SET_ITEM(l, (Py_ssize_t)i, int_list(v[i]));
  return l;
}

// _profiler_start(record_shapes, profile_memory)
PyObject* start(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  int shapes = 0, memory = 0;
  if (!PyArg_ParseTuple(args, "pp", &shapes, &memory)) return nullptr;
  prof::Config cfg;
  cfg.record_shapes = shapes != 0;
  cfg.profile_memory = memory != 0;
  prof::start(cfg);
  Py_RETURN_NONE;
  TL_PY_END
}

// _profiler_stop() -> list of tuples
//   (name, kind, dispatch_key, start_ns, end_ns, tid, id, parent, sequence_nr,
//    input_sizes, input_strides, input_dtypes, bytes, total_allocated, addr,
//    device_type, device_index)
PyObject* stop(PyObject*, PyObject*) {
  TL_PY_BEGIN
  std::vector<prof::Event> events = prof::stop();
  PyObject* out = PyList_New((Py_ssize_t)events.size());
  if (!out) return nullptr;
  for (size_t i = 0; i < events.size(); ++i) {
    const prof::Event& e = events[i];
    PyObject* dtypes = PyList_New((Py_ssize_t)e.input_dtypes.size());
    for (size_t j = 0; j < e.input_dtypes.size(); ++j)
      PyList_SET_ITEM(dtypes, (Py_ssize_t)j, PyUnicode_FromString(e.input_dtypes[j]));
    PyObject* t = Py_BuildValue(
        "(sisLLKKKLNNNLLKsi)", e.name.c_str(), (int)e.kind, e.dispatch_key, (long long)e.start_ns,
        (long long)e.end_ns, (unsigned long long)e.tid, (unsigned long long)e.id, (unsigned long long)e.parent,
        (long long)e.sequence_nr, shape_list(e.input_sizes), shape_list(e.input_strides), dtypes,
        (long long)e.bytes, (long long)e.total_allocated, (unsigned long long)e.addr,
        c10::deviceTypeName(e.device.type).c_str(), (int)e.device.index);
    if (!t) {
      Py_DECREF(out);
      return nullptr;
    }
    PyList_SET_ITEM(out, (Py_ssize_t)i, t);
  }
  return out;
  TL_PY_END
}

PyObject* is_enabled(PyObject*, PyObject*) { return PyBool_FromLong(prof::enabled()); }
PyObject* now_ns(PyObject*, PyObject*) { return PyLong_FromLongLong(prof::nowNs()); }

// _record_function_enter(name) -> id (0 when no session records)
PyObject* range_enter(PyObject*, PyObject* name) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(PyUnicode_Check(name), "record_function: name must be a str, not ", Py_TYPE(name)->tp_name);
  if (!prof::enabled()) return PyLong_FromLong(0);
  const char* s = PyUnicode_AsUTF8(name);
  if (!s) throw python_error_set();
  return PyLong_FromUnsignedLongLong(prof::pushRange(s, prof::EventKind::UserScope));
  TL_PY_END
}

PyObject* range_exit(PyObject*, PyObject* id) {
  TL_PY_BEGIN
  unsigned long long v = PyLong_AsUnsignedLongLong(id);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) return nullptr;
  prof::popRange(v);
  Py_RETURN_NONE;
  TL_PY_END
}

}  // namespace

void tl_init_profiler(MethodTables& t) {
  const PyMethodDef defs[] = {
      {"_profiler_start", start, METH_VARARGS, nullptr},
      {"_profiler_stop", stop, METH_NOARGS, nullptr},
      {"_profiler_enabled", is_enabled, METH_NOARGS, nullptr},
      {"_profiler_now_ns", now_ns, METH_NOARGS, nullptr},
      {"_record_function_enter", range_enter, METH_O, nullptr},
      {"_record_function_exit", range_exit, METH_O, nullptr},
  };
  for (const PyMethodDef& d : defs) t.functions.emplace_back("", d);
}

}  // namespace tl::python
