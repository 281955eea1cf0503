"""Higher-level differentiation built on autograd.grad: jacobian, hessian,
vjp, jvp, vhp, hvp (reverse mode: one backward per output element)."""
import torchlike
from torchlike.autograd.grad_mode import enable_grad

__all__ = ["jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"]


def _as_tuple(x, arg_name, fn_name):
    if isinstance(x, tuple):
        is_tuple = True
    elif isinstance(x, list):
        x, is_tuple = tuple(x), True
    else:
        x, is_tuple = (x,), False
    for i, el in enumerate(x):
        if not isinstance(el, torchlike.Tensor):
            if is_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                                f"the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"given {arg_name} has type {type(el)}.")
    return is_tuple, x


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph):
    # Fresh leaves, so the user's tensors' .grad and history are untouched;
    # with create_graph the inputs keep their history so the result can be
    # differentiated again with respect to them.
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp)
        else:
            res.append(inp.detach().requires_grad_(True))
    return tuple(res)


def _grad_postprocess(x, create_graph):
    if isinstance(x, torchlike.Tensor):
        return x if create_graph else x.detach()
    return tuple(_grad_postprocess(el, create_graph) for el in x)


def _check_requires_grad(tensors, input_type, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not t.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(f"The hessian of the user-provided function with respect to input {i} is "
                                   "independent of the input. This is not allowed in strict mode.")
            if input_type == "jacobian":
                raise RuntimeError(f"While computing the hessian, found that the jacobian of the user-provided "
                                   f"function with respect to input {i} is independent of the input. This is not "
                                   "allowed in strict mode.")
            raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                               "must be computed in a differentiable manner from the input when running in strict "
                               "mode.")


def _autograd_grad(outputs, inputs, grad_outputs, create_graph, retain_graph=True):
    # grad over the outputs that require grad; None for inputs not reached.
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return torchlike.autograd.grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs),
                                   retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)


def _stack(rows):
    """Stack equally shaped tensors along a new dim 0, differentiably when
    they carry history (sum of one-hot outer products: built from mul/add
    only, so it works wherever their backward does)."""
    n = len(rows)
    shape = tuple(rows[0].shape)
    if not any(r.requires_grad for r in rows):
        out = torchlike.zeros((n,) + shape, dtype=rows[0].dtype, device=rows[0].device)
        for k, r in enumerate(rows):
            out[k] = r
        return out
    out = None
    for k, r in enumerate(rows):
        e = torchlike.zeros((n,) + (1,) * len(shape), dtype=r.dtype, device=r.device)
        e[k] = 1
        term = e * r.reshape((1,) + shape)
        out = term if out is None else out + term
    return out


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """Jacobian of func at inputs: for output i and input j a tensor of shape
    outputs[i].shape + inputs[j].shape (nested tuples follow the tuple-ness
    of outputs and inputs, as in PyTorch)."""
    if strategy != "reverse-mode":
        raise NotImplementedError("jacobian: only strategy='reverse-mode' is supported")
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)

        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            n = out.numel()
            flat_basis = torchlike.zeros(n, dtype=out.dtype, device=out.device)
            for k in range(n):
                # One backward per output element, seeded with a one-hot vector
                # (no indexing of the output, so no extra graph node).
                e = flat_basis.clone()
                e[k] = 1
                grads = _autograd_grad((out,), inputs, (e.reshape(out.shape),), create_graph)
                for j, (g, inp) in enumerate(zip(grads, inputs)):
                    if g is None:
                        if strict and create_graph is False and not vectorize:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                               "This is not allowed in strict mode.")
                        g = torchlike.zeros_like(inp)
                    rows[j].append(g)
            per_input = []
            for j, inp in enumerate(inputs):
                if n == 0:
                    block = torchlike.zeros(tuple(out.shape) + tuple(inp.shape), dtype=inp.dtype, device=inp.device)
                else:
                    block = _stack(rows[j]).reshape(tuple(out.shape) + tuple(inp.shape))
                per_input.append(block)
            jac.append(tuple(per_input))
        jac = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Hessian of a scalar function: for inputs i, j a tensor of shape
    inputs[i].shape + inputs[j].shape."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        if is_out_tuple or not isinstance(out, torchlike.Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.reshape(())

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is None:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            v = (torchlike.ones_like(outputs[0]),)
        else:
            _, v = _as_tuple(v, "v", "vjp")
        grads = _autograd_grad(outputs, inputs, v, create_graph)
        grads = tuple(torchlike.zeros_like(i) if g is None else g for g, i in zip(grads, inputs))
    outputs = _grad_postprocess(outputs, create_graph)
    grads = _grad_postprocess(grads, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(grads, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v) by the double-backward trick."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided function is a "
                                   "single Tensor with a single element.")
            v = (torchlike.ones_like(inputs[0]),)
        else:
            _, v = _as_tuple(v, "v", "jvp")
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # u is a dummy cotangent; d(u^T J)/du . v = J v.
        us = tuple(torchlike.zeros_like(o).requires_grad_(True) for o in outputs)
        g = _autograd_grad(outputs, inputs, us, create_graph=True)
        g = [gi if gi is not None else torchlike.zeros_like(i) for gi, i in zip(g, inputs)]
        res = _vector_grad(g, v, us, outputs, create_graph)
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_outputs_tuple)


def _vector_grad(ys, vs, xs, like, create_graph):
    """sum_i vs[i] . d ys[i] / d xs, over the ys that depend on xs at all;
    zeros (shaped like `like`) where no gradient flows."""
    pairs = [(y, v) for y, v in zip(ys, vs) if y is not None and y.requires_grad]
    if pairs:
        res = torchlike.autograd.grad(tuple(p[0] for p in pairs), xs, tuple(p[1] for p in pairs),
                                      create_graph=create_graph, allow_unused=True)
    else:
        res = (None,) * len(xs)
    return tuple(torchlike.zeros_like(t) if r is None else r for r, t in zip(res, like))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H)."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph)
        _, v = _as_tuple(v, "v", "vhp") if v is not None else (None, None)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vhp")
        if is_outputs_tuple or outputs[0].numel() != 1:
            raise RuntimeError("The function given to vhp should return a single Tensor with a single element.")
        jac = _autograd_grad(outputs, inputs, (torchlike.ones_like(outputs[0]),), create_graph=True)
        if v is None:
            v = tuple(torchlike.ones_like(i) for i in inputs)
        res = _vector_grad(jac, v, inputs, inputs, create_graph)
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v); H is symmetric, so this equals vhp."""
    return vhp(func, inputs, v, create_graph, strict)
