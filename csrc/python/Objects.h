// The Python object types the C++ core exposes: TensorBase (subclassed by
// torchlike.Tensor in Python), dtype, device, layout, memory_format, Generator.
#pragma once
#include <Python.h>

#include "c10/Generator.h"
#include "c10/Tensor.h"

namespace tl::python {

struct TensorObject {
  PyObject_HEAD
  c10::TensorBase cdata;
  PyObject* weakreflist;
};
extern PyTypeObject TensorBaseType;
// The Python class new tensors get (torchlike.Tensor once the package set it).
extern PyTypeObject* g_tensor_class;

inline bool is_tensor(PyObject* o) { return PyObject_TypeCheck(o, &TensorBaseType); }
inline const c10::TensorBase& unpack(PyObject* o) { return reinterpret_cast<TensorObject*>(o)->cdata; }
PyObject* wrap_tensor(c10::TensorBase t);
// Creates a Python object of `cls` around t (used by _make_subclass).
PyObject* wrap_tensor_as(PyTypeObject* cls, c10::TensorBase t);

struct DtypeObject {
  PyObject_HEAD
  c10::ScalarType st;
};
extern PyTypeObject DtypeType;
PyObject* dtype_object(c10::ScalarType st);  // borrowed singleton
inline bool is_dtype(PyObject* o) { return Py_TYPE(o) == &DtypeType; }
inline c10::ScalarType unpack_dtype(PyObject* o) { return reinterpret_cast<DtypeObject*>(o)->st; }

struct DeviceObject {
  PyObject_HEAD
  c10::Device device;
};
extern PyTypeObject DeviceType;
PyObject* device_object(c10::Device d);  // new reference
inline bool is_device(PyObject* o) { return Py_TYPE(o) == &DeviceType; }
// str "cuda:0", device object, or int index (on the current accelerator) to Device; throws on junk.
c10::Device parse_device(PyObject* o);

struct EnumObject {  // layout and memory_format values
  PyObject_HEAD
  int value;
  const char* name;
};
extern PyTypeObject LayoutType;
extern PyTypeObject MemoryFormatType;
PyObject* layout_object(c10::Layout l);
PyObject* memory_format_object(c10::MemoryFormat m);

struct GeneratorObject {
  PyObject_HEAD
  c10::Generator gen;
};
extern PyTypeObject GeneratorType;
PyObject* generator_object(c10::Generator g);  // new reference
inline bool is_generator(PyObject* o) { return PyObject_TypeCheck(o, &GeneratorType); }
// A seed for manual_seed, range-checked as PyTorch does (see Objects.cpp).
uint64_t unpack_seed(PyObject* seed);

void init_object_types(PyObject* module);
// Adds attributes to a type after PyType_Ready (other files extend TensorBase).
void add_getset(PyTypeObject* type, PyGetSetDef* defs);

}  // namespace tl::python
