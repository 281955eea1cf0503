"""Gradient checks: analytical gradients (the autograd engine) against central
finite differences, as torch.autograd.gradcheck / gradgradcheck do.

The Jacobian of every differentiable output with respect to every input that
requires grad is built twice: column by column by perturbing one input entry
at a time by +-eps (numerical), and row by row by back-propagating one-hot
grad_outputs through torchlike.autograd.grad (analytical). Inputs should be
float64: with eps=1e-6 single precision cannot resolve the difference.
"""
from __future__ import annotations

import warnings


class _LazyNumPy:
    """NumPy, imported on first use: `import torchlike` must not pay for it
    (it is most of NumPy-free import time), and only gradcheck needs it."""

    def __getattr__(self, name):
        import numpy
        return getattr(numpy, name)


np = _LazyNumPy()

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "get_numerical_jacobian", "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when a check fails (PyTorch's type)."""


def _tl():
    import torchlike
    return torchlike


def _is_tensor(x):
    return isinstance(x, _tl().Tensor)


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float(t):
    tl = _tl()
    return t.dtype in (tl.float16, tl.bfloat16, tl.float32, tl.float64)


def _diff_inputs(inputs):
    """(position in inputs, tensor) for every tensor input that requires grad."""
    return [(i, t) for i, t in enumerate(inputs) if _is_tensor(t) and t.requires_grad]


