// Matrix products on CPU: mm, bmm, addmm, dot, mv.
//
// Everything funnels into one batched kernel, bgemm(c, a, b): c[i] = alpha *
// a[i] @ b[i] + beta * c[i] over 3-D (batch, rows, cols) views. float/double go
// to OpenBLAS (scipy-openblas32, symbols prefixed scipy_cblas_); strided
// operands are handed to BLAS as they are whenever they are row- or
// column-major (through the trans/ld arguments) and copied only when neither.
// float16/bfloat16 convert to float, run sgemm and convert back (what
// PyTorch's CPU path does too). Integers use a plain row-streaming loop with
// wrap-around arithmetic, as PyTorch's integer mm does.
#include <cblas.h>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "../../Parallel.h"
#include "ParallelGemm.h"
#include "../Copy.h"
#include "../Linalg.h"
#include "ops/addmm.h"
#include "ops/bmm.h"
#include "ops/dot.h"
#include "ops/mm.h"
#include "ops/mv.h"

namespace at::native {
namespace {

constexpr int64_t kBlasIntMax = std::numeric_limits<blasint>::max();

// How row-major BLAS can read a rows x cols matrix with strides (rs, cs):
// as stored (ld = row stride), transposed (ld = column stride), or not at all.
// A dimension of size 1 places no constraint on its stride.
struct Operand {
  bool usable;
  bool trans;
  int64_t ld;
};

Operand blas_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  Operand o{false, false, 0};
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1))) {
    o = {true, false, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
  } else if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1))) {
    o = {true, true, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
  }
  if (o.ld > kBlasIntMax) o.usable = false;
  return o;
}

template <class T>
struct Blas;

