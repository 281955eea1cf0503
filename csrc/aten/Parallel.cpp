#include "Parallel.h"

#include <atomic>
#include <thread>

extern "C" void scipy_openblas_set_num_threads(int);

namespace at {

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

void set_num_threads(int n) {
  if (n < 1) n = 1;
  g_threads.store(n);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  scipy_openblas_set_num_threads(n);
}

bool in_parallel_region() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

}  // namespace at
