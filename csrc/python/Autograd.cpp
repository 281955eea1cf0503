// Python side of autograd: tensor attributes (requires_grad, grad, grad_fn,
// is_leaf, hooks), the engine entry point, grad mode as TLS key exclusion,
// a Python type for graph nodes, and a node whose backward is a Python
// callable (torchlike.autograd.Function).
#include <Python.h>

#include "Objects.h"
#include "PythonArgParser.h"
#include "autograd/Engine.h"
#include "autograd/FunctionsManual.h"
#include "c10/TensorImpl.h"
#include "ops/add.h"
#include "ops/clone.h"

// Defined in autograd/Node.cpp next to AccumulateGrad, which reads the flag.
namespace torchlike::autograd {
bool grad_layout_policy_enforced();
void set_grad_layout_policy_enforced(bool enforced);
}  // namespace torchlike::autograd

namespace tl::python {

namespace ag = torchlike::autograd;

// ------------------------------------------------------------------ GIL helpers

struct GilGuard {
  PyGILState_STATE s = PyGILState_Ensure();
  ~GilGuard() { PyGILState_Release(s); }
};

struct PyRef {
  PyObject* o;
  explicit PyRef(PyObject* p = nullptr) : o(p) {}
  PyRef(const PyRef& r) : o(r.o) {
    GilGuard g;
    Py_XINCREF(o);
  }
  ~PyRef() {
    if (o) {
      GilGuard g;
      Py_DECREF(o);
    }
  }
};

// A hook's name for error messages: its __name__ (PyTorch's hook_name).
static std::string hook_name(PyObject* hook) {
  std::string name = "<unknown>";
  if (PyObject* n = PyObject_GetAttrString(hook, "__name__")) {
    if (PyUnicode_Check(n))
      if (const char* u = PyUnicode_AsUTF8(n)) name = u;
    Py_DECREF(n);
  }
  PyErr_Clear();
  return name;
}

// The legacy type name Tensor.type() gives: torch.FloatTensor, torch.meta.DoubleTensor.
static std::string legacy_type_name(const ag::TensorBase& t) {
  std::string prefix = t.is_cpu() ? "torch." : "torch." + c10::deviceTypeName(t.device().type) + ".";
  return prefix + c10::toString(t.scalar_type()) + "Tensor";
}

// A hook may replace a gradient only by one of the same type, device type and
// size (PyTorch's check_variable_result, same messages); None keeps it.
static void check_hook_result(PyObject* hook, const ag::TensorBase& original, const ag::TensorBase& result) {
  if (!result.defined()) return;
  TL_CHECK(original.defined(), "can't replace a None gradient with a non-None value");
  if (original.scalar_type() != result.scalar_type() || original.device().type != result.device().type)
    TL_ERROR("hook '", hook_name(hook), "' has changed the type of value (was ", legacy_type_name(original), " got ",
             legacy_type_name(result), ")");
  TL_CHECK(original.sizes().equals(result.sizes()), "hook '", hook_name(hook), "' has changed the size of value");
}

static void check_hook_results(PyObject* hook, const ag::variable_list& original, const ag::variable_list& result) {
  TL_CHECK(result.size() == original.size(), "hook '", hook_name(hook), "' has returned an incorrect number of values (got ",
           result.size(), ", but expected ", original.size(), ")");
  for (size_t i = 0; i < result.size(); ++i) check_hook_result(hook, original[i], result[i]);
}

// Calls a Python hook f(tensor) -> tensor or None.
static ag::TensorBase call_tensor_hook(PyObject* fn, const ag::TensorBase& g) {
  GilGuard gil;
  PyObject* arg = wrap_tensor(g);
  PyObject* r = PyObject_CallOneArg(fn, arg);
  Py_DECREF(arg);
  if (!r) throw python_error();
  ag::TensorBase out;
  if (r != Py_None) {
    if (!is_tensor(r)) {
      std::string got = type_name(r);
      Py_DECREF(r);
      TL_CHECK_TYPE(false, "expected Variable, but hook returned '", got, "'");
    }
    out = unpack(r);
  }
  Py_DECREF(r);
  check_hook_result(fn, g, out);
  return out;
}

static PyObject* tensors_to_tuple(const ag::variable_list& v) {
  PyObject* t = PyTuple_New((Py_ssize_t)v.size());
  for (size_t i = 0; i < v.size(); ++i) PyTuple_SET_ITEM(t, i, wrap_tensor(v[i]));
  return t;
}

static ag::variable_list tuple_to_tensors(PyObject* seq, const char* what) {
  ag::variable_list out;
  if (seq == Py_None) return out;
  if (is_tensor(seq)) {
    out.push_back(unpack(seq));
    return out;
  }
  PyObject* fast = PySequence_Fast(seq, what);
  if (!fast) throw python_error();  // also reached from hooks the engine runs
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* e = PySequence_Fast_GET_ITEM(fast, i);
    if (e == Py_None) out.emplace_back();
    else if (is_tensor(e)) out.push_back(unpack(e));
    else {
      Py_DECREF(fast);
      TL_CHECK_TYPE(false, what, ": expected a Tensor or None, got ", type_name(e));
    }
  }
  Py_DECREF(fast);
  return out;
}

