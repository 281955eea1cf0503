"""torchlike.optim: every optimizer and option over 20 steps against a NumPy
reference of its update rule (always) and PyTorch 2.13 (when installed);
foreach and per-tensor paths agree bit for bit; state dicts round-trip with
PyTorch; argument errors carry PyTorch's messages. The Optimizer base class
(groups, hooks, state dicts, pickling) is in tests/test_optim_base.py."""
import math

import numpy as np
import pytest

import torchlike as tl
from optim_reference import REFERENCES

try:
    import torch
except ImportError:  # PyTorch parity tests are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")

SHAPES = [(3, 4), (5,), (2, 3)]
MATRIX_SHAPES = [(6, 4), (3, 5)]  # Muon takes only 2-D parameters

CONFIGS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "maximize": True, "decoupled_weight_decay": True, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.9), "eps": 1e-6}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.2, "maximize": True}),
    ("RMSprop", {}),
    ("RMSprop", {"centered": True, "momentum": 0.5}),
    ("RMSprop", {"momentum": 0.9, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"alpha": 0.9, "eps": 1e-6, "centered": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "initial_accumulator_value": 0.1, "weight_decay": 0.1}),
    ("Adagrad", {"maximize": True, "eps": 1e-8}),
    ("Adadelta", {}),
    ("Adadelta", {"rho": 0.5, "weight_decay": 0.1, "lr": 0.5}),
    ("Adadelta", {"maximize": True}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True, "betas": (0.8, 0.99)}),
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05, "decoupled_weight_decay": True, "weight_decay": 0.1, "maximize": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "decoupled_weight_decay": True, "weight_decay": 0.1, "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 5, "lambd": 1e-3, "alpha": 0.5, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "maximize": True}),
    ("Rprop", {"lr": 0.05}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
    ("Adafactor", {"eps": (1e-2, 0.5), "d": 1.5, "beta2_decay": -0.5}),
    ("Muon", {"lr": 0.02}),
    ("Muon", {"lr": 0.02, "nesterov": False, "adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.0}),
    ("Muon", {"lr": 0.02, "adjust_lr_fn": "original", "momentum": 0.9, "ns_steps": 3}),
]
IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]


def _initial(name, dtype=np.float32):
    rs = np.random.RandomState(0)
    return [rs.randn(*s).astype(dtype) for s in (MATRIX_SHAPES if name == "Muon" else SHAPES)]


def _grad(step, index, value):
    """A deterministic gradient: a step-dependent wave plus a pull towards 0."""
    wave = np.sin(0.37 * step + index + np.arange(value.size).reshape(value.shape))
    return (wave + 0.5 * value).astype(value.dtype)


def _run(mod, name, kwargs, steps=20, dtype=np.float32, **extra):
    params = [mod.tensor(a, requires_grad=True) for a in _initial(name, dtype)]
    opt = getattr(mod.optim, name)(params, **kwargs, **extra)
    for k in range(steps):
        for i, p in enumerate(params):
            p.grad = mod.tensor(_grad(k, i, p.detach().numpy()))
        opt.step()
    return [p.detach().numpy() for p in params], opt


def _reference(name, kwargs, steps=20):
    params = [a.astype(np.float64) for a in _initial(name, np.float64)]
    ref = REFERENCES[name](len(params), **kwargs)
    for k in range(steps):
        ref.step(params, [_grad(k, i, p) for i, p in enumerate(params)])
    return params


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_matches_numpy_reference(name, kwargs):
    # float64 tensors, so the comparison is with the formula, not with rounding
    # (Muon orthogonalizes in bfloat16 by design, hence its looser bound).
    got, _ = _run(tl, name, kwargs, dtype=np.float64)
    want = _reference(name, kwargs)
    # ASGD's eta/mu and NAdam's mu_product are float32 scalars in the state
    # (as in PyTorch), whatever the parameters' dtype.
    tol = {"Muon": dict(rtol=2e-2, atol=2e-2), "ASGD": dict(rtol=1e-6, atol=1e-7),
           "NAdam": dict(rtol=1e-6, atol=1e-7)}.get(name, dict(rtol=1e-9, atol=1e-10))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, **tol)


@needs_torch
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_matches_pytorch(name, kwargs):
    got, _ = _run(tl, name, kwargs)
    want, _ = _run(torch, name, kwargs)
    # Muon's bfloat16 matmuls may round one element differently (one bf16 ulp).
    atol = 1e-4 if name == "Muon" else 5e-6
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_foreach_and_per_tensor_paths_agree_bitwise(name, kwargs):
    if name == "Muon":
        pytest.skip("Muon has no foreach option (per-matrix Newton-Schulz)")
    multi, _ = _run(tl, name, kwargs, foreach=True)
    single, _ = _run(tl, name, kwargs, foreach=False)
    for a, b in zip(multi, single):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "NAdam"])
