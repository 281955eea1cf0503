// layer_norm and batch_norm on CUDA, forward and backward (group_norm is
// native_layer_norm over (N, groups, C/groups * spatial) plus a pointwise
// affine, so it runs on these kernels too).
//
// Statistics are Welford triples (CudaNnPlan.h): each thread folds its
// elements in one read, the block combines the triples in a fixed tree, so
// the result does not depend on timing. Parameter gradients (layer_norm's
// dweight/dbias, one sum per column over all rows) are one thread per column
// walking the rows in order: deterministic, no atomics.
#include <array>
#include <optional>
#include <tuple>

#include "aten/native/NnNorm.h"
#include "aten/native/cuda/NnCommon.cuh"
#include "c10/Library.h"
#include "ops/_to_copy.h"
#include "ops/contiguous.h"
#include "ops/copy.h"
#include "ops/native_batch_norm.h"
#include "ops/native_layer_norm.h"

namespace at::native::cuda_nn {
namespace {

inline TensorBase opt(const std::optional<TensorBase>& t) { return t && t->defined() ? *t : TensorBase(); }

// A 1-D parameter or statistic as a contiguous tensor of dtype `dt` on the
// input's device, or undefined when absent.
TensorBase as_contiguous(const TensorBase& t, ScalarType dt) {
  if (!t.defined()) return t;
  TensorBase c = t.scalar_type() == dt ? t : at::_ops::_to_copy(t, dt);
  return at::_ops::contiguous(c);
}

template <class A>
__device__ inline A param_or(const A* p, int64_t i, A dflt) {
  return p ? p[i] : dflt;
}

// A running statistic as double, exactly for double buffers.
template <class R>
__device__ inline double widen(R v) {
  if constexpr (std::is_same<R, double>::value) return v;
  else return double(static_cast<float>(v));
}

// ---------------------------------------------------------------- layer_norm

// Rows of up to kRowCache elements per thread are read once (kept in
// registers between the statistics and the writes); longer ones twice.
constexpr int kRowCache = 8;

template <class T>
__global__ void layer_norm_forward_kernel(const T* x, T* y, opmath<T>* mean_out, opmath<T>* rstd_out,
                                          const opmath<T>* w, const opmath<T>* b, int64_t M, int64_t N, opmath<T> eps) {
  using A = opmath<T>;
  __shared__ Welford<A> shared[32];
  const bool cached = N <= int64_t(kRowCache) * blockDim.x;
  for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
    const T* xr = x + r * N;
    A v[kRowCache];
    Welford<A> acc = welford_empty<A>();
    if (cached) {
#pragma unroll
      for (int c = 0; c < kRowCache; ++c) {
        const int64_t i = threadIdx.x + int64_t(c) * blockDim.x;
        v[c] = i < N ? static_cast<A>(xr[i]) : A(0);
        if (i < N) acc = welford_add(acc, v[c]);
      }
    } else {
      for (int64_t i = threadIdx.x; i < N; i += blockDim.x) acc = welford_add(acc, static_cast<A>(xr[i]));
    }
    acc = block_allreduce(acc, welford_empty<A>(), shared,
                          [](Welford<A> a, Welford<A> c) { return welford_combine(a, c); });
    const A mu = acc.mean;
    const A rs = A(1) / sqrt(welford_var(acc) + eps);
    if (threadIdx.x == 0) {
      mean_out[r] = mu;
      rstd_out[r] = rs;
    }
    T* yr = y + r * N;
    if (cached) {
#pragma unroll
      for (int c = 0; c < kRowCache; ++c) {
        const int64_t i = threadIdx.x + int64_t(c) * blockDim.x;
        if (i < N) yr[i] = static_cast<T>((v[c] - mu) * rs * param_or(w, i, A(1)) + param_or(b, i, A(0)));
      }
    } else {
      for (int64_t i = threadIdx.x; i < N; i += blockDim.x)
        yr[i] = static_cast<T>((static_cast<A>(xr[i]) - mu) * rs * param_or(w, i, A(1)) + param_or(b, i, A(0)));
    }
  }
}

std::tuple<TensorBase, TensorBase, TensorBase> native_layer_norm_cuda(const TensorBase& input,
                                                                      IntArrayRef normalized_shape,
                                                                      const std::optional<TensorBase>& weight,
                                                                      const std::optional<TensorBase>& bias,
                                                                      double eps) {
  const auto plan = layer_norm_plan(input, normalized_shape, weight, bias);
  const int64_t M = std::get<0>(plan), N = std::get<1>(plan);
  check_same_device("native_layer_norm", input, opt(weight));
  check_same_device("native_layer_norm", input, opt(bias));
  TensorBase x = at::_ops::contiguous(input);
  TensorBase out = make_empty(x.sizes(), x.options());
  DimVector ss = layer_norm_stat_shape(input, int64_t(normalized_shape.size()));
  const ScalarType acc_dt = stat_dtype(x.scalar_type());
  TensorOptions so = x.options().with_dtype(acc_dt);
  TensorBase mean = make_empty(ss, so), rstd = make_empty(ss, so);
  if (M == 0 || N == 0) return {out, mean, rstd};
  TensorBase w = as_contiguous(opt(weight), acc_dt), b = as_contiguous(opt(bias), acc_dt);
  cudaStream_t st = stream();
  dispatch_floating(x.scalar_type(), "native_layer_norm", [&](auto tag) {
    using T = decltype(tag);
    using A = opmath<T>;
    layer_norm_forward_kernel<T><<<blocks_for(M, 1), row_block_threads(N), 0, st>>>(
        static_cast<const T*>(x.data_ptr()), static_cast<T*>(out.data_ptr()), static_cast<A*>(mean.data_ptr()),
        static_cast<A*>(rstd.data_ptr()), w.defined() ? static_cast<const A*>(w.data_ptr()) : nullptr,
        b.defined() ? static_cast<const A*>(b.data_ptr()) : nullptr, M, N, static_cast<A>(eps));
    TL_CUDA_KERNEL_LAUNCH_CHECK("native_layer_norm");
  });
  return {out, mean, rstd};
}

// dx = rstd * (g*w - mean(g*w) - xhat * mean(g*w*xhat)), one block per row.
template <class T>
__global__ void layer_norm_backward_input_kernel(const T* g, const T* x, const opmath<T>* mean,
                                                 const opmath<T>* rstd, const opmath<T>* w, T* dx, int64_t M,
                                                 int64_t N) {
  using A = opmath<T>;
  __shared__ Pair<A> shared[32];
  for (int64_t r = blockIdx.x; r < M; r += gridDim.x) {
    const T* gr = g + r * N;
    const T* xr = x + r * N;
    const A mu = mean[r], rs = rstd[r];
    Pair<A> s{A(0), A(0)};
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x) {
      const A gw = static_cast<A>(gr[i]) * param_or(w, i, A(1));
      s.a += gw;
      s.b += gw * (static_cast<A>(xr[i]) - mu) * rs;
    }
    s = block_allreduce(s, Pair<A>{A(0), A(0)}, shared, PairSumOp());
    const A inv_n = A(1) / A(N);
    const A mean_gw = s.a * inv_n, mean_gwx = s.b * inv_n;
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x) {
      const A xh = (static_cast<A>(xr[i]) - mu) * rs;
      dx[r * N + i] = static_cast<T>(rs * (static_cast<A>(gr[i]) * param_or(w, i, A(1)) - mean_gw - xh * mean_gwx));
    }
  }
}

