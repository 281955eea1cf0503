// Matrix products on CUDA: mm, addmm, bmm, dot and mv (matmul, linear,
// baddbmm, addbmm, addmv, addr decompose into these in the YAML), all through
// one batched cuBLAS GEMM (CudaGemm.h). float32/float64/float16/bfloat16;
// half types accumulate in float. float32 uses TF32 tensor cores when
// set_float32_matmul_precision is not "highest"; the reduced-precision
// reduction flags of backends.cuda.matmul are honoured. Integer products are
// refused as PyTorch's CUDA backend refuses them.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "aten/native/CudaBlasPlan.h"
#include "aten/native/Copy.h"
#include "aten/native/Linalg.h"
#include "aten/native/cuda/CublasLoader.h"
#include "aten/native/cuda/CudaGemm.h"
#include "c10/GlobalContext.h"
#include "c10/Library.h"
#include "c10/Scalar.h"
#include "c10/cuda/CUDAContext.h"

namespace at::native::cuda_blas {
namespace {

// cuBLAS's recommended workspace: 32 MiB on Hopper, 4 MiB before it.
size_t workspace_bytes() {
  const cudaDeviceProp& p = c10::cuda::getDeviceProperties();
  return p.major >= 9 ? (size_t(32) << 20) : (size_t(4) << 20);
}

cudaDataType data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return CUDA_R_32F;
    case ScalarType::Double: return CUDA_R_64F;
    case ScalarType::Half: return CUDA_R_16F;
    case ScalarType::BFloat16: return CUDA_R_16BF;
    default: TL_CHECK(false, "cuBLAS GEMM: unsupported dtype ", toString(t));
  }
  return CUDA_R_32F;
}

// Workspace from the caching allocator for the duration of one call: freed
// in stream order, so the next user on this stream reuses it safely.
struct Workspace {
  void* ptr = nullptr;
  size_t bytes = 0;
  Workspace(cudaStream_t s) : bytes(workspace_bytes()) { ptr = c10::cuda::cachingMalloc(bytes, s); }
  ~Workspace() { c10::cuda::cachingFree(ptr); }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
};

// beta * c or zeros, for an empty inner dimension (cuBLAS wants k >= 1).
template <class T>
__global__ void scale_rows_kernel(T* c, int64_t batch, int64_t rows, int64_t cols, int64_t ldc, int64_t bstride,
                                  float beta, bool zero) {
  const int64_t total = batch * rows * cols;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t j = i % cols, r = (i / cols) % rows, b = i / (cols * rows);
    T& v = c[b * bstride + r * ldc + j];
    v = zero ? T(0) : T(c10::opmath_t<T>(beta) * c10::opmath_t<T>(v));
  }
}

int grid_for(int64_t n, int threads) {
  return (int)std::min<int64_t>((n + threads - 1) / threads, 65535);
}

}  // namespace

TensorBase contiguous_cuda(const TensorBase& t) {
  if (t.is_contiguous()) return t;
  TensorBase out = make_empty(t.sizes(), t.options());
  copy_across_devices(out, t, false);
  return out;
}

TensorBase as_batch(const TensorBase& t) {
  int64_t sz[3] = {1, t.sizes()[0], t.sizes()[1]};
  int64_t st[3] = {t.sizes()[0] * t.sizes()[1], t.strides()[0], t.strides()[1]};
  return make_view(t, IntArrayRef(sz, 3), IntArrayRef(st, 3), t.storage_offset());
}

