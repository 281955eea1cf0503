// CPU kernels of the softmax family, layer_norm, batch_norm and embedding.
//
// Every kernel works on contiguous data in opmath precision (float for
// float16/bfloat16): rows are converted once, reduced with `omp simd`
// reductions (so the compiler vectorises max/sum without -ffast-math), and
// exponentials use tl_math::exp, which is branch-free and vectorises where
// std::exp would be an opaque call. Parallelism is over independent rows or
// channels, never inside one reduction, so results do not depend on the
// thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "../Math.h"
#include "../NnNorm.h"
#include "../NnRowStats.h"
#include "aten/Parallel.h"
#include "ops/_softmax_backward_data.h"
#include "ops/_log_softmax_backward_data.h"
#include "ops/_to_copy.h"
#include "ops/contiguous.h"
#include "ops/embedding.h"
#include "ops/embedding_dense_backward.h"
#include "ops/embedding_renorm.h"
#include "ops/log_softmax.h"
#include "ops/native_batch_norm.h"
#include "ops/native_layer_norm.h"
#include "ops/softmax.h"
#include "ops/zeros.h"

namespace at::native {

namespace {

// TL_DISPATCH_FLOATING_TYPES with the body as a generic lambda taking a
// value of the element type: the body is then a template (so `if constexpr`
// discards per type) and not a macro argument (where `#pragma omp simd`
// cannot appear).
template <class F>
void dispatch_floating(ScalarType t, const char* name, const F& f) {
  switch (t) {
    case ScalarType::Half: f(c10::Half()); break;
    case ScalarType::BFloat16: f(c10::BFloat16()); break;
    case ScalarType::Float: f(float()); break;
    case ScalarType::Double: f(double()); break;
    default:
      TL_CHECK_NOT_IMPLEMENTED(false, "\"", name, "\" not implemented for '", c10::toString(t), "'");
  }
}

template <class A>
inline A exp_acc(A x) {
  if constexpr (std::is_same<A, float>::value) return tl_math::exp(x);
  else return std::exp(x);
}

// Rows per parallel task: about kGrainSize elements of work each.
inline int64_t row_grain(int64_t row_len) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, row_len)); }

// ---------------------------------------------------------------- softmax

// Contiguous rows (dim is the last one after folding): max, sum of exp, scale.
template <class T, bool Log>
void softmax_lastdim(const T* in, T* out, int64_t rows, int64_t n) {
  using A = c10::opmath_t<T>;
  constexpr bool same = std::is_same<T, A>::value;
  parallel_for(0, rows, row_grain(n), [&](int64_t b, int64_t e) {
    std::vector<A> buf(same ? 0 : n);
    for (int64_t r = b; r < e; ++r) {
      const T* x = in + r * n;
      T* y = out + r * n;
      const A* xs;
      A* t;
      if constexpr (same) {
        xs = x;
        t = y;
      } else {
        for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<A>(x[i]);
        xs = buf.data();
        t = buf.data();
      }
      const A m = row_stats::lane_max<A>(xs, n, -std::numeric_limits<A>::infinity());
      // A NaN never wins the max above, but exp(NaN - m) carries it into the
      // sum, so the whole row becomes NaN, as in PyTorch.
      A s = 0;
      if constexpr (Log) {
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < n; ++i) s += exp_acc<A>(xs[i] - m);
        const A shift = m + std::log(s);
        for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(xs[i] - shift);
      } else {
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < n; ++i) {
          A v = exp_acc<A>(xs[i] - m);
          t[i] = v;
          s += v;
        }
        const A inv = A(1) / s;
        for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(t[i] * inv);
      }
    }
  });
}

