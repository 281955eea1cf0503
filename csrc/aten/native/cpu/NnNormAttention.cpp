// scaled_dot_product_attention's fused CPU forward (_sdpa_fused): for each
// batch entry and block of query rows, walk the keys in blocks, keeping a
// running max, a running sum of exponentials and an output accumulator per
// row (the online softmax of flash attention). The (L, S) score matrix is
// never formed, a causal mask skips the key blocks wholly above the diagonal,
// and all arithmetic is in opmath (float for float16/bfloat16).
//
// The two small products per block (scores = Q K^T over a transposed key
// block, output += P V) run as register-tiled row-major products: 6 query
// rows at a time, whose causal key limit also bounds the columns computed on
// the diagonal block. Each thread owns whole (batch, query block) tasks, so no
// BLAS threading is nested inside ours.
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

// Columns per register tile: two 32-byte vectors of A (16 floats, 8 doubles).
template <class A>
constexpr int kTileCols = static_cast<int>(64 / sizeof(A));

// c[r, 0:NR] (=|+=) sum_k a[r, k] * b[k, 0:NR] for r < R: an R x NR tile of a
// small row-major product. The tile's accumulators live in a fixed-size local
// array that the compiler keeps in vector registers (R * NR / 8 of them for
// float), so each k step costs two vector loads of b, R broadcasts of a and
// R * 2 fused multiply-adds; streaming one output row at a time instead costs
// as many loads as multiply-adds and is load-bound.
template <class A, int R, int NR>
inline void tile_product(const A* a, int64_t lda, const A* b, int64_t ldb, int64_t K, A* c, int64_t ldc,
                         bool accumulate) {
  A acc[R][NR];
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NR; ++t) acc[r][t] = accumulate ? c[r * ldc + t] : A(0);
  for (int64_t k = 0; k < K; ++k) {
    const A* bk = b + k * ldb;
    for (int r = 0; r < R; ++r) {
      const A ar = a[r * lda + k];
#pragma omp simd
      for (int t = 0; t < NR; ++t) acc[r][t] += ar * bk[t];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < NR; ++t) c[r * ldc + t] = acc[r][t];
}

// The same product for R rows and any column count N: full tiles, then the
// leftover columns (N % NR) one at a time.
template <class A, int R>
inline void rows_product(const A* a, int64_t lda, const A* b, int64_t ldb, int64_t K, A* c, int64_t ldc, int64_t N,
                         bool accumulate) {
  constexpr int NR = kTileCols<A>;
  int64_t j = 0;
  for (; j + NR <= N; j += NR) tile_product<A, R, NR>(a, lda, b + j, ldb, K, c + j, ldc, accumulate);
  for (; j < N; ++j)
    for (int r = 0; r < R; ++r) {
      A sum = accumulate ? c[r * ldc + j] : A(0);
      for (int64_t k = 0; k < K; ++k) sum += a[r * lda + k] * b[k * ldb + j];
      c[r * ldc + j] = sum;
    }
}

// Rows per register tile: 6 rows x 2 vectors = 12 accumulators, which with
// the two b vectors and a broadcast fills the 16 AVX registers.
constexpr int kTileRows = 6;

template <class A>
inline void group_product(int rows, const A* a, int64_t lda, const A* b, int64_t ldb, int64_t K, A* c, int64_t ldc,
                          int64_t N, bool accumulate) {
  switch (rows) {
    case 6: rows_product<A, 6>(a, lda, b, ldb, K, c, ldc, N, accumulate); break;
    case 5: rows_product<A, 5>(a, lda, b, ldb, K, c, ldc, N, accumulate); break;
    case 4: rows_product<A, 4>(a, lda, b, ldb, K, c, ldc, N, accumulate); break;
    case 3: rows_product<A, 3>(a, lda, b, ldb, K, c, ldc, N, accumulate); break;
    case 2: rows_product<A, 2>(a, lda, b, ldb, K, c, ldc, N, accumulate); break;
    default: rows_product<A, 1>(a, lda, b, ldb, K, c, ldc, N, accumulate); break;
  }
}

