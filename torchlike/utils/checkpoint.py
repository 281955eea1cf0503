"""Activation checkpointing: trade compute for memory by not keeping a
region's intermediate tensors for backward, and recomputing them there.

Two variants, as in PyTorch:

* reentrant (use_reentrant=True): the region runs under no_grad inside one
  autograd Function; its backward reruns the region with grad enabled and
  calls backward on that recomputed graph (a backward inside the backward),
  which accumulates into the parameters the region uses.
* non-reentrant (use_reentrant=False): the region runs once with grad
  enabled so the leaf tensors it reaches (parameters, closed-over leaves) are
  found by walking its graph; that graph is then dropped and one Function
  node takes the region's place, with the explicit inputs and those leaves as
  its inputs. Its backward recomputes the region and differentiates it with
  autograd.grad, so it composes with autograd.grad, keyword arguments, inputs
  that do not require grad and outputs that are not tensors.

Both restore the random-number state of the forward before recomputing, so
dropout draws the same mask twice.
"""
import contextlib
import enum
import warnings

import torchlike
from torchlike.autograd.function import Function

__all__ = [
    "checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
    "detach_variable", "get_device_states", "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
    "set_checkpoint_debug_enabled", "DefaultDeviceType", "CheckpointPolicy", "SelectiveCheckpointContext",
    "GraphExecGroup",
]


class CheckpointError(RuntimeError):
    """Raised when recomputation does not reproduce the forward pass."""


class CheckpointPolicy(enum.Enum):
    """Per-operation choice of selective checkpointing: keep the output
    (SAVE), recompute it (RECOMPUTE) or move it to CPU (CPU_OFFLOAD);
    MUST_* overrides other decisions, PREFER_* may be overridden."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """What a selective-checkpoint policy function is told about the call:
    whether it runs during recomputation."""

    def __init__(self, *, is_recompute, op_output=None):
        self.is_recompute = is_recompute
        self.op_output = op_output


def noop_context_fn():
    """The default context_fn: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


class DefaultDeviceType:
    """The device type whose RNG state checkpoint saves and restores besides
    the CPU's (default: 'cuda' when available, else 'cpu')."""
    _default_device_type = None

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        if DefaultDeviceType._default_device_type is None:
            return "cuda" if torchlike.cuda.is_available() else "cpu"
        return DefaultDeviceType._default_device_type


