#include "PythonArgParser.h"

#include <cstring>
#include <sstream>
#include <string>
#include <unordered_map>
#include "NumberArgs.h"
#include "aten/native/Copy.h"
#include "c10/cuda/CachingAllocatorPolicy.h"

namespace tl::python {

// ------------------------------------------------------------------ errors

// The Python class of allocator out-of-memory errors, looked up on first
// use (it is defined in Python, after _C is imported); null if unavailable.
static PyObject* out_of_memory_error_type() {
  static PyObject* cls = nullptr;
  if (cls) return cls;
  PyObject* mod = PyImport_ImportModule("torchlike._legacy_api");
  if (mod) {
    cls = PyObject_GetAttrString(mod, "OutOfMemoryError");  // kept for the process
    Py_DECREF(mod);
  }
  if (!cls) PyErr_Clear();
  return cls;
}

void translate_exception() {
  try {
    throw;
  } catch (const c10::cuda::OutOfMemoryError& e) {
    // torchlike.OutOfMemoryError (also torchlike.cuda.OutOfMemoryError), a RuntimeError.
    PyObject* t = out_of_memory_error_type();
    PyErr_SetString(t ? t : PyExc_RuntimeError, e.what());
  } catch (const c10::Error& e) {
    PyObject* t = PyExc_RuntimeError;
    switch (e.kind()) {
      case c10::ErrorKind::Index: t = PyExc_IndexError; break;
      case c10::ErrorKind::Type: t = PyExc_TypeError; break;
      case c10::ErrorKind::Value: t = PyExc_ValueError; break;
      case c10::ErrorKind::NotImplemented: t = PyExc_NotImplementedError; break;
      default: break;
    }
    PyErr_SetString(t, e.what());
  } catch (python_error& e) {
    e.restore();
  } catch (const python_error_set&) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "internal error: Python error expected");
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "out of memory");
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

python_error::python_error() {
  PyErr_Fetch(&type_, &value_, &traceback_);
  PyErr_NormalizeException(&type_, &value_, &traceback_);
  if (!type_) {
    msg_ = "internal error: Python error expected";
    return;
  }
  if (traceback_ && value_) PyException_SetTraceback(value_, traceback_);
  msg_ = reinterpret_cast<PyTypeObject*>(type_)->tp_name;
  if (PyObject* s = value_ ? PyObject_Str(value_) : nullptr) {
    if (const char* u = PyUnicode_AsUTF8(s)) msg_ += std::string(": ") + u;
    Py_DECREF(s);
  }
  PyErr_Clear();  // from Str/AsUTF8; the exception itself is held here
}

python_error::python_error(const python_error& o)
    : std::exception(o), type_(o.type_), value_(o.value_), traceback_(o.traceback_), msg_(o.msg_) {
  if (!type_ && !value_ && !traceback_) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_XINCREF(type_);
  Py_XINCREF(value_);
  Py_XINCREF(traceback_);
  PyGILState_Release(g);
}

python_error::~python_error() {
  if (!type_ && !value_ && !traceback_) return;
  if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
  PyGILState_STATE g = PyGILState_Ensure();
  Py_XDECREF(type_);
  Py_XDECREF(value_);
  Py_XDECREF(traceback_);
  PyGILState_Release(g);
}

void python_error::restore() {
  if (!type_) {
    PyErr_SetString(PyExc_RuntimeError, msg_.c_str());
    return;
  }
  PyErr_Restore(type_, value_, traceback_);  // steals the references
  type_ = value_ = traceback_ = nullptr;
}

// ------------------------------------------------------------------ helpers

std::string type_name(PyObject* o) {
  if (o == Py_None) return "NoneType";
  if (is_tensor(o)) return "Tensor";
  return Py_TYPE(o)->tp_name;
}

bool is_number(PyObject* o) {
  if (PyLong_Check(o) || PyFloat_Check(o)) return true;  // bool is a PyLong
  if (is_tensor(o) || PyUnicode_Check(o) || PySequence_Check(o)) return false;
  // NumPy scalars and other number-likes.
  return PyIndex_Check(o) || (Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float);
}

