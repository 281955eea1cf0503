// The device-neutral half of the CUDA reductions: how a reduction over any
// set of dims maps onto a grid of thread blocks, and the accumulators and
// combine functions the kernels fold with. Everything here is host/device
// code (TL_HOST_DEVICE), so the CUDA kernels (aten/native/cuda/ReduceKernel.cuh)
// and the CPU simulation of their thread tree at the end of this file run the
// same plan and the same arithmetic; tests/test_cuda_reduce_host.py checks the
// simulation against NumPy on machines without a GPU.
//
// Shape of a launch. The input is described as kept dims (one per output
// coordinate, slowest first) and reduced dims (row-major, so a reduced linear
// index r is the flattened position PyTorch's argmax reports). Each output is
// folded by `lanes` threads; thread `lane` visits reduced indices
// rb + lane, rb + lane + lanes, ... of its block's slice [rb, re). Two block
// layouts:
//   - lanes along x (the reduced dim is the input's fastest, or nothing is):
//     neighbouring threads read neighbouring elements of one output's run;
//     the lanes meet through warp shuffles, then across warps in shared memory;
//   - outputs along x (the kept innermost dim is the fastest, e.g. x.sum(0)):
//     neighbouring threads read neighbouring outputs' elements, and the
//     lanes (along y) meet in a shared-memory tree.
// When there are few outputs but long reductions, the reduced range is split
// into `splits` slices (grid y); every slice writes a partial accumulator and
// a second pass folds the slices of each output in order.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include "../../c10/Half.h"
#include "../../c10/ScalarType.h"

namespace at::native::reduce_tree {

// Dims left after size-1 dims are dropped and contiguous neighbours merged;
// a kernel argument, so fixed-size.
constexpr int kMaxGeomDims = 16;
// Threads of one warp; the lane tree is built from warps of this width.
constexpr int kWarp = 32;

struct ReduceGeom {
  int nkept = 0, nred = 0;
  int64_t num_outputs = 1, reduce_numel = 1;
  int64_t ksize[kMaxGeomDims], kstride[kMaxGeomDims];  // kept dims, slowest first (input element strides)
  int64_t rsize[kMaxGeomDims], rstride[kMaxGeomDims];  // reduced dims, row-major
};

// Fills g from an input of `ndim` dims; bit d of `mask` = dim d is reduced.
// Reduced dims keep their row-major order (argmax's linear index depends on
// it); only neighbours that are contiguous with each other are merged, which
// leaves every linear index unchanged. False when more than kMaxGeomDims of
// either kind remain.
TL_HOST_DEVICE inline bool make_reduce_geom(int ndim, const int64_t* sizes, const int64_t* strides, uint64_t mask,
                                            ReduceGeom& g) {
  g = ReduceGeom();
  int64_t prev_k = -1, prev_r = -1;  // dim index of the previous kept / reduced dim kept in g
  for (int d = 0; d < ndim; ++d) {
    const bool red = (mask >> d) & 1;
    if (red) g.reduce_numel *= sizes[d];
    else g.num_outputs *= sizes[d];
    if (sizes[d] == 1) continue;
    int& n = red ? g.nred : g.nkept;
    int64_t* sz = red ? g.rsize : g.ksize;
    int64_t* st = red ? g.rstride : g.kstride;
    int64_t& prev = red ? prev_r : prev_k;
    if (n > 0 && prev == d - 1 && st[n - 1] == strides[d] * sizes[d]) {
      // d continues the previous dim of its kind in memory: one longer dim
      sz[n - 1] *= sizes[d];
      st[n - 1] = strides[d];
    } else {
      if (n == kMaxGeomDims) return false;
      sz[n] = sizes[d];
      st[n] = strides[d];
      ++n;
    }
    prev = d;
  }
  return true;
}

// Input element offset of output o's first element (o in row-major output order).
TL_HOST_DEVICE inline int64_t kept_offset(const ReduceGeom& g, int64_t o) {
  int64_t off = 0;
  for (int d = g.nkept - 1; d >= 0; --d) {
    off += (o % g.ksize[d]) * g.kstride[d];
    o /= g.ksize[d];
  }
  return off;
}

// Offset of reduced element r (row-major over the reduced dims) from its output's first element.
TL_HOST_DEVICE inline int64_t reduced_offset(const ReduceGeom& g, int64_t r) {
  if (g.nred == 1) return r * g.rstride[0];
  int64_t off = 0;
  for (int d = g.nred - 1; d >= 0; --d) {
    off += (r % g.rsize[d]) * g.rstride[d];
    r /= g.rsize[d];
  }
  return off;
}

// ---------------------------------------------------------------- launch plan

struct ReduceLimits {
  int max_threads = 512;        // per block
  int64_t target_blocks = 0;    // blocks wanted to fill the device (0: never split the reduced range)
  int64_t min_per_thread = 16;  // a lane folds at least this many elements before more lanes are added
};

struct ReduceLaunch {
  bool outputs_on_x = false;
  int threads_x = 1, threads_y = 1;
  int lanes = 1;               // threads folding one output (x or y, a power of two)
  int outputs_per_block = 1;   // the other direction
  int64_t blocks_x = 0;        // ceil(num_outputs / outputs_per_block)
  int64_t splits = 1;          // grid y: slices of the reduced range
  int64_t per_split = 0;       // reduced elements per slice (the last may be shorter)
};

TL_HOST_DEVICE inline int64_t pow2_ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}
TL_HOST_DEVICE inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

