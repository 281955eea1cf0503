// Pooling on CPU: max pooling with indices, average pooling, the adaptive
// pools, and the index scatter/gather pair their backward passes (and
// max_unpool) run on.
//
// Every kernel works on contiguous (N*C) planes of a 3-d (D, H, W) extent (a
// 1-d/2-d problem has leading extents of 1, see ConvPool.h) and spreads the
// planes over the threads. float16/bfloat16 compare and sum in float.
// Indices are flat offsets inside one input plane, as PyTorch's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../../Parallel.h"
#include "../ConvPool.h"
#include "../Copy.h"
#include "ops/_adaptive_avg_pool_nd.h"
#include "ops/_adaptive_avg_pool_nd_backward.h"
#include "ops/_adaptive_max_pool_nd.h"
#include "ops/_avg_pool_nd.h"
#include "ops/_avg_pool_nd_backward.h"
#include "ops/_max_pool_nd.h"
#include "ops/_pool_gather.h"
#include "ops/_pool_scatter.h"

namespace at::native {
namespace {

template <class T>
inline bool is_nan_value(T v) {
  if constexpr (std::is_integral_v<T>) {
    (void)v;
    return false;
  } else {
    return std::isnan((float)v);
  }
}

template <class T>
using acc_of = std::conditional_t<std::is_integral_v<T>, T, c10::opmath_t<T>>;

int64_t grain_for(int64_t per_plane) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(per_plane, 1)); }

// ---------------------------------------------------------------- max pooling

// Kernel taps [lo, hi) of output position o along dim i that land inside the
// input (the rest read padding): no per-tap bounds checks in the loops.
inline void tap_range(const Window3& w, int i, int64_t o, int64_t* lo, int64_t* hi) {
  const int64_t start = o * w.s[i] - w.p[i];
  *lo = start < 0 ? (-start + w.d[i] - 1) / w.d[i] : 0;
  *hi = w.in[i] > start ? std::min(w.k[i], (w.in[i] - start + w.d[i] - 1) / w.d[i]) : 0;
}

// Every output coordinate's tap range along each dim, computed once per call:
// tap_range divides, and doing that per output position and dim cost more
// than the comparisons themselves.
// [full_begin, full_end): the contiguous run of w positions whose every tap
// is inside the input (empty when there is none).
struct TapRanges {
  std::vector<int64_t> lo[3], hi[3];
  int64_t full_begin = 0, full_end = 0;
  explicit TapRanges(const Window3& w) {
    for (int i = 0; i < 3; ++i) {
      lo[i].resize((size_t)w.out[i]);
      hi[i].resize((size_t)w.out[i]);
      for (int64_t o = 0; o < w.out[i]; ++o) tap_range(w, i, o, &lo[i][(size_t)o], &hi[i][(size_t)o]);
    }
    int64_t o = 0;
    while (o < w.out[2] && !(lo[2][(size_t)o] == 0 && hi[2][(size_t)o] == w.k[2])) ++o;
    full_begin = o;
    while (o < w.out[2] && lo[2][(size_t)o] == 0 && hi[2][(size_t)o] == w.k[2]) ++o;
    full_end = o;
  }
};

