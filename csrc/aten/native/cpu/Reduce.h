// The CPU reduction engine, written once and shared by every reduction op.
//
// A reduction is planned by splitting the input's dims into kept dims (outer,
// in output order) and reduced dims (inner, sorted so the smallest stride is
// innermost), dropping size-1 dims and coalescing neighbours that are
// contiguous with each other. The output is always a fresh contiguous tensor,
// so output index o maps to out_ptr + o. Three loop shapes follow:
//   (a) the innermost reduced dim is contiguous: each output folds contiguous
//       runs (Op::chunk with stride 1, which ops vectorise);
//   (b) the innermost kept dim is contiguous but the reduced dims are not
//       (e.g. x.sum(0)): fold whole rows into a block of W accumulators at a
//       time (Op::row), which vectorises across outputs;
//   (c) anything else: strided runs (Op::chunk with stride != 1).
// Runs and rows are folded through a small cascade (levels that fold into the
// next every kFold additions), so long float sums get pairwise-like error
// growth in every loop shape, not only in the contiguous one.
// Parallelism: over outputs (or row blocks) when there are enough of them,
// otherwise over the reduced range, each thread producing a partial
// accumulator per output that is combined in order afterwards (so
// first-index tie-breaking of argmax survives the split).
//
// An Op provides, for input element type T:
//   using acc_t;   acc_t identity() const;
//   void chunk(acc_t& a, const T* p, int64_t stride, int64_t n, int64_t idx0) const;
//   void row(acc_t* a, const T* p, int64_t w, int64_t idx) const;   // a[j] <- p[j]
//   void combine(acc_t& a, const acc_t& b) const;                    // a precedes b
//   static constexpr int64_t kRowBlock; static constexpr bool kCascade;
// idx0/idx are the linear index (row-major over the reduced dims) of the
// first element, used by argmax/argmin.
#pragma once
#include <algorithm>
#include <cmath>
#include <memory>
#include "../../Parallel.h"
#include "../../../c10/Tensor.h"
#include "../HalfConvert.h"