template <>
struct Blas<float> {
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, float alpha,
                   const float* a, blasint lda, const float* b, blasint ldb, float beta, float* c, blasint ldc) {
    cpu_gemm::gemm<float>(ta == CblasTrans, tb == CblasTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, blasint m, blasint n, float alpha, const float* a, blasint lda, const float* x,
                   blasint incx, float beta, float* y, blasint incy) {
    scipy_cblas_sgemv(CblasRowMajor, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  static float dot(blasint n, const float* x, blasint incx, const float* y, blasint incy) {
    return scipy_cblas_sdot(n, x, incx, y, incy);
  }
};

template <>
struct Blas<double> {
  static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, double alpha,
                   const double* a, blasint lda, const double* b, blasint ldb, double beta, double* c, blasint ldc) {
    cpu_gemm::gemm<double>(ta == CblasTrans, tb == CblasTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(CBLAS_TRANSPOSE t, blasint m, blasint n, double alpha, const double* a, blasint lda,
                   const double* x, blasint incx, double beta, double* y, blasint incy) {
    scipy_cblas_dgemv(CblasRowMajor, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
  }
  static double dot(blasint n, const double* x, blasint incx, const double* y, blasint incy) {
    return scipy_cblas_ddot(n, x, incx, y, incy);
  }
};

inline CBLAS_TRANSPOSE tr(bool t) { return t ? CblasTrans : CblasNoTrans; }

// c: contiguous (B, m, n); a: (B, m, k); b: (B, k, n); m, n, k >= 1.
template <class T>
void bgemm_blas(const TensorBase& c, TensorBase a, TensorBase b, T alpha, T beta) {
  const int64_t B = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a.sizes()[2];
  TL_CHECK(m <= kBlasIntMax && n <= kBlasIntMax && k <= kBlasIntMax,
           "matrix dimensions exceed what the BLAS library can index: ", m, "x", k, " and ", k, "x", n);
  Operand oa = blas_operand(m, k, a.strides()[1], a.strides()[2]);
  if (!oa.usable) {
    a = contiguous(a);
    oa = blas_operand(m, k, a.strides()[1], a.strides()[2]);
  }
  Operand ob = blas_operand(k, n, b.strides()[1], b.strides()[2]);
  if (!ob.usable) {
    b = contiguous(b);
    ob = blas_operand(k, n, b.strides()[1], b.strides()[2]);
  }
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = c.data_ptr<T>();
  const int64_t sa = a.strides()[0], sb = b.strides()[0], sc = m * n;

  // Matrix-vector shapes go to gemv, which streams the matrix once instead of
  // packing it the way gemm does.
  auto gemv_n1 = [&](int64_t i) {  // (m x k) @ (k x 1)
    int64_t incx = k == 1 ? 1 : b.strides()[1];
    if (incx < 1 || incx > kBlasIntMax) return false;
    const T* x = pb + i * sb;
    if (!oa.trans)
      Blas<T>::gemv(CblasNoTrans, m, k, alpha, pa + i * sa, oa.ld, x, incx, beta, pc + i * sc, 1);
    else
      Blas<T>::gemv(CblasTrans, k, m, alpha, pa + i * sa, oa.ld, x, incx, beta, pc + i * sc, 1);
    return true;
  };
  auto gemv_m1 = [&](int64_t i) {  // (1 x k) @ (k x n) == ((n x k) @ (k x 1))^T
    int64_t incx = k == 1 ? 1 : a.strides()[2];
    if (incx < 1 || incx > kBlasIntMax) return false;
    const T* x = pa + i * sa;
    if (!ob.trans)
      Blas<T>::gemv(CblasTrans, k, n, alpha, pb + i * sb, ob.ld, x, incx, beta, pc + i * sc, 1);
    else
      Blas<T>::gemv(CblasNoTrans, n, k, alpha, pb + i * sb, ob.ld, x, incx, beta, pc + i * sc, 1);
    return true;
  };
  auto one = [&](int64_t i) {
    if (n == 1 && gemv_n1(i)) return;
    if (m == 1 && gemv_m1(i)) return;
    Blas<T>::gemm(tr(oa.trans), tr(ob.trans), m, n, k, alpha, pa + i * sa, oa.ld, pb + i * sb, ob.ld, beta,
                  pc + i * sc, n);
  };
  if (B == 1) {
    one(0);
    return;
  }
  // Small matrices: one single-threaded BLAS call per batch entry, batches
  // spread over the threads. Large ones: one call at a time, each split over
  // the threads by cpu_gemm::gemm.
  const int64_t work = m * n * k;
  if (work < (int64_t)64 * 64 * 64) {
    at::parallel_for(0, B, std::max<int64_t>(1, (int64_t)(1 << 16) / std::max<int64_t>(work, 1)),
                     [&](int64_t s, int64_t e) {
                       for (int64_t i = s; i < e; ++i) one(i);
                     });
  } else {
    for (int64_t i = 0; i < B; ++i) one(i);
  }
}

// Integer products wrap around like PyTorch's (two's complement); arithmetic
// runs in an unsigned type at least 32 bits wide so overflow is defined.
template <class T>
void bgemm_int(const TensorBase& c, const TensorBase& a, TensorBase b, int64_t alpha, int64_t beta, bool use_c) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  const int64_t B = c.sizes()[0], m = c.sizes()[1], n = c.sizes()[2], k = a.sizes()[2];
  // Rows of b are streamed: they must be unit-stride.
  if (n > 1 && b.strides()[2] != 1) b = contiguous(b);
  const T* pa = a.data_ptr<T>();
  const T* pb = b.data_ptr<T>();
  T* pc = c.data_ptr<T>();
  const int64_t sa0 = a.strides()[0], sa1 = a.strides()[1], sa2 = a.strides()[2];
  const int64_t sb0 = b.strides()[0], sb1 = b.strides()[1];
  const U ualpha = (U)alpha, ubeta = (U)beta;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(k * n, 1));
  at::parallel_for(0, B * m, grain, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      const int64_t bi = r / m, i = r % m;
      T* crow = pc + r * n;
      if (!use_c || beta == 0) {
        std::fill(crow, crow + n, T(0));
      } else if (beta != 1) {
        for (int64_t j = 0; j < n; ++j) crow[j] = (T)(ubeta * (U)crow[j]);
      }
      const T* arow = pa + bi * sa0 + i * sa1;
      for (int64_t p = 0; p < k; ++p) {
        const U av = ualpha * (U)arow[p * sa2];
        if (av == 0) continue;
        const T* brow = pb + bi * sb0 + p * sb1;
        for (int64_t j = 0; j < n; ++j) crow[j] = (T)((U)crow[j] + av * (U)brow[j]);
      }
    }
  });
}

