// Test hooks for the dispatcher (torchlike._C._dispatch_testing_*): register
// kernels that record which key ran and optionally redispatch below
// themselves, as unboxed or boxed kernels, fallthroughs and backend fallbacks.
// tests/test_dispatcher.py drives them to check table computation, fallthrough
// masking, TLS include/exclude, redispatch and boxing in both directions.
#include <Python.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <map>
#include <thread>
#include <vector>
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
  std::string label;  // recorded instead of the key name when set
};

// Boxed: records its key; either redispatches below itself or returns the input.
static void boxed_probe(void* ctx, const c10::OperatorEntry& op, c10::DispatchKeySet ks, c10::Stack* stack) {
  auto* p = static_cast<BoxedProbe*>(ctx);
  record(!p->label.empty() ? p->label : std::string(c10::toString(p->key)) + (p->redispatch ? "+redispatch" : ""));
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
  // A library that is never destroyed: these test operators live for the process.
  static c10::Library* lib = new c10::Library("_test");
  lib->def(schema);
  Py_RETURN_NONE;
  TL_PY_END
}

// register(op, key, kind): kind in {"boxed", "boxed_redispatch", "unboxed", "fallthrough"}
static c10::KernelFunction make_kernel(c10::DispatchKey key, const std::string& kind) {
  if (kind == "fallthrough") return c10::KernelFunction::makeFallthrough();
  if (kind == "unboxed") return TL_KERNEL(unboxed_probe);
  TL_CHECK_VALUE(kind == "boxed" || kind == "boxed_redispatch", "unknown kernel kind ", kind);
  auto owner = std::make_shared<BoxedProbe>(BoxedProbe{key, kind == "boxed_redispatch", ""});
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

// ---- schema parsing: the printed-back schema, or the parser's error.
static PyObject* t_parse_schema(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  const char* text = PyUnicode_AsUTF8(arg);
  if (!text) return nullptr;
  c10::FunctionSchema s = c10::FunctionSchema::parse(text);
  return Py_BuildValue("(ss)", s.str().c_str(), s.cppSignature().c_str());
  TL_PY_END
}

// ---- typed registration: unboxed kernels and handles of several C++ signatures.
static c10::TensorBase k_unary(c10::DispatchKeySet, const c10::TensorBase& t) {
  record("typed:unary");
  return t;
}
static c10::TensorBase k_by_value(c10::DispatchKeySet, c10::TensorBase t) { return t; }
static c10::TensorBase k_with_scalar(c10::DispatchKeySet, const c10::TensorBase& t, const c10::Scalar&) { return t; }
static int64_t k_int_return(c10::DispatchKeySet, const c10::TensorBase&) { return 0; }

static c10::KernelFunction typed_kernel(const std::string& which) {
  if (which == "unary") return c10::KernelFunction::makeUnboxed<decltype(k_unary), &k_unary>("k_unary");
  if (which == "by_value") return c10::KernelFunction::makeUnboxed<decltype(k_by_value), &k_by_value>("k_by_value");
  if (which == "with_scalar")
    return c10::KernelFunction::makeUnboxed<decltype(k_with_scalar), &k_with_scalar>("k_with_scalar");
  if (which == "int_return")
    return c10::KernelFunction::makeUnboxed<decltype(k_int_return), &k_int_return>("k_int_return");
  TL_CHECK_VALUE(false, "unknown typed kernel ", which);
  return {};
}

// register_typed(op, key, which): registers one of the kernels above (permanently).
static PyObject* t_register_typed(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *op, *key, *which;
  if (!PyArg_ParseTuple(args, "sss", &op, &key, &which)) return nullptr;
  c10::Dispatcher::singleton().registerKernel(op, c10::parseDispatchKey(key), typed_kernel(which));
  Py_RETURN_NONE;
  TL_PY_END
}

// typed_handle(op, which): makes a typed handle with one of the signatures above.
static PyObject* t_typed_handle(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *op, *which;
  if (!PyArg_ParseTuple(args, "ss", &op, &which)) return nullptr;
  auto& d = c10::Dispatcher::singleton();
  std::string w = which;
  if (w == "unary") d.typed<c10::TensorBase(const c10::TensorBase&)>(op);
  else if (w == "by_value") d.typed<c10::TensorBase(c10::TensorBase)>(op);
  else if (w == "with_scalar") d.typed<c10::TensorBase(const c10::TensorBase&, const c10::Scalar&)>(op);
  else if (w == "int_return") d.typed<int64_t(const c10::TensorBase&)>(op);
  else TL_CHECK_VALUE(false, "unknown typed signature ", which);
  Py_RETURN_NONE;
  TL_PY_END
}

// ---- concurrency: one thread registers and deregisters kernel A on CPU
// (over a permanent kernel B) `cycles` times, while `callers` threads call the
// operator through its typed handle until it is done. Each cycle waits (up to
// a second) until some caller has run A, and after deregistering until some
// caller has run B again, so the calls really overlap the transitions.
// Returns (calls that got A, calls that got B, calls that got anything else,
// cycles completed).
static int64_t k_stress_a(c10::DispatchKeySet, const c10::TensorBase&) { return 1; }
static int64_t k_stress_b(c10::DispatchKeySet, const c10::TensorBase&) { return 2; }

static PyObject* t_stress(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* op;
  PyObject* t;
  int callers, cycles;
  if (!PyArg_ParseTuple(args, "sOii", &op, &t, &callers, &cycles)) return nullptr;
  TL_CHECK_TYPE(is_tensor(t), "expected a tensor");
  TL_CHECK_VALUE(callers > 0 && cycles > 0, "callers and cycles must be positive");
  c10::TensorBase x = unpack(t);
  auto& d = c10::Dispatcher::singleton();
  d.registerKernel(op, c10::DispatchKey::CPU,
                   c10::KernelFunction::makeUnboxed<decltype(k_stress_b), &k_stress_b>("stress B"));
  auto h = d.typed<int64_t(const c10::TensorBase&)>(op);
  std::atomic<int64_t> got_a{0}, got_b{0}, got_other{0};
  std::atomic<bool> stop{false};
  int done = 0;
  {
    GilRelease nogil;
    std::vector<std::thread> threads;
    for (int c = 0; c < callers; ++c)
      threads.emplace_back([&] {
        while (!stop.load(std::memory_order_relaxed)) {
          int64_t r = h.call(x);
          (r == 1 ? got_a : r == 2 ? got_b : got_other).fetch_add(1, std::memory_order_relaxed);
        }
      });
    auto wait_for_more = [](std::atomic<int64_t>& counter, int64_t than) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      while (counter.load() <= than)
        if (std::chrono::steady_clock::now() > deadline) return false;
        else std::this_thread::yield();
      return true;
    };
    for (; done < cycles; ++done) {
      c10::RegistrationHandle reg = d.addKernel(
          op, c10::DispatchKey::CPU, c10::KernelFunction::makeUnboxed<decltype(k_stress_a), &k_stress_a>("stress A"));
      if (!wait_for_more(got_a, got_a.load())) break;
      int64_t b_before = got_b.load();
      reg.reset();
      if (!wait_for_more(got_b, b_before)) break;
    }
    stop = true;
    for (auto& th : threads) th.join();
  }
  return Py_BuildValue("(LLLi)", (long long)got_a.load(), (long long)got_b.load(), (long long)got_other.load(), done);
  TL_PY_END
}

