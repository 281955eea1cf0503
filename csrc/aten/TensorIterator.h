// TensorIterator: the shared, device-neutral front half of every elementwise
// kernel. It broadcasts the operands, picks the computation dtype (PyTorch's
// promotion rules), checks memory overlap, allocates or checks the outputs,
// and turns the operands' geometry into the fewest, fastest-first loop
// dimensions. Running the loop is a backend's business: the CPU driver is
// cpu_for_each in native/cpu/Loops.h; a GPU driver needs only the accessors
// below.
#pragma once
#include "../c10/Tensor.h"

namespace at {

struct OperandInfo {
  TensorBase tensor;        // what the loop reads/writes (maybe a converted copy)
  TensorBase original;      // the caller's out= tensor when `tensor` is a temporary
  char* data = nullptr;
  DimVector stride_bytes;  // per loop dim
  bool is_output = false;
  // A 0-dim input held in the op-math type (float) of a half/bfloat16 loop.
  bool is_opmath = false;
  // A 0-dim CPU input of an iterator on another device: it stays in host
  // memory and a device loop reads it as a scalar (cpu_scalar_value), as
  // PyTorch does for `cuda_tensor + torch.tensor(2.)`.
  bool is_cpu_scalar = false;
};

class TensorIterator;

class TensorIteratorConfig {
 public:
  explicit TensorIteratorConfig(const char* op_name) : name_(op_name) {}
  TensorIteratorConfig& add_output(const TensorBase& t) { outputs_.push_back(t); return *this; }
  TensorIteratorConfig& add_input(const TensorBase& t) { inputs_.push_back(t); return *this; }
  // Inputs are converted to the common dtype (result_type over the inputs).
  TensorIteratorConfig& promote_inputs_to_common_dtype(bool v) { promote_ = v; return *this; }
  // Integer and bool inputs compute in the default float dtype (true division, exp of ints).
  TensorIteratorConfig& promote_integer_inputs_to_float(bool v) { int_to_float_ = v; return *this; }
  // Output dtype independent of inputs (comparisons give bool).
  TensorIteratorConfig& output_dtype(ScalarType t) { out_dtype_ = t; return *this; }
  // Force the computation dtype (copy_ uses the destination's dtype).
  TensorIteratorConfig& common_dtype(ScalarType t) { forced_common_ = t; return *this; }
  // out= tensors of the wrong shape are resized instead of rejected.
  TensorIteratorConfig& resize_outputs(bool v) { resize_ = v; return *this; }
  // The output may be written with any dtype; values are cast (copy_).
  TensorIteratorConfig& allow_any_output_cast(bool v) { any_cast_ = v; return *this; }
  // Reject outputs whose elements alias each other (expanded tensors) or that
  // partly share memory with an input. Off for fill_ (every write stores the
  // same value).
  TensorIteratorConfig& check_mem_overlap(bool v) { check_overlap_ = v; return *this; }
  TensorIterator build();

 private:
  friend class TensorIterator;
  const char* name_;
  std::vector<TensorBase> outputs_, inputs_;
  bool promote_ = true, int_to_float_ = false, resize_ = true, any_cast_ = false, check_overlap_ = true;
  ScalarType out_dtype_ = ScalarType::Undefined;
  ScalarType forced_common_ = ScalarType::Undefined;
};

class TensorIterator {
 public:
  using loop_t = void (*)(void* ctx, char** data, const int64_t* strides, int64_t n);

  int ntensors() const { return (int)ops_.size(); }
  int noutputs() const { return noutputs_; }
  int ninputs() const { return ntensors() - noutputs_; }
  IntArrayRef shape() const { return shape_; }  // loop shape, dim 0 fastest
  int64_t numel() const { return numel_; }
  int ndim() const { return (int)shape_.size(); }
  ScalarType common_dtype() const { return common_; }
  ScalarType dtype(int arg) const { return ops_[arg].tensor.scalar_type(); }
  const TensorBase& output(int i = 0) const { return ops_[i].original.defined() ? ops_[i].original : ops_[i].tensor; }
  const TensorBase& operand(int i) const { return ops_[i].tensor; }
  char* data_ptr(int arg) const { return ops_[arg].data; }
  IntArrayRef strides(int arg) const { return ops_[arg].stride_bytes; }
  const char* name() const { return name_; }
  bool is_meta() const { return is_meta_; }
  // The device the loop runs on: that of every operand except 0-dim CPU inputs.
  Device device() const { return device_; }
  // Input or output `arg` is a 0-dim CPU tensor read as a scalar by a loop on
  // another device; its data_ptr is a host pointer.
  bool is_cpu_scalar(int arg) const { return ops_[arg].is_cpu_scalar; }
  // The value of such an operand, already in dtype(arg) (= T).
  template <class T>
  T cpu_scalar_value(int arg) const {
    TL_CHECK(ops_[arg].is_cpu_scalar && ops_[arg].data, name_, ": operand ", arg, " is not a CPU scalar");
    return *reinterpret_cast<const T*>(ops_[arg].data);
  }
  // Bit k set: input k (0 = first input) is a 0-dim operand stored as float
  // in a half/bfloat16 loop (a Python number must not round to half first).
  unsigned opmath_inputs() const { return opmath_inputs_; }
  // True when every operand is one contiguous run (after coalescing).
  bool is_contiguous() const;

  // Copies temporaries back into out= tensors of another dtype.
  void finish();

 private:
  friend class TensorIteratorConfig;
  void build(TensorIteratorConfig& cfg);
  void compute_shape(TensorIteratorConfig& cfg);
  void check_overlap();
  void compute_types(TensorIteratorConfig& cfg);
  void allocate_outputs(TensorIteratorConfig& cfg);
  void compute_strides_and_coalesce();

  const char* name_ = "";
  std::vector<OperandInfo> ops_;
  int noutputs_ = 0;
  DimVector shape_;      // loop order after build
  DimVector full_shape_; // broadcast shape, natural order
  int64_t numel_ = 0;
  ScalarType common_ = ScalarType::Undefined;
  bool is_meta_ = false;
  unsigned opmath_inputs_ = 0;
  Device device_;
};

inline TensorIterator TensorIteratorConfig::build() {
  TensorIterator it;
  it.build(*this);
  return it;
}

// Broadcast two shapes (PyTorch's error message on mismatch).
DimVector infer_size(IntArrayRef a, IntArrayRef b);

}  // namespace at
