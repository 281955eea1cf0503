// The fused LSTM recurrence on CPU: a C++ loop over time, per step one GEMM
// (on torchlike's thread pool, ParallelGemm.h) and one SIMD pass over the
// gates, instead of a dozen dispatched ops per step from Python.
//
// The backward runs the recurrence the other way with one GEMM per step for
// the h gradient, and gets grad_w_hh from two large GEMMs over all steps at
// the end (sum_t dG[t]^T h_prev[t]), not one small product per step.
// float16/bfloat16 run the float kernels on converted copies (float op-math).
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "../RnnFused.h"
#include "ParallelGemm.h"
#include "aten/Parallel.h"
#include "c10/Exception.h"
#include "ops/_to_copy.h"
#include "ops/contiguous.h"

namespace at::native {
namespace {

bool is_half_kind(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

TensorBase dense(const TensorBase& t, ScalarType dtype) {
  TensorBase c = t.scalar_type() == dtype ? t : at::_ops::_to_copy(t, dtype);
  return at::_ops::contiguous(c, MemoryFormat::Contiguous);
}

// Step s of the recurrence (s = 0 first) works on time index t.
inline int64_t time_of(int64_t s, int64_t steps, bool reverse) { return reverse ? steps - 1 - s : s; }

// One batch row of one step, forward and backward. Every gate block is its
// own __restrict__ parameter: GCC honours restrict on parameters, not on
// local pointers, and without it the loops stay scalar. noinline keeps the
// parameters (inlined, the restrict information is lost); a call per row is
// nothing next to the row's work.
template <class T>
__attribute__((noinline)) void forward_row(const T* __restrict__ xi, const T* __restrict__ xf,
                                           const T* __restrict__ xg, const T* __restrict__ xo,
                                           const T* __restrict__ ri, const T* __restrict__ rf,
                                           const T* __restrict__ rg, const T* __restrict__ ro,
                                           const T* __restrict__ cp, T* __restrict__ wi, T* __restrict__ wf,
                                           T* __restrict__ wg, T* __restrict__ wo, T* __restrict__ wc,
                                           T* __restrict__ wt, T* __restrict__ h, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    T i, f, g, o, c, tanh_c, hv;
    lstm_cell_forward<T>(xi[j] + ri[j], xf[j] + rf[j], xg[j] + rg[j], xo[j] + ro[j], cp[j], i, f, g, o, c, tanh_c,
                         hv);
    wi[j] = i;
    wf[j] = f;
    wg[j] = g;
    wo[j] = o;
    wc[j] = c;
    wt[j] = tanh_c;
    h[j] = hv;
  }
}

// dc holds the incoming c gradient and leaves with the gradient for c_prev.
template <class T>
__attribute__((noinline)) void backward_row(const T* __restrict__ dh, T* __restrict__ dc, const T* __restrict__ wi,
                                            const T* __restrict__ wf, const T* __restrict__ wg,
                                            const T* __restrict__ wo, const T* __restrict__ wt,
                                            const T* __restrict__ cp, T* __restrict__ di, T* __restrict__ df,
                                            T* __restrict__ dg, T* __restrict__ d_o, int64_t H) {
  for (int64_t j = 0; j < H; ++j) {
    T gi, gf, gg, go, gc;
    lstm_cell_backward<T>(dh[j], dc[j], wi[j], wf[j], wg[j], wo[j], wt[j], cp[j], gi, gf, gg, go, gc);
    di[j] = gi;
    df[j] = gf;
    dg[j] = gg;
    d_o[j] = go;
    dc[j] = gc;
  }
}

// The forward for batch rows [b0, b1) over all steps. Rows never interact in
// an LSTM (each row's step is its own h_prev times W_hh), so each thread runs
// the whole recurrence for its slice of the batch: one fork/join per call
// instead of one per step.
template <class T>
void forward_rows(const LstmSequencePlan& p, bool reverse, int64_t b0, int64_t b1, const T* x_gates, const T* h0,
                  const T* c0, const T* w_hh, T* out, T* h_n, T* c_n, T* ws) {
  const int64_t B = p.batch, H = p.hidden, G = 4 * H, W = kLstmWorkspaceBlocks * H, rows = b1 - b0;
  std::vector<T> gates((size_t)(rows * G));
  const T* h_prev = h0 + b0 * H;  // row stride H, in h0 and then in out
  const T* c_prev = c0 + b0 * H;
  int64_t c_prev_ld = H;  // c_prev rows sit in c0 first, then in the workspace
  for (int64_t s = 0; s < p.steps; ++s) {
    const int64_t t = time_of(s, p.steps, reverse);
    // Single-threaded inside a parallel region; split over the pool otherwise.
    cpu_gemm::gemm<T>(false, true, rows, G, H, T(1), h_prev, H, w_hh, H, T(0), gates.data(), G);
    const T* xg = x_gates + (t * B + b0) * G;
    T* h_out = out + (t * B + b0) * H;
    T* ws_t = ws + (t * B + b0) * W;
    for (int64_t r = 0; r < rows; ++r) {
      const T* x = xg + r * G;
      const T* hh = gates.data() + r * G;
      T* w = ws_t + r * W;
      forward_row<T>(x, x + H, x + 2 * H, x + 3 * H, hh, hh + H, hh + 2 * H, hh + 3 * H, c_prev + r * c_prev_ld, w,
                     w + H, w + 2 * H, w + 3 * H, w + 4 * H, w + 5 * H, h_out + r * H, H);
    }
    h_prev = h_out;
    c_prev = ws_t + 4 * H;
    c_prev_ld = W;
  }
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(h_n + (b0 + r) * H, h_prev + r * H, sizeof(T) * H);
    std::memcpy(c_n + (b0 + r) * H, c_prev + r * c_prev_ld, sizeof(T) * H);
  }
}

// Batch rows per thread at least: a thinner GEMM wastes its register blocks.
constexpr int64_t kRowsPerThread = 8;

template <class T>
void forward_loop(const LstmSequencePlan& p, bool reverse, const T* x_gates, const T* h0, const T* c0, const T* w_hh,
                  T* out, T* h_n, T* c_n, T* ws) {
  at::parallel_for(0, p.batch, kRowsPerThread, [&](int64_t b0, int64_t b1) {
    forward_rows<T>(p, reverse, b0, b1, x_gates, h0, c0, w_hh, out, h_n, c_n, ws);
  });
}

// The backward through time for batch rows [b0, b1): the gate gradients of
// every step, grad_h0 and grad_c0 of these rows. Row-independent like the
// forward, so again one thread per slice of the batch.
template <class T>
void backward_rows(const LstmSequencePlan& p, bool reverse, int64_t b0, int64_t b1, const T* grad_out,
                   const T* grad_hn, const T* grad_cn, const T* c0, const T* w_hh, const T* ws, T* grad_gates,
                   T* grad_h0, T* grad_c0) {
  const int64_t B = p.batch, H = p.hidden, G = 4 * H, W = kLstmWorkspaceBlocks * H, T_ = p.steps, rows = b1 - b0;
  const int64_t n = rows * H;
  std::vector<T> dh((size_t)n);
  // dc flowing back into the step being processed; starts as grad_cn.
  T* dc = grad_c0 + b0 * H;
  if (grad_cn) std::copy(grad_cn + b0 * H, grad_cn + b0 * H + n, dc);
  else std::fill(dc, dc + n, T(0));
  // The recurrence ran s = 0..T-1; its backward runs s = T-1..0.
  for (int64_t s = T_ - 1; s >= 0; --s) {
    const int64_t t = time_of(s, T_, reverse);
    // dh = grad_output[t] (+ grad_hn for the last step run) + dG[later step] W_hh.
    if (grad_out) std::copy(grad_out + (t * B + b0) * H, grad_out + (t * B + b0) * H + n, dh.begin());
    else std::fill(dh.begin(), dh.end(), T(0));
    if (s == T_ - 1) {
      if (grad_hn)
        for (int64_t k = 0; k < n; ++k) dh[k] += grad_hn[b0 * H + k];
    } else {
      const int64_t t_later = time_of(s + 1, T_, reverse);
      cpu_gemm::gemm<T>(false, false, rows, H, G, T(1), grad_gates + (t_later * B + b0) * G, G, w_hh, H, T(1),
                        dh.data(), H);
    }
    const T* ws_t = ws + (t * B + b0) * W;
    const T* c_prev = s == 0 ? c0 + b0 * H : ws + (time_of(s - 1, T_, reverse) * B + b0) * W + 4 * H;
    const int64_t c_prev_ld = s == 0 ? H : W;
    T* dg_t = grad_gates + (t * B + b0) * G;
    for (int64_t r = 0; r < rows; ++r) {
      const T* w = ws_t + r * W;
      T* d = dg_t + r * G;
      backward_row<T>(dh.data() + r * H, dc + r * H, w, w + H, w + 2 * H, w + 3 * H, w + 5 * H,
                      c_prev + r * c_prev_ld, d, d + H, d + 2 * H, d + 3 * H, H);
    }
  }
  // The first step run read h0: grad_h0 = dG[first] W_hh (grad_hn alone when T = 0).
  T* gh0 = grad_h0 + b0 * H;
  if (T_ == 0) {
    if (grad_hn) std::copy(grad_hn + b0 * H, grad_hn + b0 * H + n, gh0);
    else std::fill(gh0, gh0 + n, T(0));
    return;
  }
  const int64_t t_first = time_of(0, T_, reverse);
  cpu_gemm::gemm<T>(false, false, rows, H, G, T(1), grad_gates + (t_first * B + b0) * G, G, w_hh, H, T(0), gh0, H);
}

template <class T>
void backward_loop(const LstmSequencePlan& p, bool reverse, const T* grad_out, const T* grad_hn, const T* grad_cn,
                   const T* h0, const T* c0, const T* w_hh, const T* out, const T* ws, T* grad_gates, T* grad_h0,
                   T* grad_c0, T* grad_w_hh) {
  const int64_t B = p.batch, H = p.hidden, G = 4 * H, T_ = p.steps;
  at::parallel_for(0, B, kRowsPerThread, [&](int64_t b0, int64_t b1) {
    backward_rows<T>(p, reverse, b0, b1, grad_out, grad_hn, grad_cn, c0, w_hh, ws, grad_gates, grad_h0, grad_c0);
  });
  if (T_ == 0) {
    std::fill(grad_w_hh, grad_w_hh + G * H, T(0));
    return;
  }
  // grad_w_hh = dG[first]^T h0 + sum over the other steps of dG[t]^T h_prev[t],
  // where h_prev[t] is out[t - 1] (forward) or out[t + 1] (reverse): both are
  // contiguous runs of T - 1 steps, so one GEMM covers them.
  const int64_t t_first = time_of(0, T_, reverse);
  cpu_gemm::gemm<T>(true, false, G, H, B, T(1), grad_gates + t_first * B * G, G, h0, H, T(0), grad_w_hh, H);
  if (T_ > 1) {
    const int64_t rows = (T_ - 1) * B;
    const T* dg_rest = reverse ? grad_gates : grad_gates + B * G;
    const T* h_rest = reverse ? out + B * H : out;
    cpu_gemm::gemm<T>(true, false, G, H, rows, T(1), dg_rest, G, h_rest, H, T(1), grad_w_hh, H);
  }
}

ScalarType opmath_type(ScalarType t) { return is_half_kind(t) ? ScalarType::Float : t; }

// The loops run in float or double (BLAS types); half types arrive converted.
template <class F>
void with_float_or_double(ScalarType t, const char* op, const F& f) {
  if (t == ScalarType::Float) f(float(0));
  else if (t == ScalarType::Double) f(double(0));
  else TL_CHECK(false, op, ": expected a floating point dtype, got ", c10::toString(t));
}

}  // namespace