// dim is not the last one: each (outer, inner block) is reduced along `size`
// elements `inner` apart, the block's inner positions side by side so the
// loops over them vectorise.
template <class T, bool Log>
void softmax_strided(const T* in, T* out, const RowGeometry& g) {
  using A = c10::opmath_t<T>;
  const int64_t block = 256, nblk = (g.inner + block - 1) / block;
  parallel_for(0, g.outer * nblk, row_grain(g.size * block), [&](int64_t b, int64_t e) {
    std::vector<A> mx(block), sm(block);
    for (int64_t task = b; task < e; ++task) {
      const int64_t o = task / nblk, i0 = (task % nblk) * block, w = std::min(block, g.inner - i0);
      const T* x = in + o * g.size * g.inner + i0;
      T* y = out + o * g.size * g.inner + i0;
      for (int64_t j = 0; j < w; ++j) {
        mx[j] = -std::numeric_limits<A>::infinity();
        sm[j] = 0;
      }
      for (int64_t d = 0; d < g.size; ++d)
        for (int64_t j = 0; j < w; ++j) {
          A v = static_cast<A>(x[d * g.inner + j]);
          mx[j] = v > mx[j] ? v : mx[j];
        }
      for (int64_t d = 0; d < g.size; ++d)
        for (int64_t j = 0; j < w; ++j) sm[j] += exp_acc<A>(static_cast<A>(x[d * g.inner + j]) - mx[j]);
      if constexpr (Log) {
        for (int64_t j = 0; j < w; ++j) mx[j] += std::log(sm[j]);
        for (int64_t d = 0; d < g.size; ++d)
          for (int64_t j = 0; j < w; ++j) y[d * g.inner + j] = static_cast<T>(static_cast<A>(x[d * g.inner + j]) - mx[j]);
      } else {
        for (int64_t j = 0; j < w; ++j) sm[j] = A(1) / sm[j];
        for (int64_t d = 0; d < g.size; ++d)
          for (int64_t j = 0; j < w; ++j)
            y[d * g.inner + j] = static_cast<T>(exp_acc<A>(static_cast<A>(x[d * g.inner + j]) - mx[j]) * sm[j]);
      }
    }
  });
}

template <bool Log>
TensorBase softmax_impl(const char* op, const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  SoftmaxPlan plan = softmax_plan(op, self, dim, dtype);
  TensorBase in = self.scalar_type() == plan.dtype ? self : at::_ops::_to_copy(self, plan.dtype);
  in = at::_ops::contiguous(in);
  TensorBase out = make_empty(in.sizes(), in.options());
  if (out.numel() == 0) return out;
  RowGeometry g = row_geometry(in.sizes(), plan.dim);
  dispatch_floating(plan.dtype, op, [&](auto tag_) {
    using scalar_t = decltype(tag_);
    if (g.inner == 1)
      softmax_lastdim<scalar_t, Log>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), g.outer, g.size);
    else
      softmax_strided<scalar_t, Log>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), g);
  });
  return out;
}

// Backward of both: softmax gives y * (g - sum(g * y)); log_softmax gives
// g - exp(y) * sum(g). Computed in the output's dtype, then cast to the input's.
template <bool Log>
TensorBase softmax_backward_impl(const char* op, const TensorBase& grad, const TensorBase& output, int64_t dim,
                                 ScalarType input_dtype) {
  TL_CHECK(grad.sizes() == output.sizes(), op, ": grad_output and output must have the same shape, got ",
           grad.sizes(), " and ", output.sizes());
  TL_CHECK(grad.scalar_type() == output.scalar_type(), op, ": grad_output and output must have the same dtype");
  TL_CHECK(c10::isFloatingType(output.scalar_type()), op, ": expected a floating output, got ", output.scalar_type());
  int64_t d = maybe_wrap_dim(dim, output.dim());
  TensorBase g = at::_ops::contiguous(grad), y = at::_ops::contiguous(output);
  TensorBase gi = make_empty(y.sizes(), y.options());
  if (gi.numel() > 0) {
    RowGeometry geo = row_geometry(y.sizes(), d);
    dispatch_floating(y.scalar_type(), op, [&](auto tag_) {
    using scalar_t = decltype(tag_);
      using A = c10::opmath_t<scalar_t>;
      const scalar_t* gp = g.data_ptr<scalar_t>();
      const scalar_t* yp = y.data_ptr<scalar_t>();
      scalar_t* op_ = gi.data_ptr<scalar_t>();
      const int64_t n = geo.size, inner = geo.inner;
      parallel_for(0, geo.outer * inner, row_grain(n), [&](int64_t b, int64_t e) {
        for (int64_t row = b; row < e; ++row) {
          const int64_t base = (row / inner) * n * inner + row % inner;
          const scalar_t* gr = gp + base;
          const scalar_t* yr = yp + base;
          scalar_t* o = op_ + base;
          A s = 0;
          if (inner == 1) {
            s = row_stats::lane_sum<A>(n, [&](int64_t i) {
              return Log ? static_cast<A>(gr[i]) : static_cast<A>(gr[i]) * static_cast<A>(yr[i]);
            });
            if constexpr (Log) {
#pragma omp simd
              for (int64_t i = 0; i < n; ++i)
                o[i] = static_cast<scalar_t>(static_cast<A>(gr[i]) - exp_acc<A>(static_cast<A>(yr[i])) * s);
            } else {
#pragma omp simd
              for (int64_t i = 0; i < n; ++i)
                o[i] = static_cast<scalar_t>(static_cast<A>(yr[i]) * (static_cast<A>(gr[i]) - s));
            }
          } else {
            for (int64_t i = 0; i < n; ++i)
              s += Log ? static_cast<A>(gr[i * inner]) : static_cast<A>(gr[i * inner]) * static_cast<A>(yr[i * inner]);
            for (int64_t i = 0; i < n; ++i) {
              A gv = static_cast<A>(gr[i * inner]), yv = static_cast<A>(yr[i * inner]);
              o[i * inner] = static_cast<scalar_t>(Log ? gv - exp_acc<A>(yv) * s : yv * (gv - s));
            }
          }
        }
      });
    });
  }
  return gi.scalar_type() == input_dtype ? gi : at::_ops::_to_copy(gi, input_dtype);
}