TL_HOST_DEVICE inline ReduceLaunch make_reduce_launch(const ReduceGeom& g, const ReduceLimits& lim) {
  ReduceLaunch L;
  const int64_t nout = g.num_outputs, nred = g.reduce_numel;
  const int64_t max_threads = lim.max_threads;
  const bool red_fastest = g.nred > 0 && g.rstride[g.nred - 1] == 1;
  L.outputs_on_x = g.nkept > 0 && g.kstride[g.nkept - 1] == 1 && !red_fastest;
  int64_t want_lanes = pow2_ceil(ceil_div(nred > 0 ? nred : 1, lim.min_per_thread));
  if (L.outputs_on_x) {
    int64_t tx = nout < kWarp ? pow2_ceil(nout) : kWarp;
    int64_t lanes = want_lanes < max_threads / tx ? want_lanes : max_threads / tx;
    L.threads_x = (int)tx;
    L.threads_y = (int)lanes;
    L.lanes = (int)lanes;
    L.outputs_per_block = (int)tx;
  } else {
    int64_t lanes = want_lanes < max_threads ? want_lanes : max_threads;
    int64_t rows = max_threads / lanes;
    int64_t need = pow2_ceil(nout);
    if (need < rows) rows = need;
    // Warp shuffles name all 32 lanes, so a block is never smaller than a
    // warp: the spare rows are outputs past the end, which only idle.
    if (lanes * rows < kWarp) rows = kWarp / lanes;
    L.threads_x = (int)lanes;
    L.threads_y = (int)rows;
    L.lanes = (int)lanes;
    L.outputs_per_block = (int)rows;
  }
  L.blocks_x = ceil_div(nout, L.outputs_per_block);
  L.per_split = nred;
  L.splits = 1;
  const int64_t per_block_min = (int64_t)L.lanes * lim.min_per_thread;
  if (nout > 0 && nred > per_block_min && lim.target_blocks > L.blocks_x) {
    int64_t s = ceil_div(lim.target_blocks, L.blocks_x);
    int64_t most = ceil_div(nred, per_block_min);
    if (s > most) s = most;
    if (s > 65535) s = 65535;  // grid y limit
    if (s > 1) {
      L.per_split = ceil_div(nred, s);
      L.splits = ceil_div(nred, L.per_split);
    }
  }
  return L;
}

// Shared memory a block of this launch needs for accumulators of `acc_bytes`.
TL_HOST_DEVICE inline int64_t reduce_smem_elems(const ReduceLaunch& L) {
  if (L.outputs_on_x) return (int64_t)L.threads_x * L.threads_y;
  return L.lanes > kWarp ? (int64_t)L.threads_y * (L.lanes / kWarp) : 0;
}

// Which output a thread folds and as which lane.
struct ThreadSlot {
  int64_t output;
  int lane;
};
TL_HOST_DEVICE inline ThreadSlot thread_slot(const ReduceLaunch& L, int64_t block_x, int tx, int ty) {
  if (L.outputs_on_x) return {block_x * L.threads_x + tx, ty};
  return {block_x * L.threads_y + ty, tx};
}

