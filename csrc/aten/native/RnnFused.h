// Fused LSTM recurrence (issue 11): the shape checks every backend shares and
// the per-element gate math, host/device so a CUDA kernel can reuse it.
//
// _lstm_fused_sequence runs one layer and direction of an LSTM over a padded
// (T, B, 4H) input projection x_gates (x W_ih^T plus both biases, gate blocks
// in the order i, f, g, o). Per step: gates = x_gates[t] + h_prev W_hh^T, then
//   i, f, o = sigmoid(.), g = tanh(.), c = f c_prev + i g, h = o tanh(c).
// The workspace row of a step holds what its backward needs and cannot get
// from the outputs: (i, f, g, o, c, tanh c), 6H values per batch row.
#pragma once
#include <cmath>
#include <cstdint>

#include "aten/native/Math.h"
#include "c10/Tensor.h"

namespace at::native {

// Workspace values per batch row and step: the four activated gates, c, tanh(c).
constexpr int64_t kLstmWorkspaceBlocks = 6;

struct LstmSequencePlan {
  int64_t steps = 0;   // T
  int64_t batch = 0;   // B
  int64_t hidden = 0;  // H
};

// x_gates (T, B, 4H), h0 and c0 (B, H), w_hh (4H, H), one floating dtype.
// Raises RuntimeError naming `op` and the mismatch.
LstmSequencePlan lstm_fused_sequence_plan(const char* op, const TensorBase& x_gates, const TensorBase& h0,
                                          const TensorBase& c0, const TensorBase& w_hh);

// The backward's operands: output (T, B, H) and h0, c0, w_hh as in the
// forward, workspace (T, B, 6H) in the op-math dtype (float for half types),
// and each given gradient shaped like the output it belongs to.
LstmSequencePlan lstm_fused_backward_plan(const TensorBase* grad_output, const TensorBase* grad_hn,
                                          const TensorBase* grad_cn, const TensorBase& h0, const TensorBase& c0,
                                          const TensorBase& w_hh, const TensorBase& output,
                                          const TensorBase& workspace);

// ---------------------------------------------------------------- element math

// tanh for float without a branch, so loops over it vectorise (std::tanh is an
// opaque libm call). Near zero tanh(x) ~ x, and forms like 2 sigmoid(2x) - 1
// lose all relative precision there, so |x| < 0.625 uses the odd series
// x + x^3 P(x^2) (Cephes' tanhf minimax coefficients); elsewhere
// 1 - 2 / (exp(2|x|) + 1), whose subtraction is benign once tanh >= 0.55.
// exp saturates to inf for large |x|, giving exactly 1.
TL_HOST_DEVICE inline float rnn_tanh(float x) {
  const float ax = std::fabs(x);
  const float z = x * x;
  float poly = -5.70498872745e-3f;
  poly = poly * z + 2.06390887954e-2f;
  poly = poly * z - 5.37397155531e-2f;
  poly = poly * z + 1.33314422036e-1f;
  poly = poly * z - 3.33332819422e-1f;
  const float small = x + x * z * poly;
  const float large = 1.0f - 2.0f / (tl_math::exp(2.0f * ax) + 1.0f);
  const float big = std::copysign(large, x);
  float r = ax < 0.625f ? small : big;
  // x != x keeps NaN; x == 0 keeps the sign of -0 (the series gives +0 there).
  return (x != x || x == 0.0f) ? x : r;
}
TL_HOST_DEVICE inline double rnn_tanh(double x) { return std::tanh(x); }

// 1 / (1 + exp(-x)): exp(-x) overflows to inf for x < -88, giving exactly 0.
template <class T>
TL_HOST_DEVICE inline T rnn_sigmoid(T x) {
  return T(1) / (T(1) + tl_math::exp(-x));
}

// One element of one step's forward from the gate pre-activations and c_prev:
// the activated gates, c, tanh(c) and h. (Outputs by reference, not a struct:
// GCC leaves a returned aggregate in memory and then will not vectorise.)
template <class T>
TL_HOST_DEVICE inline void lstm_cell_forward(T pre_i, T pre_f, T pre_g, T pre_o, T c_prev, T& i, T& f, T& g, T& o,
                                             T& c, T& tanh_c, T& h) {
  i = rnn_sigmoid(pre_i);
  f = rnn_sigmoid(pre_f);
  g = rnn_tanh(pre_g);
  o = rnn_sigmoid(pre_o);
  c = f * c_prev + i * g;
  tanh_c = rnn_tanh(c);
  h = o * tanh_c;
}

// One element of one step's backward: from dh (all of this step's h gradient)
// and dc_next (the c gradient flowing back from the later step), the four
// gate pre-activation gradients and the gradient for c_prev.
template <class T>
TL_HOST_DEVICE inline void lstm_cell_backward(T dh, T dc_next, T i, T f, T g, T o, T tanh_c, T c_prev, T& di, T& df,
                                              T& dg, T& d_o, T& dc_prev) {
  const T dc = dc_next + dh * o * (T(1) - tanh_c * tanh_c);
  di = dc * g * i * (T(1) - i);
  df = dc * c_prev * f * (T(1) - f);
  dg = dc * i * (T(1) - g * g);
  d_o = dh * tanh_c * o * (T(1) - o);
  dc_prev = dc * f;
}

}  // namespace at::native
