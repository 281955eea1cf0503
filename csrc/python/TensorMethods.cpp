// TensorBase's Python protocol: arithmetic operators (straight into the C++
// ops, no argument parsing: this is the per-op overhead users feel), rich
// comparisons, attributes, and the metadata methods every tensor has.
#include <Python.h>

#include <utility>

#include "Objects.h"
#include "PythonArgParser.h"
#include "aten/native/Copy.h"
#include "ops/_local_scalar_dense.h"
#include "ops/add.h"
#include "ops/bitwise_and.h"
#include "ops/bitwise_left_shift.h"
#include "ops/bitwise_not.h"
#include "ops/bitwise_or.h"
#include "ops/bitwise_right_shift.h"
#include "ops/bitwise_xor.h"
#include "ops/div.h"
#include "ops/eq.h"
#include "ops/floor_divide.h"
#include "ops/ge.h"
#include "ops/gt.h"
#include "ops/le.h"
#include "ops/lt.h"
#include "ops/mul.h"
#include "ops/ne.h"
#include "ops/neg.h"
#include "ops/abs.h"
#include "ops/pow.h"
#include "ops/remainder.h"
#include "ops/sub.h"

namespace tl::python {

std::vector<PyMethodDef>* g_extra_tensor_methods = nullptr;  // filled by module init

// An operand of a binary operator: a tensor, or a number wrapped as a 0-dim tensor.
static bool operand(PyObject* o, c10::TensorBase& out) {
  if (is_tensor(o)) {
    out = unpack(o);
    return true;
  }
  if (is_number(o)) {
    out = c10::wrapped_scalar_tensor(to_scalar(o));
    return true;
  }
  return false;
}

template <class F>
static PyObject* binary(PyObject* a, PyObject* b, F f) {
  TL_PY_BEGIN
  c10::TensorBase ta, tb;
  if (!operand(a, ta) || !operand(b, tb)) Py_RETURN_NOTIMPLEMENTED;
  return wrap_tensor(call_without_gil(f, ta, tb));
  TL_PY_END
}

template <class F>
static PyObject* inplace(PyObject* a, PyObject* b, F f) {
  TL_PY_BEGIN
  if (!is_tensor(a)) Py_RETURN_NOTIMPLEMENTED;
  c10::TensorBase tb;
  if (!operand(b, tb)) Py_RETURN_NOTIMPLEMENTED;
  call_without_gil(f, unpack(a), tb);
  return Py_NewRef(a);
  TL_PY_END
}

#define TL_BINARY(name, expr) \
  static PyObject* name(PyObject* a, PyObject* b) { return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return expr; }); }
#define TL_INPLACE(name, expr) \
  static PyObject* name(PyObject* a, PyObject* b) { return inplace(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return expr; }); }

TL_BINARY(nb_add, at::_ops::add(x, y, 1))
TL_BINARY(nb_sub, at::_ops::sub(x, y, 1))
TL_BINARY(nb_mul, at::_ops::mul(x, y))
TL_BINARY(nb_truediv, at::_ops::div(x, y))
TL_BINARY(nb_floordiv, at::_ops::floor_divide(x, y))
TL_BINARY(nb_rem, at::_ops::remainder(x, y))
TL_BINARY(nb_and, at::_ops::bitwise_and(x, y))
TL_BINARY(nb_or, at::_ops::bitwise_or(x, y))
TL_BINARY(nb_xor, at::_ops::bitwise_xor(x, y))
TL_BINARY(nb_lshift, at::_ops::bitwise_left_shift(x, y))
TL_BINARY(nb_rshift, at::_ops::bitwise_right_shift(x, y))
TL_INPLACE(nb_iadd, at::_ops::add_(x, y, 1))
TL_INPLACE(nb_isub, at::_ops::sub_(x, y, 1))
TL_INPLACE(nb_imul, at::_ops::mul_(x, y))
TL_INPLACE(nb_itruediv, at::_ops::div_(x, y))
TL_INPLACE(nb_ifloordiv, at::_ops::floor_divide_(x, y))
TL_INPLACE(nb_irem, at::_ops::remainder_(x, y))
TL_INPLACE(nb_iand, at::_ops::bitwise_and_(x, y))
TL_INPLACE(nb_ior, at::_ops::bitwise_or_(x, y))
TL_INPLACE(nb_ixor, at::_ops::bitwise_xor_(x, y))
TL_INPLACE(nb_ilshift, at::_ops::bitwise_left_shift_(x, y))
TL_INPLACE(nb_irshift, at::_ops::bitwise_right_shift_(x, y))

