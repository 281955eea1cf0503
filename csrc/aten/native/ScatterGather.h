// gather / scatter / index_select / index_add / index_copy / index_fill /
// index_reduce: the checks, the iteration plan and the element rules every
// backend shares. The CPU loops are in cpu/ScatterGather.cpp.
//
// All these ops are one pattern: walk the positions p of an index-shaped
// space; at each, the "indexed" tensor (gather's self, scatter's self) is
// addressed at p with coordinate `dim` replaced by index[p], and the "plain"
// tensor (gather's output, scatter's src) at p itself. The index_* ops give
// their 1-D index stride 0 in every dimension but `dim`, so they run through
// the same plan (index_add(self, d, idx, src) == scatter_add(self, d,
// idx.view(...).expand(src.shape), src)).
#pragma once
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "../../c10/Half.h"
#include "../../c10/Tensor.h"

namespace at::native {

// How values meet their target. Assign is scatter/index_copy/index_fill; the
// rest are the reductions of scatter(reduce=), scatter_add, scatter_reduce,
// index_add and index_reduce.
enum class ScatterOp : uint8_t { Assign, Sum, Prod, Mean, Max, Min };

// `reduce` strings, each op family with PyTorch's accepted set and message.
ScatterOp parse_scatter_legacy_reduce(std::string_view reduce);  // scatter(reduce=): add | multiply
ScatterOp parse_scatter_reduce(std::string_view reduce);         // scatter_reduce: sum prod mean amax amin
ScatterOp parse_index_reduce(std::string_view reduce);           // index_reduce: prod mean amax amin

// PyTorch reports an out-of-range index differently per op (exception type
// and text); each op names its style.
enum class IndexErrorStyle : uint8_t {
  Bounds,       // RuntimeError "index 5 is out of bounds for dimension 1 with size 4" (gather, scatter, index_add)
  RangeInSelf,  // IndexError "index out of range in self" (index_select, index_reduce)
  Copy,         // IndexError "index_copy_(): index 5 is out of bounds ..."
  Fill,         // IndexError "index 5 is out of bounds ..." (index_fill, which also wraps negative indices)
};
[[noreturn]] void raise_index_out_of_range(IndexErrorStyle style, int64_t index, int64_t dim, int64_t size);

// ---------------------------------------------------------------- host/device element rules

// Index in [0, size) after the op's wrapping rule; -1 when out of range.
TL_HOST_DEVICE inline int64_t checked_index(int64_t i, int64_t size, bool wrap_negative) {
  if (wrap_negative && i < 0) i += size;
  return (i >= 0 && i < size) ? i : -1;
}

// The accumulation type of a scatter reduction: half types sum (and average)
// in float so repeated additions into one element keep float precision; the
// others accumulate in their own type, as PyTorch's CPU kernels do.
template <class T>
using scatter_acc_t = std::conditional_t<std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>, float, T>;

template <class T>
TL_HOST_DEVICE inline bool scatter_isnan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// dst = dst (op) v. bool: Sum and Max are "or", Prod and Min "and" (PyTorch's
// results). Max/Min propagate NaN, as PyTorch's scatter_reduce does.
template <class T>
TL_HOST_DEVICE inline void scatter_combine(ScatterOp op, T& dst, T v) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case ScatterOp::Assign: dst = v; break;
      case ScatterOp::Sum: case ScatterOp::Mean: case ScatterOp::Max: dst = dst || v; break;
      case ScatterOp::Prod: case ScatterOp::Min: dst = dst && v; break;
    }
  } else {
    switch (op) {
      case ScatterOp::Assign: dst = v; break;
      case ScatterOp::Sum: case ScatterOp::Mean: dst = dst + v; break;
      case ScatterOp::Prod: dst = dst * v; break;
      case ScatterOp::Max: dst = (scatter_isnan(v) || v > dst) ? v : dst; break;
      case ScatterOp::Min: dst = (scatter_isnan(v) || v < dst) ? v : dst; break;
    }
  }
}

