// Operators by name from Python, and Python functions as kernels.
//
//   _C._ops_call(handle, args, kwargs)   torchlike.ops.<ns>.<name>.<overload>(...):
//                                        binds Python arguments to the schema, calls
//                                        the dispatcher's boxed entry, unboxes the returns
//   _C._ops_handle(qualified_name)       the capsule _ops_call takes (schema parsed once)
//   _C._library_define / _impl / _fallback / _remove
//                                        torchlike.library's registrations, each a scoped
//                                        handle that _remove undoes
//
// A Python kernel is a boxed kernel like any C++ one: it sits on the key it
// was registered for (CPU, Meta, Autograd, ...), so autograd, autocast and
// tracing see it the way they see C++ kernels. It takes the GIL for the call
// only; a Python exception it raises travels through the dispatcher as
// python_error and is re-raised unchanged.
#include <Python.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include "Objects.h"
#include "autograd/AutogradMeta.h"
#include "PythonArgParser.h"
#include "c10/Dispatcher.h"
#include "c10/FunctionSchema.h"
#include "c10/IValue.h"
#include "c10/KernelFunction.h"
#include "c10/Library.h"

namespace tl::python {
namespace {

using c10::IValue;
using c10::SchemaType;
using Base = c10::SchemaType::Base;

// ---------------------------------------------------------------- Python -> IValue

[[noreturn]] void bad_arg(const std::string& op, const std::string& arg, const SchemaType& t, PyObject* o) {
  TL_CHECK_TYPE(false, op, "() expected argument '", arg, "' to be of type ", t.str(), " but got ",
                Py_TYPE(o)->tp_name);
}

bool is_int_like(PyObject* o) { return PyLong_Check(o) && !PyBool_Check(o); }

int64_t to_int(PyObject* o, const std::string& op, const std::string& arg, const SchemaType& t) {
  if (is_int_like(o)) {
    long long v = PyLong_AsLongLong(o);
    if (v == -1 && PyErr_Occurred()) throw python_error_set();
    return v;
  }
  if (is_tensor(o) && unpack(o).numel() == 1 && c10::isIntegralType(unpack(o).scalar_type(), false)) {
    return c10::item(unpack(o)).toLong();
  }
  if (!PyBool_Check(o) && !PyFloat_Check(o) && PyIndex_Check(o)) {
    PyObject* i = PyNumber_Index(o);
    if (!i) throw python_error_set();
    long long v = PyLong_AsLongLong(i);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred()) throw python_error_set();
    return v;
  }
  bad_arg(op, arg, t, o);
}

// numbers_as_tensors: a Python number where a Tensor is expected becomes a
// wrapped 0-dim tensor (arguments); a kernel's returns must be tensors.
IValue to_ivalue(PyObject* o, const SchemaType& t, const std::string& op, const std::string& arg,
                 bool numbers_as_tensors = true) {
  if (t.isOptional()) {
    if (o == Py_None) return IValue();
    return to_ivalue(o, t.inner(), op, arg, numbers_as_tensors);
  }
  if (t.isList()) {
    SchemaType elem = t.inner();
    int64_t fixed = t.suffixes.back().size;
    // int[2] stride=1 means [1, 1], as in PyTorch.
    if ((elem.base == Base::Int || elem.base == Base::SymInt) && !elem.isOptional() && is_int_like(o)) {
      IValue v(c10::IntArrayRef{});
      v.ints.assign(fixed > 0 ? (size_t)fixed : 1, to_int(o, op, arg, elem));
      return v;
    }
    if (!PyList_Check(o) && !PyTuple_Check(o)) bad_arg(op, arg, t, o);
    PyObject* seq = PySequence_Fast(o, "");
    if (!seq) throw python_error_set();
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject** items = PySequence_Fast_ITEMS(seq);
    IValue v;
    try {
      switch (elem.isOptional() ? elem.inner().base : elem.base) {
        case Base::Tensor: {
          v.tag = elem.isOptional() ? IValue::Tag::OptionalTensorList : IValue::Tag::TensorList;
          for (Py_ssize_t i = 0; i < n; ++i) {
            if (items[i] == Py_None && elem.isOptional()) {
              v.tensors.emplace_back();
            } else {
              TL_CHECK_TYPE(is_tensor(items[i]), op, "() expected argument '", arg, "' to be a list of tensors, but ",
                            "element ", i, " is ", Py_TYPE(items[i])->tp_name);
              v.tensors.push_back(unpack(items[i]));
            }
          }
          break;
        }
        case Base::Int:
        case Base::SymInt:
          v.tag = IValue::Tag::IntList;
          for (Py_ssize_t i = 0; i < n; ++i) v.ints.push_back(to_int(items[i], op, arg, elem));
          break;
        case Base::Float:
          v.tag = IValue::Tag::DoubleList;
          for (Py_ssize_t i = 0; i < n; ++i) {
            double d = PyFloat_AsDouble(items[i]);
            if (d == -1.0 && PyErr_Occurred()) throw python_error_set();
            v.doubles.push_back(d);
          }
          break;
        case Base::Bool:
          v.tag = IValue::Tag::BoolList;
          for (Py_ssize_t i = 0; i < n; ++i) {
            TL_CHECK_TYPE(PyBool_Check(items[i]), op, "() expected argument '", arg, "' to be a list of bools");
            v.ints.push_back(items[i] == Py_True);
          }
          break;
        default:
          TL_CHECK_TYPE(false, op, "(): arguments of type ", t.str(), " are not supported from Python");
      }
    } catch (...) {
      Py_DECREF(seq);
      throw;
    }
    Py_DECREF(seq);
    if (fixed > 0 && v.tag == IValue::Tag::IntList && v.ints.size() == 1) v.ints.assign((size_t)fixed, v.ints[0]);
    return v;
  }
  switch (t.base) {
    case Base::Tensor:
      if (is_tensor(o)) return IValue(unpack(o));
      if (!numbers_as_tensors) bad_arg(op, arg, t, o);
      // A Python number where a Tensor is expected is a wrapped 0-dim tensor,
      // which type promotion treats like a scalar (PyTorch's rule).
      if (PyBool_Check(o)) return IValue(c10::wrapped_scalar_tensor(c10::Scalar(o == Py_True)));
      if (PyLong_Check(o)) return IValue(c10::wrapped_scalar_tensor(c10::Scalar(to_int(o, op, arg, t))));
      if (PyFloat_Check(o)) return IValue(c10::wrapped_scalar_tensor(c10::Scalar(PyFloat_AsDouble(o))));
      bad_arg(op, arg, t, o);
    case Base::Int:
    case Base::SymInt:
      return IValue(to_int(o, op, arg, t));
    case Base::Float: {
      if (is_tensor(o) && unpack(o).numel() == 1) return IValue(c10::item(unpack(o)).toDouble());
      if (!PyFloat_Check(o) && !is_int_like(o)) bad_arg(op, arg, t, o);
      double d = PyFloat_AsDouble(o);
      if (d == -1.0 && PyErr_Occurred()) throw python_error_set();
      return IValue(d);
    }
    case Base::Bool:
      if (!PyBool_Check(o)) bad_arg(op, arg, t, o);
      return IValue(o == Py_True);
    case Base::Str: {
      if (!PyUnicode_Check(o)) bad_arg(op, arg, t, o);
      const char* s = PyUnicode_AsUTF8(o);
      if (!s) throw python_error_set();
      return IValue(std::string(s));
    }
    case Base::Scalar: {
      if (PyBool_Check(o)) return IValue(o == Py_True);
      if (PyLong_Check(o)) return IValue(to_int(o, op, arg, t));
      if (PyFloat_Check(o)) return IValue(PyFloat_AsDouble(o));
      if (is_tensor(o) && unpack(o).numel() == 1) return IValue(c10::item(unpack(o)));
      bad_arg(op, arg, t, o);
    }
    case Base::ScalarType:
      if (!is_dtype(o)) bad_arg(op, arg, t, o);
      return IValue(unpack_dtype(o));
    case Base::Layout:
    case Base::MemoryFormat: {
      PyTypeObject* want = t.base == Base::Layout ? &LayoutType : &MemoryFormatType;
      if (Py_TYPE(o) != want) bad_arg(op, arg, t, o);
      return IValue((int64_t)reinterpret_cast<EnumObject*>(o)->value);
    }
    case Base::Device:
      return IValue(parse_device(o));
    case Base::Generator:
      if (!is_generator(o)) bad_arg(op, arg, t, o);
      return IValue(reinterpret_cast<GeneratorObject*>(o)->gen);
    case Base::Dimname:
      break;
  }
  TL_CHECK_TYPE(false, op, "(): arguments of type ", t.str(), " are not supported from Python");
}

// ---------------------------------------------------------------- IValue -> Python

PyObject* to_python(const IValue& v, const SchemaType* t) {
  switch (v.tag) {
    case IValue::Tag::None:
      Py_RETURN_NONE;
    case IValue::Tag::Tensor:
      if (!v.tensor.defined()) Py_RETURN_NONE;
      return wrap_tensor(v.tensor);
    case IValue::Tag::Int: {
      Base b = t ? (t->isOptional() ? t->inner().base : t->base) : Base::Int;
      if (b == Base::ScalarType) {
        PyObject* d = dtype_object((c10::ScalarType)v.u.i);
        Py_INCREF(d);
        return d;
      }
      if (b == Base::Layout) return layout_object((c10::Layout)v.u.i);
      if (b == Base::MemoryFormat) return memory_format_object((c10::MemoryFormat)v.u.i);
      return PyLong_FromLongLong(v.u.i);
    }
    case IValue::Tag::Double:
      return PyFloat_FromDouble(v.u.d);
    case IValue::Tag::Bool:
      return PyBool_FromLong(v.u.b);
    case IValue::Tag::String:
      return PyUnicode_FromStringAndSize(v.s.data(), (Py_ssize_t)v.s.size());
    case IValue::Tag::IntList:
    case IValue::Tag::BoolList: {
      PyObject* l = PyList_New((Py_ssize_t)v.ints.size());
      if (!l) return nullptr;
      for (size_t i = 0; i < v.ints.size(); ++i)
        PyList_SET_ITEM(l, (Py_ssize_t)i, v.tag == IValue::Tag::BoolList ? PyBool_FromLong(v.ints[i] != 0)
                                                                         : PyLong_FromLongLong(v.ints[i]));
      return l;
    }
    case IValue::Tag::DoubleList: {
      PyObject* l = PyList_New((Py_ssize_t)v.doubles.size());
      if (!l) return nullptr;
      for (size_t i = 0; i < v.doubles.size(); ++i) PyList_SET_ITEM(l, (Py_ssize_t)i, PyFloat_FromDouble(v.doubles[i]));
      return l;
    }
    case IValue::Tag::TensorList:
    case IValue::Tag::OptionalTensorList:
    case IValue::Tag::Tuple: {
      PyObject* l = v.tag == IValue::Tag::Tuple ? PyTuple_New((Py_ssize_t)v.tensors.size())
                                                : PyList_New((Py_ssize_t)v.tensors.size());
      if (!l) return nullptr;
      for (size_t i = 0; i < v.tensors.size(); ++i) {
        PyObject* e;
        if (v.tensors[i].defined()) {
          e = wrap_tensor(v.tensors[i]);
        } else {
          Py_INCREF(Py_None);
          e = Py_None;
        }
        if (v.tag == IValue::Tag::Tuple) PyTuple_SET_ITEM(l, (Py_ssize_t)i, e);
        else PyList_SET_ITEM(l, (Py_ssize_t)i, e);
      }
      return l;
    }
    case IValue::Tag::Device:
      return device_object(v.device);
    case IValue::Tag::Generator:
      return generator_object(v.gen);
  }
  Py_RETURN_NONE;
}

// ---------------------------------------------------------------- defaults

std::string strip(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// A schema default (normalised text: None, True, 2, 2., [0, 1], "mean",
// long, contiguous_format) as a boxed value of the argument's type.
IValue parse_default(const std::string& text, const SchemaType& t, const std::string& op) {
  std::string s = strip(text);
  if (s == "None") return IValue();
  SchemaType base = t.isOptional() ? t.inner() : t;
  if (base.isList()) {
    SchemaType elem = base.inner();
    IValue v;
    bool is_float = elem.base == Base::Float;
    v.tag = is_float ? IValue::Tag::DoubleList : elem.base == Base::Bool ? IValue::Tag::BoolList : IValue::Tag::IntList;
    if (elem.base == Base::Tensor) {
      v.tag = IValue::Tag::TensorList;
      return v;
    }
    std::string body = s;
    if (!body.empty() && body.front() == '[') body = body.substr(1, body.size() - 2);
    size_t pos = 0;
    while (pos < body.size()) {
      size_t comma = body.find(',', pos);
      std::string item = strip(body.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      if (!item.empty()) {
        if (is_float) v.doubles.push_back(std::strtod(item.c_str(), nullptr));
        else if (elem.base == Base::Bool) v.ints.push_back(item == "True");
        else v.ints.push_back(std::strtoll(item.c_str(), nullptr, 10));
      }
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    int64_t fixed = base.suffixes.back().size;
    if (fixed > 0 && v.ints.size() == 1) v.ints.assign((size_t)fixed, v.ints[0]);
    return v;
  }
  switch (base.base) {
    case Base::Bool:
      return IValue(s == "True");
    case Base::Int:
    case Base::SymInt:
      if (s == "Mean") return IValue((int64_t)1);  // at::Reduction, as PyTorch spells it in schemas
      if (s == "Sum") return IValue((int64_t)2);
      return IValue((int64_t)std::strtoll(s.c_str(), nullptr, 10));
    case Base::Float:
      return IValue(std::strtod(s.c_str(), nullptr));
    case Base::Scalar:
      if (s.find_first_of(".eE") != std::string::npos || s == "inf" || s == "-inf") return IValue(std::strtod(s.c_str(), nullptr));
      if (s == "True" || s == "False") return IValue(s == "True");
      return IValue((int64_t)std::strtoll(s.c_str(), nullptr, 10));
    case Base::Str:
      if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'')) return IValue(s.substr(1, s.size() - 2));
      return IValue(s);
    case Base::ScalarType: {
      static const std::map<std::string, c10::ScalarType> names = {
          {"long", c10::ScalarType::Long}, {"int", c10::ScalarType::Int}, {"float", c10::ScalarType::Float},
          {"double", c10::ScalarType::Double}, {"bool", c10::ScalarType::Bool}, {"half", c10::ScalarType::Half},
          {"bfloat16", c10::ScalarType::BFloat16}};
      auto it = names.find(s);
      TL_CHECK(it != names.end(), op, ": unsupported ScalarType default '", s, "'");
      return IValue(it->second);
    }
    case Base::MemoryFormat:
      if (s == "contiguous_format") return IValue(c10::MemoryFormat::Contiguous);
      if (s == "preserve_format") return IValue(c10::MemoryFormat::Preserve);
      break;
    case Base::Layout:
      if (s == "strided") return IValue(c10::Layout::Strided);
      break;
    case Base::Device:
      if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'')) s = s.substr(1, s.size() - 2);
      return IValue(c10::Device(s));
    default:
      break;
  }
  TL_CHECK(false, op, ": unsupported default '", s, "' for an argument of type ", t.str());
}