// dweight[j] = sum_r g[r, j] * xhat[r, j], dbias[j] = sum_r g[r, j], in two
// steps so a tall matrix still fills the device: the rows are cut into
// `chunks` fixed ranges, a thread per (column, chunk) sums its range in row
// order into partials[chunk][column] (consecutive threads read consecutive
// columns), then a thread per column adds its chunks in chunk order. Fixed
// ranges and orders: the same bits on every run, no atomics.
template <class T>
__global__ void layer_norm_param_partials_kernel(const T* g, const T* x, const opmath<T>* mean,
                                                 const opmath<T>* rstd, opmath<T>* part_w, opmath<T>* part_b,
                                                 int64_t M, int64_t N, int64_t chunks) {
  using A = opmath<T>;
  const int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (j >= N) return;
  for (int64_t c = blockIdx.y; c < chunks; c += gridDim.y) {
    const int64_t r0 = M * c / chunks, r1 = M * (c + 1) / chunks;
    A sw = 0, sb = 0;
    for (int64_t r = r0; r < r1; ++r) {
      const A gv = static_cast<A>(g[r * N + j]);
      sb += gv;
      if (part_w) sw += gv * (static_cast<A>(x[r * N + j]) - mean[r]) * rstd[r];
    }
    if (part_w) part_w[c * N + j] = sw;
    if (part_b) part_b[c * N + j] = sb;
  }
}

