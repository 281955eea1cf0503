// ctc_loss (connectionist temporal classification): the checks and shape plan
// every backend shares, and the extended-label index math a CUDA kernel reuses.
//
// A target l_1..l_L is extended with blanks to b l_1 b l_2 ... l_L b (2L+1
// states). log_alpha[t][s] is the log probability of all alignments of the
// first t+1 frames that end in state s; the loss is -log(alpha[T-1][2L] +
// alpha[T-1][2L-1]).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "aten/native/Math.h"
#include "c10/Tensor.h"

namespace at::native {

struct CtcPlan {
  int64_t max_time = 0;        // T
  int64_t batch = 0;           // N
  int64_t classes = 0;         // C
  int64_t max_target = 0;      // the longest target: log_alpha has 2 * max_target + 1 states
  bool padded_targets = true;  // (N, S) targets; else 1-D concatenated
  int64_t target_stride = 0;   // S for padded targets
  std::vector<int64_t> target_offsets;  // where target n starts in the (flattened) targets
};

// log_probs (T, N, C) float; targets (N, S) or (sum(target_lengths),) int32/int64.
// Raises RuntimeError naming ctc_loss and the problem, as PyTorch does.
CtcPlan ctc_loss_plan(const TensorBase& log_probs, const TensorBase& targets, IntArrayRef input_lengths,
                      IntArrayRef target_lengths, int64_t blank);

// The class emitted in extended state s of a target whose labels start at `labels`.
template <class target_t>
TL_HOST_DEVICE inline int64_t ctc_state_label(const target_t* labels, int64_t s, int64_t blank) {
  return (s % 2 == 0) ? blank : static_cast<int64_t>(labels[s / 2]);
}

// log(exp(a) + exp(b)) with -inf handled (no nan from -inf - -inf).
template <class T>
TL_HOST_DEVICE inline T ctc_log_add(T a, T b) {
  T m = a > b ? a : b;
  if (m == -std::numeric_limits<T>::infinity()) return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

// log(exp(a) + exp(b) + exp(c)) with one log: the recursions' three-way step.
template <class T>
TL_HOST_DEVICE inline T ctc_log_add3(T a, T b, T c) {
  T m = a > b ? a : b;
  m = m > c ? m : c;
  if (m == -std::numeric_limits<T>::infinity()) return m;
  return m + std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m));
}

}  // namespace at::native
