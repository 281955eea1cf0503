// Tensor.__getitem__ / __setitem__. Basic items (ints, slices with steps,
// None, Ellipsis, bools) are view ops through the dispatcher (select, slice,
// unsqueeze), so basic indexing shares storage and autograd sees ordinary
// ops. Advanced items (integer tensors, bool/byte masks, Python lists) are
// gathered, as PyTorch does, into one aten::index / index_put_ call on that
// view, each at the dim it stands for: ints have already been selected away,
// so x[0, :, [1, 2]] indexes dim 1 of x[0] (PyTorch's rule, not NumPy's).
#include <Python.h>

#include <vector>

#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/MemoryOverlap.h"
#include "ops/as_strided.h"
#include "ops/copy.h"
#include "ops/fill.h"
#include "ops/index.h"
#include "ops/index_put.h"
#include "ops/select.h"
#include "ops/slice.h"
#include "ops/to.h"
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

// PyTorch's treatSequenceAsTuple: a non-tuple sequence index is a tuple of
// items when it holds a tensor, a sequence, a slice, Ellipsis or None (the
// legacy x[[[0, 1], [1, 2]]] == x[[0, 1], [1, 2]]); otherwise it is one index
// tensor (x[[0, 2]]).
static bool sequence_is_tuple(PyObject* index) {
  if (PyTuple_Check(index)) return true;
  if (is_tensor(index) || !PySequence_Check(index) || PyUnicode_Check(index) || PyBytes_Check(index)) return false;
  Py_ssize_t n = PySequence_Size(index);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PySequence_GetItem(index, i);
    if (!it) throw python_error_set();
    bool seq = is_tensor(it) || (PySequence_Check(it) && !PyUnicode_Check(it) && !PyBytes_Check(it)) ||
               PySlice_Check(it) || it == Py_Ellipsis || it == Py_None;
    Py_DECREF(it);
    if (seq) return true;
  }
  return false;
}

// A Python list (any nesting) used as an index: bools give a mask, ints an
// int64 index tensor; an empty list selects nothing.
static c10::TensorBase sequence_index(PyObject* seq) {
  c10::TensorBase t = tensor_from_data(seq, std::nullopt);
  if (t.numel() == 0 && !c10::isIntegralType(t.scalar_type(), true)) t = at::_ops::to(t, c10::ScalarType::Long);
  return t;
}

namespace {
// The result of the basic items, and the advanced ones (by dim of that view).
struct IndexedView {
  c10::TensorBase view;
  std::vector<c10::TensorBase> advanced;  // undefined = dim not indexed
  bool has_advanced = false;
};
}  // namespace

