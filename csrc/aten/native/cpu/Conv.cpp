// Convolution on CPU: aten::convolution (1-d/2-d/3-d, transposed or not,
// groups, stride, padding, dilation, output_padding) and the weight gradient
// _convolution_weight_grad, by vol2col/col2vol + GEMM.
//
// Layout: every problem is seen as 3-d (ConvPool.h's Window3). For image n and
// group g of a plain convolution
//   cols  (Cin/G * kvol, L_out) = vol2col(x[n])           rows ordered (c, kd, kh, kw)
//   y[n,g] (Cout/G, L_out)       = W[g] (Cout/G, Cin/G*kvol) @ cols[g]
// a transposed convolution is the adjoint (what the input gradient of a plain
// one computes):
//   cols (Cout/G * kvol, L_in)   = W[g]^T @ x[n,g];  y[n] = col2vol(cols)
// and the weight gradient is  dW[g] += dy[n,g] @ cols[g]^T.
//
// float/double go to OpenBLAS; float16/bfloat16 are converted to float, run
// there and rounded once at the end; integers use a plain loop with the
// integer type's own wrap-around, as PyTorch's slow_conv2d does.
// Threads: images are spread over the threads (see for_each_image).
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "../../Parallel.h"
#include "ParallelGemm.h"
#include "../ConvPool.h"
#include "../Copy.h"
#include "ops/_convolution_weight_grad.h"
#include "ops/col2im.h"
#include "ops/convolution.h"
#include "ops/im2col.h"

namespace at::native {
namespace {

// ---------------------------------------------------------------- vol2col / col2vol

// cols[(c, kd, kh, kw)][(od, oh, ow)] = x[c][in coords] or 0 outside the input,
// for the output rows (od, oh) flattened in [row_begin, row_end) (all by
// default); each cols row then holds (row_end - row_begin) * OW elements.
template <class T>
void vol2col(const T* x, int64_t channels, const Window3& w, T* cols, int64_t row_begin = 0, int64_t row_end = -1) {
  const int64_t kvol = w.k_numel();
  const int64_t ID = w.in[0], IH = w.in[1], IW = w.in[2];
  const int64_t OH = w.out[1], OW = w.out[2];
  if (row_end < 0) row_end = w.out[0] * OH;
  const int64_t L = (row_end - row_begin) * OW;
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * w.in_numel();
    for (int64_t kidx = 0; kidx < kvol; ++kidx) {
      const int64_t kd = kidx / (w.k[1] * w.k[2]), kh = (kidx / w.k[2]) % w.k[1], kw = kidx % w.k[2];
      T* row = cols + (c * kvol + kidx) * L;
      for (int64_t orow = row_begin; orow < row_end; ++orow) {
        const int64_t od = orow / OH, oh = orow % OH;
        const int64_t id = w.in_coord(0, od, kd);
        T* dst = row + (orow - row_begin) * OW;
        const int64_t ih = w.in_coord(1, oh, kh);
        if (id < 0 || id >= ID || ih < 0 || ih >= IH) {
          std::fill(dst, dst + OW, T(0));
          continue;
        }
        const T* src = xc + (id * IH + ih) * IW;
        const int64_t sw = w.s[2], off = kw * w.d[2] - w.p[2];
        if (sw == 1) {
          // One contiguous run, zero-filled where it hangs over either edge.
          const int64_t lo = std::min<int64_t>(OW, std::max<int64_t>(0, -off));
          const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(OW, IW - off));
          std::fill(dst, dst + lo, T(0));
          if (hi > lo) std::memcpy(dst + lo, src + lo + off, (size_t)(hi - lo) * sizeof(T));
          std::fill(dst + hi, dst + OW, T(0));
        } else {
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t iw = ow * sw + off;
            dst[ow] = (iw >= 0 && iw < IW) ? src[iw] : T(0);
          }
        }
      }
    }
  }
}

