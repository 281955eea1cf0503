#include "Objects.h"

#include <structmember.h>

#include <cstring>
#include <memory>

#include "PythonArgParser.h"
#include "c10/DeviceGuard.h"

namespace tl::python {

PyTypeObject* g_tensor_class = nullptr;

// ------------------------------------------------------------------ Tensor wrapping

PyObject* wrap_tensor_as(PyTypeObject* cls, c10::TensorBase t) {
  PyObject* obj = cls->tp_alloc(cls, 0);
  if (!obj) throw python_error_set();
  auto* to = reinterpret_cast<TensorObject*>(obj);
  new (&to->cdata) c10::TensorBase(std::move(t));
  to->weakreflist = nullptr;
  to->cdata.unsafeGetTensorImpl()->set_pyobj(obj);
  return obj;
}

PyObject* wrap_tensor(c10::TensorBase t) {
  if (!t.defined()) Py_RETURN_NONE;
  // One TensorImpl, one Python object: return the live wrapper if there is one.
  if (PyObject* existing = t.unsafeGetTensorImpl()->pyobj()) return Py_NewRef(existing);
  return wrap_tensor_as(g_tensor_class ? g_tensor_class : &TensorBaseType, std::move(t));
}

static void tensor_dealloc(PyObject* self) {
  auto* to = reinterpret_cast<TensorObject*>(self);
  if (to->weakreflist) PyObject_ClearWeakRefs(self);
  if (to->cdata.defined() && to->cdata.unsafeGetTensorImpl()->pyobj() == self)
    to->cdata.unsafeGetTensorImpl()->set_pyobj(nullptr);
  to->cdata.~TensorBase();
  Py_TYPE(self)->tp_free(self);
}

// TensorBase(): an empty float tensor; torchlike.Tensor.__new__ handles the legacy forms.
static PyObject* tensor_new(PyTypeObject* type, PyObject*, PyObject*) {
  TL_PY_BEGIN
  return wrap_tensor_as(type, c10::make_empty({0}, c10::TensorOptions(c10::defaultFloatType())));
  TL_PY_END
}

PyTypeObject TensorBaseType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike._C.TensorBase"};

// ------------------------------------------------------------------ dtype

PyTypeObject DtypeType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike.dtype"};
static PyObject* g_dtypes[c10::kNumScalarTypes];

PyObject* dtype_object(c10::ScalarType st) { return g_dtypes[(int)st]; }

static PyObject* dtype_repr(PyObject* self) {
  return PyUnicode_FromFormat("torchlike.%s", c10::toPythonName(unpack_dtype(self)));
}
static PyObject* dtype_is_floating_point(PyObject* self, void*) {
  return PyBool_FromLong(c10::isFloatingType(unpack_dtype(self)));
}
static PyObject* dtype_is_signed(PyObject* self, void*) { return PyBool_FromLong(c10::isSignedType(unpack_dtype(self))); }
static PyObject* dtype_is_complex(PyObject*, void*) { Py_RETURN_FALSE; }
static PyObject* dtype_itemsize(PyObject* self, void*) {
  return PyLong_FromSize_t(c10::elementSize(unpack_dtype(self)));
}
static PyObject* dtype_reduce(PyObject* self, PyObject*) {
  // Pickles as the module attribute name (torchlike.float32).
  return PyUnicode_FromString(c10::toPythonName(unpack_dtype(self)));
}
static PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, nullptr, nullptr, nullptr},
    {"is_signed", dtype_is_signed, nullptr, nullptr, nullptr},
    {"is_complex", dtype_is_complex, nullptr, nullptr, nullptr},
    {"itemsize", dtype_itemsize, nullptr, nullptr, nullptr},
    {nullptr}};
static PyMethodDef dtype_methods[] = {{"__reduce__", dtype_reduce, METH_NOARGS, nullptr}, {nullptr}};

// ------------------------------------------------------------------ device

PyTypeObject DeviceType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike.device"};

PyObject* device_object(c10::Device d) {
  auto* o = PyObject_New(DeviceObject, &DeviceType);
  if (!o) throw python_error_set();
  o->device = d;
  return reinterpret_cast<PyObject*>(o);
}

// A device index from Python: an int (not a bool) in [0, 127].
static c10::DeviceIndex unpack_device_index(PyObject* o, const char* what) {
  TL_CHECK_TYPE(PyLong_Check(o) && !PyBool_Check(o), what, " must be int, not ", type_name(o));
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred()) throw python_error_set();
  TL_CHECK(overflow >= 0 && v >= 0, "Device index must not be negative");
  TL_CHECK(!overflow && v <= c10::kMaxDeviceIndex, "Device index must be at most ", (int)c10::kMaxDeviceIndex,
           ", got ", v);
  return (c10::DeviceIndex)v;
}

