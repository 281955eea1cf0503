// Hand-written backward helpers for the ScatterGather area (issue 10), declared for the
// generated autograd files; definitions in manual/ScatterGather.cpp.
#pragma once
#include "autograd/FunctionsManual.h"

namespace torchlike::autograd::generated {
// gather: grad scattered-added back into zeros of self's shape.
at::TensorBase gather_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, int64_t dim,
                               const at::TensorBase& index, bool sparse_grad);
// scatter/scatter_add's src: grad read through the index, zero-padded where
// src is larger than the index (the elements the op never read).
at::TensorBase gather_src_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& index,
                                   at::IntArrayRef src_sizes);
// index_select: grad index-added into zeros of self's shape.
at::TensorBase index_select_backward(const at::TensorBase& grad, at::IntArrayRef self_sizes, int64_t dim,
                                     const at::TensorBase& index);
// index_add/index_copy's source: alpha * grad selected by the index, in source's shape.
at::TensorBase index_source_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& index,
                                     at::IntArrayRef source_sizes, const at::Scalar& alpha);
// index_fill's 0-dim value tensor: the sum of grad over the filled slices.
at::TensorBase index_fill_value_backward(const at::TensorBase& grad, int64_t dim, const at::TensorBase& index);
// scatter_reduce / index_reduce: PyTorch's formulas per reduction.
at::TensorBase scatter_reduce_backward_self(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                            const at::TensorBase& index, const at::TensorBase& src,
                                            std::string_view reduce, bool include_self, const at::TensorBase& result);
at::TensorBase scatter_reduce_backward_src(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                           const at::TensorBase& index, const at::TensorBase& src,
                                           std::string_view reduce, bool include_self, const at::TensorBase& result);
at::TensorBase index_reduce_backward_self(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                          const at::TensorBase& index, const at::TensorBase& source,
                                          std::string_view reduce, bool include_self, const at::TensorBase& result);
at::TensorBase index_reduce_backward_source(const at::TensorBase& grad, const at::TensorBase& self, int64_t dim,
                                            const at::TensorBase& index, const at::TensorBase& source,
                                            std::string_view reduce, bool include_self,
                                            const at::TensorBase& result);
}  // namespace torchlike::autograd::generated