// ------------------------------------------------------------------ Node objects

struct NodeObject {
  PyObject_HEAD
  std::shared_ptr<ag::Node> node;
  PyObject* dict;
};
PyTypeObject NodeType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike._C._Node"};

PyObject* wrap_node(const std::shared_ptr<ag::Node>& n) {
  if (!n) Py_RETURN_NONE;
  if (n->pyobj) return Py_NewRef(reinterpret_cast<PyObject*>(n->pyobj));
  auto* o = PyObject_GC_New(NodeObject, &NodeType);
  new (&o->node) std::shared_ptr<ag::Node>(n);
  o->dict = nullptr;
  n->pyobj = o;
  PyObject_GC_Track(o);
  return reinterpret_cast<PyObject*>(o);
}

static void node_dealloc(PyObject* self) {
  auto* o = reinterpret_cast<NodeObject*>(self);
  PyObject_GC_UnTrack(self);
  if (o->node && o->node->pyobj == self) o->node->pyobj = nullptr;
  Py_CLEAR(o->dict);
  o->node.~shared_ptr();
  PyObject_GC_Del(self);
}
static int node_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<NodeObject*>(self)->dict);
  return 0;
}
static int node_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<NodeObject*>(self)->dict);
  return 0;
}
static ag::Node& node_of(PyObject* self) { return *reinterpret_cast<NodeObject*>(self)->node; }