// x[c][in coords] += cols[(c, k)][(o)]: the adjoint of vol2col. x must be zeroed first.
template <class T>
void col2vol(const T* cols, int64_t channels, const Window3& w, T* x) {
  const int64_t L = w.out_numel(), kvol = w.k_numel();
  const int64_t ID = w.in[0], IH = w.in[1], IW = w.in[2];
  const int64_t OD = w.out[0], OH = w.out[1], OW = w.out[2];
  for (int64_t c = 0; c < channels; ++c) {
    T* xc = x + c * w.in_numel();
    for (int64_t kidx = 0; kidx < kvol; ++kidx) {
      const int64_t kd = kidx / (w.k[1] * w.k[2]), kh = (kidx / w.k[2]) % w.k[1], kw = kidx % w.k[2];
      const T* row = cols + (c * kvol + kidx) * L;
      for (int64_t od = 0; od < OD; ++od) {
        const int64_t id = w.in_coord(0, od, kd);
        if (id < 0 || id >= ID) continue;
        for (int64_t oh = 0; oh < OH; ++oh) {
          const int64_t ih = w.in_coord(1, oh, kh);
          if (ih < 0 || ih >= IH) continue;
          const T* src = row + (od * OH + oh) * OW;
          T* dst = xc + (id * IH + ih) * IW;
          const int64_t sw = w.s[2], off = kw * w.d[2] - w.p[2];
          if (sw == 1) {
            // The run of outputs whose input column is inside the row (the
            // same bounds as vol2col's copy), added without per-element
            // checks so it vectorises: the input gradient's col2vol is a
            // large share of a convolution's backward.
            const int64_t lo = std::min<int64_t>(OW, std::max<int64_t>(0, -off));
            const int64_t hi = std::max<int64_t>(lo, std::min<int64_t>(OW, IW - off));
#pragma omp simd
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow + off] = (T)(dst[ow + off] + src[ow]);
            continue;
          }
          const int64_t lo = std::min<int64_t>(OW, std::max<int64_t>(0, (-off + sw - 1) / sw));
          for (int64_t ow = lo; ow < OW; ++ow) {
            const int64_t iw = ow * sw + off;
            if (iw >= IW) break;
            dst[iw] = (T)(dst[iw] + src[ow]);
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------- GEMM

// C (m x n, ldc) = alpha-less op(A) @ op(B) + beta * C, row-major.
template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          bool accumulate, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (k == 0) {
      if (!accumulate)
        for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
      return;
    }
    constexpr int64_t kMax = std::numeric_limits<blasint>::max();
    TL_CHECK(m <= kMax && n <= kMax && k <= kMax && lda <= kMax && ldb <= kMax && ldc <= kMax,
             "convolution: matrix dimensions exceed what the BLAS library can index");
    const T beta = accumulate ? T(1) : T(0);
    cpu_gemm::gemm<T>(ta, tb, m, n, k, T(1), a, lda, b, ldb, beta, c, ldc);
  } else {
    // Integers: wrap-around arithmetic in an unsigned type at least 32 bits wide.
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    std::vector<U> row((size_t)n);
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), U(0));
      for (int64_t p = 0; p < k; ++p) {
        const U av = (U)(ta ? a[p * lda + i] : a[i * lda + p]);
        if (av == 0) continue;
        if (!tb) {
          const T* brow = b + p * ldb;
          for (int64_t j = 0; j < n; ++j) row[j] += av * (U)brow[j];
        } else {
          for (int64_t j = 0; j < n; ++j) row[j] += av * (U)b[j * ldb + p];
        }
      }
      T* crow = c + i * ldc;
      for (int64_t j = 0; j < n; ++j) crow[j] = accumulate ? (T)((U)crow[j] + row[j]) : (T)row[j];
    }
  }
}

// Images are spread over the threads when there is enough work; each image's
// GEMMs then run single-threaded inside its thread (cpu_gemm::gemm does not
// split inside a parallel region). Small problems (and a single image) run
// image by image, each GEMM split over the threads by cpu_gemm::gemm.
// `slot` (< get_num_threads()) is the same for every image one thread runs,
// so callers can keep per-thread accumulators.
template <class T, class F>
void for_each_image(int64_t N, int64_t scratch_numel, int64_t macs_per_image, const F& f) {
  constexpr int64_t kParallelMacs = int64_t(1) << 24;
  const int nt = at::get_num_threads();
  if (N >= 2 && nt > 1 && !at::in_parallel_region() && N * macs_per_image >= kParallelMacs) {
    at::parallel_for(0, N, 1, [&](int64_t b, int64_t e) {
#ifdef _OPENMP
      const int slot = std::min(omp_get_thread_num(), nt - 1);
#else
      const int slot = 0;
#endif
      std::vector<T> scratch((size_t)scratch_numel);
      for (int64_t n = b; n < e; ++n) f(n, scratch.data(), slot);
    });
  } else {
    std::vector<T> scratch((size_t)scratch_numel);
    for (int64_t n = 0; n < N; ++n) f(n, scratch.data(), 0);
  }
}

