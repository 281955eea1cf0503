"""torchlike.optim.swa_utils: AveragedModel (SWA mean, EMA, buffers), the averaging function
factories, SWALR's annealing and update_bn, against exact formulas and (when installed) PyTorch."""

import math
import warnings

import numpy as np
import pytest

import torchlike
import torchlike.nn as nn
from torchlike.optim import SGD
from torchlike.optim import lr_scheduler as L
from torchlike.optim import swa_utils as S
from tests.conftest import requires_torch


def _arr(t):
    return np.array(t.detach().tolist(), dtype=np.float64)


def _set_weights(model, scale):
    with torchlike.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torchlike.full(p.shape, scale * (i + 1), dtype=p.dtype))


def _bn_class():
    cls = getattr(nn, "BatchNorm1d", None)
    if cls is None:
        pytest.skip("torchlike.nn has no BatchNorm1d in this build")
    return cls


# --------------------------------------------------------------------------------------------
# the averaging functions


def test_per_tensor_average_functions():
    avg, cur = torchlike.tensor([1.0, 2.0]), torchlike.tensor([3.0, 6.0])
    assert S.get_ema_avg_fn(0.75)(avg, cur, 5).tolist() == [1.5, 3.0]
    assert S.get_swa_avg_fn()(avg, cur, 3).tolist() == [1.5, 3.0]
    assert S.get_swa_avg_fn()(avg, cur, torchlike.tensor(1)).tolist() == [2.0, 4.0]
    assert S.get_swa_avg_fn().__name__ == "swa_update" and S.get_ema_multi_avg_fn().__name__ == "ema_update"


def test_multi_tensor_average_functions():
    avgs = [torchlike.tensor([1.0, 2.0]), torchlike.tensor([[0.0]], dtype=torchlike.float64)]
    curs = [torchlike.tensor([3.0, 6.0]), torchlike.tensor([[4.0]], dtype=torchlike.float64)]
    S.get_swa_multi_avg_fn()(avgs, curs, 3)
    assert avgs[0].tolist() == [1.5, 3.0] and avgs[1].tolist() == [[1.0]]
    S.get_swa_multi_avg_fn()(avgs, curs, torchlike.tensor(1))
    assert avgs[0].tolist() == [2.25, 4.5] and avgs[1].tolist() == [[2.5]]
    S.get_ema_multi_avg_fn(0.5)(avgs, curs, 7)
    assert avgs[0].tolist() == [2.625, 5.25] and avgs[1].tolist() == [[3.25]]
    ints = [torchlike.tensor([10, 20])]
    S.get_ema_multi_avg_fn(0.5)(ints, [torchlike.tensor([3, 3])], 1)
    assert ints[0].tolist() == [6, 11] and ints[0].dtype == torchlike.int64  # 6.5, 11.5 truncated
    S.get_swa_multi_avg_fn()([], [], 1)  # nothing to do
    # a count that lives off the CPU is divided by where it is, never read back (Meta: shapes only)
    on_meta = [torchlike.zeros(3, device="meta")]
    S.get_swa_multi_avg_fn()(on_meta, [torchlike.ones(3, device="meta")], torchlike.tensor(2).to("meta"))
    assert on_meta[0].device.type == "meta" and tuple(on_meta[0].shape) == (3,)


@pytest.mark.parametrize("factory", [S.get_ema_multi_avg_fn, S.get_ema_avg_fn])
@pytest.mark.parametrize("bad", [1.5, -1])
def test_decay_out_of_range(factory, bad):
    with pytest.raises(ValueError, match=rf"^Invalid decay value {bad} provided. Please provide a value in \[0,1\] range.$"):
        factory(bad)


# --------------------------------------------------------------------------------------------
# AveragedModel


