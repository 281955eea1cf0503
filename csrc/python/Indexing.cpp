// Tensor.__getitem__ / __setitem__ for basic indexing: ints, slices (with
// steps), None, Ellipsis and bools. Every step is a view op through the
// dispatcher (select, slice, unsqueeze), so results share storage and later
// layers (autograd) see ordinary ops.
#include <Python.h>

#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/MemoryOverlap.h"
#include "ops/as_strided.h"
#include "ops/copy.h"
#include "ops/fill.h"
#include "ops/select.h"
#include "ops/slice.h"
#include "ops/unsqueeze.h"

namespace tl::python {

c10::TensorBase tensor_from_data(PyObject* data, std::optional<c10::ScalarType> dtype);  // TensorNew.cpp

static bool is_int_index(PyObject* o) {
  if (PyBool_Check(o)) return false;
  if (PyLong_Check(o)) return true;
  if (is_tensor(o)) {
    const c10::TensorBase& t = unpack(o);
    return t.dim() == 0 && c10::isIntegralType(t.scalar_type(), false);
  }
  return PyIndex_Check(o) && !PyFloat_Check(o) && !is_tensor(o);
}

static int64_t index_value(PyObject* o) {
  if (is_tensor(o)) return c10::item(unpack(o)).toLong();
  PyObject* i = PyNumber_Index(o);
  if (!i) throw python_error_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  TL_CHECK_INDEX(!overflow, "index out of range (too large for int64)");
  return v;
}

static c10::TensorBase apply_index(const c10::TensorBase& self, PyObject* index) {
  // Normalise to a sequence of index items.
  PyObject* tup;
  if (PyTuple_Check(index)) tup = Py_NewRef(index);
  else tup = PyTuple_Pack(1, index);
  struct Guard { PyObject* o; ~Guard() { Py_DECREF(o); } } g{tup};
  Py_ssize_t n = PyTuple_GET_SIZE(tup);
  // How many tensor dims the items consume (None/Ellipsis/bool consume none).
  int64_t consumed = 0;
  int ellipses = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PyTuple_GET_ITEM(tup, i);
    if (it == Py_Ellipsis) ++ellipses;
    else if (it != Py_None && !PyBool_Check(it)) ++consumed;
  }
  TL_CHECK_INDEX(ellipses <= 1, "an index can only have a single ellipsis ('...')");
  TL_CHECK_INDEX(self.dim() > 0 || consumed == 0,
                 "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                 "convert a 0-dim tensor to a number");
  TL_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  c10::TensorBase r = self;
  int64_t dim = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PyTuple_GET_ITEM(tup, i);
    if (it == Py_Ellipsis) {
      dim += self.dim() - consumed;
    } else if (it == Py_None) {
      r = at::_ops::unsqueeze(r, dim);
      ++dim;
    } else if (PyBool_Check(it)) {
      // x[True] adds a dim of size 1; x[False] one of size 0.
      r = at::_ops::unsqueeze(r, dim);
      if (it == Py_False) r = at::_ops::slice(r, dim, 0, 0, 1);
      ++dim;
    } else if (is_int_index(it)) {
      int64_t v = index_value(it);
      int64_t size = r.sizes()[dim];
      TL_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", dim, " with size ", size);
      r = at::_ops::select(r, dim, v);
    } else if (PySlice_Check(it)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(it, &start, &stop, &step) < 0) throw python_error_set();
      TL_CHECK_VALUE(step > 0, "step must be greater than zero");
      PySliceObject* s = reinterpret_cast<PySliceObject*>(it);
      std::optional<int64_t> st = s->start == Py_None ? std::nullopt : std::optional<int64_t>(start);
      std::optional<int64_t> sp = s->stop == Py_None ? std::nullopt : std::optional<int64_t>(stop);
      r = at::_ops::slice(r, dim, st, sp, step);
      ++dim;
    } else {
      TL_CHECK_INDEX(false, "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                            "(got ", type_name(it), ")");
    }
  }
  return r;
}

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  TL_PY_BEGIN
  return wrap_tensor(apply_index(unpack(self), index));
  TL_PY_END
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* value) {
  try {
    TL_CHECK_TYPE(value != nullptr, "Tensor does not support item deletion");
    c10::TensorBase dst = apply_index(unpack(self), index);
    if (is_number(value)) {
      // fill_ may write one location twice (every write stores the same
      // value), but x[...] = v is a copy in PyTorch and refuses that.
      at::assert_no_internal_overlap(dst, "setitem");
      at::_ops::fill_(dst, to_scalar(value));
      return 0;
    }
    c10::TensorBase src;
    if (is_tensor(value)) {
      src = unpack(value);
    } else if (PySequence_Check(value) && !PyUnicode_Check(value) && !PyBytes_Check(value)) {
      // x[i] = [1, 2, 3]: build the values in the destination's dtype.
      src = tensor_from_data(value, dst.scalar_type());
    } else {
      TL_CHECK_TYPE(false, "can't assign a ", type_name(value), " to a Tensor");
    }
    // Leading size-1 dims of the value are dropped before broadcasting, so
    // x[0] = y[None] works as in PyTorch (and NumPy).
    int64_t drop = 0;
    while (drop < src.dim() - dst.dim() && src.sizes()[drop] == 1) ++drop;
    if (drop > 0) {
      c10::DimVector sizes, strides;
      for (int64_t d = drop; d < src.dim(); ++d) {
        sizes.push_back(src.sizes()[d]);
        strides.push_back(src.strides()[d]);
      }
      src = at::_ops::as_strided(src, sizes, strides, src.storage_offset());
    }
    at::_ops::copy_(dst, src, false);
    return 0;
  } catch (...) {
    translate_exception();
    return -1;
  }
}

}  // namespace tl::python
