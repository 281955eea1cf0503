// Python access to the device model (c10/DeviceGuard.h, Generator.h):
// device counts and the current device per type (torchlike.cuda, torchlike.cpu),
// seeding every device's generator, and the torchlike.Stream / torchlike.Event
// types. Every answer comes from the registered DeviceGuard implementations,
// so without a GPU backend torchlike.cuda truthfully reports none.
#include <Python.h>

#include <memory>
#include <new>
#include <string>
#include "Objects.h"
#include "PythonArgParser.h"
#include "c10/DeviceGuard.h"

namespace tl::python {

static std::string arg_str(PyObject* o, const char* what) {
  TL_CHECK_TYPE(PyUnicode_Check(o), what, " must be a str, got ", type_name(o));
  const char* s = PyUnicode_AsUTF8(o);
  if (!s) throw python_error_set();
  return s;
}

static c10::DeviceType arg_device_type(PyObject* o) { return c10::parseDeviceType(arg_str(o, "device type")); }

// _device_count(type) -> int: 0 when the type has no backend.
static PyObject* py_device_count(PyObject*, PyObject* type) {
  TL_PY_BEGIN
  return PyLong_FromLong(c10::deviceCount(arg_device_type(type)));
  TL_PY_END
}

// _has_device_backend(type) -> bool: a DeviceGuard implementation is registered.
static PyObject* py_has_backend(PyObject*, PyObject* type) {
  TL_PY_BEGIN
  return PyBool_FromLong(c10::deviceGuardImplOrNull(arg_device_type(type)) != nullptr);
  TL_PY_END
}

// _current_device(type) -> int index (-1 for unindexed types such as CPU).
static PyObject* py_current_device(PyObject*, PyObject* type) {
  TL_PY_BEGIN
  c10::DeviceType t = arg_device_type(type);
  const c10::DeviceGuardImplInterface* impl = c10::getDeviceGuardImpl(t);
  TL_CHECK(!c10::isIndexedDeviceType(t) || impl->deviceCount() > 0, "device type '", c10::deviceTypeName(t),
           "' is not available (its device count is 0)");
  return PyLong_FromLong(impl->getDevice().index);
  TL_PY_END
}

// _set_device(device): makes an indexed device current for its type.
static PyObject* py_set_device(PyObject*, PyObject* dev) {
  TL_PY_BEGIN
  c10::Device d = c10::tensorDevice(parse_device(dev));  // checks availability and the index
  if (c10::isIndexedDeviceType(d.type)) c10::getDeviceGuardImpl(d.type)->setDevice(d);
  Py_RETURN_NONE;
  TL_PY_END
}

// _synchronize(device): waits for all work on the device (index-less: the current one).
static PyObject* py_synchronize(PyObject*, PyObject* dev) {
  TL_PY_BEGIN
  c10::Device d = c10::tensorDevice(parse_device(dev));
  c10::getDeviceGuardImpl(d.type)->synchronizeDevice(d.index);
  Py_RETURN_NONE;
  TL_PY_END
}

static PyObject* py_manual_seed_all(PyObject*, PyObject* seed) {
  TL_PY_BEGIN
  c10::manualSeedAll(unpack_seed(seed));
  Py_RETURN_NONE;
  TL_PY_END
}

// _default_generator(device) -> the device's default Generator.
static PyObject* py_default_generator(PyObject*, PyObject* dev) {
  TL_PY_BEGIN
  return generator_object(c10::defaultGenerator(parse_device(dev)));
  TL_PY_END
}

// ------------------------------------------------------------------ Stream

struct StreamObject {
  PyObject_HEAD
  c10::Stream stream;
};
PyTypeObject StreamType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike.Stream"};
static bool is_stream(PyObject* o) { return PyObject_TypeCheck(o, &StreamType); }
static const c10::Stream& stream_of(PyObject* o) { return reinterpret_cast<StreamObject*>(o)->stream; }

static PyObject* stream_object(PyTypeObject* type, c10::Stream s) {
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) throw python_error_set();
  new (&reinterpret_cast<StreamObject*>(o)->stream) c10::Stream(s);
  return o;
}