c10::Scalar to_scalar(PyObject* o) {
  if (PyBool_Check(o)) return c10::Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) {
      // Out of int64 range: PyTorch keeps it as a double-valued scalar? It raises.
      TL_CHECK(false, "value cannot be converted to type int64 without overflow");
    }
    return c10::Scalar((int64_t)v);
  }
  if (PyFloat_Check(o)) return c10::Scalar(PyFloat_AS_DOUBLE(o));
  if (is_tensor(o)) {
    const c10::TensorBase& t = unpack(o);
    TL_CHECK(t.numel() == 1, "a Tensor with ", t.numel(), " elements cannot be converted to Scalar");
    return c10::item(t);
  }
  if (PyIndex_Check(o) && !(Py_TYPE(o)->tp_as_number && Py_TYPE(o)->tp_as_number->nb_float &&
                            PyObject_HasAttrString(o, "is_integer"))) {
    PyObject* i = PyNumber_Index(o);
    if (!i) throw python_error_set();
    long long v = PyLong_AsLongLong(i);
    Py_DECREF(i);
    // NumPy bools are index-able; keep them bools.
    PyObject* dt = PyObject_GetAttrString(o, "dtype");
    if (dt) {
      PyObject* kind = PyObject_GetAttrString(dt, "kind");
      bool is_bool = kind && PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "b") == 0;
      Py_XDECREF(kind);
      Py_DECREF(dt);
      PyErr_Clear();
      if (is_bool) return c10::Scalar(v != 0);
    } else {
      PyErr_Clear();
    }
    return c10::Scalar((int64_t)v);
  }
  double d = PyFloat_AsDouble(o);
  if (d == -1.0 && PyErr_Occurred()) throw python_error_set();
  return c10::Scalar(d);
}

static bool is_int_like(PyObject* o) {
  if (PyLong_Check(o)) return true;
  if (is_tensor(o)) {
    const c10::TensorBase& t = unpack(o);
    return t.dim() == 0 && c10::isIntegralType(t.scalar_type(), true);
  }
  return !PyFloat_Check(o) && PyIndex_Check(o);
}

static int64_t to_int(PyObject* o) {
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    TL_CHECK(!overflow, "Python int too large to convert to int64");
    return v;
  }
  if (is_tensor(o)) return c10::item(unpack(o)).toLong();
  PyObject* i = PyNumber_Index(o);
  if (!i) throw python_error_set();
  long long v = PyLong_AsLongLong(i);
  Py_DECREF(i);
  return v;
}

// ------------------------------------------------------------------ signature parsing

static ParamType parse_type(const std::string& t, int* list_size, bool* optional, std::string* base_out) {
  std::string s = t;
  *optional = false;
  *list_size = 0;
  if (!s.empty() && s.back() == '?') {
    *optional = true;
    s.pop_back();
  }
  bool list = false;
  size_t br = s.find('[');
  if (br != std::string::npos) {
    list = true;
    std::string n = s.substr(br + 1, s.size() - br - 2);
    *list_size = n.empty() ? 0 : std::atoi(n.c_str());
    s = s.substr(0, br);
    if (!s.empty() && s.back() == '?') s.pop_back();  // Tensor?[]
  }
  *base_out = s;
  if (list) {
    if (s == "int" || s == "SymInt") return ParamType::IntList;
    if (s == "Tensor") return ParamType::TensorList;
    TL_ERROR("PythonArgParser: unsupported list type ", t);
  }
  if (s == "Tensor") return ParamType::Tensor;
  if (s == "Scalar") return ParamType::Scalar;
  if (s == "int" || s == "SymInt") return ParamType::Int;
  if (s == "float") return ParamType::Double;
  if (s == "bool") return ParamType::Bool;
  if (s == "str") return ParamType::String;
  if (s == "ScalarType") return ParamType::ScalarType;
  if (s == "Layout") return ParamType::Layout;
  if (s == "Device") return ParamType::Device;
  if (s == "Generator") return ParamType::Generator;
  if (s == "MemoryFormat") return ParamType::MemoryFormat;
  TL_ERROR("PythonArgParser: unknown type ", t);
}

