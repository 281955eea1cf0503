"""Groups the pointwise operators of a captured graph into fused kernels and
turns the graph into a runnable plan.

A group is a run of consecutive recorded calls of pointwise operators that
have a YAML `expr`, all on CPU tensors of one floating dtype. Consecutive,
so that no other call sits between its members and running the whole group
at its last member's place cannot reorder anything. Its inputs are the
tensors it reads from outside; its outputs the values its members produce
that something outside the group (or the function's result) uses, all of
the group's broadcast shape. One C++ loop computes every output per element
from the composed formulas, in the computation type (float for half and
bfloat16, as the eager kernels compute).

When gradients are needed, the group's backward is one more loop: it
recomputes the forward values it needs and applies each member's derivative
formula in reverse (Emitter.derivative), accumulating into every input that
requires grad; inputs that were broadcast get their gradient summed back to
their shape. A group whose derivatives have no per-element reading, or whose
members are too few to gain anything, runs eagerly, call by call.
"""
from __future__ import annotations

import hashlib
import os

import torchlike
from torchlike import _C

from .capture import Value
from .formulas import Emitter, NoScalarForm, pointwise_table

__all__ = ["plan", "Plan", "FusedGroup"]

_FLOATING = None


def _floating():
    global _FLOATING
    if _FLOATING is None:
        _FLOATING = {torchlike.float16, torchlike.bfloat16, torchlike.float32, torchlike.float64}
    return _FLOATING


