// ctc_loss forward (alpha recursion) and backward (beta recursion and the
// per-class posterior sums) on CPU, one batch entry per task. Everything is
// computed in log space in the op-math type, so float16/bfloat16 inputs keep
// float32 precision in the recursions.
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "../CtcLoss.h"
#include "aten/Parallel.h"
#include "c10/Exception.h"
#include "ops/_to_copy.h"
#include "ops/contiguous.h"

namespace at::native {
namespace {

// log_probs as a kernel reads them: contiguous (T, N, C).
template <class scalar_t>
struct LogProbs {
  const scalar_t* data;
  int64_t N, C;
  using acc_t = c10::opmath_t<scalar_t>;
  acc_t operator()(int64_t t, int64_t n, int64_t c) const {
    return static_cast<acc_t>(data[(t * N + n) * C + c]);
  }
};

template <class target_t>
void check_labels(const CtcPlan& p, const target_t* tgt, IntArrayRef target_lengths) {
  for (int64_t n = 0; n < p.batch; ++n) {
    const target_t* labels = tgt + p.target_offsets[n];
    for (int64_t i = 0; i < target_lengths[n]; ++i) {
      const int64_t l = static_cast<int64_t>(labels[i]);
      TL_CHECK(l >= 0 && l < p.classes, "ctc_loss: target label ", l, " is out of range for ", p.classes,
               " classes");
    }
  }
}

// Fills log_alpha[n] (T x states) for t < Tn and returns the negative log likelihood.
template <class scalar_t, class target_t>
c10::opmath_t<scalar_t> alpha_one(const LogProbs<scalar_t>& lp, const target_t* labels, int64_t n, int64_t Tn,
                                  int64_t L, int64_t blank, int64_t states, c10::opmath_t<scalar_t>* la) {
  using acc_t = c10::opmath_t<scalar_t>;
  const acc_t neg_inf = -std::numeric_limits<acc_t>::infinity();
  const int64_t S = 2 * L + 1;
  if (Tn == 0) return L == 0 ? acc_t(0) : std::numeric_limits<acc_t>::infinity();
  la[0] = lp(0, n, blank);
  if (L > 0) la[1] = lp(0, n, ctc_state_label(labels, 1, blank));
  for (int64_t t = 1; t < Tn; ++t) {
    const acc_t* prev = la + (t - 1) * states;
    acc_t* cur = la + t * states;
    for (int64_t s = 0; s < S; ++s) {
      const int64_t c = ctc_state_label(labels, s, blank);
      const acc_t a1 = s > 0 ? prev[s - 1] : neg_inf;
      const acc_t a2 = (s > 1 && c != blank && c != ctc_state_label(labels, s - 2, blank)) ? prev[s - 2] : neg_inf;
      const acc_t a = ctc_log_add3(prev[s], a1, a2);
      cur[s] = a == neg_inf ? neg_inf : a + lp(t, n, c);
    }
  }
  const acc_t* last = la + (Tn - 1) * states;
  const acc_t total = S > 1 ? ctc_log_add(last[S - 1], last[S - 2]) : last[S - 1];
  return -total;
}

template <class scalar_t, class target_t>
void forward_loop(const CtcPlan& p, const scalar_t* x, const target_t* tgt, IntArrayRef input_lengths,
                  IntArrayRef target_lengths, int64_t blank, scalar_t* nll, c10::opmath_t<scalar_t>* log_alpha) {
  using acc_t = c10::opmath_t<scalar_t>;
  const LogProbs<scalar_t> lp{x, p.batch, p.classes};
  const int64_t states = 2 * p.max_target + 1;
  at::parallel_for(0, p.batch, 1, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      acc_t* la = log_alpha + n * p.max_time * states;
      std::fill(la, la + p.max_time * states, -std::numeric_limits<acc_t>::infinity());
      nll[n] = static_cast<scalar_t>(alpha_one(lp, tgt + p.target_offsets[n], n, input_lengths[n],
                                               target_lengths[n], blank, states, la));
    }
  });
}