struct ConvGeom {
  int64_t nd, N, Cin, Cout, G;
  Window3 win;  // over the plain convolution: in = x spatial, out = y spatial
};

// A 1x1, stride-1, unpadded window: the input planes are the columns already.
bool is_pointwise(const Window3& w) {
  for (int i = 0; i < 3; ++i)
    if (w.k[i] != 1 || w.s[i] != 1 || w.p[i] != 0 || w.in[i] != w.out[i]) return false;
  return true;
}

// y (N, Cout, out...) = conv(x (N, Cin, in...), w (Cout, Cin/G, k...)) + bias.
template <class T>
void conv_forward(const T* x, const T* wt, const T* bias, T* y, const ConvGeom& g) {
  const Window3& win = g.win;
  const int64_t cin_g = g.Cin / g.G, cout_g = g.Cout / g.G;
  const int64_t K = cin_g * win.k_numel(), L = win.out_numel(), Lin = win.in_numel();
  const bool direct = is_pointwise(win);
  const int64_t macs = g.Cout * K * L;
  // The columns of a whole image (Cin * kvol x L) are megabytes: written by
  // vol2col and read back by BLAS's packing from L3 or memory. Output rows are
  // taken a few at a time instead, so each chunk's columns stay in L2 (about
  // kColsBytes) between the copy and the product.
  constexpr int64_t kColsBytes = int64_t(512) << 10;
  const int64_t rows = win.out[0] * win.out[1], OW = win.out[2];
  const int64_t row_bytes = g.Cin * win.k_numel() * OW * (int64_t)sizeof(T);
  const int64_t chunk_rows = direct ? rows : std::max<int64_t>(1, std::min<int64_t>(rows, kColsBytes / std::max<int64_t>(1, row_bytes)));
  for_each_image<T>(g.N, direct ? 0 : g.Cin * win.k_numel() * chunk_rows * OW, macs, [&](int64_t n, T* cols, int /*slot*/) {
    const T* xn = x + n * g.Cin * Lin;
    T* yn = y + n * g.Cout * L;
    for (int64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
      const int64_t r1 = std::min(rows, r0 + chunk_rows), Lc = (r1 - r0) * OW;
      const T* src = direct ? xn : cols;
      const int64_t ldb = direct ? L : Lc;
      if (!direct) vol2col(xn, g.Cin, win, cols, r0, r1);
      for (int64_t gi = 0; gi < g.G; ++gi)
        gemm<T>(false, false, cout_g, Lc, K, wt + gi * cout_g * K, K, src + gi * K * ldb, ldb, false,
                yn + gi * cout_g * L + r0 * OW, L);
    }
    if (bias)
      for (int64_t c = 0; c < g.Cout; ++c) {
        T* p = yn + c * L;
        const T b = bias[c];
        for (int64_t i = 0; i < L; ++i) p[i] += b;
      }
  });
}

// With stride 1, a transposed convolution is the plain convolution of x with
// the flipped, in/out-swapped kernel and padding d*(k-1)-p: y[p] = sum_k
// x[p + pad - k*d] w[k] = sum_k' x[p - pad' + k'*d] w[K-1-k']. Returns that
// plain convolution's window (in = x spatial, out = y spatial), or false when
// the identity does not apply: a stride above 1, padding beyond d*(k-1)
// (negative pad'), or output_padding (y longer than the flipped convolution
// yields, so its last positions would need padding on one side only).
bool flipped_plain_window(const Window3& win, Window3& flipped) {
  for (int i = 0; i < 3; ++i) {
    const int64_t reach = win.d[i] * (win.k[i] - 1);
    if (win.s[i] != 1 || win.p[i] > reach || win.in[i] != win.out[i] - 2 * win.p[i] + reach) return false;
    flipped.in[i] = win.out[i];
    flipped.out[i] = win.in[i];
    flipped.k[i] = win.k[i];
    flipped.s[i] = 1;
    flipped.p[i] = reach - win.p[i];
    flipped.d[i] = win.d[i];
  }
  return true;
}

template <class T>
void conv_forward(const T* x, const T* wt, const T* bias, T* y, const ConvGeom& g);