def _broadcast(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, d in enumerate(s):
            j = nd - len(s) + i
            if d != 1:
                out[j] = d
    return tuple(out)


class FusedGroup:
    """One fused kernel: members (graph nodes), inputs and outputs (Values)."""

    def __init__(self, index, nodes, dtype):
        self.index = index
        self.nodes = nodes
        self.dtype = dtype
        self.inputs = []
        self.outputs = []
        self.grad_inputs = []     # positions in inputs that get a gradient
        self.fwd_op = None
        self.bwd_op = None
        self.reason = None        # why it runs eagerly, when it does

    def describe(self):
        return " -> ".join(n.name.split("::")[1] for n in self.nodes)


def _fusible(node, table):
    op = table.get(node.name)
    if op is None:
        return None, f"{node.name} has no pointwise formula"
    if not op.floating_result or node.mutates or len(node.outputs) != 1:
        return None, f"{node.name} is not a floating-point pointwise call"
    out = node.outputs[0]
    if out.dtype not in _floating() or out.device.type != "cpu":
        return None, f"{node.name} on {out.dtype} / {out.device} (fused kernels are CPU floating-point)"
    for (pname, kind), a in zip(op.params, node.args):
        if kind == "Tensor":
            if not isinstance(a, Value):
                return None, f"{node.name}: argument {pname} is not a tensor"
            if a.kind != "const" and a.dtype != out.dtype:
                return None, f"{node.name}: mixed dtypes ({a.dtype} and {out.dtype})"
            if a.kind != "const" and a.device != out.device:
                return None, f"{node.name}: mixed devices"
        elif kind == "Scalar":
            if not isinstance(a, (int, float)) or isinstance(a, bool) and False:
                return None, f"{node.name}: scalar {pname} is not a Python number"
        else:
            return None, f"{node.name}: parameter {pname} of type {kind}"
    return op, None


def _runs(graph, table, log):
    """Maximal runs of consecutive fusible calls of one dtype."""
    runs, current = [], []
    for node in graph.nodes:
        op, why = _fusible(node, table)
        if op is not None and current and node.outputs[0].dtype != current[0][0].outputs[0].dtype:
            runs.append(current)
            current = []
        if op is None:
            if current:
                runs.append(current)
                current = []
            if why and log:
                log(why)
            continue
        current.append((node, op))
    if current:
        runs.append(current)
    return runs


def _groups(graph, table, log):
    """The runs split into their connected parts (calls linked by the values
    they pass each other): independent chains that happen to be adjacent
    become separate kernels, each with its own shape."""
    out = []
    for run in _runs(graph, table, log):
        parent = list(range(len(run)))

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i
        producer = {id(n.outputs[0]): i for i, (n, _) in enumerate(run)}
        for i, (n, _) in enumerate(run):
            for a in n.tensor_args():
                j = producer.get(id(a))
                if j is not None:
                    parent[find(i)] = find(j)
        parts = {}
        for i, member in enumerate(run):
            parts.setdefault(find(i), []).append(member)
        out.extend(sorted(parts.values(), key=lambda ms: run.index(ms[0])))
    return out


def _output_values(graph):
    out = set()

    def walk(o):
        if isinstance(o, Value):
            out.add(id(o))
        elif isinstance(o, (list, tuple)):
            for x in o:
                walk(x)
        elif isinstance(o, dict):
            for x in o.values():
                walk(x)
    walk(graph.output)
    return out


class _GroupSource:
    """The C++ of one group: its forward loop and, when asked, its backward."""

    def __init__(self, group, members, requires_grad):
        self.group = group
        self.members = members          # [(node, PointwiseOp)]
        self.requires_grad = requires_grad

    @staticmethod
    def _bindings(node, op, var_of):
        """op's parameter names -> the C++ expressions of node's arguments."""
        out = {}
        for (pname, kind), a in zip(op.params, node.args):
            if kind == "Scalar":
                out[pname] = Emitter.literal(a)
            elif a.kind == "const":
                out[pname] = Emitter.literal(a.const)
            else:
                out[pname] = var_of[id(a)]
        return out

    def _forward(self, em, var_of):
        """Emits every member's value; var_of maps Value id -> C++ expression."""
        for node, op in self.members:
            var_of[id(node.outputs[0])] = em.apply(op, self._bindings(node, op, var_of))

    def forward_body(self):
        em = Emitter()
        var_of = {id(v): f"a{k}" for k, v in enumerate(self.group.inputs)}
        self._forward(em, var_of)
        results = [var_of[id(v)] for v in self.group.outputs]
        return em.lines, results

    def backward_body(self):
        """Lines computing the gradients of group.grad_inputs from the inputs
        a<k> and the output gradients go<k>; raises NoScalarForm."""
        em = Emitter()
        g = self.group
        var_of = {id(v): f"a{k}" for k, v in enumerate(g.inputs)}
        self._forward(em, var_of)
        # Which values carry a gradient: those computed from an input that requires one.
        needs = {id(g.inputs[k]) for k in g.grad_inputs}
        for node, _ in self.members:
            if any(id(a) in needs for a in node.tensor_args()):
                needs.add(id(node.outputs[0]))
        grad_of = {}
        for k, v in enumerate(g.outputs):
            if id(v) in needs:
                name = em.fresh("g")
                em.lines.append(f"C {name} = go{k};")
                grad_of[id(v)] = name
        for node, op in reversed(self.members):
            out = node.outputs[0]
            gv = grad_of.get(id(out))
            if gv is None:
                continue
            names = {**self._bindings(node, op, var_of), "grad": gv, "result": var_of[id(out)]}
            for (pname, kind), a in zip(op.params, node.args):
                if kind != "Tensor" or a.kind == "const" or id(a) not in needs:
                    continue
                formula = op.derivatives.get(pname)
                if formula is None:
                    raise NoScalarForm(f"{node.name} has no derivative formula for {pname}")
                term = em.derivative(formula, names)
                if id(a) in grad_of:
                    em.lines.append(f"{grad_of[id(a)]} = {grad_of[id(a)]} + static_cast<C>({term});")
                else:
                    name = em.fresh("g")
                    em.lines.append(f"C {name} = static_cast<C>({term});")
                    grad_of[id(a)] = name
        results = [grad_of.get(id(g.inputs[k]), "C(0)") for k in g.grad_inputs]
        return em.lines, results


_LOOP = """
template <class scalar_t>
void {name}_loop(at::TensorIterator& iter) {{
  using C = c10::opmath_t<scalar_t>;
  using T = C;  // the name the YAML formulas use for their computation type
  at::native::cpu_for_each(iter, [](char** data, const int64_t* s, int64_t n) {{
    // The vectorized loops: every operand contiguous, except that the inputs
    // named in `mask` may be one broadcast value (stride 0), loaded once. The
    // backward's incoming gradient is often such a value (sum().backward()).
    bool contiguous = true;
    unsigned mask = 0;
    for (int k = 0; k < {nt}; ++k) {{
      if (s[k] == (int64_t)sizeof(scalar_t)) continue;
      if (s[k] == 0 && ({bcast_bits}u >> k & 1u)) mask |= 1u << k;
      else contiguous = false;
    }}
{variants}
    }} else {{
      for (int64_t j = 0; j < n; ++j) {{
{strided_loads}
{body}
{strided_stores}
      }}
    }}
  }});
}}

std::vector<c10::TensorBase> {name}(std::vector<c10::TensorBase> in) {{
  TL_CHECK(in.size() == {nin}, "{name}: expected {nin} inputs, got ", in.size());
  at::TensorIteratorConfig cfg("torchlike.compile");
  for (int k = 0; k < {nout}; ++k) cfg.add_output(c10::TensorBase());
  for (const auto& t : in) cfg.add_input(t);
  at::TensorIterator iter = cfg.build();
  // One dtype: the graph was captured, and is guarded, for it.
  TL_CHECK(iter.common_dtype() == c10::ScalarType::{scalar_type}, "{name}: compiled for {scalar_type}, got ",
           c10::toString(iter.common_dtype()));
  {name}_loop<{cpp_type}>(iter);
  std::vector<c10::TensorBase> out;
  for (int k = 0; k < {nout}; ++k) out.push_back(iter.output(k));
  return out;
}}
"""


_CPP_TYPES = {"float32": ("Float", "float"), "float64": ("Double", "double"), "float16": ("Half", "c10::Half"),
              "bfloat16": ("BFloat16", "c10::BFloat16")}


_MAX_BCAST_VARIANTS = 2  # inputs that get a stride-0 variant of the vectorized loop (2^k loops)


def _loop_source(name, in_names, lines, results, dtype, bcast=()):
    """One kernel: a TensorIterator loop over `lines`. `bcast` names the
    inputs (by index) for which a broadcast-value variant of the vectorized
    loop is generated, at most _MAX_BCAST_VARIANTS of them."""
    nin, nout = len(in_names), len(results)
    bcast = list(bcast)[:_MAX_BCAST_VARIANTS] if nin + nout < 32 else []  # mask bits are one unsigned
    scalar_type, cpp_type = _CPP_TYPES[str(dtype).split(".")[-1]]
    ind = " " * 8
    contig_ptrs = "\n".join(
        [f"      scalar_t* __restrict__ po{k} = reinterpret_cast<scalar_t*>(data[{k}]);" for k in range(nout)]
        + [f"      const scalar_t* __restrict__ pi{k} = reinterpret_cast<const scalar_t*>(data[{nout + k}]);"
           for k in range(nin)])
    strided_loads = "\n".join(
        f"{ind}C {n} = static_cast<C>(*reinterpret_cast<const scalar_t*>(data[{nout + k}] + j * s[{nout + k}]));"
        for k, n in enumerate(in_names))
    body = "\n".join(ind + line for line in lines)
    contig_stores = "\n".join(f"{ind}po{k}[j] = static_cast<scalar_t>({r});" for k, r in enumerate(results))
    bits = 0
    for k in bcast:
        bits |= 1 << (nout + k)
    variants = []
    for v in range(1 << len(bcast)):
        scalar_in = {bcast[i] for i in range(len(bcast)) if v >> i & 1}
        vmask = sum(1 << (nout + k) for k in scalar_in)
        hoisted = "\n".join(f"      const C {n} = static_cast<C>(pi{k}[0]);"
                             for k, n in enumerate(in_names) if k in scalar_in)
        loads = "\n".join(f"{ind}C {n} = static_cast<C>(pi{k}[j]);"
                           for k, n in enumerate(in_names) if k not in scalar_in)
        variants.append(("    if" if v == 0 else "    } else if") + f" (contiguous && mask == {vmask}u) {{\n"
                        + contig_ptrs + "\n" + hoisted + "\n#pragma omp simd\n      for (int64_t j = 0; j < n; ++j) {\n"
                        + loads + "\n" + body + "\n" + contig_stores + "\n      }")
    strided_stores = "\n".join(f"{ind}*reinterpret_cast<scalar_t*>(data[{k}] + j * s[{k}]) = static_cast<scalar_t>({r});"
                               for k, r in enumerate(results))
    variants = "\n".join(variants)
    return _LOOP.format(name=name, nt=nin + nout, nin=nin, nout=nout, bcast_bits=bits, variants=variants,
                        scalar_type=scalar_type, cpp_type=cpp_type,
                        strided_loads=strided_loads, body=body, strided_stores=strided_stores)


_HEADER = """// Generated by torchlike.compile ({what}). Fused pointwise kernels composed
// from the operators' formulas in native_functions.yaml.
#include <cstdint>
#include <vector>
#include "aten/TensorIterator.h"
#include "aten/native/Math.h"
#include "aten/native/cpu/Loops.h"
#include "c10/Library.h"
#include "c10/ScalarType.h"

namespace {{
"""


def _build(sources, log):
    """Compiles the kernels (one library per graph, named by a hash of its
    source, so another process finds it built) and returns its namespace."""
    from torchlike.utils import cpp_extension

    text = "".join(body for _, body in sources)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    ns = f"tl_compiled_{digest}"
    if ns in _LOADED:
        return ns
    defs = "\n".join(f'  m.def("{name}(Tensor[] inputs) -> Tensor[]");' for name, _ in sources)
    impls = "\n".join(f'  m.impl("{name}", &{name});' for name, _ in sources)
    src = (_HEADER.format(what=", ".join(name for name, _ in sources)) + text + "\n}  // namespace\n\n"
           + f"TL_LIBRARY({ns}, m) {{\n{defs}\n}}\n\nTL_LIBRARY_IMPL({ns}, CPU, m) {{\n{impls}\n}}\n")
    root = os.path.join(cpp_extension.get_default_build_root(), "compiled")
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, ns + ".cpp")
    if not os.path.exists(path) or open(path).read() != src:
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w") as fh:
            fh.write(src)
        os.replace(tmp, path)
    # The eager kernels' flags: `omp simd` loops, and FP exceptions never read
    # (so comparisons inside element functions may be if-converted).
    flags = ["-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-fno-trapping-math"]
    cpp_extension.load(ns, [path], extra_cflags=flags, is_python_module=False,
                       build_directory=os.path.join(root, ns))
    _LOADED.add(ns)
    return ns