// d nll / d log_probs[t, n, c] = -sum over states s emitting c of
// exp(log_alpha[t][s] + log_beta[t][s] - log_probs[t, n, c] + nll): the
// posterior of c at t (beta includes frame t's emission, as alpha does).
template <class scalar_t, class target_t>
void backward_loop(const CtcPlan& p, const scalar_t* x, const target_t* tgt, IntArrayRef input_lengths,
                   IntArrayRef target_lengths, int64_t blank, const scalar_t* grad, const scalar_t* nll,
                   const c10::opmath_t<scalar_t>* log_alpha, bool zero_infinity, scalar_t* out) {
  using acc_t = c10::opmath_t<scalar_t>;
  const acc_t neg_inf = -std::numeric_limits<acc_t>::infinity();
  const LogProbs<scalar_t> lp{x, p.batch, p.classes};
  const int64_t states = 2 * p.max_target + 1;
  at::parallel_for(0, p.batch, 1, [&](int64_t b, int64_t e) {
    std::vector<acc_t> lb, lcab;
    for (int64_t n = b; n < e; ++n) {
      const int64_t Tn = input_lengths[n], L = target_lengths[n], S = 2 * L + 1;
      const target_t* labels = tgt + p.target_offsets[n];
      const acc_t loss = static_cast<acc_t>(nll[n]);
      const acc_t g = static_cast<acc_t>(grad[n]);
      const bool zero = zero_infinity && std::isinf(loss);
      for (int64_t t = 0; t < p.max_time; ++t)
        for (int64_t c = 0; c < p.classes; ++c) out[(t * p.batch + n) * p.classes + c] = scalar_t(0);
      if (Tn == 0 || zero) continue;
      lb.assign(Tn * S, neg_inf);
      acc_t* last = lb.data() + (Tn - 1) * S;
      last[S - 1] = lp(Tn - 1, n, ctc_state_label(labels, S - 1, blank));
      if (S > 1) last[S - 2] = lp(Tn - 1, n, ctc_state_label(labels, S - 2, blank));
      for (int64_t t = Tn - 2; t >= 0; --t) {
        const acc_t* next = lb.data() + (t + 1) * S;
        acc_t* cur = lb.data() + t * S;
        for (int64_t s = 0; s < S; ++s) {
          const int64_t c = ctc_state_label(labels, s, blank);
          const acc_t b1 = s < S - 1 ? next[s + 1] : neg_inf;
          const acc_t b2 = (s < S - 2 && c != blank && c != ctc_state_label(labels, s + 2, blank)) ? next[s + 2] : neg_inf;
          const acc_t v = ctc_log_add3(next[s], b1, b2);
          cur[s] = v == neg_inf ? neg_inf : v + lp(t, n, c);
        }
      }
      const acc_t* la = log_alpha + n * p.max_time * states;
      lcab.assign(p.classes, neg_inf);
      for (int64_t t = 0; t < Tn; ++t) {
        std::fill(lcab.begin(), lcab.end(), neg_inf);
        for (int64_t s = 0; s < S; ++s) {
          const int64_t c = ctc_state_label(labels, s, blank);
          lcab[c] = ctc_log_add(lcab[c], la[t * states + s] + lb[t * S + s]);
        }
        for (int64_t c = 0; c < p.classes; ++c) {
          if (lcab[c] == neg_inf) continue;  // c is not in this target: its gradient is 0
          const acc_t post = std::exp(lcab[c] - lp(t, n, c) + loss);
          out[(t * p.batch + n) * p.classes + c] = static_cast<scalar_t>(-post * g);
        }
      }
    }
  });
}

template <class F>
void dispatch_targets(const TensorBase& t, const F& f) {
  if (t.scalar_type() == ScalarType::Long) f(t.data_ptr<int64_t>());
  else f(t.data_ptr<int32_t>());
}