void gemm(ScalarType in, ScalarType out, int64_t batch, const Matrices& a, const Matrices& b, const Matrices& c,
          double alpha, double beta, Fp32Math math) {
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  if (batch == 0 || m == 0 || n == 0) return;
  TL_CHECK(c.col_stride == 1 || n == 1, "cuBLAS GEMM: the output must have unit column stride");
  if (k == 0) {
    // An empty sum: beta * c, or zeros (operands with no columns have no
    // BLAS layout to describe, so cuBLAS is not called).
    cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
    TL_DISPATCH_FLOATING_TYPES(out, "gemm", [&] {
      const int threads = 256;
      scale_rows_kernel<scalar_t><<<grid_for(batch * m * n, threads), threads, 0, stream>>>(
          (scalar_t*)c.data, batch, m, n, c.row_stride, c.batch_stride, (float)beta, beta == 0);
    });
    TL_CUDA_KERNEL_LAUNCH_CHECK("gemm");
    return;
  }
  blas_plan::GemmCall call =
      blas_plan::plan(m, n, k, a.row_stride, a.col_stride, b.row_stride, b.col_stride, c.row_stride);
  TL_CHECK(call.fits, "matrix dimensions exceed what cuBLAS can index: ", m, "x", k, " and ", k, "x", n);
  TL_CHECK(!call.copy_a && !call.copy_b, "cuBLAS GEMM: an operand's strides are not a BLAS layout");

  const cublas::Api& api = cublas::api();
  cublas::Handle h = cublas::current_handle();
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  Workspace ws(stream);
  cublas::check(api.set_workspace(h, ws.ptr, ws.bytes), "cublasSetWorkspace");

  c10::GlobalContext& ctx = c10::globalContext();
  int compute = cublas::kCompute32F;
  int math_mode = cublas::kDefaultMath;
  if (in == ScalarType::Double) {
    compute = cublas::kCompute64F;
  } else if (in == ScalarType::Float) {
    bool tf32 = false;
    if (math == Fp32Math::FromMatmulPrecision)
      tf32 = ctx.float32_matmul_precision.load(std::memory_order_relaxed) != c10::Float32MatmulPrecision::Highest;
    else
      tf32 = math == Fp32Math::AllowTF32;
    compute = tf32 ? cublas::kCompute32FFastTF32 : cublas::kCompute32F;
  } else {
    // float16/bfloat16 in, float accumulation; the flags say whether cuBLAS
    // may still reduce split-K partials in the half type.
    const bool reduced = in == ScalarType::Half
                             ? ctx.allow_fp16_reduced_precision_reduction.load(std::memory_order_relaxed)
                             : ctx.allow_bf16_reduced_precision_reduction.load(std::memory_order_relaxed);
    if (!reduced) math_mode = cublas::kDisallowReducedPrecisionReduction;
  }
  cublas::check(api.set_math_mode(h, math_mode), "cublasSetMathMode");

  // Scalars live on the host, in the compute type.
  const float falpha = (float)alpha, fbeta = (float)beta;
  const void* pa = in == ScalarType::Double ? (const void*)&alpha : (const void*)&falpha;
  const void* pb = in == ScalarType::Double ? (const void*)&beta : (const void*)&fbeta;
  const cudaDataType ti = data_type(in), to = data_type(out);
  const int transa = call.first.transposed ? cublas::kOpT : cublas::kOpN;
  const int transb = call.second.transposed ? cublas::kOpT : cublas::kOpN;
  const size_t in_size = elementSize(in), out_size = elementSize(out);

  for (int64_t start = 0; start < batch; start += blas_plan::kIntMax) {
    const int64_t count = std::min<int64_t>(batch - start, blas_plan::kIntMax);
    const char* first = (const char*)b.data + start * b.batch_stride * (int64_t)in_size;
    const char* second = (const char*)a.data + start * a.batch_stride * (int64_t)in_size;
    char* dst = (char*)c.data + start * c.batch_stride * (int64_t)out_size;
    if (count == 1) {
      cublas::check(api.gemm_ex(h, transa, transb, (int)call.m, (int)call.n, (int)call.k, pa, first, ti,
                                (int)call.first.ld, second, ti, (int)call.second.ld, pb, dst, to, (int)call.ldc,
                                compute, cublas::kGemmDefaultAlgo),
                    "cublasGemmEx");
    } else {
      cublas::check(api.gemm_strided_batched_ex(h, transa, transb, (int)call.m, (int)call.n, (int)call.k, pa, first,
                                                ti, (int)call.first.ld, b.batch_stride, second, ti,
                                                (int)call.second.ld, a.batch_stride, pb, dst, to, (int)call.ldc,
                                                c.batch_stride, (int)count, compute, cublas::kGemmDefaultAlgo),
                    "cublasGemmStridedBatchedEx");
    }
  }
}

