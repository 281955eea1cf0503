// Intra-op parallelism. OpenMP underneath; OpenBLAS runs single-threaded and
// large GEMMs are split over this pool (native/cpu/ParallelGemm.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace at {

constexpr int64_t kGrainSize = 32768;

int get_num_threads();
void set_num_threads(int n);
bool in_parallel_region();

// Calls f(begin, end) on disjoint chunks of [begin, end). Runs inline when the
// range is small or we are already inside a parallel region. Exceptions from
// workers are rethrown on the calling thread.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  int nt = get_num_threads();
  if (nt <= 1 || n <= grain || in_parallel_region()) {
    f(begin, end);
    return;
  }
  int64_t chunks = std::min<int64_t>(nt, (n + grain - 1) / grain);
  std::exception_ptr err;
  std::mutex err_mu;
#pragma omp parallel num_threads((int)chunks)
  {
#ifdef _OPENMP
    int64_t tid = omp_get_thread_num(), cnt = omp_get_num_threads();
#else
    int64_t tid = 0, cnt = 1;
#endif
    int64_t per = (n + cnt - 1) / cnt;
    int64_t b = begin + tid * per, e = std::min(end, b + per);
    if (b < e) {
      try {
        f(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(err_mu);
        if (!err) err = std::current_exception();
      }
    }
  }
  if (err) std::rethrow_exception(err);
}

}  // namespace at