// ---- scoped libraries: a Library object that the test creates and destroys.
static std::map<std::string, std::unique_ptr<c10::Library>> g_scoped;

// scoped_library(tag, action, arg): action "impl" registers a boxed probe
// recording `tag` on CPU for operator `arg`; "def" defines schema `arg`;
// "destroy" destroys the library (undoing all of it).
static PyObject* t_scoped_library(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *tag, *action, *arg;
  if (!PyArg_ParseTuple(args, "sss", &tag, &action, &arg)) return nullptr;
  std::string a = action;
  auto& lib = g_scoped[tag];
  if (a == "destroy") {
    g_scoped.erase(tag);
    Py_RETURN_NONE;
  }
  if (!lib) lib = std::make_unique<c10::Library>("_test", c10::DispatchKey::CPU);
  if (a == "impl") {
    auto owner = std::make_shared<BoxedProbe>(BoxedProbe{c10::DispatchKey::CPU, false, tag});
    lib->impl(arg, c10::KernelFunction::makeFromBoxed(boxed_probe, owner.get(), owner, std::string("scoped ") + tag));
  } else if (a == "def") {
    lib->def(arg);
  } else {
    TL_CHECK_VALUE(false, "unknown action ", action);
  }
  return PyLong_FromSize_t(lib->numRegistrations());
  TL_PY_END
}

// ---- late Python bindings: adds `name` to a module and as a Tensor method,
// both calling operator `op` (Tensor self) -> Tensor through the dispatcher.
static std::map<std::string, std::string>* g_late_ops = new std::map<std::string, std::string>();

