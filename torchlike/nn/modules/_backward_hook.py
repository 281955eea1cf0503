"""Module full backward hooks (PyTorch's torch.utils.hooks.BackwardHook),
built from two identity autograd Functions: one over the module's tensor
inputs, one over its tensor outputs. The output one's backward sees
grad_output first (backward pre-hooks run there); the input one's backward
sees grad_input (full backward hooks run there, and may replace it)."""
import torchlike
from torchlike._tensor import Tensor
from torchlike.autograd.function import Function


def _is_tensor(x):
    return isinstance(x, Tensor)


class _OutputIdentity(Function):
    @staticmethod
    def forward(ctx, hook_state, *tensors):
        ctx.hook_state = hook_state
        ctx.set_materialize_grads(False)
        return tensors

    @staticmethod
    def backward(ctx, *grad_outputs):
        return (None,) + ctx.hook_state._on_grad_output(grad_outputs)


class _InputIdentity(Function):
    @staticmethod
    def forward(ctx, hook_state, *tensors):
        ctx.hook_state = hook_state
        ctx.set_materialize_grads(False)
        return tensors

    @staticmethod
    def backward(ctx, *grad_inputs):
        return (None,) + ctx.hook_state._on_grad_input(grad_inputs)


class BackwardHook:
    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_tensors_index = None
        self.inputs_need_grad = False

    def _pack(self, fn_cls, args):
        # Route the tensors of `args` through fn_cls; rebuild args around the results.
        index = [i for i, a in enumerate(args) if _is_tensor(a)]
        if not index or not torchlike.is_grad_enabled() or not any(args[i].requires_grad for i in index):
            return args, index, False
        new = fn_cls.apply(self, *(args[i] for i in index))
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index, True

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        new_args, self.input_tensors_index, self.inputs_need_grad = self._pack(_InputIdentity, args)
        return new_args

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        self.n_outputs = len(args)
        new, self.output_tensors_index, packed = self._pack(_OutputIdentity, args)
        if not packed:
            return result
        return new if is_tuple else new[0]

    def _full_tuple(self, grads, index, n):
        out = [None] * n
        for i, g in zip(index, grads):
            out[i] = g
        return tuple(out)

    def _on_grad_output(self, grad_outputs):
        full = self._full_tuple(grad_outputs, self.output_tensors_index, self.n_outputs)
        for hook in self.user_pre_hooks:
            res = hook(self.module, full)
            if res is None:
                continue
            if not isinstance(res, tuple) or len(res) != len(full):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(res) if isinstance(res, tuple) else 1}, but expected {len(full)}")
            full = res
        self.grad_outputs = full
        if not self.inputs_need_grad and self.user_hooks:
            # No input needs a gradient: the hooks run now with grad_input all None.
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
        return tuple(full[i] for i in self.output_tensors_index)

    def _on_grad_input(self, grad_inputs):
        full = self._full_tuple(grad_inputs, self.input_tensors_index, self.n_inputs)
        for hook in self.user_hooks:
            res = hook(self.module, full, self.grad_outputs)
            if res is None:
                continue
            if not isinstance(res, tuple):
                res = (res,)
            if len(res) != len(full):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(res)}, but expected {len(full)}")
            full = res
        return tuple(full[i] for i in self.input_tensors_index)
