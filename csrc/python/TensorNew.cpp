// Tensors from Python data: torchlike.tensor(nested lists / scalars / NumPy
// arrays / tensors), from_numpy (shares memory), and back: tolist(),
// __array_interface__ (so numpy.asarray(t) and t.numpy() share memory).
#include <Python.h>

#include <algorithm>
#include <cstring>
#include <vector>
#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/native/Copy.h"
#include "aten/native/HalfConvert.h"
#include "autograd/AutogradMeta.h"

namespace tl::python {

// ------------------------------------------------------------------ buffer protocol (NumPy)

static bool format_to_dtype(const char* fmt, Py_ssize_t itemsize, c10::ScalarType* out) {
  while (*fmt == '<' || *fmt == '=' || *fmt == '@' || *fmt == '|') ++fmt;
  if (*fmt == '>' || *fmt == '!') return false;  // big-endian
  switch (*fmt) {
    case '?': *out = c10::ScalarType::Bool; return true;
    case 'B': *out = c10::ScalarType::Byte; return true;
    case 'b': *out = c10::ScalarType::Char; return true;
    case 'h': *out = c10::ScalarType::Short; return true;
    case 'i': *out = c10::ScalarType::Int; return true;
    case 'l': case 'q': *out = itemsize == 8 ? c10::ScalarType::Long : c10::ScalarType::Int; return true;
    case 'e': *out = c10::ScalarType::Half; return true;
    case 'f': *out = c10::ScalarType::Float; return true;
    case 'd': *out = c10::ScalarType::Double; return true;
  }
  return false;
}

static bool is_numpy_array(PyObject* o) {
  return !is_tensor(o) && PyObject_CheckBuffer(o) && PyObject_HasAttrString(o, "__array_interface__");
}

struct BufferOwner {
  Py_buffer view;
};

static void release_buffer(void* ctx, void*) {
  auto* owner = static_cast<BufferOwner*>(ctx);
  PyGILState_STATE st = PyGILState_Ensure();  // storages may die on any thread
  PyBuffer_Release(&owner->view);
  PyGILState_Release(st);
  delete owner;
}

// Wraps an object exporting a strided buffer without copying. Asks for a
// writable buffer first (so writes through the tensor are legal); a read-only
// array is still wrapped, and *readonly is set so from_numpy can warn as
// PyTorch does.
static c10::TensorBase tensor_from_buffer(PyObject* obj, bool* readonly = nullptr) {
  auto* owner = new BufferOwner();
  if (PyObject_GetBuffer(obj, &owner->view, PyBUF_RECORDS) < 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(obj, &owner->view, PyBUF_RECORDS_RO) < 0) {
      delete owner;
      throw python_error_set();
    }
  }
  if (readonly) *readonly = owner->view.readonly != 0;
  Py_buffer& v = owner->view;
  c10::ScalarType st;
  if (!format_to_dtype(v.format ? v.format : "B", v.itemsize, &st)) {
    std::string f = v.format ? v.format : "?";
    PyBuffer_Release(&v);
    delete owner;
    TL_CHECK_TYPE(false, "can't convert np.ndarray of type with format '", f,
                  "'. The only supported types are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.");
  }
  c10::DimVector sizes(v.ndim), strides(v.ndim);
  int64_t span = 1;
  bool empty = false;
  for (int i = 0; i < v.ndim; ++i) {
    sizes[i] = v.shape[i];
    Py_ssize_t s = v.strides ? v.strides[i] : 0;
    if (s < 0 || s % v.itemsize != 0) {
      PyBuffer_Release(&v);
      delete owner;
      TL_CHECK_VALUE(false, "At least one stride in the given numpy array is negative or not a multiple of the "
                            "element size, and tensors with such strides are not currently supported. (You can "
                            "probably work around this by making a copy of your array with array.copy().)");
    }
    strides[i] = s / v.itemsize;
    if (sizes[i] == 0) empty = true;
    span += (sizes[i] - 1) * strides[i];
  }
  if (!v.strides) strides = c10::contiguousStrides(sizes);
  c10::DataPtr d;
  d.ptr = v.buf;
  d.ctx = owner;
  d.deleter = release_buffer;
  d.device = c10::Device(c10::DeviceType::CPU);
  auto storage = c10::Storage::make(d, (size_t)(empty ? 0 : span) * c10::elementSize(st));
  auto impl = c10::intrusive_ptr<c10::TensorImpl>::make(std::move(storage), st, c10::Device(c10::DeviceType::CPU));
  impl->set_sizes_and_strides(sizes, strides, 0);
  return c10::TensorBase(std::move(impl));
}

