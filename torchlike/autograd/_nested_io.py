"""NestedIOFunction: the legacy instance-style Function over nested inputs/outputs.

Subclasses define forward_extended(*inputs) and backward_extended(*grad_outputs) as
methods, where inputs and outputs may be nested lists/tuples of tensors, and call an
instance: fn(*inputs). The call flattens the inputs, runs forward_extended on the
rebuilt structure inside a one-off Function whose graph node receives the flat
tensors, and gives the outputs back in their nested shape; backward_extended sees
the output gradients in that same shape and returns input gradients shaped like the
inputs.
"""
from torchlike._tensor import Tensor
from torchlike.autograd.function import Function

__all__ = ["NestedIOFunction"]


def _flatten(obj, out):
    """Appends the tensors of a nested list/tuple to `out`; returns the structure with
    each tensor replaced by its index (non-tensors kept as they are)."""
    if isinstance(obj, Tensor):
        out.append(obj)
        return len(out) - 1
    if isinstance(obj, (list, tuple)):
        return type(obj)(_flatten(x, out) for x in obj)
    return ("leaf", obj)


def _rebuild(spec, flat):
    if isinstance(spec, int):
        return flat[spec]
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "leaf":
        return spec[1]
    return type(spec)(_rebuild(s, flat) for s in spec)


class NestedIOFunction(Function):
    """See the module docstring."""

    def __call__(self, *inputs):
        flat_inputs = []
        in_spec = _flatten(inputs, flat_inputs)
        owner = self

        class _Nested(Function):
            @staticmethod
            def forward(ctx, *tensors):
                owner._ctx = ctx
                result = owner.forward_extended(*_rebuild(in_spec, tensors))
                flat_out = []
                owner._out_spec = _flatten(result, flat_out)
                return tuple(flat_out)

            @staticmethod
            def backward(ctx, *grads):
                shaped = _rebuild(owner._out_spec, grads)
                # Several outputs arrive as several arguments, a single one as one.
                grads_in = owner.backward_extended(*shaped) if isinstance(shaped, (list, tuple)) \
                    else owner.backward_extended(shaped)
                if not isinstance(grads_in, tuple):
                    grads_in = (grads_in,)
                # One gradient (or None) per flat input tensor, in the inputs' order.
                flat_grads = list(_leaves(grads_in))
                if len(flat_grads) != len(flat_inputs):
                    raise RuntimeError(f"function {type(owner).__name__} returned {len(flat_grads)} gradients "
                                       f"for {len(flat_inputs)} input tensors")
                return tuple(flat_grads)

        _Nested.__name__ = type(self).__name__
        flat_out = _Nested.apply(*flat_inputs)
        if isinstance(flat_out, Tensor):
            flat_out = (flat_out,)
        result = _rebuild(self._out_spec, flat_out)
        return result

    # forward/backward as the legacy API names them: thin adapters to the *_extended ones.
    def forward(self, *args):
        return self.forward_extended(*args)

    def backward(self, *gradients):
        return self.backward_extended(*gradients)

    # The ctx methods, used on self from inside forward_extended / backward_extended.
    def save_for_backward(self, *args):
        self._ctx.save_for_backward(*args)

    @property
    def saved_tensors(self):
        return self._ctx.saved_tensors

    def mark_dirty(self, *args, **kwargs):
        self._ctx.mark_dirty(*args, **kwargs)

    def mark_non_differentiable(self, *args, **kwargs):
        self._ctx.mark_non_differentiable(*args, **kwargs)

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError


def _leaves(obj):
    if isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _leaves(x)
    else:
        yield obj