static PyObject* node_name(PyObject* self, PyObject*) { return PyUnicode_FromString(node_of(self).name().c_str()); }
static PyObject* node_repr(PyObject* self) {
  return PyUnicode_FromFormat("<%s object at %p>", node_of(self).name().c_str(), self);
}
static PyObject* node_next_functions(PyObject* self, void*) {
  TL_PY_BEGIN
  const ag::edge_list& e = node_of(self).next_edges();
  PyObject* t = PyTuple_New((Py_ssize_t)e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    PyObject* fn = wrap_node(e[i].function);
    PyTuple_SET_ITEM(t, i, Py_BuildValue("(NI)", fn, e[i].input_nr));
  }
  return t;
  TL_PY_END
}
static PyObject* node_variable(PyObject* self, void*) {
  auto* acc = dynamic_cast<ag::AccumulateGrad*>(&node_of(self));
  if (!acc) {
    PyErr_SetString(PyExc_AttributeError, "only AccumulateGrad nodes have a variable");
    return nullptr;
  }
  return wrap_tensor(acc->variable());
}
// register_hook(fn(grad_inputs, grad_outputs)) -> id; runs after the node.
static PyObject* node_register_hook(PyObject* self, PyObject* fn) {
  TL_PY_BEGIN
  PyRef ref(Py_NewRef(fn));
  int id = node_of(self).post_hooks().add([ref](const ag::variable_list& gin, const ag::variable_list& gout) {
    GilGuard gil;
    PyObject* a = tensors_to_tuple(gin);
    PyObject* b = tensors_to_tuple(gout);
    PyObject* r = PyObject_CallFunctionObjArgs(ref.o, a, b, nullptr);
    Py_DECREF(a);
    Py_DECREF(b);
    if (!r) throw python_error();
    PyRef keep(r);
    ag::variable_list out = r == Py_None ? ag::variable_list() : tuple_to_tensors(r, "hook result");
    if (r != Py_None) check_hook_results(ref.o, gin, out);
    return out;
  });
  return PyLong_FromLong(id);
  TL_PY_END
}
// register_prehook(fn(grad_outputs)) -> id; runs before the node.
static PyObject* node_register_prehook(PyObject* self, PyObject* fn) {
  TL_PY_BEGIN
  PyRef ref(Py_NewRef(fn));
  int id = node_of(self).pre_hooks().add([ref](const ag::variable_list& gout) {
    GilGuard gil;
    PyObject* a = tensors_to_tuple(gout);
    PyObject* r = PyObject_CallOneArg(ref.o, a);
    Py_DECREF(a);
    if (!r) throw python_error();
    PyRef keep(r);
    ag::variable_list out = r == Py_None ? ag::variable_list() : tuple_to_tensors(r, "prehook result");
    if (r != Py_None) check_hook_results(ref.o, gout, out);
    return out;
  });
  return PyLong_FromLong(id);
  TL_PY_END
}
static PyObject* node_remove_hook(PyObject* self, PyObject* args) {
  int id, pre;
  if (!PyArg_ParseTuple(args, "ip", &id, &pre)) return nullptr;
  bool ok = pre ? node_of(self).pre_hooks().remove(id) : node_of(self).post_hooks().remove(id);
  return PyBool_FromLong(ok);
}

// Public register_hook / register_prehook: register, then wrap the id in a
// Python RemovableHandle (torchlike/autograd/_hooks.py).
static PyObject* node_handle(PyObject* self, PyObject* id, bool pre) {
  if (!id) return nullptr;
  PyObject* mod = PyImport_ImportModule("torchlike.autograd._hooks");
  if (!mod) {
    Py_DECREF(id);
    return nullptr;
  }
  PyObject* r = PyObject_CallMethod(mod, "_node_handle", "OOO", self, id, pre ? Py_True : Py_False);
  Py_DECREF(mod);
  Py_DECREF(id);
  return r;
}
static PyObject* node_register_hook_public(PyObject* self, PyObject* fn) {
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "register_hook expects a callable");
    return nullptr;
  }
  return node_handle(self, node_register_hook(self, fn), false);
}
static PyObject* node_register_prehook_public(PyObject* self, PyObject* fn) {
  if (!PyCallable_Check(fn)) {
    PyErr_SetString(PyExc_TypeError, "register_prehook expects a callable");
    return nullptr;
  }
  return node_handle(self, node_register_prehook(self, fn), true);
}

static PyMethodDef node_methods[] = {
    {"register_hook", node_register_hook_public, METH_O, nullptr},
    {"register_prehook", node_register_prehook_public, METH_O, nullptr},
    {"name", node_name, METH_NOARGS, nullptr},
    {"_register_hook", node_register_hook, METH_O, nullptr},
    {"_register_prehook", node_register_prehook, METH_O, nullptr},
    {"_remove_hook", node_remove_hook, METH_VARARGS, nullptr},
    {nullptr}};
static PyGetSetDef node_getset[] = {{"next_functions", node_next_functions, nullptr, nullptr, nullptr},
                                    {"variable", node_variable, nullptr, nullptr, nullptr},
                                    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
                                    {nullptr}};

// ------------------------------------------------------------------ Python-defined backward