template <class A>
__global__ void sum_chunks_kernel(const A* parts, A* out, int64_t chunks, int64_t N) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < N; j += int64_t(gridDim.x) * blockDim.x) {
    A s = 0;
    for (int64_t c = 0; c < chunks; ++c) s += parts[c * N + j];
    out[j] = s;
  }
}

// Row chunks for the parameter sums: about 32 rows each, at most 256.
inline int64_t param_chunks(int64_t M) {
  const int64_t c = (M + 31) / 32;
  return c < 1 ? 1 : (c > 256 ? 256 : c);
}

std::tuple<TensorBase, TensorBase, TensorBase> native_layer_norm_backward_cuda(
    const TensorBase& grad_out, const TensorBase& input, IntArrayRef normalized_shape, const TensorBase& mean,
    const TensorBase& rstd, const std::optional<TensorBase>& weight_arg, const std::optional<TensorBase>& bias_arg,
    bool input_grad, bool weight_grad, bool bias_grad) {
  (void)bias_arg;
  const std::array<bool, 3> mask{input_grad, weight_grad, bias_grad};
  const TensorBase weight = opt(weight_arg);
  const auto plan = layer_norm_plan(input, normalized_shape,
                                    weight.defined() ? std::optional<TensorBase>(weight) : std::nullopt, std::nullopt);
  const int64_t M = std::get<0>(plan), N = std::get<1>(plan);
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: grad_out has shape ", grad_out.sizes(),
           ", expected ", input.sizes());
  check_same_device("native_layer_norm_backward", input, grad_out);
  const ScalarType acc_dt = stat_dtype(input.scalar_type());
  TensorBase x = at::_ops::contiguous(input);
  TensorBase g = as_contiguous(grad_out, x.scalar_type());
  TensorBase mu = as_contiguous(mean, acc_dt), rs = as_contiguous(rstd, acc_dt);
  TensorBase w = as_contiguous(weight, acc_dt);
  const ScalarType param_dt = weight.defined() ? weight.scalar_type() : x.scalar_type();
  DimVector pshape(normalized_shape);
  TensorBase dx, dw, db;
  if (mask[0]) dx = make_empty(x.sizes(), x.options());
  const bool want_w = mask[1] && weight.defined(), want_b = mask[2];
  TensorBase dw_acc = want_w ? make_empty(pshape, x.options().with_dtype(acc_dt)) : TensorBase();
  TensorBase db_acc = want_b ? make_empty(pshape, x.options().with_dtype(acc_dt)) : TensorBase();
  cudaStream_t st = stream();
  dispatch_floating(x.scalar_type(), "native_layer_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = opmath<T>;
    const T* gp = static_cast<const T*>(g.data_ptr());
    const T* xp = static_cast<const T*>(x.data_ptr());
    const A* mp = static_cast<const A*>(mu.data_ptr());
    const A* rp = static_cast<const A*>(rs.data_ptr());
    if (mask[0] && M > 0 && N > 0) {
      layer_norm_backward_input_kernel<T><<<blocks_for(M, 1), row_block_threads(N), 0, st>>>(
          gp, xp, mp, rp, w.defined() ? static_cast<const A*>(w.data_ptr()) : nullptr,
          static_cast<T*>(dx.data_ptr()), M, N);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_layer_norm_backward");
    }
    if ((want_w || want_b) && N > 0) {
      if (M == 0) {
        if (want_w) TL_CUDA_CHECK(cudaMemsetAsync(dw_acc.data_ptr(), 0, size_t(N) * sizeof(A), st));
        if (want_b) TL_CUDA_CHECK(cudaMemsetAsync(db_acc.data_ptr(), 0, size_t(N) * sizeof(A), st));
        return;
      }
      const int64_t chunks = param_chunks(M);
      TensorOptions ao = x.options().with_dtype(acc_dt);
      TensorBase pw = want_w ? make_empty(IntArrayRef{chunks, N}, ao) : TensorBase();
      TensorBase pb = want_b ? make_empty(IntArrayRef{chunks, N}, ao) : TensorBase();
      const dim3 grid(unsigned((N + 127) / 128), unsigned(chunks));
      layer_norm_param_partials_kernel<T><<<grid, 128, 0, st>>>(
          gp, xp, mp, rp, want_w ? static_cast<A*>(pw.data_ptr()) : nullptr,
          want_b ? static_cast<A*>(pb.data_ptr()) : nullptr, M, N, chunks);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_layer_norm_backward");
      if (want_w) {
        sum_chunks_kernel<A><<<blocks_for(N, 256), 256, 0, st>>>(static_cast<const A*>(pw.data_ptr()),
                                                                  static_cast<A*>(dw_acc.data_ptr()), chunks, N);
        TL_CUDA_KERNEL_LAUNCH_CHECK("native_layer_norm_backward");
      }
      if (want_b) {
        sum_chunks_kernel<A><<<blocks_for(N, 256), 256, 0, st>>>(static_cast<const A*>(pb.data_ptr()),
                                                                  static_cast<A*>(db_acc.data_ptr()), chunks, N);
        TL_CUDA_KERNEL_LAUNCH_CHECK("native_layer_norm_backward");
      }
    }
  });
  if (want_w) dw = dw_acc.scalar_type() == param_dt ? dw_acc : at::_ops::_to_copy(dw_acc, param_dt);
  if (want_b) db = db_acc.scalar_type() == param_dt ? db_acc : at::_ops::_to_copy(db_acc, param_dt);
  return {dx, dw, db};
}

