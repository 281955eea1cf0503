// cuBLAS for the CUDA backend, loaded at first use with dlopen from NVIDIA's
// pip wheel (nvidia-cublas, CUDA 13 line) or the system, never linked: a
// build needs no cuBLAS, and a process that never multiplies matrices on the
// GPU never loads it. Only the entry points torchlike calls are resolved,
// into a table of function pointers.
//
// The cuBLAS headers are not needed either (the CI image has none): the few
// types and enum values below are those of cuBLAS's stable C ABI, as
// documented in NVIDIA's cuBLAS reference (cublas_api.h); the data types come
// from the CUDA runtime's library_types.h.
#pragma once
#include <cuda_runtime.h>
#include <library_types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "c10/Device.h"

namespace at::native::cublas {

// ---- the cuBLAS C ABI subset torchlike uses
struct Context;  // cuBLAS's opaque context (struct cublasContext)
using Handle = Context*;
using Status = int;  // cublasStatus_t; 0 is CUBLAS_STATUS_SUCCESS
constexpr Status kSuccess = 0;
enum Operation : int { kOpN = 0, kOpT = 1 };
enum ComputeType : int {
  kCompute32F = 68,
  kCompute32FPedantic = 69,
  kCompute64F = 70,
  kCompute32FFastTF32 = 77,
};
enum MathMode : int {
  kDefaultMath = 0,
  kDisallowReducedPrecisionReduction = 16,
};
constexpr int kGemmDefaultAlgo = -1;

struct Api {
  Status (*create)(Handle*);
  Status (*destroy)(Handle);
  Status (*set_stream)(Handle, cudaStream_t);
  Status (*set_workspace)(Handle, void*, size_t);
  Status (*set_math_mode)(Handle, int);
  Status (*gemm_ex)(Handle, int transa, int transb, int m, int n, int k, const void* alpha, const void* A,
                    cudaDataType Atype, int lda, const void* B, cudaDataType Btype, int ldb, const void* beta, void* C,
                    cudaDataType Ctype, int ldc, int compute, int algo);
  Status (*gemm_strided_batched_ex)(Handle, int transa, int transb, int m, int n, int k, const void* alpha,
                                    const void* A, cudaDataType Atype, int lda, long long strideA, const void* B,
                                    cudaDataType Btype, int ldb, long long strideB, const void* beta, void* C,
                                    cudaDataType Ctype, int ldc, long long strideC, int batchCount, int compute,
                                    int algo);
  const char* (*status_string)(Status);  // may be null in old releases
  std::string path;                      // the libcublas that was loaded
};

// The loaded table. The first call loads libcublasLt and libcublas (see
// CudaLibrarySearch.h for where); a missing library raises RuntimeError
// naming the pip package. Thread-safe.
const Api& api();

// Raises RuntimeError "<what>: cuBLAS error <status> (<string>)" unless ok.
void check(Status status, const char* what);

// The calling thread's cuBLAS handle for the current device, bound to the
// current stream. Handles are created once per (device, thread) and live as
// long as the thread.
Handle current_handle();

// Sets the Python path entries that the search looks through for the wheel
// (torchlike/_cuda_blas.py passes sys.path at import).
void set_site_dirs(const std::string& joined, char sep);
std::string site_dirs();

}  // namespace at::native::cublas
