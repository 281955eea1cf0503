// torchlike._C's autocast controls (off the hot path: called when a region is
// entered or left). The Python layer (torchlike/amp/autocast_mode.py) gives
// them PyTorch's public names and signatures.
#include <Python.h>

#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/Autocast.h"

namespace tl::python {
namespace {

c10::DeviceType device_type_arg(PyObject* o) {
  TL_CHECK_TYPE(PyUnicode_Check(o), "autocast: expected a device type string, got ", Py_TYPE(o)->tp_name);
  const char* s = PyUnicode_AsUTF8(o);
  if (!s) throw python_error_set();
  return c10::parseDeviceType(s);
}

bool flag_arg(PyObject* o) {
  int v = PyObject_IsTrue(o);
  if (v < 0) throw python_error_set();
  return v == 1;
}

PyObject* is_enabled(PyObject*, PyObject* dev) {
  TL_PY_BEGIN
  return PyBool_FromLong(at::autocast::is_enabled(device_type_arg(dev)));
  TL_PY_END
}
PyObject* set_enabled(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *dev, *on;
  if (!PyArg_ParseTuple(args, "OO", &dev, &on)) return nullptr;
  at::autocast::set_enabled(device_type_arg(dev), flag_arg(on));
  Py_RETURN_NONE;
  TL_PY_END
}
PyObject* get_dtype(PyObject*, PyObject* dev) {
  TL_PY_BEGIN
  PyObject* d = dtype_object(at::autocast::get_dtype(device_type_arg(dev)));
  Py_INCREF(d);
  return d;
  TL_PY_END
}
PyObject* set_dtype(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *dev, *dtype;
  if (!PyArg_ParseTuple(args, "OO", &dev, &dtype)) return nullptr;
  TL_CHECK_TYPE(is_dtype(dtype), "set_autocast_dtype(): argument 'dtype' must be torch.dtype, not ",
                Py_TYPE(dtype)->tp_name);
  at::autocast::set_dtype(device_type_arg(dev), unpack_dtype(dtype));
  Py_RETURN_NONE;
  TL_PY_END
}
PyObject* is_cache_enabled(PyObject*, PyObject*) { return PyBool_FromLong(at::autocast::is_cache_enabled()); }
PyObject* set_cache_enabled(PyObject*, PyObject* on) {
  TL_PY_BEGIN
  at::autocast::set_cache_enabled(flag_arg(on));
  Py_RETURN_NONE;
  TL_PY_END
}
PyObject* increment_nesting(PyObject*, PyObject*) { return PyLong_FromLongLong(at::autocast::increment_nesting()); }
PyObject* decrement_nesting(PyObject*, PyObject*) { return PyLong_FromLongLong(at::autocast::decrement_nesting()); }
PyObject* clear_cache(PyObject*, PyObject*) {
  at::autocast::clear_cache();
  Py_RETURN_NONE;
}
PyObject* cache_size(PyObject*, PyObject*) { return PyLong_FromSize_t(at::autocast::cache_size()); }

// The policy the generated kernel of `op` ("aten::mm" or "mm") applies on a
// device type, or None when the op passes straight through.
PyObject* policy(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* op;
  PyObject* dev;
  if (!PyArg_ParseTuple(args, "sO", &op, &dev)) return nullptr;
  std::string name = op;
  if (name.find("::") == std::string::npos) name = "aten::" + name;
  std::string p = at::autocast::policy_of(name, device_type_arg(dev));
  if (p.empty()) Py_RETURN_NONE;
  return PyUnicode_FromString(p.c_str());
  TL_PY_END
}
PyObject* policy_ops(PyObject*, PyObject* dev) {
  TL_PY_BEGIN
  auto names = at::autocast::ops_with_policy(device_type_arg(dev));
  PyObject* l = PyList_New((Py_ssize_t)names.size());
  if (!l) return nullptr;
  for (size_t i = 0; i < names.size(); ++i) PyList_SET_ITEM(l, (Py_ssize_t)i, PyUnicode_FromString(names[i].c_str()));
  return l;
  TL_PY_END
}

// Test-only (see at::autocast::EligibleAlias): None clears the alias.
PyObject* set_eligible_alias(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *from, *as;
  if (!PyArg_ParseTuple(args, "OO", &from, &as)) return nullptr;
  auto& a = at::autocast::tls_eligible_alias();
  if (from == Py_None || as == Py_None) {
    a = at::autocast::EligibleAlias{};
  } else {
    a.from = static_cast<int>(device_type_arg(from));
    a.as = static_cast<int>(device_type_arg(as));
  }
  Py_RETURN_NONE;
  TL_PY_END
}

// For ops the Python layer implements (binary_cross_entropy): the same error
// the generated `banned` kernels raise.
PyObject* raise_banned(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* op;
  PyObject* dev;
  if (!PyArg_ParseTuple(args, "sO", &op, &dev)) return nullptr;
  at::autocast::raise_banned(op, device_type_arg(dev));
  TL_PY_END
}

}  // namespace

void tl_init_autocast(MethodTables& t) {
  const PyMethodDef defs[] = {
      {"_autocast_is_enabled", is_enabled, METH_O, nullptr},
      {"_autocast_set_enabled", set_enabled, METH_VARARGS, nullptr},
      {"_autocast_get_dtype", get_dtype, METH_O, nullptr},
      {"_autocast_set_dtype", set_dtype, METH_VARARGS, nullptr},
      {"_autocast_is_cache_enabled", is_cache_enabled, METH_NOARGS, nullptr},
      {"_autocast_set_cache_enabled", set_cache_enabled, METH_O, nullptr},
      {"_autocast_increment_nesting", increment_nesting, METH_NOARGS, nullptr},
      {"_autocast_decrement_nesting", decrement_nesting, METH_NOARGS, nullptr},
      {"_autocast_clear_cache", clear_cache, METH_NOARGS, nullptr},
      {"_autocast_cache_size", cache_size, METH_NOARGS, nullptr},
      {"_autocast_policy", policy, METH_VARARGS, nullptr},
      {"_autocast_policy_ops", policy_ops, METH_O, nullptr},
      {"_autocast_set_eligible_alias", set_eligible_alias, METH_VARARGS, nullptr},
      {"_autocast_raise_banned", raise_banned, METH_VARARGS, nullptr},
  };
  for (const PyMethodDef& d : defs) t.functions.emplace_back("", d);
}

}  // namespace tl::python