template <class T>
void max_pool_kernel(const T* x, T* y, int64_t* idx, int64_t planes, const Window3& w) {
  using A = acc_of<T>;
  const int64_t Lin = w.in_numel(), Lout = w.out_numel();
  const TapRanges taps(w);
  at::parallel_for(0, planes, grain_for(Lout * w.k_numel()), [&](int64_t b, int64_t e) {
    std::vector<A> rowbest((size_t)w.out[2]);
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xp = x + pl * Lin;
      T* yp = y + pl * Lout;
      int64_t* ip = idx + pl * Lout;
      for (int64_t od = 0; od < w.out[0]; ++od) {
        const int64_t d0 = taps.lo[0][(size_t)od], d1 = taps.hi[0][(size_t)od];
        for (int64_t oh = 0; oh < w.out[1]; ++oh) {
          const int64_t h0 = taps.lo[1][(size_t)oh], h1 = taps.hi[1][(size_t)oh];
          const int64_t id0 = od * w.s[0] - w.p[0], ih0 = oh * w.s[1] - w.p[1];
          const int64_t orow = (od * w.out[1] + oh) * w.out[2];
          // Outputs whose window lies wholly inside the row along w (the
          // interior, [taps.full_begin, taps.full_end)) are done a row at a
          // time, tap by tap in the same (kd, kh, kw) order as below, with
          // selects over the row (vectorised): per-window comparisons branch
          // on random data and the mispredictions dominated.
          if (d0 < d1 && h0 < h1 && taps.full_begin < taps.full_end) {
            const int64_t fb = taps.full_begin, fe = taps.full_end, sw = w.s[2];
            T* yrow = yp + orow;
            int64_t* irow = ip + orow;
            const int64_t first = ((id0 + d0 * w.d[0]) * w.in[1] + ih0 + h0 * w.d[1]) * w.in[2] - w.p[2];
            for (int64_t ow = fb; ow < fe; ++ow) {
              rowbest[(size_t)ow] = (A)xp[first + ow * sw];
              irow[ow] = first + ow * sw;
            }
            for (int64_t kd = d0; kd < d1; ++kd)
              for (int64_t kh = h0; kh < h1; ++kh) {
                const int64_t row = ((id0 + kd * w.d[0]) * w.in[1] + ih0 + kh * w.d[1]) * w.in[2] - w.p[2];
                for (int64_t kw = 0; kw < w.k[2]; ++kw) {
                  const int64_t base = row + kw * w.d[2];
                  A* bestp = rowbest.data();
#pragma omp simd
                  for (int64_t ow = fb; ow < fe; ++ow) {
                    const int64_t i = base + ow * sw;
                    const A v = (A)xp[i];
                    const bool take = v > bestp[ow] || v != v;  // v != v: NaN (first max wins, a NaN always wins)
                    bestp[ow] = take ? v : bestp[ow];
                    irow[ow] = take ? i : irow[ow];
                  }
                }
              }
            for (int64_t ow = fb; ow < fe; ++ow) yrow[ow] = (T)rowbest[(size_t)ow];
          }
          for (int64_t ow = 0; ow < w.out[2]; ++ow) {
            if (ow == taps.full_begin && d0 < d1 && h0 < h1 && taps.full_begin < taps.full_end) {
              ow = taps.full_end - 1;
              continue;
            }
            const int64_t w0 = taps.lo[2][(size_t)ow], w1 = taps.hi[2][(size_t)ow];
            const int64_t o = orow + ow;
            if (d0 >= d1 || h0 >= h1 || w0 >= w1) {  // a window wholly in the padding (not reachable with valid args)
              yp[o] = (T)(std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                               : std::numeric_limits<A>::lowest());
              ip[o] = 0;
              continue;
            }
            const int64_t iw0 = ow * w.s[2] - w.p[2];
            int64_t best_i = ((id0 + d0 * w.d[0]) * w.in[1] + ih0 + h0 * w.d[1]) * w.in[2] + iw0 + w0 * w.d[2];
            A best = (A)xp[best_i];
            for (int64_t kd = d0; kd < d1; ++kd)
              for (int64_t kh = h0; kh < h1; ++kh) {
                const int64_t row = ((id0 + kd * w.d[0]) * w.in[1] + ih0 + kh * w.d[1]) * w.in[2] + iw0;
                for (int64_t kw = w0; kw < w1; ++kw) {
                  const int64_t i = row + kw * w.d[2];
                  const A v = (A)xp[i];
                  // The first maximum wins, a NaN always wins (PyTorch's rule).
                  // Selects, not a branch: on random data the branch was
                  // mispredicted about once per window, which dominated.
                  const bool take = v > best || is_nan_value(v);
                  best = take ? v : best;
                  best_i = take ? i : best_i;
                }
              }
            yp[o] = (T)best;
            ip[o] = best_i;
          }
        }
      }
    }
  });
}