std::vector<TensorBase> lstm_fused_sequence_cpu(const TensorBase& x_gates,
                                                                                   const TensorBase& h0,
                                                                                   const TensorBase& c0,
                                                                                   const TensorBase& w_hh,
                                                                                   bool reverse) {
  LstmSequencePlan p = lstm_fused_sequence_plan("_lstm_fused_sequence", x_gates, h0, c0, w_hh);
  const ScalarType st = x_gates.scalar_type(), ct = opmath_type(st);
  TensorBase xg = dense(x_gates, ct), h = dense(h0, ct), c = dense(c0, ct), w = dense(w_hh, ct);
  const TensorOptions opts = x_gates.options().with_dtype(ct);
  TensorBase out = make_empty({p.steps, p.batch, p.hidden}, opts);
  TensorBase h_n = make_empty({p.batch, p.hidden}, opts);
  TensorBase c_n = make_empty({p.batch, p.hidden}, opts);
  TensorBase ws = make_empty({p.steps, p.batch, kLstmWorkspaceBlocks * p.hidden}, opts);
  with_float_or_double(ct, "_lstm_fused_sequence", [&](auto zero) {
    using scalar_t = decltype(zero);
    forward_loop<scalar_t>(p, reverse, xg.data_ptr<scalar_t>(), h.data_ptr<scalar_t>(), c.data_ptr<scalar_t>(),
                           w.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), h_n.data_ptr<scalar_t>(),
                           c_n.data_ptr<scalar_t>(), ws.data_ptr<scalar_t>());
  });
  if (ct != st) {
    out = at::_ops::_to_copy(out, st);
    h_n = at::_ops::_to_copy(h_n, st);
    c_n = at::_ops::_to_copy(c_n, st);
  }
  return {out, h_n, c_n, ws};
}

