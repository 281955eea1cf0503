// A kernel as the dispatcher stores it: an unboxed function pointer (fast,
// typed) and/or a boxed one (generic, takes a Stack). Either form can be
// called through the other: unboxed calls box their arguments when only a
// boxed kernel exists, and every unboxed kernel gets a boxed wrapper.
#pragma once
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <vector>
#include "IValue.h"

namespace c10 {

class OperatorEntry;
using BoxedKernelFn = void (*)(void* ctx, const OperatorEntry& op, DispatchKeySet ks, Stack* stack);

namespace detail {
// ---- C++ signatures as text, for checking typed kernels and handles against
// the schema at registration (FunctionSchema::cppSignature spells the same).
// Unknown types get a name no schema produces, so they always mismatch.
template <class T> struct CppTypeName {
  static std::string get() { return std::string("<C++ type ") + typeid(T).name() + ">"; }
};
#define TL_CPP_TYPE_NAME(T, spelled) \
  template <> struct CppTypeName<T> { static std::string get() { return spelled; } };
TL_CPP_TYPE_NAME(void, "void")
TL_CPP_TYPE_NAME(c10::TensorBase, "at::TensorBase")
TL_CPP_TYPE_NAME(int64_t, "int64_t")
TL_CPP_TYPE_NAME(double, "double")
TL_CPP_TYPE_NAME(bool, "bool")
TL_CPP_TYPE_NAME(std::string_view, "std::string_view")
TL_CPP_TYPE_NAME(c10::Scalar, "at::Scalar")
TL_CPP_TYPE_NAME(c10::ScalarType, "at::ScalarType")
TL_CPP_TYPE_NAME(c10::Layout, "at::Layout")
TL_CPP_TYPE_NAME(c10::Device, "at::Device")
TL_CPP_TYPE_NAME(c10::Generator, "c10::Generator")
TL_CPP_TYPE_NAME(c10::MemoryFormat, "at::MemoryFormat")
TL_CPP_TYPE_NAME(c10::IntArrayRef, "at::IntArrayRef")
TL_CPP_TYPE_NAME(c10::ArrayRef<c10::TensorBase>, "at::TensorBaseList")
#undef TL_CPP_TYPE_NAME
template <class T> struct CppTypeName<c10::ArrayRef<T>> {
  static std::string get() { return "c10::ArrayRef<" + CppTypeName<T>::get() + ">"; }
};
template <class T> struct CppTypeName<std::optional<T>> {
  static std::string get() { return "std::optional<" + CppTypeName<T>::get() + ">"; }
};
template <class T> struct CppTypeName<std::vector<T>> {
  static std::string get() { return "std::vector<" + CppTypeName<T>::get() + ">"; }
};
template <class... Ts> struct CppTypeName<std::tuple<Ts...>> {
  static std::string get() {
    std::string s;
    ((s += (s.empty() ? "" : ", ") + CppTypeName<Ts>::get()), ...);
    return "std::tuple<" + s + ">";
  }
};
template <class T> struct CppTypeName<const T&> {
  static std::string get() { return "const " + CppTypeName<T>::get() + "&"; }
};
template <class T> struct CppTypeName<T&> {
  static std::string get() { return CppTypeName<T>::get() + "&"; }
};
template <class T> struct CppTypeName<T&&> {
  static std::string get() { return CppTypeName<T>::get() + "&&"; }
};

template <class Sig> struct CppSignature;
template <class R, class... Args> struct CppSignature<R(Args...)> {
  // "at::TensorBase(const at::TensorBase&, const at::Scalar&)"
  static std::string get() {
    std::string s;
    ((s += (s.empty() ? "" : ", ") + CppTypeName<Args>::get()), ...);
    return CppTypeName<R>::get() + "(" + s + ")";
  }
};
// A kernel's signature without its leading DispatchKeySet parameter.
template <class Sig> struct KernelCppSignature;
template <class R, class... Args> struct KernelCppSignature<R(DispatchKeySet, Args...)> {
  static std::string get() { return CppSignature<R(Args...)>::get(); }
};

template <class F> struct fn_traits;
template <class R, class... A> struct fn_traits<R (*)(A...)> {
  using ret = R;
  using args = std::tuple<A...>;
};

template <class T>
void push_arg(Stack& s, const T& v) { s.emplace_back(v); }
inline void push_arg(Stack& s, const std::vector<c10::TensorBase>& v) { s.emplace_back(ArrayRef<c10::TensorBase>(v)); }

// The boxed form of an unboxed kernel `Fn` whose first parameter is DispatchKeySet.
template <class FnPtr, FnPtr fn, class... Args>
struct BoxedAdapter;
template <class FnPtr, FnPtr fn, class R, class... Args>
struct BoxedAdapter<FnPtr, fn, R(DispatchKeySet, Args...)> {
  static void call(void*, const OperatorEntry&, DispatchKeySet ks, Stack* stack) {
    constexpr size_t n = sizeof...(Args);
    TL_CHECK(stack->size() >= n, "boxed call: expected ", n, " arguments on the stack, got ", stack->size());
    size_t base = stack->size() - n;
    invoke(ks, stack, base, std::index_sequence_for<Args...>());
  }
  template <size_t... I>
  static void invoke(DispatchKeySet ks, Stack* stack, size_t base, std::index_sequence<I...>) {
    if constexpr (std::is_void<R>::value) {
      fn(ks, ivalue_to<ivalue_decay_t<Args>>::get((*stack)[base + I])...);
      stack->resize(base);
    } else {
      R r = fn(ks, ivalue_to<ivalue_decay_t<Args>>::get((*stack)[base + I])...);
      stack->resize(base);
      push_return<R>::push(*stack, std::move(r));
    }
  }
};

// Adapts a kernel written without the leading DispatchKeySet.
template <class Sig> struct DropKeySet;
template <class R, class... Args> struct DropKeySet<R (*)(Args...)> {
  template <R (*fn)(Args...)>
  static R call(DispatchKeySet, Args... args) { return fn(std::forward<Args>(args)...); }
  using with_ks = R(DispatchKeySet, Args...);
};
}  // namespace detail

class KernelFunction {
 public:
  KernelFunction() = default;