static PyObject* nb_pow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::pow(x, y); });
}
static PyObject* nb_ipow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::pow_(x, y); });
}

static PyObject* nb_neg(PyObject* a) {
  TL_PY_BEGIN
  return wrap_tensor(at::_ops::neg(unpack(a)));
  TL_PY_END
}
static PyObject* nb_pos(PyObject* a) { return Py_NewRef(a); }
static PyObject* nb_abs(PyObject* a) {
  TL_PY_BEGIN
  return wrap_tensor(at::_ops::abs(unpack(a)));
  TL_PY_END
}
static PyObject* nb_invert(PyObject* a) {
  TL_PY_BEGIN
  return wrap_tensor(at::_ops::bitwise_not(unpack(a)));
  TL_PY_END
}

// Through the dispatcher (aten::_local_scalar_dense), so tracers and graph
// capture see a tensor's value leave for Python.
static PyObject* item_object(const c10::TensorBase& t) { return wrap(at::_ops::_local_scalar_dense(t)); }

static int nb_bool(PyObject* a) {
  try {
    const c10::TensorBase& t = unpack(a);
    TL_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
    return at::_ops::_local_scalar_dense(t).toBool() ? 1 : 0;
  } catch (...) {
    translate_exception();
    return -1;
  }
}
static PyObject* nb_float(PyObject* a) {
  TL_PY_BEGIN
  const c10::TensorBase& t = unpack(a);
  TL_CHECK(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  return PyFloat_FromDouble(at::_ops::_local_scalar_dense(t).toDouble());
  TL_PY_END
}
static PyObject* nb_int(PyObject* a) {
  TL_PY_BEGIN
  const c10::TensorBase& t = unpack(a);
  TL_CHECK(t.numel() == 1, "only one element tensors can be converted to Python scalars");
  c10::Scalar v = at::_ops::_local_scalar_dense(t);
  // As Python's int(float): NaN is a ValueError, inf an OverflowError, and
  // large values stay exact.
  if (v.isFloatingPoint()) return PyLong_FromDouble(v.toDouble());
  return PyLong_FromLongLong(v.toLong());
  TL_PY_END
}
static PyObject* nb_index(PyObject* a) {
  TL_PY_BEGIN
  const c10::TensorBase& t = unpack(a);
  TL_CHECK_TYPE(t.numel() == 1 && c10::isIntegralType(t.scalar_type(), true),
                "only integer tensors of a single element can be converted to an index");
  return PyLong_FromLongLong(at::_ops::_local_scalar_dense(t).toLong());
  TL_PY_END
}

static PyObject* richcompare(PyObject* a, PyObject* b, int op) {
  switch (op) {
    case Py_EQ: return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::eq(x, y); });
    case Py_NE: return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::ne(x, y); });
    case Py_LT: return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::lt(x, y); });
    case Py_LE: return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::le(x, y); });
    case Py_GT: return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::gt(x, y); });
    case Py_GE: return binary(a, b, [](const c10::TensorBase& x, const c10::TensorBase& y) { return at::_ops::ge(x, y); });
  }
  Py_RETURN_NOTIMPLEMENTED;
}

static Py_hash_t tensor_hash(PyObject* self) { return _Py_HashPointer(self); }

// ------------------------------------------------------------------ attributes

static PyObject* size_tuple(c10::IntArrayRef s);

static PyObject* get_shape(PyObject* self, void*) {
  TL_PY_BEGIN
  return size_tuple(unpack(self).sizes());
  TL_PY_END
}
static PyObject* get_dtype(PyObject* self, void*) { return Py_NewRef(dtype_object(unpack(self).scalar_type())); }
static PyObject* get_device(PyObject* self, void*) {
  TL_PY_BEGIN
  return device_object(unpack(self).device());
  TL_PY_END
}
static PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(unpack(self).dim()); }
static PyObject* get_is_cpu(PyObject* self, void*) { return PyBool_FromLong(unpack(self).is_cpu()); }
static PyObject* get_is_cuda(PyObject* self, void*) { return PyBool_FromLong(unpack(self).device().is_cuda()); }
static PyObject* get_is_meta(PyObject* self, void*) { return PyBool_FromLong(unpack(self).is_meta()); }
static PyObject* get_version(PyObject* self, void*) {
  TL_PY_BEGIN
  const c10::TensorBase& t = unpack(self);
  TL_CHECK(!t.unsafeGetTensorImpl()->is_inference(), "Inference tensors do not track version counter.");
  return PyLong_FromUnsignedLong(t._version());
  TL_PY_END
}
static PyObject* get_itemsize(PyObject* self, void*) { return PyLong_FromSize_t(unpack(self).itemsize()); }
static PyObject* get_nbytes(PyObject* self, void*) { return PyLong_FromSize_t(unpack(self).nbytes()); }
static PyObject* get_layout(PyObject*, void*) { return layout_object(c10::Layout::Strided); }

static PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, nullptr, nullptr, nullptr},
    {"dtype", get_dtype, nullptr, nullptr, nullptr},
    {"device", get_device, nullptr, nullptr, nullptr},
    {"ndim", get_ndim, nullptr, nullptr, nullptr},
    {"is_cpu", get_is_cpu, nullptr, nullptr, nullptr},
    {"is_cuda", get_is_cuda, nullptr, nullptr, nullptr},
    {"is_meta", get_is_meta, nullptr, nullptr, nullptr},
    {"_version", get_version, nullptr, nullptr, nullptr},
    {"itemsize", get_itemsize, nullptr, nullptr, nullptr},
    {"nbytes", get_nbytes, nullptr, nullptr, nullptr},
    {"layout", get_layout, nullptr, nullptr, nullptr},
    {nullptr}};

// ------------------------------------------------------------------ metadata methods

static PyObject* g_size_class = nullptr;  // torchlike.Size, set by the package

static PyObject* size_tuple(c10::IntArrayRef s) {
  PyObject* tup = PyTuple_New((Py_ssize_t)s.size());
  for (size_t i = 0; i < s.size(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(s[i]));
  if (!g_size_class) return tup;
  PyObject* r = PyObject_CallOneArg(g_size_class, tup);
  Py_DECREF(tup);
  return r;
}

// The `dim` argument of size()/stride(): an integer (not bool), as PyTorch's parser takes it.
static bool parse_dim_arg(PyObject* args, PyObject* kwargs, PyObject** dim) {
  *dim = nullptr;
  if (!kwargs && PyTuple_GET_SIZE(args) <= 1) {  // size() / size(d): no keyword parsing
    if (PyTuple_GET_SIZE(args) == 1) *dim = PyTuple_GET_ITEM(args, 0);
    return true;
  }
  static const char* kw[] = {"dim", nullptr};
  return PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char**>(kw), dim) != 0;
}
static int64_t unpack_dim(const char* fn, PyObject* dim) {
  if (PyLong_CheckExact(dim)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(dim, &overflow);
    TL_CHECK_VALUE(!overflow, "Overflow when unpacking long long");
    return v;
  }
  TL_CHECK_TYPE(!PyBool_Check(dim) && !PyFloat_Check(dim) && PyIndex_Check(dim), fn,
                "(): argument 'dim' (position 1) must be int, not ", type_name(dim));
  PyObject* i = PyNumber_Index(dim);
  if (!i) throw python_error_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (v == -1 && PyErr_Occurred()) throw python_error_set();
  TL_CHECK_VALUE(!overflow, "Overflow when unpacking long long");
  return v;
}

