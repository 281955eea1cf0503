// Test hooks for the host-side logic of the CUDA matmul, convolution and
// library loader, run on the CPU (tests/test_cuda_blas_host.py):
//   - blas_plan::plan: how a row-major product becomes a cuBLAS call;
//   - nvlib::candidates / missing_library_message: where cuBLAS is searched;
//   - conv_index: the im2col / col2im element math of cuda/Conv.cu.
// The same headers are compiled into libtorchlike_cuda.so.
#include <Python.h>

#include <cstdint>
#include <string>
#include <vector>

#include "PythonArgParser.h"
#include "aten/native/CudaBlasPlan.h"
#include "aten/native/CudaConvIndex.h"
#include "aten/native/CudaLibrarySearch.h"

namespace tl::python {
namespace {

namespace bp = at::native::blas_plan;
namespace nvlib = at::native::nvlib;
namespace ci = at::native::conv_index;

PyObject* t_plan(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long m, n, k, ars, acs, brs, bcs, ldc;
  if (!PyArg_ParseTuple(args, "LLLLLLLL", &m, &n, &k, &ars, &acs, &brs, &bcs, &ldc)) return nullptr;
  bp::GemmCall c = bp::plan(m, n, k, ars, acs, brs, bcs, ldc);
  return Py_BuildValue("{s:L,s:L,s:L,s:O,s:L,s:O,s:L,s:L,s:O,s:O,s:O}", "m", (long long)c.m, "n", (long long)c.n, "k",
                       (long long)c.k, "first_trans", c.first.transposed ? Py_True : Py_False, "first_ld",
                       (long long)c.first.ld, "second_trans", c.second.transposed ? Py_True : Py_False, "second_ld",
                       (long long)c.second.ld, "ldc", (long long)c.ldc, "copy_a", c.copy_a ? Py_True : Py_False,
                       "copy_b", c.copy_b ? Py_True : Py_False, "fits", c.fits ? Py_True : Py_False);
  TL_PY_END
}

std::vector<std::string> strings_of(PyObject* seq_obj, const char* what) {
  PyObject* seq = PySequence_Fast(seq_obj, what);
  if (!seq) throw python_error_set();
  std::vector<std::string> out;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    const char* s = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
    if (!s) {
      Py_DECREF(seq);
      throw python_error_set();
    }
    out.emplace_back(s);
  }
  Py_DECREF(seq);
  return out;
}

PyObject* list_of(const std::vector<std::string>& v) {
  PyObject* r = PyList_New((Py_ssize_t)v.size());
  if (!r) throw python_error_set();
  for (size_t i = 0; i < v.size(); ++i) PyList_SET_ITEM(r, (Py_ssize_t)i, PyUnicode_FromString(v[i].c_str()));
  return r;
}

PyObject* t_candidates(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *soname, *override_path, *sites;
  PyObject* subdirs;
  if (!PyArg_ParseTuple(args, "sOss", &soname, &subdirs, &override_path, &sites)) return nullptr;
  return list_of(nvlib::candidates(soname, strings_of(subdirs, "subdirs must be a sequence"), override_path, sites));
  TL_PY_END
}

PyObject* t_missing(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char *what, *soname, *pip, *var, *err;
  PyObject* tried;
  if (!PyArg_ParseTuple(args, "ssssOs", &what, &soname, &pip, &var, &tried, &err)) return nullptr;
  std::string msg = nvlib::missing_library_message(what, soname, pip, var, strings_of(tried, "tried"), err);
  return PyUnicode_FromString(msg.c_str());
  TL_PY_END
}

// A Window3 from ((in), (out), (k), (s), (p), (d)), each three extents.
bool parse_window(PyObject* args, at::native::Window3* w, PyObject** rest) {
  PyObject *in, *out, *k, *s, *p, *d;
  if (!PyArg_ParseTuple(args, "OOOOOOO", rest, &in, &out, &k, &s, &p, &d)) return false;
  PyObject* lists[6] = {in, out, k, s, p, d};
  int64_t* dst[6] = {w->in, w->out, w->k, w->s, w->p, w->d};
  for (int a = 0; a < 6; ++a) {
    if (!PyArg_ParseTuple(lists[a], "LLL", (long long*)&dst[a][0], (long long*)&dst[a][1], (long long*)&dst[a][2]))
      return false;
  }
  return true;
}

std::vector<double> doubles_of(PyObject* obj) {
  PyObject* seq = PySequence_Fast(obj, "expected a sequence of numbers");
  if (!seq) throw python_error_set();
  std::vector<double> v((size_t)PySequence_Fast_GET_SIZE(seq));
  for (size_t i = 0; i < v.size(); ++i) v[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i));
  Py_DECREF(seq);
  if (PyErr_Occurred()) throw python_error_set();
  return v;
}

