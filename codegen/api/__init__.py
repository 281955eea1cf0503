"""Schema-to-language mappings shared by every renderer in codegen/dest/.

- api/types.py: C++ types of schema arguments and returns (the at::_ops
  entry points on TensorBase, the user-facing at::Tensor API), C++ defaults
  and the overload-ambiguity rule.
- api/ops.py: the operator model as emitted (Op: one overload with its kind,
  C++ name and kernels), the YAML namespace it lives in, and per-op facts the
  renderers ask for (pointwise formula as C++, method/function variants).
- api/python.py: PythonArgParser signatures, parsed-argument accessors,
  binding tables and .pyi stub types.
"""