template <class T>
void adaptive_max_kernel(const T* x, T* y, int64_t* idx, int64_t planes, const int64_t in[3], const int64_t out[3]) {
  using A = acc_of<T>;
  const int64_t Lin = in[0] * in[1] * in[2], Lout = out[0] * out[1] * out[2];
  at::parallel_for(0, planes, grain_for(Lin), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xp = x + pl * Lin;
      for (int64_t od = 0; od < out[0]; ++od) {
        const int64_t d0 = adaptive_start(od, out[0], in[0]), d1 = adaptive_end(od, out[0], in[0]);
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          const int64_t h0 = adaptive_start(oh, out[1], in[1]), h1 = adaptive_end(oh, out[1], in[1]);
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            const int64_t w0 = adaptive_start(ow, out[2], in[2]), w1 = adaptive_end(ow, out[2], in[2]);
            A best = (A)xp[(d0 * in[1] + h0) * in[2] + w0];
            int64_t best_i = (d0 * in[1] + h0) * in[2] + w0;
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) {
                  const int64_t i = (id * in[1] + ih) * in[2] + iw;
                  const A v = (A)xp[i];
                  if (v > best || is_nan_value(v)) {
                    best = v;
                    best_i = i;
                  }
                }
            const int64_t o = pl * Lout + (od * out[1] + oh) * out[2] + ow;
            y[o] = (T)best;
            idx[o] = best_i;
          }
        }
      }
    }
  });
}

// ---------------------------------------------------------------- average pooling

struct AvgOpts {
  bool count_include_pad;
  std::optional<int64_t> divisor;
};

// The clipped window of output position o along dim i and its divisor share.
struct Span {
  int64_t lo, hi, padded;
};
inline Span avg_span(const Window3& w, int i, int64_t o) {
  int64_t lo = o * w.s[i] - w.p[i];
  int64_t hi = std::min(lo + w.k[i], w.in[i] + w.p[i]);
  const int64_t padded = hi - lo;
  lo = std::max<int64_t>(lo, 0);
  hi = std::min(hi, w.in[i]);
  return {lo, hi, padded};
}

// Calls f(out offset, input box, divisor) for every output position of one plane.
template <class F>
void for_each_avg_window(const Window3& w, const AvgOpts& o, const F& f) {
  for (int64_t od = 0; od < w.out[0]; ++od) {
    const Span sd = avg_span(w, 0, od);
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      const Span sh = avg_span(w, 1, oh);
      for (int64_t ow = 0; ow < w.out[2]; ++ow) {
        const Span sw = avg_span(w, 2, ow);
        const int64_t off = (od * w.out[1] + oh) * w.out[2] + ow;
        const bool empty = sd.hi <= sd.lo || sh.hi <= sh.lo || sw.hi <= sw.lo;
        int64_t div;
        if (o.divisor)
          div = *o.divisor;
        else if (o.count_include_pad)
          div = sd.padded * sh.padded * sw.padded;
        else
          div = (sd.hi - sd.lo) * (sh.hi - sh.lo) * (sw.hi - sw.lo);
        f(off, empty, sd, sh, sw, div);
      }
    }
  }
}

template <class T>
void avg_pool_kernel(const T* x, T* y, int64_t planes, const Window3& w, const AvgOpts& opts) {
  using A = acc_of<T>;
  const int64_t Lin = w.in_numel(), Lout = w.out_numel();
  at::parallel_for(0, planes, grain_for(Lout * w.k_numel()), [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xp = x + pl * Lin;
      T* yp = y + pl * Lout;
      for_each_avg_window(w, opts, [&](int64_t off, bool empty, const Span& sd, const Span& sh, const Span& sw,
                                       int64_t div) {
        if (empty) {
          yp[off] = T(0);
          return;
        }
        A sum = 0;
        for (int64_t id = sd.lo; id < sd.hi; ++id)
          for (int64_t ih = sh.lo; ih < sh.hi; ++ih) {
            const T* row = xp + (id * w.in[1] + ih) * w.in[2];
            for (int64_t iw = sw.lo; iw < sw.hi; ++iw) sum += (A)row[iw];
          }
        yp[off] = (T)(sum / (A)div);
      });
    }
  });
}