PyObject* floats_list(const std::vector<double>& v) {
  PyObject* r = PyList_New((Py_ssize_t)v.size());
  if (!r) throw python_error_set();
  for (size_t i = 0; i < v.size(); ++i) PyList_SET_ITEM(r, (Py_ssize_t)i, PyFloat_FromDouble(v[i]));
  return r;
}

// _cuda_conv_vol2col(x_flat, in, out, k, s, p, d) -> cols (C*kvol x L), flat,
// for one image whose channel count is len(x_flat) / prod(in).
PyObject* t_vol2col(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  at::native::Window3 w;
  PyObject* xo;
  if (!parse_window(args, &w, &xo)) return nullptr;
  std::vector<double> x = doubles_of(xo);
  TL_CHECK_VALUE(w.in_numel() > 0 && (int64_t)x.size() % w.in_numel() == 0, "x does not hold whole channels");
  const int64_t C = (int64_t)x.size() / w.in_numel(), rows = C * w.k_numel(), L = w.out_numel();
  std::vector<double> cols((size_t)(rows * L));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < L; ++o) {
      const int64_t src = ci::vol2col_source(w, r, o);
      TL_CHECK(src < (int64_t)x.size(), "vol2col_source out of range");
      cols[(size_t)(r * L + o)] = src < 0 ? 0.0 : x[(size_t)src];
    }
  return floats_list(cols);
  TL_PY_END
}

// _cuda_conv_col2vol(cols_flat, in, out, k, s, p, d) -> x (C x in volume), flat,
// each input element the sum of the column entries that read it.
PyObject* t_col2vol(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  at::native::Window3 w;
  PyObject* co;
  if (!parse_window(args, &w, &co)) return nullptr;
  std::vector<double> cols = doubles_of(co);
  const int64_t per_channel = w.k_numel() * w.out_numel();
  TL_CHECK_VALUE(per_channel > 0 && (int64_t)cols.size() % per_channel == 0, "cols does not hold whole channels");
  const int64_t C = (int64_t)cols.size() / per_channel, L = w.out_numel();
  std::vector<double> x((size_t)(C * w.in_numel()));
  for (int64_t e = 0; e < (int64_t)x.size(); ++e) {
    double s = 0;
    ci::for_each_reader(w, e, [&](int64_t row, int64_t col) { s += cols[(size_t)(row * L + col)]; });
    x[(size_t)e] = s;
  }
  return floats_list(x);
  TL_PY_END
}

PyObject* t_chunk(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long N, rows, cols, elem, budget;
  if (!PyArg_ParseTuple(args, "LLLLL", &N, &rows, &cols, &elem, &budget)) return nullptr;
  return PyLong_FromLongLong((long long)ci::images_per_chunk(N, rows, cols, elem, budget));
  TL_PY_END
}

PyMethodDef g_methods[] = {
    {"_cuda_blas_plan", t_plan, METH_VARARGS, nullptr},
    {"_cuda_library_candidates", t_candidates, METH_VARARGS, nullptr},
    {"_cuda_library_missing_message", t_missing, METH_VARARGS, nullptr},
    {"_cuda_conv_vol2col", t_vol2col, METH_VARARGS, nullptr},
    {"_cuda_conv_col2vol", t_col2vol, METH_VARARGS, nullptr},
    {"_cuda_conv_images_per_chunk", t_chunk, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_cuda_blas_testing(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