std::vector<TensorBase> lstm_fused_sequence_backward_cpu(
    const std::optional<TensorBase>& grad_output, const std::optional<TensorBase>& grad_hn,
    const std::optional<TensorBase>& grad_cn, const TensorBase& h0, const TensorBase& c0, const TensorBase& w_hh,
    const TensorBase& output, const TensorBase& workspace, bool reverse) {
  auto given = [](const std::optional<TensorBase>& g) -> const TensorBase* {
    return g.has_value() && g->defined() ? &*g : nullptr;
  };
  const TensorBase *go = given(grad_output), *ghn = given(grad_hn), *gcn = given(grad_cn);
  LstmSequencePlan p = lstm_fused_backward_plan(go, ghn, gcn, h0, c0, w_hh, output, workspace);
  const ScalarType st = h0.scalar_type(), ct = opmath_type(st);
  TensorBase h = dense(h0, ct), c = dense(c0, ct), w = dense(w_hh, ct), out = dense(output, ct),
             ws = dense(workspace, ct);
  TensorBase g_out = go ? dense(*go, ct) : TensorBase(), g_hn = ghn ? dense(*ghn, ct) : TensorBase(),
             g_cn = gcn ? dense(*gcn, ct) : TensorBase();
  const TensorOptions opts = h0.options().with_dtype(ct);
  TensorBase grad_gates = make_empty({p.steps, p.batch, 4 * p.hidden}, opts);
  TensorBase grad_h0 = make_empty({p.batch, p.hidden}, opts);
  TensorBase grad_c0 = make_empty({p.batch, p.hidden}, opts);
  TensorBase grad_w_hh = make_empty({4 * p.hidden, p.hidden}, opts);
  with_float_or_double(ct, "_lstm_fused_sequence_backward", [&](auto zero) {
    using scalar_t = decltype(zero);
    auto ptr = [](const TensorBase& t) -> const scalar_t* { return t.defined() ? t.data_ptr<scalar_t>() : nullptr; };
    backward_loop<scalar_t>(p, reverse, ptr(g_out), ptr(g_hn), ptr(g_cn), h.data_ptr<scalar_t>(),
                            c.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                            ws.data_ptr<scalar_t>(), grad_gates.data_ptr<scalar_t>(), grad_h0.data_ptr<scalar_t>(),
                            grad_c0.data_ptr<scalar_t>(), grad_w_hh.data_ptr<scalar_t>());
  });
  if (ct != st) {
    grad_gates = at::_ops::_to_copy(grad_gates, st);
    grad_h0 = at::_ops::_to_copy(grad_h0, st);
    grad_c0 = at::_ops::_to_copy(grad_c0, st);
    grad_w_hh = at::_ops::_to_copy(grad_w_hh, st);
  }
  return {grad_gates, grad_h0, grad_c0, grad_w_hh};
}

}  // namespace at::native
