// The refcounted buffer behind tensors; views share one StorageImpl.
#pragma once
#include "Allocator.h"
#include "intrusive_ptr.h"

namespace c10 {

struct StorageImpl : intrusive_ptr_target {
  // nbytes from `alloc` on device `index` of its type (-1 for unindexed types).
  StorageImpl(size_t nbytes, Allocator* alloc, bool resizable, DeviceIndex index = -1)
      : data(alloc ? alloc->allocate(nbytes, index, 0) : DataPtr()),
        nbytes(nbytes),
        allocator(alloc),
        resizable(resizable) {}
  StorageImpl(DataPtr d, size_t nbytes) : data(d), nbytes(nbytes), allocator(nullptr), resizable(false) {}
  ~StorageImpl() override { data.release(); }
  // Grow in place (used by resize_ and out= arguments); keeps old bytes.
  void resize(size_t new_nbytes);
  // Where the bytes live (set by the allocator, or by whoever wrapped them).
  Device device() const { return data.device; }

  DataPtr data;
  size_t nbytes;
  Allocator* allocator;
  bool resizable;
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace c10
