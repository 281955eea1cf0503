// torchlike._C: the Python module over libtorchlike.so (which registers every
// operator and kernel when it is loaded). Builds the Python types and the
// function tables, and exposes the dispatcher, threading and allocator controls.
#include <Python.h>

#include <map>
#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/Init.h"
#include "aten/FlushDenormal.h"
#include "aten/Parallel.h"
#include "c10/Dispatcher.h"
#include "c10/Library.h"

void tl_register_all_generated_python(tl::python::MethodTables&);

namespace tl::python {
extern std::vector<PyMethodDef>* g_extra_tensor_methods;
void tl_init_tensor_new(MethodTables& t);
void tl_init_tensor_new_types();
void tl_init_dispatch_testing(MethodTables& t);
void tl_init_cpp_api_testing(MethodTables& t);
void tl_init_autograd(MethodTables& t);
void tl_init_autocast(MethodTables& t);
void tl_init_profiler(MethodTables& t);
void tl_init_autograd_types(PyObject* module);
void tl_init_devices(PyObject* module);
void tl_init_device_testing(PyObject* module);
void tl_init_caching_allocator_testing(PyObject* module);
void tl_init_cuda_hooks_bindings(PyObject* module);
void tl_init_python_ops(PyObject* module);
void tl_init_tensor_c_api(PyObject* module);
void tl_init_cuda_index_math_testing(PyObject* module);
void tl_init_cuda_reduce_testing(PyObject* module);
void tl_init_cuda_nn_testing(PyObject* module);
void tl_init_cuda_blas_testing(PyObject* module);
void tl_init_cuda_bindings(PyObject* module);

static PyObject* set_tensor_class(PyObject*, PyObject* cls) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype((PyTypeObject*)cls, &TensorBaseType),
                "_set_tensor_class: expected a subclass of TensorBase");
  Py_INCREF(cls);
  g_tensor_class = (PyTypeObject*)cls;
  Py_RETURN_NONE;
  TL_PY_END
}

static std::string arg_string(PyObject* o) {
  const char* s = PyUnicode_AsUTF8(o);
  if (!s) throw python_error_set();
  return s;
}

// "aten::add.Tensor" or "add.Tensor" or "add": the registered entry.
static c10::OperatorEntry* find_op(const std::string& name) {
  std::string q = name.find("::") == std::string::npos ? "aten::" + name : name;
  c10::OperatorEntry* e = c10::Dispatcher::singleton().find(q);
  TL_CHECK_VALUE(e != nullptr, "no operator named '", q, "' is registered");
  return e;
}

static PyObject* dispatch_dump(PyObject*, PyObject* name) {
  TL_PY_BEGIN
  return PyUnicode_FromString(find_op(arg_string(name))->dumpState().c_str());
  TL_PY_END
}
static PyObject* dispatch_dump_table(PyObject*, PyObject* name) {
  TL_PY_BEGIN
  return PyUnicode_FromString(find_op(arg_string(name))->dumpComputedTable().c_str());
  TL_PY_END
}
// The operator's parsed schema printed back: "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
static PyObject* dispatch_schema(PyObject*, PyObject* name) {
  TL_PY_BEGIN
  c10::OperatorEntry* e = find_op(arg_string(name));
  TL_CHECK_VALUE(e->hasSchema(), "operator '", e->name(), "' has no schema (never defined, or its library was unloaded)");
  return PyUnicode_FromString(e->schema().c_str());
  TL_PY_END
}
// Whether calls reaching runtime key `key` find a kernel for the operator in its
// computed table: one registered for that key, or filled in from an alias key
// (a composite), not a fallthrough. _dispatch_has_kernel_for_key(op, key).
static PyObject* dispatch_has_kernel_for_key(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *name, *key;
  if (!PyArg_ParseTuple(args, "UU", &name, &key)) return nullptr;
  c10::OperatorEntry* e = find_op(arg_string(name));
  c10::DispatchKey k = c10::parseDispatchKey(arg_string(key));
  TL_CHECK_VALUE(c10::isRuntimeKey(k), "_dispatch_has_kernel_for_key: '", arg_string(key),
                 "' is an alias key; ask about a runtime key (CPU, CUDA, AutogradCUDA, ...)");
  const c10::KernelFunction& kf = e->lookup(k);
  return PyBool_FromLong(kf.isValid() && !kf.isFallthrough());
  TL_PY_END
}
static PyObject* dispatch_list_ops(PyObject*, PyObject*) {
  TL_PY_BEGIN
  auto names = c10::Dispatcher::singleton().allOperatorNames();
  std::sort(names.begin(), names.end());
  PyObject* l = PyList_New((Py_ssize_t)names.size());
  for (size_t i = 0; i < names.size(); ++i) PyList_SET_ITEM(l, i, PyUnicode_FromString(names[i].c_str()));
  return l;
  TL_PY_END
}
static PyObject* dispatch_keyset(PyObject*, PyObject* t) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(t), "_dispatch_keyset: expected a tensor");
  return PyUnicode_FromString(unpack(t).key_set().str().c_str());
  TL_PY_END
}
static PyObject* dispatch_tls(PyObject*, PyObject*) {
  auto& tls = c10::tlsLocalDispatchKeySet();
  return Py_BuildValue("(ss)", tls.included.str().c_str(), tls.excluded.str().c_str());
}

