// The C entry points extension modules use to move tensors between Python
// and C++ (torchlike/extension.h's pybind11 type casters). _C publishes them
// as the capsule torchlike._C._tensor_c_api, so an extension links only to
// the core library and finds _C's functions at import time, whatever the
// symbol visibility of _C.
#pragma once
#include <Python.h>

#include <cstdint>
#include "c10/ScalarType.h"
#include "c10/Tensor.h"

namespace tl::python {

struct TensorCApi {
  int version;  // kTensorCApiVersion; an extension built against another layout refuses to load
  // 1 when `o` is a torchlike tensor (any subclass), else 0.
  int (*is_tensor)(PyObject* o);
  // The tensor inside `o` (which must be a tensor); borrowed from o.
  const c10::TensorBase* (*unpack)(PyObject* o);
  // A new reference to the Python object of `t` (undefined t: None).
  PyObject* (*wrap)(const c10::TensorBase& t);
  // 1 when `o` is a torchlike.dtype; its ScalarType through *out.
  int (*unpack_dtype)(PyObject* o, c10::ScalarType* out);
  // A new reference to the torchlike.dtype object of st.
  PyObject* (*dtype_object)(c10::ScalarType st);
  // Sets the Python error for the C++ exception being handled (call inside a
  // catch block): c10::Error kinds map to IndexError, TypeError, ValueError,
  // NotImplementedError or RuntimeError, as in _C's own bindings.
  void (*set_error_from_current_exception)();
};

constexpr int kTensorCApiVersion = 1;

}  // namespace tl::python