template <class T>
void avg_pool_backward_kernel(const T* gy, T* gx, int64_t planes, const Window3& w, const AvgOpts& opts) {
  using A = acc_of<T>;
  const int64_t Lin = w.in_numel(), Lout = w.out_numel();
  at::parallel_for(0, planes, grain_for(Lout * w.k_numel()), [&](int64_t b, int64_t e) {
    std::vector<A> acc((size_t)Lin);
    for (int64_t pl = b; pl < e; ++pl) {
      const T* gp = gy + pl * Lout;
      std::fill(acc.begin(), acc.end(), A(0));
      for_each_avg_window(w, opts, [&](int64_t off, bool empty, const Span& sd, const Span& sh, const Span& sw,
                                       int64_t div) {
        if (empty) return;
        const A g = (A)gp[off] / (A)div;
        for (int64_t id = sd.lo; id < sd.hi; ++id)
          for (int64_t ih = sh.lo; ih < sh.hi; ++ih) {
            A* row = acc.data() + (id * w.in[1] + ih) * w.in[2];
            for (int64_t iw = sw.lo; iw < sw.hi; ++iw) row[iw] += g;
          }
      });
      T* xp = gx + pl * Lin;
      for (int64_t i = 0; i < Lin; ++i) xp[i] = (T)acc[(size_t)i];
    }
  });
}

template <class T>
void adaptive_avg_kernel(const T* x, T* y, int64_t planes, const int64_t in[3], const int64_t out[3], bool backward) {
  using A = acc_of<T>;
  const int64_t Lin = in[0] * in[1] * in[2], Lout = out[0] * out[1] * out[2];
  at::parallel_for(0, planes, grain_for(Lin), [&](int64_t b, int64_t e) {
    std::vector<A> acc(backward ? (size_t)Lin : 0);
    for (int64_t pl = b; pl < e; ++pl) {
      if (backward) std::fill(acc.begin(), acc.end(), A(0));
      for (int64_t od = 0; od < out[0]; ++od) {
        const int64_t d0 = adaptive_start(od, out[0], in[0]), d1 = adaptive_end(od, out[0], in[0]);
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          const int64_t h0 = adaptive_start(oh, out[1], in[1]), h1 = adaptive_end(oh, out[1], in[1]);
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            const int64_t w0 = adaptive_start(ow, out[2], in[2]), w1 = adaptive_end(ow, out[2], in[2]);
            const int64_t o = (od * out[1] + oh) * out[2] + ow;
            const A count = (A)((d1 - d0) * (h1 - h0) * (w1 - w0));
            if (!backward) {
              const T* xp = x + pl * Lin;
              A sum = 0;
              for (int64_t id = d0; id < d1; ++id)
                for (int64_t ih = h0; ih < h1; ++ih)
                  for (int64_t iw = w0; iw < w1; ++iw) sum += (A)xp[(id * in[1] + ih) * in[2] + iw];
              y[pl * Lout + o] = (T)(sum / count);
            } else {
              // x is the output gradient (Lout per plane), y the input gradient (Lin per plane).
              const A g = (A)x[pl * Lout + o] / count;
              for (int64_t id = d0; id < d1; ++id)
                for (int64_t ih = h0; ih < h1; ++ih)
                  for (int64_t iw = w0; iw < w1; ++iw) acc[(size_t)((id * in[1] + ih) * in[2] + iw)] += g;
            }
          }
        }
      }
      if (backward)
        for (int64_t i = 0; i < Lin; ++i) y[pl * Lin + i] = (T)acc[(size_t)i];
    }
  });
}

// Extents of a (N, C, spatial...) shape as 3-d, leading dims 1.
void extents3(IntArrayRef sizes, int64_t e[3]) {
  const int64_t nd = (int64_t)sizes.size() - 2;
  for (int i = 0; i < 3; ++i) e[i] = i < 3 - nd ? 1 : sizes[2 + i - (3 - nd)];
}

