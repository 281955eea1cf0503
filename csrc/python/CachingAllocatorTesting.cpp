// Test hooks for the device caching allocator's policy
// (torchlike._C._caching_allocator_testing_*). Each "instance" is a
// DeviceCachingAllocator over a FakeRawDeviceMemory of a given capacity, named
// by an integer handle, so tests/test_caching_allocator.py can drive rounding,
// splitting, stream-aware reuse, statistics and the out-of-memory path without
// a GPU. Addresses are plain integers (the fake maps nothing behind them).
#include <Python.h>

#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>
#include "PythonArgParser.h"
#include "c10/cuda/CachingAllocatorPolicy.h"

namespace tl::python {
namespace {

using c10::cuda::DeviceCachingAllocator;
using c10::cuda::FakeRawDeviceMemory;

struct Instance {
  std::shared_ptr<FakeRawDeviceMemory> fake;
  std::unique_ptr<DeviceCachingAllocator> allocator;
};

std::mutex g_instances_mu;
std::map<long long, std::shared_ptr<Instance>> g_instances;
long long g_next_handle = 1;
// torchlike._C._CachingAllocatorOutOfMemoryError, a RuntimeError subclass.
PyObject* g_oom_type = nullptr;

std::shared_ptr<Instance> lookup(long long handle) {
  std::lock_guard<std::mutex> g(g_instances_mu);
  auto it = g_instances.find(handle);
  TL_CHECK_VALUE(it != g_instances.end(), "caching allocator testing: no instance ", handle);
  return it->second;
}

// Runs `f` with the GIL released, so Python threads really overlap inside the
// allocator; its exception, if any, is rethrown once the GIL is held again.
template <class F>
void without_gil(F&& f) {
  std::exception_ptr failure;
  Py_BEGIN_ALLOW_THREADS
  try {
    f();
  } catch (...) {
    failure = std::current_exception();
  }
  Py_END_ALLOW_THREADS
  if (failure) std::rethrow_exception(failure);
}

// The allocator's OutOfMemoryError becomes the dedicated Python type.
#define TL_ALLOC_PY_END                                               \
  }                                                                   \
  catch (const c10::cuda::OutOfMemoryError& e) {                      \
    PyErr_SetString(g_oom_type, e.what());                            \
    return nullptr;                                                   \
  }                                                                   \
  catch (...) {                                                       \
    ::tl::python::translate_exception();                              \
    return nullptr;                                                   \
  }

PyObject* t_new(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  unsigned long long capacity = 0;
  int device = 0;
  if (!PyArg_ParseTuple(args, "K|i", &capacity, &device)) return nullptr;
  auto inst = std::make_shared<Instance>();
  inst->fake = std::make_shared<FakeRawDeviceMemory>((size_t)capacity);
  inst->allocator = std::make_unique<DeviceCachingAllocator>(device, inst->fake);
  std::lock_guard<std::mutex> g(g_instances_mu);
  const long long h = g_next_handle++;
  g_instances[h] = inst;
  return PyLong_FromLongLong(h);
  TL_PY_END
}

PyObject* t_delete(PyObject*, PyObject* handle) {
  TL_PY_BEGIN
  const long long h = PyLong_AsLongLong(handle);
  if (h == -1 && PyErr_Occurred()) return nullptr;
  std::lock_guard<std::mutex> g(g_instances_mu);
  g_instances.erase(h);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_malloc(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0, stream = 0;
  unsigned long long size = 0;
  if (!PyArg_ParseTuple(args, "LK|L", &h, &size, &stream)) return nullptr;
  auto inst = lookup(h);
  void* p = nullptr;
  without_gil([&] { p = inst->allocator->malloc((size_t)size, stream); });
  return PyLong_FromUnsignedLongLong((unsigned long long)reinterpret_cast<uintptr_t>(p));
  TL_ALLOC_PY_END
}

PyObject* t_free(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0;
  unsigned long long addr = 0;
  if (!PyArg_ParseTuple(args, "LK", &h, &addr)) return nullptr;
  auto inst = lookup(h);
  without_gil([&] { inst->allocator->free(reinterpret_cast<void*>((uintptr_t)addr)); });
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_record_stream(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0, stream = 0;
  unsigned long long addr = 0;
  if (!PyArg_ParseTuple(args, "LKL", &h, &addr, &stream)) return nullptr;
  lookup(h)->allocator->recordStream(reinterpret_cast<void*>((uintptr_t)addr), stream);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_block_info(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0;
  unsigned long long addr = 0;
  if (!PyArg_ParseTuple(args, "LK", &h, &addr)) return nullptr;
  auto info = lookup(h)->allocator->blockInfo(reinterpret_cast<void*>((uintptr_t)addr));
  return Py_BuildValue("{s:K,s:K,s:L,s:K,s:K,s:O}", "size", (unsigned long long)info.size, "requested",
                       (unsigned long long)info.requested, "stream", (long long)info.stream, "segment_address",
                       (unsigned long long)info.segment_address, "segment_size",
                       (unsigned long long)info.segment_size, "small_pool", info.small_pool ? Py_True : Py_False);
  TL_PY_END
}

PyObject* t_stats(PyObject*, PyObject* handle) {
  TL_PY_BEGIN
  const long long h = PyLong_AsLongLong(handle);
  if (h == -1 && PyErr_Occurred()) return nullptr;
  const auto flat = lookup(h)->allocator->stats().flatten();
  PyObject* d = PyDict_New();
  if (!d) return nullptr;
  for (const auto& kv : flat) {
    PyObject* v = PyLong_FromLongLong(kv.second);
    if (!v || PyDict_SetItemString(d, kv.first.c_str(), v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(d);
      return nullptr;
    }
    Py_DECREF(v);
  }
  return d;
  TL_PY_END
}

// One method per no-argument allocator action: (handle) -> None.
template <void (*Action)(DeviceCachingAllocator&)>
PyObject* t_action(PyObject*, PyObject* handle) {
  TL_PY_BEGIN
  const long long h = PyLong_AsLongLong(handle);
  if (h == -1 && PyErr_Occurred()) return nullptr;
  auto inst = lookup(h);
  without_gil([&] { Action(*inst->allocator); });
  Py_RETURN_NONE;
  TL_PY_END
}
void do_empty_cache(DeviceCachingAllocator& a) { a.emptyCache(); }
void do_reset_peak(DeviceCachingAllocator& a) { a.resetPeakStats(); }
void do_reset_accumulated(DeviceCachingAllocator& a) { a.resetAccumulatedStats(); }

PyObject* t_set_fraction(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0;
  double f = 0;
  if (!PyArg_ParseTuple(args, "Ld", &h, &f)) return nullptr;
  lookup(h)->allocator->setMemoryFraction(f);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_set_max_split_size(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0;
  unsigned long long bytes = 0;
  if (!PyArg_ParseTuple(args, "LK", &h, &bytes)) return nullptr;
  lookup(h)->allocator->setMaxSplitSize((size_t)bytes);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_summary(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0;
  int abbreviated = 0;
  if (!PyArg_ParseTuple(args, "L|p", &h, &abbreviated)) return nullptr;
  return PyUnicode_FromString(lookup(h)->allocator->summary(abbreviated != 0).c_str());
  TL_PY_END
}

PyObject* t_check(PyObject*, PyObject* handle) {
  TL_PY_BEGIN
  const long long h = PyLong_AsLongLong(handle);
  if (h == -1 && PyErr_Occurred()) return nullptr;
  const std::string problem = lookup(h)->allocator->checkInvariants();
  TL_CHECK(problem.empty(), "caching allocator invariant broken: ", problem);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_fake_counters(PyObject*, PyObject* handle) {
  TL_PY_BEGIN
  const long long h = PyLong_AsLongLong(handle);
  if (h == -1 && PyErr_Occurred()) return nullptr;
  const auto c = lookup(h)->fake->counters();
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "allocate_calls", (long long)c.allocate_calls,
                       "refused_calls", (long long)c.refused_calls, "free_calls", (long long)c.free_calls,
                       "live_allocations", (long long)c.live_allocations, "live_bytes", (long long)c.live_bytes,
                       "live_events", (long long)c.live_events, "waits", (long long)c.waits);
  TL_PY_END
}

PyObject* t_fake_complete_stream(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0, stream = 0;
  if (!PyArg_ParseTuple(args, "LL", &h, &stream)) return nullptr;
  lookup(h)->fake->completeStream(stream);
  Py_RETURN_NONE;
  TL_PY_END
}

PyObject* t_fake_set_foreign_usage(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0;
  unsigned long long bytes = 0;
  if (!PyArg_ParseTuple(args, "LK", &h, &bytes)) return nullptr;
  lookup(h)->fake->setForeignUsage((size_t)bytes);
  Py_RETURN_NONE;
  TL_PY_END
}

// (handle, threads, iterations, seed) -> number of allocations served.
// Native threads allocate random sizes on a few streams, record other
// streams, free, and complete streams, all at once; the caller then checks
// the invariants. OutOfMemoryError is an expected outcome under pressure.
PyObject* t_stress(PyObject*, PyObject* args) {
  TL_PY_BEGIN
  long long h = 0;
  int threads = 0, iterations = 0;
  unsigned int seed = 0;
  if (!PyArg_ParseTuple(args, "LiiI", &h, &threads, &iterations, &seed)) return nullptr;
  TL_CHECK_VALUE(threads > 0 && threads <= 64 && iterations >= 0, "stress: bad thread or iteration count");
  auto inst = lookup(h);
  std::atomic<long long> served{0};
  std::atomic<int> unexpected{0};
  std::string first_error;
  std::mutex error_mu;
  without_gil([&] {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::mt19937_64 rng(seed * 7919u + (unsigned)t);
        std::vector<void*> mine;
        const size_t sizes[] = {1, 700, 4096, 100000, 1 << 20, (1 << 20) + 1, 3 << 20, 12 << 20};
        for (int i = 0; i < iterations; ++i) {
          try {
            const unsigned op = rng() % 10;
            if (op < 5 || mine.empty()) {
              const size_t sz = sizes[rng() % 8] + rng() % 512;
              void* p = inst->allocator->malloc(sz, (c10::StreamId)(rng() % 3));
              mine.push_back(p);
              served += 1;
              if (rng() % 4 == 0) inst->allocator->recordStream(p, (c10::StreamId)(rng() % 3));
            } else if (op < 9) {
              const size_t k = rng() % mine.size();
              inst->allocator->free(mine[k]);
              mine[k] = mine.back();
              mine.pop_back();
            } else {
              inst->fake->completeStream((c10::StreamId)(rng() % 3));
              if (rng() % 8 == 0) inst->allocator->emptyCache();
            }
          } catch (const c10::cuda::OutOfMemoryError&) {
            // Expected under pressure: shed half of this thread's blocks.
            for (size_t k = 0; k < mine.size() / 2; ++k) inst->allocator->free(mine[k]);
            mine.erase(mine.begin(), mine.begin() + (long)(mine.size() / 2));
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> g(error_mu);
            if (unexpected++ == 0) first_error = e.what();
          }
        }
        for (void* p : mine) inst->allocator->free(p);
      });
    }
    for (auto& th : pool) th.join();
  });
  TL_CHECK(unexpected.load() == 0, "stress: ", unexpected.load(), " unexpected errors, first: ", first_error);
  return PyLong_FromLongLong(served.load());
  TL_PY_END
}

PyMethodDef g_methods[] = {
    {"_caching_allocator_testing_new", t_new, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_delete", t_delete, METH_O, nullptr},
    {"_caching_allocator_testing_malloc", t_malloc, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_free", t_free, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_record_stream", t_record_stream, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_block_info", t_block_info, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_stats", t_stats, METH_O, nullptr},
    {"_caching_allocator_testing_empty_cache", t_action<do_empty_cache>, METH_O, nullptr},
    {"_caching_allocator_testing_reset_peak", t_action<do_reset_peak>, METH_O, nullptr},
    {"_caching_allocator_testing_reset_accumulated", t_action<do_reset_accumulated>, METH_O, nullptr},
    {"_caching_allocator_testing_set_memory_fraction", t_set_fraction, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_set_max_split_size", t_set_max_split_size, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_summary", t_summary, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_check", t_check, METH_O, nullptr},
    {"_caching_allocator_testing_fake_counters", t_fake_counters, METH_O, nullptr},
    {"_caching_allocator_testing_fake_complete_stream", t_fake_complete_stream, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_fake_set_foreign_usage", t_fake_set_foreign_usage, METH_VARARGS, nullptr},
    {"_caching_allocator_testing_stress", t_stress, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void tl_init_caching_allocator_testing(PyObject* m) {
  g_oom_type = PyErr_NewException("torchlike._C._CachingAllocatorOutOfMemoryError", PyExc_RuntimeError, nullptr);
  if (!g_oom_type) throw python_error_set();
  Py_INCREF(g_oom_type);
  if (PyModule_AddObject(m, "_CachingAllocatorOutOfMemoryError", g_oom_type) < 0) throw python_error_set();
  if (PyModule_AddFunctions(m, g_methods) < 0) throw python_error_set();
}

}  // namespace tl::python
