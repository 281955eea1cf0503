// Registration API for operators and kernels, used by hand-written kernels and
// by extensions. A Library owns what it registers: destroying it (library
// unload) removes its schemas, kernels and fallbacks, and what they had
// replaced comes back. The generated core operators register permanently
// through Dispatcher::registerSchema / registerKernel instead.
#pragma once
#include <string>
#include <vector>
#include "Dispatcher.h"
#include "RuntimeKernel.h"

namespace c10 {

class Library {
 public:
  // ns: operator namespace ("aten", "myops"); key: default key for impl() calls.
  explicit Library(std::string ns, DispatchKey key = DispatchKey::Undefined) : ns_(std::move(ns)), key_(key) {}
  Library(Library&&) = default;
  Library& operator=(Library&&) = delete;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  ~Library() { reset(); }

  // Declares an operator from its schema string ("foo(Tensor self) -> Tensor");
  // an unqualified name gets this library's namespace.
  Library& def(const std::string& schema);
  Library& impl(const std::string& name, KernelFunction k) { return impl(name, key_, std::move(k)); }
  Library& impl(const std::string& name, DispatchKey key, KernelFunction k);
  Library& fallback(KernelFunction k);
  // A plain function pointer as the kernel (PyTorch's m.impl("op", &fn)):
  // boxed, with at::Tensor parameters and results converted (RuntimeKernel.h);
  // its signature is checked against the schema when the schema is known.
  template <class R, class... Args>
  Library& impl(const std::string& name, R (*fn)(Args...)) {
    return impl(name, key_, fn);
  }
  template <class R, class... Args>
  Library& impl(const std::string& name, DispatchKey key, R (*fn)(Args...)) {
    using K = detail::RuntimeKernel<R, Args...>;
    checkRuntimeSignature(name, detail::KernelCppSignature<typename K::KernelSig>::get());
    return impl(name, key,
                KernelFunction::makeFromBoxed(&K::call, reinterpret_cast<void*>(fn), nullptr, "runtime function"));
  }

  // Defines an operator and registers `fn` as its kernel for every backend
  // (CompositeImplicitAutograd, PyTorch's catch-all): m.def("foo", &foo)
  // infers the schema from foo's C++ signature, m.def("foo(Tensor x) -> Tensor",
  // &foo) takes it as written.
  template <class R, class... Args>
  Library& def(const std::string& name_or_schema, R (*fn)(Args...)) {
    size_t paren = name_or_schema.find('(');
    std::string name = name_or_schema.substr(0, paren);
    def(paren == std::string::npos ? name + detail::inferSchemaSignature<R, Args...>() : name_or_schema);
    return impl(name, DispatchKey::CompositeImplicitAutograd, fn);
  }

  std::string qualify(const std::string& name) const;
  // Raises, naming both, when operator `name`'s schema is registered and its
  // kernel signature differs from `signature`.
  void checkRuntimeSignature(const std::string& name, const std::string& signature) const;
  // Removes everything registered so far, newest first.
  void reset() {
    while (!handles_.empty()) handles_.pop_back();
  }
  size_t numRegistrations() const { return handles_.size(); }

 private:
  std::string ns_;
  DispatchKey key_;
  std::vector<RegistrationHandle> handles_;
};

namespace detail {
void recordRegistrationError(const char* ns, const std::string& what);
}  // namespace detail
// Errors raised by TL_LIBRARY bodies since the last call, oldest first (and cleared).
std::vector<std::string> takeRegistrationErrors();

namespace detail {
// What TL_LIBRARY / TL_LIBRARY_IMPL define: a function-local static holding
// the Library, created at load time (or earlier, by an explicit init entry
// point) and destroyed, deregistering everything, when the shared object is
// unloaded or the process exits.
//
// An error in the body (a bad schema, a kernel whose signature does not match)
// must not escape a static initialiser, which would end the process while
// the library loads: the registrations made so far are undone and the error
// is kept, for whoever loaded the library to raise (takeRegistrationErrors).
class StaticLibrary {
 public:
  using Body = void (*)(Library&);
  StaticLibrary(const char* ns, DispatchKey key, Body body) : lib_(ns, key) {
    try {
      body(lib_);
    } catch (const std::exception& e) {
      lib_.reset();
      recordRegistrationError(ns, e.what());
    }
  }
  Library& library() { return lib_; }