// y (N, Cout, big...) = conv_transpose(x (N, Cin, small...), w (Cin, Cout/G, k...)) + bias, where `g.win`
// describes the plain convolution big -> small (in = y spatial, out = x spatial).
template <class T>
void conv_transpose_forward(const T* x, const T* wt, const T* bias, T* y, const ConvGeom& g) {
  const Window3& win = g.win;
  const int64_t cin_g = g.Cin / g.G, cout_g = g.Cout / g.G, kvol = win.k_numel();
  Window3 flipped;
  if (kvol > 1 && flipped_plain_window(win, flipped)) {
    // Stride 1 (every plain convolution's input gradient with stride 1): run
    // it as the plain convolution with the flipped kernel. The product then
    // has the kernel taps in its inner dimension (Cin/G * kvol) instead of
    // only Cin/G, which BLAS runs far more efficiently, and vol2col's copies
    // replace col2vol's scattered adds.
    std::vector<T> wf((size_t)(g.Cout * cin_g * kvol));
    for (int64_t gi = 0; gi < g.G; ++gi)
      for (int64_t ci = 0; ci < cin_g; ++ci)
        for (int64_t co = 0; co < cout_g; ++co) {
          const T* src = wt + ((gi * cin_g + ci) * cout_g + co) * kvol;
          T* dst = wf.data() + ((gi * cout_g + co) * cin_g + ci) * kvol;
          for (int64_t kk = 0; kk < kvol; ++kk) dst[kk] = src[kvol - 1 - kk];
        }
    ConvGeom pg = g;
    pg.win = flipped;
    conv_forward<T>(x, wf.data(), bias, y, pg);
    return;
  }
  const int64_t M = cout_g * kvol, Lsmall = win.out_numel(), Lbig = win.in_numel();
  const bool direct = is_pointwise(win);
  const int64_t macs = g.Cin * M * Lsmall;
  for_each_image<T>(g.N, direct ? 0 : g.Cout * kvol * Lsmall, macs, [&](int64_t n, T* cols, int /*slot*/) {
    const T* xn = x + n * g.Cin * Lsmall;
    T* yn = y + n * g.Cout * Lbig;
    T* target = direct ? yn : cols;  // a pointwise window writes the columns straight into y
    for (int64_t gi = 0; gi < g.G; ++gi)
      gemm<T>(true, false, M, Lsmall, cin_g, wt + gi * cin_g * M, M, xn + gi * cin_g * Lsmall, Lsmall, false,
              target + gi * M * Lsmall, Lsmall);
    if (!direct) {
      std::fill(yn, yn + g.Cout * Lbig, T(0));
      col2vol(cols, g.Cout, win, yn);
    }
    if (bias)
      for (int64_t c = 0; c < g.Cout; ++c) {
        T* p = yn + c * Lbig;
        const T b = bias[c];
        for (int64_t i = 0; i < Lbig; ++i) p[i] += b;
      }
  });
}

// dW (Cout, Cin/G, k...) = sum_n dy[n,g] @ vol2col(x[n])[g]^T for the plain convolution x -> dy.
template <class T>
void conv_weight_grad(const T* dy, const T* x, T* dw, const ConvGeom& g) {
  const Window3& win = g.win;
  const int64_t cin_g = g.Cin / g.G, cout_g = g.Cout / g.G;
  const int64_t K = cin_g * win.k_numel(), L = win.out_numel(), Lin = win.in_numel();
  const int64_t wnumel = g.Cout * K;
  const bool direct = is_pointwise(win);
  // Each thread sums its images into its own buffer; the buffers are added at the end.
  const int nt = std::max(1, at::get_num_threads());
  std::vector<std::vector<T>> partial;
  std::vector<char> used((size_t)nt, 0);
  partial.resize((size_t)nt);
  std::fill(dw, dw + wnumel, T(0));
  const int64_t macs = g.Cout * K * L;
  for_each_image<T>(g.N, direct ? 0 : g.Cin * win.k_numel() * L, macs, [&](int64_t n, T* cols, int slot) {
    std::vector<T>& acc = partial[(size_t)slot];
    if (acc.empty()) acc.assign((size_t)wnumel, T(0));
    used[(size_t)slot] = 1;
    const T* xn = x + n * g.Cin * Lin;
    if (direct) {
      cols = const_cast<T*>(xn);
    } else {
      vol2col(xn, g.Cin, win, cols);
    }
    const T* dyn = dy + n * g.Cout * L;
    for (int64_t gi = 0; gi < g.G; ++gi)
      gemm<T>(false, true, cout_g, K, L, dyn + gi * cout_g * L, L, cols + gi * K * L, L, true,
              acc.data() + gi * cout_g * K, K);
  });
  for (int t = 0; t < nt; ++t) {
    if (!used[(size_t)t]) continue;
    const T* a = partial[(size_t)t].data();
    for (int64_t i = 0; i < wnumel; ++i) dw[i] += a[i];
  }
}