static PyObject* default_object(const FunctionParameter& p, const std::string& d) {
  if (d == "None") return Py_NewRef(Py_None);
  if (d == "True") return Py_NewRef(Py_True);
  if (d == "False") return Py_NewRef(Py_False);
  if (!d.empty() && (d[0] == '"' || d[0] == '\'')) return PyUnicode_FromString(d.substr(1, d.size() - 2).c_str());
  if (p.type == ParamType::ScalarType) {
    static const std::pair<const char*, c10::ScalarType> names[] = {
        {"long", c10::ScalarType::Long}, {"int", c10::ScalarType::Int}, {"float", c10::ScalarType::Float},
        {"double", c10::ScalarType::Double}, {"bool", c10::ScalarType::Bool}};
    for (auto& n : names)
      if (d == n.first) return Py_NewRef(dtype_object(n.second));
    TL_ERROR("PythonArgParser: bad ScalarType default ", d);
  }
  if (p.type == ParamType::MemoryFormat) return memory_format_object(c10::MemoryFormat::Contiguous);
  if (d[0] == '[') {
    PyObject* lst = PyList_New(0);
    std::string inner = d.substr(1, d.size() - 2);
    std::stringstream ss(inner);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.find_first_not_of(' ') == std::string::npos) continue;
      PyObject* v = PyLong_FromLongLong(std::stoll(item));
      PyList_Append(lst, v);
      Py_DECREF(v);
    }
    PyObject* tup = PyList_AsTuple(lst);
    Py_DECREF(lst);
    return tup;
  }
  if (d.find_first_of(".eE") != std::string::npos && d.find_first_not_of("0123456789-+.eE") == std::string::npos)
    return PyFloat_FromDouble(std::stod(d));
  if (d == "inf") return PyFloat_FromDouble(INFINITY);
  if (d == "-inf") return PyFloat_FromDouble(-INFINITY);
  return PyLong_FromLongLong(std::stoll(d));
}

// Argument positions where a Python number may stand for a Tensor: those
// where PyTorch has a Scalar overload (NumberArgs.h says why and how it is made).
static uint64_t number_arg_positions(const std::string& name) {
  static const std::unordered_map<std::string, uint64_t> table = [] {
    std::unordered_map<std::string, uint64_t> m;
    for (const NumberArgs& e : kNumberArgs) m.emplace(e.op, e.positions);
    return m;
  }();
  auto it = table.find(name);
  return it == table.end() ? 0 : it->second;
}

FunctionSignature::FunctionSignature(const std::string& fmt, bool is_method) : method(is_method) {
  size_t open = fmt.find('(');
  name = fmt.substr(0, open);
  std::string body = fmt.substr(open + 1, fmt.rfind(')') - open - 1);
  bool kwonly = false;
  // Split on top-level commas (defaults like [0,1] contain commas).
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : body) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  std::string shown;
  for (std::string p : parts) {
    size_t a = p.find_first_not_of(' ');
    p = p.substr(a);
    if (p == "*") {
      kwonly = true;
      shown += shown.empty() ? "*" : ", *";
      continue;
    }
    FunctionParameter fp;
    size_t sp = p.find(' ');
    fp.type_str = p.substr(0, sp);
    std::string rest = p.substr(sp + 1);
    size_t eq = rest.find('=');
    fp.name = rest.substr(0, eq);
    std::string base;
    fp.type = parse_type(fp.type_str, &fp.list_size, &fp.optional, &base);
    fp.kwarg_only = kwonly;
    if (eq != std::string::npos) {
      std::string d = rest.substr(eq + 1);
      fp.has_default = true;
      if (d == "None") fp.optional = true;
      fp.default_obj = default_object(fp, d);
    }
    if (fp.type == ParamType::Tensor && !params.empty()) {
      uint64_t pos = number_arg_positions(name);
      size_t index = params.size();  // the schema position: self is params[0] for methods too
      fp.allow_number = (pos >> 63) || (index < 63 && ((pos >> index) & 1));
    }
    fp.py_name = PyUnicode_InternFromString(fp.name.c_str());
    if (!(method && params.empty())) {
      if (!shown.empty()) shown += ", ";
      shown += fp.type_str + " " + fp.name;
      if (eq != std::string::npos) shown += " = " + rest.substr(eq + 1);
    }
    if (!kwonly) ++max_positional;
    params.push_back(std::move(fp));
  }
  text = "(" + shown + ")";
}