// ------------------------------------------------------------------ nested sequences

static bool is_sequence(PyObject* o) {
  return (PyList_Check(o) || PyTuple_Check(o)) || (!PyUnicode_Check(o) && !PyBytes_Check(o) && !is_tensor(o) &&
                                                   !is_number(o) && PySequence_Check(o));
}

// Tensors are limited to this many dims (loop index arrays are sized by it),
// and nested data deeper than that is refused before it is walked further:
// a list that contains itself would otherwise recurse forever.
constexpr size_t kMaxDims = 64;

// The shape of nested data, from the chain of first elements. A tensor inside
// a list is one element (its dims do not count, as in PyTorch); a NumPy array
// is a nested sequence.
static void infer_shape(PyObject* o, c10::DimVector& shape) {
  PyObject* top = o;
  while (true) {
    if (is_tensor(o)) {
      if (o == top)
        for (int64_t s : unpack(o).sizes()) shape.push_back(s);
      return;
    }
    if (is_numpy_array(o)) {
      c10::TensorBase t = tensor_from_buffer(o);
      for (int64_t s : t.sizes()) shape.push_back(s);
      TL_CHECK_VALUE(shape.size() <= kMaxDims, "too many dimensions '", type_name(o), "'");
      return;
    }
    if (!is_sequence(o)) return;
    Py_ssize_t n = PySequence_Size(o);
    if (n < 0) throw python_error_set();
    TL_CHECK_VALUE(shape.size() < kMaxDims, "too many dimensions '", type_name(o), "'");
    shape.push_back(n);
    if (n == 0) return;
    PyObject* first = PySequence_GetItem(o, 0);
    if (!first) throw python_error_set();
    Py_DECREF(first);  // the sequence keeps it alive
    o = first;
  }
}

// dtype of the data as PyTorch infers it: every leaf contributes a dtype
// (bool -> bool, int -> int64, float -> the default float dtype, NumPy
// scalars/arrays and tensors their own dtype) and the result is their
// promotion. Strings and other objects are a TypeError.
// `open` holds the sequences being walked, so a list that contains itself is
// a TypeError instead of endless recursion.
static void infer_dtype(PyObject* o, c10::ScalarType* acc, std::vector<PyObject*>& open) {
  c10::ScalarType st;
  if (is_tensor(o)) {
    st = unpack(o).scalar_type();
  } else if (is_numpy_array(o)) {
    st = tensor_from_buffer(o).scalar_type();
  } else if (PyBool_Check(o)) {
    st = c10::ScalarType::Bool;
  } else if (PyFloat_Check(o)) {
    st = c10::defaultFloatType();
  } else if (PyLong_Check(o)) {
    st = c10::ScalarType::Long;
  } else if (is_sequence(o)) {
    TL_CHECK_TYPE(std::find(open.begin(), open.end(), o) == open.end(),
                  "new(): self-referential lists are incompatible");
    TL_CHECK_VALUE(open.size() < kMaxDims, "too many dimensions '", type_name(o), "'");
    PyObject* fast = PySequence_Fast(o, "expected a sequence");
    if (!fast) throw python_error_set();
    struct G { PyObject* f; std::vector<PyObject*>& open; ~G() { Py_DECREF(f); open.pop_back(); } } g{fast, open};
    open.push_back(o);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n; ++i) infer_dtype(PySequence_Fast_GET_ITEM(fast, i), acc, open);
    return;
  } else if (is_number(o) && !PyUnicode_Check(o)) {
    c10::Scalar sc = to_scalar(o);
    st = sc.isFloatingPoint() ? c10::defaultFloatType() : (sc.isBoolean() ? c10::ScalarType::Bool : c10::ScalarType::Long);
  } else {
    TL_CHECK_TYPE(false, "new(): invalid data type '", type_name(o), "'");
  }
  *acc = *acc == c10::ScalarType::Undefined ? st : c10::promoteTypes(*acc, st);
}

// Integers are range-checked (300 is no int8); floats round, to inf if need
// be, as PyTorch's tensor() does (unlike full(), which refuses 1e39 for float).
template <class T>
static void store_scalar(char* p, const c10::Scalar& s) {
  if constexpr (std::is_floating_point<T>::value) {
    *reinterpret_cast<T*>(p) = static_cast<T>(s.toDouble());
  } else if constexpr (at::native::half_convert::is_half_type_v<T>) {
    // Straight from the double (or int) to the 16-bit type, rounded once
    // (aten/native/HalfConvert.h), not through a float rounded to nearest.
    *reinterpret_cast<T*>(p) = s.isFloatingPoint() ? T(at::native::half_convert::round_to_odd_float(s.toDouble()))
                                                    : T(at::native::half_convert::round_to_odd_float(s.toLong()));
  } else {
    *reinterpret_cast<T*>(p) = s.to<T>();
  }
}