// ---------------------------------------------------------------- operator handles

// What a call needs, computed once per operator: its entry, schema, and the
// defaults already boxed. Handles live as long as the process (operators may
// be redefined: a handle checks its schema pointer on each call).
struct OpHandle {
  c10::OperatorEntry* entry;
  const c10::FunctionSchema* schema = nullptr;
  std::vector<std::optional<IValue>> defaults;  // per argument; nullopt = required
  std::vector<PyObject*> names;                  // interned argument names
  size_t num_positional = 0;                     // arguments before '*'
  // A boxed stack follows the C++ signature: out= arguments first, then the
  // rest (see aten/native/CpuFallback.cpp). boxed_order[j] is the schema
  // position of stack slot j; empty when the two orders agree.
  std::vector<size_t> boxed_order;
  std::mutex mu;

  void refresh(const c10::FunctionSchema* s) {
    std::lock_guard<std::mutex> g(mu);
    if (schema == s) return;
    defaults.clear();
    for (PyObject* n : names) Py_DECREF(n);
    names.clear();
    num_positional = 0;
    for (const auto& a : s->arguments()) {
      if (a.default_value) defaults.emplace_back(parse_default(*a.default_value, a.type, entry->name()));
      else defaults.emplace_back(std::nullopt);
      names.push_back(PyUnicode_InternFromString(a.name.c_str()));
      if (!a.kwarg_only) ++num_positional;
    }
    boxed_order.clear();
    const auto& args = s->arguments();
    bool any_out = false;
    for (size_t i = 0; i < args.size(); ++i) any_out = any_out || args[i].isOut();
    if (any_out) {
      for (size_t i = 0; i < args.size(); ++i)
        if (args[i].isOut()) boxed_order.push_back(i);
      for (size_t i = 0; i < args.size(); ++i)
        if (!args[i].isOut()) boxed_order.push_back(i);
    }
    schema = s;
  }
};