bool FunctionParameter::check(PyObject* o) const {
  if (o == Py_None) return optional;
  switch (type) {
    case ParamType::Tensor: return is_tensor(o) || (allow_number && is_number(o));
    case ParamType::Scalar: return is_number(o) || (is_tensor(o) && unpack(o).numel() == 1 && unpack(o).dim() == 0);
    case ParamType::Int: return !PyBool_Check(o) ? is_int_like(o) : true;
    case ParamType::Double: return PyFloat_Check(o) || PyLong_Check(o) || (is_number(o) && !is_tensor(o)) ||
                                   (is_tensor(o) && unpack(o).dim() == 0);
    case ParamType::Bool: return PyBool_Check(o) || (PyIndex_Check(o) && !PyLong_Check(o) && is_number(o));
    case ParamType::String: return PyUnicode_Check(o);
    case ParamType::IntList: {
      if (list_size > 0 && is_int_like(o)) return true;
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      for (Py_ssize_t i = 0; i < n; ++i)
        if (!is_int_like(PySequence_Fast_GET_ITEM(o, i))) return false;
      return true;
    }
    case ParamType::TensorList: {
      if (!PyTuple_Check(o) && !PyList_Check(o)) return false;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      if (list_size > 0 && n != list_size) return false;  // Tensor[2] out: exactly two
      // Tensor?[] (index lists) also takes None for "this dim not indexed".
      const bool none_ok = type_str.find("?[") != std::string::npos;
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* e = PySequence_Fast_GET_ITEM(o, i);
        if (!is_tensor(e) && !(none_ok && e == Py_None)) return false;
      }
      return true;
    }
    case ParamType::ScalarType: return is_dtype(o);
    case ParamType::Layout: return Py_TYPE(o) == &LayoutType;
    case ParamType::Device: return is_device(o) || PyUnicode_Check(o) || (PyLong_Check(o) && !PyBool_Check(o));
    case ParamType::Generator: return is_generator(o);
    case ParamType::MemoryFormat: return Py_TYPE(o) == &MemoryFormatType;
  }
  return false;
}

// ------------------------------------------------------------------ matching

PythonArgParser::PythonArgParser(std::vector<std::string> fmts, bool method) {
  for (auto& f : fmts) sigs_.emplace_back(f, method);
  name_ = sigs_.empty() ? "" : sigs_[0].name;
}

bool PythonArgParser::try_match(const FunctionSignature& s, PyObject* self, PyObject* args, PyObject* kwargs,
                                ParsedArgs& out, std::string* why) const {
  const size_t np = s.params.size();
  for (size_t i = 0; i < np; ++i) out.obj[i] = nullptr;
  size_t first = 0;
  if (s.method) {
    out.obj[0] = self;
    first = 1;
  }
  Py_ssize_t nargs = args ? PyTuple_GET_SIZE(args) : 0;
  size_t max_pos = (size_t)s.max_positional;
  // int[] varargs: x.view(2, 3), torch.zeros(2, 3)
  bool varargs = false;
  if (first < np && s.params[first].type == ParamType::IntList && (size_t)nargs > max_pos - first && nargs > 1) {
    varargs = true;
    for (Py_ssize_t i = 0; i < nargs && varargs; ++i) varargs = is_int_like(PyTuple_GET_ITEM(args, i));
  }
  if (!varargs && first < np && s.params[first].type == ParamType::IntList && nargs == 1 && max_pos - first >= 1 &&
      is_int_like(PyTuple_GET_ITEM(args, 0)) && s.params[first].list_size == 0) {
    varargs = true;  // torch.zeros(3)
  }
  if (varargs) {
    out.obj[first] = args;  // a tuple of ints is a valid int[]
  } else {
    if ((size_t)nargs > max_pos - first) {
      if (why)
        *why = c10::str(s.name, "() takes ", max_pos - first, " positional argument", max_pos - first == 1 ? "" : "s",
                        " but ", nargs, " were given");
      return false;
    }
    for (Py_ssize_t i = 0; i < nargs; ++i) out.obj[first + i] = PyTuple_GET_ITEM(args, i);
  }
  if (kwargs) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value)) {
      size_t k = first;
      for (; k < np; ++k)
        if (key == s.params[k].py_name || PyUnicode_Compare(key, s.params[k].py_name) == 0) break;
      if (k == np) {
        if (why) *why = c10::str(s.name, "() got an unexpected keyword argument '", PyUnicode_AsUTF8(key), "'");
        return false;
      }
      if (out.obj[k]) {
        if (why) *why = c10::str(s.name, "() got multiple values for argument '", s.params[k].name, "'");
        return false;
      }
      out.obj[k] = value;
    }
  }
  for (size_t k = first; k < np; ++k) {
    const FunctionParameter& p = s.params[k];
    if (!out.obj[k]) {
      if (!p.has_default) {
        if (why) *why = c10::str(s.name, "() missing required argument '", p.name, "' (pos ", k + 1 - first, ")");
        return false;
      }
      out.obj[k] = p.default_obj;
      continue;
    }
    if (!(varargs && k == first) && !p.check(out.obj[k])) {
      if (why)
        *why = c10::str(s.name, "(): argument '", p.name, "' must be ", p.type_str, ", not ", type_name(out.obj[k]));
      return false;
    }
  }
  out.sig = &s;
  return true;
}