// ---------------------------------------------------------------- batch_norm

// (N, C, S) view of a contiguous input: channel c's elements are N slabs of
// S contiguous values, C * S apart.
struct BnShape {
  int64_t n, c, s;
};
BnShape bn_shape(const TensorBase& x) {
  BnShape g{x.sizes()[0], x.sizes()[1], 1};
  for (int64_t d = 2; d < x.dim(); ++d) g.s *= x.sizes()[d];
  return g;
}

// A channel's N*S elements are cut into `chunks` fixed ranges so that few
// channels with many elements still fill the device: block (c, k) folds
// range k of channel c (Welford statistics here, sums in the backward) and
// a second step combines a channel's ranges in order. Fixed ranges, fixed
// order: the same result on every run.
inline int64_t bn_chunks(int64_t count) {
  const int64_t c = count / 8192;
  return c < 1 ? 1 : (c > 64 ? 64 : c);
}

// Element k of channel c's N*S elements.
__device__ inline int64_t bn_offset(const BnShape& shp, int64_t c, int64_t k) {
  return ((k / shp.s) * shp.c + c) * shp.s + k % shp.s;
}

template <class T>
__global__ void batch_norm_partial_stats_kernel(const T* x, BnShape shp, int64_t chunks,
                                                Welford<opmath<T>>* parts) {
  using A = opmath<T>;
  __shared__ Welford<A> shared[32];
  const int64_t count = shp.n * shp.s, k = blockIdx.y;
  const int64_t lo = count * k / chunks, hi = count * (k + 1) / chunks;
  for (int64_t c = blockIdx.x; c < shp.c; c += gridDim.x) {
    Welford<A> acc = welford_empty<A>();
    for (int64_t e = lo + threadIdx.x; e < hi; e += blockDim.x) acc = welford_add(acc, static_cast<A>(x[bn_offset(shp, c, e)]));
    acc = block_allreduce(acc, welford_empty<A>(), shared,
                          [](Welford<A> a, Welford<A> b) { return welford_combine(a, b); });
    if (threadIdx.x == 0) parts[c * chunks + k] = acc;
  }
}

