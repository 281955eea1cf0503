// A Python number crossing into C++: bool, int64 or double, tagged.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>
#include "Exception.h"
#include "ScalarType.h"

namespace c10 {

class Scalar {
 public:
  enum class Tag : uint8_t { Bool, Int, Double };
  Scalar() : tag_(Tag::Int) { v_.i = 0; }
  Scalar(bool b) : tag_(Tag::Bool) { v_.i = b; }
  Scalar(int v) : tag_(Tag::Int) { v_.i = v; }
  Scalar(int64_t v) : tag_(Tag::Int) { v_.i = v; }
  Scalar(long long v) : tag_(Tag::Int) { v_.i = (int64_t)v; }
  Scalar(double v) : tag_(Tag::Double) { v_.d = v; }
  Scalar(float v) : tag_(Tag::Double) { v_.d = v; }
  Scalar(Half v) : Scalar((double)(float)v) {}
  Scalar(BFloat16 v) : Scalar((double)(float)v) {}

  bool isBoolean() const { return tag_ == Tag::Bool; }
  bool isIntegral(bool includeBool) const { return tag_ == Tag::Int || (includeBool && tag_ == Tag::Bool); }
  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  Tag tag() const { return tag_; }

  double toDouble() const { return tag_ == Tag::Double ? v_.d : (double)v_.i; }
  int64_t toLong() const { return tag_ == Tag::Double ? (int64_t)v_.d : v_.i; }
  bool toBool() const { return tag_ == Tag::Double ? v_.d != 0 : v_.i != 0; }

  // The number as T, checked: every path from a Python number into a tensor
  // (tensor(), full, fill_, setitem, scalar operands of kernels) goes through
  // here, so 300 never becomes an int8 44 and NaN never becomes INT_MIN.
  // As in PyTorch, unsigned types also take negative *integers* down to -max
  // (they wrap; -1.0 is an error), a finite double too large for float is an
  // error, and half types round (to inf if need be) like a float computation.
  template <class T>
  T to() const {
    if constexpr (std::is_same<T, bool>::value) {
      return toBool();
    } else if constexpr (std::is_integral<T>::value) {
      using L = std::numeric_limits<T>;
      if (tag_ == Tag::Double) {
        double v = v_.d;  // NaN fails every comparison
        bool fits = std::is_signed<T>::value
                        ? v >= (double)L::lowest() && v <= (double)L::max() && v < -(double)L::lowest()
                        : v >= 0.0 && v <= (double)L::max();
        if (!fits) throw_overflow<T>();
        return static_cast<T>(static_cast<int64_t>(v));
      }
      int64_t v = v_.i;
      bool fits = std::is_signed<T>::value ? v >= (int64_t)L::lowest() && v <= (int64_t)L::max()
                                           : v >= -(int64_t)L::max() && v <= (int64_t)L::max();
      if (!fits) throw_overflow<T>();
      return static_cast<T>(v);
    } else if constexpr (std::is_same<T, float>::value) {
      double v = toDouble();
      if (std::isfinite(v) && (v > (double)std::numeric_limits<float>::max() ||
                               v < -(double)std::numeric_limits<float>::max()))
        throw_overflow<T>();
      return static_cast<float>(v);
    } else {
      return static_cast<T>(toDouble());
    }
  }

  // The dtype PyTorch gives a tensor made from this number.
  ScalarType type() const {
    switch (tag_) {
      case Tag::Bool: return ScalarType::Bool;
      case Tag::Int: return ScalarType::Long;
      default: return ScalarType::Double;
    }
  }
  bool equal(double d) const { return toDouble() == d; }

 private:
  template <class T>
  [[noreturn]] static void throw_overflow() {
    throw_error(ErrorKind::Runtime, str("value cannot be converted to type ", cpp_type_name<T>(), " without overflow"));
  }
  template <class T>
  static const char* cpp_type_name() {
    if constexpr (std::is_same<T, uint8_t>::value) return "uint8_t";
    else if constexpr (std::is_same<T, int8_t>::value) return "int8_t";
    else if constexpr (std::is_same<T, int16_t>::value) return "int16_t";
    else if constexpr (std::is_same<T, int32_t>::value) return "int";
    else if constexpr (std::is_same<T, int64_t>::value) return "int64_t";
    else if constexpr (std::is_same<T, float>::value) return "float";
    else return "double";
  }

  Tag tag_;
  union {
    int64_t i;
    double d;
  } v_;
};

template <> inline Half Scalar::to<Half>() const { return Half((float)toDouble()); }
template <> inline BFloat16 Scalar::to<BFloat16>() const { return BFloat16((float)toDouble()); }
template <> inline bool Scalar::to<bool>() const { return toBool(); }

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.isBoolean()) return os << (s.toBool() ? "True" : "False");
  if (s.isIntegral(false)) return os << s.toLong();
  return os << s.toDouble();
}

}  // namespace c10