// A weight/bias/stat value as opmath, or `dflt` when the tensor is absent.
template <class A>
struct ChannelValues {
  std::vector<A> v;
  ChannelValues(const TensorBase& t, int64_t n, A dflt) : v((size_t)n, dflt) {
    if (!t.defined()) return;
    TensorBase c = at::_ops::contiguous(t);
    dispatch_floating(c.scalar_type(), "norm", [&](auto tag_) {
    using scalar_t = decltype(tag_);
      const scalar_t* p = c.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<A>(p[i]);
    });
  }
  A operator[](int64_t i) const { return v[i]; }
  const A* data() const { return v.data(); }
};

// Writes opmath values into a contiguous or strided 1-D tensor of any floating dtype.
template <class A>
void store_channels(const TensorBase& t, const A* vals, int64_t n) {
  dispatch_floating(t.scalar_type(), "norm", [&](auto tag_) {
    using scalar_t = decltype(tag_);
    scalar_t* p = t.data_ptr<scalar_t>();
    const int64_t st = t.is_contiguous() || t.dim() == 0 ? 1 : t.strides()[0];
    for (int64_t i = 0; i < n; ++i) p[i * st] = static_cast<scalar_t>(vals[i]);
  });
}

inline TensorBase opt(const std::optional<TensorBase>& t) { return t ? *t : TensorBase(); }

}  // namespace

TensorBase softmax_cpu(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl<false>("softmax", self, dim, dtype);
}
TensorBase log_softmax_cpu(const TensorBase& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl<true>("log_softmax", self, dim, dtype);
}
TensorBase softmax_backward_data_cpu(const TensorBase& grad_output, const TensorBase& output, int64_t dim,
                                     ScalarType input_dtype) {
  return softmax_backward_impl<false>("_softmax_backward_data", grad_output, output, dim, input_dtype);
}
TensorBase log_softmax_backward_data_cpu(const TensorBase& grad_output, const TensorBase& output, int64_t dim,
                                         ScalarType input_dtype) {
  return softmax_backward_impl<true>("_log_softmax_backward_data", grad_output, output, dim, input_dtype);
}

// ---------------------------------------------------------------- layer_norm