def test_other_float_dtypes(name, dtype):
    """State follows the parameter's dtype; half types compute in float."""
    p = tl.ones(4, dtype=getattr(tl, dtype), requires_grad=True)
    opt = getattr(tl.optim, name)([p], lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
    for _ in range(3):
        p.grad = tl.full((4,), 0.5, dtype=p.dtype)
        opt.step()
    assert p.dtype == getattr(tl, dtype) and bool((p < 1).all())
    for key, value in opt.state[p].items():
        if key not in ("step", "mu_product"):
            assert value.dtype == p.dtype, key


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax",
                                  "NAdam", "RAdam", "ASGD", "Rprop", "Adafactor", "AdamW"])
def test_tensor_lr(name):
    plain, _ = _run(tl, name, {"lr": 0.05}, steps=5)
    tensor, opt = _run(tl, name, {"lr": tl.tensor(0.05)}, steps=5)
    assert isinstance(opt.param_groups[0]["lr"], tl.Tensor)
    for a, b in zip(plain, tensor):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@needs_torch
def test_fused_adam_accepted_on_cpu_like_pytorch():
    got, _ = _run(tl, "Adam", {"lr": 0.05}, fused=True)
    want, _ = _run(torch, "Adam", {"lr": 0.05}, fused=True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=5e-6)


# ---------------------------------------------------------------- state dicts
def _to(mod, value):
    """Convert tensors inside a state dict to `mod`'s tensors (by value)."""
    if isinstance(value, dict):
        return {k: _to(mod, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to(mod, v) for v in value)
    if hasattr(value, "numpy") and hasattr(value, "dtype") and not isinstance(value, np.ndarray):
        return mod.tensor(value.detach().numpy())
    return value


ROUND_TRIP = [c for c in CONFIGS if c[0] != "Muon"][::3] + [("Muon", {"lr": 0.02})]


def _continue(mod, name, kwargs, params_np, state_dict, start, steps):
    params = [mod.tensor(a, requires_grad=True) for a in params_np]
    opt = getattr(mod.optim, name)(params, **kwargs)
    opt.load_state_dict(state_dict)
    for k in range(start, start + steps):
        for i, p in enumerate(params):
            p.grad = mod.tensor(_grad(k, i, p.detach().numpy()))
        opt.step()
    return [p.detach().numpy() for p in params]


@needs_torch
@pytest.mark.parametrize("name,kwargs", ROUND_TRIP, ids=[n + str(i) for i, (n, _) in enumerate(ROUND_TRIP)])
def test_state_dict_round_trips_with_pytorch(name, kwargs):
    """Five steps in one framework, state_dict into the other, five more
    steps there: the same as ten steps in PyTorch alone."""
    reference, _ = _run(torch, name, kwargs, steps=10)
    for first, second in ((tl, torch), (torch, tl)):
        params, opt = _run(first, name, kwargs, steps=5)
        sd = opt.state_dict()
        assert sorted(sd) == ["param_groups", "state"]
        got = _continue(second, name, kwargs, params, _to(second, sd), 5, 5)
        for g, w in zip(got, reference):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=5e-6)


@needs_torch
@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "NAdam", "ASGD", "Rprop", "Adafactor", "Adagrad"])
def test_state_dict_layout_matches_pytorch(name):
    kwargs = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    _, mine = _run(tl, name, kwargs, steps=2)
    _, theirs = _run(torch, name, kwargs, steps=2)
    a, b = mine.state_dict(), theirs.state_dict()
    assert a["param_groups"] == b["param_groups"]
    assert list(a["param_groups"][0]) == list(b["param_groups"][0])
    assert a["state"].keys() == b["state"].keys()
    for index in a["state"]:
        assert list(a["state"][index]) == list(b["state"][index])
        for key, value in a["state"][index].items():
            other = b["state"][index][key]
            assert tuple(value.shape) == tuple(other.shape) and str(value.dtype)[-7:] == str(other.dtype)[-7:]


