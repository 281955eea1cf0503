// Test hooks for the CUDA elementwise loop's index math
// (aten/native/ElementwiseIndex.h), run on the CPU: the same host/device code
// the kernels use, fed with the geometry of a real TensorIterator, so
// tests/test_cuda_host_device.py can check it on machines without a GPU.
#include <Python.h>

#include <cstdint>
#include <vector>
#include "PythonArgParser.h"
#include "aten/TensorIterator.h"
#include "aten/native/ElementwiseIndex.h"

namespace tl::python {
namespace {

namespace ew = at::native::elementwise;

// Each operand's element offsets from its data pointer, for every flat loop
// index, through the calculator with index type Index.
template <int NARGS, class Index>
PyObject* offsets_of(const at::TensorIterator& it) {
  TL_CHECK(it.ndim() <= ew::kMaxLoopDims, "_cuda_index_math_offsets: loop has ", it.ndim(), " dims, more than ",
           ew::kMaxLoopDims);
  const int64_t* strides[NARGS];
  for (int a = 0; a < NARGS; ++a) strides[a] = it.strides(a).data();
  ew::StridedOffsetCalculator<NARGS, Index> calc(it.ndim(), it.shape().data(), strides);
  PyObject* rows = PyList_New(0);
  if (!rows) throw python_error_set();
  for (int64_t i = 0; i < it.numel(); ++i) {
    auto off = calc.get(Index(i));
    PyObject* row = PyTuple_New(NARGS);
    if (!row) { Py_DECREF(rows); throw python_error_set(); }
    for (int a = 0; a < NARGS; ++a)
      PyTuple_SET_ITEM(row, a, PyLong_FromLongLong((long long)off.at[a] / (long long)it.operand(a).element_size()));
    if (PyList_Append(rows, row) < 0) { Py_DECREF(row); Py_DECREF(rows); throw python_error_set(); }
    Py_DECREF(row);
  }
  return rows;
}

// _cuda_index_math_offsets(out, a, b, wide): builds out = f(a, b)'s iterator
// (broadcasting, no dtype change) and returns [(out_off, a_off, b_off)] in loop order.
PyObject* t_offsets(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *out, *a, *b;
  int wide = 0;
  if (!PyArg_ParseTuple(args, "OOOp", &out, &a, &b, &wide)) return nullptr;
  TL_CHECK_TYPE(is_tensor(out) && is_tensor(a) && is_tensor(b), "_cuda_index_math_offsets: expected tensors");
  at::TensorIterator it = at::TensorIteratorConfig("_cuda_index_math_offsets")
                              .add_output(unpack(out))
                              .add_input(unpack(a))
                              .add_input(unpack(b))
                              .resize_outputs(false)
                              .build();
  return wide ? offsets_of<3, uint64_t>(it) : offsets_of<3, uint32_t>(it);
  TL_PY_END
}

// _cuda_index_math_divmod(divisor, [n...]) -> [(q, r)] through the 32-bit divider.
PyObject* t_divmod(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  unsigned long long d;
  PyObject* ns;
  if (!PyArg_ParseTuple(args, "KO", &d, &ns)) return nullptr;
  TL_CHECK_VALUE(d >= 1 && d <= 0xffffffffull, "_cuda_index_math_divmod: divisor must be in [1, 2^32)");
  ew::Divider32 divider{uint32_t(d)};
  PyObject* seq = PySequence_Fast(ns, "_cuda_index_math_divmod: expected a sequence");
  if (!seq) return nullptr;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
  PyObject* res = PyList_New(len);
  for (Py_ssize_t i = 0; res && i < len; ++i) {
    unsigned long long n = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (PyErr_Occurred() || n > 0xffffffffull) {
      Py_DECREF(seq); Py_DECREF(res);
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_cuda_index_math_divmod: n must fit 32 bits");
      return nullptr;
    }
    uint32_t q = divider.div(uint32_t(n));
    PyList_SET_ITEM(res, i, Py_BuildValue("(KK)", (unsigned long long)q, (unsigned long long)divider.mod(uint32_t(n), q)));
  }
  Py_DECREF(seq);
  return res;
  TL_PY_END
}

PyMethodDef g_methods[] = {
    {"_cuda_index_math_offsets", t_offsets, METH_VARARGS, nullptr},
    {"_cuda_index_math_divmod", t_divmod, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_cuda_index_math_testing(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