void bgemm(const TensorBase& c, const TensorBase& a0, const TensorBase& b0, double alpha, double beta, Fp32Math math) {
  if (c.numel() == 0) return;
  const int64_t B = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a0.sizes()[2];
  const ScalarType t = c.scalar_type();
  if (k == 0) {
    cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
    TL_DISPATCH_FLOATING_TYPES(t, "addmm_cuda", [&] {
      const int threads = 256;
      scale_rows_kernel<scalar_t><<<grid_for(B * m * n, threads), threads, 0, stream>>>(
          c.data_ptr<scalar_t>(), B, m, n, c.strides()[1], c.strides()[0], (float)beta, beta == 0);
    });
    TL_CUDA_KERNEL_LAUNCH_CHECK("addmm_cuda");
    return;
  }
  TensorBase a = a0, b = b0;
  blas_plan::GemmCall call = blas_plan::plan(m, n, k, a.strides()[1], a.strides()[2], b.strides()[1],
                                             b.strides()[2], c.strides()[1]);
  if (call.copy_a) a = contiguous_cuda(a);
  if (call.copy_b) b = contiguous_cuda(b);
  Matrices ma{a.data_ptr(), m, k, a.strides()[1], a.strides()[2], a.strides()[0]};
  Matrices mb{b.data_ptr(), k, n, b.strides()[1], b.strides()[2], b.strides()[0]};
  Matrices mc{c.data_ptr(), m, n, c.strides()[1], c.strides()[2], c.strides()[0]};
  // A batch of one passes no meaningful batch stride.
  if (B == 1) ma.batch_stride = mb.batch_stride = mc.batch_stride = 0;
  gemm(t, t, B, ma, mb, mc, alpha, beta, math);
}

}  // namespace at::native::cuda_blas

namespace at::native {
namespace {

using cuda_blas::as_batch;
using cuda_blas::bgemm;
using cuda_blas::Fp32Math;

void check_cuda_operands(const char* op, std::initializer_list<const TensorBase*> ts) {
  const Device d = (*ts.begin())->device();
  for (const TensorBase* t : ts)
    TL_CHECK(t->device() == d, "Expected all tensors to be on the same device, but found at least two devices, ",
             d.str(), " and ", t->device().str(), "! (when checking argument for ", op, ")");
}

void check_float_dtype(const char* name, ScalarType t) {
  TL_CHECK(t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Half || t == ScalarType::BFloat16,
           "\"", name, "\" not implemented for '", toString(t), "'");
}

// Broadcasts self (0-, 1- or 2-D) into the (m, n) contiguous `dst`.
template <class T>
__global__ void broadcast_2d_kernel(T* dst, const T* src, int64_t m, int64_t n, int64_t rs, int64_t cs) {
  const int64_t total = m * n;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = i / n, j = i % n;
    dst[i] = src[r * rs + j * cs];
  }
}

TensorBase mm_cuda(const TensorBase& self, const TensorBase& mat2) {
  check_cuda_operands("mm", {&self, &mat2});
  check_mm(self, mat2);
  check_float_dtype("addmm_cuda", self.scalar_type());
  int64_t sz[2] = {self.sizes()[0], mat2.sizes()[1]};
  TensorBase result = make_empty(IntArrayRef(sz, 2), self.options());
  bgemm(as_batch(result), as_batch(self), as_batch(mat2), 1.0, 0.0, Fp32Math::FromMatmulPrecision);
  return result;
}

TensorBase addmm_cuda(const TensorBase& self, const TensorBase& mat1, const TensorBase& mat2, const Scalar& beta,
                      const Scalar& alpha) {
  check_cuda_operands("addmm", {&self, &mat1, &mat2});
  check_addmm(self, mat1, mat2);
  check_float_dtype("addmm_cuda", mat1.scalar_type());
  const int64_t m = mat1.sizes()[0], n = mat2.sizes()[1];
  int64_t sz[2] = {m, n};
  TensorBase result = make_empty(IntArrayRef(sz, 2), mat1.options());
  if (result.numel() == 0) return result;
  const double b = beta.toDouble();
  // beta == 0 ignores self entirely (nan/inf in it do not propagate), as in PyTorch.
  if (b != 0) {
    int64_t st[2] = {0, 0};
    for (int64_t i = 0; i < self.dim(); ++i) {
      const int64_t d = 2 - self.dim() + i;
      st[d] = self.sizes()[i] == 1 ? 0 : self.strides()[i];
    }
    cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
    TL_DISPATCH_FLOATING_TYPES(result.scalar_type(), "addmm_cuda", [&] {
      const int threads = 256;
      broadcast_2d_kernel<scalar_t><<<(int)std::min<int64_t>((m * n + threads - 1) / threads, 65535), threads, 0,
                                      stream>>>(result.data_ptr<scalar_t>(), self.data_ptr<scalar_t>(), m, n, st[0],
                                                st[1]);
    });
    TL_CUDA_KERNEL_LAUNCH_CHECK("addmm_cuda");
  }
  bgemm(as_batch(result), as_batch(mat1), as_batch(mat2), alpha.toDouble(), b, Fp32Math::FromMatmulPrecision);
  return result;
}

TensorBase bmm_cuda(const TensorBase& self, const TensorBase& mat2) {
  check_cuda_operands("bmm", {&self, &mat2});
  check_bmm(self, mat2);
  check_float_dtype("bmm_cuda", self.scalar_type());
  int64_t sz[3] = {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]};
  TensorBase result = make_empty(IntArrayRef(sz, 3), self.options());
  bgemm(result, self, mat2, 1.0, 0.0, Fp32Math::FromMatmulPrecision);
  return result;
}

