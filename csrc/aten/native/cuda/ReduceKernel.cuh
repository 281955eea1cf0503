// The CUDA reduction and scan kernels, over the plan and accumulators of
// aten/native/ReduceTree.h (whose CPU simulation mirrors these kernels step
// for step), plus the host-side launchers the Reduce*.cu entry points call.
#pragma once
#include <cuda_runtime.h>

#include <cstring>
#include "aten/native/Copy.h"
#include "aten/native/ReduceTree.h"
#include "c10/Tensor.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native::cuda_reduce {

namespace rt = at::native::reduce_tree;

// Any trivially copyable accumulator through a warp shuffle, 32 bits at a time.
template <class A>
__device__ inline A shuffle_down(const A& v, int delta, int width) {
  constexpr int kWords = (int)((sizeof(A) + 3) / 4);
  uint32_t w[kWords] = {};
  memcpy(w, &v, sizeof(A));
#pragma unroll
  for (int k = 0; k < kWords; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], delta, width);
  A r;
  memcpy(&r, w, sizeof(A));
  return r;
}
template <class A>
__device__ inline A shuffle_up(const A& v, int delta) {
  constexpr int kWords = (int)((sizeof(A) + 3) / 4);
  uint32_t w[kWords] = {};
  memcpy(w, &v, sizeof(A));
#pragma unroll
  for (int k = 0; k < kWords; ++k) w[k] = __shfl_up_sync(0xffffffffu, w[k], delta);
  A r;
  memcpy(&r, w, sizeof(A));
  return r;
}
template <class A>
__device__ inline A shuffle_idx(const A& v, int src) {
  constexpr int kWords = (int)((sizeof(A) + 3) / 4);
  uint32_t w[kWords] = {};
  memcpy(w, &v, sizeof(A));
#pragma unroll
  for (int k = 0; k < kWords; ++k) w[k] = __shfl_sync(0xffffffffu, w[k], src);
  A r;
  memcpy(&r, w, sizeof(A));
  return r;
}

// One block: outputs_per_block outputs, `lanes` threads each, over reduced
// slice blockIdx.y. Writes the projected result (one slice) or the slice's
// partial accumulator (several; finish_kernel folds them).
template <class Op, class T, class Write>
__global__ void reduce_kernel(Op op, const T* in, rt::ReduceGeom g, rt::ReduceLaunch L,
                              typename Op::acc_t* partial, Write write) {
  using acc_t = typename Op::acc_t;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  acc_t* smem = reinterpret_cast<acc_t*>(smem_bytes);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const rt::ThreadSlot slot = rt::thread_slot(L, blockIdx.x, tx, ty);
  const bool active = slot.output < g.num_outputs;
  const int64_t rb = (int64_t)blockIdx.y * L.per_split;
  const int64_t re = rb + L.per_split < g.reduce_numel ? rb + L.per_split : g.reduce_numel;
  acc_t a = active ? rt::thread_fold(op, g, in, slot.output, rb, re, slot.lane, L.lanes) : op.identity();
  bool leader;
  if (L.outputs_on_x) {
    // lanes along y meet in shared memory, pairwise as rt::tree_fold
    smem[ty * L.threads_x + tx] = a;
    __syncthreads();
    for (int half = L.lanes / 2; half > 0; half /= 2) {
      if (ty < half) smem[ty * L.threads_x + tx] = op.combine(smem[ty * L.threads_x + tx], smem[(ty + half) * L.threads_x + tx]);
      __syncthreads();
    }
    a = smem[tx];
    leader = ty == 0;
  } else {
    const int width = L.lanes < rt::kWarp ? L.lanes : rt::kWarp;
    for (int half = width / 2; half > 0; half /= 2) a = op.combine(a, shuffle_down(a, half, width));
    if (L.lanes > rt::kWarp) {
      const int nw = L.lanes / rt::kWarp;
      acc_t* row = smem + ty * nw;
      if (tx % rt::kWarp == 0) row[tx / rt::kWarp] = a;
      __syncthreads();
      for (int half = nw / 2; half > 0; half /= 2) {
        if (tx < half) row[tx] = op.combine(row[tx], row[tx + half]);
        __syncthreads();
      }
      a = row[0];
    }
    leader = tx == 0;
  }
  if (!leader || !active) return;
  if (L.splits == 1) write(op, slot.output, a);
  else partial[(int64_t)blockIdx.y * g.num_outputs + slot.output] = a;
}

// The grid pass: each output folds its slices in order.
template <class Op, class Write>
__global__ void finish_kernel(Op op, const typename Op::acc_t* partial, int64_t splits, int64_t nout, Write write) {
  const int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (o < nout) write(op, o, rt::fold_splits(op, partial, splits, nout, o));
}