// Thread-local include/exclude as Python context managers use them: returns the previous raw bits.
static PyObject* dispatch_tls_set(PyObject*, PyObject* args) {
  unsigned long long inc, exc;
  if (!PyArg_ParseTuple(args, "KK", &inc, &exc)) return nullptr;
  auto& tls = c10::tlsLocalDispatchKeySet();
  PyObject* prev = Py_BuildValue("(KK)", (unsigned long long)tls.included.raw(), (unsigned long long)tls.excluded.raw());
  tls.included = c10::DispatchKeySet(inc);
  tls.excluded = c10::DispatchKeySet(exc);
  return prev;
}
static PyObject* dispatch_tls_get(PyObject*, PyObject*) {
  auto& tls = c10::tlsLocalDispatchKeySet();
  return Py_BuildValue("(KK)", (unsigned long long)tls.included.raw(), (unsigned long long)tls.excluded.raw());
}
static PyObject* dispatch_key_bit(PyObject*, PyObject* name) {
  TL_PY_BEGIN
  c10::DispatchKey k = c10::parseDispatchKey(arg_string(name));
  TL_CHECK_VALUE(c10::isRuntimeKey(k), "'", arg_string(name), "' is an alias key; it has no runtime bit");
  return PyLong_FromUnsignedLongLong(c10::DispatchKeySet(k).raw());
  TL_PY_END
}

static PyObject* set_num_threads(PyObject*, PyObject* n) {
  TL_PY_BEGIN
  long v = PyLong_AsLong(n);
  if (v == -1 && PyErr_Occurred()) return nullptr;
  TL_CHECK_VALUE(v > 0, "set_num_threads expects a positive integer, got ", v);
  at::set_num_threads((int)v);
  Py_RETURN_NONE;
  TL_PY_END
}
static PyObject* get_num_threads(PyObject*, PyObject*) { return PyLong_FromLong(at::get_num_threads()); }
static PyObject* set_flush_denormal(PyObject*, PyObject* mode) {
  int on = PyObject_IsTrue(mode);
  if (on < 0) return nullptr;
  return PyBool_FromLong(at::set_flush_denormal(on == 1));
}

static PyObject* cpu_empty_cache(PyObject*, PyObject*) {
  c10::cpuEmptyCache();
  Py_RETURN_NONE;
}
static PyObject* cpu_cache_stats(PyObject*, PyObject*) {
  auto s = c10::cpuCacheStats();
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K}", "cached_bytes", (unsigned long long)s.cached_bytes, "allocated_bytes",
                       (unsigned long long)s.allocated_bytes, "cache_limit_bytes",
                       (unsigned long long)s.cache_limit_bytes, "hits", (unsigned long long)s.hits, "misses",
                       (unsigned long long)s.misses);
}
static PyObject* cpu_set_cache_limit(PyObject*, PyObject* n) {
  unsigned long long v = PyLong_AsUnsignedLongLong(n);
  if (PyErr_Occurred()) return nullptr;
  c10::cpuSetCacheLimit((size_t)v);
  Py_RETURN_NONE;
}

static PyObject* set_default_dtype(PyObject*, PyObject* d) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_dtype(d), "set_default_dtype: expected a dtype, got ", type_name(d));
  c10::setDefaultFloatType(unpack_dtype(d));
  Py_RETURN_NONE;
  TL_PY_END
}
static PyObject* get_default_dtype(PyObject*, PyObject*) { return Py_NewRef(dtype_object(c10::defaultFloatType())); }

static PyObject* rename_privateuse1(PyObject*, PyObject* name) {
  TL_PY_BEGIN
  c10::renamePrivateUse1Backend(arg_string(name));
  Py_RETURN_NONE;
  TL_PY_END
}

