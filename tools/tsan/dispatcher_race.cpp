// A standalone ThreadSanitizer check of the dispatcher's publication scheme
// (issue 9 §3): one thread registers and deregisters a kernel in a loop while
// others call the operator through its typed handle. Build and run with
// tools/tsan/run.sh; it links only the c10 sources, no Python.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>
#include "c10/Dispatcher.h"
#include "c10/Library.h"

static int64_t kernel_a(c10::DispatchKeySet, const c10::TensorBase&) { return 1; }
static int64_t kernel_b(c10::DispatchKeySet, const c10::TensorBase&) { return 2; }

int main() {
  auto& d = c10::Dispatcher::singleton();
  d.registerSchema("tsan::op", "tsan::op(Tensor self) -> int", 1, 1);
  d.registerKernel("tsan::op", c10::DispatchKey::CPU,
                   c10::KernelFunction::makeUnboxed<decltype(kernel_b), &kernel_b>("B"));
  auto h = d.typed<int64_t(const c10::TensorBase&)>("tsan::op");
  const int callers = 3, calls = 200000;
  std::atomic<int> running{callers};
  std::atomic<int64_t> a{0}, b{0}, other{0}, cycles{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < callers; ++c)
    threads.emplace_back([&] {
      int64_t na = 0, nb = 0, no = 0;
      c10::TensorBase undefined;  // the key set comes from `extra`, so no tensor is needed
      for (int i = 0; i < calls; ++i) {
        int64_t r = h.call(c10::DispatchKeySet(c10::DispatchKey::CPU), undefined);
        (r == 1 ? na : r == 2 ? nb : no)++;
      }
      a += na, b += nb, other += no;
      --running;
    });
  threads.emplace_back([&] {
    do {
      // A scoped Library, as an extension would hold one, and a fallback.
      c10::Library lib("tsan", c10::DispatchKey::CPU);
      lib.impl("op", c10::KernelFunction::makeUnboxed<decltype(kernel_a), &kernel_a>("A"));
      c10::RegistrationHandle fb = d.addFallback(c10::DispatchKey::AutogradCPU, c10::KernelFunction::makeFallthrough());
      std::this_thread::yield();
      ++cycles;
    } while (running.load() > 0);
  });
  for (auto& t : threads) t.join();
  std::printf("calls: A %lld, B %lld, other %lld; registration cycles %lld\n", (long long)a.load(),
              (long long)b.load(), (long long)other.load(), (long long)cycles.load());
  bool ok = other.load() == 0 && a.load() + b.load() == (int64_t)callers * calls && cycles.load() > 0;
  std::printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
