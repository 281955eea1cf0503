// Argument parsing for generated Python bindings. Each binding owns a static
// parser built from signature strings derived from the schema; a call tries
// the signatures in order without raising, and only when none fits builds a
// TypeError listing them all, as PyTorch does.
#pragma once
#include <Python.h>

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>
#include "Objects.h"
#include "c10/Exception.h"
#include "c10/Generator.h"
#include "c10/Tensor.h"

namespace tl::python {

// Converts C++ exceptions into the matching Python exception.
void translate_exception();
// Thrown when a Python API call failed and already set the Python error.
struct python_error_set : std::exception {};

// A Python exception raised by Python code that C++ called back (a tensor or
// node hook, a custom Function's backward), carried through C++ that may run
// without the GIL (the autograd engine). Construction takes the pending error
// (GIL held); translate_exception() puts it back, so the caller gets the
// original exception object, its type and its traceback.
class python_error : public std::exception {
 public:
  python_error();  // fetches the current Python error; needs the GIL
  python_error(const python_error& o);
  python_error& operator=(const python_error&) = delete;
  ~python_error() override;  // takes the GIL to drop what it still holds
  const char* what() const noexcept override { return msg_.c_str(); }
  // Hands the exception back to the interpreter (GIL held); once only.
  void restore();

 private:
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* traceback_ = nullptr;
  std::string msg_;  // "ValueError: ...", for C++ code that catches std::exception
};

#define TL_PY_BEGIN try {
#define TL_PY_END                         \
  }                                       \
  catch (...) {                           \
    ::tl::python::translate_exception();  \
    return nullptr;                       \
  }

enum class ParamType {
  Tensor, Scalar, Int, Double, Bool, String, IntList, TensorList, ScalarType, Layout, Device, Generator,
  MemoryFormat
};

struct FunctionParameter {
  ParamType type;
  std::string name;
  bool optional = false;     // accepts None
  bool kwarg_only = false;
  bool allow_number = false; // a Python number where a Tensor is expected
  int list_size = 0;         // int[2]: a bare int expands
  PyObject* default_obj = nullptr;  // owned; nullptr = required
  bool has_default = false;
  PyObject* py_name = nullptr;      // interned, for fast kwarg lookup
  std::string type_str;
  bool check(PyObject* obj) const;
};

struct FunctionSignature {
  std::string name;
  std::vector<FunctionParameter> params;
  int max_positional = 0;
  bool method = false;  // param 0 is `self`, supplied by the bound object
  std::string text;     // for error messages (without `self` for methods)
  explicit FunctionSignature(const std::string& fmt, bool method);
};

constexpr int kMaxArgs = 24;

class ParsedArgs {
 public:
  PyObject* obj[kMaxArgs];
  const FunctionSignature* sig = nullptr;

  bool isNone(int i) const { return obj[i] == nullptr || obj[i] == Py_None; }
  const c10::TensorBase& tensor(int i);
  std::optional<c10::TensorBase> optionalTensor(int i);
  c10::Scalar scalar(int i);
  std::optional<c10::Scalar> optionalScalar(int i);
  int64_t toInt64(int i);
  std::optional<int64_t> optionalInt64(int i);
  double toDouble(int i);
  std::optional<double> optionalDouble(int i);
  bool toBool(int i);
  std::optional<bool> optionalBool(int i);
  std::string_view stringView(int i);
  std::optional<std::string_view> optionalStringView(int i);
  c10::IntArrayRef intlist(int i);
  std::optional<c10::IntArrayRef> optionalIntlist(int i);
  c10::ArrayRef<c10::TensorBase> tensorlist(int i);
  c10::ScalarType scalartype(int i);
  std::optional<c10::ScalarType> optionalScalarType(int i);
  std::optional<c10::Layout> optionalLayout(int i);
  c10::Device device(int i);
  std::optional<c10::Device> optionalDevice(int i);
  std::optional<c10::Generator> optionalGenerator(int i);
  c10::MemoryFormat memoryformat(int i);
  std::optional<c10::MemoryFormat> optionalMemoryFormat(int i);

 private:
  c10::TensorBase tensors_[kMaxArgs];
  std::deque<c10::DimVector> lists_;
  std::deque<std::vector<c10::TensorBase>> tensorlists_;
};

class PythonArgParser {
 public:
  PythonArgParser(std::vector<std::string> fmts, bool method);
  // Returns the index of the matched signature; raises TypeError otherwise.
  int parse(PyObject* self, PyObject* args, PyObject* kwargs, ParsedArgs& out) const;