std::tuple<TensorBase, TensorBase, TensorBase> native_layer_norm_cpu(const TensorBase& input,
                                                                     IntArrayRef normalized_shape,
                                                                     const std::optional<TensorBase>& weight,
                                                                     const std::optional<TensorBase>& bias,
                                                                     double eps) {
  // (Plain variables, not a structured binding: lambdas below capture them,
  // which C++17 allows only for variables; clang rejects captured bindings.)
  const auto plan = layer_norm_plan(input, normalized_shape, weight, bias);
  const int64_t M = std::get<0>(plan), N = std::get<1>(plan);
  TensorBase x = at::_ops::contiguous(input);
  TensorBase out = make_empty(x.sizes(), x.options());
  DimVector ss = layer_norm_stat_shape(input, (int64_t)normalized_shape.size());
  TensorOptions so = x.options().with_dtype(stat_dtype(x.scalar_type()));
  TensorBase mean = make_empty(ss, so), rstd = make_empty(ss, so);
  if (M == 0) return {out, mean, rstd};
  dispatch_floating(x.scalar_type(), "native_layer_norm", [&](auto tag_) {
    using scalar_t = decltype(tag_);
    using A = c10::opmath_t<scalar_t>;
    ChannelValues<A> w(opt(weight), N, A(1)), bb(opt(bias), N, A(0));
    const bool has_w = weight && weight->defined(), has_b = bias && bias->defined();
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* yp = out.data_ptr<scalar_t>();
    A* mp = mean.data_ptr<A>();
    A* rp = rstd.data_ptr<A>();
    parallel_for(0, M, row_grain(N), [&](int64_t b, int64_t e) {
      std::vector<A> buf(std::is_same<scalar_t, A>::value ? 0 : N);
      for (int64_t r = b; r < e; ++r) {
        const A* xr;
        if constexpr (std::is_same<scalar_t, A>::value) {
          xr = xp + r * N;
        } else {
          for (int64_t i = 0; i < N; ++i) buf[i] = static_cast<A>(xp[r * N + i]);
          xr = buf.data();
        }
        A mu, var;
        row_stats::mean_var<A>(xr, N, mu, var);
        const A rs = A(1) / std::sqrt(var + static_cast<A>(eps));
        mp[r] = mu;
        rp[r] = rs;
        scalar_t* y = yp + r * N;
        const A* wp = w.data();
        const A* bp = bb.data();
        if (has_w && has_b) {
#pragma omp simd
          for (int64_t i = 0; i < N; ++i) y[i] = static_cast<scalar_t>((xr[i] - mu) * rs * wp[i] + bp[i]);
        } else if (has_w) {
#pragma omp simd
          for (int64_t i = 0; i < N; ++i) y[i] = static_cast<scalar_t>((xr[i] - mu) * rs * wp[i]);
        } else {
#pragma omp simd
          for (int64_t i = 0; i < N; ++i) y[i] = static_cast<scalar_t>((xr[i] - mu) * rs + bp[i]);
        }
      }
    });
  });
  return {out, mean, rstd};
}

// dx = rstd * (g*w - mean(g*w) - xhat * mean(g*w*xhat)); dw = sum_rows g*xhat;
// db = sum_rows g. dw/db are summed per chunk of rows into private buffers and
// the buffers added at the end (a fixed chunking, so the sums are reproducible).
std::tuple<TensorBase, TensorBase, TensorBase> layer_norm_backward_cpu(
    const TensorBase& grad_out, const TensorBase& input, IntArrayRef normalized_shape, const TensorBase& mean,
    const TensorBase& rstd, const TensorBase& weight, std::array<bool, 3> mask) {
  const auto plan = layer_norm_plan(input, normalized_shape,
                                    weight.defined() ? std::optional<TensorBase>(weight) : std::nullopt, std::nullopt);
  const int64_t M = std::get<0>(plan), N = std::get<1>(plan);
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: grad_out has shape ", grad_out.sizes(),
           ", expected ", input.sizes());
  TensorBase x = at::_ops::contiguous(input), g = at::_ops::contiguous(grad_out);
  TensorBase mu = at::_ops::contiguous(mean), rs = at::_ops::contiguous(rstd);
  if (g.scalar_type() != x.scalar_type()) g = at::_ops::_to_copy(g, x.scalar_type());
  TensorBase dx, dw, db;
  if (mask[0]) dx = make_empty(x.sizes(), x.options());
  const bool want_w = mask[1] && weight.defined(), want_b = mask[2];
  ScalarType param_dtype = weight.defined() ? weight.scalar_type() : x.scalar_type();
  DimVector pshape(normalized_shape);
  dispatch_floating(x.scalar_type(), "native_layer_norm_backward", [&](auto tag_) {
    using scalar_t = decltype(tag_);
    using A = c10::opmath_t<scalar_t>;
    ChannelValues<A> w(weight, N, A(1));
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    const A* mp = mu.data_ptr<A>();
    const A* rp = rs.data_ptr<A>();
    scalar_t* dxp = mask[0] ? dx.data_ptr<scalar_t>() : nullptr;
    const int64_t nchunks = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), M));
    std::vector<A> pw((want_w ? nchunks * N : 0), A(0)), pb((want_b ? nchunks * N : 0), A(0));
    parallel_for(0, nchunks, 1, [&](int64_t cb, int64_t ce) {
      const A* wp = w.data();
      const A inv_n = A(1) / static_cast<A>(N);
      for (int64_t c = cb; c < ce; ++c) {
        const int64_t r0 = M * c / nchunks, r1 = M * (c + 1) / nchunks;
        A* accw = want_w ? pw.data() + c * N : nullptr;
        A* accb = want_b ? pb.data() + c * N : nullptr;
        for (int64_t r = r0; r < r1; ++r) {
          const A m = mp[r], s = rp[r];
          const scalar_t* xr = xp + r * N;
          const scalar_t* gr = gp + r * N;
          // One pass over the row for the parameter gradients and dx's two
          // row sums (xhat recomputed, never stored); the sums run in lanes
          // (NnRowStats.h) so they are not bound by one add chain.
          if (accw) {
#pragma omp simd
            for (int64_t i = 0; i < N; ++i) accw[i] += static_cast<A>(gr[i]) * ((static_cast<A>(xr[i]) - m) * s);
          }
          if (accb) {
#pragma omp simd
            for (int64_t i = 0; i < N; ++i) accb[i] += static_cast<A>(gr[i]);
          }
          if (dxp) {
            A s1, s2;  // sum(g*w), sum(g*w*xhat)
            row_stats::lane_sum2<A>(
                N,
                [&](int64_t i, A& a1, A& a2) {
                  const A gw = static_cast<A>(gr[i]) * wp[i];
                  a1 += gw;
                  a2 += gw * ((static_cast<A>(xr[i]) - m) * s);
                },
                s1, s2);
            s1 *= inv_n;
            s2 *= inv_n;
            scalar_t* o = dxp + r * N;
#pragma omp simd
            for (int64_t i = 0; i < N; ++i) {
              const A xh = (static_cast<A>(xr[i]) - m) * s;
              o[i] = static_cast<scalar_t>(s * (static_cast<A>(gr[i]) * wp[i] - s1 - xh * s2));
            }
          }
        }
      }
    });
    auto finish = [&](std::vector<A>& parts) {
      for (int64_t c = 1; c < nchunks; ++c)
        for (int64_t i = 0; i < N; ++i) parts[i] += parts[c * N + i];
      TensorBase t = make_empty(pshape, x.options().with_dtype(param_dtype));
      store_channels<A>(t, parts.data(), N);
      return t;
    };
    if (want_w) dw = finish(pw);
    if (want_b) db = finish(pb);
  });
  return {dx, dw, db};
}