int PythonArgParser::parse(PyObject* self, PyObject* args, PyObject* kwargs, ParsedArgs& out) const {
  for (size_t i = 0; i < sigs_.size(); ++i)
    if (try_match(sigs_[i], self, args, kwargs, out, nullptr)) return (int)i;
  std::string reason;
  if (sigs_.size() == 1) try_match(sigs_[0], self, args, kwargs, out, &reason);
  raise_no_match(self, args, kwargs, reason);
}

void PythonArgParser::raise_no_match(PyObject*, PyObject* args, PyObject* kwargs, const std::string& reason) const {
  if (!reason.empty()) TL_CHECK_TYPE(false, reason);
  std::string got = "(";
  Py_ssize_t n = args ? PyTuple_GET_SIZE(args) : 0;
  for (Py_ssize_t i = 0; i < n; ++i) got += (i ? ", " : "") + type_name(PyTuple_GET_ITEM(args, i));
  if (kwargs) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &key, &value))
      got += std::string(got.size() > 1 ? ", " : "") + PyUnicode_AsUTF8(key) + "=" + type_name(value);
  }
  got += ")";
  std::string msg = name_ + "() received an invalid combination of arguments - got " + got + ", but expected one of:";
  for (auto& s : sigs_) msg += "\n * " + s.text;
  TL_CHECK_TYPE(false, msg);
}

// ------------------------------------------------------------------ accessors