// c = beta * c (or 0 when !use_c): the whole product when the inner dim is 0.
void scale_only(const TensorBase& c, const Scalar& beta, bool use_c) {
  TL_DISPATCH_NUMERIC_TYPES(c.scalar_type(), "addmm_impl_cpu_", [&] {
    scalar_t* p = c.data_ptr<scalar_t>();
    const int64_t N = c.numel();
    if (!use_c || beta.toDouble() == 0) {
      std::fill(p, p + N, scalar_t(0));
    } else {
      using acc_t = c10::opmath_t<scalar_t>;
      acc_t bv = beta.to<acc_t>();
      for (int64_t i = 0; i < N; ++i) p[i] = (scalar_t)(bv * (acc_t)p[i]);
    }
  });
}

// The shared core. c: contiguous (B, m, n), holding the addend when use_c.
void bgemm(const TensorBase& c, const TensorBase& a, const TensorBase& b, const Scalar& beta, const Scalar& alpha, bool use_c) {
  if (c.numel() == 0) return;
  if (a.sizes()[2] == 0) {
    scale_only(c, beta, use_c);
    return;
  }
  switch (c.scalar_type()) {
    case ScalarType::Float:
      bgemm_blas<float>(c, a, b, alpha.to<float>(), use_c ? beta.to<float>() : 0.f);
      break;
    case ScalarType::Double:
      bgemm_blas<double>(c, a, b, alpha.to<double>(), use_c ? beta.to<double>() : 0.0);
      break;
    case ScalarType::Half:
    case ScalarType::BFloat16: {
      // Accumulate in float through sgemm; one rounding at the end.
      TensorBase af = cast_to(a, ScalarType::Float, a.device());
      TensorBase bf = cast_to(b, ScalarType::Float, b.device());
      TensorBase cf = use_c ? cast_to(c, ScalarType::Float, c.device())
                        : make_empty(c.sizes(), c.options().with_dtype(ScalarType::Float));
      bgemm_blas<float>(cf, af, bf, alpha.to<float>(), use_c ? beta.to<float>() : 0.f);
      copy_into(c, cf);
      break;
    }
    default:
      TL_DISPATCH_INTEGRAL_TYPES(c.scalar_type(), "addmm_impl_cpu_", [&] {
        bgemm_int<scalar_t>(c, a, b, alpha.toLong(), beta.toLong(), use_c);
      });
  }
}

// A 2-D tensor seen as a batch of one.
TensorBase as_batch(const TensorBase& t) {
  int64_t st[3] = {0, t.strides()[0], t.strides()[1]};
  int64_t sz[3] = {1, t.sizes()[0], t.sizes()[1]};
  return make_view(t, IntArrayRef(sz, 3), IntArrayRef(st, 3), t.storage_offset());
}

}  // namespace

TensorBase mm_cpu(const TensorBase& self, const TensorBase& mat2) {
  check_mm(self, mat2);
  int64_t sz[2] = {self.sizes()[0], mat2.sizes()[1]};
  TensorBase result = make_empty(IntArrayRef(sz, 2), self.options());
  bgemm(as_batch(result), as_batch(self), as_batch(mat2), Scalar(0), Scalar(1), false);
  return result;
}