_flags = {"early_stop": True, "debug": None}


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within the block, whether non-reentrant recomputation may stop once the
    tensors backward needs exist. Recomputation here reruns the whole region
    (the region's outputs are what backward needs), so it always ends there."""
    previous = _flags["early_stop"]
    _flags["early_stop"] = bool(enable)
    try:
        yield
    finally:
        _flags["early_stop"] = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within the block, force checkpoint's debug flag on (True) or off (False);
    None leaves each call's own debug argument in charge."""
    previous = _flags["debug"]
    _flags["debug"] = enabled
    try:
        yield
    finally:
        _flags["debug"] = previous


class GraphExecGroup:
    """Backward calls made inside one instance of this context recompute each
    checkpointed (non-reentrant) region at most once: the recomputed graph is
    kept for later backward calls of the same group, which must therefore
    cover disjoint parts of the graph."""
    _active = []

    def __init__(self):
        self._recomputed = {}

    def __enter__(self):
        GraphExecGroup._active.append(self)
        return self

    def __exit__(self, *exc):
        GraphExecGroup._active.remove(self)
        self._recomputed.clear()

    @classmethod
    def _get_current_group(cls):
        return cls._active[-1] if cls._active else None


def _is_tensor(x):
    return isinstance(x, torchlike.Tensor)


def detach_variable(inputs):
    """The tensors of a tuple detached (keeping requires_grad); other entries as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    out = []
    for item in inputs:
        if not _is_tensor(item):
            out.append(item)
            continue
        fresh = item.detach()
        fresh.requires_grad_(item.requires_grad)
        out.append(fresh)
    return tuple(out)


def check_backward_validity(inputs):
    """Warn when no tensor input requires grad (the reentrant variant then
    produces no gradients at all)."""
    if not any(_is_tensor(x) and x.requires_grad for x in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


def _collect_tensors(obj, found):
    if _is_tensor(obj):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _collect_tensors(item, found)
    elif isinstance(obj, dict):
        for item in obj.values():
            _collect_tensors(item, found)
    return found


def get_device_states(*args):
    """(device indices, RNG states) of the accelerator devices the tensors in
    args live on, to be restored before recomputation."""
    device_type = DefaultDeviceType.get_device_type()
    indices = []
    for tensor in _collect_tensors(args, []):
        device = tensor.device
        if device.type == device_type and device.type != "cpu":
            index = device.index or 0
            if index not in indices:
                indices.append(index)
    if not indices:
        return [], []
    module = getattr(torchlike, device_type)
    return indices, [module.get_rng_state(index) for index in indices]


def set_device_states(devices, states, *, device_type=None):
    """Restore RNG states captured by get_device_states."""
    device_type = device_type or DefaultDeviceType.get_device_type()
    if not devices:
        return
    module = getattr(torchlike, device_type)
    for index, state in zip(devices, states):
        module.set_rng_state(state, index)


class _RngSnapshot:
    """The CPU (and accelerator) RNG states at the start of a forward."""

    def __init__(self, args, enabled):
        self.enabled = enabled
        if enabled:
            self.cpu = torchlike.get_rng_state()
            self.devices, self.device_states = get_device_states(*args)

    @contextlib.contextmanager
    def replayed(self):
        """Run a block with the forward's RNG states, then put back the
        states the block found."""
        if not self.enabled:
            yield
            return
        current_cpu = torchlike.get_rng_state()
        current_devices = _device_states_of(self.devices)
        torchlike.set_rng_state(self.cpu)
        set_device_states(self.devices, self.device_states)
        try:
            yield
        finally:
            torchlike.set_rng_state(current_cpu)
            set_device_states(self.devices, current_devices)


class _AutocastSnapshot:
    """The autocast state (per device type: on/off and dtype; the cache flag)
    when a checkpointed forward ran. Backward runs outside autocast, so the
    recomputation puts this state back: it must compute in the dtypes the
    forward did, or the gradients would not match the saved outputs."""

    _DEVICE_TYPES = ("cpu", "cuda")

    def __init__(self):
        self.per_device = [(d, torchlike.is_autocast_enabled(d), torchlike.get_autocast_dtype(d))
                           for d in self._DEVICE_TYPES]
        self.cache_enabled = torchlike.is_autocast_cache_enabled()

    @contextlib.contextmanager
    def replayed(self):
        with contextlib.ExitStack() as regions:
            for device_type, enabled, dtype in self.per_device:
                if enabled:
                    regions.enter_context(torchlike.autocast(device_type, dtype=dtype,
                                                             cache_enabled=self.cache_enabled))
            yield


def _device_states_of(indices):
    if not indices:
        return []
    module = getattr(torchlike, DefaultDeviceType.get_device_type())
    return [module.get_rng_state(index) for index in indices]


# ---------------------------------------------------------------------------
# reentrant


def _plain_backward_in_progress():
    """Whether the backward pass now running was started by autograd.backward
    (or Tensor.backward) without `inputs`. The reentrant variant accumulates
    into every leaf's .grad, which autograd.grad and backward(inputs=...)
    promise not to touch, so it must refuse to run under them. The engine
    runs Python nodes on the thread that started it, so the starting call is
    on this thread's stack; the non-reentrant variant's own autograd.grad
    call is looked through. No such frame found: allow."""
    import sys
    grad_code = torchlike.autograd.grad.__code__
    backward_code = torchlike.autograd.backward.__code__
    own_code = _NonReentrantCheckpoint.backward.__code__
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code is grad_code or code is backward_code:
            caller = frame.f_back
            if caller is not None and caller.f_code is own_code:
                frame = caller.f_back
                continue
            return code is backward_code and not frame.f_locals.get("inputs")
        frame = frame.f_back
    return True


class CheckpointFunction(Function):
    """The reentrant checkpoint: CheckpointFunction.apply(run_function,
    preserve_rng_state, *args)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng = _RngSnapshot(args, preserve_rng_state)
        ctx.autocast_state = _AutocastSnapshot()
        # Tensors are kept through save_for_backward (version-checked); the
        # rest of the arguments as they are.
        ctx.tensor_slots = [i for i, a in enumerate(args) if _is_tensor(a)]
        ctx.other_args = [None if _is_tensor(a) else a for a in args]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_slots))
        with torchlike.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _plain_backward_in_progress():
            raise RuntimeError(
                "When use_reentrant=True, torchlike.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
                "or call .backward() without passing the `inputs` argument.")
        args = list(ctx.other_args)
        for slot, tensor in zip(ctx.tensor_slots, ctx.saved_tensors):
            args[slot] = tensor
        inputs = detach_variable(tuple(args))
        with ctx.rng.replayed(), ctx.autocast_state.replayed(), torchlike.enable_grad():
            outputs = ctx.run_function(*inputs)
        if _is_tensor(outputs):
            outputs = (outputs,)
        roots, root_grads = [], []
        for out, grad in zip(outputs, grads):
            if _is_tensor(out) and out.requires_grad:
                roots.append(out)
                root_grads.append(grad)
        if not roots:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        torchlike.autograd.backward(roots, root_grads)
        return (None, None) + tuple(x.grad if _is_tensor(x) else None for x in inputs)


