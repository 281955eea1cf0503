// Publishes TensorCApi (TensorCApi.h) as torchlike._C._tensor_c_api.
#include "TensorCApi.h"

#include "Objects.h"
#include "PythonArgParser.h"

namespace tl::python {
namespace {

int api_is_tensor(PyObject* o) { return is_tensor(o) ? 1 : 0; }
const c10::TensorBase* api_unpack(PyObject* o) { return &unpack(o); }
PyObject* api_wrap(const c10::TensorBase& t) {
  if (!t.defined()) Py_RETURN_NONE;
  return wrap_tensor(t);
}
int api_unpack_dtype(PyObject* o, c10::ScalarType* out) {
  if (!is_dtype(o)) return 0;
  *out = unpack_dtype(o);
  return 1;
}
PyObject* api_dtype_object(c10::ScalarType st) {
  PyObject* d = tl::python::dtype_object(st);
  Py_XINCREF(d);
  return d;
}
void api_set_error() { translate_exception(); }

const TensorCApi g_api = {kTensorCApiVersion, api_is_tensor,  api_unpack, api_wrap,
                          api_unpack_dtype,   api_dtype_object, api_set_error};

}  // namespace

void tl_init_tensor_c_api(PyObject* m) {
  PyObject* cap = PyCapsule_New(const_cast<TensorCApi*>(&g_api), "torchlike._C._tensor_c_api", nullptr);
  if (!cap || PyModule_AddObject(m, "_tensor_c_api", cap) < 0) {
    Py_XDECREF(cap);
    throw python_error_set();
  }
}

}  // namespace tl::python