// One thread's fold over its lane of slice [rb, re).
template <class Op, class T>
TL_HOST_DEVICE typename Op::acc_t thread_fold(const Op& op, const ReduceGeom& g, const T* in, int64_t o, int64_t rb,
                                              int64_t re, int lane, int lanes) {
  typename Op::acc_t a = op.identity();
  const T* base = in + kept_offset(g, o);
  for (int64_t r = rb + lane; r < re; r += lanes) a = op.reduce(a, base[reduced_offset(g, r)], r);
  return a;
}

// Slices of output o, folded in slice order (the grid pass).
template <class Op>
TL_HOST_DEVICE typename Op::acc_t fold_splits(const Op& op, const typename Op::acc_t* partial, int64_t splits,
                                              int64_t nout, int64_t o) {
  typename Op::acc_t a = partial[o];
  for (int64_t s = 1; s < splits; ++s) a = op.combine(a, partial[s * nout + o]);
  return a;
}

// ---------------------------------------------------------------- accumulators
// An op: acc_t; identity(); reduce(acc, T x, int64_t r) folds element x at
// reduced index r; combine(a, b) merges two accumulators (any order: the
// tree pairs lanes whose indices interleave); project(acc) is the value
// written.

template <class A, class T>
TL_HOST_DEVICE inline A to_acc(T x) {
  return static_cast<A>(static_cast<c10::opmath_t<T>>(x));
}

template <class O, class A>
TL_HOST_DEVICE inline O cast_out(A v) {
  if constexpr (std::is_same_v<O, bool>) return v != A(0);
  else return static_cast<O>(v);
}

template <class A>
TL_HOST_DEVICE inline bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>) return v != v;
  else return false;
}

// sum and mean (divisor = element count, 1 for sum). Integer sums use
// A = int64_t, which wraps like the narrower sum cast back.
template <class T, class A>
struct SumOp {
  using acc_t = A;
  A divisor = A(1);
  TL_HOST_DEVICE A identity() const { return A(0); }
  TL_HOST_DEVICE A reduce(A a, T x, int64_t) const { return a + to_acc<A>(x); }
  TL_HOST_DEVICE A combine(A a, A b) const { return a + b; }
  TL_HOST_DEVICE A project(A a) const { return divisor == A(1) ? a : a / divisor; }
};

template <class T, class A>
struct ProdOp {
  using acc_t = A;
  TL_HOST_DEVICE A identity() const { return A(1); }
  TL_HOST_DEVICE A reduce(A a, T x, int64_t) const { return a * to_acc<A>(x); }
  TL_HOST_DEVICE A combine(A a, A b) const { return a * b; }
  TL_HOST_DEVICE A project(A a) const { return a; }
};

// Larger (IsMax) or smaller of two values; NaN wins, so once seen it stays.
template <bool IsMax, class A>
TL_HOST_DEVICE inline A pick_nan(A a, A b) {
  if (is_nan(b)) return b;
  if constexpr (IsMax) return b > a ? b : a;
  else return b < a ? b : a;
}

template <class A, bool IsMax>
TL_HOST_DEVICE inline A extreme_identity() {
  if constexpr (std::is_same_v<A, bool>) return !IsMax;
  else if constexpr (std::numeric_limits<A>::has_infinity)
    return IsMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
  else return IsMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
}

// amax/amin and max()/min() over everything (values only).
template <class T, bool IsMax>
struct ExtremeOp {
  using A = c10::opmath_t<T>;
  using acc_t = A;
  TL_HOST_DEVICE A identity() const { return extreme_identity<A, IsMax>(); }
  TL_HOST_DEVICE A reduce(A a, T x, int64_t) const { return pick_nan<IsMax>(a, static_cast<A>(x)); }
  TL_HOST_DEVICE A combine(A a, A b) const { return pick_nan<IsMax>(a, b); }
  TL_HOST_DEVICE A project(A a) const { return a; }
};