const c10::TensorBase& ParsedArgs::tensor(int i) {
  PyObject* o = obj[i];
  if (is_tensor(o)) return unpack(o);
  if (o == nullptr || o == Py_None) {
    tensors_[i] = c10::TensorBase();
    return tensors_[i];
  }
  tensors_[i] = c10::wrapped_scalar_tensor(to_scalar(o));
  return tensors_[i];
}
std::optional<c10::TensorBase> ParsedArgs::optionalTensor(int i) {
  if (isNone(i)) return std::nullopt;
  return tensor(i);
}
c10::Scalar ParsedArgs::scalar(int i) { return to_scalar(obj[i]); }
std::optional<c10::Scalar> ParsedArgs::optionalScalar(int i) {
  if (isNone(i)) return std::nullopt;
  return scalar(i);
}
int64_t ParsedArgs::toInt64(int i) { return to_int(obj[i]); }
std::optional<int64_t> ParsedArgs::optionalInt64(int i) {
  if (isNone(i)) return std::nullopt;
  return toInt64(i);
}
double ParsedArgs::toDouble(int i) {
  PyObject* o = obj[i];
  if (is_tensor(o)) return c10::item(unpack(o)).toDouble();
  double d = PyFloat_AsDouble(o);
  if (d == -1.0 && PyErr_Occurred()) throw python_error_set();
  return d;
}
std::optional<double> ParsedArgs::optionalDouble(int i) {
  if (isNone(i)) return std::nullopt;
  return toDouble(i);
}
bool ParsedArgs::toBool(int i) { return PyObject_IsTrue(obj[i]) == 1; }
std::optional<bool> ParsedArgs::optionalBool(int i) {
  if (isNone(i)) return std::nullopt;
  return toBool(i);
}
std::string_view ParsedArgs::stringView(int i) {
  Py_ssize_t n;
  const char* s = PyUnicode_AsUTF8AndSize(obj[i], &n);
  if (!s) throw python_error_set();
  return std::string_view(s, (size_t)n);
}
std::optional<std::string_view> ParsedArgs::optionalStringView(int i) {
  if (isNone(i)) return std::nullopt;
  return stringView(i);
}
c10::IntArrayRef ParsedArgs::intlist(int i) {
  PyObject* o = obj[i];
  lists_.emplace_back();
  c10::DimVector& v = lists_.back();
  if (!PyTuple_Check(o) && !PyList_Check(o)) {
    int n = sig ? sig->params[i].list_size : 1;
    v.resize(n > 0 ? n : 1, to_int(o));
    return v;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  v.resize(n);
  for (Py_ssize_t k = 0; k < n; ++k) v[k] = to_int(PySequence_Fast_GET_ITEM(o, k));
  return v;
}
std::optional<c10::IntArrayRef> ParsedArgs::optionalIntlist(int i) {
  if (isNone(i)) return std::nullopt;
  return intlist(i);
}
c10::ArrayRef<c10::TensorBase> ParsedArgs::tensorlist(int i) {
  PyObject* o = obj[i];
  tensorlists_.emplace_back();
  auto& v = tensorlists_.back();
  if (o == nullptr || o == Py_None) return v;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* e = PySequence_Fast_GET_ITEM(o, k);
    v.push_back(e == Py_None ? c10::TensorBase() : unpack(e));  // None only passes check() for Tensor?[]
  }
  return v;
}
c10::ScalarType ParsedArgs::scalartype(int i) { return unpack_dtype(obj[i]); }
std::optional<c10::ScalarType> ParsedArgs::optionalScalarType(int i) {
  if (isNone(i)) return std::nullopt;
  return scalartype(i);
}
std::optional<c10::Layout> ParsedArgs::optionalLayout(int i) {
  if (isNone(i)) return std::nullopt;
  return (c10::Layout) reinterpret_cast<EnumObject*>(obj[i])->value;
}
c10::Device ParsedArgs::device(int i) { return parse_device(obj[i]); }
std::optional<c10::Device> ParsedArgs::optionalDevice(int i) {
  if (isNone(i)) return std::nullopt;
  return device(i);
}
std::optional<c10::Generator> ParsedArgs::optionalGenerator(int i) {
  if (isNone(i)) return std::nullopt;
  return reinterpret_cast<GeneratorObject*>(obj[i])->gen;
}
c10::MemoryFormat ParsedArgs::memoryformat(int i) {
  return (c10::MemoryFormat) reinterpret_cast<EnumObject*>(obj[i])->value;
}
std::optional<c10::MemoryFormat> ParsedArgs::optionalMemoryFormat(int i) {
  if (isNone(i)) return std::nullopt;
  return memoryformat(i);
}

// ------------------------------------------------------------------ tables and wrapping

void MethodTables::add(const char* module, bool method, const char* name, PyCFunction fn) {
  PyMethodDef def{name, fn, METH_VARARGS | METH_KEYWORDS, nullptr};
  if (method) methods.push_back(def);
  else functions.emplace_back(module, def);
}

static PyMethodDef* immortal_def(const char* name, PyCFunction fn, int flags) {
  // Python keeps pointers to the def and its name: both live for the process.
  return new PyMethodDef{strdup(name), fn, flags, nullptr};
}

void add_function(PyObject* module, const char* name, PyCFunction fn, int flags) {
  TL_CHECK_VALUE(module && PyModule_Check(module), "add_function(", name, "): expected a module");
  PyObject* modname = PyModule_GetNameObject(module);
  if (!modname) throw python_error_set();
  PyObject* f = PyCFunction_NewEx(immortal_def(name, fn, flags), nullptr, modname);
  Py_DECREF(modname);
  if (!f) throw python_error_set();
  int rc = PyObject_SetAttrString(module, name, f);
  Py_DECREF(f);
  if (rc < 0) throw python_error_set();
}