static IndexedView apply_index(const c10::TensorBase& self, PyObject* index) {
  // Normalise to a sequence of index items.
  PyObject* tup;
  if (PyTuple_Check(index)) tup = Py_NewRef(index);
  else if (sequence_is_tuple(index)) {
    tup = PySequence_Tuple(index);
    if (!tup) throw python_error_set();
  } else tup = PyTuple_Pack(1, index);
  struct Guard { PyObject* o; ~Guard() { Py_DECREF(o); } } g{tup};
  Py_ssize_t n = PyTuple_GET_SIZE(tup);
  // Lists become index tensors up front, so every item's dim count is known.
  // (Allocated only when a list appears: basic indexing stays allocation-free.)
  std::vector<c10::TensorBase> converted;
  // How many tensor dims the items consume (None/Ellipsis/bool consume none;
  // a mask consumes as many as it has).
  int64_t consumed = 0;
  int ellipses = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PyTuple_GET_ITEM(tup, i);
    if (it == Py_Ellipsis) {
      ++ellipses;
    } else if (it == Py_None || PyBool_Check(it)) {
    } else if (is_tensor(it)) {
      const c10::TensorBase& t = unpack(it);
      c10::ScalarType st = t.scalar_type();
      bool mask = st == c10::ScalarType::Bool || st == c10::ScalarType::Byte;
      consumed += mask ? t.dim() : 1;
    } else if (!PyLong_Check(it) && !PySlice_Check(it) && PySequence_Check(it) && !PyUnicode_Check(it) &&
               !PyBytes_Check(it)) {
      if (converted.empty()) converted.resize((size_t)n);
      converted[(size_t)i] = sequence_index(it);
      const c10::TensorBase& t = converted[(size_t)i];
      consumed += t.scalar_type() == c10::ScalarType::Bool ? t.dim() : 1;
    } else {
      ++consumed;
    }
  }
  TL_CHECK_INDEX(ellipses <= 1, "an index can only have a single ellipsis ('...')");
  TL_CHECK_INDEX(self.dim() > 0 || consumed == 0,
                 "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                 "convert a 0-dim tensor to a number");
  TL_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  IndexedView out;
  c10::TensorBase& r = out.view;
  r = self;
  int64_t dim = 0;
  // In aten::index's list an undefined entry or an integer tensor stands for
  // one dim and a mask for as many as it has: pad up to the item's dim.
  int64_t list_dims = 0;
  auto record = [&](const c10::TensorBase& t, int64_t dims) {
    for (; list_dims < dim; ++list_dims) out.advanced.emplace_back();
    out.advanced.push_back(t);
    out.has_advanced = true;
    dim += dims;
    list_dims = dim;
  };
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PyTuple_GET_ITEM(tup, i);
    if (it == Py_Ellipsis) {
      dim += self.dim() - consumed;
    } else if (it == Py_None) {
      r = at::_ops::unsqueeze(r, dim);
      ++dim;
    } else if (PyBool_Check(it) || (is_tensor(it) && unpack(it).dim() == 0 &&
                                    (unpack(it).scalar_type() == c10::ScalarType::Bool ||
                                     unpack(it).scalar_type() == c10::ScalarType::Byte))) {
      // As in PyTorch, a bool adds a dim of size 1 that is then indexed by
      // [0] (True) or by nothing (False): an advanced index, so that
      // x[False, [0]] broadcasts the two, and x[True] is a copy.
      bool v = PyBool_Check(it) ? it == Py_True : c10::item(unpack(it)).toBool();
      r = at::_ops::unsqueeze(r, dim);
      c10::TensorBase ix = c10::make_empty({v ? 1 : 0}, c10::TensorOptions(c10::ScalarType::Long, r.device()));
      if (v) at::_ops::fill_(ix, c10::Scalar(int64_t(0)));
      record(ix, 1);
    } else if (!converted.empty() && converted[(size_t)i].defined()) {
      const c10::TensorBase& t = converted[(size_t)i];
      record(t, t.scalar_type() == c10::ScalarType::Bool ? t.dim() : 1);
    } else if (is_tensor(it) && !is_int_index(it)) {
      const c10::TensorBase& t = unpack(it);
      c10::ScalarType st = t.scalar_type();
      record(t, (st == c10::ScalarType::Bool || st == c10::ScalarType::Byte) ? t.dim() : 1);
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
  return out;
}

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  TL_PY_BEGIN
  IndexedView v = apply_index(unpack(self), index);
  if (!v.has_advanced) return wrap_tensor(std::move(v.view));
  return wrap_tensor(at::_ops::index(v.view, v.advanced));
  TL_PY_END
}

// Leading size-1 dims of a value are dropped before broadcasting, so
// x[0] = y[None] works as in PyTorch (and NumPy).
static c10::TensorBase drop_leading_ones(c10::TensorBase src, int64_t dst_dim) {
  int64_t drop = 0;
  while (drop < src.dim() - dst_dim && src.sizes()[drop] == 1) ++drop;
  if (drop == 0) return src;
  c10::DimVector sizes, strides;
  for (int64_t d = drop; d < src.dim(); ++d) {
    sizes.push_back(src.sizes()[d]);
    strides.push_back(src.strides()[d]);
  }
  return at::_ops::as_strided(src, sizes, strides, src.storage_offset());
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* value) {
  try {
    TL_CHECK_TYPE(value != nullptr, "Tensor does not support item deletion");
    IndexedView v = apply_index(unpack(self), index);
    const c10::TensorBase& dst = v.view;
    if (!v.has_advanced && is_number(value)) {
      // fill_ may write one location twice (every write stores the same
      // value), but x[...] = v is a copy in PyTorch and refuses that.
      at::assert_no_internal_overlap(dst, "setitem");
      at::_ops::fill_(dst, to_scalar(value));
      return 0;
    }
    c10::TensorBase src;
    if (is_tensor(value)) {
      src = unpack(value);
    } else if (is_number(value) ||
               (PySequence_Check(value) && !PyUnicode_Check(value) && !PyBytes_Check(value))) {
      // x[i] = [1, 2, 3] or x[idx] = 2.5: the values in the destination's dtype.
      src = tensor_from_data(value, dst.scalar_type());
    } else {
      TL_CHECK_TYPE(false, "can't assign a ", type_name(value), " to a Tensor");
    }
    if (!v.has_advanced) {
      at::_ops::copy_(dst, drop_leading_ones(src, dst.dim()), false);
      return 0;
    }
    // index_put_ takes values of the destination's dtype (recorded, so a
    // gradient reaches a value of another floating dtype).
    if (src.scalar_type() != dst.scalar_type()) src = at::_ops::to(src, dst.scalar_type());
    if (src.device() != dst.device()) src = at::_ops::to(src, dst.device());
    at::_ops::index_put_(dst, v.advanced, drop_leading_ones(src, 0), false);
    return 0;
  } catch (...) {
    translate_exception();
    return -1;
  }
}

}  // namespace tl::python