// A node whose backward is a Python callable: fn(*grads) -> tuple of grads (None allowed).
class PyBackwardNode : public ag::Node {
 public:
  PyBackwardNode(PyObject* fn, std::string name) : fn_(Py_NewRef(fn)), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void release_variables() override {
    GilGuard gil;
    PyObject* r = PyObject_CallMethod(fn_.o, "_release", nullptr);
    if (!r) PyErr_Clear();
    Py_XDECREF(r);
  }
  ag::variable_list apply(ag::variable_list&& grads) override {
    GilGuard gil;
    PyObject* args = tensors_to_tuple(grads);
    // While it runs, the callable can reach this node as `_node` (a saved
    // output unpacked under create_graph gets it as grad_fn). Only for the
    // call: a permanent reference would be a cycle through C++ that Python's
    // GC cannot see.
    PyObject* self_obj = wrap_node(shared_from_this());
    if (PyObject_SetAttrString(fn_.o, "_node", self_obj) < 0) PyErr_Clear();
    PyObject* r = PyObject_CallObject(fn_.o, args);
    Py_DECREF(args);
    {
      PyObject *et, *ev, *etb;
      PyErr_Fetch(&et, &ev, &etb);
      if (PyObject_SetAttrString(fn_.o, "_node", Py_None) < 0) PyErr_Clear();
      PyErr_Restore(et, ev, etb);
    }
    Py_DECREF(self_obj);
    // The backward's own exception (type, message, traceback) reaches the
    // caller of backward() / autograd.grad().
    if (!r) throw python_error();
    PyRef keep(r);
    ag::variable_list out = tuple_to_tensors(r, "backward");
    TL_CHECK(out.size() == next_edges().size(), "function ", name_, " returned an incorrect number of gradients (expected ",
             next_edges().size(), ", got ", out.size(), ")");
    return out;
  }

 private:
  PyRef fn_;
  std::string name_;
};

// _make_function_node(backward_fn, inputs (tensors/None), num_outputs, name) -> node
static PyObject* make_function_node(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *fn, *inputs;
  unsigned int nout;
  const char* name;
  if (!PyArg_ParseTuple(args, "OOIs", &fn, &inputs, &nout, &name)) return nullptr;
  auto node = std::make_shared<PyBackwardNode>(fn, name);
  for (const ag::TensorBase& t : tuple_to_tensors(inputs, "inputs")) ag::add_input_edge(*node, t);
  node->set_num_inputs(nout);
  if (ag::anomaly_enabled()) node->anomaly_trace() = ag::current_stack();
  return wrap_node(node);
  TL_PY_END
}

// _set_history(tensor, node, output_nr): the tensor becomes output `nr` of node.
static PyObject* set_history_py(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *t, *n;
  unsigned int nr;
  if (!PyArg_ParseTuple(args, "OOI", &t, &n, &nr)) return nullptr;
  TL_CHECK_TYPE(is_tensor(t) && PyObject_TypeCheck(n, &NodeType), "_set_history(tensor, node, nr)");
  ag::set_history(unpack(t), reinterpret_cast<NodeObject*>(n)->node, nr);
  Py_RETURN_NONE;
  TL_PY_END
}

// ------------------------------------------------------------------ tensor attributes

