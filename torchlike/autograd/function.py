"""torchlike.autograd.Function: user-defined differentiable operations.

forward runs under no_grad; apply() then builds one graph node (a C++
PyBackwardNode made by _C._VariableFunctions._make_function_node) whose
backward is a Python callable that calls cls.backward(ctx, *grads). The
node takes part in the C++ engine like any built-in node.
"""
import functools
import re

from torchlike import _C
from torchlike.autograd.grad_mode import no_grad

_VF = _C._VariableFunctions

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.")


def _is_tensor(x):
    from torchlike import Tensor
    return isinstance(x, Tensor)


def _type_desc(t):
    # PyTorch names the tensor by its legacy type: [torch.FloatTensor [3]].
    return f"[{t.type()} [{', '.join(str(s) for s in t.shape)}]]"


class _SavedTensor:
    """One saved tensor plus the version it had at the end of forward.

    A saved *output* of the function is kept as a detached alias (same storage
    and version counter, no grad_fn): its grad_fn is the node that saves it,
    and holding it would be a reference cycle through C++. Inputs are kept as
    they are (their grad_fn is an earlier node)."""
    __slots__ = ("tensor", "version", "is_output", "output_nr", "requires_grad", "producer")

    def __init__(self, t, output_nr, producer):
        self.is_output = output_nr is not None
        self.output_nr = output_nr
        self.requires_grad = t.requires_grad
        self.producer = producer
        self.tensor = t.detach() if self.is_output else t
        # Inference tensors track no version (and cannot change outside inference mode).
        self.version = None if t.is_inference() else t._version

    def unpack(self, node):
        t = self.tensor
        if self.version is not None and t._version != self.version:
            # PyTorch's wording (see SavedVariable.cpp): the producing node's
            # name without "Backward<N>"; a leaf has no "which is" part.
            gf = node if self.is_output else t.grad_fn
            nr = self.output_nr if self.is_output else t.output_nr
            which = ""
            if gf is not None:
                which = f", which is output {nr} of {re.sub(r'Backward[0-9]*$', '', gf.name())},"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"{_type_desc(t)}{which} is at version {t._version}; expected version {self.version} "
                "instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torchlike.autograd.set_detect_anomaly(True).")
        if self.is_output and self.requires_grad and node is not None and _VF.is_grad_enabled():
            # Higher-order gradients through a saved output flow back into
            # this node, as in PyTorch.
            alias = t.detach()
            _VF._set_history(alias, node, self.output_nr)
            return alias
        return t