// A thread per channel: its ranges combined in order, the saved mean/invstd,
// and the running statistics updated in place in double (the CPU kernel's
// rule: momentum blend, variance unbiased by count/(count-1)).
template <class A, class R>
__global__ void batch_norm_finish_stats_kernel(const Welford<A>* parts, int64_t chunks, int64_t C, A eps,
                                               A* save_mean, A* save_invstd, R* running_mean, int64_t rm_stride,
                                               R* running_var, int64_t rv_stride, double momentum) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < C; c += int64_t(gridDim.x) * blockDim.x) {
    Welford<A> acc = welford_empty<A>();
    for (int64_t k = 0; k < chunks; ++k) acc = welford_combine(acc, parts[c * chunks + k]);
    const A var = welford_var(acc);
    save_mean[c] = acc.mean;
    save_invstd[c] = A(1) / sqrt(var + eps);
    const int64_t count = acc.count;
    const double unbias = count > 1 ? double(count) / double(count - 1) : double(INFINITY);
    if (running_mean)
      running_mean[c * rm_stride] = R((1 - momentum) * widen(running_mean[c * rm_stride]) + momentum * double(acc.mean));
    if (running_var)
      running_var[c * rv_stride] =
          R((1 - momentum) * widen(running_var[c * rv_stride]) + momentum * double(var) * unbias);
  }
}

// y = x * scale[c] + shift[c] with scale = invstd * w, shift = b - mean * scale.
template <class T>
__global__ void batch_norm_apply_kernel(const T* x, T* y, BnShape shp, const opmath<T>* mean,
                                        const opmath<T>* invstd, const opmath<T>* w, const opmath<T>* b) {
  using A = opmath<T>;
  const int64_t total = shp.n * shp.c * shp.s;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < total; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = (k / shp.s) % shp.c;
    const A scale = invstd[c] * param_or(w, c, A(1));
    const A shift = param_or(b, c, A(0)) - mean[c] * scale;
    y[k] = static_cast<T>(static_cast<A>(x[k]) * scale + shift);
  }
}

// Eval mode: mean and invstd from the running statistics.
template <class A>
__global__ void batch_norm_eval_stats_kernel(const A* rm, const A* rv, int64_t C, A eps, A* mean, A* invstd) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < C; c += int64_t(gridDim.x) * blockDim.x) {
    mean[c] = rm ? rm[c] : A(0);
    invstd[c] = A(1) / sqrt((rv ? rv[c] : A(1)) + eps);
  }
}

