// Batched GEMM on the GPU through cuBLAS, shared by the matmul ops
// (Blas.cu), convolution (Conv.cu) and attention (Attention.cu). Operands are
// row-major views; CudaBlasPlan.h turns them into cuBLAS's column-major call.
#pragma once
#include <cstdint>

#include "c10/Tensor.h"

namespace at::native::cuda_blas {

// How float32 products may use TF32 tensor cores.
enum class Fp32Math {
  FromMatmulPrecision,  // set_float32_matmul_precision / backends.cuda.matmul.allow_tf32
  AllowTF32,            // backends.cudnn.allow_tf32 said yes (convolutions)
  Strict,               // full float32
};

// One operand: `batch` matrices of rows x cols at `data`, with element
// strides. The output's col_stride must be 1.
struct Matrices {
  void* data;
  int64_t rows, cols;
  int64_t row_stride, col_stride, batch_stride;
};

// c[i] = alpha * a[i] @ b[i] + beta * c[i] for i < batch. a and b have dtype
// `in`, c has dtype `out` (== in, or float with half/bfloat16 inputs); half
// and bfloat16 accumulate in float. beta == 0 never reads c. Both operands
// must be readable in place (blas_plan::classify); m, n, k >= 1.
void gemm(ScalarType in, ScalarType out, int64_t batch, const Matrices& a, const Matrices& b, const Matrices& c,
          double alpha, double beta, Fp32Math math);

// The same over 3-D CUDA tensors c (B, m, n) with unit column stride, a
// (B, m, k), b (B, k, n) of c's dtype; an operand cuBLAS cannot read as it
// is strided is copied first. k == 0 gives beta * c (zeros when beta == 0).
void bgemm(const TensorBase& c, const TensorBase& a, const TensorBase& b, double alpha, double beta, Fp32Math math);

// A contiguous copy on the same CUDA device (t itself when contiguous).
TensorBase contiguous_cuda(const TensorBase& t);

// t as the batch-of-one 3-D view (1, rows, cols).
TensorBase as_batch(const TensorBase& t);

}  // namespace at::native::cuda_blas