static void fill(PyObject* o, const c10::TensorBase& out, int64_t dim, char* p) {
  c10::ScalarType st = out.scalar_type();
  if (dim == out.dim()) {
    if (is_tensor(o) || is_numpy_array(o)) {
      // An element: a tensor of one element (of any dims) or a 0-dim array.
      c10::TensorBase src = is_tensor(o) ? unpack(o) : tensor_from_buffer(o);
      TL_CHECK_VALUE(src.numel() == 1 && (is_tensor(o) || src.dim() == 0),
                     "only one element tensors can be converted to Python scalars");
      c10::TensorBase one = c10::make_view(src, {}, {}, src.storage_offset());
      c10::TensorBase dst = c10::make_view(out, {}, {}, (p - (char*)out.data_ptr()) / (int64_t)out.itemsize() + out.storage_offset());
      at::native::copy_into(dst, one);
      return;
    }
    TL_CHECK_TYPE(!is_sequence(o), "must be real number, not ", type_name(o));
    TL_CHECK_TYPE(is_number(o) && !PyUnicode_Check(o), "new(): invalid data type '", type_name(o), "'");
    c10::Scalar s = to_scalar(o);
    TL_DISPATCH_ALL_TYPES(st, "tensor", [&] { store_scalar<scalar_t>(p, s); });
    return;
  }
  if (is_tensor(o) || is_numpy_array(o)) {
    c10::TensorBase src = is_tensor(o) ? unpack(o) : tensor_from_buffer(o);
    c10::DimVector sub(out.sizes().slice(dim));
    TL_CHECK(src.sizes().equals(sub), "tensor(): expected a tensor of shape ", sub.ref(), " but got ", src.sizes());
    c10::DimVector st_(out.strides().slice(dim));
    c10::TensorBase dst = c10::make_view(out, sub, st_, (p - (char*)out.data_ptr()) / (int64_t)out.itemsize() + out.storage_offset());
    at::native::copy_into(dst, src);
    return;
  }
  TL_CHECK_TYPE(is_sequence(o), "not a sequence: expected a sequence at dim ", dim, " but got ", type_name(o));
  PyObject* fast = PySequence_Fast(o, "expected a sequence");
  if (!fast) throw python_error_set();
  struct G { PyObject* f; ~G() { Py_DECREF(f); } } g{fast};
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  TL_CHECK_VALUE(n == out.sizes()[dim], "expected sequence of length ", out.sizes()[dim], " at dim ", dim, " (got ", n, ")");
  int64_t step = out.strides()[dim] * (int64_t)out.itemsize();
  for (Py_ssize_t i = 0; i < n; ++i) fill(PySequence_Fast_GET_ITEM(fast, i), out, dim + 1, p + i * step);
}

c10::TensorBase tensor_from_data(PyObject* data, std::optional<c10::ScalarType> dtype) {
  if (is_tensor(data)) {
    const c10::TensorBase& src = unpack(data);
    c10::TensorBase out = c10::make_empty(src.sizes(), src.options().with_dtype(dtype.value_or(src.scalar_type())));
    at::native::copy_into(out, src);
    return out;
  }
  if (is_numpy_array(data)) {
    c10::TensorBase src = tensor_from_buffer(data);
    c10::TensorBase out = c10::make_empty(src.sizes(), c10::TensorOptions(dtype.value_or(src.scalar_type())));
    at::native::copy_into(out, src);
    return out;
  }
  c10::DimVector shape;
  infer_shape(data, shape);
  c10::ScalarType st = c10::ScalarType::Undefined;
  if (dtype) {
    st = *dtype;
  } else {
    std::vector<PyObject*> open;
    infer_dtype(data, &st, open);
    // No leaves at all (torch.tensor([]), [[], []]): the default float dtype.
    if (st == c10::ScalarType::Undefined) st = c10::defaultFloatType();
  }
  c10::TensorBase out = c10::make_empty(shape, c10::TensorOptions(st));
  if (out.numel() > 0 || out.dim() == 0) fill(data, out, 0, static_cast<char*>(out.data_ptr()));
  return out;
}

