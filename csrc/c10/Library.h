// Registration API for operators and kernels, used by generated code, by
// hand-written kernels and by extensions. Every registration is a plain
// function call, so a registrar can be invoked explicitly; TL_LIBRARY_IMPL
// additionally runs it from a static initialiser for out-of-tree libraries.
#pragma once
#include <string>
#include "Dispatcher.h"

namespace c10 {

class Library {
 public:
  // ns: operator namespace ("aten", "myops"); key: default key for impl() calls.
  Library(std::string ns, DispatchKey key = DispatchKey::Undefined) : ns_(std::move(ns)), key_(key) {}

  // Declares an operator from its schema string ("foo(Tensor self) -> Tensor").
  Library& def(const std::string& schema);
  Library& impl(const std::string& name, KernelFunction k) { return impl(name, key_, std::move(k)); }
  Library& impl(const std::string& name, DispatchKey key, KernelFunction k);
  Library& fallback(KernelFunction k);

  std::string qualify(const std::string& name) const;

 private:
  std::string ns_;
  DispatchKey key_;
};

// Counts top-level arguments and returns of a schema string (enough for boxing).
void schemaArity(const std::string& schema, size_t* nargs, size_t* nret, std::string* name);

}  // namespace c10

#define TL_CONCAT_INNER(a, b) a##b
#define TL_CONCAT(a, b) TL_CONCAT_INNER(a, b)

// TL_LIBRARY_IMPL(myops, CPU, m) { m.impl("foo", TL_KERNEL(foo_cpu)); }
// defines `void tl_library_init_myops_CPU()` (callable explicitly) and runs it at load.
#define TL_LIBRARY_IMPL(ns, key, m)                                                   \
  static void TL_CONCAT(tl_library_body_##ns##_##key, __LINE__)(::c10::Library&);     \
  void tl_library_init_##ns##_##key() {                                               \
    static bool done = false;                                                         \
    if (done) return;                                                                 \
    done = true;                                                                      \
    ::c10::Library lib(#ns, ::c10::DispatchKey::key);                                 \
    TL_CONCAT(tl_library_body_##ns##_##key, __LINE__)(lib);                           \
  }                                                                                   \
  static int TL_CONCAT(tl_library_static_##ns##_##key, __LINE__) =                    \
      (tl_library_init_##ns##_##key(), 0);                                            \
  static void TL_CONCAT(tl_library_body_##ns##_##key, __LINE__)(::c10::Library & m)

#define TL_LIBRARY(ns, m)                                                      \
  static void TL_CONCAT(tl_library_def_body_##ns, __LINE__)(::c10::Library&);  \
  void tl_library_def_##ns() {                                                 \
    static bool done = false;                                                  \
    if (done) return;                                                          \
    done = true;                                                               \
    ::c10::Library lib(#ns);                                                   \
    TL_CONCAT(tl_library_def_body_##ns, __LINE__)(lib);                        \
  }                                                                            \
  static int TL_CONCAT(tl_library_def_static_##ns, __LINE__) = (tl_library_def_##ns(), 0); \
  static void TL_CONCAT(tl_library_def_body_##ns, __LINE__)(::c10::Library & m)
