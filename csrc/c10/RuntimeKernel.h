// Kernels registered as plain function pointers, PyTorch's way:
//   m.impl("myop", &myop_cpu)   with   at::Tensor myop_cpu(const at::Tensor& x, double alpha)
// The pointer is a run-time value, so the kernel is boxed: arguments come off
// the stack converted to the types the function declares (at::Tensor, or any
// class derived from TensorBase, is built from the boxed TensorBase; lists
// and optionals of them likewise), and results go back as TensorBase.
// Library::impl checks the function's signature against the operator's
// schema, with tensor types read as the kernel convention spells them
// (const at::TensorBase&), so a mismatch is a registration error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include "KernelFunction.h"

namespace c10::detail {

template <class T>
constexpr bool is_tensor_class_v = std::is_base_of_v<TensorBase, T>;

// One parameter: how the boxed value becomes the argument (`storage`, kept
// alive for the call, then passed to the function), and the type the
// kernel convention would have used (for the signature check).
template <class D, class Declared, class Enable = void>
struct RuntimeArg {
  using storage = D;
  using kernel_type = Declared;
  static storage get(IValue& v) { return storage(ivalue_to<D>::get(v)); }
};
template <class D, class Declared>
struct RuntimeArg<D, Declared, std::enable_if_t<is_tensor_class_v<D>>> {
  using storage = D;
  using kernel_type = const TensorBase&;
  static storage get(IValue& v) { return D(v.toTensor()); }
};
template <class E, class Declared>
struct RuntimeArg<std::optional<E>, Declared, std::enable_if_t<is_tensor_class_v<E>>> {
  using storage = std::optional<E>;
  using kernel_type = const std::optional<TensorBase>&;
  static storage get(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return E(v.toTensor());
  }
};
template <class E> struct TensorListStorage {
  std::vector<E> items;
  operator ArrayRef<E>() const { return ArrayRef<E>(items); }
  operator const std::vector<E>&() const { return items; }
};
template <class E, class Declared>
struct RuntimeArg<std::vector<E>, Declared, std::enable_if_t<is_tensor_class_v<E>>> {
  using storage = TensorListStorage<E>;
  using kernel_type = ArrayRef<TensorBase>;
  static storage get(IValue& v) { return storage{std::vector<E>(v.tensors.begin(), v.tensors.end())}; }
};
template <class E, class Declared>
struct RuntimeArg<ArrayRef<E>, Declared, std::enable_if_t<is_tensor_class_v<E>>>
    : RuntimeArg<std::vector<E>, Declared> {};
template <class Declared>
struct RuntimeArg<std::string, Declared> {
  using storage = std::string;
  using kernel_type = std::string_view;
  static storage get(IValue& v) { return std::string(ivalue_to<std::string_view>::get(v)); }
};

template <class T>
using runtime_arg_t = RuntimeArg<std::remove_cv_t<std::remove_reference_t<T>>, T>;

// The result: pushed back as the kernel convention's types.
template <class R, class Enable = void>
struct RuntimeRet {
  using kernel_type = R;
  static void push(Stack& s, R&& r) { push_return<R>::push(s, std::move(r)); }
};
template <class R>
struct RuntimeRet<R, std::enable_if_t<is_tensor_class_v<R>>> {
  using kernel_type = TensorBase;
  static void push(Stack& s, R&& r) { s.emplace_back(TensorBase(std::move(r))); }
};
template <class E>
struct RuntimeRet<std::vector<E>, std::enable_if_t<is_tensor_class_v<E>>> {
  using kernel_type = std::vector<TensorBase>;
  static void push(Stack& s, std::vector<E>&& r) {
    std::vector<TensorBase> base(r.begin(), r.end());
    s.emplace_back(ArrayRef<TensorBase>(base));
  }
};
template <class... Ts>
struct RuntimeRet<std::tuple<Ts...>> {
  using kernel_type = std::tuple<typename RuntimeRet<Ts>::kernel_type...>;
  static void push(Stack& s, std::tuple<Ts...>&& r) {
    std::apply([&](auto&&... e) { (RuntimeRet<std::decay_t<decltype(e)>>::push(s, std::move(e)), ...); },
               std::move(r));
  }
};

// Schema inference for m.def("name", &fn) (PyTorch's catch-all form): the
// schema type each parameter or result type stands for. Parameters are named
// _0, _1, ... as PyTorch names them; a type with no schema spelling is a
// compile error asking for the schema to be written out.
template <class T, class Enable = void>
struct InferSchemaType {
  static_assert(sizeof(T) == 0,
                "Library::def(name, fn): this parameter or result type has no schema type; "
                "write the schema out, m.def(\"name(Tensor x, ...) -> Tensor\", &fn)");
};
template <class T>
struct InferSchemaType<T, std::enable_if_t<is_tensor_class_v<T>>> {
  static std::string get() { return "Tensor"; }
};
template <class E>
struct InferSchemaType<std::vector<E>, std::enable_if_t<is_tensor_class_v<E>>> {
  static std::string get() { return "Tensor[]"; }
};
template <class E>
struct InferSchemaType<ArrayRef<E>, std::enable_if_t<is_tensor_class_v<E>>> {
  static std::string get() { return "Tensor[]"; }
};
template <class E>
struct InferSchemaType<std::optional<E>> {
  static std::string get() { return InferSchemaType<E>::get() + "?"; }
};
#define TL_INFER_SCHEMA_TYPE(cpp, name) \
  template <>                           \
  struct InferSchemaType<cpp> {         \
    static std::string get() { return name; } \
  };
TL_INFER_SCHEMA_TYPE(double, "float")
TL_INFER_SCHEMA_TYPE(int64_t, "int")
TL_INFER_SCHEMA_TYPE(bool, "bool")
TL_INFER_SCHEMA_TYPE(Scalar, "Scalar")
TL_INFER_SCHEMA_TYPE(ScalarType, "ScalarType")
TL_INFER_SCHEMA_TYPE(Layout, "Layout")
TL_INFER_SCHEMA_TYPE(MemoryFormat, "MemoryFormat")
TL_INFER_SCHEMA_TYPE(Device, "Device")
TL_INFER_SCHEMA_TYPE(Generator, "Generator")
TL_INFER_SCHEMA_TYPE(std::string, "str")
TL_INFER_SCHEMA_TYPE(std::string_view, "str")
TL_INFER_SCHEMA_TYPE(IntArrayRef, "int[]")
#undef TL_INFER_SCHEMA_TYPE

template <class R>
struct InferSchemaReturns {
  static std::string get() { return InferSchemaType<R>::get(); }
};
template <>
struct InferSchemaReturns<void> {
  static std::string get() { return "()"; }
};
template <class... Ts>
struct InferSchemaReturns<std::tuple<Ts...>> {
  static std::string get() {
    std::string out = "(";
    size_t i = 0;
    ((out += (i++ ? ", " : "") + InferSchemaType<Ts>::get()), ...);
    return out + ")";
  }
};

// "(Tensor _0, float _1) -> Tensor" for Tensor fn(const Tensor&, double).
template <class R, class... Args>
std::string inferSchemaSignature() {
  std::string out = "(";
  size_t i = 0;
  ((out += (i ? ", " : "") + InferSchemaType<std::remove_cv_t<std::remove_reference_t<Args>>>::get() + " _" +
           std::to_string(i),
    ++i),
   ...);
  return out + ") -> " + InferSchemaReturns<std::remove_cv_t<R>>::get();
}

template <class R, class... Args>
struct RuntimeKernel {
  using Fn = R (*)(Args...);
  // The signature the kernel convention would spell, for the schema check.
  using KernelSig = typename RuntimeRet<R>::kernel_type(DispatchKeySet, typename runtime_arg_t<Args>::kernel_type...);

  static void call(void* ctx, const OperatorEntry&, DispatchKeySet, Stack* stack) {
    constexpr size_t n = sizeof...(Args);
    TL_CHECK(stack->size() >= n, "boxed call: expected ", n, " arguments on the stack, got ", stack->size());
    run(reinterpret_cast<Fn>(ctx), *stack, stack->size() - n, std::index_sequence_for<Args...>{});
  }

 private:
  template <size_t... I>
  static void run(Fn fn, Stack& stack, size_t base, std::index_sequence<I...>) {
    std::tuple<typename runtime_arg_t<Args>::storage...> args(runtime_arg_t<Args>::get(stack[base + I])...);
    if constexpr (std::is_void_v<R>) {
      fn(std::get<I>(args)...);
      stack.resize(base);
    } else {
      R r = fn(std::get<I>(args)...);
      stack.resize(base);
      RuntimeRet<R>::push(stack, std::move(r));
    }
  }
};

}  // namespace c10::detail
