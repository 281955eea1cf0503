// Reference counting embedded in the object (TensorImpl, StorageImpl): one
// allocation per tensor and a handle that is a single pointer.
#pragma once
#include <atomic>
#include <cstdint>
#include <utility>

namespace c10 {

class intrusive_ptr_target {
 public:
  intrusive_ptr_target() : refcount_(0) {}
  intrusive_ptr_target(const intrusive_ptr_target&) : refcount_(0) {}
  virtual ~intrusive_ptr_target() = default;
  uint32_t use_count() const { return refcount_.load(std::memory_order_relaxed); }
  // Called when the last reference goes; default deletes.
  virtual void release_resources() {}

 private:
  template <class T>
  friend class intrusive_ptr;
  mutable std::atomic<uint32_t> refcount_;
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() noexcept : p_(nullptr) {}
  intrusive_ptr(std::nullptr_t) noexcept : p_(nullptr) {}
  // Takes a new reference on a raw pointer.
  explicit intrusive_ptr(T* p) noexcept : p_(p) { retain(); }
  intrusive_ptr(const intrusive_ptr& o) noexcept : p_(o.p_) { retain(); }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <class U, class = std::enable_if_t<std::is_convertible<U*, T*>::value>>
  intrusive_ptr(intrusive_ptr<U>&& o) noexcept : p_(o.release()) {}
  ~intrusive_ptr() { reset(); }
  intrusive_ptr& operator=(const intrusive_ptr& o) noexcept {
    intrusive_ptr tmp(o);
    swap(tmp);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  template <class... Args>
  static intrusive_ptr make(Args&&... args) {
    return intrusive_ptr(new T(std::forward<Args>(args)...));
  }
  // Adopts a pointer whose reference the caller already owns.
  static intrusive_ptr reclaim(T* p) {
    intrusive_ptr r;
    r.p_ = p;
    return r;
  }
  T* release() noexcept {
    T* p = p_;
    p_ = nullptr;
    return p;
  }
  void reset() noexcept {
    if (p_ && p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      p_->release_resources();
      delete p_;
    }
    p_ = nullptr;
  }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }
  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  bool defined() const noexcept { return p_ != nullptr; }
  uint32_t use_count() const { return p_ ? p_->use_count() : 0; }
  bool operator==(const intrusive_ptr& o) const { return p_ == o.p_; }
  bool operator!=(const intrusive_ptr& o) const { return p_ != o.p_; }

 private:
  void retain() {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  T* p_;
};

}  // namespace c10