std::mutex g_handles_mu;
std::unordered_map<std::string, OpHandle*> g_handles;

OpHandle* handle_for(const std::string& name) {
  std::lock_guard<std::mutex> g(g_handles_mu);
  auto it = g_handles.find(name);
  if (it != g_handles.end()) return it->second;
  c10::OperatorEntry* e = c10::Dispatcher::singleton().find(name);
  TL_CHECK_VALUE(e != nullptr && e->hasSchema(), "no operator named '", name, "'");
  OpHandle* h = new OpHandle{e};  // immortal, like operator entries
  g_handles[name] = h;
  return h;
}

// Binds args/kwargs to the schema into a stack, PyTorch's rules: positional
// arguments fill the non-keyword-only parameters in order; the rest come by
// name or from defaults. The stack is left in boxed order (out= arguments
// first). `boxed`: the arguments already are a boxed stack, every parameter
// positionally in boxed order (what a Python kernel or fallback receives and
// passes on with _ops_redispatch).
void bind_arguments(OpHandle* h, const c10::FunctionSchema& s, PyObject* args, PyObject* kwargs, c10::Stack& stack,
                    bool boxed = false) {
  const auto& params = s.arguments();
  Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  const std::string& op = h->entry->name();
  const bool reorder = !h->boxed_order.empty();
  if (boxed) {
    TL_CHECK_TYPE(kwargs == nullptr, op, "(): a boxed call takes no keyword arguments");
    TL_CHECK_TYPE((size_t)nargs <= params.size(), op, "() takes ", params.size(), " positional arguments but ", nargs,
                  " were given");
    stack.reserve(params.size());
    for (size_t j = 0; j < params.size(); ++j) {
      size_t i = reorder ? h->boxed_order[j] : j;
      if ((Py_ssize_t)j < nargs) {
        stack.push_back(to_ivalue(PyTuple_GET_ITEM(args, (Py_ssize_t)j), params[i].type, op, params[i].name));
      } else {
        TL_CHECK_TYPE(h->defaults[i].has_value(), op, "() missing required argument '", params[i].name, "'");
        stack.push_back(*h->defaults[i]);
      }
    }
    return;
  }
  TL_CHECK_TYPE((size_t)nargs <= h->num_positional, op, "() takes ", h->num_positional,
                " positional arguments but ", nargs, " were given");
  Py_ssize_t kw_used = 0;
  c10::Stack bound;
  c10::Stack& dst = reorder ? bound : stack;
  dst.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    PyObject* o = nullptr;
    if ((Py_ssize_t)i < nargs) {
      o = PyTuple_GET_ITEM(args, (Py_ssize_t)i);
      if (kwargs && PyDict_GetItemWithError(kwargs, h->names[i])) {
        TL_CHECK_TYPE(false, op, "() got multiple values for argument '", params[i].name, "'");
      }
    } else if (kwargs) {
      o = PyDict_GetItemWithError(kwargs, h->names[i]);
      if (!o && PyErr_Occurred()) throw python_error_set();
      if (o) ++kw_used;
    }
    if (o) {
      dst.push_back(to_ivalue(o, params[i].type, op, params[i].name));
    } else {
      TL_CHECK_TYPE(h->defaults[i].has_value(), op, "() missing required argument '", params[i].name, "'");
      dst.push_back(*h->defaults[i]);
    }
  }
  if (kwargs && kw_used != PyDict_GET_SIZE(kwargs)) {
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
      bool known = false;
      for (PyObject* n : h->names) known = known || PyUnicode_Compare(k, n) == 0;
      if (!known) TL_CHECK_TYPE(false, op, "() got an unexpected keyword argument '", PyUnicode_AsUTF8(k), "'");
    }
  }
  if (reorder) {
    stack.reserve(bound.size());
    for (size_t i : h->boxed_order) stack.push_back(std::move(bound[i]));
  }
}

