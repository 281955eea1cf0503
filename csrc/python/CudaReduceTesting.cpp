// Test hooks for the CUDA reductions' device-neutral half
// (aten/native/ReduceTree.h), run on the CPU: the launch plan of a real
// tensor's geometry, and the reductions and scans simulated block by block
// with the kernels' own folds and lane trees, so
// tests/test_cuda_reduce_host.py can check them against NumPy on machines
// without a GPU. Launch limits are parameters, so small inputs exercise the
// multi-warp trees and the split (grid) pass too.
#include <Python.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "PythonArgParser.h"
#include "aten/native/Copy.h"
#include "aten/native/ReduceTree.h"
#include "aten/native/ReduceUtils.h"

namespace tl::python {
namespace {

namespace rt = at::native::reduce_tree;
using at::native::make_dim_mask;
using at::native::reduced_shape;

std::vector<int64_t> int_list(PyObject* seq_obj, const char* what) {
  std::vector<int64_t> v;
  PyObject* seq = PySequence_Fast(seq_obj, what);
  if (!seq) throw python_error_set();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    long long x = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
    if (x == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      throw python_error_set();
    }
    v.push_back((int64_t)x);
  }
  Py_DECREF(seq);
  return v;
}

rt::ReduceLimits limits_from(int max_threads, long long target_blocks, long long min_per_thread) {
  TL_CHECK_VALUE(max_threads >= 32 && max_threads <= 1024 && (max_threads & (max_threads - 1)) == 0,
                 "max_threads must be a power of two in [32, 1024], got ", max_threads);
  TL_CHECK_VALUE(min_per_thread >= 1, "min_per_thread must be positive");
  rt::ReduceLimits lim;
  lim.max_threads = max_threads;
  lim.target_blocks = target_blocks;
  lim.min_per_thread = min_per_thread;
  return lim;
}

rt::ReduceGeom geom_of(const c10::TensorBase& t, uint64_t mask) {
  rt::ReduceGeom g;
  TL_CHECK(rt::make_reduce_geom((int)t.dim(), t.sizes().data(), t.strides().data(), mask, g),
           "_cuda_reduce: too many dims for the CUDA plan");
  return g;
}

// _cuda_reduce_plan(tensor, dims, max_threads, target_blocks, min_per_thread) -> dict
PyObject* t_plan(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject *t, *dims;
  int max_threads;
  long long target_blocks, min_per_thread;
  if (!PyArg_ParseTuple(args, "OOiLL", &t, &dims, &max_threads, &target_blocks, &min_per_thread)) return nullptr;
  TL_CHECK_TYPE(is_tensor(t), "_cuda_reduce_plan: expected a tensor");
  const c10::TensorBase& x = unpack(t);
  std::vector<int64_t> d = int_list(dims, "_cuda_reduce_plan: dims must be a sequence");
  rt::ReduceGeom g = geom_of(x, make_dim_mask(x, c10::IntArrayRef(d)));
  rt::ReduceLaunch L = rt::make_reduce_launch(g, limits_from(max_threads, target_blocks, min_per_thread));
  auto dims_list = [](int n, const int64_t* sz, const int64_t* st) {
    PyObject* l = PyList_New(n);
    for (int i = 0; i < n; ++i) PyList_SET_ITEM(l, i, Py_BuildValue("(LL)", (long long)sz[i], (long long)st[i]));
    return l;
  };
  return Py_BuildValue("{s:N,s:N,s:L,s:L,s:O,s:i,s:i,s:i,s:i,s:L,s:L,s:L,s:L}", "kept",
                       dims_list(g.nkept, g.ksize, g.kstride), "reduced", dims_list(g.nred, g.rsize, g.rstride),
                       "num_outputs", (long long)g.num_outputs, "reduce_numel", (long long)g.reduce_numel,
                       "outputs_on_x", L.outputs_on_x ? Py_True : Py_False, "threads_x", L.threads_x, "threads_y",
                       L.threads_y, "lanes", L.lanes, "outputs_per_block", L.outputs_per_block, "blocks_x",
                       (long long)L.blocks_x, "splits", (long long)L.splits, "per_split", (long long)L.per_split,
                       "smem_elems", (long long)rt::reduce_smem_elems(L));
  TL_PY_END
}

// The simulated launch of op over x (already in the dtype the kernel reads)
// into a fresh contiguous result of out_dtype.
template <class Op, class T, class O>
c10::TensorBase simulate_into(const Op& op, const c10::TensorBase& x, uint64_t mask, bool keepdim,
                              c10::ScalarType out_dtype, const rt::ReduceLimits& lim) {
  c10::TensorBase out =
      c10::make_empty(reduced_shape(x.sizes(), mask, keepdim), x.options().with_dtype(out_dtype));
  rt::ReduceGeom g = geom_of(x, mask);
  rt::simulate_reduce(op, g, rt::make_reduce_launch(g, lim), x.data_ptr<T>(),
                      rt::StoreProjected<O>{static_cast<O*>(out.data_ptr())});
  return out;
}

// _cuda_reduce_simulate(op, tensor, dims or None, keepdim, arg, max_threads, target_blocks, min_per_thread)
// op: sum mean prod amax amin max_dim min_dim argmax argmin var std norm any all logsumexp;
// arg: var/std correction or the norm's p. Returns a tensor, or (values,
// indices) for max_dim/min_dim. The front half (dims, dtypes) is the CPU
// kernels' (ReduceUtils.h), as the CUDA entry points use it.
PyObject* t_simulate(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* op_c;
  PyObject *t, *dims;
  int keepdim, max_threads;
  double arg;
  long long target_blocks, min_per_thread;
  if (!PyArg_ParseTuple(args, "sOOpdiLL", &op_c, &t, &dims, &keepdim, &arg, &max_threads, &target_blocks,
                        &min_per_thread))
    return nullptr;
  TL_CHECK_TYPE(is_tensor(t), "_cuda_reduce_simulate: expected a tensor");
  const std::string op(op_c);
  const c10::TensorBase& x = unpack(t);
  TL_CHECK_VALUE(x.device().is_cpu(), "_cuda_reduce_simulate: expected a CPU tensor");
  const rt::ReduceLimits lim = limits_from(max_threads, target_blocks, min_per_thread);
  std::optional<std::vector<int64_t>> dv;
  if (dims != Py_None) dv = int_list(dims, "_cuda_reduce_simulate: dims must be a sequence or None");
  std::optional<c10::IntArrayRef> dref;
  if (dv) dref = c10::IntArrayRef(*dv);
  const bool anyall = op == "any" || op == "all";
  const uint64_t mask = make_dim_mask(x, dref, !anyall);

  if (op == "sum" || op == "mean" || op == "prod") {
    c10::ScalarType out_dtype = op == "mean" ? at::native::mean_result_dtype(x, std::nullopt)
                                             : at::native::sum_result_dtype(x.scalar_type(), std::nullopt);
    c10::TensorBase in = at::native::cast_to(x, out_dtype, x.device());
    const int64_t count = at::native::reduced_numel(x.sizes(), mask);
    c10::TensorBase r = TL_DISPATCH_ALL_TYPES(out_dtype, op.c_str(), [&] {
      using A = std::conditional_t<std::is_floating_point_v<c10::opmath_t<scalar_t>>, c10::opmath_t<scalar_t>, int64_t>;
      if (op == "prod")
        return simulate_into<rt::ProdOp<scalar_t, A>, scalar_t, scalar_t>(rt::ProdOp<scalar_t, A>(), in, mask, keepdim,
                                                                         out_dtype, lim);
      rt::SumOp<scalar_t, A> s;
      if constexpr (std::is_floating_point_v<A>) {
        if (op == "mean") s.divisor = A(count);
      }
      return simulate_into<rt::SumOp<scalar_t, A>, scalar_t, scalar_t>(s, in, mask, keepdim, out_dtype, lim);
    });
    return wrap_tensor(r);
  }
  if (op == "amax" || op == "amin") {
    at::native::check_nonempty_reduction(op.c_str(), x, mask, false, false);
    c10::TensorBase r = TL_DISPATCH_ALL_TYPES(x.scalar_type(), op.c_str(), [&] {
      if (op == "amax")
        return simulate_into<rt::ExtremeOp<scalar_t, true>, scalar_t, scalar_t>({}, x, mask, keepdim,
                                                                               x.scalar_type(), lim);
      return simulate_into<rt::ExtremeOp<scalar_t, false>, scalar_t, scalar_t>({}, x, mask, keepdim, x.scalar_type(),
                                                                              lim);
    });
    return wrap_tensor(r);
  }
  if (op == "max_dim" || op == "min_dim" || op == "argmax" || op == "argmin") {
    const bool is_max = op == "max_dim" || op == "argmax";
    const bool with_values = op == "max_dim" || op == "min_dim";
    at::native::check_nonempty_reduction(op.c_str(), x, mask, false, !with_values);
    c10::DimVector shape = reduced_shape(x.sizes(), mask, keepdim);
    c10::TensorBase values = c10::make_empty(shape, x.options());
    c10::TensorBase indices = c10::make_empty(shape, x.options().with_dtype(c10::ScalarType::Long));
    rt::ReduceGeom g = geom_of(x, mask);
    rt::ReduceLaunch L = rt::make_reduce_launch(g, lim);
    TL_DISPATCH_ALL_TYPES(x.scalar_type(), op.c_str(), [&] {
      rt::StoreArg<scalar_t> w{values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>()};
      if (is_max) rt::simulate_reduce(rt::ArgOp<scalar_t, true>(), g, L, x.data_ptr<scalar_t>(), w);
      else rt::simulate_reduce(rt::ArgOp<scalar_t, false>(), g, L, x.data_ptr<scalar_t>(), w);
    });
    if (!with_values) return wrap_tensor(indices);
    return Py_BuildValue("(NN)", wrap_tensor(values), wrap_tensor(indices));
  }
  if (op == "var" || op == "std") {
    at::native::check_var_dtype(x);
    c10::TensorBase r = TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), op.c_str(), [&] {
      rt::WelfordOp<scalar_t> w;
      w.correction = (typename rt::WelfordOp<scalar_t>::A)arg;
      w.take_sqrt = op == "std";
      return simulate_into<rt::WelfordOp<scalar_t>, scalar_t, scalar_t>(w, x, mask, keepdim, x.scalar_type(), lim);
    });
    return wrap_tensor(r);
  }
  if (op == "norm") {
    at::native::check_norm_dtype(x, std::nullopt);
    c10::TensorBase r = TL_DISPATCH_FLOATING_TYPES(x.scalar_type(), op.c_str(), [&] {
      rt::NormOp<scalar_t> n;
      n.kind = rt::norm_kind(arg);
      n.p = (typename rt::NormOp<scalar_t>::A)arg;
      return simulate_into<rt::NormOp<scalar_t>, scalar_t, scalar_t>(n, x, mask, keepdim, x.scalar_type(), lim);
    });
    return wrap_tensor(r);
  }
  if (op == "logsumexp") {
    c10::ScalarType t = at::native::float_result_dtype(x.scalar_type());
    c10::TensorBase in = at::native::cast_to(x, t, x.device());
    c10::TensorBase r = TL_DISPATCH_FLOATING_TYPES(t, op.c_str(), [&] {
      return simulate_into<rt::LogSumExpOp<scalar_t>, scalar_t, scalar_t>({}, in, mask, keepdim, t, lim);
    });
    return wrap_tensor(r);
  }
  if (anyall) {
    c10::ScalarType out_dtype = x.scalar_type() == c10::ScalarType::Byte ? c10::ScalarType::Byte : c10::ScalarType::Bool;
    c10::TensorBase r = TL_DISPATCH_ALL_TYPES(x.scalar_type(), op.c_str(), [&] {
      if (op == "any")
        return simulate_into<rt::AnyAllOp<scalar_t, true>, scalar_t, uint8_t>({}, x, mask, keepdim, out_dtype, lim);
      return simulate_into<rt::AnyAllOp<scalar_t, false>, scalar_t, uint8_t>({}, x, mask, keepdim, out_dtype, lim);
    });
    return wrap_tensor(r);
  }
  TL_CHECK_VALUE(false, "_cuda_reduce_simulate: unknown op '", op, "'");
  return nullptr;
  TL_PY_END
}