// torchlike.Stream(device=None, *, priority=0) is the device's current stream
// (PyTorch on CPU gives its one stream); Stream(stream_id=, device_type=,
// device_index=) names one explicitly.
static PyObject* stream_pynew(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"device", "priority", "stream_id", "device_type", "device_index", nullptr};
  PyObject *dev = Py_None, *priority = nullptr, *sid = nullptr, *dtype = nullptr, *dindex = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$OOOO", const_cast<char**>(kw), &dev, &priority, &sid, &dtype,
                                   &dindex))
    return nullptr;
  if (sid || dtype || dindex) {
    TL_CHECK_TYPE(sid && dtype && dindex && dev == Py_None,
                  "Stream(): give stream_id, device_type and device_index together, without device");
    long long id = PyLong_AsLongLong(sid), t = PyLong_AsLongLong(dtype), i = PyLong_AsLongLong(dindex);
    if (PyErr_Occurred()) throw python_error_set();
    TL_CHECK_VALUE(t >= 0 && t < c10::kNumDeviceTypes, "Stream(): invalid device_type ", t);
    TL_CHECK_VALUE(i >= -1 && i <= c10::kMaxDeviceIndex, "Stream(): invalid device_index ", i);
    return stream_object(type, c10::Stream(c10::Device((c10::DeviceType)t, (c10::DeviceIndex)i), id));
  }
  c10::Device d = dev == Py_None ? c10::Device(c10::DeviceType::CPU) : parse_device(dev);
  return stream_object(type, c10::getCurrentStream(c10::tensorDevice(d)));
  TL_PY_END
}
static PyObject* stream_query(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  return PyBool_FromLong(stream_of(self).query());
  TL_PY_END
}
static PyObject* stream_synchronize(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  stream_of(self).synchronize();
  Py_RETURN_NONE;
  TL_PY_END
}
static PyObject* stream_device(PyObject* self, void*) {
  TL_PY_BEGIN
  return device_object(stream_of(self).device());
  TL_PY_END
}
static PyObject* stream_device_index(PyObject* self, void*) { return PyLong_FromLong(stream_of(self).device_index()); }
static PyObject* stream_device_type(PyObject* self, void*) { return PyLong_FromLong((int)stream_of(self).device_type()); }
static PyObject* stream_id(PyObject* self, void*) { return PyLong_FromLongLong(stream_of(self).id()); }
static PyObject* stream_repr(PyObject* self) {
  const c10::Stream& s = stream_of(self);
  std::string r = "torchlike.Stream device_type=" + c10::deviceTypeName(s.device_type()) +
                  ", device_index=" + std::to_string(s.device_index()) + ", stream_id=" + std::to_string(s.id());
  return PyUnicode_FromString(r.c_str());
}
static PyObject* stream_richcompare(PyObject* a, PyObject* b, int op) {
  if (!is_stream(a) || !is_stream(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
  bool eq = stream_of(a) == stream_of(b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
static Py_hash_t stream_hash(PyObject* self) {
  Py_hash_t h = (Py_hash_t)std::hash<c10::Stream>()(stream_of(self));
  return h == -1 ? -2 : h;
}

// ------------------------------------------------------------------ Event

struct EventObject {
  PyObject_HEAD
  c10::Event event;
};
PyTypeObject EventType = {PyVarObject_HEAD_INIT(nullptr, 0) "torchlike.Event"};
static bool is_event(PyObject* o) { return PyObject_TypeCheck(o, &EventType); }
static c10::Event& event_of(PyObject* o) { return reinterpret_cast<EventObject*>(o)->event; }

// torchlike.Event(device=None, *, enable_timing=False, blocking=False, interprocess=False)
static PyObject* event_pynew(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"device", "enable_timing", "blocking", "interprocess", nullptr};
  PyObject* dev = Py_None;
  int timing = 0, blocking = 0, interprocess = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$ppp", const_cast<char**>(kw), &dev, &timing, &blocking,
                                   &interprocess))
    return nullptr;
  TL_CHECK_NOT_IMPLEMENTED(!interprocess, "Event(): interprocess events are not supported");
  c10::Device d = dev == Py_None ? c10::Device(c10::DeviceType::CPU) : parse_device(dev);
  c10::getDeviceGuardImpl(d.type);  // raises now for a type without a backend
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  new (&event_of(o)) c10::Event(d.type, timing ? c10::EventFlag::EnableTiming : c10::EventFlag::Default);
  return o;
  TL_PY_END
}
static void event_dealloc(PyObject* self) {
  std::destroy_at(&event_of(self));
  Py_TYPE(self)->tp_free(self);
}
static void stream_dealloc(PyObject* self) {
  std::destroy_at(&reinterpret_cast<StreamObject*>(self)->stream);
  Py_TYPE(self)->tp_free(self);
}
// The stream argument of record/wait: the given one, or the current stream of
// the event's device type.
static c10::Stream stream_arg(PyObject* s, const c10::Event& e) {
  if (s && s != Py_None) {
    TL_CHECK_TYPE(is_stream(s), "expected a torchlike.Stream, got ", type_name(s));
    return stream_of(s);
  }
  c10::Device d(e.device_type(), e.device_index());
  return c10::getCurrentStream(c10::tensorDevice(d));
}
static PyObject* event_record(PyObject* self, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"stream", nullptr};
  PyObject* s = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char**>(kw), &s)) return nullptr;
  event_of(self).record(stream_arg(s, event_of(self)));
  Py_RETURN_NONE;
  TL_PY_END
}
static PyObject* event_wait(PyObject* self, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"stream", nullptr};
  PyObject* s = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char**>(kw), &s)) return nullptr;
  event_of(self).block(stream_arg(s, event_of(self)));
  Py_RETURN_NONE;
  TL_PY_END
}
static PyObject* event_query(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  return PyBool_FromLong(event_of(self).query());
  TL_PY_END
}
static PyObject* event_synchronize(PyObject* self, PyObject*) {
  TL_PY_BEGIN
  event_of(self).synchronize();
  Py_RETURN_NONE;
  TL_PY_END
}
static PyObject* event_elapsed_time(PyObject* self, PyObject* end) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_event(end), "elapsed_time: expected a torchlike.Event, got ", type_name(end));
  return PyFloat_FromDouble(event_of(self).elapsedTime(event_of(end)));
  TL_PY_END
}
static PyObject* event_device(PyObject* self, void*) {
  TL_PY_BEGIN
  return device_object(event_of(self).device());
  TL_PY_END
}
static PyObject* event_repr(PyObject* self) {
  const c10::Event& e = event_of(self);
  std::string r = "torchlike.Event device_type=" + c10::deviceTypeName(e.device_type()) +
                  ", device_index=" + std::to_string(e.device_index()) +
                  ", event_flag=" + std::to_string((int)e.flag()) + ", recorded=" + (e.was_recorded() ? "True" : "False");
  return PyUnicode_FromString(r.c_str());
}