// ---------------------------------------------------------------- batch_norm

namespace {

// (N, C, S) geometry of a batch_norm input.
struct BNGeometry {
  int64_t n, c, s;
};
BNGeometry bn_geometry(const TensorBase& x) {
  BNGeometry g{x.sizes()[0], x.sizes()[1], 1};
  for (int64_t d = 2; d < x.dim(); ++d) g.s *= x.sizes()[d];
  return g;
}

}  // namespace

std::tuple<TensorBase, TensorBase, TensorBase> native_batch_norm_cpu(
    const TensorBase& input, const std::optional<TensorBase>& weight, const std::optional<TensorBase>& bias,
    const std::optional<TensorBase>& running_mean, const std::optional<TensorBase>& running_var, bool training,
    double momentum, double eps) {
  const int64_t C = batch_norm_check(input, weight, bias, running_mean, running_var, training);
  TensorBase x = at::_ops::contiguous(input);
  TensorBase out = make_empty(x.sizes(), x.options());
  TensorOptions so = x.options().with_dtype(stat_dtype(x.scalar_type()));
  TensorBase save_mean = make_empty(IntArrayRef{training ? C : 0}, so);
  TensorBase save_invstd = make_empty(IntArrayRef{training ? C : 0}, so);
  TensorBase rm = opt(running_mean), rv = opt(running_var);
  BNGeometry geo = bn_geometry(x);
  const int64_t count = geo.n * geo.s;
  dispatch_floating(x.scalar_type(), "native_batch_norm", [&](auto tag_) {
    using scalar_t = decltype(tag_);
    using A = c10::opmath_t<scalar_t>;
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* yp = out.data_ptr<scalar_t>();
    std::vector<A> mean((size_t)C, A(0)), invstd((size_t)C, A(0));
    if (training) {
      std::vector<A> var((size_t)C, A(0));
      // Per channel: N slabs of S contiguous elements; two passes as in layer_norm.
      parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, count)), [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          A s = 0;
          for (int64_t n = 0; n < geo.n; ++n) {
            const scalar_t* p = xp + (n * C + c) * geo.s;
#pragma omp simd reduction(+ : s)
            for (int64_t i = 0; i < geo.s; ++i) s += static_cast<A>(p[i]);
          }
          const A mu = count > 0 ? s / count : A(0);
          A q = 0;
          for (int64_t n = 0; n < geo.n; ++n) {
            const scalar_t* p = xp + (n * C + c) * geo.s;
#pragma omp simd reduction(+ : q)
            for (int64_t i = 0; i < geo.s; ++i) q += (static_cast<A>(p[i]) - mu) * (static_cast<A>(p[i]) - mu);
          }
          mean[c] = mu;
          var[c] = count > 0 ? q / count : A(0);
          invstd[c] = A(1) / std::sqrt(var[c] + static_cast<A>(eps));
        }
      });
      store_channels<A>(save_mean, mean.data(), C);
      store_channels<A>(save_invstd, invstd.data(), C);
      // running = (1 - momentum) * running + momentum * batch, the variance
      // unbiased (count / (count - 1)) as PyTorch keeps it.
      if (rm.defined() || rv.defined()) {
        std::vector<double> nm((size_t)C), nv((size_t)C);
        ChannelValues<double> oldm(rm, C, 0.0), oldv(rv, C, 0.0);
        const double unbias = count > 1 ? (double)count / (double)(count - 1) : std::numeric_limits<double>::infinity();
        for (int64_t c = 0; c < C; ++c) {
          nm[c] = (1 - momentum) * oldm[c] + momentum * (double)mean[c];
          nv[c] = (1 - momentum) * oldv[c] + momentum * (double)var[c] * unbias;
        }
        // No version bump, as in PyTorch (the schema does not mark them
        // written): the autograd node saves them for eval-mode backward.
        if (rm.defined()) store_channels<double>(rm, nm.data(), C);
        if (rv.defined()) store_channels<double>(rv, nv.data(), C);
      }
    } else {
      ChannelValues<A> m(rm, C, A(0)), v(rv, C, A(1));
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = m[c];
        invstd[c] = A(1) / std::sqrt(v[c] + static_cast<A>(eps));
      }
    }
    // y = x * scale + shift per channel.
    ChannelValues<A> w(opt(weight), C, A(1)), bb(opt(bias), C, A(0));
    parallel_for(0, geo.n * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, geo.s)), [&](int64_t b, int64_t e) {
      for (int64_t nc = b; nc < e; ++nc) {
        const int64_t c = nc % C;
        const A scale = invstd[c] * w[c], shift = bb[c] - mean[c] * scale;
        const scalar_t* p = xp + nc * geo.s;
        scalar_t* q = yp + nc * geo.s;
#pragma omp simd
        for (int64_t i = 0; i < geo.s; ++i) q[i] = static_cast<scalar_t>(static_cast<A>(p[i]) * scale + shift);
      }
    });
  });
  return {out, save_mean, save_invstd};
}

