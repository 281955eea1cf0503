// Strided element access for CPU kernels written in PyTorch's extension style:
// t.accessor<float, 2>()[i][j]. The accessor holds the data pointer and views
// of the sizes and strides (in elements); it does not own the tensor, so the
// tensor must outlive it, as in PyTorch.
#pragma once
#include <cstddef>
#include <cstdint>

namespace c10 {

template <class T, size_t N>
class TensorAccessorBase {
 public:
  TensorAccessorBase(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  int64_t size(size_t i) const { return sizes_[i]; }
  int64_t stride(size_t i) const { return strides_[i]; }
  T* data() const { return data_; }

 protected:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

template <class T, size_t N>
class TensorAccessor : public TensorAccessorBase<T, N> {
 public:
  using TensorAccessorBase<T, N>::TensorAccessorBase;
  // Row i: an accessor of one dimension less.
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};

template <class T>
class TensorAccessor<T, 1> : public TensorAccessorBase<T, 1> {
 public:
  using TensorAccessorBase<T, 1>::TensorAccessorBase;
  T& operator[](int64_t i) const { return this->data_[this->strides_[0] * i]; }
};

}  // namespace c10