// _cuda_scan_simulate(tensor, dim, prod) -> cumsum/cumprod as the scan kernels run it.
PyObject* t_scan(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* t;
  long long dim;
  int prod;
  if (!PyArg_ParseTuple(args, "OLp", &t, &dim, &prod)) return nullptr;
  TL_CHECK_TYPE(is_tensor(t), "_cuda_scan_simulate: expected a tensor");
  const c10::TensorBase& x = unpack(t);
  c10::ScalarType out_dtype = at::native::sum_result_dtype(x.scalar_type(), std::nullopt);
  int64_t d = c10::maybe_wrap_dim(dim, x.dim());
  c10::TensorBase in = at::native::contiguous(at::native::cast_to(x, out_dtype, x.device()));
  c10::TensorBase out = c10::make_empty(x.sizes(), x.options().with_dtype(out_dtype));
  int64_t n = x.dim() == 0 ? 1 : x.sizes()[d];
  int64_t inner = 1, outer = 1;
  for (int64_t k = d + 1; k < x.dim(); ++k) inner *= x.sizes()[k];
  for (int64_t k = 0; k < d; ++k) outer *= x.sizes()[k];
  if (x.numel() > 0) {
    TL_DISPATCH_ALL_TYPES(out_dtype, "_cuda_scan_simulate", [&] {
      if (prod) rt::simulate_scan<true>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), outer, n, inner);
      else rt::simulate_scan<false>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), outer, n, inner);
    });
  }
  return wrap_tensor(out);
  TL_PY_END
}

PyMethodDef g_methods[] = {
    {"_cuda_reduce_plan", t_plan, METH_VARARGS, nullptr},
    {"_cuda_reduce_simulate", t_simulate, METH_VARARGS, nullptr},
    {"_cuda_scan_simulate", t_scan, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_cuda_reduce_testing(PyObject* m) {
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
