#include "aten/Init.h"

#include <mutex>

#include "c10/DispatchKey.h"
#include "c10/Dispatcher.h"
#include "c10/KernelFunction.h"

namespace c10 {
void registerBuiltinAllocators();
}
// Generated (build/generated/RegisterAll.cpp): explicit registration of every
// operator, so none depends on a static initialiser surviving the link.
void tl_register_all_generated_ops();

namespace at {

// Autograd and autocast keys pass straight through until those layers register
// kernels; fallthroughs are masked out of every table, so they cost nothing.
static void register_default_fallbacks() {
  using c10::DispatchKey;
  for (int b = 0; b < c10::kNumBackends; ++b) {
    for (auto f : {c10::Functionality::Autograd, c10::Functionality::Autocast}) {
      DispatchKey k = c10::runtimeKey(f, (c10::BackendComponent)b);
      c10::Dispatcher::singleton().registerFallback(k, c10::KernelFunction::makeFallthrough());
    }
  }
}

void init() {
  static std::once_flag once;
  std::call_once(once, [] {
    c10::registerBuiltinAllocators();
    register_default_fallbacks();
    tl_register_all_generated_ops();
  });
}

namespace {
// Runs when libtorchlike.so is loaded, before any code that links to it. The
// build links this file's object last, so on ELF (init_array in link order)
// every other static object of the library is constructed before it runs.
struct InitOnLoad {
  InitOnLoad() { init(); }
};
InitOnLoad init_on_load;
}  // namespace

}  // namespace at
