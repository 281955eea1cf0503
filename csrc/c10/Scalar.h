// A Python number crossing into C++: bool, int64 or double, tagged.
#pragma once
#include <cmath>
#include <cstdint>
#include <ostream>
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

  template <class T>
  T to() const {
    if (tag_ == Tag::Double) return static_cast<T>(v_.d);
    return static_cast<T>(v_.i);
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