static PyObject* m_size(PyObject* self, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  PyObject* dim;
  if (!parse_dim_arg(args, kwargs, &dim)) return nullptr;
  const c10::TensorBase& t = unpack(self);
  if (!dim || dim == Py_None) return size_tuple(t.sizes());
  return PyLong_FromLongLong(t.size(unpack_dim("size", dim)));
  TL_PY_END
}
static PyObject* m_stride(PyObject* self, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  PyObject* dim;
  if (!parse_dim_arg(args, kwargs, &dim)) return nullptr;
  const c10::TensorBase& t = unpack(self);
  if (!dim || dim == Py_None) {
    PyObject* tup = PyTuple_New(t.dim());
    for (int64_t i = 0; i < t.dim(); ++i) PyTuple_SET_ITEM(tup, i, PyLong_FromLongLong(t.strides()[i]));
    return tup;
  }
  return PyLong_FromLongLong(t.stride(unpack_dim("stride", dim)));
  TL_PY_END
}
static PyObject* m_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(unpack(self).dim()); }
static PyObject* m_numel(PyObject* self, PyObject*) { return PyLong_FromLongLong(unpack(self).numel()); }
static PyObject* m_storage_offset(PyObject* self, PyObject*) {
  return PyLong_FromLongLong(unpack(self).storage_offset());
}
static PyObject* m_element_size(PyObject* self, PyObject*) { return PyLong_FromSize_t(unpack(self).itemsize()); }
static PyObject* m_data_ptr(PyObject* self, PyObject*) {
  const c10::TensorBase& t = unpack(self);
  return PyLong_FromVoidPtr(t.is_meta() ? nullptr : t.data_ptr());
}
static PyObject* m_untyped_storage_ptr(PyObject* self, PyObject*) {
  return PyLong_FromVoidPtr(unpack(self).unsafeGetTensorImpl()->storage()->data.ptr);
}
static PyObject* m_storage_nbytes(PyObject* self, PyObject*) {
  return PyLong_FromSize_t(unpack(self).unsafeGetTensorImpl()->storage()->nbytes);
}
static PyObject* m_is_contiguous(PyObject* self, PyObject*, PyObject*) { return PyBool_FromLong(unpack(self).is_contiguous()); }
static PyObject* m_is_floating_point(PyObject* self, PyObject*) {
  return PyBool_FromLong(c10::isFloatingType(unpack(self).scalar_type()));
}
static PyObject* m_is_complex(PyObject*, PyObject*) { Py_RETURN_FALSE; }
static PyObject* m_is_inference(PyObject* self, PyObject*) {
  return PyBool_FromLong(unpack(self).unsafeGetTensorImpl()->is_inference());
}
static PyObject* m_item(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  return item_object(unpack(self));
  TL_PY_END
}
static PyObject* m_len(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  const c10::TensorBase& t = unpack(self);
  TL_CHECK_TYPE(t.dim() > 0, "len() of a 0-d tensor");
  return PyLong_FromLongLong(t.sizes()[0]);
  TL_PY_END
}
static Py_ssize_t mp_length(PyObject* self) {
  const c10::TensorBase& t = unpack(self);
  if (t.dim() == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  return (Py_ssize_t)t.sizes()[0];
}
static PyObject* m_set_size_class(PyObject*, PyObject* cls) {
  Py_XSETREF(g_size_class, Py_NewRef(cls));
  Py_RETURN_NONE;
}
static PyObject* m_is_same(PyObject* self, PyObject* other) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(other), "_is_same: expected a tensor");
  return PyBool_FromLong(unpack(self).is_same(unpack(other)));
  TL_PY_END
}
// _make_subclass(cls, data): a new Python object of `cls` sharing data's storage
// (nn.Parameter is built this way).
static PyObject* m_make_subclass(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *cls, *data;
  if (!PyArg_ParseTuple(args, "OO", &cls, &data)) return nullptr;
  TL_CHECK_TYPE(PyType_Check(cls) && PyType_IsSubtype((PyTypeObject*)cls, &TensorBaseType),
                "_make_subclass: cls must be a subclass of Tensor");
  TL_CHECK_TYPE(is_tensor(data), "_make_subclass: data must be a Tensor, not ", type_name(data));
  const c10::TensorBase& d = unpack(data);
  c10::TensorBase alias = c10::make_view(d, d.sizes(), d.strides(), d.storage_offset());
  return wrap_tensor_as((PyTypeObject*)cls, alias);
  TL_PY_END
}

// _swap_storage_(other): exchanges the buffers behind self's and other's
// storages (same device, same size), so every tensor viewing self's storage
// now reads what other's held and the reverse. torchlike.multiprocessing moves
// a storage into shared memory this way, views included.
static PyObject* m_swap_storage(PyObject* self, PyObject* other) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(other), "_swap_storage_: expected a tensor, not ", type_name(other));
  c10::StorageImpl* a = unpack(self).unsafeGetTensorImpl()->storage().get();
  c10::StorageImpl* b = unpack(other).unsafeGetTensorImpl()->storage().get();
  TL_CHECK_VALUE(a->device() == b->device() && a->nbytes == b->nbytes,
                 "_swap_storage_: the storages must be on one device and of one size (", a->nbytes, " and ",
                 b->nbytes, " bytes)");
  if (a != b) {
    std::swap(a->data, b->data);
    std::swap(a->allocator, b->allocator);
    std::swap(a->resizable, b->resizable);
  }
  Py_RETURN_NONE;
  TL_PY_END
}