namespace at::native {

struct ReducePlan {
  int64_t num_outputs = 1, reduce_numel = 1;
  SmallVector<int64_t, 8> ksize, kstride;  // kept dims, slowest first (input strides, elements)
  SmallVector<int64_t, 8> rsize, rstride;  // reduced dims, slowest first
};

// sort_reduced=false keeps the reduced dims in row-major order, which the
// linear index passed to ops then follows (argmax over several dims).
inline ReducePlan make_reduce_plan(const TensorBase& in, uint64_t mask, bool sort_reduced = true) {
  ReducePlan P;
  IntArrayRef sizes = in.sizes(), strides = in.strides();
  for (int64_t d = 0; d < in.dim(); ++d) {
    bool red = mask & (1ull << d);
    if (red) P.reduce_numel *= sizes[d];
    else P.num_outputs *= sizes[d];
    if (sizes[d] == 1) continue;
    if (red) {
      P.rsize.push_back(sizes[d]);
      P.rstride.push_back(strides[d]);
    } else {
      P.ksize.push_back(sizes[d]);
      P.kstride.push_back(strides[d]);
    }
  }
  if (sort_reduced && P.rsize.size() > 1) {
    // insertion sort by |stride| descending (stable, tiny)
    for (size_t i = 1; i < P.rsize.size(); ++i)
      for (size_t j = i; j > 0 && std::llabs(P.rstride[j - 1]) < std::llabs(P.rstride[j]); --j) {
        std::swap(P.rstride[j - 1], P.rstride[j]);
        std::swap(P.rsize[j - 1], P.rsize[j]);
      }
  }
  auto coalesce = [](SmallVector<int64_t, 8>& sz, SmallVector<int64_t, 8>& st) {
    if (sz.size() < 2) return;
    SmallVector<int64_t, 8> nsz, nst;
    nsz.push_back(sz[0]);
    nst.push_back(st[0]);
    for (size_t i = 1; i < sz.size(); ++i) {
      if (nst.back() == st[i] * sz[i]) {
        nsz.back() *= sz[i];
        nst.back() = st[i];
      } else {
        nsz.push_back(sz[i]);
        nst.push_back(st[i]);
      }
    }
    sz = nsz;
    st = nst;
  };
  coalesce(P.ksize, P.kstride);  // the output is contiguous, so kept dims merge when the input's do
  coalesce(P.rsize, P.rstride);
  return P;
}

namespace detail {
constexpr int kLevels = 4;
constexpr int64_t kFold = 32;

// Folds a stream of partial accumulators with bounded error growth.
template <class Op>
struct Cascade {
  using acc_t = typename Op::acc_t;
  const Op& op;
  acc_t lv[kLevels];
  int64_t cnt[kLevels] = {0, 0, 0, 0};
  explicit Cascade(const Op& o) : op(o) {
    for (auto& a : lv) a = op.identity();
  }
  acc_t& front() { return lv[0]; }
  void bump() {
    for (int l = 0; l < kLevels - 1; ++l) {
      if (++cnt[l] < kFold) return;
      op.combine(lv[l + 1], lv[l]);
      lv[l] = op.identity();
      cnt[l] = 0;
    }
  }
  acc_t result() const {
    acc_t r = lv[kLevels - 1];
    for (int l = kLevels - 2; l >= 0; --l) op.combine(r, lv[l]);
    return r;
  }
};

// Fold reduced elements [rb, re) of one output whose input starts at base.
template <class T, class Op>
typename Op::acc_t reduce_runs(const ReducePlan& P, const Op& op, const T* base, int64_t rb, int64_t re) {
  using acc_t = typename Op::acc_t;
  const int nr = (int)P.rsize.size();
  if (nr == 0) {  // nothing to fold but the single element
    acc_t a = op.identity();
    if (rb < re) op.chunk(a, base, 1, 1, 0);
    return a;
  }
  const int64_t inner = P.rsize[nr - 1], istride = P.rstride[nr - 1];
  if (nr == 1) {  // one run: the op's own chunked/pairwise path
    acc_t a = op.identity();
    op.chunk(a, base + rb * istride, istride, re - rb, rb);
    return a;
  }
  int64_t idx[64];
  int64_t rem = rb;
  for (int d = nr - 1; d >= 0; --d) {
    idx[d] = rem % P.rsize[d];
    rem /= P.rsize[d];
  }
  Cascade<Op> c(op);
  int64_t pos = rb;
  while (pos < re) {
    int64_t off = 0;
    for (int d = 0; d < nr; ++d) off += idx[d] * P.rstride[d];
    int64_t n = std::min(inner - idx[nr - 1], re - pos);
    op.chunk(c.front(), base + off, istride, n, pos);
    c.bump();
    pos += n;
    idx[nr - 1] += n;
    for (int d = nr - 1; d > 0 && idx[d] >= P.rsize[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
    }
  }
  return c.result();
}

// Row path (b): outputs [j0, j0+w) of the contiguous innermost kept dim,
// reduced elements [rb, re). acc has w entries on return.
template <class T, class Op>
void reduce_rows(const ReducePlan& P, const Op& op, const T* base, int64_t w, int64_t rb, int64_t re,
                 typename Op::acc_t* out_acc) {
  using acc_t = typename Op::acc_t;
  constexpr int64_t W = Op::kRowBlock;
  acc_t lv[kLevels][W];
  int64_t cnt[kLevels] = {0, 0, 0, 0};
  for (int l = 0; l < kLevels; ++l)
    for (int64_t j = 0; j < w; ++j) lv[l][j] = op.identity();
  const int nr = (int)P.rsize.size();
  int64_t idx[64];
  int64_t rem = rb;
  for (int d = nr - 1; d >= 0; --d) {
    idx[d] = rem % P.rsize[d];
    rem /= P.rsize[d];
  }
  int64_t off = 0;
  for (int d = 0; d < nr; ++d) off += idx[d] * P.rstride[d];
  const int64_t istride = P.rstride[nr - 1], inner = P.rsize[nr - 1];
  for (int64_t pos = rb; pos < re; ++pos) {
    op.row(lv[0], base + off, w, pos);
    // Ops whose result does not depend on association (max, any, argmax)
    // skip the cascade: it only buys accuracy for sums.
    if constexpr (Op::kCascade) for (int l = 0; l < kLevels - 1; ++l) {
      if (++cnt[l] < kFold) break;
      for (int64_t j = 0; j < w; ++j) {
        op.combine(lv[l + 1][j], lv[l][j]);
        lv[l][j] = op.identity();
      }
      cnt[l] = 0;
    }
    // advance the reduced multi-index
    off += istride;
    if (++idx[nr - 1] >= inner) {
      int d = nr - 1;
      while (d > 0 && idx[d] >= P.rsize[d]) {
        idx[d] = 0;
        ++idx[d - 1];
        --d;
      }
      off = 0;
      for (int k = 0; k < nr; ++k) off += idx[k] * P.rstride[k];
    }
  }
  for (int64_t j = 0; j < w; ++j) {
    acc_t r = lv[kLevels - 1][j];
    for (int l = kLevels - 2; l >= 0; --l) op.combine(r, lv[l][j]);
    out_acc[j] = r;
  }
}

inline int64_t kept_offset(const ReducePlan& P, int64_t o, int skip_last) {
  int64_t off = 0;
  for (int d = (int)P.ksize.size() - 1 - skip_last; d >= 0; --d) {
    off += (o % P.ksize[d]) * P.kstride[d];
    o /= P.ksize[d];
  }
  return off;
}
}  // namespace detail

namespace detail {
// The per-range work of reduce_kernel, out of line. parallel_for inlines its
// body twice (serial fallback and OpenMP region), so bodies passed to it are
// one-line calls into these; otherwise every (dtype, op, writer) combination
// compiled each loop several times over.
template <class T, class Op, class Write>
struct ReduceDriver {
  using acc_t = typename Op::acc_t;
  static constexpr int64_t W = Op::kRowBlock;
  const ReducePlan& P;
  const T* in;
  const Op& op;
  const Write& write;
  bool rows;
  int64_t kin, nblk;

