// A tensor's metadata: a view onto a Storage given by sizes, strides and an
// offset (in elements). Views share the storage and the version counter.
#pragma once
#include <atomic>
#include <memory>
#include "DispatchKey.h"
#include "Exception.h"
#include "ScalarType.h"
#include "SmallVector.h"
#include "Storage.h"

struct _object;
typedef _object PyObject;

namespace c10 {

struct VersionCounter : intrusive_ptr_target {
  std::atomic<uint32_t> version{0};
  // Set for a tensor allocated under inference mode (an "inference tensor");
  // views share the counter, so a view of one is one too, and a view made in
  // inference mode of a normal tensor stays normal, as in PyTorch.
  bool inference = false;
};

// Inference mode (torch.inference_mode): thread-local. Tensors allocated while
// it is on are inference tensors, which refuse in-place writes outside it.
struct InferenceMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};
namespace detail {
// How many threads have inference mode on: allocation reads this plain global
// and touches the thread-local flag only when some thread does.
extern std::atomic<int> g_inference_mode_threads;
}  // namespace detail

// Filled in by the autograd layer; the core only needs to own and destroy it.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
};

class TensorImpl : public intrusive_ptr_target {
 public:
  TensorImpl(Storage storage, ScalarType dtype, Device device);
  ~TensorImpl() override;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  int64_t dim() const { return (int64_t)sizes_.size(); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  DispatchKeySet key_set() const { return key_set_; }
  bool is_contiguous() const { return is_contiguous_; }
  // Non-overlapping and dense in some dim order (e.g. a transposed matrix).
  bool is_non_overlapping_and_dense() const;
  const Storage& storage() const { return storage_; }
  void* data() const {
    return static_cast<char*>(storage_->data.ptr) + storage_offset_ * (int64_t)elementSize(dtype_);
  }
  size_t itemsize() const { return elementSize(dtype_); }

  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  void set_sizes_contiguous(IntArrayRef sizes);
  void set_storage(Storage s) { storage_ = std::move(s); }
  // For `t.data = other` (PyTorch's set_data): the tensor object keeps its
  // identity while taking other's dtype and device, as when Module.half()
  // converts a parameter an optimizer already holds.
  void set_dtype_and_device(ScalarType dtype, Device device) {
    dtype_ = dtype;
    device_ = device;
    key_set_ = tensorKeySet(device.type);
  }
  // Grows storage if needed and makes the tensor contiguous with these sizes.
  void resize(IntArrayRef sizes);

  uint32_t version() const { return version_->version.load(std::memory_order_relaxed); }
  // Every in-place write and out= result bumps once; an inference tensor may
  // only be written inside inference mode (checked here, PyTorch's place: the
  // write has happened, the error tells the caller it was not allowed).
  void bump_version() {
    VersionCounter* v = version_.get();
    if (TL_UNLIKELY(v->inference)) check_inference_write();
    v->version.fetch_add(1, std::memory_order_relaxed);
  }
  // A composite kernel that wrote through nested in-place ops resets the
  // count it started from before its own single bump (see op.cpp.j2).
  void set_version(uint32_t v) { version_->version.store(v, std::memory_order_relaxed); }
  bool is_inference() const { return version_->inference; }
  const intrusive_ptr<VersionCounter>& version_counter() const { return version_; }
  void set_version_counter(intrusive_ptr<VersionCounter> v) { version_ = std::move(v); }

  // A Python number turned into a 0-dim tensor: promotes by category only.
  bool is_wrapped_number() const { return is_wrapped_number_; }
  void set_wrapped_number(bool v) { is_wrapped_number_ = v; }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) { autograd_meta_ = std::move(m); }

  // Borrowed pointer to the Python object wrapping this tensor, so one tensor
  // keeps one Python identity. Cleared when that object dies.
  PyObject* pyobj() const { return pyobj_; }
  void set_pyobj(PyObject* o) { pyobj_ = o; }

 private:
  void refresh();
  void check_inference_write() const;

  Storage storage_;
  DimVector sizes_, strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  Device device_;
  DispatchKeySet key_set_;
  bool is_contiguous_ = true;
  bool is_wrapped_number_ = false;
  intrusive_ptr<VersionCounter> version_;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  PyObject* pyobj_ = nullptr;
};

// Row-major strides for sizes.
DimVector contiguousStrides(IntArrayRef sizes);
// Number of elements of a shape (1 for a 0-dim shape). Unchecked: for
// shapes already validated (those of existing tensors).
inline int64_t multiply_integers(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}
// Number of elements of a new shape: raises on negative sizes and on int64
// overflow (a wrapped count would allocate too little and corrupt memory).
int64_t checked_numel(IntArrayRef sizes, const char* op);
// Bytes of storage that sizes/strides/offset reach (0 for an empty tensor),
// raising on negative strides and on int64 overflow.
int64_t storage_bytes_needed(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize, const char* op);
// Python-style wrap of a possibly-negative dim; names the op in the IndexError.
int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar = true);

}  // namespace c10
