// Test hooks for the dispatcher (torchlike._C._dispatch_testing_*): register
// kernels that record which key ran and optionally redispatch below
// themselves, as unboxed or boxed kernels, fallthroughs and backend fallbacks.
// tests/test_dispatcher.py drives them to check table computation, fallthrough
// masking, TLS include/exclude, redispatch and boxing in both directions.
#include <Python.h>

#include <memory>
#include <mutex>
#include "Objects.h"
#include "PythonArgParser.h"
#include "c10/Library.h"

namespace tl::python {

static std::mutex g_trace_mu;
static std::vector<std::string> g_trace;

static void record(const std::string& s) {
  std::lock_guard<std::mutex> g(g_trace_mu);
  g_trace.push_back(s);
}

struct BoxedProbe {
  c10::DispatchKey key;
  bool redispatch;
};

// Boxed: records its key; either redispatches below itself or returns the input.
static void boxed_probe(void* ctx, const c10::OperatorEntry& op, c10::DispatchKeySet ks, c10::Stack* stack) {
  auto* p = static_cast<BoxedProbe*>(ctx);
  record(std::string(c10::toString(p->key)) + (p->redispatch ? "+redispatch" : ""));
  if (p->redispatch) {
    c10::Dispatcher::singleton().redispatchBoxed(op, ks.keysBelow(p->key), stack);
    return;
  }
  // Terminal kernel: return the first argument (a tensor) as the result.
  c10::IValue first = (*stack)[stack->size() - op.numArguments()];
  stack->resize(stack->size() - op.numArguments());
  stack->push_back(first);
}

// Unboxed terminal kernel: (DispatchKeySet, const Tensor&) -> Tensor.
static c10::TensorBase unboxed_probe(c10::DispatchKeySet ks, const c10::TensorBase& t) {
  record(std::string("unboxed:") + c10::toString(ks.highestPriorityKey()));
  return t;
}

static PyObject* t_define(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* schema;
  if (!PyArg_ParseTuple(args, "s", &schema)) return nullptr;
  c10::Library("_test").def(schema);
  Py_RETURN_NONE;
  TL_PY_END
}

// register(op, key, kind): kind in {"boxed", "boxed_redispatch", "unboxed", "fallthrough"}
static c10::KernelFunction make_kernel(c10::DispatchKey key, const std::string& kind) {
  if (kind == "fallthrough") return c10::KernelFunction::makeFallthrough();
  if (kind == "unboxed") return TL_KERNEL(unboxed_probe);
  TL_CHECK_VALUE(kind == "boxed" || kind == "boxed_redispatch", "unknown kernel kind ", kind);
  auto owner = std::make_shared<BoxedProbe>(BoxedProbe{key, kind == "boxed_redispatch"});
  return c10::KernelFunction::makeFromBoxed(boxed_probe, owner.get(), owner, kind);
}

static PyObject* t_register(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *op, *key, *kind;
  if (!PyArg_ParseTuple(args, "sss", &op, &key, &kind)) return nullptr;
  c10::DispatchKey k = c10::parseDispatchKey(key);
  c10::Dispatcher::singleton().registerKernel(op, k, make_kernel(k, kind));
  Py_RETURN_NONE;
  TL_PY_END
}

static PyObject* t_deregister(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *op, *key;
  if (!PyArg_ParseTuple(args, "ss", &op, &key)) return nullptr;
  c10::Dispatcher::singleton().deregisterKernel(op, c10::parseDispatchKey(key));
  Py_RETURN_NONE;
  TL_PY_END
}

static PyObject* t_fallback(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *key, *kind;
  if (!PyArg_ParseTuple(args, "ss", &key, &kind)) return nullptr;
  c10::DispatchKey k = c10::parseDispatchKey(key);
  if (std::string(kind) == "none") c10::Dispatcher::singleton().deregisterFallback(k);
  else c10::Dispatcher::singleton().registerFallback(k, make_kernel(k, kind));
  Py_RETURN_NONE;
  TL_PY_END
}

static PyObject* t_trace(PyObject*, PyObject*) {
  std::lock_guard<std::mutex> g(g_trace_mu);
  PyObject* l = PyList_New((Py_ssize_t)g_trace.size());
  for (size_t i = 0; i < g_trace.size(); ++i) PyList_SET_ITEM(l, i, PyUnicode_FromString(g_trace[i].c_str()));
  g_trace.clear();
  return l;
}

// Calls op(tensor) through the typed (unboxed) path or the boxed path.
static PyObject* t_call(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* op;
  PyObject* t;
  int boxed = 0;
  if (!PyArg_ParseTuple(args, "sO|p", &op, &t, &boxed)) return nullptr;
  TL_CHECK_TYPE(is_tensor(t), "expected a tensor");
  auto& d = c10::Dispatcher::singleton();
  c10::OperatorEntry* e = d.findSchemaOrThrow(op);
  if (boxed) {
    c10::Stack s{c10::IValue(unpack(t))};
    d.callBoxed(*e, &s);
    TL_CHECK(s.size() == 1 && s[0].isTensor(), "boxed call left ", s.size(), " values on the stack");
    return wrap_tensor(s[0].toTensor());
  }
  return wrap_tensor(d.typed<c10::TensorBase(const c10::TensorBase&)>(op).call(unpack(t)));
  TL_PY_END
}

void tl_init_dispatch_testing(MethodTables& t) {
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_define", t_define, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_register", t_register, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_deregister", t_deregister, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_fallback", t_fallback, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_trace", t_trace, METH_NOARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_call", t_call, METH_VARARGS, nullptr});
}

}  // namespace tl::python

// The registration macros, as an out-of-tree library would use them: the
// schema via TL_LIBRARY, a CPU kernel written without a DispatchKeySet
// parameter via TL_LIBRARY_IMPL. Both also expose explicit init functions.
#include "ops/mul.h"

static c10::TensorBase twice_cpu(const c10::TensorBase& self) { return at::_ops::mul(self, c10::wrapped_scalar_tensor(2)); }

TL_LIBRARY(_test_macro, m) { m.def("twice(Tensor self) -> Tensor"); }

TL_LIBRARY_IMPL(_test_macro, CPU, m) { m.impl("twice", TL_KERNEL(twice_cpu)); }