def test_averaged_model_structure():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    avg = S.AveragedModel(model)
    assert repr(avg) == ("AveragedModel(\n  (module): Sequential(\n"
                         "    (0): Linear(in_features=2, out_features=3, bias=True)\n"
                         "    (1): Linear(in_features=3, out_features=1, bias=True)\n  )\n)")
    assert list(avg.state_dict()) == ["n_averaged", "module.0.weight", "module.0.bias", "module.1.weight",
                                      "module.1.bias"]
    assert avg.n_averaged.dtype == torchlike.int64 and int(avg.n_averaged) == 0
    assert [n for n, _ in avg.named_buffers()] == ["n_averaged"]
    assert (avg.avg_fn, avg.multi_avg_fn, avg.use_buffers) == (None, None, False)
    # a deep copy: the live model's parameters are not shared
    assert all(a is not b for a, b in zip(avg.parameters(), model.parameters()))
    x = torchlike.randn(4, 2)
    np.testing.assert_array_equal(_arr(avg(x)), _arr(model(x)))
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        S.AveragedModel(model, avg_fn=S.get_swa_avg_fn(), multi_avg_fn=S.get_swa_multi_avg_fn())
    on_cpu = S.AveragedModel(model, device="cpu")
    assert on_cpu.n_averaged.device.type == "cpu"


@pytest.mark.parametrize("how", ["default", "avg_fn", "multi_avg_fn"])
def test_swa_mean_of_snapshots(how):
    model = nn.Linear(3, 2)
    kw = {"avg_fn": S.get_swa_avg_fn()} if how == "avg_fn" else {}
    if how == "multi_avg_fn":
        kw = {"multi_avg_fn": S.get_swa_multi_avg_fn()}
    avg = S.AveragedModel(model, **kw)
    scales = [1.0, 4.0, -2.0, 0.5, 3.0]
    for s in scales:
        _set_weights(model, s)
        avg.update_parameters(model)
    mean = sum(scales) / len(scales)
    for i, p in enumerate(avg.parameters()):
        np.testing.assert_allclose(_arr(p), mean * (i + 1), rtol=1e-6)
    assert int(avg.n_averaged) == len(scales)
    assert all(p.requires_grad for p in avg.parameters())


@pytest.mark.parametrize("multi", [True, False])
def test_ema_of_snapshots(multi):
    decay = 0.9
    model = nn.Linear(3, 2).double()
    kw = {"multi_avg_fn": S.get_ema_multi_avg_fn(decay)} if multi else {"avg_fn": S.get_ema_avg_fn(decay)}
    avg = S.AveragedModel(model, **kw)
    scales = [1.0, 4.0, -2.0, 0.5, 3.0, 7.0]
    ema = None
    for s in scales:
        _set_weights(model, s)
        avg.update_parameters(model)
        ema = s if ema is None else decay * ema + (1 - decay) * s
    for i, p in enumerate(avg.parameters()):
        np.testing.assert_allclose(_arr(p), ema * (i + 1), rtol=1e-12)


class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer("stat", torchlike.zeros(2))
        self.register_buffer("count", torchlike.tensor(0, dtype=torchlike.long))

    def forward(self, x):
        return self.lin(x) + self.stat


def test_buffers_averaged_or_followed():
    model = WithBuffers()
    followed = S.AveragedModel(model)
    averaged = S.AveragedModel(model, use_buffers=True)
    ema = S.AveragedModel(model, use_buffers=True, multi_avg_fn=S.get_ema_multi_avg_fn(0.5))
    for stat, count in [(2.0, 7), (4.0, 10), (9.0, 20)]:
        model.stat.fill_(stat)
        model.count.fill_(count)
        for a in (followed, averaged, ema):
            a.update_parameters(model)
    assert followed.module.stat.tolist() == [9.0, 9.0] and int(followed.module.count) == 20
    assert averaged.module.stat.tolist() == [5.0, 5.0]
    assert int(averaged.module.count) == 12  # 7 -> trunc(7 + 3/2) = 8 -> trunc(8 + 12/3) = 12
    assert averaged.module.count.dtype == torchlike.int64
    assert ema.module.stat.tolist() == [6.0, 6.0]  # 2 -> 3 -> 6
    assert int(ema.module.count) == 14  # 7 -> trunc(8.5) = 8 -> trunc(14.0)


def test_update_parameters_shape_mismatch_raises():
    avg = S.AveragedModel(nn.Linear(2, 2))
    avg.update_parameters(nn.Linear(2, 2))
    with pytest.raises(RuntimeError):
        avg.update_parameters(nn.Linear(2, 3))


# --------------------------------------------------------------------------------------------
# SWALR


