"""The Optimizer base class: parameter groups and their errors, zero_grad,
step/state-dict hooks, repr, pickling, and PyTorch's state-dict format."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import torchlike as tl
from torchlike.optim import optimizer as optim_module

try:
    import torch
except ImportError:
    torch = None


def _p(*shape):
    return tl.ones(*shape, requires_grad=True)


def test_groups_get_defaults_and_keep_their_own_values():
    a, b = _p(2), _p(3)
    opt = tl.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    g0, g1 = opt.param_groups
    assert g0["lr"] == 0.1 and g1["lr"] == 0.5 and g1["params"] == [b]
    assert g0["momentum"] == g1["momentum"] == 0.9
    assert list(g0)[0] == "params"
    assert opt.defaults["lr"] == 0.1
    c = _p(4)
    group = {"params": [c], "momentum": 0.0}
    opt.add_param_group(group)
    assert opt.param_groups[-1] is group and group["lr"] == 0.1 and group["momentum"] == 0.0


@pytest.mark.parametrize("make,exc,message", [
    (lambda: tl.optim.SGD(_p(2)), TypeError,
     "params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor"),
    (lambda: tl.optim.SGD([]), ValueError, "optimizer got an empty parameter list"),
    (lambda: tl.optim.SGD([1]), TypeError, "optimizer can only optimize Tensors, but one of the params is int"),
    (lambda: tl.optim.SGD([{"params": {_p(2)}}]), TypeError,
     "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets "
     "will change between runs. Please use a list instead."),
    (lambda: tl.optim.SGD([_p(2) * 2]), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda: tl.optim.Optimizer([_p(2)], {"lr": optim_module.required}), ValueError,
     "parameter group didn't specify a value of required optimization parameter lr"),
    (lambda: tl.optim.SGD([("a", _p(2)), _p(3)]), ValueError,
     "all optimizer params should be with/without names. Some param names are missing"),
])
def test_construction_errors(make, exc, message):
    with pytest.raises(exc) as info:
        make()
    assert str(info.value) == message


def test_add_param_group_errors():
    a = _p(2)
    opt = tl.optim.SGD([a], lr=0.1)
    with pytest.raises(TypeError, match=r"param_group must be a dict, but got <class 'list'>"):
        opt.add_param_group([a])
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="cannot add param group with names to the optimizer"):
        opt.add_param_group({"params": [("b", _p(3))]})
    named = tl.optim.SGD([("a", _p(2))], lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group without names to the optimizer"):
        named.add_param_group({"params": [_p(3)]})


def test_duplicate_parameters_warn():
    a = _p(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tl.optim.SGD([a, a], lr=0.1)
    assert any("optimizer contains a parameter group with duplicate parameters" in str(w.message) for w in caught)


def test_named_parameters_go_into_groups_and_state_dict():
    a, b = _p(2), _p(3)
    opt = tl.optim.Adam([("w", a), ("b", b)])
    assert list(opt.param_groups[0])[:2] == ["params", "param_names"]
    sd = opt.state_dict()
    assert sd["param_groups"][0]["param_names"] == ["w", "b"] and sd["param_groups"][0]["params"] == [0, 1]
    assert "param_names: ['w', 'b']" in repr(opt)


def test_zero_grad():
    a, b = _p(2), _p(3)
    opt = tl.optim.SGD([a, b], lr=0.1)
    a.grad = tl.ones(2)
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    a.grad = tl.ones(2)
    grad = a.grad
    opt.zero_grad(set_to_none=False)
    assert a.grad is grad and tl.equal(grad, tl.zeros(2)) and not grad.requires_grad
    # a gradient that is itself part of a graph is detached first
    source = tl.ones(2, requires_grad=True)
    a.grad = source * 3
    opt.zero_grad(set_to_none=False)
    assert a.grad.grad_fn is None and tl.equal(a.grad, tl.zeros(2))


def test_repr_matches_pytorch_layout():
    opt = tl.optim.Adam([{"params": [_p(2)]}, {"params": [_p(2)], "lr": 1e-2}])
    text = repr(opt)
    assert text.startswith("Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n")
    assert "\n\nParameter Group 1\n" in text and text.endswith("    weight_decay: 0\n)")
    tensor_lr = tl.optim.SGD([_p(2)], lr=tl.tensor(0.1))
    assert "    lr: 0.10000000149011612\n" in repr(tensor_lr)
    if torch is not None:
        theirs = torch.optim.Adam([{"params": [torch.nn.Parameter(torch.ones(2))]},
                                   {"params": [torch.nn.Parameter(torch.ones(2))], "lr": 1e-2}])
        assert text == repr(theirs)


def test_step_hooks_see_the_call_and_can_replace_it():
    a = _p(2)
    opt = tl.optim.SGD([a], lr=0.1)
    seen = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", args, dict(kwargs))))
    post = opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("post", args, dict(kwargs))))
    a.grad = tl.ones(2)
    opt.step()
    assert seen == [("pre", (opt,), {}), ("post", (opt,), {})]
    pre.remove()
    post.remove()
    seen.clear()
    opt.step()
    assert seen == []
    # a pre hook that returns new (args, kwargs) changes the call
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 7.0}))
    assert opt.step() == 7.0
    bad = tl.optim.SGD([_p(2)], lr=0.1)
    bad.register_step_pre_hook(lambda o, args, kwargs: 5)
    with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args, new_kwargs\), but got 5."):
        bad.step()


def test_global_step_hooks_run_for_every_optimizer():
    seen = []
    h1 = optim_module.register_optimizer_step_pre_hook(lambda o, a, k: seen.append(("pre", type(o).__name__)))
    h2 = optim_module.register_optimizer_step_post_hook(lambda o, a, k: seen.append(("post", type(o).__name__)))
    try:
        p = _p(2)
        p.grad = tl.ones(2)
        tl.optim.Adam([p]).step()
        tl.optim.SGD([p], lr=0.1).step()
    finally:
        h1.remove()
        h2.remove()
    assert seen == [("pre", "Adam"), ("post", "Adam"), ("pre", "SGD"), ("post", "SGD")]


def test_step_runs_without_grad_recording_and_subclass_super_step_hooks_once():
    class Logged(tl.optim.SGD):
        def step(self, closure=None):
            self.recorded = tl.is_grad_enabled()
            return super().step(closure)

    p = _p(2)
    p.grad = tl.ones(2)
    opt = Logged([p], lr=0.1)
    calls = []
    opt.register_step_pre_hook(lambda o, a, k: calls.append(1))
    opt.step()
    assert calls == [1] and opt.recorded is False
    assert tl.equal(p.detach(), tl.full((2,), 0.9))


def test_state_dict_hooks():
    a = _p(2)
    opt = tl.optim.SGD([a], lr=0.1, momentum=0.9)
    order = []
    opt.register_state_dict_pre_hook(lambda o: order.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: order.append("post"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_state_dict_pre_hook(lambda o: order.append("first"), prepend=True)
    sd = opt.state_dict()
    assert order == ["first", "pre", "post"] and sd["extra"] == 1
    order.clear()
    opt.register_load_state_dict_pre_hook(lambda o, d: order.append("lpre"))

    def rewrite(o, d):
        d = dict(d)
        d["param_groups"] = [dict(d["param_groups"][0], lr=0.25)]
        return d
    opt.register_load_state_dict_pre_hook(rewrite)
    opt.register_load_state_dict_post_hook(lambda o: order.append("lpost"))
    opt.load_state_dict(sd)
    assert order == ["lpre", "lpost"] and opt.param_groups[0]["lr"] == 0.25


def test_state_dict_format_and_load_errors():
    a, b = _p(2), _p(3)
    opt = tl.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    a.grad, b.grad = tl.ones(2), tl.ones(3)
    opt.step()
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1] and sd["param_groups"][1]["params"] == [1]
    assert list(sd["param_groups"][0])[-1] == "params"
    assert sd["state"][0]["momentum_buffer"] is opt.state[a]["momentum_buffer"]
    other = tl.optim.SGD([_p(2)], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        other.load_state_dict(sd)
    wrong = tl.optim.SGD([{"params": [_p(2), _p(1)]}, {"params": [_p(3)]}], lr=0.1)
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that doesn't match the size"):
        wrong.load_state_dict(sd)


def test_load_casts_state_to_the_parameter_dtype_but_keeps_step():
    p = _p(2)
    p.grad = tl.ones(2)
    opt = tl.optim.Adam([p])
    opt.step()
    target = tl.ones(2, dtype=tl.float64, requires_grad=True)
    other = tl.optim.Adam([target])
    other.load_state_dict(opt.state_dict())
    state = other.state[target]
    assert state["exp_avg"].dtype == tl.float64 and state["step"].dtype == tl.float32


def test_getstate_setstate_protocol():
    """What pickle and deepcopy use: groups, defaults and state travel; hook
    tables are rebuilt on the other side."""
    p = _p(3)
    p.grad = tl.ones(3)
    opt = tl.optim.Adam([p], lr=0.01)
    opt.register_step_pre_hook(lambda *a: None)
    opt.step()
    payload = opt.__getstate__()
    assert sorted(payload) == ["defaults", "param_groups", "state"]
    clone = tl.optim.Adam.__new__(tl.optim.Adam)
    clone.__setstate__(payload)
    assert clone._optimizer_step_pre_hooks == {} and clone.param_groups[0]["lr"] == 0.01
    clone.step()
    assert clone.state[p]["step"].item() == 2.0


def _tensors_copy():
    try:
        copy.deepcopy(tl.ones(1))
        pickle.dumps(tl.ones(1))
    except TypeError:
        return False
    return True


@pytest.mark.skipif(not _tensors_copy(), reason="tensor deepcopy/pickle comes with the nn and serialization slices")
def test_pickle_and_deepcopy_keep_groups_and_state():
    p = _p(3)
    p.grad = tl.ones(3)
    opt = tl.optim.Adam([p], lr=0.01)
    opt.step()
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        q = clone.param_groups[0]["params"][0]
        assert q is not p and tl.equal(q, p)
        assert tl.equal(clone.state[q]["exp_avg"], opt.state[p]["exp_avg"])
        q.grad = tl.ones(3)
        clone.step()
        assert clone.state[q]["step"].item() == 2.0


def test_swap_in_optimizer_params_and_state():
    p = _p(2)
    p.grad = tl.ones(2)
    opt = tl.optim.Adam([p], lr=0.1)
    opt.step()
    sd = opt.state_dict()
    swapped_state = {"state": {0: {k: v.clone() for k, v in sd["state"][0].items()}},
                     "param_groups": sd["param_groups"]}
    stand_in = tl.full((2,), 5.0, requires_grad=True)
    stand_in.grad = tl.ones(2)
    before = p.detach().clone()
    with tl.optim.swap_in_optimizer_params_and_state(opt, {"w": stand_in}, swapped_state):
        assert opt.param_groups[0]["params"] == [stand_in]
        opt.step()
    assert tl.equal(p.detach(), before) and opt.param_groups[0]["params"][0] is p
    assert swapped_state["state"][0]["step"].item() == 2.0 and opt.state[p]["step"].item() == 1.0
    assert bool((stand_in < 5).all())


def test_pytorch_state_dict_loads_here_and_back():
    if torch is None:
        pytest.skip("PyTorch not installed")
    tp = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    topt = torch.optim.Adam([("w", tp)], lr=0.1, amsgrad=True)
    tp.grad = torch.tensor([0.5, 0.5, -1.0])
    topt.step()
    tsd = topt.state_dict()
    converted = {"state": {k: {n: tl.tensor(v.numpy()) for n, v in s.items()} for k, s in tsd["state"].items()},
                 "param_groups": tsd["param_groups"]}
    p = tl.tensor(tp.detach().numpy(), requires_grad=True)
    opt = tl.optim.Adam([p], lr=0.1, amsgrad=True)
    opt.load_state_dict(converted)
    assert opt.param_groups[0]["param_names"] == ["w"]
    back = opt.state_dict()
    again = {"state": {k: {n: torch.tensor(v.numpy()) for n, v in s.items()} for k, s in back["state"].items()},
             "param_groups": back["param_groups"]}
    topt2 = torch.optim.Adam([torch.nn.Parameter(tp.detach().clone())], lr=0.1, amsgrad=True)
    topt2.load_state_dict(again)
    np.testing.assert_array_equal(topt2.state_dict()["state"][0]["exp_avg_sq"].numpy(),
                                  tsd["state"][0]["exp_avg_sq"].numpy())