static PyObject* late_call(const char* fname, PyObject* self, PyObject* args) {
  TL_PY_BEGIN
  PyObject* t = self;
  if (!t && !PyArg_ParseTuple(args, "O", &t)) return nullptr;
  TL_CHECK_TYPE(t && is_tensor(t), fname, ": expected a tensor");
  auto it = g_late_ops->find(fname);
  TL_CHECK(it != g_late_ops->end(), "no late binding ", fname);
  auto h = c10::Dispatcher::singleton().typed<c10::TensorBase(const c10::TensorBase&)>(it->second);
  return wrap_tensor(h.call(unpack(t)));
  TL_PY_END
}
// One C entry point per binding kind; the name travels via g_late_ops
// (only one late binding per kind is needed by the test, but any name works).
static std::string g_late_function_name, g_late_method_name;
static PyObject* late_function(PyObject*, PyObject* args) { return late_call(g_late_function_name.c_str(), nullptr, args); }
static PyObject* late_method(PyObject* self, PyObject* args) { return late_call(g_late_method_name.c_str(), self, args); }

static PyObject* t_add_late(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* module;
  const char *name, *op;
  if (!PyArg_ParseTuple(args, "Oss", &module, &name, &op)) return nullptr;
  std::string fn_name = std::string(name), method_name = std::string(name);
  (*g_late_ops)[fn_name] = op;
  g_late_function_name = fn_name;
  g_late_method_name = method_name;
  add_function(module, name, late_function, METH_VARARGS);
  add_tensor_method(name, late_method, METH_NOARGS);
  Py_RETURN_NONE;
  TL_PY_END
}

// ---- the key layout: (name, value, name printed back after parsing, is alias,
// runtime keys the alias expands to or the key's own bit) for every key.
static PyObject* t_keys(PyObject*, PyObject*) {
  TL_PY_BEGIN
  PyObject* l = PyList_New(0);
  for (int v = 0; v < (int)c10::DispatchKey::EndOfAliasKeys; ++v) {
    auto k = (c10::DispatchKey)v;
    if (!c10::isRuntimeKey(k) && !c10::isAliasKey(k)) continue;
    std::string name = c10::toString(k);
    c10::DispatchKey parsed = c10::parseDispatchKey(name);
    uint64_t bits = c10::isAliasKey(k) ? c10::aliasExpansion(k).raw() : c10::DispatchKeySet(k).raw();
    PyObject* item = Py_BuildValue("(sisOK)", name.c_str(), v, c10::toString(parsed),
                                   c10::isAliasKey(k) ? Py_True : Py_False, (unsigned long long)bits);
    PyList_Append(l, item);
    Py_DECREF(item);
  }
  return l;
  TL_PY_END
}

void tl_init_dispatch_testing(MethodTables& t) {
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_keys", t_keys, METH_NOARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_define", t_define, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_register", t_register, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_deregister", t_deregister, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_fallback", t_fallback, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_trace", t_trace, METH_NOARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_call", t_call, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_parse_schema", t_parse_schema, METH_O, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_register_typed", t_register_typed, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_typed_handle", t_typed_handle, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_stress", t_stress, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_scoped_library", t_scoped_library, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_dispatch_testing_add_late", t_add_late, METH_VARARGS, nullptr});
}

}  // namespace tl::python

// The registration macros, as an out-of-tree library would use them: the
// schema via TL_LIBRARY, a CPU kernel written without a DispatchKeySet
// parameter via TL_LIBRARY_IMPL. Both also expose explicit init functions.
#include "ops/mul.h"

static c10::TensorBase twice_cpu(const c10::TensorBase& self) { return at::_ops::mul(self, c10::wrapped_scalar_tensor(2)); }

TL_LIBRARY(_test_macro, m) { m.def("twice(Tensor self) -> Tensor"); }

TL_LIBRARY_IMPL(_test_macro, CPU, m) { m.impl("twice", TL_KERNEL(twice_cpu)); }

// One library spread over two files: this one defines both operators and
// implements `first`; DispatchTestingLibrary.cpp implements `second` and
// `third` with the same TL_LIBRARY_IMPL(_test_multi, CPU, m) (twice in one file).
static c10::TensorBase multi_first(const c10::TensorBase& self) { return at::_ops::mul(self, c10::wrapped_scalar_tensor(3)); }

TL_LIBRARY(_test_multi, m) {
  m.def("first(Tensor self) -> Tensor");
  m.def("second(Tensor self) -> Tensor");
  m.def("third(Tensor self) -> Tensor");
}

TL_LIBRARY_IMPL(_test_multi, CPU, m) { m.impl("first", TL_KERNEL(multi_first)); }