TensorBase mv_cuda(const TensorBase& self, const TensorBase& vec) {
  check_cuda_operands("mv", {&self, &vec});
  check_mv(self, vec);
  check_float_dtype("addmv_impl_cuda", self.scalar_type());
  const int64_t m = self.sizes()[0], k = self.sizes()[1];
  int64_t sz[1] = {m};
  TensorBase result = make_empty(IntArrayRef(sz, 1), self.options());
  int64_t csz[3] = {1, m, 1}, cst[3] = {m, 1, 1};
  int64_t bsz[3] = {1, k, 1}, bst[3] = {0, vec.strides()[0], 1};
  bgemm(make_view(result, IntArrayRef(csz, 3), IntArrayRef(cst, 3), 0), as_batch(self),
        make_view(vec, IntArrayRef(bsz, 3), IntArrayRef(bst, 3), vec.storage_offset()), 1.0, 0.0,
        Fp32Math::FromMatmulPrecision);
  return result;
}

TensorBase dot_cuda(const TensorBase& self, const TensorBase& tensor) {
  check_cuda_operands("dot", {&self, &tensor});
  check_dot(self, tensor);
  check_float_dtype("dot", self.scalar_type());
  const int64_t k = self.numel();
  TensorBase result = make_empty(IntArrayRef(), self.options());
  // (1 x k) @ (k x 1): a GEMM of one output, accumulated in float for half types.
  int64_t one[3] = {1, 1, 1}, ost[3] = {1, 1, 1};
  int64_t asz[3] = {1, 1, k}, ast[3] = {0, k, self.strides()[0]};
  int64_t bsz[3] = {1, k, 1}, bst[3] = {0, tensor.strides()[0], 1};
  bgemm(make_view(result, IntArrayRef(one, 3), IntArrayRef(ost, 3), 0),
        make_view(self, IntArrayRef(asz, 3), IntArrayRef(ast, 3), self.storage_offset()),
        make_view(tensor, IntArrayRef(bsz, 3), IntArrayRef(bst, 3), tensor.storage_offset()), 1.0, 0.0,
        Fp32Math::Strict);
  return result;
}

}  // namespace

TL_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("mm", TL_KERNEL(mm_cuda));
  m.impl("addmm", TL_KERNEL(addmm_cuda));
  m.impl("bmm", TL_KERNEL(bmm_cuda));
  m.impl("mv", TL_KERNEL(mv_cuda));
  m.impl("dot", TL_KERNEL(dot_cuda));
}

}  // namespace at::native