  // One task: a block of up to W rows-path outputs, or one output.
  void run_task(int64_t t, int64_t rb, int64_t re, acc_t* dst) const {
    if (rows) {
      int64_t ob = t / nblk, j0 = (t % nblk) * W, w = std::min(W, kin - j0);
      const T* base = in + kept_offset(P, ob, 1) + j0;
      reduce_rows(P, op, base, w, rb, re, dst);
    } else {
      dst[0] = reduce_runs(P, op, in + kept_offset(P, t, 0), rb, re);
    }
  }
  int64_t task_first_output(int64_t t) const { return rows ? (t / nblk) * kin + (t % nblk) * W : t; }
  int64_t task_width(int64_t t) const { return rows ? std::min(W, kin - (t % nblk) * W) : (int64_t)1; }

  // Whole tasks [b, e), written straight to the output.
  __attribute__((noinline)) void tasks(int64_t b, int64_t e) const {
    acc_t buf[W];
    for (int64_t t = b; t < e; ++t) {
      run_task(t, 0, P.reduce_numel, buf);
      int64_t o0 = task_first_output(t), w = task_width(t);
      for (int64_t j = 0; j < w; ++j) write(o0 + j, buf[j]);
    }
  }
  // Parts [pb, pe) of the reduced range split `parts` ways, every task each.
  __attribute__((noinline)) void partials(int64_t pb, int64_t pe, int64_t parts, int64_t ntasks, acc_t* partial) const {
    const int64_t nred = P.reduce_numel, nout = P.num_outputs;
    for (int64_t p = pb; p < pe; ++p) {
      int64_t rb = nred * p / parts, re = nred * (p + 1) / parts;
      for (int64_t t = 0; t < ntasks; ++t) run_task(t, rb, re, &partial[(size_t)(p * nout + task_first_output(t))]);
    }
  }
  __attribute__((noinline)) void empty(int64_t b, int64_t e) const {
    for (int64_t o = b; o < e; ++o) write(o, op.identity());
  }
};
}  // namespace detail

// Runs the reduction; write(o, acc) stores output o.
template <class T, class Op, class Write>
void reduce_kernel(const ReducePlan& P, const T* in, const Op& op, const Write& write) {
  using acc_t = typename Op::acc_t;
  const int64_t nout = P.num_outputs, nred = P.reduce_numel;
  if (nout == 0) return;
  constexpr int64_t W = Op::kRowBlock;
  const int nk = (int)P.ksize.size();
  const bool rows = nred != 0 && !P.rsize.empty() && P.rstride.back() != 1 && nk > 0 && P.kstride.back() == 1;
  const int64_t kin = rows ? P.ksize.back() : 1;
  const int64_t nblk = (kin + W - 1) / W;
  const detail::ReduceDriver<T, Op, Write> d{P, in, op, write, rows, kin, nblk};
  if (nred == 0) {
    parallel_for(0, nout, kGrainSize, [&](int64_t b, int64_t e) { d.empty(b, e); });
    return;
  }
  const int64_t outer = nout / kin;
  const int64_t tasks = rows ? outer * nblk : nout;
  const int nt = get_num_threads();
  const bool big = nout * nred > kGrainSize && !in_parallel_region();

  if (big && nt > 1 && tasks < 4 * nt && nred >= 4 * 4096) {
    // Few outputs, long reductions: split the reduced range across threads.
    int64_t parts = nt;
    // not std::vector: vector<bool> has no addressable elements
    std::unique_ptr<acc_t[]> partial(new acc_t[(size_t)(parts * nout)]);
    acc_t* pp = partial.get();
    parallel_for(0, parts, 1, [&](int64_t pb, int64_t pe) { d.partials(pb, pe, parts, tasks, pp); });
    for (int64_t o = 0; o < nout; ++o) {
      acc_t a = partial[(size_t)o];
      for (int64_t p = 1; p < parts; ++p) op.combine(a, partial[(size_t)(p * nout + o)]);
      write(o, a);
    }
    return;
  }
  int64_t per_task = std::max<int64_t>(1, nred * (rows ? W : 1));
  int64_t grain = big ? std::max<int64_t>(1, kGrainSize / per_task) : tasks;
  parallel_for(0, tasks, grain, [&](int64_t b, int64_t e) { d.tasks(b, e); });
}

// ---- building blocks ops share

// Sum of f(p[i*stride]) for i < n, pairwise over blocks of kBlock elements,
// each block folded into L independent lanes so the contiguous case vectorises.
// lane_sum and lane_fold are kept out of line: their unrolled/vectorised lane
// loops are most of an op's code, and inlined they were copied into every
// call site (each level of the pairwise recursion, each loop shape of
// reduce_runs), which made the reduction TUs the slowest files to compile.
// One call per block of up to 4096 elements (or per run) costs nothing.
template <class acc_t, class T, class F>
__attribute__((noinline)) acc_t lane_sum(const T* p, int64_t stride, int64_t n, const F& f);
template <class acc_t, class T, class F, class Map>
__attribute__((noinline)) acc_t lane_fold(const T* p, int64_t stride, int64_t n, acc_t init, const F& f, const Map& m);

// float16 -> float element by element does not vectorise (the subnormal
// branch of c10/Half.h's conversion), which made a float16 sum 4x slower than
// a bfloat16 one. A contiguous float16 run is widened a block at a time with
// the vector conversion instead, and the float lanes fold the block.
constexpr int64_t kWidenBlock = 1024;

template <class acc_t, class F>
acc_t lane_sum_widened(const c10::Half* p, int64_t n, const F& f) {
  float buf[kWidenBlock];
  acc_t total = acc_t(0);
  for (int64_t i = 0; i < n; i += kWidenBlock) {
    const int64_t m = std::min(kWidenBlock, n - i);
    half_convert::half_to_float_n(buf, p + i, m);
    total += lane_sum<acc_t>(static_cast<const float*>(buf), 1, m, f);
  }
  return total;
}

template <class acc_t, class T, class F>
__attribute__((noinline)) acc_t lane_sum(const T* p, int64_t stride, int64_t n, const F& f) {
  if constexpr (std::is_same_v<T, c10::Half>) {
    if (stride == 1) return lane_sum_widened<acc_t>(p, n, f);
  }
  constexpr int L = 512 / sizeof(acc_t);  // 8 vector registers of independent partial sums
  acc_t lanes[L];
  for (int j = 0; j < L; ++j) lanes[j] = acc_t(0);
  int64_t i = 0;
  if (stride == 1) {
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) lanes[j] += f(static_cast<acc_t>(p[i + j]));
  } else {
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) lanes[j] += f(static_cast<acc_t>(p[(i + j) * stride]));
  }
  for (int j = 0; i < n; ++i, ++j) lanes[j] += f(static_cast<acc_t>(p[i * stride]));
  for (int h = L / 2; h > 0; h /= 2)
    for (int j = 0; j < h; ++j) lanes[j] += lanes[j + h];
  return lanes[0];
}