PyObject* returns_to_python(const c10::FunctionSchema& s, c10::Stack& stack) {
  const auto& rets = s.returns();
  if (rets.empty()) Py_RETURN_NONE;
  TL_CHECK(stack.size() >= rets.size(), s.qualifiedName(), ": the kernel left ", stack.size(), " values, expected ",
           rets.size());
  if (rets.size() == 1) return to_python(stack[0], &rets[0].type);
  PyObject* t = PyTuple_New((Py_ssize_t)rets.size());
  if (!t) return nullptr;
  for (size_t i = 0; i < rets.size(); ++i) {
    PyObject* e = to_python(stack[i], &rets[i].type);
    if (!e) {
      Py_DECREF(t);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, (Py_ssize_t)i, e);
  }
  return t;
}

void handle_capsule_free(PyObject*) {}

OpHandle* handle_of(PyObject* capsule) {
  auto* h = static_cast<OpHandle*>(PyCapsule_GetPointer(capsule, "torchlike.OpHandle"));
  if (!h) throw python_error_set();
  return h;
}

PyObject* ops_handle(PyObject*, PyObject* name) {
  TL_PY_BEGIN
  const char* n = PyUnicode_AsUTF8(name);
  if (!n) return nullptr;
  return PyCapsule_New(handle_for(n), "torchlike.OpHandle", handle_capsule_free);
  TL_PY_END
}