  bool isValid() const { return unboxed_ || boxed_; }
  bool isFallthrough() const { return fallthrough_; }
  const std::string& debug() const { return debug_; }
  // The C++ signature of an unboxed kernel (without its DispatchKeySet),
  // empty for boxed-only kernels and fallthroughs, which take any operator.
  std::string cppSignature() const { return signature_ ? signature_() : std::string(); }

  static KernelFunction makeFallthrough() {
    KernelFunction k;
    k.fallthrough_ = true;
    k.debug_ = "fallthrough";
    return k;
  }
  static KernelFunction makeFromBoxed(BoxedKernelFn fn, void* ctx = nullptr, std::shared_ptr<void> owner = nullptr,
                                      std::string debug = "boxed") {
    KernelFunction k;
    k.boxed_ = fn;
    k.ctx_ = ctx;
    k.owner_ = std::move(owner);
    k.debug_ = std::move(debug);
    return k;
  }
  // `fn` takes DispatchKeySet first; both forms are filled in.
  template <class Sig, Sig* fn>
  static KernelFunction makeUnboxed(std::string debug = "") {
    KernelFunction k;
    k.unboxed_ = reinterpret_cast<void*>(fn);
    k.boxed_ = &detail::BoxedAdapter<Sig*, fn, Sig>::call;
    k.signature_ = &detail::KernelCppSignature<Sig>::get;
    k.debug_ = std::move(debug);
    return k;
  }

  template <class R, class... Args>
  R call(const OperatorEntry& op, DispatchKeySet ks, Args... args) const {
    if (TL_LIKELY(unboxed_ != nullptr)) {
      // Not an unchecked cast: the dispatcher refuses, at registration, an
      // unboxed kernel whose signature differs from the operator's schema,
      // and a typed handle R(Args...) whose signature differs likewise.
      return reinterpret_cast<R (*)(DispatchKeySet, Args...)>(unboxed_)(ks, std::forward<Args>(args)...);
    }
    Stack stack;
    stack.reserve(sizeof...(Args));
    (detail::push_arg(stack, args), ...);
    boxed_(ctx_, op, ks, &stack);
    if constexpr (!std::is_void<R>::value) {
      size_t i = 0;
      return pop_return<R>::pop(stack, i);
    }
  }
  void callBoxed(const OperatorEntry& op, DispatchKeySet ks, Stack* stack) const { boxed_(ctx_, op, ks, stack); }

 private:
  void* unboxed_ = nullptr;
  BoxedKernelFn boxed_ = nullptr;
  void* ctx_ = nullptr;
  std::string (*signature_)() = nullptr;
  std::shared_ptr<void> owner_;
  bool fallthrough_ = false;
  std::string debug_;
};

}  // namespace c10

// A compile-time function pointer for registration: TL_KERNEL(fn) accepts a
// kernel with or without a leading DispatchKeySet parameter.
#define TL_KERNEL(fn) ::c10::detail::make_kernel<decltype(&fn), &fn>(#fn)

namespace c10::detail {
template <class FnPtr, FnPtr fn>
KernelFunction make_kernel(const char* name) {
  using Traits = fn_traits<FnPtr>;
  if constexpr (std::tuple_size<typename Traits::args>::value > 0 &&
                std::is_same<std::tuple_element_t<0, typename Traits::args>, DispatchKeySet>::value) {
    return KernelFunction::makeUnboxed<std::remove_pointer_t<FnPtr>, fn>(name);
  } else {
    using D = DropKeySet<FnPtr>;
    return KernelFunction::makeUnboxed<typename D::with_ks, &D::template call<fn>>(name);
  }
}
}  // namespace c10::detail