std::tuple<TensorBase, TensorBase, TensorBase> native_batch_norm_cuda(
    const TensorBase& input, const std::optional<TensorBase>& weight, const std::optional<TensorBase>& bias,
    const std::optional<TensorBase>& running_mean, const std::optional<TensorBase>& running_var, bool training,
    double momentum, double eps) {
  const int64_t C = batch_norm_check(input, weight, bias, running_mean, running_var, training);
  for (const TensorBase& t : {opt(weight), opt(bias), opt(running_mean), opt(running_var)})
    check_same_device("native_batch_norm", input, t);
  TensorBase x = at::_ops::contiguous(input);
  TensorBase out = make_empty(x.sizes(), x.options());
  const ScalarType acc_dt = stat_dtype(x.scalar_type());
  TensorOptions so = x.options().with_dtype(acc_dt);
  TensorBase save_mean = make_empty(IntArrayRef{training ? C : 0}, so);
  TensorBase save_invstd = make_empty(IntArrayRef{training ? C : 0}, so);
  TensorBase rm = opt(running_mean), rv = opt(running_var);
  const BnShape shp = bn_shape(x);
  TensorBase mean = training ? save_mean : make_empty(IntArrayRef{C}, so);
  TensorBase invstd = training ? save_invstd : make_empty(IntArrayRef{C}, so);
  TensorBase w = as_contiguous(opt(weight), acc_dt), b = as_contiguous(opt(bias), acc_dt);
  cudaStream_t st = stream();
  if (C == 0) return {out, save_mean, save_invstd};
  dispatch_floating(x.scalar_type(), "native_batch_norm", [&](auto tag) {
    using T = decltype(tag);
    using A = opmath<T>;
    if (training) {
      // Welford partials (count, mean, m2) of every (channel, range), as raw bytes.
      const int64_t count = shp.n * shp.s, chunks = bn_chunks(count);
      TensorBase parts = make_empty(IntArrayRef{C * chunks * int64_t(sizeof(Welford<A>))},
                                    x.options().with_dtype(ScalarType::Byte));
      Welford<A>* pp = static_cast<Welford<A>*>(parts.data_ptr());
      const dim3 grid(blocks_for(C, 1), unsigned(chunks));
      batch_norm_partial_stats_kernel<T><<<grid, row_block_threads(count / chunks), 0, st>>>(
          static_cast<const T*>(x.data_ptr()), shp, chunks, pp);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm");
      // The running statistics are updated in their own dtype and strides
      // (they are the module's buffers, written in place).
      auto launch = [&](auto rtag) {
        using R = decltype(rtag);
        batch_norm_finish_stats_kernel<A, R><<<blocks_for(C, 128), 128, 0, st>>>(
            pp, chunks, C, static_cast<A>(eps), static_cast<A*>(save_mean.data_ptr()),
            static_cast<A*>(save_invstd.data_ptr()), rm.defined() ? static_cast<R*>(rm.data_ptr()) : nullptr,
            rm.defined() && rm.dim() ? rm.strides()[0] : 1, rv.defined() ? static_cast<R*>(rv.data_ptr()) : nullptr,
            rv.defined() && rv.dim() ? rv.strides()[0] : 1, momentum);
      };
      TL_CHECK(!rm.defined() || !rv.defined() || rm.scalar_type() == rv.scalar_type(),
               "native_batch_norm: running_mean and running_var must have the same dtype");
      const ScalarType rdt = rm.defined() ? rm.scalar_type() : (rv.defined() ? rv.scalar_type() : acc_dt);
      dispatch_floating(rdt, "native_batch_norm", launch);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm");
    } else {
      TensorBase rmc = as_contiguous(rm, acc_dt), rvc = as_contiguous(rv, acc_dt);
      batch_norm_eval_stats_kernel<A><<<blocks_for(C, 128), 128, 0, st>>>(
          rmc.defined() ? static_cast<const A*>(rmc.data_ptr()) : nullptr,
          rvc.defined() ? static_cast<const A*>(rvc.data_ptr()) : nullptr, C, static_cast<A>(eps),
          static_cast<A*>(mean.data_ptr()), static_cast<A*>(invstd.data_ptr()));
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm");
    }
    if (x.numel() > 0) {
      batch_norm_apply_kernel<T><<<blocks_for(x.numel(), 256), 256, 0, st>>>(
          static_cast<const T*>(x.data_ptr()), static_cast<T*>(out.data_ptr()), shp,
          static_cast<const A*>(mean.data_ptr()), static_cast<const A*>(invstd.data_ptr()),
          w.defined() ? static_cast<const A*>(w.data_ptr()) : nullptr,
          b.defined() ? static_cast<const A*>(b.data_ptr()) : nullptr);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm");
    }
  });
  return {out, save_mean, save_invstd};
}

// Per channel: sum(g) and sum(g * (x - mean)), over the same fixed ranges as
// the forward statistics, then the ranges added in order.
template <class T>
__global__ void batch_norm_backward_partials_kernel(const T* g, const T* x, BnShape shp, const opmath<T>* mean,
                                                    int64_t chunks, Pair<opmath<T>>* parts) {
  using A = opmath<T>;
  __shared__ Pair<A> shared[32];
  const int64_t count = shp.n * shp.s, k = blockIdx.y;
  const int64_t lo = count * k / chunks, hi = count * (k + 1) / chunks;
  for (int64_t c = blockIdx.x; c < shp.c; c += gridDim.x) {
    const A mu = mean[c];
    Pair<A> s{A(0), A(0)};
    for (int64_t e = lo + threadIdx.x; e < hi; e += blockDim.x) {
      const int64_t off = bn_offset(shp, c, e);
      const A gv = static_cast<A>(g[off]);
      s.a += gv;
      s.b += gv * (static_cast<A>(x[off]) - mu);
    }
    s = block_allreduce(s, Pair<A>{A(0), A(0)}, shared, PairSumOp());
    if (threadIdx.x == 0) parts[c * chunks + k] = s;
  }
}