// Binds and calls: kwargs may be null; `boxed` as bind_arguments.
PyObject* call_op(PyObject* handle, PyObject* args, PyObject* kwargs, bool boxed) {
  OpHandle* h = handle_of(handle);
  const c10::FunctionSchema* s = h->entry->schemaOrNull();
  TL_CHECK(s != nullptr, h->entry->name(), ": the operator's schema was removed");
  if (s != h->schema) h->refresh(s);
  c10::Stack stack;
  bind_arguments(h, *s, args, kwargs, stack, boxed);
  // The generated bindings' GIL policy (call_without_gil): released for
  // large tensors, tensor lists and factories, kept for small tensors, where
  // releasing and re-taking it costs as much as the kernel (and a Python
  // kernel would take it straight back).
  int weight = detail::kNotTensor;
  for (const IValue& v : stack) {
    if (v.tag == IValue::Tag::Tensor) weight |= detail::gil_weight(v.tensor);
    else if (v.tag == IValue::Tag::TensorList || v.tag == IValue::Tag::OptionalTensorList) weight |= detail::kLargeTensor;
  }
  if (weight == detail::kSmallTensor) {
    c10::Dispatcher::singleton().callBoxed(*h->entry, &stack);
  } else {
    GilRelease nogil;
    c10::Dispatcher::singleton().callBoxed(*h->entry, &stack);
  }
  return returns_to_python(*s, stack);
}

// _ops_call(handle, args, kwargs)
PyObject* ops_call(PyObject*, PyObject* const* a, Py_ssize_t n) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(n == 3 && PyTuple_Check(a[1]) && (a[2] == Py_None || PyDict_Check(a[2])),
                "_ops_call(handle, args, kwargs)");
  return call_op(a[0], a[1], a[2] == Py_None ? nullptr : a[2], false);
  TL_PY_END
}

// _ops_call_boxed(handle, args): every parameter positionally, keyword-only
// ones included (a recorded call replayed: jit, compile).
PyObject* ops_call_boxed(PyObject*, PyObject* const* a, Py_ssize_t n) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(n == 2 && PyTuple_Check(a[1]), "_ops_call_boxed(handle, args)");
  return call_op(a[0], a[1], nullptr, true);
  TL_PY_END
}

// _ops_call_fast(handle, *args, **kwargs): the same, vectorcall-shaped, so that
// OpOverload (a functools.partial over it) is called without a Python frame.
PyObject* ops_call_fast(PyObject* self, PyObject* const* a, Py_ssize_t nargsf, PyObject* kwnames) {
  TL_PY_BEGIN
  Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  TL_CHECK_TYPE(n >= 1, "_ops_call_fast(handle, *args, **kwargs)");
  PyObject* args = PyTuple_New(n - 1);
  if (!args) return nullptr;
  for (Py_ssize_t i = 1; i < n; ++i) {
    Py_INCREF(a[i]);
    PyTuple_SET_ITEM(args, i - 1, a[i]);
  }
  PyObject* kwargs = Py_None;
  Py_INCREF(kwargs);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  if (nkw > 0) {
    Py_DECREF(kwargs);
    kwargs = PyDict_New();
    for (Py_ssize_t i = 0; kwargs && i < nkw; ++i) {
      if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), a[n + i]) < 0) Py_CLEAR(kwargs);
    }
  }
  if (!kwargs) {
    Py_DECREF(args);
    return nullptr;
  }
  PyObject* call[3] = {a[0], args, kwargs};
  PyObject* r = ops_call(self, call, 3);
  Py_DECREF(args);
  Py_DECREF(kwargs);
  return r;
  TL_PY_END
}

