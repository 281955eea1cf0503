"""One renderer per generated output kind. Each module's `render(gen)` returns
the files it produces as `Output(path, text, kind)`; gen.py writes them.

Per operator group (an op with its in-place and out= variants):
  functors.py      functors/<op>.h      pointwise formulas, host/device, Math.h only
  kernels_cpu.py   kernels/cpu/<op>.cpp CPU loops over the functors (no Python)
  headers.py       ops/<op>.h           at::_ops entry points, at::native kernels
                   kernels/<op>.h       generated kernels, for registration to call
Sharded by a stable hash of the group's name (a fixed file count per layer):
  registration.py  registration/shardN.cpp  at::_ops definitions, wrappers,
                   structured (device-neutral) pointwise set-up and Meta
                   kernels, every registerSchema/registerKernel
  autograd.py      autograd/shardN.cpp      backward nodes, Autograd kernels
  autocast.py      autocast/shardN.cpp      Autocast<Device> kernels from the `autocast:` policies
  python.py        python/shardN.cpp        CPython bindings (only these include Python.h)
Aggregates:
  cpp_api.py       TensorBody.h, Functions.h
  register_all.py  RegisterAll.cpp (core), python/RegisterAll.cpp
  pyi.py           torchlike/_C/__init__.pyi

Meta for pointwise operators is the structured half run without a loop, so
it lives with the device-neutral code in the registration shards; CPU (and
later CUDA, PrivateUse1) kernels are files of their own kind per group.
"""