const char* pool_name(const char* base, int64_t nd, char* buf, size_t n) {
  std::snprintf(buf, n, "%s%lldd", base, (long long)nd);
  return buf;
}

void check_floating(const char* op, ScalarType t) {
  TL_CHECK_NOT_IMPLEMENTED(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
                               t == ScalarType::BFloat16,
                           "\"", op, "\" not implemented for '", toString(t), "'");
}

}  // namespace

std::tuple<TensorBase, TensorBase> max_pool_nd_cpu(const TensorBase& self, IntArrayRef kernel_size, IntArrayRef stride,
                                                   IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  char buf[32];
  const char* op = pool_name("max_pool", (int64_t)kernel_size.size(), buf, sizeof buf);
  PoolArgs a;
  std::vector<int64_t> out = max_pool_output_sizes(op, self, kernel_size, stride, padding, dilation, ceil_mode, &a);
  TL_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool, "\"", op, "\" not implemented for 'Bool'");
  TensorBase values = make_empty(IntArrayRef(out), self.options());
  TensorBase indices = make_empty(IntArrayRef(out), self.options().with_dtype(ScalarType::Long));
  if (values.numel() == 0) return {values, indices};
  TensorBase x = contiguous(self);
  Window3 w = make_window(a.nd, self.sizes().slice(2), IntArrayRef(out).slice(2), a.k, a.s, a.p, a.d);
  TL_DISPATCH_NUMERIC_TYPES(self.scalar_type(), op, [&] {
    max_pool_kernel<scalar_t>(x.data_ptr<scalar_t>(), values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>(),
                              out[0] * out[1], w);
  });
  return {values, indices};
}

std::tuple<TensorBase, TensorBase> adaptive_max_pool_nd_cpu(const TensorBase& self, IntArrayRef output_size) {
  char buf[32];
  const char* op = pool_name("adaptive_max_pool", (int64_t)output_size.size(), buf, sizeof buf);
  std::vector<int64_t> out = adaptive_pool_output_sizes(op, self, output_size);
  check_floating(op, self.scalar_type());
  TensorBase values = make_empty(IntArrayRef(out), self.options());
  TensorBase indices = make_empty(IntArrayRef(out), self.options().with_dtype(ScalarType::Long));
  if (values.numel() == 0) return {values, indices};
  TensorBase x = contiguous(self);
  int64_t in3[3], out3[3];
  extents3(self.sizes(), in3);
  extents3(IntArrayRef(out), out3);
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    adaptive_max_kernel<scalar_t>(x.data_ptr<scalar_t>(), values.data_ptr<scalar_t>(), indices.data_ptr<int64_t>(),
                                  out[0] * out[1], in3, out3);
  });
  return {values, indices};
}

TensorBase avg_pool_nd_cpu(const TensorBase& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                           bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  char buf[32];
  const char* op = pool_name("avg_pool", (int64_t)kernel_size.size(), buf, sizeof buf);
  PoolArgs a;
  std::vector<int64_t> out =
      avg_pool_output_sizes(op, self, kernel_size, stride, padding, ceil_mode, divisor_override, &a);
  check_floating(op, self.scalar_type());
  TensorBase result = make_empty(IntArrayRef(out), self.options());
  if (result.numel() == 0) return result;
  TensorBase x = contiguous(self);
  Window3 w = make_window(a.nd, self.sizes().slice(2), IntArrayRef(out).slice(2), a.k, a.s, a.p, a.d);
  AvgOpts o{count_include_pad, divisor_override};
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    avg_pool_kernel<scalar_t>(x.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), out[0] * out[1], w, o);
  });
  return result;
}