template <class A>
__global__ void batch_norm_backward_finish_kernel(const Pair<A>* parts, int64_t chunks, int64_t C, A* sum_g,
                                                  A* sum_gx) {
  for (int64_t c = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; c < C; c += int64_t(gridDim.x) * blockDim.x) {
    A a = 0, b = 0;
    for (int64_t k = 0; k < chunks; ++k) {
      a += parts[c * chunks + k].a;
      b += parts[c * chunks + k].b;
    }
    sum_g[c] = a;
    sum_gx[c] = b;
  }
}

template <class T>
__global__ void batch_norm_backward_input_kernel(const T* g, const T* x, T* dx, BnShape shp, const opmath<T>* mean,
                                                 const opmath<T>* invstd, const opmath<T>* w, const opmath<T>* sum_g,
                                                 const opmath<T>* sum_gx, bool training) {
  using A = opmath<T>;
  const int64_t total = shp.n * shp.c * shp.s, count = shp.n * shp.s;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < total; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = (k / shp.s) % shp.c;
    const A is = invstd[c], scale = param_or(w, c, A(1)) * is;
    const A gv = static_cast<A>(g[k]);
    if (training) {
      const A mg = count > 0 ? sum_g[c] / A(count) : A(0);
      const A proj = count > 0 ? sum_gx[c] / A(count) * is * is : A(0);
      dx[k] = static_cast<T>(scale * (gv - mg - (static_cast<A>(x[k]) - mean[c]) * proj));
    } else {
      dx[k] = static_cast<T>(scale * gv);
    }
  }
}

template <class A>
__global__ void scale_by_kernel(const A* a, const A* by, A* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = a[i] * by[i];
}