std::tuple<TensorBase, TensorBase, TensorBase> batch_norm_backward_cpu(
    const TensorBase& grad_out, const TensorBase& input, const TensorBase& weight, const TensorBase& running_mean,
    const TensorBase& running_var, const TensorBase& save_mean, const TensorBase& save_invstd, bool training,
    double eps, std::array<bool, 3> mask) {
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_batch_norm_backward: grad_out has shape ", grad_out.sizes(),
           ", expected ", input.sizes());
  TensorBase x = at::_ops::contiguous(input), g = at::_ops::contiguous(grad_out);
  if (g.scalar_type() != x.scalar_type()) g = at::_ops::_to_copy(g, x.scalar_type());
  BNGeometry geo = bn_geometry(x);
  const int64_t C = geo.c, count = geo.n * geo.s;
  TensorBase dx, dw, db;
  const bool want_w = mask[1] && weight.defined(), want_b = mask[2];
  ScalarType param_dtype = weight.defined() ? weight.scalar_type() : x.scalar_type();
  if (mask[0]) dx = make_empty(x.sizes(), x.options());
  dispatch_floating(x.scalar_type(), "native_batch_norm_backward", [&](auto tag_) {
    using scalar_t = decltype(tag_);
    using A = c10::opmath_t<scalar_t>;
    std::vector<A> mean((size_t)C), invstd((size_t)C);
    if (training) {
      ChannelValues<A> m(save_mean, C, A(0)), s(save_invstd, C, A(1));
      mean = m.v;
      invstd = s.v;
    } else {
      ChannelValues<A> m(running_mean, C, A(0)), v(running_var, C, A(1));
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = m[c];
        invstd[c] = A(1) / std::sqrt(v[c] + static_cast<A>(eps));
      }
    }
    ChannelValues<A> w(weight, C, A(1));
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* gp = g.data_ptr<scalar_t>();
    // Per channel: sum(g) and sum(g * (x - mean)).
    std::vector<A> sum_g((size_t)C), sum_gx((size_t)C);
    parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, count)), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        const A mu = mean[c];
        A s1 = 0, s2 = 0;
        for (int64_t n = 0; n < geo.n; ++n) {
          const scalar_t* xr = xp + (n * C + c) * geo.s;
          const scalar_t* gr = gp + (n * C + c) * geo.s;
#pragma omp simd reduction(+ : s1, s2)
          for (int64_t i = 0; i < geo.s; ++i) {
            A gv = static_cast<A>(gr[i]);
            s1 += gv;
            s2 += gv * (static_cast<A>(xr[i]) - mu);
          }
        }
        sum_g[c] = s1;
        sum_gx[c] = s2;
      }
    });
    if (mask[0]) {
      scalar_t* dxp = dx.data_ptr<scalar_t>();
      parallel_for(0, geo.n * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, geo.s)), [&](int64_t b, int64_t e) {
        for (int64_t nc = b; nc < e; ++nc) {
          const int64_t c = nc % C;
          const A mu = mean[c], is = invstd[c], k = w[c] * is;
          const scalar_t* xr = xp + nc * geo.s;
          const scalar_t* gr = gp + nc * geo.s;
          scalar_t* o = dxp + nc * geo.s;
          if (training) {
            // dx = w*invstd * (g - mean(g) - (x - mean) * invstd^2 * mean(g*(x - mean)))
            const A mg = count > 0 ? sum_g[c] / count : A(0);
            const A proj = count > 0 ? sum_gx[c] / count * is * is : A(0);
#pragma omp simd
            for (int64_t i = 0; i < geo.s; ++i)
              o[i] = static_cast<scalar_t>(k * (static_cast<A>(gr[i]) - mg - (static_cast<A>(xr[i]) - mu) * proj));
          } else {
#pragma omp simd
            for (int64_t i = 0; i < geo.s; ++i) o[i] = static_cast<scalar_t>(k * static_cast<A>(gr[i]));
          }
        }
      });
    }
    if (want_w) {
      std::vector<A> v((size_t)C);
      for (int64_t c = 0; c < C; ++c) v[c] = sum_gx[c] * invstd[c];
      dw = make_empty(IntArrayRef{C}, x.options().with_dtype(param_dtype));
      store_channels<A>(dw, v.data(), C);
    }
    if (want_b) {
      db = make_empty(IntArrayRef{C}, x.options().with_dtype(param_dtype));
      store_channels<A>(db, sum_g.data(), C);
    }
  });
  return {dx, dw, db};
}

