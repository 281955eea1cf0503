// A vector with inline storage for N elements: sizes and strides of tensors
// almost never exceed 6 dims, so this avoids a heap allocation per tensor.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include "ArrayRef.h"

namespace c10 {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable<T>::value, "SmallVector holds trivially copyable types");

 public:
  SmallVector() : data_(inline_), size_(0), cap_(N) {}
  explicit SmallVector(size_t n, T v = T()) : SmallVector() { resize(n, v); }
  SmallVector(ArrayRef<T> a) : SmallVector() { assign(a.data(), a.size()); }
  SmallVector(std::initializer_list<T> il) : SmallVector() { assign(il.begin(), il.size()); }
  SmallVector(const SmallVector& o) : SmallVector() { assign(o.data_, o.size_); }
  SmallVector(SmallVector&& o) noexcept : SmallVector() { take(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.data_, o.size_);
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      take(std::move(o));
    }
    return *this;
  }
  SmallVector& operator=(ArrayRef<T> a) {
    assign(a.data(), a.size());
    return *this;
  }
  ~SmallVector() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  operator ArrayRef<T>() const { return ArrayRef<T>(data_, size_); }
  ArrayRef<T> ref() const { return ArrayRef<T>(data_, size_); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  void reserve(size_t n) {
    if (n <= cap_) return;
    T* p = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (size_) std::memcpy(p, data_, size_ * sizeof(T));
    if (data_ != inline_) std::free(data_);  // not release(): that also clears size_
    data_ = p;
    cap_ = n;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(cap_ * 2);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void insert(size_t pos, T v) {
    push_back(v);
    std::rotate(data_ + pos, data_ + size_ - 1, data_ + size_);
  }
  void erase(size_t pos) {
    std::memmove(data_ + pos, data_ + pos + 1, (size_ - pos - 1) * sizeof(T));
    --size_;
  }
  void assign(const T* p, size_t n) {
    if (n > cap_) {
      // Allocate before freeing: p may point into our own elements.
      T* q = static_cast<T*>(std::malloc(n * sizeof(T)));
      std::memcpy(q, p, n * sizeof(T));
      if (data_ != inline_) std::free(data_);
      data_ = q;
      cap_ = n;
    } else if (n) {
      std::memmove(data_, p, n * sizeof(T));
    }
    size_ = n;
  }

 private:
  void release() {
    if (data_ != inline_) std::free(data_);
    data_ = inline_;
    cap_ = N;
    size_ = 0;
  }
  void take(SmallVector&& o) {
    if (o.data_ == o.inline_) {
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(T));
      data_ = inline_;
      cap_ = N;
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }
  T* data_;
  size_t size_, cap_;
  T inline_[N];
};

using DimVector = SmallVector<int64_t, 6>;

}  // namespace c10