// max.dim/min.dim/argmax/argmin: value and reduced index. The first index
// wins among equal values and among NaNs (NaN beats every number), as on
// the CPU; combine compares indices, so the tree's pairing does not matter.
template <class V>
struct ArgAcc {
  V value;
  int64_t index;  // -1: nothing folded yet
};
template <class T, bool IsMax>
struct ArgOp {
  using V = c10::opmath_t<T>;
  using acc_t = ArgAcc<V>;
  TL_HOST_DEVICE acc_t identity() const { return {V(0), -1}; }
  // b replaces a (a non-empty, b non-empty)?
  TL_HOST_DEVICE static bool takes(const acc_t& a, const acc_t& b) {
    const bool an = is_nan(a.value), bn = is_nan(b.value);
    if (an || bn) return an && bn ? b.index < a.index : bn;
    if (b.value == a.value) return b.index < a.index;
    if constexpr (IsMax) return b.value > a.value;
    else return b.value < a.value;
  }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t r) const { return combine(a, acc_t{static_cast<V>(x), r}); }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (b.index < 0) return a;
    if (a.index < 0) return b;
    return takes(a, b) ? b : a;
  }
};

// var/std: Welford's running moments in each lane, merged with Chan et al.'s
// pairwise formula. Accumulates in float for float16/bfloat16/float, double for double.
template <class A>
struct Moments {
  A mean, m2;
  int64_t n;
};
template <class T>
struct WelfordOp {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  using acc_t = Moments<A>;
  A correction = A(1);
  bool take_sqrt = false;
  TL_HOST_DEVICE acc_t identity() const { return {A(0), A(0), 0}; }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t) const {
    const A v = to_acc<A>(x);
    a.n += 1;
    const A d = v - a.mean;
    a.mean += d / A(a.n);
    a.m2 += d * (v - a.mean);
    return a;
  }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    const int64_t n = a.n + b.n;
    const A d = b.mean - a.mean;
    const A wb = A(b.n) / A(n);
    acc_t r;
    r.mean = a.mean + d * wb;
    r.m2 = a.m2 + b.m2 + d * d * A(a.n) * wb;
    r.n = n;
    return r;
  }
  // Variance with the given correction (PyTorch: divide by max(0, n - correction);
  // NaN for an empty reduction), or its square root.
  TL_HOST_DEVICE A variance(const acc_t& a) const {
    if (a.n == 0) return std::numeric_limits<A>::quiet_NaN();
    A denom = A(a.n) - correction;
    if (denom < A(0)) denom = A(0);
    return a.m2 / denom;
  }
  TL_HOST_DEVICE A project(const acc_t& a) const {
    const A v = variance(a);
    return take_sqrt ? std::sqrt(v) : v;
  }
};

// p-norms of |x|: the kind is a runtime value (uniform across a launch), so
// one instantiation per dtype serves every p.
enum class NormKind : int { Two, One, Zero, Inf, NegInf, General };
TL_HOST_DEVICE inline NormKind norm_kind(double p) {
  if (p == 2) return NormKind::Two;
  if (p == 1) return NormKind::One;
  if (p == 0) return NormKind::Zero;
  if (std::isinf(p)) return p > 0 ? NormKind::Inf : NormKind::NegInf;
  return NormKind::General;
}
template <class T>
struct NormOp {
  using A = c10::opmath_t<T>;
  using acc_t = A;
  NormKind kind = NormKind::Two;
  A p = A(2);
  TL_HOST_DEVICE A identity() const {
    return kind == NormKind::NegInf ? std::numeric_limits<A>::infinity() : A(0);
  }
  TL_HOST_DEVICE A reduce(A a, T x, int64_t) const {
    const A v = static_cast<A>(x);
    const A m = v < A(0) ? -v : v;
    switch (kind) {
      case NormKind::Two: return a + m * m;
      case NormKind::One: return a + m;
      case NormKind::Zero: return a + (v != A(0) ? A(1) : A(0));
      case NormKind::Inf: return pick_nan<true>(a, m);
      case NormKind::NegInf: return pick_nan<false>(a, m);
      default: return a + std::pow(m, p);
    }
  }
  TL_HOST_DEVICE A combine(A a, A b) const {
    if (kind == NormKind::Inf) return pick_nan<true>(a, b);
    if (kind == NormKind::NegInf) return pick_nan<false>(a, b);
    return a + b;
  }
  TL_HOST_DEVICE A project(A a) const {
    if (kind == NormKind::Two) return std::sqrt(a);
    if (kind == NormKind::General) return std::pow(a, A(1) / p);
    return a;
  }
};

