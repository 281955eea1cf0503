// Non-owning view of a contiguous sequence (sizes, strides, tensor lists).
#pragma once
#include <cstdint>
#include <initializer_list>
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

}  // namespace c10