// What include_self=False starts a reduced element from.
template <class T>
TL_HOST_DEVICE inline T scatter_identity(ScatterOp op) {
  if constexpr (std::is_same_v<T, bool>) {
    return op == ScatterOp::Prod || op == ScatterOp::Min;
  } else {
    switch (op) {
      case ScatterOp::Prod: return T(1);
      case ScatterOp::Max:
        return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
      case ScatterOp::Min:
        return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
      default: return T(0);
    }
  }
}

// mean's last step: sum / count, count 0 (nothing scattered, include_self=False)
// read as 1. Integers floor, as PyTorch's integer mean does.
template <class T>
TL_HOST_DEVICE inline T scatter_mean_finish(T sum, int64_t count) {
  if (count == 0) count = 1;
  if constexpr (std::is_floating_point_v<T>) {
    return sum / static_cast<T>(count);
  } else {
    T c = static_cast<T>(count);
    T q = sum / c;
    return (sum % c != 0 && ((sum < 0) != (c < 0))) ? T(q - 1) : q;
  }
}

// ---------------------------------------------------------------- iteration plan

constexpr int kScatterMaxDims = 25;  // PyTorch's limit for these ops on CUDA

// The walk described at the top, in element strides. Dimensions other than
// `dim` that are contiguous in all three tensors are merged, so the innermost
// runs are as long as possible. ndim >= 1 (0-dim tensors walk as 1-element 1-D).
struct DimIndexPlan {
  int ndim = 1;
  int dim = 0;
  int64_t sizes[kScatterMaxDims] = {};            // the walked space (index-shaped)
  int64_t indexed_strides[kScatterMaxDims] = {};  // the tensor `index` selects into
  int64_t plain_strides[kScatterMaxDims] = {};    // the tensor addressed at p (0 for a Scalar value)
  int64_t index_strides[kScatterMaxDims] = {};
  int64_t indexed_dim_size = 1;                   // valid indices: [0, indexed_dim_size)

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
};

// sizes: the walked space; strides of a tensor may be empty (0-dim) or
// zero-filled (a Scalar value). indexed_dim_size: the indexed tensor's extent
// along dim. Merges contiguous non-dim dims.
DimIndexPlan make_dim_index_plan(IntArrayRef sizes, int64_t dim, IntArrayRef indexed_strides,
                                 IntArrayRef plain_strides, IntArrayRef index_strides, int64_t indexed_dim_size);

// Strides of a 1-D (or 0-dim) index seen as a tensor of `ndim` dims that
// varies only along dim (index_select, index_add, ...).
DimVector index_as_dim_strides(const TensorBase& index, int64_t ndim, int64_t dim);
// t's strides, {0} for a 0-dim tensor (walked as 1-D of size 1).
DimVector strides_1d(const TensorBase& t);
DimVector sizes_1d(const TensorBase& t);

// ---------------------------------------------------------------- checks (shared by CPU and Meta)

// gather: index int32/int64, same rank as self, no larger than self off dim.
// Returns the wrapped dim.
int64_t gather_check(const TensorBase& self, int64_t dim, const TensorBase& index);
// scatter family: as gather, plus src (when given) of self's dtype and rank,
// no smaller than index. Also the overlap rules of an in-place write.
int64_t scatter_check(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase* src);

// index_select: index a vector (or 0-dim) of int32/int64. Returns the wrapped dim.
int64_t index_select_check(const TensorBase& self, int64_t dim, const TensorBase& index);
DimVector index_select_shape(const TensorBase& self, int64_t dim, const TensorBase& index);
// index_add / index_reduce: source of self's dtype and shape but along dim,
// where it has one entry per index.
int64_t index_add_check(const char* op, const TensorBase& self, int64_t dim, const TensorBase& index,
                        const TensorBase& source);
int64_t index_copy_check(const TensorBase& self, int64_t dim, const TensorBase& index, const TensorBase& source);
int64_t index_fill_check(const TensorBase& self, int64_t dim, const TensorBase& index);

}  // namespace at::native