// ---------------------------------------------------------------- embedding

namespace {

// Indices as int64, contiguous, each checked against [0, num_weights).
std::vector<int64_t> checked_indices(const TensorBase& indices, int64_t num_weights) {
  TensorBase ind = at::_ops::contiguous(indices);
  std::vector<int64_t> v((size_t)ind.numel());
  auto check = [&](int64_t i) {
    TL_CHECK_INDEX(i >= 0 && i < num_weights, "embedding: index ", i, " out of range in self (num_embeddings ",
                   num_weights, ")");
  };
  if (ind.scalar_type() == ScalarType::Long) {
    const int64_t* p = ind.data_ptr<int64_t>();
    for (size_t k = 0; k < v.size(); ++k) check(v[k] = p[k]);
  } else {
    const int32_t* p = ind.data_ptr<int32_t>();
    for (size_t k = 0; k < v.size(); ++k) check(v[k] = p[k]);
  }
  return v;
}

}  // namespace

TensorBase embedding_cpu(const TensorBase& weight, const TensorBase& indices, int64_t padding_idx,
                         bool scale_grad_by_freq, bool sparse) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  TL_CHECK_NOT_IMPLEMENTED(!sparse, "embedding: sparse=True gradients are not supported (torchlike has no sparse tensors)");
  embedding_check(weight, indices);
  const int64_t V = weight.sizes()[0], D = weight.sizes()[1];
  std::vector<int64_t> idx = checked_indices(indices, V);
  DimVector sizes(indices.sizes());
  sizes.push_back(D);
  TensorBase out = make_empty(sizes, weight.options());
  if (out.numel() == 0) return out;
  TensorBase w = at::_ops::contiguous(weight);
  const size_t row = (size_t)D * w.itemsize();
  const char* src = static_cast<const char*>(w.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  parallel_for(0, (int64_t)idx.size(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, D)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) std::memcpy(dst + k * row, src + idx[k] * row, row);
  });
  return out;
}

