#include "Parallel.h"
#include "FlushDenormal.h"

#include <atomic>
#include <thread>
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#define TL_HAS_MXCSR 1
#endif

extern "C" void scipy_openblas_set_num_threads(int);

namespace at {

// OpenBLAS stays single-threaded: large GEMMs are split over this pool by
// native/cpu/ParallelGemm.h instead, so only one pool of threads ever runs
// (OpenBLAS's spinning pthreads and OpenMP's threads fought over the cores).
static const int g_blas_single_threaded = (scipy_openblas_set_num_threads(1), 1);

static std::atomic<int> g_threads{0};

int get_num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
#ifdef _OPENMP
  n = omp_get_max_threads();
#else
  n = (int)std::thread::hardware_concurrency();
#endif
  if (n < 1) n = 1;
  g_threads.store(n);
  return n;
}

static std::atomic<bool> g_flush_denormal{false};

#ifdef TL_HAS_MXCSR
static void apply_flush_denormal_here(bool on) {
  constexpr unsigned kFtzDaz = 0x8040;  // flush-to-zero (bit 15) | denormals-are-zero (bit 6)
  unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? (csr | kFtzDaz) : (csr & ~kFtzDaz));
}
static void apply_flush_denormal_everywhere(bool on) {
  apply_flush_denormal_here(on);
#ifdef _OPENMP
  // One region as wide as the pool: OpenMP keeps these threads for later regions.
#pragma omp parallel num_threads(get_num_threads())
  apply_flush_denormal_here(on);
#endif
}
#endif

bool set_flush_denormal(bool on) {
#ifdef TL_HAS_MXCSR
  g_flush_denormal.store(on);
  apply_flush_denormal_everywhere(on);
  return true;
#else
  (void)on;
  return false;
#endif
}

void set_num_threads(int n) {
  if (n < 1) n = 1;
  g_threads.store(n);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  (void)g_blas_single_threaded;
#ifdef TL_HAS_MXCSR
  if (g_flush_denormal.load()) apply_flush_denormal_everywhere(true);
#endif
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

}  // namespace at