// Stream methods that take events are defined after Event.
static PyObject* stream_wait_event(PyObject* self, PyObject* e) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_event(e), "wait_event: expected a torchlike.Event, got ", type_name(e));
  event_of(e).block(stream_of(self));
  Py_RETURN_NONE;
  TL_PY_END
}
// s.wait_stream(other): work queued on s after this waits for other's work so far.
static PyObject* stream_wait_stream(PyObject* self, PyObject* other) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_stream(other), "wait_stream: expected a torchlike.Stream, got ", type_name(other));
  c10::Event e(stream_of(other).device_type());
  e.record(stream_of(other));
  e.block(stream_of(self));
  Py_RETURN_NONE;
  TL_PY_END
}
static PyObject* stream_record_event(PyObject* self, PyObject* args, PyObject* kwargs) {
  TL_PY_BEGIN
  static const char* kw[] = {"event", nullptr};
  PyObject* e = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", const_cast<char**>(kw), &e)) return nullptr;
  if (e == Py_None) {
    PyObject* targs = Py_BuildValue("(N)", device_object(stream_of(self).device()));
    if (!targs) return nullptr;
    e = PyObject_Call(reinterpret_cast<PyObject*>(&EventType), targs, nullptr);
    Py_DECREF(targs);
    if (!e) return nullptr;
  } else {
    TL_CHECK_TYPE(is_event(e), "record_event: expected a torchlike.Event, got ", type_name(e));
    Py_INCREF(e);
  }
  try {
    event_of(e).record(stream_of(self));
  } catch (...) {
    Py_DECREF(e);
    throw;
  }
  return e;
  TL_PY_END
}

static PyMethodDef stream_methods[] = {
    {"query", stream_query, METH_NOARGS, nullptr},
    {"synchronize", stream_synchronize, METH_NOARGS, nullptr},
    {"wait_event", stream_wait_event, METH_O, nullptr},
    {"wait_stream", stream_wait_stream, METH_O, nullptr},
    {"record_event", (PyCFunction)(void (*)(void))stream_record_event, METH_VARARGS | METH_KEYWORDS, nullptr},
    {nullptr}};
static PyGetSetDef stream_getset[] = {{"device", stream_device, nullptr, nullptr, nullptr},
                                      {"device_index", stream_device_index, nullptr, nullptr, nullptr},
                                      {"device_type", stream_device_type, nullptr, nullptr, nullptr},
                                      {"stream_id", stream_id, nullptr, nullptr, nullptr},
                                      {nullptr}};