static PyMethodDef module_methods[] = {
    {"_set_tensor_class", set_tensor_class, METH_O, nullptr},
    {"_dispatch_dump", dispatch_dump, METH_O, "registrations of an operator"},
    {"_dispatch_dump_table", dispatch_dump_table, METH_O, "computed per-key table of an operator"},
    {"_dispatch_schema", dispatch_schema, METH_O, "the parsed schema of an operator, printed back"},
    {"_dispatch_list_ops", dispatch_list_ops, METH_NOARGS, nullptr},
    {"_dispatch_has_kernel_for_key", dispatch_has_kernel_for_key, METH_VARARGS,
     "whether an operator's computed table has a kernel for a runtime dispatch key"},
    {"_dispatch_keyset", dispatch_keyset, METH_O, nullptr},
    {"_dispatch_tls", dispatch_tls, METH_NOARGS, nullptr},
    {"_dispatch_tls_set", dispatch_tls_set, METH_VARARGS, nullptr},
    {"_dispatch_tls_get", dispatch_tls_get, METH_NOARGS, nullptr},
    {"_dispatch_key_bit", dispatch_key_bit, METH_O, nullptr},
    {"set_num_threads", set_num_threads, METH_O, nullptr},
    {"get_num_threads", get_num_threads, METH_NOARGS, nullptr},
    {"set_flush_denormal", set_flush_denormal, METH_O, "flush denormal floats to zero on every intra-op thread"},
    {"_cpu_empty_cache", cpu_empty_cache, METH_NOARGS, nullptr},
    {"_cpu_cache_stats", cpu_cache_stats, METH_NOARGS, nullptr},
    {"_cpu_set_cache_limit", cpu_set_cache_limit, METH_O, nullptr},
    {"_set_default_dtype", set_default_dtype, METH_O, nullptr},
    {"_get_default_dtype", get_default_dtype, METH_NOARGS, nullptr},
    {"_rename_privateuse1_backend", rename_privateuse1, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "torchlike._C", "torchlike C++ core", -1, module_methods};

static PyObject* init_module() {
  // Operators, kernels, fallbacks and allocators live in libtorchlike.so, which
  // registered them when it was loaded; this call is then a no-op.
  at::init();

  auto* tables = new MethodTables();  // lives for the process: Python keeps pointers into it
  tl_register_all_generated_python(*tables);
  tl_init_tensor_new(*tables);
  tl_init_dispatch_testing(*tables);
  tl_init_cpp_api_testing(*tables);
  tl_init_autograd(*tables);
  tl_init_autocast(*tables);
  tl_init_profiler(*tables);
  g_extra_tensor_methods = &tables->methods;

  PyObject* m = PyModule_Create(&module_def);
  if (!m) return nullptr;
  init_object_types(m);
  tl_init_devices(m);
  tl_init_device_testing(m);
  tl_init_caching_allocator_testing(m);
  tl_init_cuda_hooks_bindings(m);
  tl_init_python_ops(m);
  tl_init_tensor_c_api(m);
  tl_init_cuda_index_math_testing(m);
  tl_init_cuda_reduce_testing(m);
  tl_init_cuda_nn_testing(m);
  tl_init_cuda_blas_testing(m);
  tl_init_cuda_bindings(m);
  tl_init_tensor_new_types();
  tl_init_autograd_types(m);

  // Function namespaces: _VariableFunctions (torchlike.*), _nn, _linalg, _special.
  std::map<std::string, std::vector<PyMethodDef>> by_module;
  for (auto& kv : tables->functions) by_module[kv.first].push_back(kv.second);
  for (auto& kv : by_module) {
    std::string modname = kv.first.empty() ? "_VariableFunctions" : "_" + kv.first;
    auto* defs = new std::vector<PyMethodDef>(kv.second);
    defs->push_back({nullptr, nullptr, 0, nullptr});
    auto* mdef = new PyModuleDef{PyModuleDef_HEAD_INIT, strdup(("torchlike._C." + modname).c_str()), nullptr, -1,
                                 defs->data()};
    PyObject* sub = PyModule_Create(mdef);
    if (!sub) return nullptr;
    PyModule_AddObject(m, modname.c_str(), sub);
  }
  return m;
}

}  // namespace tl::python

PyMODINIT_FUNC PyInit__C() {
  try {
    return tl::python::init_module();
  } catch (...) {
    tl::python::translate_exception();
    return nullptr;
  }
}