template <class T>
void sdpa_kernel(const TensorBase& q, const TensorBase& k, const TensorBase& v, const TensorBase& mask,
                 bool is_causal, double scale_d, const TensorBase& out) {
  using A = c10::opmath_t<T>;
  constexpr int64_t NR = kTileCols<A>;
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
  // Causal (top-left aligned, as PyTorch): query i sees keys j <= i, so in
  // the key block starting at j0 it sees the first valid_keys(i, j0) keys.
  auto valid_keys = [&](int64_t qi_abs, int64_t j0, int64_t bk) -> int64_t {
    return is_causal ? std::max<int64_t>(0, std::min(bk, qi_abs - j0 + 1)) : bk;
  };

  parallel_for(0, N * nqb, 1, [&](int64_t tb, int64_t te) {
    std::vector<A> qbuf(kQBlock * E), kt(E * kKBlock, A(0)), vbuf(kKBlock * Ev), sc(kQBlock * kKBlock);
    std::vector<A> acc(kQBlock * Ev), mrow(kQBlock), lrow(kQBlock);
    for (int64_t task = tb; task < te; ++task) {
      const int64_t n = task / nqb, i0 = (task % nqb) * kQBlock, bq = std::min(kQBlock, L - i0);
      // The query block, pre-multiplied by the scale.
      for (int64_t i = 0; i < bq; ++i)
        for (int64_t e = 0; e < E; ++e) qbuf[i * E + e] = static_cast<A>(qp[(n * L + i0 + i) * E + e]) * scale;
      std::fill(acc.begin(), acc.end(), A(0));
      std::fill(mrow.begin(), mrow.end(), ninf);
      std::fill(lrow.begin(), lrow.end(), A(0));
      // Key blocks wholly above the diagonal are skipped.
      const int64_t s_end = is_causal ? std::min(S, i0 + bq) : S;
      for (int64_t j0 = 0; j0 < s_end; j0 += kKBlock) {
        const int64_t bk = std::min(kKBlock, s_end - j0);
        // Key block transposed (E x kKBlock) so scores are a row-major
        // product; columns past bk stay zero from earlier (or initial) fills.
        if (bk < kKBlock)
          for (int64_t e = 0; e < E; ++e) std::fill(kt.begin() + e * kKBlock + bk, kt.begin() + (e + 1) * kKBlock, A(0));
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
        for (int64_t g0 = 0; g0 < bq; g0 += kTileRows) {
          const int rows = static_cast<int>(std::min<int64_t>(kTileRows, bq - g0));
          // Keys any row of this group sees (the group's last row sees the
          // most under a causal mask): scores past them are not computed.
          const int64_t gkeys = valid_keys(i0 + g0 + rows - 1, j0, bk);
          if (gkeys == 0) continue;
          const int64_t score_cols = std::min<int64_t>(kKBlock, (gkeys + NR - 1) / NR * NR);
          A* sg = sc.data() + g0 * kKBlock;
          group_product<A>(rows, qbuf.data() + g0 * E, E, kt.data(), kKBlock, E, sg, kKBlock, score_cols, false);
          for (int64_t i = g0; i < g0 + rows; ++i) {
            A* s = sc.data() + i * kKBlock;
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
            const int64_t valid = valid_keys(qi_abs, j0, bk);
            // Probabilities past this row's keys are 0 so the group's value
            // product (over gkeys keys) adds nothing for them.
            for (int64_t j = valid; j < gkeys; ++j) s[j] = 0;
            A bmax = ninf;
            for (int64_t j = 0; j < valid; ++j) bmax = s[j] > bmax ? s[j] : bmax;
            if (bmax == ninf) {  // every key of this block masked for this row
              for (int64_t j = 0; j < valid; ++j) s[j] = 0;
              continue;
            }
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
            if (corr != A(1)) {
              A* ai = acc.data() + i * Ev;
#pragma omp simd
              for (int64_t e = 0; e < Ev; ++e) ai[e] *= corr;
            }
          }
          group_product<A>(rows, sg, kKBlock, vblk, Ev, gkeys, acc.data() + g0 * Ev, Ev, Ev, true);
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