ConvGeom geom_of(const TensorBase& small_or_x, IntArrayRef x_spatial, IntArrayRef y_spatial, IntArrayRef k,
                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t Cin, int64_t Cout,
                 int64_t groups) {
  ConvGeom g;
  g.nd = (int64_t)k.size();
  g.N = small_or_x.sizes()[0];
  g.Cin = Cin;
  g.Cout = Cout;
  g.G = groups;
  g.win = make_window(g.nd, x_spatial, y_spatial, k, stride, padding, dilation);
  return g;
}

bool is_reduced_float(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

// The dtype the loops run in: float for float16/bfloat16, else the tensor's own.
ScalarType compute_type(ScalarType t) { return is_reduced_float(t) ? ScalarType::Float : t; }

TensorBase prepared(const TensorBase& t) {
  TensorBase c = is_reduced_float(t.scalar_type()) ? cast_to(t, ScalarType::Float, t.device()) : t;
  return contiguous(c);
}

}  // namespace

TensorBase convolution_cpu(const TensorBase& input, const TensorBase& weight, const std::optional<TensorBase>& bias,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                           IntArrayRef output_padding, int64_t groups) {
  std::vector<int64_t> out_sizes =
      convolution_output_sizes(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  TL_CHECK(input.scalar_type() != ScalarType::Bool, "\"convolution\" not implemented for 'Bool'");
  TensorBase result = make_empty(IntArrayRef(out_sizes), input.options());
  if (result.numel() == 0) return result;
  const ScalarType ct = compute_type(input.scalar_type());
  TensorBase x = prepared(input), w = prepared(weight);
  const bool has_bias = bias && bias->defined();
  TensorBase b = has_bias ? prepared(*bias) : TensorBase();
  TensorBase y =
      ct == result.scalar_type() ? result : make_empty(IntArrayRef(out_sizes), result.options().with_dtype(ct));
  IntArrayRef k = weight.sizes().slice(2);
  if (!transposed) {
    ConvGeom g = geom_of(x, x.sizes().slice(2), IntArrayRef(out_sizes).slice(2), k, stride, padding, dilation,
                         x.sizes()[1], out_sizes[1], groups);
    TL_DISPATCH_NUMERIC_TYPES(ct, "convolution", [&] {
      if constexpr (!std::is_same_v<scalar_t, c10::Half> && !std::is_same_v<scalar_t, c10::BFloat16>)
        conv_forward<scalar_t>(x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(),
                               has_bias ? b.data_ptr<scalar_t>() : nullptr, y.data_ptr<scalar_t>(), g);
    });
  } else {
    ConvGeom g = geom_of(x, IntArrayRef(out_sizes).slice(2), x.sizes().slice(2), k, stride, padding, dilation,
                         x.sizes()[1], out_sizes[1], groups);
    TL_DISPATCH_NUMERIC_TYPES(ct, "convolution", [&] {
      if constexpr (!std::is_same_v<scalar_t, c10::Half> && !std::is_same_v<scalar_t, c10::BFloat16>)
        conv_transpose_forward<scalar_t>(x.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(),
                                         has_bias ? b.data_ptr<scalar_t>() : nullptr, y.data_ptr<scalar_t>(), g);
    });
  }
  if (!y.is_same(result)) copy_into(result, y);
  return result;
}

TensorBase convolution_weight_grad_cpu(const TensorBase& grad_output, const TensorBase& input, IntArrayRef weight_size,
                                       IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  check_convolution_weight_grad(grad_output, input, weight_size, stride, padding, dilation, groups);
  TensorBase result = make_empty(weight_size, input.options());
  if (result.numel() == 0) return result;
  const ScalarType ct = compute_type(input.scalar_type());
  TensorBase dw = ct == result.scalar_type() ? result : make_empty(weight_size, result.options().with_dtype(ct));
  TensorBase dy = prepared(grad_output), x = prepared(input);
  ConvGeom g = geom_of(x, x.sizes().slice(2), dy.sizes().slice(2), weight_size.slice(2), stride, padding, dilation,
                       x.sizes()[1], weight_size[0], groups);
  TL_DISPATCH_NUMERIC_TYPES(ct, "_convolution_weight_grad", [&] {
    if constexpr (!std::is_same_v<scalar_t, c10::Half> && !std::is_same_v<scalar_t, c10::BFloat16>)
      conv_weight_grad<scalar_t>(dy.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), dw.data_ptr<scalar_t>(), g);
  });
  if (!dw.is_same(result)) copy_into(result, dw);
  return result;
}

