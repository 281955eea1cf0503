// Process-wide numerical settings that kernels read and Python sets:
// torch.use_deterministic_algorithms, set_float32_matmul_precision,
// torch.backends.cuda.matmul.* and torch.backends.cudnn.*. Each is one
// relaxed atomic, so a kernel reads it for the cost of a load, and a setting
// changed between two ops applies from the next op on.
#pragma once
#include <atomic>
#include <cstdint>

namespace c10 {

enum class Float32MatmulPrecision : int8_t { Highest = 0, High = 1, Medium = 2 };

struct GlobalContext {
  std::atomic<bool> deterministic{false};
  std::atomic<bool> deterministic_warn_only{false};
  // set_float32_matmul_precision; backends.cuda.matmul.allow_tf32 is
  // precision != Highest, as in PyTorch.
  std::atomic<Float32MatmulPrecision> float32_matmul_precision{Float32MatmulPrecision::Highest};
  std::atomic<bool> allow_fp16_reduced_precision_reduction{true};
  std::atomic<bool> allow_bf16_reduced_precision_reduction{true};
  std::atomic<bool> cudnn_enabled{true};
  std::atomic<bool> cudnn_benchmark{false};
  std::atomic<bool> cudnn_deterministic{false};
  std::atomic<bool> cudnn_allow_tf32{true};
  // scaled_dot_product_attention backends (torch.backends.cuda.enable_*_sdp).
  std::atomic<bool> sdp_flash{true};
  std::atomic<bool> sdp_mem_efficient{true};
  std::atomic<bool> sdp_math{true};
  std::atomic<bool> sdp_cudnn{true};
};

GlobalContext& globalContext();

// For kernels with only a nondeterministic implementation: raises
// RuntimeError naming `op` when deterministic algorithms are on (warns when
// warn_only), as PyTorch's alertNotDeterministic does.
void alertNotDeterministic(const char* op);

// Where C++ warnings go. The Python extension installs a handler that raises
// a Python UserWarning; without one they are printed to stderr.
using WarningHandler = void (*)(const char* message);
WarningHandler setWarningHandler(WarningHandler handler);
void warn(const char* message);

}  // namespace c10