static PyObject* get_requires_grad(PyObject* self, void*) { return PyBool_FromLong(ag::requires_grad(unpack(self))); }
static int set_requires_grad(PyObject* self, PyObject* v, void*) {
  try {
    TL_CHECK_TYPE(v && PyBool_Check(v), "requires_grad must be a bool");
    // PyTorch: the attribute can't be set on a non-leaf at all (the message
    // for False also suggests detach()).
    TL_CHECK(v == Py_False || ag::is_leaf(unpack(self)), "you can only change requires_grad flags of leaf variables.");
    ag::set_requires_grad(unpack(self), v == Py_True);
    return 0;
  } catch (...) {
    translate_exception();
    return -1;
  }
}
static PyObject* get_grad(PyObject* self, void*) {
  ag::AutogradMeta* m = ag::get_autograd_meta(unpack(self));
  if (!m || !m->grad.defined()) Py_RETURN_NONE;
  return wrap_tensor(m->grad);
}
static int set_grad(PyObject* self, PyObject* v, void*) {
  try {
    if (!v || v == Py_None) {
      if (ag::get_autograd_meta(unpack(self))) ag::mutable_grad(unpack(self)).reset();
      return 0;
    }
    TL_CHECK_TYPE(is_tensor(v), "assigned grad expected to be a Tensor or None but got grad of type ", type_name(v));
    const ag::TensorBase& t = unpack(self);
    const ag::TensorBase& g = unpack(v);
    TL_CHECK(g.sizes().equals(t.sizes()), "assigned grad has data of a different size");
    TL_CHECK(g.scalar_type() == t.scalar_type(), "assigned grad has data of a different type");
    TL_CHECK(g.device() == t.device(), "assigned grad has data located on a different device");
    ag::mutable_grad(t) = g;
    return 0;
  } catch (...) {
    translate_exception();
    return -1;
  }
}
static PyObject* get_grad_fn(PyObject* self, void*) {
  TL_PY_BEGIN
  return wrap_node(ag::grad_fn(unpack(self)));
  TL_PY_END
}
static PyObject* get_is_leaf(PyObject* self, void*) { return PyBool_FromLong(ag::is_leaf(unpack(self))); }
static PyObject* get_retains_grad(PyObject* self, void*) {
  ag::AutogradMeta* m = ag::get_autograd_meta(unpack(self));
  return PyBool_FromLong(m && m->retains_grad);
}
static PyObject* get_output_nr(PyObject* self, void*) {
  ag::AutogradMeta* m = ag::get_autograd_meta(unpack(self));
  return PyLong_FromLong(m ? m->output_nr : 0);
}
static PyObject* get_is_view(PyObject* self, void*) {
  ag::AutogradMeta* m = ag::get_autograd_meta(unpack(self));
  return PyBool_FromLong(m && m->is_view);
}

static PyObject* m_requires_grad_(PyObject* self, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"requires_grad", nullptr};
  int v = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|p", const_cast<char**>(kw), &v)) return nullptr;
  // requires_grad_(True) on a non-leaf is a no-op in PyTorch (it already requires grad).
  if (v && !ag::is_leaf(unpack(self))) return Py_NewRef(self);
  ag::set_requires_grad(unpack(self), v != 0);
  return Py_NewRef(self);
  TL_PY_END
}
static PyObject* m_retain_grad(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  const ag::TensorBase& t = unpack(self);
  TL_CHECK(ag::requires_grad(t), "can't retain_grad on Tensor that has requires_grad=False");
  ag::AutogradMeta* m = ag::get_autograd_meta(t);
  if (!m->grad_fn || m->retains_grad) Py_RETURN_NONE;  // leaves keep their grad anyway
  m->retains_grad = true;
  // Stores the incoming gradient on the tensor, which the hook reaches only
  // weakly (see AutogradMeta::weak_self).
  if (!m->weak_self) m->weak_self = std::make_shared<c10::TensorImpl*>(t.unsafeGetTensorImpl());
  std::shared_ptr<c10::TensorImpl*> cell = m->weak_self;
  m->grad_fn->retains_grad_hooks().add({m->output_nr, [cell](const ag::TensorBase& g) {
    if (!*cell) return ag::TensorBase();
    ag::TensorBase self_t{c10::intrusive_ptr<c10::TensorImpl>(*cell)};
    ag::TensorBase& gr = ag::mutable_grad(self_t);
    // A clone, like PyTorch: the engine may go on to modify or reuse g.
    gr = gr.defined() ? at::_ops::add(gr, g, 1) : at::_ops::clone(g, std::nullopt);
    return ag::TensorBase();
  }});
  Py_RETURN_NONE;
  TL_PY_END
}
// _register_hook(fn) -> (id, is_leaf) ; the Python handle removes by id.
static PyObject* m_register_hook(PyObject* self, PyObject* fn) {
  TL_PY_BEGIN
  const ag::TensorBase& t = unpack(self);
  TL_CHECK(ag::requires_grad(t), "cannot register a hook on a tensor that doesn't require gradient");
  PyRef ref(Py_NewRef(fn));
  auto hook = [ref](const ag::TensorBase& g) { return call_tensor_hook(ref.o, g); };
  ag::AutogradMeta* m = ag::get_autograd_meta(t);
  if (m->grad_fn) {
    int id = m->grad_fn->tensor_pre_hooks().add({m->output_nr, hook});
    return Py_BuildValue("(iO)", id, Py_False);
  }
  int id = m->leaf_hooks.add(hook);
  return Py_BuildValue("(iO)", id, Py_True);
  TL_PY_END
}
static PyObject* m_remove_hook(PyObject* self, PyObject* args) {
  int id, leaf;
  if (!PyArg_ParseTuple(args, "ip", &id, &leaf)) return nullptr;
  ag::AutogradMeta* m = ag::get_autograd_meta(unpack(self));
  if (!m) Py_RETURN_FALSE;
  bool ok = leaf ? m->leaf_hooks.remove(id) : (m->grad_fn && m->grad_fn->tensor_pre_hooks().remove(id));
  return PyBool_FromLong(ok);
}
// detach_(): this tensor leaves the graph in place.
static PyObject* m_detach_(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  ag::AutogradMeta* m = ag::get_autograd_meta(unpack(self));
  if (m) {
    TL_CHECK(!m->is_view, "Can't detach views in-place. Use detach() instead.");
    m->grad_fn.reset();
    m->requires_grad = false;
    m->output_nr = 0;
  }
  return Py_NewRef(self);
  TL_PY_END
}