class FunctionCtx:
    """The ctx object forward and backward share."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not _is_tensor(t):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = self.__dict__.get("_saved")
        if saved is None:
            if "to_save" in self.__dict__ and not self.__dict__.get("_released"):
                return tuple(self.to_save)  # still inside forward
            if self.__dict__.get("_released"):
                raise RuntimeError(_FREED_MSG)
            return ()
        node = self.__dict__.get("_backward_fn")
        node = getattr(node, "_node", None) if node is not None else None
        return tuple(None if s is None else s.unpack(node) for s in saved)

    @property
    def saved_variables(self):
        return self.saved_tensors


class _BackwardCallable:
    """What the C++ node calls with the incoming gradients (one per forward
    output, None where undefined). Returns one gradient per forward input."""

    def __init__(self, cls, ctx, is_tensor_input, out_meta):
        self.cls = cls
        self.ctx = ctx
        self.is_tensor_input = is_tensor_input
        self.out_meta = out_meta  # (shape, dtype, device) per output, None for non-tensors
        self._node = None

    def __call__(self, *grads):
        import torchlike
        ctx = self.ctx
        name = self.cls.__name__ + "Backward"
        if ctx.__dict__.get("materialize_grads", True):
            grads = tuple(
                torchlike.zeros(m[0], dtype=m[1], device=m[2]) if g is None and m is not None else g
                for g, m in zip(grads, self.out_meta))
        result = self.cls.backward(ctx, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.is_tensor_input)
        if len(result) > n:
            # PyTorch tolerates trailing Nones (e.g. for kwargs-like extras).
            if any(r is not None for r in result[n:]):
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(result)})")
            result = result[:n]
        if len(result) < n:
            raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                               f"(expected {n}, got {len(result)})")
        # The node's edges are the tensor inputs only (as PyTorch's
        # next_functions): drop the None entries of the other arguments.
        out = []
        for i, (g, is_t) in enumerate(zip(result, self.is_tensor_input)):
            if g is None:
                if is_t:
                    out.append(None)
            elif not is_t:
                raise RuntimeError(f"function {name} returned a gradient different than None at position {i + 1}, "
                                   "but the corresponding forward input was not a Variable")
            elif not _is_tensor(g):
                raise TypeError(f"function {name} returned a gradient of type {type(g).__name__} at position {i + 1}, "
                                "expected a Tensor or None")
            else:
                out.append(g)
        return tuple(out)

    def _release(self):
        # Called by the engine after a backward without retain_graph.
        ctx = self.ctx
        ctx.__dict__.pop("_saved", None)
        ctx.__dict__.pop("to_save", None)
        ctx._released = True


class Function:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads) and
    call Subclass.apply(*args). Alternatively forward(*args) plus
    setup_context(ctx, inputs, output)."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-style "
                           "autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        is_tensor_input = tuple(_is_tensor(a) for a in args)
        grad_on = _VF.is_grad_enabled()
        ctx.needs_input_grad = tuple(bool(t and a.requires_grad and grad_on) for a, t in zip(args, is_tensor_input))
        needs_graph = any(ctx.needs_input_grad)
        custom_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if custom_setup:
                outputs = cls.forward(*args, **kwargs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        if custom_setup:
            cls.setup_context(ctx, args, outputs)

        is_tuple = isinstance(outputs, tuple)
        outs = list(outputs) if is_tuple else [outputs]
        dirty = {id(t) for t in ctx.__dict__.get("dirty_tensors", ())}
        non_diff = {id(t) for t in ctx.__dict__.get("non_differentiable", ())}
        input_ids = {id(a) for a, t in zip(args, is_tensor_input) if t}

        for t in ctx.__dict__.get("dirty_tensors", ()):
            if id(t) not in input_ids:
                raise RuntimeError("mark_dirty only accepts input tensors, but argument was not an input")
            if needs_graph and t.is_leaf and t.requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")

        out_meta = []
        for i, o in enumerate(outs):
            if _is_tensor(o) and id(o) in input_ids and id(o) not in dirty:
                # An input returned as is: the output is a new alias, so the
                # input keeps its own history.
                with no_grad():
                    o = o.view_as(o)
                outs[i] = o
            out_meta.append((tuple(o.shape), o.dtype, o.device) if _is_tensor(o) else None)

        node = None
        if needs_graph:
            backward_fn = _BackwardCallable(cls, ctx, is_tensor_input, out_meta)
            node = _VF._make_function_node(backward_fn, tuple(a for a, t in zip(args, is_tensor_input) if t),
                                           len(outs), cls.__name__ + "Backward")
            ctx._backward_fn = backward_fn
            for i, o in enumerate(outs):
                if not _is_tensor(o):
                    continue
                # Integer outputs can't carry gradients: non-differentiable, as in PyTorch.
                if id(o) not in non_diff and o.is_floating_point():
                    _VF._set_history(o, node, i)
        # Record saved tensors with their versions as of the end of forward.
        if "to_save" in ctx.__dict__:
            out_nr = {id(o): i for i, o in enumerate(outs) if _is_tensor(o)}
            saved = []
            for t in ctx.to_save:
                if t is None:
                    saved.append(None)
                    continue
                nr = out_nr.get(id(t)) if node is not None else None
                saved.append(_SavedTensor(t, nr, None))
            ctx._saved = saved
            del ctx.to_save
        return tuple(outs) if is_tuple else outs[0]


def once_differentiable(fn):
    """Decorator for backward: runs it without building a graph, so a
    double backward through it raises instead of being silently wrong."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        import torchlike
        with no_grad():
            outputs = fn(ctx, *args)
        if not _VF.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(a, torchlike.Tensor) and a.requires_grad for a in args)
        if not requires_grad:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs

        class _Err(Function):
            @staticmethod
            def forward(ctx_, *xs):
                return tuple(x.detach() if isinstance(x, torchlike.Tensor) else x for x in xs)

            @staticmethod
            def backward(ctx_, *gs):
                raise RuntimeError("trying to differentiate twice a function that was marked with "
                                   "@once_differentiable")

        _Err.__name__ = "DelayedError"
        grads_in = [a for a in args if isinstance(a, torchlike.Tensor) and a.requires_grad]
        # Tie the outputs to the incoming grads through an erroring node.
        err = _Err.apply(*(o for o in outs), *grads_in)
        res = err[:len(outs)]
        return res[0] if single else tuple(res)

    return wrapper