std::tuple<TensorBase, TensorBase, TensorBase> native_batch_norm_backward_cuda(
    const TensorBase& grad_out, const TensorBase& input, const std::optional<TensorBase>& weight_arg,
    const std::optional<TensorBase>& running_mean, const std::optional<TensorBase>& running_var,
    const std::optional<TensorBase>& save_mean, const std::optional<TensorBase>& save_invstd, bool training,
    double eps, bool input_grad, bool weight_grad, bool bias_grad) {
  const std::array<bool, 3> mask{input_grad, weight_grad, bias_grad};
  TL_CHECK(grad_out.sizes() == input.sizes(), "native_batch_norm_backward: grad_out has shape ", grad_out.sizes(),
           ", expected ", input.sizes());
  TL_CHECK(input.dim() >= 2, "native_batch_norm_backward: expected an input of at least 2 dims, got ", input.dim());
  check_same_device("native_batch_norm_backward", input, grad_out);
  const TensorBase weight = opt(weight_arg);
  const ScalarType acc_dt = stat_dtype(input.scalar_type());
  TensorBase x = at::_ops::contiguous(input);
  TensorBase g = as_contiguous(grad_out, x.scalar_type());
  const BnShape shp = bn_shape(x);
  const int64_t C = shp.c;
  TensorOptions so = x.options().with_dtype(acc_dt);
  TensorBase mean, invstd;
  cudaStream_t st = stream();
  if (training) {
    mean = as_contiguous(opt(save_mean), acc_dt);
    invstd = as_contiguous(opt(save_invstd), acc_dt);
    TL_CHECK(mean.defined() && invstd.defined() && mean.numel() == C && invstd.numel() == C,
             "native_batch_norm_backward: training mode needs save_mean and save_invstd of ", C, " elements");
  } else {
    mean = make_empty(IntArrayRef{C}, so);
    invstd = make_empty(IntArrayRef{C}, so);
  }
  TensorBase w = as_contiguous(weight, acc_dt);
  TensorBase sum_g = make_empty(IntArrayRef{C}, so), sum_gx = make_empty(IntArrayRef{C}, so);
  TensorBase dx, dw, db;
  const bool want_w = mask[1] && weight.defined(), want_b = mask[2];
  const ScalarType param_dt = weight.defined() ? weight.scalar_type() : x.scalar_type();
  if (mask[0]) dx = make_empty(x.sizes(), x.options());
  if (C == 0) return {dx, want_w ? make_empty(IntArrayRef{0}, x.options().with_dtype(param_dt)) : TensorBase(),
                      want_b ? make_empty(IntArrayRef{0}, x.options().with_dtype(param_dt)) : TensorBase()};
  dispatch_floating(x.scalar_type(), "native_batch_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    using A = opmath<T>;
    if (!training) {
      TensorBase rmc = as_contiguous(opt(running_mean), acc_dt), rvc = as_contiguous(opt(running_var), acc_dt);
      batch_norm_eval_stats_kernel<A><<<blocks_for(C, 128), 128, 0, st>>>(
          rmc.defined() ? static_cast<const A*>(rmc.data_ptr()) : nullptr,
          rvc.defined() ? static_cast<const A*>(rvc.data_ptr()) : nullptr, C, static_cast<A>(eps),
          static_cast<A*>(mean.data_ptr()), static_cast<A*>(invstd.data_ptr()));
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm_backward");
    }
    const T* gp = static_cast<const T*>(g.data_ptr());
    const T* xp = static_cast<const T*>(x.data_ptr());
    {
      const int64_t count = shp.n * shp.s, chunks = bn_chunks(count);
      TensorBase parts = make_empty(IntArrayRef{C * chunks * int64_t(sizeof(Pair<A>))},
                                    x.options().with_dtype(ScalarType::Byte));
      Pair<A>* pp = static_cast<Pair<A>*>(parts.data_ptr());
      const dim3 grid(blocks_for(C, 1), unsigned(chunks));
      batch_norm_backward_partials_kernel<T><<<grid, row_block_threads(count / chunks), 0, st>>>(
          gp, xp, shp, static_cast<const A*>(mean.data_ptr()), chunks, pp);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm_backward");
      batch_norm_backward_finish_kernel<A><<<blocks_for(C, 128), 128, 0, st>>>(
          pp, chunks, C, static_cast<A*>(sum_g.data_ptr()), static_cast<A*>(sum_gx.data_ptr()));
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm_backward");
    }
    if (mask[0] && x.numel() > 0) {
      batch_norm_backward_input_kernel<T><<<blocks_for(x.numel(), 256), 256, 0, st>>>(
          gp, xp, static_cast<T*>(dx.data_ptr()), shp, static_cast<const A*>(mean.data_ptr()),
          static_cast<const A*>(invstd.data_ptr()), w.defined() ? static_cast<const A*>(w.data_ptr()) : nullptr,
          static_cast<const A*>(sum_g.data_ptr()), static_cast<const A*>(sum_gx.data_ptr()), training);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm_backward");
    }
    if (want_w) {
      TensorBase v = make_empty(IntArrayRef{C}, so);
      scale_by_kernel<A><<<blocks_for(C, 128), 128, 0, st>>>(static_cast<const A*>(sum_gx.data_ptr()),
                                                              static_cast<const A*>(invstd.data_ptr()),
                                                              static_cast<A*>(v.data_ptr()), C);
      TL_CUDA_KERNEL_LAUNCH_CHECK("native_batch_norm_backward");
      dw = v.scalar_type() == param_dt ? v : at::_ops::_to_copy(v, param_dt);
    }
  });
  if (want_b) db = sum_g.scalar_type() == param_dt ? sum_g : at::_ops::_to_copy(sum_g, param_dt);
  return {dx, dw, db};
}

}  // namespace
}  // namespace at::native::cuda_nn

TL_LIBRARY_IMPL(aten, CUDA, m) {
  using namespace at::native::cuda_nn;
  m.impl("native_layer_norm", TL_KERNEL(native_layer_norm_cuda));
  m.impl("_native_layer_norm_backward", TL_KERNEL(native_layer_norm_backward_cuda));
  m.impl("native_batch_norm", TL_KERNEL(native_batch_norm_cuda));
  m.impl("_native_batch_norm_backward", TL_KERNEL(native_batch_norm_backward_cuda));
}