static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record, METH_VARARGS | METH_KEYWORDS, nullptr},
    {"wait", (PyCFunction)(void (*)(void))event_wait, METH_VARARGS | METH_KEYWORDS, nullptr},
    {"query", event_query, METH_NOARGS, nullptr},
    {"synchronize", event_synchronize, METH_NOARGS, nullptr},
    {"elapsed_time", event_elapsed_time, METH_O, nullptr},
    {nullptr}};
static PyGetSetDef event_getset[] = {{"device", event_device, nullptr, nullptr, nullptr}, {nullptr}};

// _set_stream(stream): makes `stream` current on its device (its type's
// DeviceGuard decides what that means; the CPU has only stream 0).
static PyObject* py_set_stream(PyObject*, PyObject* s) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_stream(s), "set_stream: expected a torchlike.Stream, got ", type_name(s));
  const c10::Stream& st = stream_of(s);
  c10::getDeviceGuardImpl(st.device_type())->exchangeStream(st);
  Py_RETURN_NONE;
  TL_PY_END
}

// _new_stream(device, priority): a stream from the device's pool (the CPU's one stream on CPU).
static PyObject* py_new_stream(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  PyObject* dev = nullptr;
  int priority = 0;
  if (!PyArg_ParseTuple(args, "Oi", &dev, &priority)) return nullptr;
  c10::Device d = c10::tensorDevice(parse_device(dev));
  return stream_object(&StreamType, c10::getDeviceGuardImpl(d.type)->getNewStream(d, priority));
  TL_PY_END
}

// _external_stream(handle, device): a Stream for a backend handle made outside torchlike.
static PyObject* py_external_stream(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  unsigned long long handle = 0;
  PyObject* dev = nullptr;
  if (!PyArg_ParseTuple(args, "KO", &handle, &dev)) return nullptr;
  c10::Device d = c10::tensorDevice(parse_device(dev));
  return stream_object(&StreamType,
                       c10::getDeviceGuardImpl(d.type)->getStreamFromExternal(reinterpret_cast<void*>(handle), d));
  TL_PY_END
}

// _stream_native_handle(stream) -> int: the backend's handle (a cudaStream_t) as an address.
static PyObject* py_stream_native_handle(PyObject*, PyObject* s) {
  TL_PY_BEGIN
  TL_CHECK_TYPE(is_stream(s), "expected a torchlike.Stream, got ", type_name(s));
  const c10::Stream& st = stream_of(s);
  void* h = c10::getDeviceGuardImpl(st.device_type())->nativeStreamHandle(st);
  return PyLong_FromVoidPtr(h);
  TL_PY_END
}

static PyMethodDef device_functions[] = {
    {"_new_stream", py_new_stream, METH_VARARGS, nullptr},
    {"_external_stream", py_external_stream, METH_VARARGS, nullptr},
    {"_stream_native_handle", py_stream_native_handle, METH_O, nullptr},
    {"_set_stream", py_set_stream, METH_O, nullptr},
    {"_device_count", py_device_count, METH_O, "number of devices of a type (0 without its backend)"},
    {"_has_device_backend", py_has_backend, METH_O, nullptr},
    {"_current_device", py_current_device, METH_O, nullptr},
    {"_set_device", py_set_device, METH_O, nullptr},
    {"_synchronize", py_synchronize, METH_O, nullptr},
    {"_manual_seed_all", py_manual_seed_all, METH_O, "seed the default generator of every device"},
    {"_default_generator", py_default_generator, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

void tl_init_devices(PyObject* m) {
  if (PyModule_AddFunctions(m, device_functions) < 0) throw python_error_set();

  StreamType.tp_basicsize = sizeof(StreamObject);
  StreamType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  StreamType.tp_new = stream_pynew;
  StreamType.tp_dealloc = stream_dealloc;
  StreamType.tp_repr = stream_repr;
  StreamType.tp_richcompare = stream_richcompare;
  StreamType.tp_hash = stream_hash;
  StreamType.tp_methods = stream_methods;
  StreamType.tp_getset = stream_getset;
  EventType.tp_basicsize = sizeof(EventObject);
  EventType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  EventType.tp_new = event_pynew;
  EventType.tp_dealloc = event_dealloc;
  EventType.tp_repr = event_repr;
  EventType.tp_methods = event_methods;
  EventType.tp_getset = event_getset;
  for (auto& [type, name] : {std::pair<PyTypeObject*, const char*>{&StreamType, "Stream"}, {&EventType, "Event"}}) {
    if (PyType_Ready(type) < 0) throw python_error_set();
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, reinterpret_cast<PyObject*>(type)) < 0) throw python_error_set();
  }
}

}  // namespace tl::python