 private:
  Library lib_;
};
}  // namespace detail

}  // namespace c10

#define TL_CONCAT_INNER(a, b) a##b
#define TL_CONCAT(a, b) TL_CONCAT_INNER(a, b)

// TL_LIBRARY_IMPL(myops, CPU, m) { m.impl("foo", TL_KERNEL(foo_cpu)); }
// TL_LIBRARY(myops, m) { m.def("foo(Tensor self) -> Tensor"); }
// Each use defines functions and objects with internal linkage and a per-use
// unique name (__COUNTER__), so any number of files of one library, and
// several uses in one file, may use the same namespace and key. The
// registration runs when the object file is loaded and is undone when it is
// unloaded.
#define TL_LIBRARY_IMPL(ns, key, m) \
  TL_LIBRARY_DEFINE_(TL_CONCAT(tl_library_, __COUNTER__), #ns, ::c10::DispatchKey::key, m)
#define TL_LIBRARY(ns, m) TL_LIBRARY_DEFINE_(TL_CONCAT(tl_library_, __COUNTER__), #ns, ::c10::DispatchKey::Undefined, m)

// The same with an explicit entry point `void init_fn()` (external linkage,
// named by the caller, so unique by construction): for static linking, where
// a linker may drop an object file nothing refers to, the program calls it.
// Calling it again, or after load-time registration, does nothing.
#define TL_LIBRARY_IMPL_INIT(init_fn, ns, key, m) \
  TL_LIBRARY_DEFINE_INIT_(TL_CONCAT(tl_library_, __COUNTER__), init_fn, #ns, ::c10::DispatchKey::key, m)
#define TL_LIBRARY_INIT(init_fn, ns, m) \
  TL_LIBRARY_DEFINE_INIT_(TL_CONCAT(tl_library_, __COUNTER__), init_fn, #ns, ::c10::DispatchKey::Undefined, m)

// (Two levels so that `uid` is expanded before it is pasted.)
#define TL_LIBRARY_DEFINE_(uid, ns_str, key_value, m) TL_LIBRARY_DEFINE2_(uid, ns_str, key_value, m)
#define TL_LIBRARY_DEFINE2_(uid, ns_str, key_value, m)                                     \
  static void uid##_body(::c10::Library&);                                                 \
  static ::c10::detail::StaticLibrary& uid##_object() {                                    \
    static ::c10::detail::StaticLibrary lib(ns_str, key_value, &uid##_body);               \
    return lib;                                                                            \
  }                                                                                        \
  [[maybe_unused]] static const bool uid##_loaded = (uid##_object(), true);                \
  static void uid##_body(::c10::Library & m)

#define TL_LIBRARY_DEFINE_INIT_(uid, init_fn, ns_str, key_value, m) \
  TL_LIBRARY_DEFINE_INIT2_(uid, init_fn, ns_str, key_value, m)
#define TL_LIBRARY_DEFINE_INIT2_(uid, init_fn, ns_str, key_value, m)                       \
  static void uid##_body(::c10::Library&);                                                 \
  static ::c10::detail::StaticLibrary& uid##_object() {                                    \
    static ::c10::detail::StaticLibrary lib(ns_str, key_value, &uid##_body);               \
    return lib;                                                                            \
  }                                                                                        \
  void init_fn() { uid##_object(); }                                                       \
  [[maybe_unused]] static const bool uid##_loaded = (uid##_object(), true);                \
  static void uid##_body(::c10::Library & m)