// Host side: plans the launch for `in` reduced over `mask` and runs it on the
// current stream. The result goes through `write` (outputs in row-major order
// of the kept dims, so a contiguous result tensor is indexed by o).
template <class Op, class T, class Write>
void launch_reduce(const char* name, const Op& op, const TensorBase& in, uint64_t mask, const Write& write) {
  rt::ReduceGeom g;
  TL_CHECK(rt::make_reduce_geom((int)in.dim(), in.sizes().data(), in.strides().data(), mask, g), name,
           "(): the CUDA reduction supports at most ", rt::kMaxGeomDims,
           " non-mergeable kept and reduced dims each; make the input contiguous first");
  if (g.num_outputs == 0) return;
  const cudaDeviceProp& prop = c10::cuda::getDeviceProperties(in.device().index);
  rt::ReduceLimits lim;
  lim.target_blocks = 4 * (int64_t)prop.multiProcessorCount;
  const rt::ReduceLaunch L = rt::make_reduce_launch(g, lim);
  TL_CHECK(L.blocks_x <= 0x7fffffff, name, "(): too many outputs for one CUDA launch");
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(in.device().index);
  using acc_t = typename Op::acc_t;
  const size_t smem = (size_t)rt::reduce_smem_elems(L) * sizeof(acc_t);
  acc_t* partial = nullptr;
  if (L.splits > 1)
    partial = static_cast<acc_t*>(c10::cuda::cachingMalloc((size_t)(L.splits * g.num_outputs) * sizeof(acc_t), stream));
  dim3 grid((unsigned)L.blocks_x, (unsigned)L.splits), block((unsigned)L.threads_x, (unsigned)L.threads_y);
  reduce_kernel<Op, T, Write><<<grid, block, smem, stream>>>(op, static_cast<const T*>(in.data_ptr()), g, L, partial, write);
  TL_CUDA_KERNEL_LAUNCH_CHECK(name);
  if (partial) {
    constexpr int kFinishThreads = 256;
    const int64_t blocks = rt::ceil_div(g.num_outputs, kFinishThreads);
    finish_kernel<Op, Write><<<(unsigned)blocks, kFinishThreads, 0, stream>>>(op, partial, L.splits, g.num_outputs, write);
    TL_CUDA_KERNEL_LAUNCH_CHECK(name);
    // The allocator orders the block's reuse after the finish kernel on this stream.
    c10::cuda::cachingFree(partial);
  }
}

// ---------------------------------------------------------------- scans

// inner > 1: a thread per (outer, inner) column walks the n elements serially;
// neighbouring threads read neighbouring columns.
template <bool Prod, class T>
__global__ void scan_columns_kernel(const T* in, T* out, int64_t outer, int64_t n, int64_t inner) {
  using A = rt::scan_acc_t<T>;
  const rt::ScanOp<Prod> op;
  const int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= outer * inner) return;
  const int64_t base = (col / inner) * n * inner + col % inner;
  A acc = op.template identity<A>();
  for (int64_t i = 0; i < n; ++i) {
    acc = op.combine(acc, rt::to_acc<A>(in[base + i * inner]));
    out[base + i * inner] = rt::cast_out<T>(acc);
  }
}

// inner == 1: a warp per contiguous line, 32 elements per step, carrying the
// running total from tile to tile (rt::warp_scan_tile is the same on arrays).
constexpr int kScanWarpsPerBlock = 4;
template <bool Prod, class T>
__global__ void scan_rows_kernel(const T* in, T* out, int64_t lines, int64_t n) {
  using A = rt::scan_acc_t<T>;
  const rt::ScanOp<Prod> op;
  const int lane = threadIdx.x % rt::kWarp;
  const int64_t line = (int64_t)blockIdx.x * kScanWarpsPerBlock + threadIdx.x / rt::kWarp;
  if (line >= lines) return;  // whole warps leave together
  const T* src = in + line * n;
  T* dst = out + line * n;
  A carry = op.template identity<A>();
  for (int64_t t = 0; t < n; t += rt::kWarp) {
    A v = t + lane < n ? rt::to_acc<A>(src[t + lane]) : op.template identity<A>();
    for (int k = 1; k < rt::kWarp; k *= 2) {
      A prev = shuffle_up(v, k);
      if (lane >= k) v = op.combine(prev, v);
    }
    v = op.combine(carry, v);
    if (t + lane < n) dst[t + lane] = rt::cast_out<T>(v);
    carry = shuffle_idx(v, rt::kWarp - 1);
  }
}

template <bool Prod, class T>
void launch_scan(const char* name, const TensorBase& in, const TensorBase& out, int64_t outer, int64_t n,
                 int64_t inner) {
  if (outer * n * inner == 0) return;
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream(in.device().index);
  const T* src = static_cast<const T*>(in.data_ptr());
  T* dst = static_cast<T*>(out.data_ptr());
  if (inner > 1) {
    constexpr int kThreads = 256;
    scan_columns_kernel<Prod, T><<<(unsigned)rt::ceil_div(outer * inner, kThreads), kThreads, 0, stream>>>(
        src, dst, outer, n, inner);
  } else {
    scan_rows_kernel<Prod, T><<<(unsigned)rt::ceil_div(outer, kScanWarpsPerBlock), kScanWarpsPerBlock * rt::kWarp, 0,
                                stream>>>(src, dst, outer, n);
  }
  TL_CUDA_KERNEL_LAUNCH_CHECK(name);
}

// A contiguous copy of t on its device (t itself when it already is one);
// native::contiguous copies on the CPU only.
inline TensorBase contiguous_on_device(const TensorBase& t) {
  if (t.is_contiguous()) return t;
  TensorBase out = make_empty(t.sizes(), t.options());
  copy_across_devices(out, t, false);
  return out;
}

}  // namespace at::native::cuda_reduce
