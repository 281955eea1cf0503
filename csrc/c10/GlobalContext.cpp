// The process-wide numerical settings (GlobalContext.h) and the C++ warning sink.
#include "GlobalContext.h"

#include <cstdio>
#include <string>
#include "Exception.h"

namespace c10 {

GlobalContext& globalContext() {
  static GlobalContext ctx;
  return ctx;
}

namespace {
std::atomic<WarningHandler> g_warning_handler{nullptr};
}

WarningHandler setWarningHandler(WarningHandler handler) { return g_warning_handler.exchange(handler); }

void warn(const char* message) {
  WarningHandler h = g_warning_handler.load(std::memory_order_acquire);
  if (h) {
    h(message);
  } else {
    std::fprintf(stderr, "Warning: %s\n", message);
  }
}

void alertNotDeterministic(const char* op) {
  GlobalContext& ctx = globalContext();
  if (!ctx.deterministic.load(std::memory_order_relaxed)) return;
  std::string msg = std::string(op) +
                    " does not have a deterministic implementation, but you set "
                    "'torch.use_deterministic_algorithms(True)'. You can turn off determinism just for this "
                    "operation, or you can use the 'warn_only=True' option, if that's acceptable for your "
                    "application.";
  if (ctx.deterministic_warn_only.load(std::memory_order_relaxed)) {
    warn(msg.c_str());
    return;
  }
  TL_ERROR(msg);
}

}  // namespace c10
