// The refcounted buffer behind tensors; views share one StorageImpl.
#pragma once
#include "Allocator.h"
#include "intrusive_ptr.h"

namespace c10 {

struct StorageImpl : intrusive_ptr_target {
  StorageImpl(size_t nbytes, Allocator* alloc, bool resizable)
      : data(alloc ? alloc->allocate(nbytes) : DataPtr()), nbytes(nbytes), allocator(alloc), resizable(resizable) {}
  StorageImpl(DataPtr d, size_t nbytes) : data(d), nbytes(nbytes), allocator(nullptr), resizable(false) {}
  ~StorageImpl() override { data.release(); }
  // Grow in place (used by resize_ and out= arguments); keeps old bytes.
  void resize(size_t new_nbytes);

  DataPtr data;
  size_t nbytes;
  Allocator* allocator;
  bool resizable;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace c10
