#include "TensorIterator.h"

#include <algorithm>
#include "MemoryOverlap.h"
#include "TypePromotion.h"
#include "native/Copy.h"

namespace at {

DimVector infer_size(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TL_CHECK(da == db || da == 1 || db == 1, "The size of tensor a (", da, ") must match the size of tensor b (", db,
             ") at non-singleton dimension ", i);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void TensorIterator::build(TensorIteratorConfig& cfg) {
  name_ = cfg.name_;
  noutputs_ = (int)cfg.outputs_.size();
  TL_CHECK((int)(cfg.outputs_.size() + cfg.inputs_.size()) <= 16, name_, ": too many operands");
  ops_.resize(cfg.outputs_.size() + cfg.inputs_.size());
  for (size_t i = 0; i < cfg.outputs_.size(); ++i) {
    ops_[i].tensor = cfg.outputs_[i];
    ops_[i].is_output = true;
  }
  for (size_t i = 0; i < cfg.inputs_.size(); ++i) {
    TL_CHECK(cfg.inputs_[i].defined(), name_, ": expected a defined tensor for input ", i);
    ops_[noutputs_ + i].tensor = cfg.inputs_[i];
  }
  // Device: the first operand that is not a 0-dim CPU input decides; 0-dim CPU
  // inputs (Python numbers, CPU scalars) may join tensors on any device and
  // are then read as scalars from host memory (PyTorch's rule). A 0-dim CPU
  // output, or any CPU tensor with dims, must be on the common device.
  auto cpu_scalar = [](const OperandInfo& op) { return !op.is_output && op.tensor.is_cpu() && op.tensor.dim() == 0; };
  bool found = false;
  for (auto& op : ops_) {
    if (!op.tensor.defined() || cpu_scalar(op)) continue;
    if (!found) {
      device_ = op.tensor.device();
      found = true;
    }
    TL_CHECK(op.tensor.device() == device_, "Expected all tensors to be on the same device, but found at least two "
             "devices, ", device_, " and ", op.tensor.device(), "! (when checking arguments for ", name_, ")");
  }
  if (!found) device_ = Device(DeviceType::CPU);
  if (!device_.is_cpu())
    for (auto& op : ops_) op.is_cpu_scalar = op.tensor.defined() && cpu_scalar(op);
  is_meta_ = device_.is_meta();
  compute_shape(cfg);
  if (cfg.check_overlap_ && !is_meta_) check_overlap();
  compute_types(cfg);
  allocate_outputs(cfg);
  compute_strides_and_coalesce();
}

void TensorIterator::compute_shape(TensorIteratorConfig& cfg) {
  bool first = true;
  for (int i = noutputs_; i < ntensors(); ++i) {
    IntArrayRef s = ops_[i].tensor.sizes();
    if (first) {
      full_shape_ = s;
      first = false;
    } else if (!full_shape_.ref().equals(s)) {
      full_shape_ = infer_size(full_shape_, s);
    }
  }
  for (int i = 0; i < noutputs_; ++i) {
    const TensorBase& out = ops_[i].tensor;
    if (!out.defined()) continue;
    if (first) {
      full_shape_ = out.sizes();
      first = false;
      continue;
    }
    if (out.sizes().equals(full_shape_)) continue;
    // An output that is also an input (in-place) or that may not be resized
    // (copy_) fixes the shape: inputs broadcast up to it, never beyond it.
    bool inplace = false;
    for (int k = noutputs_; k < ntensors(); ++k)
      if (ops_[k].tensor.is_same(out)) inplace = true;
    if (!cfg.resize_ || inplace) {
      // Incompatible shapes get the standard broadcast error; compatible ones
      // that would grow the output get PyTorch's in-place message.
      DimVector s = infer_size(out.sizes(), full_shape_);
      TL_CHECK(s.ref().equals(out.sizes()), "output with shape ", out.sizes(), " doesn't match the broadcast shape ",
               full_shape_.ref(), " (in ", name_, ")");
      full_shape_ = out.sizes();
      continue;
    }
    out.unsafeGetTensorImpl()->resize(full_shape_);
  }
  numel_ = 1;
  for (int64_t s : full_shape_) numel_ *= s;
}

// Before inputs are converted: an output must not write one location twice,
// nor memory an input partly shares (identical memory, as in a.add_(a), is
// fine). An input whose overlap with an output is too costly to decide is
// read from a copy, which is correct whatever the answer.
void TensorIterator::check_overlap() {
  for (int i = 0; i < noutputs_; ++i) {
    const TensorBase& out = ops_[i].tensor;
    if (!out.defined()) continue;
    assert_no_internal_overlap(out, name_);
    for (int k = noutputs_; k < ntensors(); ++k) {
      TensorBase& in = ops_[k].tensor;
      if (assert_no_partial_overlap(out, in, name_) == MemOverlap::TooHard) {
        TensorBase copy = make_empty(in.sizes(), in.options());
        native::copy_across_devices(copy, in, false);
        in = copy;
      }
    }
  }
}

void TensorIterator::compute_types(TensorIteratorConfig& cfg) {
  if (cfg.forced_common_ != ScalarType::Undefined) {
    common_ = cfg.forced_common_;
  } else if (cfg.promote_) {
    ResultTypeState st;
    for (int i = noutputs_; i < ntensors(); ++i) update_result_type_state(ops_[i].tensor, st);
    common_ = result_type(st);
    if (common_ == ScalarType::Undefined && noutputs_ > 0 && ops_[0].tensor.defined()) common_ = ops_[0].tensor.scalar_type();
  } else {
    common_ = ntensors() > noutputs_ ? ops_[noutputs_].tensor.scalar_type() : ops_[0].tensor.scalar_type();
  }
  if (cfg.int_to_float_ && c10::isIntegralType(common_, true)) common_ = c10::defaultFloatType();

  // Inputs compute in the common dtype. 0-dim inputs convert for almost nothing;
  // others are converted once up front so the inner loop is single-typed.
  // In a half/bfloat16 loop, 0-dim inputs (Python numbers, scalar tensors)
  // enter in float, the op-math type, as in PyTorch: x_half * 65536 is
  // computed as float(x) * 65536.f, not x * half(65536) = x * inf.
  bool scalars_in_opmath = cfg.promote_ && c10::isReducedFloatingType(common_);
  if (cfg.promote_ || cfg.forced_common_ != ScalarType::Undefined) {
    for (int i = noutputs_; i < ntensors(); ++i) {
      TensorBase& t = ops_[i].tensor;
      ScalarType want = common_;
      if (scalars_in_opmath && t.dim() == 0) {
        want = ScalarType::Float;
        ops_[i].is_opmath = true;
        opmath_inputs_ |= 1u << (i - noutputs_);
      }
      // A CPU scalar of a device loop converts dtype in host memory and stays there.
      Device where = ops_[i].is_cpu_scalar ? Device(DeviceType::CPU) : device_;
      if (t.scalar_type() != want || t.device() != where) t = native::cast_to(t, want, where);
    }
  }
  ScalarType want_out = cfg.out_dtype_ != ScalarType::Undefined ? cfg.out_dtype_ : common_;
  for (int i = 0; i < noutputs_; ++i) {
    OperandInfo& op = ops_[i];
    if (!op.tensor.defined() || op.tensor.scalar_type() == want_out) continue;
    TL_CHECK(cfg.any_cast_ || cfg.out_dtype_ != ScalarType::Undefined || c10::canCast(want_out, op.tensor.scalar_type()),
             "result type ", want_out, " can't be cast to the desired output type ", op.tensor.scalar_type(),
             " (in ", name_, ")");
    // Compute into a temporary of the computation dtype, cast back in finish().
    op.original = op.tensor;
    op.tensor = TensorBase();
  }
  cfg.out_dtype_ = want_out;
}

void TensorIterator::allocate_outputs(TensorIteratorConfig& cfg) {
  for (int i = 0; i < noutputs_; ++i) {
    OperandInfo& op = ops_[i];
    if (op.tensor.defined()) continue;
    // Follow the layout of an input that already has the full shape and a
    // dense non-contiguous layout (e.g. transposed), as PyTorch does.
    TensorOptions opts(cfg.out_dtype_, device_);
    const TensorBase* like = nullptr;
    for (int k = noutputs_; k < ntensors(); ++k) {
      const TensorBase& t = ops_[k].tensor;
      if (t.sizes().equals(full_shape_)) {
        if (!t.is_contiguous() && t.unsafeGetTensorImpl()->is_non_overlapping_and_dense()) like = &t;
        break;
      }
    }
    op.tensor = like ? make_empty_strided(full_shape_, like->strides(), opts) : make_empty(full_shape_, opts);
  }
}

void TensorIterator::compute_strides_and_coalesce() {
  const int nt = ntensors();
  const int nd = (int)full_shape_.size();
  // Byte strides in natural order, 0 for broadcast dims.
  std::vector<DimVector> st(nt);
  for (int k = 0; k < nt; ++k) {
    const TensorBase& t = ops_[k].tensor;
    ops_[k].data = is_meta_ && !ops_[k].is_cpu_scalar ? nullptr : static_cast<char*>(t.data_ptr());
    st[k].resize(nd, 0);
    int off = nd - (int)t.dim();
    int64_t isz = (int64_t)t.itemsize();
    for (int d = 0; d < (int)t.dim(); ++d)
      st[k][off + d] = t.sizes()[d] == 1 ? 0 : t.strides()[d] * isz;
  }
  // Loop order: fastest-moving dim first, judged by the output's strides
  // (then the inputs') — an insertion sort, stable for ties.
  DimVector perm(nd);
  for (int d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (int k = 0; k < nt; ++k) {
      int64_t a = st[k][d0], b = st[k][d1];
      if (a == 0 || b == 0) continue;
      if (a != b) return a > b;  // d0 must move slower: swap so the smaller stride comes first
    }
    return false;
  };
  for (int i = 1; i < nd; ++i)
    for (int j = i; j > 0 && should_swap(perm[j - 1], perm[j]); --j) std::swap(perm[j - 1], perm[j]);

  DimVector shape;
  std::vector<DimVector> strides(nt);
  for (int d = 0; d < nd; ++d) {
    int64_t sz = full_shape_[perm[d]];
    if (sz == 1) continue;  // size-1 dims never move the pointers
    if (!shape.empty()) {
      // Coalesce with the previous loop dim when every operand steps evenly.
      bool can = true;
      for (int k = 0; k < nt && can; ++k) can = strides[k].back() * shape.back() == st[k][perm[d]];
      if (can) {
        shape.back() *= sz;
        continue;
      }
    }
    shape.push_back(sz);
    for (int k = 0; k < nt; ++k) strides[k].push_back(st[k][perm[d]]);
  }
  if (shape.empty()) {
    shape.push_back(1);
    for (int k = 0; k < nt; ++k) strides[k].push_back(0);
  }
  shape_ = shape;
  for (int k = 0; k < nt; ++k) ops_[k].stride_bytes = strides[k];
}

bool TensorIterator::is_contiguous() const {
  if (ndim() != 1) return false;
  for (auto& op : ops_)
    if (op.stride_bytes[0] != (int64_t)op.tensor.itemsize()) return false;
  return true;
}

void TensorIterator::finish() {
  for (int i = 0; i < noutputs_; ++i) {
    OperandInfo& op = ops_[i];
    if (!op.original.defined()) continue;
    if (!is_meta_) native::copy_across_devices(op.original, op.tensor, false);
    op.tensor = op.original;
    op.original = TensorBase();
  }
}

}  // namespace at