TensorBase addmm_cpu(const TensorBase& self, const TensorBase& mat1, const TensorBase& mat2, const Scalar& beta,
                 const Scalar& alpha) {
  check_addmm(self, mat1, mat2);
  int64_t sz[2] = {mat1.sizes()[0], mat2.sizes()[1]};
  TensorBase result = make_empty(IntArrayRef(sz, 2), mat1.options());
  // beta == 0 ignores self entirely (nan/inf in it do not propagate), as in PyTorch.
  bool use_c = beta.toDouble() != 0;
  if (use_c) {
    // self broadcasts to the result's shape: stride 0 over the missing or size-1 dims.
    int64_t st[2] = {0, 0};
    for (int64_t i = 0; i < self.dim(); ++i) {
      int64_t d = 2 - self.dim() + i;
      st[d] = self.sizes()[i] == 1 ? 0 : self.strides()[i];
    }
    copy_into(result, make_view(self, result.sizes(), IntArrayRef(st, 2), self.storage_offset()));
  }
  bgemm(as_batch(result), as_batch(mat1), as_batch(mat2), beta, alpha, use_c);
  return result;
}

TensorBase bmm_cpu(const TensorBase& self, const TensorBase& mat2) {
  check_bmm(self, mat2);
  int64_t sz[3] = {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]};
  TensorBase result = make_empty(IntArrayRef(sz, 3), self.options());
  bgemm(result, self, mat2, Scalar(0), Scalar(1), false);
  return result;
}

TensorBase mv_cpu(const TensorBase& self, const TensorBase& vec) {
  check_mv(self, vec);
  int64_t m = self.sizes()[0], k = self.sizes()[1];
  int64_t sz[1] = {m};
  TensorBase result = make_empty(IntArrayRef(sz, 1), self.options());
  int64_t csz[3] = {1, m, 1}, cst[3] = {m, 1, 1};
  int64_t bsz[3] = {1, k, 1}, bst[3] = {0, vec.strides()[0], 1};
  bgemm(make_view(result, IntArrayRef(csz, 3), IntArrayRef(cst, 3), 0), as_batch(self),
        make_view(vec, IntArrayRef(bsz, 3), IntArrayRef(bst, 3), vec.storage_offset()), Scalar(0), Scalar(1), false);
  return result;
}

namespace {
template <class T>
T dot_loop(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    U acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += (U)x[i * incx] * (U)y[i * incy];
    return (T)acc;
  } else {
    c10::opmath_t<T> acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += (c10::opmath_t<T>)x[i * incx] * (c10::opmath_t<T>)y[i * incy];
    return (T)acc;
  }
}

template <class T>
T dot_impl(int64_t n, const T* x, int64_t sx, const T* y, int64_t sy) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    // BLAS with positive increments, in chunks its 32-bit counters can index.
    if (n > 0 && sx >= 1 && sy >= 1 && sx <= kBlasIntMax && sy <= kBlasIntMax) {
      T acc = 0;
      const int64_t chunk = kBlasIntMax / std::max(sx, sy);
      for (int64_t s = 0; s < n; s += chunk) {
        int64_t len = std::min(chunk, n - s);
        acc += Blas<T>::dot((blasint)len, x + s * sx, (blasint)sx, y + s * sy, (blasint)sy);
      }
      return acc;
    }
  }
  return dot_loop(n, x, sx, y, sy);
}
}  // namespace

TensorBase dot_cpu(const TensorBase& self, const TensorBase& tensor) {
  check_dot(self, tensor);
  TensorBase result = make_empty(IntArrayRef(), self.options());
  const int64_t n = self.numel(), sx = self.strides()[0], sy = tensor.strides()[0];
  TL_DISPATCH_NUMERIC_TYPES(self.scalar_type(), "dot", [&] {
    *result.data_ptr<scalar_t>() =
        dot_impl(n, self.data_ptr<scalar_t>(), sx, tensor.data_ptr<scalar_t>(), sy);
  });
  return result;
}

}  // namespace at::native