# ----------------------------------------------------------------- LBFGS
def _quadratic(mod, opt_cls_kwargs, calls=3):
    """f(x) = 1/2 x^T A x - b^T x with A SPD; minimizer A^-1 b."""
    a = np.array([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]], dtype=np.float32)
    b = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    x = mod.tensor(np.zeros(3, dtype=np.float32), requires_grad=True)
    A, B = mod.tensor(a), mod.tensor(b)
    opt = mod.optim.LBFGS([x], **opt_cls_kwargs)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (A @ x)) - B @ x
        loss.backward()
        return loss
    losses = [float(opt.step(closure).detach()) for _ in range(calls)]
    return x.detach().numpy(), losses, opt, np.linalg.solve(a.astype(np.float64), b.astype(np.float64))


LBFGS_CONFIGS = [{}, {"line_search_fn": "strong_wolfe"}, {"lr": 0.5, "history_size": 2, "max_iter": 4},
                 {"line_search_fn": "strong_wolfe", "history_size": 1, "tolerance_grad": 1e-5}]


@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS)
def test_lbfgs_reaches_the_quadratic_minimizer(kwargs):
    x, losses, opt, solution = _quadratic(tl, kwargs, calls=6)
    np.testing.assert_allclose(x, solution, rtol=1e-4, atol=1e-4)
    assert losses[-1] <= losses[0]
    state = opt.state[opt.param_groups[0]["params"][0]]
    assert state["n_iter"] > 0 and state["func_evals"] >= state["n_iter"]


@needs_torch
@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS)
def test_lbfgs_matches_pytorch(kwargs):
    x, losses, opt, _ = _quadratic(tl, kwargs, calls=2)
    tx, tlosses, topt, _ = _quadratic(torch, kwargs, calls=2)
    np.testing.assert_allclose(x, tx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-5, atol=1e-6)
    mine = opt.state[opt.param_groups[0]["params"][0]]
    theirs = topt.state[topt.param_groups[0]["params"][0]]
    assert (mine["func_evals"], mine["n_iter"]) == (theirs["func_evals"], theirs["n_iter"])
    assert set(mine) == set(theirs)


