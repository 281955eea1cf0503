// Memory overlap between the tensors of one operation. A kernel that writes
// to memory one of its inputs reads (or that writes one location twice)
// gives an answer that depends on its loop order, so TensorIterator and
// copy_ refuse such writes. Unlike PyTorch, which gives up ("too hard") on
// tensors that are not dense, the answer here is exact: a gcd test proves
// most strided pairs apart (columns of a matrix, even/odd elements), and the
// rest are decided by listing their elements when that is cheap.
#pragma once
#include "../c10/Tensor.h"

namespace at {

enum class MemOverlap {
  No,       // disjoint memory (or a 0-element tensor)
  Full,     // the same elements in the same order: in-place is fine
  Partial,  // some elements shared: an error for a written-to tensor
  TooHard,  // undecided within the work bound: the caller copies the input
};

// Whether some element of t is stored at the same address as another one
// (an expanded dim, or as_strided). No or Partial, or TooHard past the bound.
MemOverlap internal_overlap(const TensorBase& t);

// How the memory of a and b relates.
MemOverlap overlap_status(const TensorBase& a, const TensorBase& b);

// PyTorch's errors, naming the operation. The partial check returns the
// status otherwise (No, Full, or TooHard for the caller to resolve).
void assert_no_internal_overlap(const TensorBase& t, const char* op);
MemOverlap assert_no_partial_overlap(const TensorBase& out, const TensorBase& in, const char* op);

}  // namespace at