static std::optional<c10::ScalarType> dtype_arg(const char* fn, PyObject* dtype) {
  TL_CHECK_TYPE(dtype == Py_None || is_dtype(dtype), fn, "(): argument 'dtype' must be torchlike.dtype, not ",
                type_name(dtype));
  if (dtype == Py_None) return std::nullopt;
  return unpack_dtype(dtype);
}

static c10::TensorBase to_device(c10::TensorBase t, PyObject* device) {
  if (device == Py_None) return t;
  c10::Device d = parse_device(device);
  if (d == t.device()) return t;
  return at::native::cast_to(t, t.scalar_type(), d);
}

// torchlike.tensor(data, *, dtype=None, device=None): always a copy.
// requires_grad= is handled by the Python wrapper in torchlike/_creation.py.
static PyObject* py_tensor(PyObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"data", "dtype", "device", "pin_memory", nullptr};
  PyObject *data, *dtype = Py_None, *device = Py_None, *pin = Py_False;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOO", const_cast<char**>(kw), &data, &dtype, &device, &pin))
    return nullptr;
  return wrap_tensor(to_device(tensor_from_data(data, dtype_arg("tensor", dtype)), device));
  TL_PY_END
}

// torchlike.as_tensor(data, dtype=None, device=None): no copy when it can be
// avoided. A tensor of the right dtype/device is returned as is; a NumPy
// array is wrapped (memory shared) and only converted when dtype/device ask.
static PyObject* py_as_tensor(PyObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"data", "dtype", "device", nullptr};
  PyObject *data, *dtype = Py_None, *device = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO", const_cast<char**>(kw), &data, &dtype, &device))
    return nullptr;
  std::optional<c10::ScalarType> st = dtype_arg("as_tensor", dtype);
  c10::TensorBase src;
  if (is_tensor(data)) {
    src = unpack(data);
  } else if (is_numpy_array(data)) {
    src = tensor_from_buffer(data);
  } else {
    return wrap_tensor(to_device(tensor_from_data(data, st), device));
  }
  c10::Device dev = device == Py_None ? src.device() : parse_device(device);
  c10::ScalarType want = st.value_or(src.scalar_type());
  if (want == src.scalar_type() && dev == src.device()) {
    if (is_tensor(data)) return Py_NewRef(data);
    return wrap_tensor(src);
  }
  return wrap_tensor(at::native::cast_to(src, want, dev));
  TL_PY_END
}

static PyObject* py_from_numpy(PyObject*, PyObject* arr) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_numpy_array(arr), "expected np.ndarray (got ", type_name(arr), ")");
  bool readonly = false;
  c10::TensorBase t = tensor_from_buffer(arr, &readonly);
  if (readonly &&
      PyErr_WarnEx(PyExc_UserWarning,
                   "The given NumPy array is not writable, and torchlike does not support non-writable tensors. "
                   "This means writing to this tensor will result in undefined behavior. You may want to copy "
                   "the array to protect its data or make it writable before converting it to a tensor.",
                   1) < 0)
    return nullptr;
  return wrap_tensor(t);
  TL_PY_END
}

// Tensor.new_tensor(data, *, dtype=None, device=None): a copy of data with
// self's dtype and device unless given.
static PyObject* m_new_tensor(PyObject* self, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"data", "dtype", "device", "requires_grad", "pin_memory", nullptr};
  PyObject *data, *dtype = Py_None, *device = Py_None, *rg = Py_False, *pin = Py_False;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|$OOOO", const_cast<char**>(kw), &data, &dtype, &device, &rg, &pin))
    return nullptr;
  const c10::TensorBase& t = unpack(self);
  std::optional<c10::ScalarType> st = dtype_arg("new_tensor", dtype);
  c10::TensorBase out = tensor_from_data(data, st.value_or(t.scalar_type()));
  if (device == Py_None && out.device() != t.device()) out = at::native::cast_to(out, out.scalar_type(), t.device());
  PyObject* res = wrap_tensor(to_device(out, device));
  if (res && PyObject_IsTrue(rg) == 1) {
    PyObject* r = PyObject_CallMethod(res, "requires_grad_", "O", Py_True);
    if (!r) {
      Py_DECREF(res);
      return nullptr;
    }
    Py_DECREF(r);
  }
  return res;
  TL_PY_END
}

// ------------------------------------------------------------------ back to Python