static PyMethodDef tensor_methods[] = {
    {"size", (PyCFunction)(void (*)(void))m_size, METH_VARARGS | METH_KEYWORDS, nullptr},
    {"stride", (PyCFunction)(void (*)(void))m_stride, METH_VARARGS | METH_KEYWORDS, nullptr},
    {"dim", m_dim, METH_NOARGS, nullptr},
    {"ndimension", m_dim, METH_NOARGS, nullptr},
    {"numel", m_numel, METH_NOARGS, nullptr},
    {"nelement", m_numel, METH_NOARGS, nullptr},
    {"storage_offset", m_storage_offset, METH_NOARGS, nullptr},
    {"element_size", m_element_size, METH_NOARGS, nullptr},
    {"data_ptr", m_data_ptr, METH_NOARGS, nullptr},
    {"_storage_ptr", m_untyped_storage_ptr, METH_NOARGS, nullptr},
    {"_storage_nbytes", m_storage_nbytes, METH_NOARGS, nullptr},
    {"is_contiguous", (PyCFunction)(void (*)(void))m_is_contiguous, METH_VARARGS | METH_KEYWORDS, nullptr},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, nullptr},
    {"is_complex", m_is_complex, METH_NOARGS, nullptr},
    {"is_inference", m_is_inference, METH_NOARGS, nullptr},
    {"item", m_item, METH_NOARGS, nullptr},
    {"__len__", m_len, METH_NOARGS, nullptr},
    {"_is_same", m_is_same, METH_O, nullptr},
    {"_set_size_class", m_set_size_class, METH_O | METH_STATIC, nullptr},
    {"_make_subclass", m_make_subclass, METH_VARARGS | METH_STATIC, nullptr},
    {"_swap_storage_", m_swap_storage, METH_O, nullptr},
};

static PyNumberMethods tensor_as_number;
static PyMappingMethods tensor_as_mapping;

extern PyObject* tensor_getitem(PyObject* self, PyObject* index);            // Indexing.cpp
extern int tensor_setitem(PyObject* self, PyObject* index, PyObject* value);  // Indexing.cpp

void init_tensor_type(PyTypeObject* t) {
  auto& n = tensor_as_number;
  n.nb_add = nb_add; n.nb_subtract = nb_sub; n.nb_multiply = nb_mul; n.nb_true_divide = nb_truediv;
  n.nb_floor_divide = nb_floordiv; n.nb_remainder = nb_rem; n.nb_power = nb_pow;
  n.nb_and = nb_and; n.nb_or = nb_or; n.nb_xor = nb_xor; n.nb_lshift = nb_lshift; n.nb_rshift = nb_rshift;
  n.nb_inplace_add = nb_iadd; n.nb_inplace_subtract = nb_isub; n.nb_inplace_multiply = nb_imul;
  n.nb_inplace_true_divide = nb_itruediv; n.nb_inplace_floor_divide = nb_ifloordiv;
  n.nb_inplace_remainder = nb_irem; n.nb_inplace_power = nb_ipow; n.nb_inplace_and = nb_iand;
  n.nb_inplace_or = nb_ior; n.nb_inplace_xor = nb_ixor; n.nb_inplace_lshift = nb_ilshift;
  n.nb_inplace_rshift = nb_irshift;
  n.nb_negative = nb_neg; n.nb_positive = nb_pos; n.nb_absolute = nb_abs; n.nb_invert = nb_invert;
  n.nb_bool = nb_bool; n.nb_float = nb_float; n.nb_int = nb_int; n.nb_index = nb_index;
  t->tp_as_number = &n;
  tensor_as_mapping.mp_length = mp_length;
  tensor_as_mapping.mp_subscript = tensor_getitem;
  tensor_as_mapping.mp_ass_subscript = tensor_setitem;
  t->tp_as_mapping = &tensor_as_mapping;
  t->tp_richcompare = richcompare;
  t->tp_hash = tensor_hash;
  t->tp_getset = tensor_getset;
  // Hand-written methods first, then the generated ones; the table lives forever.
  auto* all = new std::vector<PyMethodDef>(std::begin(tensor_methods), std::end(tensor_methods));
  if (g_extra_tensor_methods) all->insert(all->end(), g_extra_tensor_methods->begin(), g_extra_tensor_methods->end());
  all->push_back({nullptr, nullptr, 0, nullptr});
  t->tp_methods = all->data();
}

}  // namespace tl::python