 private:
  bool try_match(const FunctionSignature& s, PyObject* self, PyObject* args, PyObject* kwargs, ParsedArgs& out,
                 std::string* why) const;
  [[noreturn]] void raise_no_match(PyObject* self, PyObject* args, PyObject* kwargs,
                                   const std::string& single_reason) const;
  std::vector<FunctionSignature> sigs_;
  std::string name_;
};

// Registration tables the generated files fill (module "" is _VariableFunctions).
struct MethodTables {
  std::vector<std::pair<std::string, PyMethodDef>> functions;  // (module, def)
  std::vector<PyMethodDef> methods;
  void add(const char* module, bool method, const char* name, PyCFunction fn);
};

// ---- bindings added after torchlike._C is initialised, so that operators
// registered later (an extension loaded at run time) are reachable from Python.
// Both copy the name and keep the PyMethodDef for the process's lifetime.
// A function on any module object (torchlike._C._VariableFunctions, or a
// Python module); replaces an attribute of the same name.
void add_function(PyObject* module, const char* name, PyCFunction fn, int flags = METH_VARARGS | METH_KEYWORDS);
// A method on torchlike's tensor type (TensorBase, so every subclass sees it);
// the type's attribute cache is invalidated (PyType_Modified).
void add_tensor_method(const char* name, PyCFunction fn, int flags = METH_VARARGS | METH_KEYWORDS);

// ---- calling kernels

// Runs f(args...) with the GIL released, as PyTorch's bindings do: other
// Python threads run while a kernel does (two threads' matmuls overlap).
// The arguments are converted from Python objects before, with the GIL held;
// C++ that calls back into Python (hooks, custom Functions, buffer owners)
// takes the GIL itself.
struct GilRelease {
  PyThreadState* state = PyEval_SaveThread();
  GilRelease() = default;
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;
  ~GilRelease() { PyEval_RestoreThread(state); }
};

// Whether a call is worth releasing the GIL for: releasing and re-taking it
// costs about as much as a tiny kernel, and a kernel on a few thousand
// elements holds it for a microsecond or two. So the GIL is released when a
// tensor argument is large, a list of tensors is passed, or no tensor is
// (factories: their size is in the other arguments).
namespace detail {
constexpr int64_t kGilReleaseNumel = 4096;
enum : int { kNotTensor = 0, kSmallTensor = 1, kLargeTensor = 2 };
inline int gil_weight(const c10::TensorBase& t) {
  return t.defined() && t.numel() >= kGilReleaseNumel ? kLargeTensor : kSmallTensor;
}
inline int gil_weight(const std::optional<c10::TensorBase>& t) { return t ? gil_weight(*t) : kNotTensor; }
inline int gil_weight(c10::ArrayRef<c10::TensorBase>) { return kLargeTensor; }
inline int gil_weight(const std::vector<c10::TensorBase>&) { return kLargeTensor; }
template <class T>
int gil_weight(const T&) { return kNotTensor; }
}  // namespace detail

template <class F, class... A>
auto call_without_gil(const F& f, A&&... args) {
  int w = (detail::kNotTensor | ... | detail::gil_weight(args));
  if (w == detail::kSmallTensor) return f(std::forward<A>(args)...);
  GilRelease g;
  return f(std::forward<A>(args)...);
}

// ---- C++ results to Python objects
PyObject* wrap(c10::TensorBase t);
PyObject* wrap(const std::vector<c10::TensorBase>& ts);
PyObject* wrap(std::tuple<c10::TensorBase, c10::TensorBase> t);
PyObject* wrap(std::tuple<c10::TensorBase, c10::TensorBase, c10::TensorBase> t);
PyObject* wrap(double v);
PyObject* wrap(int64_t v);
PyObject* wrap(bool v);
PyObject* wrap(const c10::Scalar& v);
PyObject* wrap_namedtuple(const char* name, std::initializer_list<const char*> fields,
                          std::tuple<c10::TensorBase, c10::TensorBase> t);
PyObject* wrap_namedtuple(const char* name, std::initializer_list<const char*> fields,
                          std::tuple<c10::TensorBase, c10::TensorBase, c10::TensorBase> t);

// ---- Python objects to C++ (shared with hand-written bindings)
bool is_number(PyObject* o);
c10::Scalar to_scalar(PyObject* o);
std::string type_name(PyObject* o);

}  // namespace tl::python
