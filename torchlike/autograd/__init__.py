"""torchlike.autograd: reverse-mode differentiation by a C++ engine over the
graph that generated Autograd kernels record (csrc/autograd/)."""
from torchlike import _C
from torchlike.autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from torchlike.autograd.function import Function, FunctionCtx, once_differentiable
from torchlike.autograd.anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from torchlike.autograd import functional  # noqa: F401

_VF = _C._VariableFunctions

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "Function", "FunctionCtx", "once_differentiable", "detect_anomaly", "set_detect_anomaly",
           "is_anomaly_enabled", "functional", "gradcheck", "gradgradcheck"]


def _as_tuple(x):
    if x is None:
        return ()
    if isinstance(x, (list, tuple)):
        return tuple(x)
    return (x,)


def _make_grads(outputs, grads):
    import torchlike
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            with no_grad():
                g = torchlike.ones_like(out)
        elif not isinstance(g, torchlike.Tensor):
            g = torchlike.tensor(g, dtype=out.dtype)
        result.append(g)
    return tuple(result)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaves) into the leaves' .grad."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    inputs = _as_tuple(inputs)
    _VF._run_backward(tensors, _make_grads(tensors, grad_tensors), bool(retain_graph), bool(create_graph),
                      inputs, False, bool(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None,
         is_grads_batched=False, materialize_grads=False):
    """Gradients of outputs with respect to inputs, without touching .grad."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("grad requires at least one input")
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    res = _VF._run_backward(outputs, _make_grads(outputs, grad_outputs), bool(retain_graph), bool(create_graph),
                            inputs, bool(allow_unused), False)
    if materialize_grads:
        import torchlike
        res = tuple(torchlike.zeros_like(i) if r is None else r for i, r in zip(inputs, res))
    return res

# Imported eagerly: importing the submodule later would otherwise rebind these
# package attributes to the module object.
from torchlike.autograd.gradcheck import gradcheck, gradgradcheck  # noqa: E402,F401
from torchlike.autograd._variable import Variable, variable  # noqa: E402,F401
from torchlike.autograd._nested_io import NestedIOFunction  # noqa: E402,F401
from torchlike.autograd._multithreading import set_multithreading_enabled  # noqa: E402,F401
from torchlike.autograd._grad_layout import enforce_grad_layout_policy  # noqa: E402,F401
from torchlike.autograd import profiler, profiler_util  # noqa: E402,F401