def _opt(lrs=(0.1, 0.04)):
    return SGD([{"params": [torchlike.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs], lr=lrs[0])


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 5])
def test_swalr_anneals_then_holds(strategy, anneal_epochs):
    opt = _opt()
    sched = S.SWALR(opt, swa_lr=[0.01, 0.02], anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    assert [g["swa_lr"] for g in opt.param_groups] == [0.01, 0.02]

    def mix(t):
        t = min(1.0, t / max(1, anneal_epochs)) if anneal_epochs else 1.0
        return (1 - math.cos(math.pi * t)) / 2 if strategy == "cos" else t

    for step in range(1, 15):
        opt.step()
        sched.step()
        want = [swa * mix(step) + lr0 * (1 - mix(step)) for swa, lr0 in [(0.01, 0.1), (0.02, 0.04)]]
        assert [g["lr"] for g in opt.param_groups] == pytest.approx(want, rel=1e-12)
    assert sched.get_last_lr() == pytest.approx([0.01, 0.02])


def test_swalr_state_dict_and_errors():
    opt = _opt()
    sched = S.SWALR(opt, 0.05, anneal_epochs=3, anneal_strategy="linear")
    state = sched.state_dict()
    assert set(state) == {"_anneal_strategy", "anneal_epochs", "base_lrs", "last_epoch", "_step_count", "_is_initial",
                          "_get_lr_called_within_step", "_last_lr"}
    other = S.SWALR(_opt(), 0.05)
    other.load_state_dict(state)
    assert other._anneal_strategy == "linear" and other.anneal_epochs == 3
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear', instead got x$"):
        S.SWALR(_opt(), 0.05, anneal_strategy="x")
    for bad in (-1, 1.5):
        with pytest.raises(ValueError, match=f"^anneal_epochs must be equal or greater than 0, got {bad}$"):
            S.SWALR(_opt(), 0.05, anneal_epochs=bad)
    with pytest.raises(ValueError, match="^swa_lr must have the same length as optimizer.param_groups. "
                                         "swa_lr has 1 values, param_groups has 2.$"):
        S.SWALR(_opt(), [0.05])
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.SWALR(object(), 0.05)
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()
    assert isinstance(sched, L.LRScheduler)


# --------------------------------------------------------------------------------------------
# update_bn


def test_update_bn_recomputes_statistics():
    bn_cls = _bn_class()
    model = nn.Sequential(nn.Linear(2, 3), bn_cls(3, momentum=0.3))
    model.eval()
    batches = [torchlike.randn(6, 2) for _ in range(4)]
    S.update_bn([(b, 0) for b in batches], model)
    bn = model[1]
    assert not model.training and bn.momentum == 0.3
    assert int(bn.num_batches_tracked) == 4
    with torchlike.no_grad():
        feats = [_arr(model[0](b)) for b in batches]
    np.testing.assert_allclose(_arr(bn.running_mean), np.concatenate(feats).mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_arr(bn.running_var), np.mean([f.var(0, ddof=1) for f in feats], 0), rtol=1e-5)
    # stale statistics are reset first: a second pass gives the same result
    before = _arr(bn.running_mean)
    S.update_bn(batches, model)
    np.testing.assert_allclose(_arr(bn.running_mean), before, rtol=1e-6, atol=1e-7)


def test_update_bn_without_batch_norm_leaves_the_loader_alone():
    class Exploding:
        def __iter__(self):
            raise AssertionError("update_bn iterated a loader although the model has no BatchNorm")

    model = nn.Linear(2, 2)
    model.eval()
    S.update_bn(Exploding(), model)
    assert not model.training


# --------------------------------------------------------------------------------------------
# PyTorch 2.13 parity


def _torch_linear(torch, ours):
    lin = torch.nn.Linear(ours.in_features, ours.out_features).double()
    with torch.no_grad():
        lin.weight.copy_(torch.tensor(_arr(ours.weight)))
        lin.bias.copy_(torch.tensor(_arr(ours.bias)))
    return lin


@requires_torch
@pytest.mark.parametrize("how", ["default", "ema_multi", "ema", "swa_multi"])
def test_averaged_model_matches_pytorch(how):
    import torch
    import torch.optim.swa_utils as TS

    def fns(mod):
        return {"default": {}, "ema_multi": {"multi_avg_fn": mod.get_ema_multi_avg_fn(0.8)},
                "ema": {"avg_fn": mod.get_ema_avg_fn(0.7)}, "swa_multi": {"multi_avg_fn": mod.get_swa_multi_avg_fn()}}[how]

    ours_model = nn.Linear(4, 3).double()
    theirs_model = _torch_linear(torch, ours_model)
    ours, theirs = S.AveragedModel(ours_model, **fns(S)), TS.AveragedModel(theirs_model, **fns(TS))
    rng = np.random.default_rng(0)
    for _ in range(6):
        for po, pt in zip(ours_model.parameters(), theirs_model.parameters()):
            delta = rng.standard_normal(tuple(po.shape))
            with torchlike.no_grad():
                po.add_(torchlike.tensor(delta))
            with torch.no_grad():
                pt.add_(torch.tensor(delta))
        ours.update_parameters(ours_model)
        theirs.update_parameters(theirs_model)
    # PyTorch 2.13's get_swa_multi_avg_fn applies a tensor count's 1/(n+1) in float32 precision
    # (its float64 result is off by ~1e-8); ours divides in the parameters' dtype
    tol = 1e-7 if how == "swa_multi" else 1e-12
    for po, pt in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(_arr(po), pt.detach().numpy(), rtol=tol, atol=tol)
    assert int(ours.n_averaged) == int(theirs.n_averaged)
    assert list(ours.state_dict()) == list(theirs.state_dict())


@requires_torch
@pytest.mark.parametrize("strategy,epochs", [("cos", 4), ("linear", 3), ("cos", 0)])
def test_swalr_after_another_schedule_matches_pytorch(strategy, epochs):
    import torch
    import torch.optim.lr_scheduler as TL
    import torch.optim.swa_utils as TS

    ours_opt = _opt()
    theirs_opt = torch.optim.SGD([{"params": [torch.nn.Parameter(torch.zeros(1))], "lr": lr} for lr in (0.1, 0.04)],
                                 lr=0.1)
    ours_cos, theirs_cos = L.CosineAnnealingLR(ours_opt, 20), TL.CosineAnnealingLR(theirs_opt, 20)
    ours_swa = theirs_swa = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in range(25):
            ours_opt.step()
            theirs_opt.step()
            if epoch < 8:
                ours_cos.step()
                theirs_cos.step()
            else:
                if ours_swa is None:
                    ours_swa = S.SWALR(ours_opt, 0.005, epochs, strategy)
                    theirs_swa = TS.SWALR(theirs_opt, 0.005, epochs, strategy)
                ours_swa.step()
                theirs_swa.step()
            ours_lrs = [g["lr"] for g in ours_opt.param_groups]
            theirs_lrs = [g["lr"] for g in theirs_opt.param_groups]
            assert ours_lrs == pytest.approx(theirs_lrs, rel=1e-12), epoch
    assert ours_swa.state_dict() == theirs_swa.state_dict()


@requires_torch
def test_update_bn_matches_pytorch():
    bn_cls = _bn_class()
    import torch
    import torch.optim.swa_utils as TS

    ours = nn.Sequential(nn.Linear(3, 4), bn_cls(4)).double()
    theirs = torch.nn.Sequential(_torch_linear(torch, ours[0]), torch.nn.BatchNorm1d(4).double())
    rng = np.random.default_rng(1)
    batches = [rng.standard_normal((5 + i, 3)) for i in range(4)]
    S.update_bn([torchlike.tensor(b) for b in batches], ours)
    TS.update_bn([torch.tensor(b) for b in batches], theirs)
    np.testing.assert_allclose(_arr(ours[1].running_mean), theirs[1].running_mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(_arr(ours[1].running_var), theirs[1].running_var.numpy(), rtol=1e-10)


@requires_torch
def test_signatures_match_pytorch():
    import inspect

    import torch.optim.swa_utils as TS

    for name in TS.__all__:
        theirs = inspect.signature(getattr(TS, name))
        ours = inspect.signature(getattr(S, name))
        assert list(ours.parameters) == list(theirs.parameters), name
        for pname, p in ours.parameters.items():
            assert p.default == theirs.parameters[pname].default, (name, pname)
    assert set(S.__all__) == set(TS.__all__)