// _ops_schema_info(handle) -> [(name, type, default_text or None, kwarg_only, is_write)], [(name, type)]
PyObject* ops_schema_info(PyObject*, PyObject* capsule) {
  TL_PY_BEGIN
  OpHandle* h = handle_of(capsule);
  const c10::FunctionSchema* s = h->entry->schemaOrNull();
  TL_CHECK(s != nullptr, h->entry->name(), ": no schema");
  PyObject* args = PyList_New(0);
  for (const auto& p : s->arguments()) {
    PyObject* d = p.default_value ? PyUnicode_FromString(p.default_value->c_str()) : (Py_INCREF(Py_None), Py_None);
    PyObject* e = Py_BuildValue("(ssNOO)", p.name.c_str(), p.type.str().c_str(), d, p.kwarg_only ? Py_True : Py_False,
                                p.alias && p.alias->is_write ? Py_True : Py_False);
    PyList_Append(args, e);
    Py_DECREF(e);
  }
  PyObject* rets = PyList_New(0);
  for (const auto& r : s->returns()) {
    PyObject* e = Py_BuildValue("(ssO)", r.name.c_str(), r.type.str().c_str(),
                                r.alias && r.alias->is_write ? Py_True : Py_False);
    PyList_Append(rets, e);
    Py_DECREF(e);
  }
  return Py_BuildValue("(NN)", args, rets);
  TL_PY_END
}

// ---------------------------------------------------------------- Python kernels

// Owns the Python callable of a kernel; dropping it takes the GIL.
struct PyKernel {
  PyObject* fn;      // a new reference, taken here
  bool fallback;     // called as fn(op_name, keyset_bits, *args)
  bool with_keyset;  // an impl called as fn(keyset_bits, *args)
  PyKernel(PyObject* f, bool fb, bool ks) : fn(f), fallback(fb), with_keyset(ks) { Py_INCREF(fn); }
  PyKernel(const PyKernel&) = delete;
  PyKernel& operator=(const PyKernel&) = delete;
  ~PyKernel() {
    if (Py_IsInitialized()) {
      PyGILState_STATE st = PyGILState_Ensure();
      Py_DECREF(fn);
      PyGILState_Release(st);
    }
  }
};

void python_kernel(void* ctx, const c10::OperatorEntry& op, c10::DispatchKeySet ks, c10::Stack* stack) {
  auto* k = static_cast<PyKernel*>(ctx);
  const c10::FunctionSchema* s = op.schemaOrNull();
  TL_CHECK(s != nullptr, op.name(), ": a Python kernel needs the operator's schema");
  size_t nargs = s->arguments().size();
  PyGILState_STATE st = PyGILState_Ensure();
  PyObject* result = nullptr;
  {
    size_t extra = k->fallback ? 2 : (k->with_keyset ? 1 : 0);
    PyObject* args = PyTuple_New((Py_ssize_t)(nargs + extra));
    bool ok = args != nullptr;
    size_t base = stack->size() - nargs;
    if (ok && k->fallback) {
      PyTuple_SET_ITEM(args, 0, PyUnicode_FromString(op.name().c_str()));
      PyTuple_SET_ITEM(args, 1, PyLong_FromUnsignedLongLong(ks.raw()));
    } else if (ok && k->with_keyset) {
      PyTuple_SET_ITEM(args, 0, PyLong_FromUnsignedLongLong(ks.raw()));
    }
    for (size_t i = 0; ok && i < nargs; ++i) {
      PyObject* v = to_python((*stack)[base + i], &s->arguments()[i].type);
      if (!v) ok = false;
      else PyTuple_SET_ITEM(args, (Py_ssize_t)(extra + i), v);
    }
    if (ok) result = PyObject_Call(k->fn, args, nullptr);
    Py_XDECREF(args);
    if (!result) {
      python_error err;  // takes the pending Python exception
      PyGILState_Release(st);
      throw err;
    }
  }
  // Returns back onto the stack, checked against the schema.
  try {
    stack->resize(stack->size() - nargs);
    const auto& rets = s->returns();
    std::vector<PyObject*> items;
    if (rets.size() == 1) {
      items.push_back(result);
    } else if (!rets.empty()) {
      TL_CHECK_TYPE(PyTuple_Check(result) && (size_t)PyTuple_GET_SIZE(result) == rets.size(), op.name(),
                    ": the Python kernel must return a tuple of ", rets.size(), " values, got ",
                    Py_TYPE(result)->tp_name);
      for (size_t i = 0; i < rets.size(); ++i) items.push_back(PyTuple_GET_ITEM(result, (Py_ssize_t)i));
    }
    for (size_t i = 0; i < rets.size(); ++i) {
      stack->push_back(to_ivalue(items[i], rets[i].type, op.name(), "return " + std::to_string(i), false));
    }
  } catch (python_error_set&) {
    python_error err;
    Py_DECREF(result);
    PyGILState_Release(st);
    throw err;
  } catch (...) {
    Py_DECREF(result);
    PyGILState_Release(st);
    throw;
  }
  Py_DECREF(result);
  PyGILState_Release(st);
}