// PyTorch reads a bare integer device as an index on the current accelerator
// (CUDA when its backend is registered and sees a device, else a PrivateUse1
// backend). A CUDA build on a machine without a GPU has no accelerator.
static c10::Device accelerator_device(c10::DeviceIndex index) {
  for (c10::DeviceType t : {c10::DeviceType::CUDA, c10::DeviceType::PrivateUse1}) {
    const c10::DeviceGuardImplInterface* impl = c10::deviceGuardImplOrNull(t);
    if (impl && impl->deviceCount() > 0) return c10::Device(t, index);
  }
  TL_ERROR("Cannot access accelerator device when none is available.");
}

c10::Device parse_device(PyObject* o) {
  if (is_device(o)) return reinterpret_cast<DeviceObject*>(o)->device;
  if (PyUnicode_Check(o)) {
    const char* s = PyUnicode_AsUTF8(o);
    if (!s) throw python_error_set();
    return c10::Device(std::string(s));
  }
  if (PyLong_Check(o) && !PyBool_Check(o)) return accelerator_device(unpack_device_index(o, "device index"));
  TL_CHECK_TYPE(false, "expected a device (str, torchlike.device or int), got ", type_name(o));
  return c10::Device();
}

static PyObject* device_pynew(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"type", "index", nullptr};
  PyObject* spec = nullptr;
  PyObject* index = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(kw), &spec, &index)) return nullptr;
  c10::Device d = parse_device(spec);
  if (index != Py_None) {
    TL_CHECK_TYPE(PyUnicode_Check(spec), "device(): with an index, the type must be a string, got ", type_name(spec));
    TL_CHECK(!d.has_index(), "type (string) must not include an index because index was passed explicitly: ",
             PyUnicode_AsUTF8(spec));
    d.index = unpack_device_index(index, "device(): argument 'index' (position 2)");
  }
  return device_object(d);
  TL_PY_END
}
static PyObject* device_repr(PyObject* self) {
  c10::Device d = reinterpret_cast<DeviceObject*>(self)->device;
  if (d.has_index())
    return PyUnicode_FromFormat("device(type='%s', index=%d)", c10::deviceTypeName(d.type).c_str(), (int)d.index);
  return PyUnicode_FromFormat("device(type='%s')", c10::deviceTypeName(d.type).c_str());
}
static PyObject* device_str(PyObject* self) {
  return PyUnicode_FromString(reinterpret_cast<DeviceObject*>(self)->device.str().c_str());
}
static PyObject* device_type_get(PyObject* self, void*) {
  return PyUnicode_FromString(c10::deviceTypeName(reinterpret_cast<DeviceObject*>(self)->device.type).c_str());
}
static PyObject* device_index_get(PyObject* self, void*) {
  c10::Device d = reinterpret_cast<DeviceObject*>(self)->device;
  if (!d.has_index()) Py_RETURN_NONE;
  return PyLong_FromLong(d.index);
}
static PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_device(a) || !is_device(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = reinterpret_cast<DeviceObject*>(a)->device == reinterpret_cast<DeviceObject*>(b)->device;
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
static Py_hash_t device_hash(PyObject* self) {
  c10::Device d = reinterpret_cast<DeviceObject*>(self)->device;
  return (Py_hash_t)((int)d.type * 256 + d.index + 1);
}
static PyObject* device_reduce(PyObject* self, PyObject*) {
  c10::Device d = reinterpret_cast<DeviceObject*>(self)->device;
  PyObject* args = d.has_index() ? Py_BuildValue("(si)", c10::deviceTypeName(d.type).c_str(), (int)d.index)
                                 : Py_BuildValue("(s)", c10::deviceTypeName(d.type).c_str());
  return Py_BuildValue("(ON)", (PyObject*)&DeviceType, args);
}
static PyGetSetDef device_getset[] = {{"type", device_type_get, nullptr, nullptr, nullptr},
                                      {"index", device_index_get, nullptr, nullptr, nullptr},
                                      {nullptr}};
static PyMethodDef device_methods[] = {{"__reduce__", device_reduce, METH_NOARGS, nullptr}, {nullptr}};

// ------------------------------------------------------------------ layout / memory_format

PyTypeObject LayoutType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike.layout"};
PyTypeObject MemoryFormatType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike.memory_format"};
static PyObject* g_strided = nullptr;
static PyObject* g_memfmt[2] = {nullptr, nullptr};

static PyObject* enum_repr(PyObject* self) {
  return PyUnicode_FromFormat("torchlike.%s", reinterpret_cast<EnumObject*>(self)->name);
}
static PyObject* make_enum(PyTypeObject* t, int v, const char* name) {
  auto* o = PyObject_New(EnumObject, t);
  o->value = v;
  o->name = name;
  return reinterpret_cast<PyObject*>(o);
}
PyObject* layout_object(c10::Layout) { return Py_NewRef(g_strided); }
PyObject* memory_format_object(c10::MemoryFormat m) { return Py_NewRef(g_memfmt[(int)m]); }

// ------------------------------------------------------------------ Generator

PyTypeObject GeneratorType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike.Generator"};

PyObject* generator_object(c10::Generator g) {
  auto* o = PyObject_New(GeneratorObject, &GeneratorType);
  new (&o->gen) c10::Generator(std::move(g));
  return reinterpret_cast<PyObject*>(o);
}
static void generator_dealloc(PyObject* self) {
  std::destroy_at(&reinterpret_cast<GeneratorObject*>(self)->gen);
  Py_TYPE(self)->tp_free(self);
}
static PyObject* generator_pynew(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"device", nullptr};
  PyObject* dev = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char**>(kw), &dev)) return nullptr;
  c10::Device d = dev && dev != Py_None ? parse_device(dev) : c10::Device(c10::DeviceType::CPU);
  // Through the device type's generator factory: CPU gives an index-less
  // CPU generator, an indexed type one on the given (or current) device, and
  // a type without generators (meta, an absent backend) raises.
  return generator_object(c10::makeGenerator(d));
  TL_PY_END
}
static c10::GeneratorImpl* gen_of(PyObject* self) { return reinterpret_cast<GeneratorObject*>(self)->gen.get(); }
uint64_t unpack_seed(PyObject* seed) {
  // PyTorch's Generator.manual_seed: an integer (a NumPy one too, not a bool)
  // in [-2^63, 2^64); a negative seed is taken modulo 2^64.
  bool integer = PyLong_Check(seed) && !PyBool_Check(seed);
  if (!integer && !PyBool_Check(seed) && !PyFloat_Check(seed) && PyIndex_Check(seed))
    integer = std::strncmp(Py_TYPE(seed)->tp_name, "numpy.", 6) == 0;
  TL_CHECK(integer, "manual_seed expected a long, but got ", type_name(seed));
  PyObject* i = PyNumber_Index(seed);
  if (!i) throw python_error_set();
  unsigned long long u = PyLong_AsUnsignedLongLong(i);
  if (u == (unsigned long long)-1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
      Py_DECREF(i);
      throw python_error_set();
    }
    PyErr_Clear();  // negative or too large: try as a signed value
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    TL_CHECK_VALUE(!overflow, "Overflow when unpacking long long");
    return (uint64_t)v;
  }
  Py_DECREF(i);
  return (uint64_t)u;
}

