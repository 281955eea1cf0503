// Exercises the user-facing C++ API (aten/ATen.h: at::Tensor methods, at::
// functions on at::Tensor, operators) from Python tests: each scenario computes
// with the C++ API and returns tensors that tests/test_cpp_api.py checks
// against NumPy. This is the one library file that includes ATen.h; adding an
// operator recompiles it and the operator's own file, nothing else.
#include <string>
#include <vector>

#include "aten/ATen.h"
#include "python/Objects.h"
#include "python/PythonArgParser.h"

namespace tl::python {
namespace {

using at::Tensor;

Tensor scalar_tensor_bool(bool b) { return at::full({}, b, at::kBool); }

std::vector<Tensor> methods(const Tensor& a, const Tensor& b) {
  return {
      a.add(b, 2),                                  // a + 2b
      a.add(3),                                     // Scalar `other`
      a.mul(2.5).sub(b).exp(),                      // chained methods
      a.sum({1}, true),                             // int[]? dim from a braced list
      a.sum(0),                                     // ... and from one int
      a.matmul(b.t()),                              // a @ b.T
      std::get<0>(a.max(1)),                        // tuple return
      std::get<1>(a.max(1)),
      a.transpose(0, 1).contiguous().view({-1}),    // views
      a.unbind(0)[1],                               // Tensor[] return
      a.pow(2).mean(),
      a.clamp_min(-0.5).clamp_max(0.5),             // Scalar operand
      a.to(at::kFloat),                             // dtype conversion
      a.split(2)[1],                                // int vs int[] overloads, default dim
      a.split({1, 2})[1],
  };
}

std::vector<Tensor> functions(const Tensor& a, const Tensor& b) {
  return {
      at::where(at::gt(a, 0), a, b),
      at::zeros({2, 3}, at::kDouble),
      at::arange(5),
      at::add(a, b, /*alpha=*/-1),
      at::mul(a, 2),                                // Scalar `other` function
      at::matmul(a, b.t()),
      at::sum(a),
  };
}

std::vector<Tensor> operators(const Tensor& a, const Tensor& b) {
  Tensor c = a.clone();
  c += b;
  c *= 2;
  return {-a + b * 2 - a / 3, 1 - a, (a < b), (a >= 0.25) & (b < 0.5), c};
}

std::vector<Tensor> inplace(const Tensor& a, const Tensor& b) {
  Tensor c = a.clone();
  Tensor& r = c.mul_(2).add_(b).sub_(1);   // in-place methods return *this
  Tensor out = at::empty({0}, a.scalar_type());
  Tensor o = at::add_out(out, a, b);
  Tensor values = at::empty({0}, a.scalar_type()), indices = at::empty({0}, at::kLong);
  auto vi = at::max_out(values, indices, a, 1);  // several outputs: (values, indices)
  return {c, scalar_tensor_bool(&r == &c), o, scalar_tensor_bool(o.is_same(out)), values, indices,
          scalar_tensor_bool(std::get<0>(vi).is_same(values) && std::get<1>(vi).is_same(indices))};
}

PyObject* cpp_api_test(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  const char* name;
  PyObject *pa, *pb;
  if (!PyArg_ParseTuple(args, "sOO", &name, &pa, &pb)) return nullptr;
  TL_CHECK_TYPE(is_tensor(pa) && is_tensor(pb), "_cpp_api_test: expected two tensors");
  Tensor a(unpack(pa)), b(unpack(pb));
  std::string n = name;
  std::vector<Tensor> rs;
  if (n == "methods") rs = methods(a, b);
  else if (n == "functions") rs = functions(a, b);
  else if (n == "operators") rs = operators(a, b);
  else if (n == "inplace") rs = inplace(a, b);
  else TL_CHECK_VALUE(false, "_cpp_api_test: unknown scenario '", n, "'");
  PyObject* t = PyTuple_New((Py_ssize_t)rs.size());
  for (size_t i = 0; i < rs.size(); ++i) PyTuple_SET_ITEM(t, i, wrap_tensor(std::move(rs[i])));
  return t;
  TL_PY_END
}

}  // namespace

void tl_init_cpp_api_testing(MethodTables& t) {
  t.functions.emplace_back("", PyMethodDef{"_cpp_api_test", cpp_api_test, METH_VARARGS, nullptr});
}

}  // namespace tl::python