static PyGetSetDef autograd_getset[] = {
    {"requires_grad", get_requires_grad, set_requires_grad, nullptr, nullptr},
    {"grad", get_grad, set_grad, nullptr, nullptr},
    {"grad_fn", get_grad_fn, nullptr, nullptr, nullptr},
    {"is_leaf", get_is_leaf, nullptr, nullptr, nullptr},
    {"retains_grad", get_retains_grad, nullptr, nullptr, nullptr},
    {"output_nr", get_output_nr, nullptr, nullptr, nullptr},
    {"_is_view", get_is_view, nullptr, nullptr, nullptr},
    {nullptr}};

static PyMethodDef autograd_methods[] = {
    {"requires_grad_", (PyCFunction)(void (*)(void))m_requires_grad_, METH_VARARGS | METH_KEYWORDS, nullptr},
    {"retain_grad", m_retain_grad, METH_NOARGS, nullptr},
    {"_register_hook", m_register_hook, METH_O, nullptr},
    {"_remove_hook", m_remove_hook, METH_VARARGS, nullptr},
    {"detach_", m_detach_, METH_NOARGS, nullptr},
    {nullptr}};

// ------------------------------------------------------------------ module functions

// _run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, allow_unused, accumulate)
static PyObject* run_backward_py(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *tensors, *grads, *inputs;
  int retain, create, allow_unused, accumulate;
  if (!PyArg_ParseTuple(args, "OOppOpp", &tensors, &grads, &retain, &create, &inputs, &allow_unused, &accumulate))
    return nullptr;
  ag::variable_list roots = tuple_to_tensors(tensors, "tensors");
  ag::variable_list groots = tuple_to_tensors(grads, "grad_tensors");
  ag::variable_list ins = tuple_to_tensors(inputs, "inputs");
  ag::variable_list res;
  Py_BEGIN_ALLOW_THREADS
  try {
    res = ag::run_backward(roots, groots, retain != 0, create != 0, ins, allow_unused != 0, accumulate != 0);
  } catch (...) {
    Py_BLOCK_THREADS
    throw;
  }
  Py_END_ALLOW_THREADS
  return tensors_to_tuple(res);
  TL_PY_END
}

static PyObject* set_grad_layout_policy_py(PyObject*, PyObject* v) {
  int on = PyObject_IsTrue(v);
  if (on < 0) return nullptr;
  ag::set_grad_layout_policy_enforced(on == 1);
  Py_RETURN_NONE;
}
static PyObject* grad_layout_policy_py(PyObject*, PyObject*) {
  return PyBool_FromLong(ag::grad_layout_policy_enforced());
}

