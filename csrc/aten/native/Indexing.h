// Advanced indexing (index, index_put_), the masked ops, nonzero, take/put:
// the shape plans and checks every backend shares, and the index math a CUDA
// kernel will reuse (TL_HOST_DEVICE, no CPU-only headers).
#pragma once
#include <cstdint>
#include <vector>

#include "Math.h"
#include "c10/Tensor.h"

namespace at::native {

// ------------------------------------------------------------ index math

// An index into a dimension of `size` elements is valid in [-size, size).
TL_HOST_DEVICE inline bool index_in_range(int64_t i, int64_t size) { return i >= -size && i < size; }
TL_HOST_DEVICE inline int64_t wrap_index(int64_t i, int64_t size) { return i < 0 ? i + size : i; }

// The element offset of row-major linear position `linear` in a tensor of
// `ndim` dims with these sizes/strides (take/put address elements by their
// position in the flattened tensor, whatever its strides).
TL_HOST_DEVICE inline int64_t linear_to_offset(int64_t linear, const int64_t* sizes, const int64_t* strides,
                                               int64_t ndim) {
  int64_t off = 0;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    const int64_t s = sizes[d];
    off += (linear % s) * strides[d];
    linear /= s;
  }
  return off;
}

// ------------------------------------------------------------ plans

// x[indices]: which dims of self are indexed, the broadcast shape of the
// index tensors, and where that block lands in the result. PyTorch's rule:
// when the indexed dims are adjacent the block replaces them in place,
// otherwise it goes first. The result is [pre dims][index block][post dims],
// pre/post being self's non-indexed dims in order.
struct IndexPlan {
  std::vector<TensorBase> indices;  // one per dim of self; undefined = not indexed; long or int
  DimVector index_shape;            // broadcast shape of the defined indices
  DimVector result_sizes;
  DimVector pre_sizes, pre_strides;    // self's dims before the block (sizes, self's strides)
  DimVector post_sizes, post_strides;  // self's dims after the block
  int64_t block_pos = 0;               // first result dim of the index block
};

// Checks the index list (dtypes, count, mask shapes) and turns each bool/byte
// mask into one long index tensor per dim it covers (its nonzero positions,
// through the dispatcher: needs values, so not on Meta). `op` names the
// operator in messages.
std::vector<TensorBase> expand_index_masks(const TensorBase& self, TensorBaseList indices, const char* op);

// The plan for indices that are all long/int (masks already expanded).
IndexPlan make_index_plan(const TensorBase& self, std::vector<TensorBase> indices);

// values must broadcast to the indexing result: RuntimeError otherwise (PyTorch's wording).
void check_index_put_values(const IndexPlan& plan, const TensorBase& values);

// Row-major element offsets of every position of a strided shape (the
// position's multi-index dotted with strides), used to walk pre/post dims.
std::vector<int64_t> strided_offsets(IntArrayRef sizes, IntArrayRef strides);

// The shape mask and self broadcast to (masked_select, masked_fill ...).
DimVector masked_broadcast_shape(const TensorBase& self, const TensorBase& mask);

// Shared checks.
void check_bool_mask(const TensorBase& mask, const char* op);       // "op only supports boolean masks"
void check_long_index(const TensorBase& index, const char* op);     // take/put: int64 only
void check_same_dtype(const TensorBase& self, const TensorBase& src, const char* op);

}  // namespace at::native