static PyObject* generator_manual_seed(PyObject* self, PyObject* seed) {
  TL_PY_BEGIN
  gen_of(self)->set_seed(unpack_seed(seed));
  return Py_NewRef(self);
  TL_PY_END
}
static PyObject* generator_initial_seed(PyObject* self, PyObject*) {
  return PyLong_FromUnsignedLongLong(gen_of(self)->seed());
}
static PyObject* generator_seed(PyObject* self, PyObject*) {
  PyObject* os = PyImport_ImportModule("os");
  PyObject* bytes = PyObject_CallMethod(os, "urandom", "i", 8);
  Py_DECREF(os);
  if (!bytes) return nullptr;
  unsigned long long s;
  std::memcpy(&s, PyBytes_AsString(bytes), 8);
  Py_DECREF(bytes);
  s &= 0x7fffffffffffffffull;
  gen_of(self)->set_seed(s);
  return PyLong_FromUnsignedLongLong(s);
}
// State is (seed, offset) as a 16-byte uint8 tensor, like PyTorch's ByteTensor state.
static PyObject* generator_get_state(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  c10::TensorBase t = c10::make_empty({16}, c10::TensorOptions(c10::ScalarType::Byte));
  uint64_t v[2] = {gen_of(self)->seed(), gen_of(self)->offset()};
  std::memcpy(t.data_ptr(), v, 16);
  return wrap_tensor(t);
  TL_PY_END
}
static PyObject* generator_set_state(PyObject* self, PyObject* state) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_tensor(state), "set_state: expected a torchlike.ByteTensor, got ", type_name(state));
  const c10::TensorBase& t = unpack(state);
  TL_CHECK(t.scalar_type() == c10::ScalarType::Byte && t.numel() == 16 && t.is_contiguous() && t.is_cpu(),
           "set_state: expected a contiguous uint8 CPU tensor of 16 bytes (from get_state()), got ", t.numel(),
           " elements of ", t.scalar_type());
  uint64_t v[2];
  std::memcpy(v, t.data_ptr(), 16);
  gen_of(self)->set_seed(v[0]);
  gen_of(self)->set_offset(v[1]);
  return Py_NewRef(self);
  TL_PY_END
}
static PyObject* generator_device(PyObject* self, void*) {
  TL_PY_BEGIN
  return device_object(gen_of(self)->device());
  TL_PY_END
}
static PyMethodDef generator_methods[] = {
    {"manual_seed", generator_manual_seed, METH_O, nullptr},
    {"initial_seed", generator_initial_seed, METH_NOARGS, nullptr},
    {"seed", generator_seed, METH_NOARGS, nullptr},
    {"get_state", generator_get_state, METH_NOARGS, nullptr},
    {"set_state", generator_set_state, METH_O, nullptr},
    {nullptr}};