TensorBase avg_pool_nd_backward_cpu(const TensorBase& grad_output, IntArrayRef input_size, IntArrayRef kernel_size,
                                    IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                                    std::optional<int64_t> divisor_override) {
  char buf[40];
  const char* op = pool_name("avg_pool_backward", (int64_t)kernel_size.size(), buf, sizeof buf);
  PoolArgs a;
  TensorBase shape_only = make_empty(input_size, grad_output.options().with_device(Device(DeviceType::Meta)));
  std::vector<int64_t> out =
      avg_pool_output_sizes(op, shape_only, kernel_size, stride, padding, ceil_mode, divisor_override, &a);
  TL_CHECK(grad_output.sizes() == IntArrayRef(out), op, ": expected grad_output of size [",
           shape_text(IntArrayRef(out), ", "), "], but got [", shape_text(grad_output.sizes(), ", "), "]");
  check_floating(op, grad_output.scalar_type());
  TensorBase result = make_empty(input_size, grad_output.options());
  if (result.numel() == 0) return result;
  TensorBase gy = contiguous(grad_output);
  Window3 w = make_window(a.nd, input_size.slice(2), IntArrayRef(out).slice(2), a.k, a.s, a.p, a.d);
  AvgOpts o{count_include_pad, divisor_override};
  TL_DISPATCH_FLOATING_TYPES(gy.scalar_type(), op, [&] {
    avg_pool_backward_kernel<scalar_t>(gy.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), out[0] * out[1], w, o);
  });
  return result;
}

TensorBase adaptive_avg_pool_nd_cpu(const TensorBase& self, IntArrayRef output_size) {
  char buf[32];
  const char* op = pool_name("adaptive_avg_pool", (int64_t)output_size.size(), buf, sizeof buf);
  std::vector<int64_t> out = adaptive_pool_output_sizes(op, self, output_size);
  check_floating(op, self.scalar_type());
  TensorBase result = make_empty(IntArrayRef(out), self.options());
  if (result.numel() == 0) return result;
  TensorBase x = contiguous(self);
  int64_t in3[3], out3[3];
  extents3(self.sizes(), in3);
  extents3(IntArrayRef(out), out3);
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    adaptive_avg_kernel<scalar_t>(x.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), out[0] * out[1], in3, out3,
                                  false);
  });
  return result;
}

TensorBase adaptive_avg_pool_nd_backward_cpu(const TensorBase& grad_output, IntArrayRef input_size) {
  const char* op = "adaptive_avg_pool_backward";
  TL_CHECK(grad_output.dim() == (int64_t)input_size.size() && grad_output.dim() >= 3 && grad_output.dim() <= 5 &&
               grad_output.sizes()[0] == input_size[0] && grad_output.sizes()[1] == input_size[1],
           op, ": grad_output [", shape_text(grad_output.sizes(), ", "), "] does not match input_size [",
           shape_text(input_size, ", "), "]");
  check_floating(op, grad_output.scalar_type());
  TensorBase result = make_empty(input_size, grad_output.options());
  if (result.numel() == 0) return result;
  TensorBase gy = contiguous(grad_output);
  int64_t in3[3], out3[3];
  extents3(input_size, in3);
  extents3(grad_output.sizes(), out3);
  TL_DISPATCH_FLOATING_TYPES(gy.scalar_type(), op, [&] {
    adaptive_avg_kernel<scalar_t>(gy.data_ptr<scalar_t>(), result.data_ptr<scalar_t>(), input_size[0] * input_size[1],
                                  in3, out3, true);
  });
  return result;
}

// ---------------------------------------------------------------- scatter / gather by plane offsets

