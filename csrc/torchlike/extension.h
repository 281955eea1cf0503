// What a C++ extension module includes: torchlike's C++ API (at::Tensor with
// its methods, at:: functions), the registration macros (TL_LIBRARY, ...),
// and pybind11 with type casters, so functions taking and returning
// at::Tensor, std::vector<at::Tensor>, std::optional<at::Tensor>, c10::Scalar
// and c10::ScalarType bind with a plain m.def:
//
//   #include <torchlike/extension.h>
//   at::Tensor twice(const at::Tensor& x) { return x * 2; }
//   PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("twice", &twice); }
//
// The casters reach _C's tensor objects through the capsule
// torchlike._C._tensor_c_api (python/TensorCApi.h), so an extension links only
// to libtorchlike.so. C++ errors (TL_CHECK, c10::Error) reach Python as the
// matching exception type, as from torchlike's own bindings.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <vector>
#include "aten/ATen.h"
#include "c10/Exception.h"
#include "c10/Library.h"
#include "c10/Scalar.h"
#include "c10/ScalarType.h"
#include "python/TensorCApi.h"

namespace torchlike::extension {

// _C's entry points, found once (at the first conversion) and kept.
inline const tl::python::TensorCApi& tensor_c_api() {
  static const tl::python::TensorCApi* api = [] {
    pybind11::gil_scoped_acquire gil;
    pybind11::module_ c = pybind11::module_::import("torchlike._C");
    pybind11::object cap = c.attr("_tensor_c_api");
    auto* p = static_cast<const tl::python::TensorCApi*>(PyCapsule_GetPointer(cap.ptr(), "torchlike._C._tensor_c_api"));
    if (p == nullptr) throw pybind11::error_already_set();
    if (p->version != tl::python::kTensorCApiVersion)
      throw std::runtime_error("this extension was built against another torchlike; rebuild it");
    return p;
  }();
  return *api;
}

namespace detail {
// c10::Error -> the matching Python exception, registered when the module loads.
inline void register_error_translator() {
  pybind11::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const c10::Error&) {
      tensor_c_api().set_error_from_current_exception();
    }
  });
}
struct ErrorTranslatorRegistration {
  ErrorTranslatorRegistration() {
    if (Py_IsInitialized()) register_error_translator();
  }
};
// One per extension module (inline: one per shared object, since each
// extension is its own .so with its own copy).
inline ErrorTranslatorRegistration error_translator_registration;
}  // namespace detail

}  // namespace torchlike::extension

#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME torchlike_extension
#endif

namespace pybind11::detail {

template <>
struct type_caster<at::Tensor> {
  PYBIND11_TYPE_CASTER(at::Tensor, const_name("torchlike.Tensor"));
  bool load(handle src, bool) {
    const auto& api = torchlike::extension::tensor_c_api();
    if (!api.is_tensor(src.ptr())) return false;
    value = at::Tensor(*api.unpack(src.ptr()));
    return true;
  }
  static handle cast(const at::Tensor& t, return_value_policy, handle) {
    return torchlike::extension::tensor_c_api().wrap(t);
  }
};

template <>
struct type_caster<c10::TensorBase> {
  PYBIND11_TYPE_CASTER(c10::TensorBase, const_name("torchlike.Tensor"));
  bool load(handle src, bool) {
    const auto& api = torchlike::extension::tensor_c_api();
    if (!api.is_tensor(src.ptr())) return false;
    value = *api.unpack(src.ptr());
    return true;
  }
  static handle cast(const c10::TensorBase& t, return_value_policy, handle) {
    return torchlike::extension::tensor_c_api().wrap(t);
  }
};

template <>
struct type_caster<c10::Scalar> {
  PYBIND11_TYPE_CASTER(c10::Scalar, const_name("Union[bool, int, float]"));
  bool load(handle src, bool) {
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) {
      value = c10::Scalar(o == Py_True);
    } else if (PyLong_Check(o)) {
      long long v = PyLong_AsLongLong(o);
      if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      value = c10::Scalar((int64_t)v);
    } else if (PyFloat_Check(o)) {
      value = c10::Scalar(PyFloat_AsDouble(o));
    } else {
      return false;
    }
    return true;
  }
  static handle cast(const c10::Scalar& s, return_value_policy, handle) {
    if (s.isBoolean()) return PyBool_FromLong(s.toBool());
    if (s.isIntegral(false)) return PyLong_FromLongLong(s.toLong());
    return PyFloat_FromDouble(s.toDouble());
  }
};

template <>
struct type_caster<c10::ScalarType> {
  PYBIND11_TYPE_CASTER(c10::ScalarType, const_name("torchlike.dtype"));
  bool load(handle src, bool) { return torchlike::extension::tensor_c_api().unpack_dtype(src.ptr(), &value) != 0; }
  static handle cast(c10::ScalarType st, return_value_policy, handle) {
    return torchlike::extension::tensor_c_api().dtype_object(st);
  }
};

}  // namespace pybind11::detail
