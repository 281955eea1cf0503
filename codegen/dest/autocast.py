"""autocast/shardN.cpp: the Autocast-key kernels of the groups hashing to N,
one per functional overload and device type its YAML `autocast:` names.

A kernel casts the eligible tensor arguments as its policy says (only
floating, non-float64 tensors on the kernel's own device type) and
redispatches below its Autocast key; an op without a policy has no kernel, so
its Autocast entry stays the fallthrough and costs nothing. Only functional
overloads are eligible: in-place and out= calls run in the dtypes they are
given, as in PyTorch."""
from __future__ import annotations

from codegen.dest.common import CORE, Output, path, render, shard_provenance
from codegen.model import BaseType, CodegenError, ListType, OptionalType


def tensor_kind(a) -> str | None:
    """How an argument is cast: a tensor, an optional tensor, a tensor list, or not at all."""
    t = a.type
    if a.is_write:
        return None  # never cast an argument the op writes into
    if isinstance(t, BaseType) and t.name == "Tensor":
        return "tensor"
    if isinstance(t, OptionalType) and isinstance(t.elem, BaseType) and t.elem.name == "Tensor":
        return "optional"
    if isinstance(t, ListType) and isinstance(t.elem, BaseType) and t.elem.name == "Tensor":
        return "list"
    return None


def _opt_dtype_arg(op):
    for a in op.schema.arguments:
        if a.name == "dtype" and isinstance(a.type, OptionalType) and isinstance(a.type.elem, BaseType) \
                and a.type.elem.name == "ScalarType":
            return a.name
    return None


class AutocastKernel:
    """What the template needs for one (overload, device type) pair."""

    def __init__(self, op, device: str, policy: str):
        self.op, self.device, self.policy = op, device, policy
        self.name = f"ac_{device}_{op.ident}"
        self.args = [(a.name, tensor_kind(a)) for a in op.cpp_args]
        self.dtype_arg = None
        if policy in ("fp32_set_opt_dtype", "fp32_append_dtype"):
            self.dtype_arg = _opt_dtype_arg(op)
            if self.dtype_arg is None:
                raise CodegenError(op.f.loc, f"{op.schema.name}: autocast policy {policy} needs a "
                                             f"'ScalarType? dtype' argument to set to float32")
            firsts = [n for n, k in self.args if k in ("tensor", "list")]
            if not firsts:
                raise CodegenError(op.f.loc, f"{op.schema.name}: autocast policy {policy} needs a tensor argument")
            self.first_tensor = firsts[0]
        if policy != "banned" and not any(k for _, k in self.args):
            raise CodegenError(op.f.loc, f"{op.schema.name}: autocast policy {policy} on an op with no tensor "
                                         f"argument to cast")


def device_policies(autocast) -> list:
    """(device, policy) pairs to generate: those the YAML lists, and for an
    accelerator policy ({CUDA: lower}) the same policy on PrivateUse1 unless
    the entry names PrivateUse1 itself, so an out-of-tree backend's
    `autocast("npu")` follows the accelerator column, as PyTorch's
    AutocastPrivateUse1 follows its CUDA lists."""
    pairs = list(autocast)
    devices = {d for d, _ in pairs}
    if "PrivateUse1" not in devices:
        pairs += [("PrivateUse1", p) for d, p in autocast if d == "CUDA"]
    return pairs


def kernels_of(ops) -> list:
    out = []
    for op in ops:
        if op.kind != "functional" or not op.f.autocast:
            continue
        for device, policy in device_policies(op.f.autocast):
            out.append(AutocastKernel(op, device, policy))
    return out


def render_all(gen) -> list:
    out = []
    for shard, members in gen.shards():
        kernels, with_policy = [], []
        for base, ops in members:
            mine = kernels_of(ops)
            kernels += mine
            if mine:
                with_policy.append((base, ops))
        # Provenance names only the groups with a policy: an operator added or
        # edited without one leaves every autocast shard as it was.
        text = render(gen, "autocast_shard.cpp.j2", [k.op for k in kernels[:1]], shard=shard, nshards=gen.nshards,
                      kernels=kernels, provenance=shard_provenance(gen, with_policy))
        out.append(Output(path(gen, f"autocast/shard{shard}.cpp"), text, CORE))
    return out