static PyGetSetDef generator_getset[] = {{"device", generator_device, nullptr, nullptr, nullptr}, {nullptr}};

// ------------------------------------------------------------------ init

extern void init_tensor_type(PyTypeObject* t);  // TensorMethods.cpp

static void ready(PyTypeObject* t, PyObject* module, const char* attr) {
  if (PyType_Ready(t) < 0) throw python_error_set();
  Py_INCREF(t);
  PyModule_AddObject(module, attr, reinterpret_cast<PyObject*>(t));
}

void add_getset(PyTypeObject* type, PyGetSetDef* defs) {
  for (PyGetSetDef* g = defs; g->name; ++g) {
    PyObject* d = PyDescr_NewGetSet(type, g);
    if (!d || PyDict_SetItemString(type->tp_dict, g->name, d) < 0) throw python_error_set();
    Py_DECREF(d);
  }
  PyType_Modified(type);
}

void init_object_types(PyObject* m) {
  init_tensor_type(&TensorBaseType);
  TensorBaseType.tp_basicsize = sizeof(TensorObject);
  TensorBaseType.tp_dealloc = tensor_dealloc;
  TensorBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  TensorBaseType.tp_new = tensor_new;
  TensorBaseType.tp_weaklistoffset = offsetof(TensorObject, weakreflist);
  ready(&TensorBaseType, m, "TensorBase");

  DtypeType.tp_basicsize = sizeof(DtypeObject);
  DtypeType.tp_flags = Py_TPFLAGS_DEFAULT;
  DtypeType.tp_repr = dtype_repr;
  DtypeType.tp_getset = dtype_getset;
  DtypeType.tp_methods = dtype_methods;
  ready(&DtypeType, m, "dtype");
  for (int i = 0; i < c10::kNumScalarTypes; ++i) {
    auto* o = PyObject_New(DtypeObject, &DtypeType);
    o->st = (c10::ScalarType)i;
    g_dtypes[i] = reinterpret_cast<PyObject*>(o);
    Py_INCREF(o);
    PyModule_AddObject(m, c10::toPythonName((c10::ScalarType)i), reinterpret_cast<PyObject*>(o));
  }

  DeviceType.tp_basicsize = sizeof(DeviceObject);
  DeviceType.tp_flags = Py_TPFLAGS_DEFAULT;
  DeviceType.tp_new = device_pynew;
  DeviceType.tp_repr = device_repr;
  DeviceType.tp_str = device_str;
  DeviceType.tp_getset = device_getset;
  DeviceType.tp_methods = device_methods;
  DeviceType.tp_richcompare = device_richcompare;
  DeviceType.tp_hash = device_hash;
  ready(&DeviceType, m, "device");

  for (PyTypeObject* t : {&LayoutType, &MemoryFormatType}) {
    t->tp_basicsize = sizeof(EnumObject);
    t->tp_flags = Py_TPFLAGS_DEFAULT;
    t->tp_repr = enum_repr;
  }
  ready(&LayoutType, m, "layout");
  ready(&MemoryFormatType, m, "memory_format");
  g_strided = make_enum(&LayoutType, 0, "strided");
  PyModule_AddObject(m, "strided", Py_NewRef(g_strided));
  g_memfmt[0] = make_enum(&MemoryFormatType, 0, "contiguous_format");
  g_memfmt[1] = make_enum(&MemoryFormatType, 1, "preserve_format");
  PyModule_AddObject(m, "contiguous_format", Py_NewRef(g_memfmt[0]));
  PyModule_AddObject(m, "preserve_format", Py_NewRef(g_memfmt[1]));

  GeneratorType.tp_basicsize = sizeof(GeneratorObject);
  GeneratorType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  GeneratorType.tp_new = generator_pynew;
  GeneratorType.tp_dealloc = generator_dealloc;
  GeneratorType.tp_methods = generator_methods;
  GeneratorType.tp_getset = generator_getset;
  ready(&GeneratorType, m, "Generator");
  PyModule_AddObject(m, "default_generator", generator_object(c10::defaultGenerator(c10::DeviceType::CPU)));
}

}  // namespace tl::python