def _checked_diff_inputs(name, inputs):
    """(inputs as a tuple, their differentiable tensors); raises PyTorch's error when there are none."""
    tupled = _as_tuple(inputs)
    diff = _diff_inputs(tupled)
    if not diff:
        raise ValueError(f"{name} expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    return tupled, diff


def _outputs(func, inputs):
    return _as_tuple(func(*inputs))


def _to_numpy(t):
    # A copy: the output may be a view of an input that is perturbed next.
    return np.array(t.detach().to(_tl().float64).numpy(), dtype=np.float64, copy=True).reshape(-1)


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _fmt(a):
    """A Jacobian as a float64 tensor, so messages read like PyTorch's."""
    return str(_tl().tensor(np.ascontiguousarray(a), dtype=_tl().float64))


def get_numerical_jacobian(func, inputs, eps=1e-6):
    """J[o][i] with shape (inputs[i].numel(), outputs[o].numel()), by central
    differences. Entries are perturbed in place (under no_grad) so a func that
    closes over its inputs sees the change too; every entry is restored to its
    exact original value afterwards."""
    tl = _tl()
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    outs = _outputs(func, inputs)
    jac = [[np.zeros((t.numel(), o.numel() if _is_tensor(o) else 0)) for _, t in diff] for o in outs]
    for k, (_, x) in enumerate(diff):
        for j, idx in enumerate(np.ndindex(*tuple(x.shape))):
            with tl.no_grad():
                orig = x[idx].item()
                x[idx] = orig - eps
            # func runs with grad mode as the caller has it (gradgradcheck's
            # func calls autograd.grad itself).
            lo = [_to_numpy(o) if _is_tensor(o) else None for o in _outputs(func, inputs)]
            with tl.no_grad():
                x[idx] = orig + eps
            hi = [_to_numpy(o) if _is_tensor(o) else None for o in _outputs(func, inputs)]
            with tl.no_grad():
                x[idx] = orig
            for o in range(len(outs)):
                if lo[o] is not None and _is_float(outs[o]):
                    jac[o][k][j] = (hi[o] - lo[o]) / (2 * eps)
    return jac


def get_analytical_jacobian(func, inputs, check_grad_dtypes=False, outputs=None):
    """J[o][i] as above, from one backward pass per output entry. Also returns
    a list of problems found on the way (wrong gradient shape or dtype)."""
    tl = _tl()
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    diff_tensors = [t for _, t in diff]
    outs = _outputs(func, inputs) if outputs is None else outputs
    problems = []
    jac = []
    for o, out in enumerate(outs):
        if not _is_tensor(out):
            jac.append([np.zeros((t.numel(), 0)) for t in diff_tensors])
            continue
        per_input = [np.zeros((t.numel(), out.numel())) for t in diff_tensors]
        jac.append(per_input)
        if not (out.requires_grad and _is_float(out)):
            continue  # not differentiable: its Jacobian is zero
        flat_seed = np.zeros(out.numel())
        for r in range(out.numel()):
            flat_seed[:] = 0
            flat_seed[r] = 1
            seed = tl.tensor(flat_seed.reshape(tuple(out.shape)), dtype=out.dtype)
            grads = tl.autograd.grad(out, diff_tensors, grad_outputs=seed, retain_graph=True, allow_unused=True)
            for k, (g, x) in enumerate(zip(grads, diff_tensors)):
                if g is None:
                    continue
                if tuple(g.shape) != tuple(x.shape):
                    problems.append(f"Analytical gradient has incorrect size: got {tuple(g.shape)} for output {o} "
                                    f"with respect to input {diff[k][0]} of shape {tuple(x.shape)}")
                    continue
                if check_grad_dtypes and g.dtype != x.dtype:
                    problems.append(f"Gradient has dtype mismatch: got {g.dtype} for input {diff[k][0]} "
                                    f"of dtype {x.dtype}")
                per_input[k][:, r] = _to_numpy(g)
    return jac, problems


def gradcheck(func, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_grad_dtypes=False):
    """Check the gradients of func at inputs against finite differences.

    func takes the inputs positionally and returns a tensor or a tuple of
    tensors. Every tensor input with requires_grad=True is checked. Returns
    True, or raises GradcheckError (returns False when raise_exception=False).
    """
    tl = _tl()
    tupled, diff = _checked_diff_inputs("gradcheck", inputs)
    for i, t in diff:
        if t.dtype != tl.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point.", stacklevel=2)

    outs = _outputs(func, tupled)
    if not any(_is_tensor(o) and o.requires_grad for o in outs):
        # Nothing to back-propagate: the outputs must then not depend on the inputs.
        numerical = get_numerical_jacobian(func, tupled, eps)
        for o, per_input in enumerate(numerical):
            for k, n in enumerate(per_input):
                if not np.allclose(n, 0, rtol=rtol, atol=atol):
                    return _fail(f"Numerical gradient for function expected to be zero for output {o} with "
                                 f"respect to input {diff[k][0]}", raise_exception)
        return True

    analytical, problems = get_analytical_jacobian(func, tupled, check_grad_dtypes, outputs=outs)
    if problems:
        return _fail(problems[0], raise_exception)
    # Reentrancy: a second backward must give the same result (within nondet_tol).
    again, _ = get_analytical_jacobian(func, tupled, check_grad_dtypes, outputs=outs)
    for o in range(len(analytical)):
        for k in range(len(diff)):
            if not np.allclose(analytical[o][k], again[o][k], rtol=0, atol=nondet_tol):
                return _fail(f"Backward is not reentrant, i.e., running backward with same input and grad_output "
                             f"multiple times gives different values, although analytical gradient matches "
                             f"numerical gradient. The tolerance for nondeterminism was {nondet_tol}.",
                             raise_exception)

    numerical = get_numerical_jacobian(func, tupled, eps)
    for o in range(len(outs)):
        for k, (i, _) in enumerate(diff):
            a, n = analytical[o][k], numerical[o][k]
            if a.shape != n.shape:
                return _fail(f"Jacobian shape mismatch for output {o} with respect to input {i}: "
                             f"numerical {n.shape}, analytical {a.shape}", raise_exception)
            if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
                return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{_fmt(n)}\nanalytical:{_fmt(a)}\n", raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_grad_dtypes=False):
    """Check second derivatives: gradcheck of (inputs, grad_outputs) ->
    autograd.grad(func(inputs), inputs, grad_outputs, create_graph=True).

    grad_outputs defaults to fixed pseudo-random float64 tensors (requiring
    grad) shaped like func's differentiable outputs.
    """
    tl = _tl()
    tupled, diff = _checked_diff_inputs("gradgradcheck", inputs)
    outs = _outputs(func, tupled)
    diff_out_idx = [o for o, out in enumerate(outs) if _is_tensor(out) and out.requires_grad and _is_float(out)]
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in diff_out_idx:
            shape = tuple(outs[o].shape)
            if gen_non_contig_grad_outputs and len(shape) >= 1:
                # Transposed storage: same values layout-wise, non-contiguous strides.
                base = tl.tensor(rng.uniform(-1, 1, size=shape[::-1]), dtype=outs[o].dtype)
                g = base.permute(*reversed(range(len(shape)))).detach()
                g.requires_grad_(True)
            else:
                g = tl.tensor(rng.uniform(-1, 1, size=shape), dtype=outs[o].dtype, requires_grad=True)
            grad_outputs.append(g)
    grad_outputs = list(_as_tuple(grad_outputs))
    if len(grad_outputs) != len(diff_out_idx):
        raise ValueError(f"gradgradcheck: got {len(grad_outputs)} grad_outputs for {len(diff_out_idx)} "
                         "differentiable outputs")
    n_in = len(tupled)

    def first_derivative(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _outputs(func, ins)
        diff_ins = [t for t in ins if _is_tensor(t) and t.requires_grad]
        grads = tl.autograd.grad([outs[o] for o in diff_out_idx], diff_ins, grad_outputs=list(gos),
                                 create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, tupled + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_grad_dtypes=check_grad_dtypes)