TensorBase pool_scatter_cpu(const TensorBase& src, const TensorBase& indices, IntArrayRef input_size,
                            bool accumulate) {
  const char* op = "_pool_scatter";
  check_pool_indices(op, src, indices);
  TL_CHECK((int64_t)input_size.size() == src.dim() && input_size[0] == src.sizes()[0] &&
               input_size[1] == src.sizes()[1],
           op, ": output size [", shape_text(input_size, ", "), "] does not match values [",
           shape_text(src.sizes(), ", "), "]");
  for (int64_t v : input_size) TL_CHECK(v >= 0, op, ": negative output size");
  TL_CHECK_NOT_IMPLEMENTED(src.scalar_type() != ScalarType::Bool, "\"", op, "\" not implemented for 'Bool'");
  TensorBase result = make_empty(input_size, src.options());
  if (result.numel() == 0) return result;
  TensorBase s = contiguous(src), ix = contiguous(indices);
  const int64_t planes = input_size[0] * input_size[1];
  int64_t in3[3];
  extents3(input_size, in3);
  const int64_t Lin = in3[0] * in3[1] * in3[2];
  const int64_t Lsrc = planes ? src.numel() / planes : 0;
  TL_DISPATCH_NUMERIC_TYPES(src.scalar_type(), op, [&] {
    using A = acc_of<scalar_t>;
    const scalar_t* sp = s.data_ptr<scalar_t>();
    const int64_t* ip = ix.data_ptr<int64_t>();
    scalar_t* rp = result.data_ptr<scalar_t>();
    at::parallel_for(0, planes, grain_for(Lin + Lsrc), [&](int64_t b, int64_t e) {
      // float16/bfloat16 sum in a float plane; other types in the result itself.
      constexpr bool direct = std::is_same_v<A, scalar_t>;
      std::vector<A> buf(direct ? 0 : (size_t)Lin);
      for (int64_t pl = b; pl < e; ++pl) {
        A* acc = direct ? reinterpret_cast<A*>(rp + pl * Lin) : buf.data();
        std::fill(acc, acc + Lin, A(0));
        const int64_t* ipl = ip + pl * Lsrc;
        const scalar_t* spl = sp + pl * Lsrc;
        for (int64_t j = 0; j < Lsrc; ++j) {
          const int64_t i = ipl[j];
          TL_CHECK(i >= 0 && i < Lin, "Found an invalid max index: ", i, " (output volumes are of size ",
                   shape_text(input_size.slice(2), "x"), ")");
          if (accumulate)
            acc[i] += (A)spl[j];
          else
            acc[i] = (A)spl[j];
        }
        if (!direct)
          for (int64_t i = 0; i < Lin; ++i) rp[pl * Lin + i] = (scalar_t)acc[i];
      }
    });
  });
  return result;
}

TensorBase pool_gather_cpu(const TensorBase& self, const TensorBase& indices) {
  const char* op = "_pool_gather";
  TL_CHECK(indices.scalar_type() == ScalarType::Long, op, ": expected int64 indices");
  TL_CHECK(self.dim() == indices.dim() && self.dim() >= 3 && self.dim() <= 5 &&
               self.sizes()[0] == indices.sizes()[0] && self.sizes()[1] == indices.sizes()[1],
           op, ": input [", shape_text(self.sizes(), ", "), "] and indices [", shape_text(indices.sizes(), ", "),
           "] must share their first two dims");
  TL_CHECK_NOT_IMPLEMENTED(self.scalar_type() != ScalarType::Bool, "\"", op, "\" not implemented for 'Bool'");
  TensorBase result = make_empty(indices.sizes(), self.options());
  if (result.numel() == 0) return result;
  TensorBase x = contiguous(self), ix = contiguous(indices);
  const int64_t planes = self.sizes()[0] * self.sizes()[1];
  const int64_t Lin = self.numel() / planes, Lout = indices.numel() / planes;
  TL_DISPATCH_NUMERIC_TYPES(self.scalar_type(), op, [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const int64_t* ip = ix.data_ptr<int64_t>();
    scalar_t* rp = result.data_ptr<scalar_t>();
    at::parallel_for(0, planes, grain_for(Lout), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl)
        for (int64_t j = 0; j < Lout; ++j) {
          const int64_t i = ip[pl * Lout + j];
          TL_CHECK_INDEX(i >= 0 && i < Lin, op, ": index ", i, " is out of bounds for a plane of ", Lin,
                         " elements");
          rp[pl * Lout + j] = xp[pl * Lin + i];
        }
    });
  });
  return result;
}

}  // namespace at::native
