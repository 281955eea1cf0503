// A boxed value: what boxed kernels (fallbacks, Python kernels) see on the
// stack. Conversions to and from every argument type the schema grammar has.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>
#include "Generator.h"
#include "Tensor.h"

namespace c10 {

struct IValue {
  enum class Tag : uint8_t { None, Tensor, Int, Double, Bool, String, IntList, DoubleList, BoolList, TensorList,
                             OptionalTensorList, Device, Generator, Tuple };
  Tag tag = Tag::None;
  union {
    int64_t i;
    double d;
    bool b;
  } u{0};
  c10::TensorBase tensor;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  std::vector<c10::TensorBase> tensors;  // TensorList, OptionalTensorList (undefined = None), Tuple of tensors
  c10::Device device;
  c10::Generator gen;

  IValue() = default;
  IValue(c10::TensorBase t) : tag(Tag::Tensor), tensor(std::move(t)) {}
  IValue(int64_t v) : tag(Tag::Int) { u.i = v; }
  IValue(int v) : tag(Tag::Int) { u.i = v; }
  IValue(double v) : tag(Tag::Double) { u.d = v; }
  IValue(bool v) : tag(Tag::Bool) { u.b = v; }
  IValue(std::string v) : tag(Tag::String), s(std::move(v)) {}
  IValue(std::string_view v) : tag(Tag::String), s(v) {}
  IValue(IntArrayRef v) : tag(Tag::IntList), ints(v.vec()) {}
  IValue(ArrayRef<c10::TensorBase> v) : tag(Tag::TensorList), tensors(v.vec()) {}
  IValue(c10::Device v) : tag(Tag::Device), device(v) {}
  IValue(c10::Generator g) : tag(g ? Tag::Generator : Tag::None), gen(std::move(g)) {}
  IValue(const c10::Scalar& v) {
    if (v.isBoolean()) { tag = Tag::Bool; u.b = v.toBool(); }
    else if (v.isIntegral(false)) { tag = Tag::Int; u.i = v.toLong(); }
    else { tag = Tag::Double; u.d = v.toDouble(); }
  }
  IValue(ScalarType v) : tag(Tag::Int) { u.i = (int64_t)v; }
  IValue(Layout v) : tag(Tag::Int) { u.i = (int64_t)v; }
  IValue(MemoryFormat v) : tag(Tag::Int) { u.i = (int64_t)v; }
  template <class T>
  IValue(const std::optional<T>& v) : IValue() {
    if (v) *this = IValue(*v);
  }

  bool isNone() const { return tag == Tag::None; }
  bool isTensor() const { return tag == Tag::Tensor; }
  const char* tagName() const;
  c10::TensorBase toTensor() const { expect(Tag::Tensor); return tensor; }
  int64_t toInt() const { expect(Tag::Int); return u.i; }
  double toDouble() const {
    if (tag == Tag::Int) return (double)u.i;
    expect(Tag::Double);
    return u.d;
  }
  bool toBool() const { expect(Tag::Bool); return u.b; }
  c10::Scalar toScalar() const {
    if (tag == Tag::Int) return c10::Scalar(u.i);
    if (tag == Tag::Bool) return c10::Scalar(u.b);
    expect(Tag::Double);
    return c10::Scalar(u.d);
  }

 private:
  void expect(Tag t) const;
};

using Stack = std::vector<IValue>;

// ---- IValue -> C++ argument -------------------------------------------------
// The returned value may point into the IValue (IntArrayRef, TensorList), so
// the stack must outlive the call; it does, since the stack owns the IValues.
template <class T> struct ivalue_to;
template <> struct ivalue_to<c10::TensorBase> { static c10::TensorBase get(IValue& v) { return v.toTensor(); } };
template <> struct ivalue_to<int64_t> { static int64_t get(IValue& v) { return v.toInt(); } };
template <> struct ivalue_to<double> { static double get(IValue& v) { return v.toDouble(); } };
template <> struct ivalue_to<bool> { static bool get(IValue& v) { return v.toBool(); } };
template <> struct ivalue_to<c10::Scalar> { static c10::Scalar get(IValue& v) { return v.toScalar(); } };
template <> struct ivalue_to<ScalarType> { static ScalarType get(IValue& v) { return (ScalarType)v.toInt(); } };
template <> struct ivalue_to<Layout> { static Layout get(IValue& v) { return (Layout)v.toInt(); } };
template <> struct ivalue_to<MemoryFormat> { static MemoryFormat get(IValue& v) { return (MemoryFormat)v.toInt(); } };
template <> struct ivalue_to<c10::Device> { static c10::Device get(IValue& v) { return v.device; } };
template <> struct ivalue_to<c10::Generator> { static c10::Generator get(IValue& v) { return v.gen; } };
template <> struct ivalue_to<std::string_view> { static std::string_view get(IValue& v) { return v.s; } };
template <> struct ivalue_to<IntArrayRef> { static IntArrayRef get(IValue& v) { return IntArrayRef(v.ints); } };
template <> struct ivalue_to<ArrayRef<c10::TensorBase>> {
  static ArrayRef<c10::TensorBase> get(IValue& v) { return ArrayRef<c10::TensorBase>(v.tensors); }
};
template <class T> struct ivalue_to<std::optional<T>> {
  static std::optional<T> get(IValue& v) {
    if (v.isNone()) return std::nullopt;
    return ivalue_to<T>::get(v);
  }
};

template <class T>
using ivalue_decay_t = std::remove_cv_t<std::remove_reference_t<T>>;

// ---- C++ return -> IValues on the stack ----------------------------------
template <class T> struct push_return {
  static void push(Stack& s, T&& v) { s.emplace_back(std::forward<T>(v)); }
};
template <> struct push_return<std::vector<c10::TensorBase>> {
  static void push(Stack& s, std::vector<c10::TensorBase>&& v) { s.emplace_back(ArrayRef<c10::TensorBase>(v)); }
};
template <class... Ts> struct push_return<std::tuple<Ts...>> {
  static void push(Stack& s, std::tuple<Ts...>&& v) {
    std::apply([&](auto&&... e) { (s.emplace_back(std::move(e)), ...); }, std::move(v));
  }
};

template <class T> struct pop_return {
  static T pop(Stack& s, size_t& i) { return ivalue_to<T>::get(s[i++]); }
};
template <> struct pop_return<std::vector<c10::TensorBase>> {
  static std::vector<c10::TensorBase> pop(Stack& s, size_t& i) { return s[i++].tensors; }
};
template <class... Ts> struct pop_return<std::tuple<Ts...>> {
  static std::tuple<Ts...> pop(Stack& s, size_t& i) { return std::tuple<Ts...>{pop_return<Ts>::pop(s, i)...}; }
};

}  // namespace c10