ScalarType alpha_dtype(ScalarType t) {
  return (t == ScalarType::Half || t == ScalarType::BFloat16) ? ScalarType::Float : t;
}

}  // namespace

std::tuple<TensorBase, TensorBase> ctc_loss_cpu(const TensorBase& log_probs, const TensorBase& targets,
                                                IntArrayRef input_lengths, IntArrayRef target_lengths, int64_t blank,
                                                bool /*zero_infinity*/) {
  CtcPlan p = ctc_loss_plan(log_probs, targets, input_lengths, target_lengths, blank);
  TensorBase x = at::_ops::contiguous(log_probs, MemoryFormat::Contiguous);
  TensorBase t = at::_ops::contiguous(targets, MemoryFormat::Contiguous);
  dispatch_targets(t, [&](auto* tgt) { check_labels(p, tgt, target_lengths); });
  TensorBase nll = make_empty({p.batch}, log_probs.options());
  TensorBase log_alpha = make_empty({p.batch, p.max_time, 2 * p.max_target + 1},
                                    log_probs.options().with_dtype(alpha_dtype(log_probs.scalar_type())));
  TL_DISPATCH_FLOATING_TYPES(log_probs.scalar_type(), "ctc_loss", [&] {
    dispatch_targets(t, [&](auto* tgt) {
      forward_loop<scalar_t>(p, x.data_ptr<scalar_t>(), tgt, input_lengths, target_lengths, blank,
                             nll.data_ptr<scalar_t>(), log_alpha.data_ptr<c10::opmath_t<scalar_t>>());
    });
  });
  return {nll, log_alpha};
}

TensorBase ctc_loss_backward_cpu(const TensorBase& grad, const TensorBase& log_probs, const TensorBase& targets,
                                 IntArrayRef input_lengths, IntArrayRef target_lengths,
                                 const TensorBase& neg_log_likelihood, const TensorBase& log_alpha, int64_t blank,
                                 bool zero_infinity) {
  CtcPlan p = ctc_loss_plan(log_probs, targets, input_lengths, target_lengths, blank);
  TL_CHECK(grad.numel() == p.batch && neg_log_likelihood.numel() == p.batch,
           "_ctc_loss_backward: expected a gradient and a loss per batch entry (", p.batch, ")");
  TL_CHECK(log_alpha.dim() == 3 && log_alpha.size(0) == p.batch && log_alpha.size(1) == p.max_time &&
               log_alpha.size(2) == 2 * p.max_target + 1 &&
               log_alpha.scalar_type() == alpha_dtype(log_probs.scalar_type()),
           "_ctc_loss_backward: log_alpha does not come from this forward");
  TensorBase x = at::_ops::contiguous(log_probs, MemoryFormat::Contiguous);
  TensorBase t = at::_ops::contiguous(targets, MemoryFormat::Contiguous);
  TensorBase g = at::_ops::contiguous(grad.scalar_type() == log_probs.scalar_type() ? grad : at::_ops::_to_copy(grad, log_probs.scalar_type()),
                                      MemoryFormat::Contiguous);
  TensorBase l = at::_ops::contiguous(neg_log_likelihood, MemoryFormat::Contiguous);
  TensorBase la = at::_ops::contiguous(log_alpha, MemoryFormat::Contiguous);
  TensorBase out = make_empty(log_probs.sizes(), log_probs.options());
  TL_DISPATCH_FLOATING_TYPES(log_probs.scalar_type(), "ctc_loss_backward", [&] {
    dispatch_targets(t, [&](auto* tgt) {
      backward_loop<scalar_t>(p, x.data_ptr<scalar_t>(), tgt, input_lengths, target_lengths, blank,
                              g.data_ptr<scalar_t>(), l.data_ptr<scalar_t>(),
                              la.data_ptr<c10::opmath_t<scalar_t>>(), zero_infinity, out.data_ptr<scalar_t>());
    });
  });
  return out;
}

}  // namespace at::native
