// scaled_dot_product_attention's fused CPU forward (_sdpa_fused): for each
// batch entry and block of query rows, walk the keys in blocks, keeping a
// running max, a running sum of exponentials and an output accumulator per
// row (the online softmax of flash attention). The (L, S) score matrix is
// never formed, a causal mask skips the key blocks wholly above the diagonal,
// and all arithmetic is in opmath (float for float16/bfloat16).
//
// The two small products per block are written as rank-1 updates whose inner
// loop runs over contiguous memory (scores over a transposed key block,
// outputs over a value row), which the compiler vectorises; each thread owns
// whole (batch, query block) tasks, so no BLAS threading is nested inside ours.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "../Math.h"
#include "../NnNorm.h"
#include "aten/Parallel.h"
#include "ops/_sdpa_fused.h"
#include "ops/contiguous.h"

namespace at::native {

namespace {

// 64 query rows per task: each transposed key block is reused by twice as
// many rows as with 32, halving the transposition's share of the work.
constexpr int64_t kQBlock = 64, kKBlock = 64;

template <class A>
inline A exp_a(A x) {
  if constexpr (std::is_same<A, float>::value) return tl_math::exp(x);
  else return std::exp(x);
}

// acc[0:W] += sum_j p[j] * v[j, 0:W] with the accumulator in a local array
// (kept in vector registers) for the common head size W.
template <class A, int W>
inline void accumulate_rows(A* acc, const A* p, const A* v, int64_t rows) {
  A a[W];
  for (int e = 0; e < W; ++e) a[e] = acc[e];
  for (int64_t j = 0; j < rows; ++j) {
    const A pj = p[j];
    const A* vr = v + j * W;
#pragma omp simd
    for (int e = 0; e < W; ++e) a[e] += pj * vr[e];
  }
  for (int e = 0; e < W; ++e) acc[e] = a[e];
}

template <class T>
void sdpa_kernel(const TensorBase& q, const TensorBase& k, const TensorBase& v, const TensorBase& mask,
                 bool is_causal, double scale_d, const TensorBase& out) {
  using A = c10::opmath_t<T>;
  const int64_t N = q.sizes()[0], L = q.sizes()[1], E = q.sizes()[2], S = k.sizes()[1], Ev = v.sizes()[2];
  const T* qp = q.data_ptr<T>();
  const T* kp = k.data_ptr<T>();
  const T* vp = v.data_ptr<T>();
  T* op = out.data_ptr<T>();
  const bool has_mask = mask.defined(), bool_mask = has_mask && mask.scalar_type() == ScalarType::Bool;
  const int64_t ms0 = has_mask ? mask.strides()[0] : 0, ms1 = has_mask ? mask.strides()[1] : 0,
                ms2 = has_mask ? mask.strides()[2] : 0;
  const bool* mbp = bool_mask ? mask.data_ptr<bool>() : nullptr;
  const T* mfp = has_mask && !bool_mask ? mask.data_ptr<T>() : nullptr;
  const A scale = static_cast<A>(scale_d), ninf = -std::numeric_limits<A>::infinity();
  const int64_t nqb = (L + kQBlock - 1) / kQBlock;

  parallel_for(0, N * nqb, 1, [&](int64_t tb, int64_t te) {
    std::vector<A> qbuf(kQBlock * E), kt(E * kKBlock), vbuf(kKBlock * Ev), sc(kQBlock * kKBlock);
    std::vector<A> acc(kQBlock * Ev), mrow(kQBlock), lrow(kQBlock);
    for (int64_t task = tb; task < te; ++task) {
      const int64_t n = task / nqb, i0 = (task % nqb) * kQBlock, bq = std::min(kQBlock, L - i0);
      // The query block, pre-multiplied by the scale.
      for (int64_t i = 0; i < bq; ++i)
        for (int64_t e = 0; e < E; ++e) qbuf[i * E + e] = static_cast<A>(qp[(n * L + i0 + i) * E + e]) * scale;
      std::fill(acc.begin(), acc.end(), A(0));
      std::fill(mrow.begin(), mrow.end(), ninf);
      std::fill(lrow.begin(), lrow.end(), A(0));
      // Causal (top-left aligned, as PyTorch): query i sees keys j <= i.
      const int64_t s_end = is_causal ? std::min(S, i0 + bq) : S;
      for (int64_t j0 = 0; j0 < s_end; j0 += kKBlock) {
        const int64_t bk = std::min(kKBlock, s_end - j0);
        // Key block transposed (E x bk) so a score row is an axpy over keys.
        for (int64_t j = 0; j < bk; ++j)
          for (int64_t e = 0; e < E; ++e) kt[e * kKBlock + j] = static_cast<A>(kp[(n * S + j0 + j) * E + e]);
        // Values are read in place when already in opmath (float, double).
        const A* vblk;
        if constexpr (std::is_same<T, A>::value) {
          vblk = vp + (n * S + j0) * Ev;
        } else {
          for (int64_t j = 0; j < bk; ++j)
            for (int64_t e = 0; e < Ev; ++e) vbuf[j * Ev + e] = static_cast<A>(vp[(n * S + j0 + j) * Ev + e]);
          vblk = vbuf.data();
        }
        for (int64_t i = 0; i < bq; ++i) {
          // Scores accumulate in a local fixed-size array: no aliasing with
          // the key buffer, so the compiler keeps the row in vector registers
          // across the whole E loop instead of reloading and storing it.
          A srow[kKBlock];
          for (int64_t j = 0; j < kKBlock; ++j) srow[j] = 0;
          const A* qi = qbuf.data() + i * E;
          for (int64_t e = 0; e < E; ++e) {
            const A qv = qi[e];
            const A* kr = kt.data() + e * kKBlock;
#pragma omp simd
            for (int64_t j = 0; j < kKBlock; ++j) srow[j] += qv * kr[j];
          }
          A* s = sc.data() + i * kKBlock;
          for (int64_t j = 0; j < kKBlock; ++j) s[j] = srow[j];
          const int64_t qi_abs = i0 + i;
          if (has_mask) {
            const int64_t mo = n * ms0 + qi_abs * ms1;
            if (bool_mask) {
              for (int64_t j = 0; j < bk; ++j)
                if (!mbp[mo + (j0 + j) * ms2]) s[j] = ninf;
            } else {
              for (int64_t j = 0; j < bk; ++j) s[j] += static_cast<A>(mfp[mo + (j0 + j) * ms2]);
            }
          }
          int64_t valid = bk;
          if (is_causal) valid = std::max<int64_t>(0, std::min(bk, qi_abs - j0 + 1));
          A bmax = ninf;
          for (int64_t j = 0; j < valid; ++j) bmax = s[j] > bmax ? s[j] : bmax;
          if (bmax == ninf) continue;  // every key of this block masked for this row
          const A mnew = std::max(mrow[i], bmax);
          const A corr = exp_a<A>(mrow[i] - mnew);  // 0 on the first block (mrow = -inf)
          A sum = 0;
#pragma omp simd reduction(+ : sum)
          for (int64_t j = 0; j < valid; ++j) {
            const A p = exp_a<A>(s[j] - mnew);
            s[j] = p;
            sum += p;
          }
          lrow[i] = lrow[i] * corr + sum;
          mrow[i] = mnew;
          A* ai = acc.data() + i * Ev;
          if (corr != A(1)) {
#pragma omp simd
            for (int64_t e = 0; e < Ev; ++e) ai[e] *= corr;
          }
          if (Ev == 64) {
            accumulate_rows<A, 64>(ai, s, vblk, valid);
          } else {
            for (int64_t j = 0; j < valid; ++j) {
              const A p = s[j];
              const A* vr = vblk + j * Ev;
#pragma omp simd
              for (int64_t e = 0; e < Ev; ++e) ai[e] += p * vr[e];
            }
          }
        }
      }
      // A row whose keys were all masked has l = 0: 0/0 gives NaN, as the
      // softmax of an all -inf row does in PyTorch's math path.
      for (int64_t i = 0; i < bq; ++i) {
        const A inv = lrow[i] == A(0) ? std::numeric_limits<A>::quiet_NaN() : A(1) / lrow[i];
        T* o = op + (n * L + i0 + i) * Ev;
        for (int64_t e = 0; e < Ev; ++e) o[e] = static_cast<T>(acc[i * Ev + e] * inv);
      }
    }
  });
}

}  // namespace

TensorBase sdpa_fused_cpu(const TensorBase& query, const TensorBase& key, const TensorBase& value,
                          const std::optional<TensorBase>& attn_mask, bool is_causal, double scale) {
  sdpa_check(query, key, value, attn_mask);
  TensorBase q = at::_ops::contiguous(query), k = at::_ops::contiguous(key), v = at::_ops::contiguous(value);
  TensorBase mask = attn_mask && attn_mask->defined() ? *attn_mask : TensorBase();
  int64_t sz[3] = {q.sizes()[0], q.sizes()[1], v.sizes()[2]};
  TensorBase out = make_empty(IntArrayRef(sz, 3), q.options());
  if (out.numel() == 0) return out;
  if (k.sizes()[1] == 0) {
    // No keys: softmax over an empty row, NaN (as PyTorch's math path).
    TL_DISPATCH_FLOATING_TYPES(q.scalar_type(), "_sdpa_fused", [&] {
      scalar_t* p = out.data_ptr<scalar_t>();
      for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<scalar_t>(std::numeric_limits<float>::quiet_NaN());
    });
    return out;
  }
  switch (q.scalar_type()) {
    case ScalarType::Float: sdpa_kernel<float>(q, k, v, mask, is_causal, scale, out); break;
    case ScalarType::Double: sdpa_kernel<double>(q, k, v, mask, is_causal, scale, out); break;
    case ScalarType::Half: sdpa_kernel<c10::Half>(q, k, v, mask, is_causal, scale, out); break;
    case ScalarType::BFloat16: sdpa_kernel<c10::BFloat16>(q, k, v, mask, is_causal, scale, out); break;
    default: TL_CHECK(false, "_sdpa_fused: unsupported dtype ", q.scalar_type());
  }
  return out;
}

}  // namespace at::native