template <class acc_t, class T, class F>
acc_t pairwise_sum(const T* p, int64_t stride, int64_t n, const F& f) {
  constexpr int64_t kBlock = 4096;
  if (n <= kBlock) return lane_sum<acc_t>(p, stride, n, f);
  int64_t h = (n / 2 + kBlock - 1) / kBlock * kBlock;
  return pairwise_sum<acc_t>(p, stride, h, f) + pairwise_sum<acc_t>(p + h * stride, stride, n - h, f);
}

// Fold n elements with a binary op in L lanes (prod, max, min, any, all).
template <class acc_t, class T, class F, class Map>
__attribute__((noinline)) acc_t lane_fold(const T* p, int64_t stride, int64_t n, acc_t init, const F& f, const Map& m) {
  if constexpr (std::is_same_v<T, c10::Half>) {
    if (stride == 1) {  // widened a block at a time, as in lane_sum
      float buf[kWidenBlock];
      acc_t r = init;
      for (int64_t i = 0; i < n; i += kWidenBlock) {
        const int64_t cnt = std::min(kWidenBlock, n - i);
        half_convert::half_to_float_n(buf, p + i, cnt);
        r = f(r, lane_fold<acc_t>(static_cast<const float*>(buf), 1, cnt, init, f, m));
      }
      return r;
    }
  }
  constexpr int L = 512 / sizeof(acc_t) > 128 ? 128 : 512 / sizeof(acc_t);
  acc_t lanes[L];
  for (int j = 0; j < L; ++j) lanes[j] = init;
  int64_t i = 0;
  if (stride == 1) {
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) lanes[j] = f(lanes[j], m(static_cast<acc_t>(p[i + j])));
  } else {
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) lanes[j] = f(lanes[j], m(static_cast<acc_t>(p[(i + j) * stride])));
  }
  acc_t r = init;
  for (; i < n; ++i) r = f(r, m(static_cast<acc_t>(p[i * stride])));
  for (int j = 0; j < L; ++j) r = f(lanes[j], r);
  return r;
}

}  // namespace at::native