def test_lbfgs_needs_a_closure_and_one_group():
    x = tl.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
        tl.optim.LBFGS([{"params": [x]}, {"params": [tl.zeros(1, requires_grad=True)]}])
    opt = tl.optim.LBFGS([x], line_search_fn="bogus")

    def closure():
        opt.zero_grad()
        loss = ((x - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


# ------------------------------------------------------------ SparseAdam, Muon
def test_sparse_adam_rejects_dense_gradients():
    p = tl.ones(3, requires_grad=True)
    opt = tl.optim.SparseAdam([p])
    p.grad = tl.ones(3)
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam instead"):
        opt.step()
    assert repr(opt).splitlines()[2:] == ["    betas: (0.9, 0.999)", "    eps: 1e-08", "    lr: 0.001",
                                         "    maximize: False", ")"]


def test_muon_rejects_non_matrices():
    with pytest.raises(ValueError, match=r"Muon only supports 2D parameters whereas we found a parameter with size: "):
        tl.optim.Muon([tl.ones(3, requires_grad=True)])


# ------------------------------------------------------------------ errors
P = None


def _param():
    return tl.ones(2, 2, requires_grad=True)


ERRORS = [
    ("SGD", {"lr": -1}, ValueError, "Invalid learning rate: -1"),
    ("SGD", {"momentum": -1}, ValueError, "Invalid momentum value: -1"),
    ("SGD", {"weight_decay": -1}, ValueError, "Invalid weight_decay value: -1"),
    ("SGD", {"nesterov": True}, ValueError, "Nesterov momentum requires a momentum and zero dampening"),
    ("SGD", {"lr": tl.tensor([0.1, 0.2])}, ValueError, "Tensor lr must be 1-element"),
    ("SGD", {"fused": True, "foreach": True}, RuntimeError, "`fused` and `foreach` cannot be `True` together."),
    ("SGD", {"fused": True, "differentiable": True}, RuntimeError, "`fused` does not support `differentiable`"),
    ("Adam", {"eps": -1}, ValueError, "Invalid epsilon value: -1"),
    ("Adam", {"betas": (1.0, 0.9)}, ValueError, "Invalid beta parameter at index 0: 1.0"),
    ("Adam", {"betas": (0.9, -0.1)}, ValueError, "Invalid beta parameter at index 1: -0.1"),
    ("Adam", {"betas": (tl.tensor(0.9), 0.99)}, ValueError, "betas must be either both floats or both Tensors"),
    ("Adam", {"lr": tl.tensor(0.1), "foreach": True}, ValueError,
     "lr as a Tensor is not supported for capturable=False and foreach=True"),
    ("AdamW", {"weight_decay": -1}, ValueError, "Invalid weight_decay value: -1"),
    ("RMSprop", {"alpha": -1}, ValueError, "Invalid alpha value: -1"),
    ("RMSprop", {"momentum": -1}, ValueError, "Invalid momentum value: -1"),
    ("Adagrad", {"lr_decay": -1}, ValueError, "Invalid lr_decay value: -1"),
    ("Adagrad", {"initial_accumulator_value": -1}, ValueError, "Invalid initial_accumulator_value value: -1"),
    ("Adadelta", {"rho": 1.5}, ValueError, "Invalid rho value: 1.5"),
    ("Adamax", {"betas": (1.0, 0.9)}, ValueError, "Invalid beta parameter at index 0: 1.0"),
    ("NAdam", {"momentum_decay": -1}, ValueError, "Invalid momentum_decay value: -1"),
    ("RAdam", {"betas": (0.9, 1.0)}, ValueError, "Invalid beta parameter at index 1: 1.0"),
    ("ASGD", {"weight_decay": -1}, ValueError, "Invalid weight_decay value: -1"),
    ("Rprop", {"etas": (1.5, 1.2)}, ValueError, "Invalid eta values: 1.5, 1.2"),
    ("Rprop", {"etas": (0.5, 0.9)}, ValueError, "Invalid eta values: 0.5, 0.9"),
    ("Adafactor", {"lr": -1}, ValueError, "Learning rate should be >= 0 but is: -1"),
    ("Adafactor", {"beta2_decay": 0.1}, ValueError, "beta2_decay should be <= 0 but is: 0.1"),
    ("Adafactor", {"eps": (None, -1)}, ValueError, "epsilon2 should be >= 0 but is: -1"),
    ("Adafactor", {"eps": (-1, 1e-3)}, ValueError, "epsilon1 should be >= 0 but is: -1"),
    ("Adafactor", {"d": 0.5}, ValueError, "Clipping threshold d should be >= 1 but is: 0.5"),
    ("Adafactor", {"weight_decay": -1}, ValueError, "weight_decay should be >= 0 but is: -1"),
    ("LBFGS", {"lr": -1}, ValueError, "Invalid learning rate: -1"),
    ("SparseAdam", {"eps": -1}, ValueError, "Invalid epsilon value: -1"),
    ("Muon", {"lr": -1}, ValueError, "Learning rate should be >= 0 but is: -1"),
    ("Muon", {"weight_decay": -1}, ValueError, "weight decay should be >= 0 but is: -1"),
    ("Muon", {"momentum": -1}, ValueError, "momentum should be >= 0 but is: -1"),
    ("Muon", {"adjust_lr_fn": "foo"}, ValueError, "Adjust learning rate function foo is not supported"),
]


@pytest.mark.parametrize("name,kwargs,exc,message", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_argument_errors_match_pytorch(name, kwargs, exc, message):
    with pytest.raises(exc) as info:
        getattr(tl.optim, name)([_param()], **kwargs)
    assert str(info.value) == message
    if torch is not None:
        converted = {k: (torch.tensor(v.tolist()) if isinstance(v, tl.Tensor) else
                         tuple(torch.tensor(e.item()) if isinstance(e, tl.Tensor) else e for e in v)
                         if isinstance(v, tuple) else v) for k, v in kwargs.items()}
        with pytest.raises(exc) as theirs:
            getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2, 2))], **converted)
        assert str(theirs.value) == message


def test_capturable_on_cpu_fails_at_step_like_pytorch():
    p = _param()
    p.grad = tl.ones(2, 2)
    opt = tl.optim.Adam([p], capturable=True)
    with pytest.raises(AssertionError, match="If capturable=True, params and state_steps must be on supported devices"):
        opt.step()


def test_foreach_with_differentiable_fails_at_step_like_pytorch():
    p = _param()
    p.grad = tl.ones(2, 2)
    opt = tl.optim.Adamax([p], foreach=True, differentiable=True)
    with pytest.raises(AssertionError, match="_foreach ops don't support autograd"):
        opt.step()


def test_defaults_match_pytorch_signatures():
    inspect = pytest.importorskip("inspect")
    if torch is None:
        pytest.skip("PyTorch not installed")
    for name in tl.optim.__all__:
        mine, theirs = getattr(tl.optim, name), getattr(torch.optim, name)
        if not callable(theirs) or name == "swap_in_optimizer_params_and_state":
            continue
        a = inspect.signature(mine.__init__).parameters
        b = inspect.signature(theirs.__init__).parameters
        assert list(a) == list(b), name
        for key in a:
            assert a[key].kind == b[key].kind, (name, key)
            if a[key].default is not inspect.Parameter.empty:
                assert a[key].default == b[key].default, (name, key)