# ---------------------------------------------------------------------------
# non-reentrant


def _flatten(obj, leaves):
    """Structure of obj with each tensor replaced by its index in `leaves`."""
    if _is_tensor(obj):
        leaves.append(obj)
        return ("T", len(leaves) - 1)
    if isinstance(obj, (tuple, list)) and type(obj) in (tuple, list):
        return (type(obj), [_flatten(item, leaves) for item in obj])
    if type(obj) is dict:
        return (dict, [(k, _flatten(v, leaves)) for k, v in obj.items()])
    return ("V", obj)


def _unflatten(spec, leaves):
    kind, payload = spec
    if kind == "T":
        return leaves[payload]
    if kind == "V":
        return payload
    if kind is dict:
        return {k: _unflatten(v, leaves) for k, v in payload}
    return kind(_unflatten(item, leaves) for item in payload)


def _metadata(tensor):
    return {"shape": tensor.shape, "dtype": tensor.dtype, "device": tensor.device}


def _graph_leaves(roots, region_inputs):
    """The leaf tensors requiring grad that the graph of `roots` reaches,
    other than the region's own (detached) inputs; and the names of the
    nodes on the way, in visit order (for debug messages)."""
    own = {id(t) for t in region_inputs}
    leaves, names, seen = [], [], {}
    stack = [t.grad_fn for t in roots if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node  # holding the wrapper keeps its id unique during the walk
        variable = node.variable if node.name() == "AccumulateGrad" else None
        if variable is not None:
            if id(variable) not in own and not any(variable is leaf for leaf in leaves):
                leaves.append(variable)
            continue
        names.append(node.name())
        stack.extend(nxt for nxt, _ in reversed(node.next_functions))
    return leaves, names


class _Region:
    """Everything one non-reentrant checkpoint needs to recompute its region."""

    def __init__(self, function, args, kwargs, rng, recompute_context, determinism_check, debug):
        self.function = function
        self.args = args
        self.kwargs = kwargs
        self.rng = rng
        self.autocast_state = _AutocastSnapshot()
        self.recompute_context = recompute_context
        self.determinism_check = determinism_check
        self.debug = debug
        self.output_metadata = []
        self.forward_ops = []
        self.input_versions = []

    def run(self, context, detach=True):
        """Run the region with grad enabled, on detached copies of its inputs
        (or, for a double backward, on the inputs themselves so the gradients
        stay connected to their history). Returns (flat inputs, flat outputs,
        output spec)."""
        inputs = []
        spec_in = _flatten((self.args, self.kwargs), inputs)
        detached = []
        for tensor in inputs:
            if not detach:
                detached.append(tensor)
                continue
            fresh = tensor.detach()
            fresh.requires_grad_(tensor.requires_grad)
            detached.append(fresh)
        args, kwargs = _unflatten(spec_in, detached)
        with context, torchlike.enable_grad():
            result = self.function(*args, **kwargs)
        outputs = []
        spec_out = _flatten(result, outputs)
        return detached, outputs, spec_out

    def check_recomputation(self, outputs, op_names):
        if self.determinism_check == "none":
            return
        recomputed = [_metadata(t) for t in outputs]
        trace = ""
        if self.debug:
            trace = ("\n\nOperations recorded during the original forward:\n  " + ", ".join(self.forward_ops)
                     + "\nOperations recorded during recomputation:\n  " + ", ".join(op_names) + "\n")
        if len(recomputed) != len(self.output_metadata):
            raise CheckpointError(
                "torchlike.utils.checkpoint: A different number of tensors was produced during the original forward "
                f"and recomputation.\nNumber of tensors produced during forward: {len(self.output_metadata)}\n"
                f"Number of tensors produced during recomputation: {len(recomputed)}" + trace)
        mismatches = []
        for position, (saved, again) in enumerate(zip(self.output_metadata, recomputed)):
            if saved != again:
                mismatches.append(f"tensor at position {position}:\nsaved metadata: {saved}\nrecomputed metadata: "
                                  f"{again}\n")
        if mismatches:
            hint = "" if self.debug else (
                "\nTip: To see a more detailed error message, either pass `debug=True` to "
                "`torchlike.utils.checkpoint.checkpoint(...)` or wrap the code block with "
                "`with torchlike.utils.checkpoint.set_checkpoint_debug_enabled(True):` to enable checkpoint-debug "
                "mode globally.")
            raise CheckpointError(
                "torchlike.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                "than during the forward pass.\n" + "".join(mismatches) + trace + hint)


class _NonReentrantCheckpoint(Function):
    """Stands for a region in the graph. Inputs: (region, n_explicit,
    *explicit tensor inputs, *leaves the region reaches); outputs: the region's
    tensor outputs, computed already (they come in through region)."""

    @staticmethod
    def forward(ctx, region, n_explicit, outputs, *tensors):
        ctx.region = region
        ctx.n_explicit = n_explicit
        ctx.leaves = tensors[n_explicit:]
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *grads):
        region = ctx.region
        # Grad mode is on inside backward only for create_graph=True.
        higher_order = torchlike.is_grad_enabled()
        group = GraphExecGroup._get_current_group()
        cached = group._recomputed.get(id(region)) if group is not None and not higher_order else None
        if cached is None:
            with region.rng.replayed(), region.autocast_state.replayed():
                detached, outputs, _ = region.run(region.recompute_context, detach=not higher_order)
            op_names = []
            if region.debug:
                _, op_names = _graph_leaves([t for t in outputs if t.requires_grad], detached)
            region.check_recomputation(outputs, op_names)
            cached = (detached, outputs)
            if group is not None and not higher_order:
                group._recomputed[id(region)] = cached
        detached, outputs = cached
        roots, root_grads = [], []
        for out, grad in zip(outputs, grads):
            if out.requires_grad and grad is not None:
                roots.append(out)
                root_grads.append(grad)
        wanted = [t for t in detached if t.requires_grad] + list(ctx.leaves)
        found = [None] * len(wanted)
        if roots and wanted:
            found = list(torchlike.autograd.grad(roots, wanted, root_grads, allow_unused=True,
                                                 retain_graph=group is not None or higher_order,
                                                 create_graph=higher_order))
        explicit = []
        it = iter(found)
        for tensor in detached:
            explicit.append(next(it) if tensor.requires_grad else None)
        return (None, None, None) + tuple(explicit) + tuple(it)


def _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, context_fn, determinism_check, debug):
    contexts = context_fn()
    if not (isinstance(contexts, tuple) and len(contexts) == 2):
        raise TypeError("context_fn must return a tuple of two context managers (forward, recomputation)")
    forward_context, recompute_context = contexts
    flat_inputs = _collect_tensors((args, kwargs), [])
    rng = _RngSnapshot(flat_inputs, preserve_rng_state)
    region = _Region(function, args, kwargs, rng, recompute_context, determinism_check, debug)
    grad_on = torchlike.is_grad_enabled()
    if not grad_on:
        with forward_context:
            return function(*args, **kwargs)
    detached, outputs, spec_out = region.run(forward_context)
    roots = [t for t in outputs if t.requires_grad]
    leaves, region.forward_ops = _graph_leaves(roots, detached)
    region.output_metadata = [_metadata(t) for t in outputs]
    # Drop the region's graph: from here on only the detached outputs remain.
    results = [t.detach() for t in outputs]
    del roots, detached, outputs
    if not any(t.requires_grad for t in flat_inputs) and not leaves:
        return _unflatten(spec_out, results)
    attached = _NonReentrantCheckpoint.apply(region, len(flat_inputs), results, *flat_inputs, *leaves)
    if not isinstance(attached, tuple):
        attached = (attached,)
    return _unflatten(spec_out, list(attached))


# ---------------------------------------------------------------------------
# entry points

_USE_REENTRANT_WARNING = (
    "torchlike.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """Run function(*args, **kwargs) without keeping its intermediate tensors
    for backward; backward recomputes them."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forced = _flags["debug"]
    debug = forced if forced is not None else debug
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, context_fn, determinism_check,
                                         debug)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules/functions in `segments` chunks, each chunk
    but the last checkpointed."""
    if use_reentrant is None:
        warnings.warn(
            "torchlike.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can "
            "pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)
    per_segment = len(functions) // segments
    if per_segment == 0:
        raise ValueError("range() arg 3 must not be zero")

    def chain(chunk):
        def run(x):
            for fn in chunk:
                x = fn(x)
            return x
        return run

    last_start = per_segment * (segments - 1)
    for start in range(0, last_start, per_segment):
        input = checkpoint(chain(functions[start:start + per_segment]), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return chain(functions[last_start:])(input)
