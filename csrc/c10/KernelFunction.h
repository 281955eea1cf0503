// A kernel as the dispatcher stores it: an unboxed function pointer (fast,
// typed) and/or a boxed one (generic, takes a Stack). Either form can be
// called through the other: unboxed calls box their arguments when only a
// boxed kernel exists, and every unboxed kernel gets a boxed wrapper.
#pragma once
#include <memory>
#include <type_traits>
#include "IValue.h"

namespace c10 {

class OperatorEntry;
using BoxedKernelFn = void (*)(void* ctx, const OperatorEntry& op, DispatchKeySet ks, Stack* stack);

namespace detail {
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
    k.debug_ = std::move(debug);
    return k;
  }

  template <class R, class... Args>
  R call(const OperatorEntry& op, DispatchKeySet ks, Args... args) const {
    if (TL_LIKELY(unboxed_ != nullptr)) {
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
