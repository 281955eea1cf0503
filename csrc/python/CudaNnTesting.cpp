// Test hooks for the host/device building blocks of the CUDA nn kernels
// (aten/native/CudaNnPlan.h), run on the CPU: the same code the kernels run,
// so tests/test_cuda_nn_host.py can check it against NumPy and against the
// CPU kernels on machines without a GPU.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "PythonArgParser.h"
#include "aten/native/CudaNnPlan.h"
#include "c10/Generator.h"

namespace tl::python {
namespace {

namespace nn = at::native::cuda_nn;

// A Python sequence of floats as a vector of doubles.
std::vector<double> doubles_of(PyObject* seq_obj, const char* op) {
  PyObject* seq = PySequence_Fast(seq_obj, op);
  if (!seq) throw python_error_set();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  std::vector<double> v(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    v[size_t(i)] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    if (PyErr_Occurred()) {
      Py_DECREF(seq);
      throw python_error_set();
    }
  }
  Py_DECREF(seq);
  return v;
}

// _cuda_nn_philox(seed, ctr_hi, ctr_lo) -> (plan's 4 words, c10::Philox4x32's 4 words)
PyObject* t_philox(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  unsigned long long seed, hi, lo;
  if (!PyArg_ParseTuple(args, "KKK", &seed, &hi, &lo)) return nullptr;
  uint32_t a[4], b[4];
  nn::philox_words(seed, hi, lo, a);
  c10::Philox4x32::block(seed, hi, lo, b);
  return Py_BuildValue("((kkkk)(kkkk))", (unsigned long)a[0], (unsigned long)a[1], (unsigned long)a[2],
                       (unsigned long)a[3], (unsigned long)b[0], (unsigned long)b[1], (unsigned long)b[2],
                       (unsigned long)b[3]);
  TL_PY_END
}

// _cuda_nn_bernoulli_mask(seed, base, n, p) -> bytes of 0/1: the mask the CUDA
// bernoulli_ kernel draws for a fill that reserved counters from `base`.
PyObject* t_bernoulli_mask(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  unsigned long long seed, base;
  long long n;
  double p;
  if (!PyArg_ParseTuple(args, "KKLd", &seed, &base, &n, &p)) return nullptr;
  TL_CHECK_VALUE(n >= 0, "_cuda_nn_bernoulli_mask: n must be >= 0");
  std::vector<char> mask(static_cast<size_t>(n));
  for (long long i = 0; i < n; ++i) mask[size_t(i)] = nn::bernoulli_draw(seed, base, i, p) ? 1 : 0;
  return Py_BuildValue("(y#K)", mask.data(), (Py_ssize_t)n, (unsigned long long)nn::bernoulli_counters(n));
  TL_PY_END
}

// _cuda_nn_online_softmax(values, threads, double) -> (max, sum): each of
// `threads` strided lanes folds its elements as a kernel thread does, then the
// lanes are combined pairwise as a block reduction does.
template <class A>
PyObject* online_softmax(const std::vector<double>& v, int threads) {
  std::vector<nn::MaxSum<A>> lane(size_t(threads), nn::maxsum_empty<A>());
  for (size_t i = 0; i < v.size(); ++i) lane[i % size_t(threads)] = nn::maxsum_add(lane[i % size_t(threads)], A(v[i]));
  for (int w = threads / 2; w > 0; w /= 2)
    for (int t = 0; t < w; ++t) lane[size_t(t)] = nn::maxsum_combine(lane[size_t(t)], lane[size_t(t + w)]);
  return Py_BuildValue("(dd)", double(lane[0].max), double(lane[0].sum));
}
PyObject* t_online_softmax(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* values;
  int threads, dbl;
  if (!PyArg_ParseTuple(args, "Oip", &values, &threads, &dbl)) return nullptr;
  TL_CHECK_VALUE(threads >= 1 && (threads & (threads - 1)) == 0, "_cuda_nn_online_softmax: threads must be a power of 2");
  std::vector<double> v = doubles_of(values, "_cuda_nn_online_softmax: expected a sequence");
  return dbl ? online_softmax<double>(v, threads) : online_softmax<float>(v, threads);
  TL_PY_END
}

// _cuda_nn_welford(values, threads) -> (count, mean, var) in float, folded like
// the norm kernels' blocks.
PyObject* t_welford(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* values;
  int threads;
  if (!PyArg_ParseTuple(args, "Oi", &values, &threads)) return nullptr;
  TL_CHECK_VALUE(threads >= 1 && (threads & (threads - 1)) == 0, "_cuda_nn_welford: threads must be a power of 2");
  std::vector<double> v = doubles_of(values, "_cuda_nn_welford: expected a sequence");
  std::vector<nn::Welford<float>> lane(size_t(threads), nn::welford_empty<float>());
  for (size_t i = 0; i < v.size(); ++i)
    lane[i % size_t(threads)] = nn::welford_add(lane[i % size_t(threads)], float(v[i]));
  for (int w = threads / 2; w > 0; w /= 2)
    for (int t = 0; t < w; ++t) lane[size_t(t)] = nn::welford_combine(lane[size_t(t)], lane[size_t(t + w)]);
  return Py_BuildValue("(Ldd)", (long long)lane[0].count, double(lane[0].mean), double(nn::welford_var(lane[0])));
  TL_PY_END
}

// _cuda_nn_bitonic_sort(values, descending) -> (sorted values, indices): the
// network Sort.cu runs, stage by stage, on the padded row.
PyObject* t_bitonic_sort(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* values;
  int descending;
  if (!PyArg_ParseTuple(args, "Op", &values, &descending)) return nullptr;
  std::vector<double> v = doubles_of(values, "_cuda_nn_bitonic_sort: expected a sequence");
  const int64_t n = int64_t(v.size()), len = nn::bitonic_length(n);
  std::vector<double> key(size_t(len), 0.0);
  std::vector<int64_t> idx(static_cast<size_t>(len));
  std::unique_ptr<bool[]> pad(new bool[size_t(len)]);
  for (int64_t i = 0; i < len; ++i) {
    key[size_t(i)] = i < n ? v[size_t(i)] : 0.0;
    idx[size_t(i)] = i;
    pad[size_t(i)] = i >= n;
  }
  for (int64_t k = 2; k <= len; k <<= 1)
    for (int64_t j = k >> 1; j > 0; j >>= 1)
      for (int64_t i = 0; i < len; ++i) nn::bitonic_exchange(key.data(), idx.data(), pad.get(), i, j, k, descending);
  PyObject* vals = PyList_New(n);
  PyObject* inds = PyList_New(n);
  for (int64_t i = 0; i < n; ++i) {
    PyList_SET_ITEM(vals, i, PyFloat_FromDouble(key[size_t(i)]));
    PyList_SET_ITEM(inds, i, PyLong_FromLongLong(idx[size_t(i)]));
  }
  return Py_BuildValue("(NN)", vals, inds);
  TL_PY_END
}

// _cuda_nn_row_block_threads(n) -> threads per block of a row reduction.
PyObject* t_row_block_threads(PyObject*, PyObject* arg) {
  TL_PY_BEGIN
  long long n = PyLong_AsLongLong(arg);
  if (PyErr_Occurred()) return nullptr;
  return PyLong_FromLong(nn::row_block_threads(n));
  TL_PY_END
}

PyMethodDef g_methods[] = {
    {"_cuda_nn_philox", t_philox, METH_VARARGS, nullptr},
    {"_cuda_nn_bernoulli_mask", t_bernoulli_mask, METH_VARARGS, nullptr},
    {"_cuda_nn_online_softmax", t_online_softmax, METH_VARARGS, nullptr},
    {"_cuda_nn_welford", t_welford, METH_VARARGS, nullptr},
    {"_cuda_nn_bitonic_sort", t_bitonic_sort, METH_VARARGS, nullptr},
    {"_cuda_nn_row_block_threads", t_row_block_threads, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_cuda_nn_testing(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