_LOADED = set()  # kernel libraries loaded into this process


class _FusedFunction(torchlike.autograd.Function):
    @staticmethod
    def forward(ctx, group, *inputs):
        outs = _C._ops_call_boxed(group.fwd_op, (list(inputs),))
        ctx.group = group
        ctx.save_for_backward(*inputs)
        return outs[0] if len(outs) == 1 else tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        group = ctx.group
        inputs = ctx.saved_tensors
        # A gradient that is one value broadcast (every stride 0, as sum()'s
        # backward gives) is passed as it is: the kernel loads it once.
        grads = [g if all(st == 0 for st in g.stride()) else g.contiguous() for g in grads]
        gs = _C._ops_call_boxed(group.bwd_op, (list(inputs) + grads,))
        result = [None] * len(inputs)
        for g, k in zip(gs, group.grad_inputs):
            shape = tuple(inputs[k].shape)
            result[k] = g if tuple(g.shape) == shape else g.sum_to_size(shape)
        return (None, *result)


class Plan:
    """A graph made runnable: eager calls and fused groups, in order."""

    def __init__(self, graph, steps, groups, num_values):
        self.graph = graph
        self.steps = steps
        self.groups = groups
        self.num_values = num_values

    def run(self, flat_inputs):
        env = [None] * self.num_values
        for v in self.graph.inputs:
            env[v.slot] = flat_inputs[v.index]
        for v in self.graph.externals:
            env[v.slot] = v.ref
        for step in self.steps:
            step(env)
        return env