void add_tensor_method(const char* name, PyCFunction fn, int flags) {
  PyObject* descr = PyDescr_NewMethod(&TensorBaseType, immortal_def(name, fn, flags));
  if (!descr) throw python_error_set();
  int rc = PyDict_SetItemString(TensorBaseType.tp_dict, name, descr);
  Py_DECREF(descr);
  if (rc < 0) throw python_error_set();
  // Attribute lookups are cached per type version; subclasses are invalidated too.
  PyType_Modified(&TensorBaseType);
}

PyObject* wrap(c10::TensorBase t) { return wrap_tensor(std::move(t)); }
PyObject* wrap(const std::vector<c10::TensorBase>& ts) {
  PyObject* tup = PyTuple_New((Py_ssize_t)ts.size());
  for (size_t i = 0; i < ts.size(); ++i) PyTuple_SET_ITEM(tup, i, wrap_tensor(ts[i]));
  return tup;
}
PyObject* wrap(std::tuple<c10::TensorBase, c10::TensorBase> t) {
  PyObject* tup = PyTuple_New(2);
  PyTuple_SET_ITEM(tup, 0, wrap_tensor(std::get<0>(t)));
  PyTuple_SET_ITEM(tup, 1, wrap_tensor(std::get<1>(t)));
  return tup;
}
PyObject* wrap(std::tuple<c10::TensorBase, c10::TensorBase, c10::TensorBase> t) {
  PyObject* tup = PyTuple_New(3);
  PyTuple_SET_ITEM(tup, 0, wrap_tensor(std::get<0>(t)));
  PyTuple_SET_ITEM(tup, 1, wrap_tensor(std::get<1>(t)));
  PyTuple_SET_ITEM(tup, 2, wrap_tensor(std::get<2>(t)));
  return tup;
}
PyObject* wrap(double v) { return PyFloat_FromDouble(v); }
PyObject* wrap(int64_t v) { return PyLong_FromLongLong(v); }
PyObject* wrap(bool v) { return Py_NewRef(v ? Py_True : Py_False); }
PyObject* wrap(const c10::Scalar& v) {
  if (v.isBoolean()) return wrap(v.toBool());
  if (v.isIntegral(false)) return wrap(v.toLong());
  return wrap(v.toDouble());
}

// torchlike.return_types.<name>: a structseq per op, made once.
static PyTypeObject* namedtuple_type(const char* name, std::initializer_list<const char*> fields) {
  static std::vector<std::pair<std::string, PyTypeObject*>> cache;
  for (auto& kv : cache)
    if (kv.first == name) return kv.second;
  auto* members = new PyStructSequence_Field[fields.size() + 1];
  size_t i = 0;
  for (const char* f : fields) members[i++] = {f, nullptr};
  members[i] = {nullptr, nullptr};
  auto* desc = new PyStructSequence_Desc{strdup((std::string("torchlike.return_types.") + name).c_str()), nullptr,
                                         members, (int)fields.size()};
  PyTypeObject* t = PyStructSequence_NewType(desc);
  cache.emplace_back(name, t);
  return t;
}

PyObject* wrap_namedtuple(const char* name, std::initializer_list<const char*> fields,
                          std::tuple<c10::TensorBase, c10::TensorBase> t) {
  PyObject* r = PyStructSequence_New(namedtuple_type(name, fields));
  if (!r) return nullptr;
  PyStructSequence_SetItem(r, 0, wrap_tensor(std::get<0>(t)));
  PyStructSequence_SetItem(r, 1, wrap_tensor(std::get<1>(t)));
  return r;
}
PyObject* wrap_namedtuple(const char* name, std::initializer_list<const char*> fields,
                          std::tuple<c10::TensorBase, c10::TensorBase, c10::TensorBase> t) {
  PyObject* r = PyStructSequence_New(namedtuple_type(name, fields));
  if (!r) return nullptr;
  PyStructSequence_SetItem(r, 0, wrap_tensor(std::get<0>(t)));
  PyStructSequence_SetItem(r, 1, wrap_tensor(std::get<1>(t)));
  PyStructSequence_SetItem(r, 2, wrap_tensor(std::get<2>(t)));
  return r;
}

}  // namespace tl::python
