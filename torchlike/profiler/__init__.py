"""torchlike.profiler: PyTorch's profiler API (profile, schedule, record_function,
tensorboard_trace_handler, ...). Events come from the dispatcher-level recorder
in csrc/c10/ProfilerHooks.cpp: every operator call, record_function range,
backward Node and (profile_memory) CPU allocation.
"""
from torchlike.autograd.profiler import record_function
from torchlike.profiler.profiler import (DeviceType, ExecutionTraceObserver, ProfilerAction, ProfilerActivity,
                                         _ExperimentalConfig, _KinetoProfile, kineto_available, profile, schedule,
                                         supported_activities, tensorboard_trace_handler)
from torchlike.profiler import itt  # noqa: F401

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "kineto_available", "DeviceType", "record_function", "ExecutionTraceObserver"]