// any/all: "is x nonzero" (NaN is, -0.0 is not).
template <class T, bool Any>
struct AnyAllOp {
  using acc_t = bool;
  TL_HOST_DEVICE bool identity() const { return !Any; }
  TL_HOST_DEVICE bool reduce(bool a, T x, int64_t) const {
    using O = c10::opmath_t<T>;
    const bool nz = static_cast<O>(x) != O(0);
    return Any ? (a || nz) : (a && nz);
  }
  TL_HOST_DEVICE bool combine(bool a, bool b) const { return Any ? (a || b) : (a && b); }
  TL_HOST_DEVICE bool project(bool a) const { return a; }
};

// logsumexp: a running maximum and the sum of exp(x - maximum), so one pass
// neither overflows nor loses small terms. Equal maxima (also two infinities
// of one sign) add their sums directly, where exp(inf - inf) would be NaN.
template <class A>
struct LseAcc {
  A max, scaled;
};
template <class T>
struct LogSumExpOp {
  using A = c10::opmath_t<T>;
  using acc_t = LseAcc<A>;
  TL_HOST_DEVICE acc_t identity() const { return {-std::numeric_limits<A>::infinity(), A(0)}; }
  TL_HOST_DEVICE acc_t reduce(acc_t a, T x, int64_t) const { return combine(a, acc_t{static_cast<A>(x), A(1)}); }
  TL_HOST_DEVICE acc_t combine(acc_t a, acc_t b) const {
    if (is_nan(a.max) || is_nan(b.max)) {
      const A nan = std::numeric_limits<A>::quiet_NaN();
      return {nan, nan};
    }
    if (a.max < b.max) {
      acc_t t = a;
      a = b;
      b = t;
    }
    if (b.max == a.max) return {a.max, a.scaled + b.scaled};
    return {a.max, a.scaled + b.scaled * std::exp(b.max - a.max)};
  }
  TL_HOST_DEVICE A project(const acc_t& a) const {
    if (std::isinf(a.max)) return a.max;  // all -inf (or empty): -inf; any +inf: +inf
    return a.max + std::log(a.scaled);
  }
};

// ---------------------------------------------------------------- writers
// Called once per output with the folded accumulator.

template <class O>
struct StoreProjected {
  O* out;
  template <class Op>
  TL_HOST_DEVICE void operator()(const Op& op, int64_t o, const typename Op::acc_t& a) const {
    out[o] = cast_out<O>(op.project(a));
  }
};

// Index (and value, when `values` is set) of an ArgOp.
template <class O>
struct StoreArg {
  O* values;  // may be null (argmax/argmin)
  int64_t* indices;
  template <class Op>
  TL_HOST_DEVICE void operator()(const Op&, int64_t o, const typename Op::acc_t& a) const {
    indices[o] = a.index;
    if (values) values[o] = static_cast<O>(a.value);
  }
};

// ---------------------------------------------------------------- lane trees
// The lanes of one output meet pairwise: at each step lane i (i < half)
// takes combine(lane i, lane i + half), half = n/2, n/4, ..., 1. On the GPU
// this is a warp's shuffle-down sequence, and the same order over shared
// memory across warps (or along y); here on an array, for the simulation.
template <class Op>
TL_HOST_DEVICE void tree_fold(const Op& op, typename Op::acc_t* v, int n) {
  for (int half = n / 2; half > 0; half /= 2)
    for (int i = 0; i < half; ++i) v[i] = op.combine(v[i], v[i + half]);
}

// ---------------------------------------------------------------- scans
// cumsum/cumprod accumulate in the opmath type for floats and int64 for
// integers and bool. Along a contiguous line, a warp scans 32 elements at a
// time (Hillis-Steele: step k adds the value k lanes down) and carries the
// running total into the next tile; with inner > 1 each thread walks one
// column serially.
template <class T>
using scan_acc_t = std::conditional_t<std::is_floating_point_v<c10::opmath_t<T>>, c10::opmath_t<T>, int64_t>;

template <bool Prod>
struct ScanOp {
  template <class A> TL_HOST_DEVICE A identity() const { return Prod ? A(1) : A(0); }
  template <class A> TL_HOST_DEVICE A combine(A a, A b) const { return Prod ? a * b : a + b; }
};

// One tile of the warp scan on an array of kWarp values, as the shuffles do it.
template <bool Prod, class A>
TL_HOST_DEVICE void warp_scan_tile(A* v, A carry) {
  const ScanOp<Prod> op;
  for (int k = 1; k < kWarp; k *= 2) {
    A prev[kWarp];
    for (int i = 0; i < kWarp; ++i) prev[i] = v[i];
    for (int i = k; i < kWarp; ++i) v[i] = op.combine(prev[i - k], prev[i]);
  }
  for (int i = 0; i < kWarp; ++i) v[i] = op.combine(carry, v[i]);
}