template <class T>
static PyObject* scalar_obj(const char* p) {
  T v = *reinterpret_cast<const T*>(p);
  if constexpr (std::is_same<T, bool>::value) return PyBool_FromLong(v);
  else if constexpr (std::is_integral<T>::value) return PyLong_FromLongLong((long long)v);
  else return PyFloat_FromDouble((double)v);
}

static PyObject* tolist_rec(const c10::TensorBase& t, int64_t dim, const char* p) {
  if (dim == t.dim()) return TL_DISPATCH_ALL_TYPES(t.scalar_type(), "tolist", [&] { return scalar_obj<scalar_t>(p); });
  int64_t n = t.sizes()[dim];
  int64_t step = t.strides()[dim] * (int64_t)t.itemsize();
  PyObject* lst = PyList_New(n);
  for (int64_t i = 0; i < n; ++i) {
    PyObject* e = tolist_rec(t, dim + 1, p + i * step);
    if (!e) {
      Py_DECREF(lst);
      return nullptr;
    }
    PyList_SET_ITEM(lst, i, e);
  }
  return lst;
}

static PyObject* m_tolist(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  // Another device's values are read from a CPU copy, as PyTorch's tolist
  // does (so printing works on every backend); a meta tensor has none and raises.
  c10::TensorBase t = unpack(self);
  if (!t.is_cpu()) t = at::native::cast_to(t, t.scalar_type(), c10::Device(c10::DeviceType::CPU));
  return tolist_rec(t, 0, static_cast<const char*>(t.data_ptr()));
  TL_PY_END
}

static const char* typestr(c10::ScalarType st) {
  switch (st) {
    case c10::ScalarType::Bool: return "|b1";
    case c10::ScalarType::Byte: return "|u1";
    case c10::ScalarType::Char: return "|i1";
    case c10::ScalarType::Short: return "<i2";
    case c10::ScalarType::Int: return "<i4";
    case c10::ScalarType::Long: return "<i8";
    case c10::ScalarType::Half: return "<f2";
    case c10::ScalarType::Float: return "<f4";
    case c10::ScalarType::Double: return "<f8";
    default: return nullptr;
  }
}

static PyObject* get_array_interface(PyObject* self, void*) {
  TL_PY_BEGIN
  const c10::TensorBase& t = unpack(self);
  // NumPy would share the memory but drop the graph: PyTorch refuses (numpy(),
  // numpy.asarray) while grad mode is on; numpy(force=True), detach() and
  // no_grad (where kernels of custom operators run) are the ways out.
  TL_CHECK(!torchlike::autograd::requires_grad(t) || !torchlike::autograd::is_grad_enabled(),
           "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
  TL_CHECK_TYPE(t.is_cpu(), "can't convert ", t.device(), " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  const char* ts = typestr(t.scalar_type());
  TL_CHECK_TYPE(ts, "Got unsupported ScalarType ", t.scalar_type(), " for numpy conversion");
  PyObject* shape = PyTuple_New(t.dim());
  PyObject* strides = PyTuple_New(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t.sizes()[i]));
    PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(t.strides()[i] * (int64_t)t.itemsize()));
  }
  return Py_BuildValue("{s:N,s:s,s:(N,O),s:N,s:i}", "shape", shape, "typestr", ts, "data",
                       PyLong_FromVoidPtr(t.data_ptr()), Py_False, "strides", strides, "version", 3);
  TL_PY_END
}

static PyGetSetDef extra_getset[] = {{"__array_interface__", get_array_interface, nullptr, nullptr, nullptr}, {nullptr}};

void tl_init_tensor_new(MethodTables& t) {
  t.functions.emplace_back("", PyMethodDef{"tensor", (PyCFunction)(void (*)(void))py_tensor, METH_VARARGS | METH_KEYWORDS, nullptr});
  t.functions.emplace_back("", PyMethodDef{"from_numpy", py_from_numpy, METH_O, nullptr});
  t.functions.emplace_back("", PyMethodDef{"as_tensor", (PyCFunction)(void (*)(void))py_as_tensor, METH_VARARGS | METH_KEYWORDS, nullptr});
  t.methods.push_back(PyMethodDef{"tolist", m_tolist, METH_NOARGS, nullptr});
  t.methods.push_back(PyMethodDef{"new_tensor", (PyCFunction)(void (*)(void))m_new_tensor, METH_VARARGS | METH_KEYWORDS, nullptr});
}

// Called once TensorBase is ready: numpy.asarray(t) shares t's memory.
void tl_init_tensor_new_types() { add_getset(&TensorBaseType, extra_getset); }

}  // namespace tl::python