// The Autograd kernel of a Python custom op: when no argument needs a
// gradient (grad mode off, or no input requires grad) it goes straight to the
// kernel below Autograd, in C++; only a call that builds a graph enters Python.
void python_autograd_kernel(void* ctx, const c10::OperatorEntry& op, c10::DispatchKeySet ks, c10::Stack* stack) {
  bool needs_grad = false;
  if (torchlike::autograd::is_grad_enabled()) {
    size_t nargs = op.numArguments();
    for (size_t i = stack->size() - nargs; i < stack->size() && !needs_grad; ++i) {
      const IValue& v = (*stack)[i];
      if (v.tag == IValue::Tag::Tensor) {
        needs_grad = v.tensor.defined() && torchlike::autograd::requires_grad(v.tensor);
      } else if (v.tag == IValue::Tag::TensorList || v.tag == IValue::Tag::OptionalTensorList) {
        for (const auto& t : v.tensors) needs_grad = needs_grad || (t.defined() && torchlike::autograd::requires_grad(t));
      }
    }
  }
  if (!needs_grad) {
    c10::Dispatcher::singleton().redispatchBoxed(op, ks.keysBelow(ks.highestPriorityKey()), stack);
    return;
  }
  python_kernel(ctx, op, ks, stack);
}

// ---------------------------------------------------------------- registrations

std::mutex g_reg_mu;
std::map<long long, c10::RegistrationHandle> g_regs;
long long g_next_reg = 1;

PyObject* keep(c10::RegistrationHandle h) {
  std::lock_guard<std::mutex> g(g_reg_mu);
  long long id = g_next_reg++;
  g_regs.emplace(id, std::move(h));
  return PyLong_FromLongLong(id);
}

c10::DispatchKey parse_key(const char* name) { return c10::parseDispatchKey(name); }

// _library_define(schema) -> registration id
PyObject* library_define(PyObject*, PyObject* schema) {
  TL_PY_BEGIN
  const char* s = PyUnicode_AsUTF8(schema);
  if (!s) return nullptr;
  c10::FunctionSchema parsed = c10::FunctionSchema::parse(s);  // ValueError on junk
  TL_CHECK_VALUE(!parsed.ns().empty(), "define: the schema must name its namespace (ns::name)");
  c10::OperatorEntry* e = c10::Dispatcher::singleton().find(parsed.qualifiedName());
  TL_CHECK(e == nullptr || !e->hasSchema(), "Tried to register an operator (", parsed.qualifiedName(),
           ") with the same name and overload name multiple times. Each overload's schema should only be "
           "registered with a single call to def(). Duplicate registration: ", e ? e->schema() : "");
  return keep(c10::Dispatcher::singleton().addSchema(s));
  TL_PY_END
}

// _library_impl(qualified_name, key, fn, with_keyset) -> registration id
PyObject* library_impl(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *name = nullptr, *key = nullptr;
  PyObject* fn = nullptr;
  int with_keyset = 0;
  if (!PyArg_ParseTuple(args, "ssO|p", &name, &key, &fn, &with_keyset)) return nullptr;
  TL_CHECK_TYPE(PyCallable_Check(fn), "impl: the kernel must be callable");
  c10::DispatchKey k = parse_key(key);
  auto owner = std::make_shared<PyKernel>(fn, false, with_keyset != 0);
  c10::KernelFunction kf = c10::KernelFunction::makeFromBoxed(python_kernel, owner.get(), owner, "python kernel");
  return keep(c10::Dispatcher::singleton().addKernel(name, k, std::move(kf)));
  TL_PY_END
}

// _library_impl_fallthrough(qualified_name, key) -> registration id: calls
// skip this key for the operator (torchlike.library.fallthrough_kernel).
PyObject* library_impl_fallthrough(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *name = nullptr, *key = nullptr;
  if (!PyArg_ParseTuple(args, "ss", &name, &key)) return nullptr;
  return keep(c10::Dispatcher::singleton().addKernel(name, parse_key(key), c10::KernelFunction::makeFallthrough()));
  TL_PY_END
}

// _library_impl_autograd(qualified_name, fn) -> registration id: fn is
// called (on the Autograd key) only for calls that need a gradient.
PyObject* library_impl_autograd(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* name = nullptr;
  PyObject* fn = nullptr;
  if (!PyArg_ParseTuple(args, "sO", &name, &fn)) return nullptr;
  TL_CHECK_TYPE(PyCallable_Check(fn), "impl: the kernel must be callable");
  auto owner = std::make_shared<PyKernel>(fn, false, false);
  c10::KernelFunction kf =
      c10::KernelFunction::makeFromBoxed(python_autograd_kernel, owner.get(), owner, "python autograd kernel");
  return keep(c10::Dispatcher::singleton().addKernel(name, c10::parseDispatchKey("Autograd"), std::move(kf)));
  TL_PY_END
}

