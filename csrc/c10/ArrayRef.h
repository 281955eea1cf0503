// Non-owning view of a contiguous sequence (sizes, strides, tensor lists).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

namespace c10 {

template <class T>
class ArrayRef {
 public:
  constexpr ArrayRef() : data_(nullptr), size_(0) {}
  constexpr ArrayRef(const T* data, size_t n) : data_(data), size_(n) {}
  constexpr ArrayRef(const T& one) : data_(&one), size_(1) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
  constexpr ArrayRef(std::initializer_list<T> il) : data_(il.begin()), size_(il.size()) {}
  template <class Container, class = decltype(std::declval<Container>().data())>
  ArrayRef(const Container& c) : data_(c.data()), size_(c.size()) {}

  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[size_ - 1]; }
  ArrayRef slice(size_t start, size_t n) const { return ArrayRef(data_ + start, n); }
  ArrayRef slice(size_t start) const { return ArrayRef(data_ + start, size_ - start); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == other.data_[i])) return false;
    return true;
  }

 private:
  const T* data_;
  size_t size_;
};

template <class T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) { return a.equals(b); }
template <class T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) { return !a.equals(b); }

template <class T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> a) {
  os << "[";
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}

using IntArrayRef = ArrayRef<int64_t>;

// The C++ API's type for `int[]?` parameters (sum's dim). A
// std::optional<IntArrayRef> made from `{1}` or `1` points at a temporary
// int64_t that dies inside optional's constructor; this type keeps a single int
// inline and takes a braced list by reference to the caller's array, which
// lives until the call returns.
class OptionalIntArrayRef {
 public:
  OptionalIntArrayRef() = default;
  OptionalIntArrayRef(std::nullopt_t) {}
  OptionalIntArrayRef(IntArrayRef r) : kind_(Kind::Ref), ref_(r) {}
  OptionalIntArrayRef(const std::vector<int64_t>& v) : kind_(Kind::Ref), ref_(v) {}
  OptionalIntArrayRef(std::initializer_list<int64_t> l) : kind_(Kind::Ref), ref_(l) {}
  OptionalIntArrayRef(int64_t one) : kind_(Kind::One), one_(one) {}
  OptionalIntArrayRef(const std::optional<IntArrayRef>& o) : kind_(o ? Kind::Ref : Kind::None), ref_(o ? *o : IntArrayRef()) {}

  bool has_value() const { return kind_ != Kind::None; }
  explicit operator bool() const { return has_value(); }
  IntArrayRef value() const { return kind_ == Kind::One ? IntArrayRef(&one_, 1) : ref_; }
  IntArrayRef operator*() const { return value(); }
  // Valid while this object lives: pass it straight into the call.
  operator std::optional<IntArrayRef>() const {
    return has_value() ? std::optional<IntArrayRef>(value()) : std::nullopt;
  }

 private:
  enum class Kind : uint8_t { None, Ref, One } kind_ = Kind::None;
  int64_t one_ = 0;
  IntArrayRef ref_;
};

}  // namespace c10
