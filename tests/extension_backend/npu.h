// The test backend's shared declarations: an out-of-tree "npu" device on
// PrivateUse1 whose memory is host memory owned by its own allocator.
#pragma once
#include <cstdint>

#include "c10/Tensor.h"

namespace npu {

// The allocator's counters (live bytes and blocks, and every block ever made).
struct Counters {
  int64_t bytes_live, blocks_live, blocks_total, bytes_peak;
};
Counters counters();

// Registers the device runtime (allocator, DeviceGuard, copy kernels,
// generators) with `num_devices` devices; uninstall() restores what was
// registered before. The operator kernels register at load (npu_ops.cpp).
void install(int num_devices);
void uninstall();

// A CPU tensor over an npu tensor's bytes (the memory is host memory), so
// kernels can reuse the CPU kernels without a copy.
c10::TensorBase host_alias(const c10::TensorBase& t);

// The CPU fallback for every operator without an npu kernel (npu_ops.cpp),
// registered by install() and removed by uninstall().
void install_fallback();
void uninstall_fallback();

// How many calls took the CPU fallback, and how many the native kernels.
int64_t fallback_calls();
int64_t native_calls();
void count_native_call();

}  // namespace npu