// Rows are split among threads by destination (thread t owns weight rows
// [V*t/T, V*(t+1)/T)), so no two threads add into the same row and the order
// of additions per row is the order of the indices: deterministic.
TensorBase embedding_dense_backward_cpu(const TensorBase& grad_output, const TensorBase& indices,
                                        int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq) {
  TL_CHECK(indices.scalar_type() == ScalarType::Long || indices.scalar_type() == ScalarType::Int,
           "embedding_dense_backward: indices must be int64 or int32, got ", indices.scalar_type());
  TL_CHECK(grad_output.dim() >= 1, "embedding_dense_backward: grad_output must have at least one dim");
  const int64_t D = grad_output.sizes()[grad_output.dim() - 1];
  TL_CHECK(grad_output.numel() == indices.numel() * D, "embedding_dense_backward: grad_output has ",
           grad_output.numel(), " elements, expected ", indices.numel(), " x ", D);
  std::vector<int64_t> idx = checked_indices(indices, num_weights);
  TensorBase g = at::_ops::contiguous(grad_output);
  TensorBase out = at::_ops::zeros(IntArrayRef{num_weights, D}, g.scalar_type(), std::nullopt, g.device());
  if (idx.empty() || D == 0) return out;
  std::vector<int64_t> counts;
  if (scale_grad_by_freq) {
    counts.assign((size_t)num_weights, 0);
    for (int64_t i : idx) ++counts[i];
  }
  dispatch_floating(g.scalar_type(), "embedding_dense_backward", [&](auto tag_) {
    using scalar_t = decltype(tag_);
    using A = c10::opmath_t<scalar_t>;
    const scalar_t* gp = g.data_ptr<scalar_t>();
    scalar_t* op = out.data_ptr<scalar_t>();
    const int64_t K = (int64_t)idx.size();
    const int64_t T = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), K * D / 16384 + 1));
    parallel_for(0, T, 1, [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; ++t) {
        const int64_t lo = num_weights * t / T, hi = num_weights * (t + 1) / T;
        // Half types accumulate each row in float, written once at the end.
        std::vector<A> acc;
        std::vector<int64_t> touched;
        if constexpr (!std::is_same<scalar_t, A>::value) acc.assign((size_t)(hi - lo) * D, A(0));
        for (int64_t k = 0; k < K; ++k) {
          const int64_t i = idx[k];
          if (i < lo || i >= hi || i == padding_idx) continue;
          const A scale = scale_grad_by_freq ? A(1) / static_cast<A>(counts[i]) : A(1);
          const scalar_t* src = gp + k * D;
          if constexpr (std::is_same<scalar_t, A>::value) {
            scalar_t* dst = op + i * D;
#pragma omp simd
            for (int64_t j = 0; j < D; ++j) dst[j] += src[j] * scale;
          } else {
            A* dst = acc.data() + (i - lo) * D;
            for (int64_t j = 0; j < D; ++j) dst[j] += static_cast<A>(src[j]) * scale;
            touched.push_back(i);
          }
        }
        if constexpr (!std::is_same<scalar_t, A>::value) {
          for (int64_t i : touched)
            for (int64_t j = 0; j < D; ++j) op[i * D + j] = static_cast<scalar_t>(acc[(i - lo) * D + j]);
        }
      }
    });
  });
  return out;
}

// Rows named by `indices` whose norm exceeds max_norm are scaled to
// max_norm / (norm + 1e-7), in place, each row once (as PyTorch).
TensorBase embedding_renorm_cpu_(const TensorBase& self, const TensorBase& indices, double max_norm,
                                 double norm_type) {
  embedding_check(self, indices);
  std::vector<int64_t> idx = checked_indices(indices, self.sizes()[0]);
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  const int64_t D = self.sizes()[1], s0 = self.strides()[0], s1 = self.strides()[1];
  dispatch_floating(self.scalar_type(), "embedding_renorm_", [&](auto tag_) {
    using scalar_t = decltype(tag_);
    scalar_t* p = self.data_ptr<scalar_t>();
    for (int64_t i : idx) {
      scalar_t* r = p + i * s0;
      double nrm = 0;
      if (std::isinf(norm_type)) {
        for (int64_t j = 0; j < D; ++j) nrm = std::max(nrm, std::abs((double)r[j * s1]));
      } else if (norm_type == 0) {
        for (int64_t j = 0; j < D; ++j) nrm += (double)r[j * s1] != 0.0;
      } else {
        for (int64_t j = 0; j < D; ++j) nrm += std::pow(std::abs((double)r[j * s1]), norm_type);
        nrm = std::pow(nrm, 1.0 / norm_type);
      }
      if (nrm > max_norm) {
        const double scale = max_norm / (nrm + 1e-7);
        for (int64_t j = 0; j < D; ++j) r[j * s1] = static_cast<scalar_t>((double)r[j * s1] * scale);
      }
    }
  });
  self.bump_version();
  return self;
}

}  // namespace at::native