// ---------------------------------------------------------------- im2col / col2im (F.unfold / F.fold)

namespace {
Window3 fold_window(IntArrayRef image, int64_t bh, int64_t bw, IntArrayRef k, IntArrayRef d, IntArrayRef p,
                    IntArrayRef s) {
  const int64_t blocks[2] = {bh, bw};
  return make_window(2, image, IntArrayRef(blocks, 2), k, s, p, d);
}

void check_fold_dtype(const char* op, ScalarType t) {
  TL_CHECK_NOT_IMPLEMENTED(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half ||
                               t == ScalarType::BFloat16,
                           "\"", op, "\" not implemented for '", toString(t), "'");
}
}  // namespace

TensorBase im2col_cpu(const TensorBase& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
                      IntArrayRef stride) {
  int64_t bh, bw;
  std::vector<int64_t> out = im2col_output_sizes(self, kernel_size, dilation, padding, stride, &bh, &bw);
  check_fold_dtype("im2col", self.scalar_type());
  TensorBase result = make_empty(IntArrayRef(out), self.options());
  if (result.numel() == 0) return result;
  TensorBase x = contiguous(self);
  const int64_t b = self.dim() - 3, N = b ? self.sizes()[0] : 1, C = self.sizes()[b];
  Window3 w = fold_window(self.sizes().slice(b + 1), bh, bw, kernel_size, dilation, padding, stride);
  TL_DISPATCH_FLOATING_TYPES(self.scalar_type(), "im2col", [&] {
    // A pure copy: float16/bfloat16 need no wider type.
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* rp = result.data_ptr<scalar_t>();
    const int64_t in_per = C * w.in_numel(), out_per = C * w.k_numel() * w.out_numel();
    at::parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(w.k_numel() * w.out_numel(), 1)),
                     [&](int64_t s, int64_t e) {
                       for (int64_t i = s; i < e; ++i) {
                         const int64_t n = i / C, c = i % C;
                         vol2col(xp + n * in_per + c * w.in_numel(), 1, w,
                                 rp + n * out_per + c * w.k_numel() * w.out_numel());
                       }
                     });
  });
  return result;
}

TensorBase col2im_cpu(const TensorBase& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
                      IntArrayRef padding, IntArrayRef stride) {
  int64_t bh, bw;
  std::vector<int64_t> out = col2im_output_sizes(self, output_size, kernel_size, dilation, padding, stride, &bh, &bw);
  check_fold_dtype("col2im", self.scalar_type());
  TensorBase result = make_empty(IntArrayRef(out), self.options());
  if (result.numel() == 0) return result;
  const ScalarType ct = compute_type(self.scalar_type());
  TensorBase cols = prepared(self);
  TensorBase y = ct == result.scalar_type() ? result : make_empty(IntArrayRef(out), result.options().with_dtype(ct));
  const int64_t b = self.dim() - 2, N = b ? self.sizes()[0] : 1, C = out[b];
  Window3 w = fold_window(output_size, bh, bw, kernel_size, dilation, padding, stride);
  TL_DISPATCH_FLOATING_TYPES(ct, "col2im", [&] {
    if constexpr (!std::is_same_v<scalar_t, c10::Half> && !std::is_same_v<scalar_t, c10::BFloat16>) {
      const scalar_t* cp = cols.data_ptr<scalar_t>();
      scalar_t* yp = y.data_ptr<scalar_t>();
      const int64_t in_per = C * w.k_numel() * w.out_numel(), out_per = C * w.in_numel();
      at::parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(w.k_numel() * w.out_numel(), 1)),
                       [&](int64_t s, int64_t e) {
                         for (int64_t i = s; i < e; ++i) {
                           const int64_t n = i / C, c = i % C;
                           scalar_t* dst = yp + n * out_per + c * w.in_numel();
                           std::fill(dst, dst + w.in_numel(), scalar_t(0));
                           col2vol(cp + n * in_per + c * w.k_numel() * w.out_numel(), 1, w, dst);
                         }
                       });
    }
  });
  if (!y.is_same(result)) copy_into(result, y);
  return result;
}

}  // namespace at::native