def plan(graph, grad_needed, log=None, fuse=True):
    """Builds the plan: groups of at least two pointwise calls are fused."""
    table = pointwise_table()
    slot = 0
    values = list(graph.inputs) + list(graph.externals)
    for n in graph.nodes:
        values += n.outputs
    for v in values:
        v.slot = slot
        slot += 1
    outputs = _output_values(graph)
    member_of = {}
    groups = []
    if fuse:
        for members in _groups(graph, table, log):
            if len(members) < 2:
                continue
            g = FusedGroup(len(groups), [n for n, _ in members], members[0][0].outputs[0].dtype)
            ids = {id(n) for n in g.nodes}
            produced = {id(n.outputs[0]) for n in g.nodes}
            seen = set()
            for n in g.nodes:
                for a in n.tensor_args():
                    if a.kind != "const" and id(a) not in produced and id(a) not in seen:
                        seen.add(id(a))
                        g.inputs.append(a)
            for n in g.nodes:
                v = n.outputs[0]
                if id(v) in outputs or any(id(u) not in ids for u in v.uses):
                    g.outputs.append(v)
            shape = _broadcast([n.outputs[0].shape for n in g.nodes] + [a.shape for a in g.inputs])
            if any(tuple(v.shape) != shape for v in g.outputs) or not g.outputs:
                if log:
                    log(f"group {g.describe()}: outputs of different shapes; runs eagerly")
                continue
            g.source = _GroupSource(g, members, grad_needed)
            groups.append(g)
            for n in g.nodes:
                member_of[id(n)] = g
    # Sources: the forward of every group, and its backward where gradients
    # are needed. A group whose backward has no per-element form is not fused
    # when a gradient flows through it: eager calls keep autograd exact.
    sources = []
    kept = []
    for g in groups:
        in_names = [f"a{k}" for k in range(len(g.inputs))]
        g.grad_inputs = [k for k, v in enumerate(g.inputs) if v.requires_grad] if grad_needed else []
        bwd = None
        if g.grad_inputs:
            try:
                blines, bresults = g.source.backward_body()
            except NoScalarForm as e:
                if log:
                    log(f"group {g.describe()}: no per-element backward ({e}); runs eagerly")
                for n in g.nodes:
                    member_of.pop(id(n), None)
                continue
            names = in_names + [f"go{k}" for k in range(len(g.outputs))]
            bwd = (f"g{g.index}_bwd", _loop_source(f"g{g.index}_bwd", names, blines, bresults, g.dtype,
                                                    bcast=range(len(in_names), len(names))))
        lines, results = g.source.forward_body()
        sources.append((f"g{g.index}_fwd", _loop_source(f"g{g.index}_fwd", in_names, lines, results, g.dtype)))
        if bwd:
            sources.append(bwd)
        kept.append(g)
    groups = kept
    ns = _build(sources, log) if sources else None
    for g in groups:
        g.fwd_op = getattr(getattr(torchlike.ops, ns), f"g{g.index}_fwd").default._handle
        if g.grad_inputs:
            g.bwd_op = getattr(getattr(torchlike.ops, ns), f"g{g.index}_bwd").default._handle
    # Steps.
    steps = []
    done = set()
    for n in graph.nodes:
        g = member_of.get(id(n))
        if g is None:
            steps.append(_eager_step(n))
            continue
        if n is g.nodes[-1] and g.index not in done:
            done.add(g.index)
            steps.append(_group_step(g))
    return Plan(graph, steps, groups, slot)


def _resolve(a, env):
    if isinstance(a, Value):
        return env[a.slot] if a.kind != "const" else a.ref
    if isinstance(a, list):
        return [_resolve(x, env) for x in a]
    return a


def _eager_step(node):
    handle = node.op._handle
    args = node.args
    outs = [v.slot for v in node.outputs]
    kind = node.result_kind

    def step(env):
        r = _C._ops_call_boxed(handle, tuple(_resolve(a, env) for a in args))
        if kind == "tensor":
            env[outs[0]] = r
        elif kind in ("tuple", "list"):
            for s, t in zip(outs, r):
                env[s] = t
    return step


def _group_step(g):
    in_slots = [v.slot for v in g.inputs]
    out_slots = [v.slot for v in g.outputs]
    fwd = g.fwd_op
    differentiable = bool(g.grad_inputs)

    def step(env):
        inputs = [env[s] for s in in_slots]
        if differentiable and torchlike.is_grad_enabled() and any(t.requires_grad for t in inputs):
            r = _FusedFunction.apply(g, *inputs)
            outs = [r] if len(out_slots) == 1 else list(r)
        else:
            outs = _C._ops_call_boxed(fwd, (inputs,))
        for s, t in zip(out_slots, outs):
            env[s] = t
    return step