// _library_fallback(key, fn) -> registration id; fn(op_name, keyset_bits, *args)
PyObject* library_fallback(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* key = nullptr;
  PyObject* fn = nullptr;
  if (!PyArg_ParseTuple(args, "sO", &key, &fn)) return nullptr;
  TL_CHECK_TYPE(PyCallable_Check(fn), "fallback: the kernel must be callable");
  c10::DispatchKey k = parse_key(key);
  auto owner = std::make_shared<PyKernel>(fn, true, false);
  c10::KernelFunction kf = c10::KernelFunction::makeFromBoxed(python_kernel, owner.get(), owner, "python fallback");
  return keep(c10::Dispatcher::singleton().addFallback(k, std::move(kf)));
  TL_PY_END
}

PyObject* library_remove(PyObject*, PyObject* id) {
  TL_PY_BEGIN
  long long i = PyLong_AsLongLong(id);
  if (i == -1 && PyErr_Occurred()) return nullptr;
  c10::RegistrationHandle h;
  {
    std::lock_guard<std::mutex> g(g_reg_mu);
    auto it = g_regs.find(i);
    if (it == g_regs.end()) Py_RETURN_NONE;
    h = std::move(it->second);
    g_regs.erase(it);
  }
  h.reset();  // outside our lock: undoing takes the dispatcher's
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* ops_redispatch(PyObject*, PyObject* const* a, Py_ssize_t n) {
  // _ops_redispatch(handle, keyset_bits, args): calls the op's kernel for the
  // highest key of keyset_bits (a Python kernel passes its keyset minus its own key).
  TL_PY_BEGIN
  TL_CHECK_TYPE(n == 3 && PyTuple_Check(a[2]), "_ops_redispatch(handle, keyset, args)");
  OpHandle* h = handle_of(a[0]);
  const c10::FunctionSchema* s = h->entry->schemaOrNull();
  TL_CHECK(s != nullptr, h->entry->name(), ": no schema");
  if (s != h->schema) h->refresh(s);
  unsigned long long bits = PyLong_AsUnsignedLongLong(a[1]);
  if (PyErr_Occurred()) return nullptr;
  c10::Stack stack;
  bind_arguments(h, *s, a[2], nullptr, stack, /*boxed=*/true);
  c10::Dispatcher::singleton().redispatchBoxed(*h->entry, c10::DispatchKeySet((uint64_t)bits), &stack);
  return returns_to_python(*s, stack);
  TL_PY_END
}

// _take_registration_errors() -> [str]: errors of TL_LIBRARY blocks in libraries loaded since.
PyObject* take_registration_errors(PyObject*, PyObject*) {
  TL_PY_BEGIN
  std::vector<std::string> errs = c10::takeRegistrationErrors();
  PyObject* l = PyList_New((Py_ssize_t)errs.size());
  if (!l) return nullptr;
  for (size_t i = 0; i < errs.size(); ++i) PyList_SET_ITEM(l, (Py_ssize_t)i, PyUnicode_FromString(errs[i].c_str()));
  return l;
  TL_PY_END
}

// _tensor_impl_id(t) -> int: the address of t's TensorImpl. Graph capture
// (compile, jit) keys values by it: two Python objects may wrap one tensor.
PyObject* tensor_impl_id(PyObject*, PyObject* o) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(o), "_tensor_impl_id: expected a Tensor");
  return PyLong_FromVoidPtr(unpack(o).unsafeGetTensorImpl());
  TL_PY_END
}

// _tensor_is_wrapped_number(t) -> bool: t is a 0-dim tensor made from a
// Python number by an operator call (x * 2), which graph capture bakes in as
// a constant.
PyObject* tensor_is_wrapped_number(PyObject*, PyObject* o) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(o), "_tensor_is_wrapped_number: expected a Tensor");
  return PyBool_FromLong(unpack(o).unsafeGetTensorImpl()->is_wrapped_number());
  TL_PY_END
}

PyMethodDef g_methods[] = {
    {"_tensor_impl_id", tensor_impl_id, METH_O, nullptr},
    {"_tensor_is_wrapped_number", tensor_is_wrapped_number, METH_O, nullptr},
    {"_ops_handle", ops_handle, METH_O, nullptr},
    {"_ops_call", (PyCFunction)(void (*)(void))ops_call, METH_FASTCALL, nullptr},
    {"_ops_call_boxed", (PyCFunction)(void (*)(void))ops_call_boxed, METH_FASTCALL, nullptr},
    {"_ops_call_fast", (PyCFunction)(void (*)(void))ops_call_fast, METH_FASTCALL | METH_KEYWORDS, nullptr},
    {"_ops_redispatch", (PyCFunction)(void (*)(void))ops_redispatch, METH_FASTCALL, nullptr},
    {"_ops_schema_info", ops_schema_info, METH_O, nullptr},
    {"_library_define", library_define, METH_O, nullptr},
    {"_library_impl", library_impl, METH_VARARGS, nullptr},
    {"_library_fallback", library_fallback, METH_VARARGS, nullptr},
    {"_library_impl_fallthrough", library_impl_fallthrough, METH_VARARGS, nullptr},
    {"_library_impl_autograd", library_impl_autograd, METH_VARARGS, nullptr},
    {"_library_remove", library_remove, METH_O, nullptr},
    {"_take_registration_errors", take_registration_errors, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_python_ops(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