// ---------------------------------------------------------------- CPU simulation
// Runs a launch exactly as the kernels schedule it, block by block, with the
// same folds and the same tree shapes; for tests on machines without a GPU.
template <class Op, class T, class Write>
void simulate_reduce(const Op& op, const ReduceGeom& g, const ReduceLaunch& L, const T* in, const Write& write) {
  using acc_t = typename Op::acc_t;
  const int64_t nout = g.num_outputs, nred = g.reduce_numel;
  if (nout == 0) return;
  const int nthreads = L.threads_x * L.threads_y;
  acc_t* vals = new acc_t[(size_t)nthreads];
  acc_t* partial = L.splits > 1 ? new acc_t[(size_t)(L.splits * nout)] : nullptr;
  acc_t* lanes = new acc_t[(size_t)L.lanes];
  acc_t* warps = new acc_t[(size_t)(L.lanes / kWarp + 1)];
  for (int64_t by = 0; by < L.splits; ++by) {
    const int64_t rb = by * L.per_split, re = rb + L.per_split < nred ? rb + L.per_split : nred;
    for (int64_t bx = 0; bx < L.blocks_x; ++bx) {
      for (int ty = 0; ty < L.threads_y; ++ty)
        for (int tx = 0; tx < L.threads_x; ++tx) {
          ThreadSlot s = thread_slot(L, bx, tx, ty);
          vals[ty * L.threads_x + tx] =
              s.output < nout ? thread_fold(op, g, in, s.output, rb, re, s.lane, L.lanes) : op.identity();
        }
      for (int row = 0; row < L.outputs_per_block; ++row) {
        for (int l = 0; l < L.lanes; ++l)
          lanes[l] = L.outputs_on_x ? vals[l * L.threads_x + row] : vals[row * L.threads_x + l];
        acc_t a;
        if (!L.outputs_on_x && L.lanes > kWarp) {  // shuffles within each warp, then across warps
          const int nw = L.lanes / kWarp;
          for (int w = 0; w < nw; ++w) {
            tree_fold(op, lanes + w * kWarp, kWarp);
            warps[w] = lanes[w * kWarp];
          }
          tree_fold(op, warps, nw);
          a = warps[0];
        } else {
          tree_fold(op, lanes, L.lanes);
          a = lanes[0];
        }
        const int64_t o = thread_slot(L, bx, L.outputs_on_x ? row : 0, L.outputs_on_x ? 0 : row).output;
        if (o >= nout) continue;
        if (L.splits == 1) write(op, o, a);
        else partial[by * nout + o] = a;
      }
    }
  }
  if (L.splits > 1)
    for (int64_t o = 0; o < nout; ++o) write(op, o, fold_splits(op, partial, L.splits, nout, o));
  delete[] vals;
  delete[] partial;
  delete[] lanes;
  delete[] warps;
}

// The scan of `n`-element lines with stride `inner` between elements
// (outer * inner lines), as the kernels schedule it.
template <bool Prod, class T, class O>
void simulate_scan(const T* in, O* out, int64_t outer, int64_t n, int64_t inner) {
  using A = scan_acc_t<T>;
  const ScanOp<Prod> op;
  for (int64_t line = 0; line < outer * inner; ++line) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    if (inner > 1) {  // a thread per column
      A acc = op.template identity<A>();
      for (int64_t i = 0; i < n; ++i) {
        acc = op.combine(acc, to_acc<A>(in[base + i * inner]));
        out[base + i * inner] = cast_out<O>(acc);
      }
      continue;
    }
    A carry = op.template identity<A>();  // a warp per line
    for (int64_t t = 0; t < n; t += kWarp) {
      A v[kWarp];
      for (int i = 0; i < kWarp; ++i) v[i] = t + i < n ? to_acc<A>(in[base + t + i]) : op.template identity<A>();
      warp_scan_tile<Prod>(v, carry);
      for (int i = 0; i < kWarp && t + i < n; ++i) out[base + t + i] = cast_out<O>(v[i]);
      carry = v[kWarp - 1];
    }
  }
}

}  // namespace at::native::reduce_tree