static PyObject* set_grad_enabled_py(PyObject*, PyObject* v) {
  ag::set_grad_enabled(PyObject_IsTrue(v) == 1);
  Py_RETURN_NONE;
}
static PyObject* is_grad_enabled_py(PyObject*, PyObject*) { return PyBool_FromLong(ag::is_grad_enabled()); }
static PyObject* set_inference_mode_py(PyObject*, PyObject* v) {
  int on = PyObject_IsTrue(v);
  if (on < 0) return nullptr;
  c10::InferenceMode::set_enabled(on == 1);
  Py_RETURN_NONE;
}
static PyObject* is_inference_mode_py(PyObject*, PyObject*) { return PyBool_FromLong(c10::InferenceMode::is_enabled()); }
static PyObject* set_anomaly_py(PyObject*, PyObject* v) {
  ag::set_anomaly_enabled(PyObject_IsTrue(v) == 1);
  Py_RETURN_NONE;
}
static PyObject* is_anomaly_py(PyObject*, PyObject*) { return PyBool_FromLong(ag::anomaly_enabled()); }
static PyObject* set_anomaly_check_nan_py(PyObject*, PyObject* v) {
  ag::set_anomaly_check_nan(PyObject_IsTrue(v) == 1);
  Py_RETURN_NONE;
}
static PyObject* is_anomaly_check_nan_py(PyObject*, PyObject*) { return PyBool_FromLong(ag::anomaly_check_nan()); }

static PyObject* g_stack_fn = nullptr;
static std::string python_stack() {
  if (!g_stack_fn) return "";
  GilGuard gil;
  PyObject* r = PyObject_CallNoArgs(g_stack_fn);
  if (!r) {
    PyErr_Clear();
    return "";
  }
  std::string s = PyUnicode_Check(r) ? PyUnicode_AsUTF8(r) : "";
  Py_DECREF(r);
  return s;
}
static PyObject* set_stack_provider_py(PyObject*, PyObject* fn) {
  Py_XSETREF(g_stack_fn, Py_NewRef(fn));
  ag::set_stack_provider(&python_stack);
  Py_RETURN_NONE;
}

void tl_init_autograd(MethodTables& t) {
  for (PyMethodDef* d = autograd_methods; d->ml_name; ++d) t.methods.push_back(*d);
  t.functions.emplace_back("", PyMethodDef{"_run_backward", run_backward_py, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_set_grad_enabled", set_grad_enabled_py, METH_O, nullptr});
  t.functions.emplace_back("", PyMethodDef{"is_grad_enabled", is_grad_enabled_py, METH_NOARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_set_inference_mode", set_inference_mode_py, METH_O, nullptr});
  t.functions.emplace_back("", PyMethodDef{"is_inference_mode_enabled", is_inference_mode_py, METH_NOARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_set_anomaly_enabled", set_anomaly_py, METH_O, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_is_anomaly_enabled", is_anomaly_py, METH_NOARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_set_anomaly_check_nan", set_anomaly_check_nan_py, METH_O, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_is_anomaly_check_nan", is_anomaly_check_nan_py, METH_NOARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_set_stack_provider", set_stack_provider_py, METH_O, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_make_function_node", make_function_node, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_set_history", set_history_py, METH_VARARGS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"_set_grad_layout_policy_enforced", set_grad_layout_policy_py, METH_O,
                                           nullptr});
  t.functions.emplace_back("", PyMethodDef{"_grad_layout_policy_enforced", grad_layout_policy_py, METH_NOARGS,
                                           nullptr});
}

// Called after TensorBase is ready: attributes, and the _Node type.
void tl_init_autograd_types(PyObject* module) {
  add_getset(&TensorBaseType, autograd_getset);
  NodeType.tp_basicsize = sizeof(NodeObject);
  NodeType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC;
  NodeType.tp_dealloc = node_dealloc;
  NodeType.tp_traverse = node_traverse;
  NodeType.tp_clear = node_clear;
  NodeType.tp_repr = node_repr;
  NodeType.tp_methods = node_methods;
  NodeType.tp_getset = node_getset;
  NodeType.tp_dictoffset = offsetof(NodeObject, dict);
  if (PyType_Ready(&NodeType) < 0) throw python_error_set();
  Py_INCREF(&NodeType);
  PyModule_AddObject(module, "_Node", reinterpret_cast<PyObject*>(&NodeType));
}

}  // namespace tl::python
