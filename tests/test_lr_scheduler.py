"""torchlike.optim.lr_scheduler: every schedule against closed-form formulas written out here,
then (when PyTorch is installed) step for step against PyTorch 2.13, plus state_dict round trips,
chaining, resuming, warnings and error messages."""

import copy
import math
import pickle
import warnings

import pytest

import numpy as np

import torchlike
import torchlike.optim
from torchlike.optim import SGD, Optimizer
from torchlike.optim import lr_scheduler as L
from tests.conftest import requires_torch

N_STEPS = 40
REL = 1e-12


class BetaOpt(Optimizer):
    """A do-nothing optimizer with Adam-style ``betas`` (for beta1 cycling)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999)):
        super().__init__(params, dict(lr=lr, betas=betas))

    def step(self, closure=None):
        return None


class PlainOpt(Optimizer):
    """Neither momentum nor betas: cycling momentum must be refused."""

    def __init__(self, params, lr=1e-3):
        super().__init__(params, dict(lr=lr))

    def step(self, closure=None):
        return None


def _params(n):
    return [torchlike.zeros(2, requires_grad=True) for _ in range(n)]


def make_opt(lrs=(0.1,), momentum=0.9, cls=None):
    groups = [{"params": [p], "lr": lr} for p, lr in zip(_params(len(lrs)), lrs)]
    if cls is BetaOpt:
        return BetaOpt(groups)
    if cls is PlainOpt:
        return PlainOpt(groups)
    return SGD(groups, lr=lrs[0], momentum=momentum)


def lrs_of(opt):
    return [g["lr"] for g in opt.param_groups]


def run(opt, sched, n=N_STEPS):
    """lr of every group at epoch 0..n (the optimizer steps before the scheduler, as intended)."""
    seen = [lrs_of(opt)]
    for _ in range(n):
        opt.step()
        sched.step()
        seen.append(lrs_of(opt))
    return seen


def assert_seq(got, want, rel=REL):
    assert len(got) == len(want)
    for epoch, (g, w) in enumerate(zip(got, want)):
        assert g == pytest.approx(w, rel=rel, abs=1e-15), f"epoch {epoch}: {g} != {w}"


BASES = (0.1, 0.03)


def expected(fn, n=N_STEPS, bases=BASES):
    return [[fn(b, e) for b in bases] for e in range(n + 1)]


# --------------------------------------------------------------------------------------------
# closed forms


def test_lambda_lr_per_group_functions():
    opt = make_opt(BASES)
    sched = L.LambdaLR(opt, [lambda e: 0.95**e, lambda e: 1.0 / (1 + e)])
    want = [[0.1 * 0.95**e, 0.03 / (1 + e)] for e in range(N_STEPS + 1)]
    assert_seq(run(opt, sched), want)


def test_multiplicative_lr_is_a_running_product():
    opt = make_opt(BASES)
    sched = L.MultiplicativeLR(opt, lambda e: 1.0 - 0.01 * (e % 5))
    assert_seq(run(opt, sched), expected(lambda b, e: b * math.prod(1.0 - 0.01 * (k % 5) for k in range(1, e + 1))))


@pytest.mark.parametrize("step_size,gamma", [(3, 0.5), (1, 0.9), (7, 0.1)])
def test_step_lr(step_size, gamma):
    opt = make_opt(BASES)
    sched = L.StepLR(opt, step_size, gamma)
    assert_seq(run(opt, sched), expected(lambda b, e: b * gamma ** (e // step_size)))


def test_multistep_lr_counts_repeated_milestones():
    milestones = [4, 10, 10, 25]
    opt = make_opt(BASES)
    sched = L.MultiStepLR(opt, milestones, gamma=0.5)
    assert_seq(run(opt, sched), expected(lambda b, e: b * 0.5 ** sum(m <= e for m in milestones)))


@pytest.mark.parametrize("factor,total", [(0.25, 6), (1.0 / 3, 5), (0.5, 1)])
def test_constant_lr(factor, total):
    opt = make_opt(BASES)
    sched = L.ConstantLR(opt, factor=factor, total_iters=total)
    assert_seq(run(opt, sched), expected(lambda b, e: b * (factor if e < total else 1.0)))


@pytest.mark.parametrize("start,end,total", [(0.1, 1.0, 10), (1.0, 0.2, 7), (1.0 / 3, 1.0, 5), (0.5, 0.0, 12)])
def test_linear_lr(start, end, total):
    opt = make_opt(BASES)
    sched = L.LinearLR(opt, start_factor=start, end_factor=end, total_iters=total)
    got = run(opt, sched)
    assert_seq(got, expected(lambda b, e: b * (start + (end - start) * min(e, total) / total)), rel=1e-10)


def test_exponential_lr():
    opt = make_opt(BASES)
    sched = L.ExponentialLR(opt, gamma=0.93)
    assert_seq(run(opt, sched), expected(lambda b, e: b * 0.93**e), rel=1e-11)


@pytest.mark.parametrize("power", [1.0, 2.0, 0.5])
def test_polynomial_lr(power):
    opt = make_opt(BASES)
    sched = L.PolynomialLR(opt, total_iters=17, power=power)
    assert_seq(run(opt, sched), expected(lambda b, e: b * (1 - min(e, 17) / 17) ** power), rel=1e-10)


@pytest.mark.parametrize("t_max,eta_min", [(10, 0.0), (7, 0.001), (1, 0.0)])
def test_cosine_annealing_follows_the_cosine_past_t_max(t_max, eta_min):
    opt = make_opt(BASES)
    sched = L.CosineAnnealingLR(opt, T_max=t_max, eta_min=eta_min)
    want = expected(lambda b, e: eta_min + (b - eta_min) * (1 + math.cos(math.pi * e / t_max)) / 2)
    assert_seq(run(opt, sched), want, rel=1e-9)


def _sgdr_position(epoch, t0, mult):
    """(T_cur, T_i) by walking the restarts one period at a time."""
    period, start = t0, 0
    while epoch >= start + period:
        start += period
        period *= mult
    return epoch - start, period


@pytest.mark.parametrize("t0,mult,eta_min", [(5, 1, 0.0), (3, 2, 0.002), (2, 3, 0.0)])
def test_cosine_warm_restarts(t0, mult, eta_min):
    opt = make_opt(BASES)
    sched = L.CosineAnnealingWarmRestarts(opt, T_0=t0, T_mult=mult, eta_min=eta_min)

    def want(b, e):
        t_cur, t_i = _sgdr_position(e, t0, mult)
        return eta_min + (b - eta_min) * (1 + math.cos(math.pi * t_cur / t_i)) / 2

    assert_seq(run(opt, sched), expected(want), rel=1e-9)


@pytest.mark.parametrize("mult", [1, 2])
def test_cosine_warm_restarts_fractional_epochs(mult):
    opt = make_opt(BASES)
    sched = L.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=mult)
    batches = 5
    for epoch in range(12):
        for i in range(batches):
            at = epoch + i / batches
            sched.step(at)
            t_cur, t_i = _sgdr_position(at, 4, mult)
            assert sched.T_i == t_i
            assert sched.T_cur == pytest.approx(t_cur, abs=1e-12)
            want = [b * (1 + math.cos(math.pi * t_cur / t_i)) / 2 for b in BASES]
            assert lrs_of(opt) == pytest.approx(want, rel=1e-9, abs=1e-15)
            assert sched.last_epoch == epoch


def _cyclic_reference(e, low, high, up, down, mode, gamma=1.0):
    total = up + down
    cycle = math.floor(1 + e / total)
    x = 1 + e / total - cycle
    height = x / (up / total) if x <= up / total else (x - 1) / (up / total - 1)
    if mode == "triangular":
        amp = 1.0
    elif mode == "triangular2":
        amp = 1 / 2 ** (cycle - 1)
    else:
        amp = gamma**e
    return low + (high - low) * height * amp


@pytest.mark.parametrize("mode,up,down", [("triangular", 4, None), ("triangular2", 3, 5), ("exp_range", 5, 2)])
def test_cyclic_lr_shapes_and_momentum(mode, up, down):
    opt = make_opt(BASES)
    sched = L.CyclicLR(opt, base_lr=[0.01, 0.001], max_lr=[0.1, 0.02], step_size_up=up,
                       step_size_down=down, mode=mode, gamma=0.97, base_momentum=0.8, max_momentum=0.95)
    dn = up if down is None else down
    moms = [[g["momentum"] for g in opt.param_groups]]
    got = [lrs_of(opt)]
    for _ in range(N_STEPS):
        opt.step()
        sched.step()
        got.append(lrs_of(opt))
        moms.append([g["momentum"] for g in opt.param_groups])
    want = [[_cyclic_reference(e, lo, hi, up, dn, mode, 0.97) for lo, hi in [(0.01, 0.1), (0.001, 0.02)]]
            for e in range(N_STEPS + 1)]
    assert_seq(got, want, rel=1e-10)
    # momentum mirrors the lr: high momentum where the lr is low
    for e, row in enumerate(moms):
        frac = (_cyclic_reference(e, 0.0, 1.0, up, dn, mode, 0.97))
        assert row == pytest.approx([0.95 - 0.15 * frac] * 2, rel=1e-10)
    assert opt.param_groups[0]["max_momentum"] == 0.95 and opt.param_groups[0]["base_momentum"] == 0.8


def test_cyclic_lr_custom_scale_fn_and_beta1():
    opt = make_opt((0.5,), cls=BetaOpt)
    sched = L.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1.0 / (1 + x), scale_mode="iterations",
                       base_momentum=0.85, max_momentum=0.95)
    assert sched.scale_mode == "iterations"
    for e in range(1, 20):
        opt.step()
        sched.step()
        x = 1 + e / 4 - math.floor(1 + e / 4)
        height = x / 0.5 if x <= 0.5 else (x - 1) / (0.5 - 1)
        assert opt.param_groups[0]["lr"] == pytest.approx(0.01 + 0.09 * height / (1 + e), rel=1e-12)
        beta1, beta2 = opt.param_groups[0]["betas"]
        assert beta1 == pytest.approx(0.95 - 0.1 * height / (1 + e), rel=1e-12) and beta2 == 0.999


def test_cyclic_lr_without_momentum_support():
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        L.CyclicLR(make_opt(cls=PlainOpt), 0.01, 0.1)
    opt = make_opt(cls=PlainOpt)
    sched = L.CyclicLR(opt, 0.01, 0.1, step_size_up=2, cycle_momentum=False)
    assert "use_beta1" not in sched.state_dict()
    assert_seq(run(opt, sched, 8), [[_cyclic_reference(e, 0.01, 0.1, 2, 2, "triangular")] for e in range(9)])


def _one_cycle_reference(step, total, peak, pct, div, final_div, three_phase, strategy):
    start, floor_lr = peak / div, peak / div / final_div
    if strategy == "cos":
        def anneal(a, b, t):
            return b + (a - b) * (1 + math.cos(math.pi * t)) / 2
    else:
        def anneal(a, b, t):
            return a + (b - a) * t
    up_end = pct * total - 1
    if three_phase:
        bounds = [(up_end, start, peak), (2 * pct * total - 2, peak, start), (total - 1, start, floor_lr)]
    else:
        bounds = [(up_end, start, peak), (total - 1, peak, floor_lr)]
    lo = 0
    for i, (hi, a, b) in enumerate(bounds):
        if step <= hi or i == len(bounds) - 1:
            return anneal(a, b, (step - lo) / (hi - lo))
        lo = hi


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("three_phase", [False, True])
def test_one_cycle(strategy, three_phase):
    total = 50
    opt = make_opt((0.5,))
    sched = L.OneCycleLR(opt, max_lr=0.2, total_steps=total, pct_start=0.25, anneal_strategy=strategy,
                         three_phase=three_phase, div_factor=20.0, final_div_factor=100.0)
    got = run(opt, sched, total - 1)
    want = [[_one_cycle_reference(s, total, 0.2, 0.25, 20.0, 100.0, three_phase, strategy)] for s in range(total)]
    assert_seq(got, want, rel=1e-10)
    assert got[0][0] == pytest.approx(0.01)
    assert got[-1][0] == pytest.approx(0.0001, rel=1e-9)
    opt.step()
    sched.step()  # step == total_steps is still allowed
    with pytest.raises(ValueError, match=f"Tried to step {total + 1} times. The specified number of total steps is {total}"):
        sched.step()


def test_one_cycle_momentum_and_epochs_form():
    opt = make_opt((0.5,))
    sched = L.OneCycleLR(opt, max_lr=1.0, epochs=4, steps_per_epoch=5, pct_start=0.4)
    assert sched.total_steps == 20
    group = opt.param_groups[0]
    assert (group["initial_lr"], group["max_lr"], group["min_lr"]) == (0.04, 1.0, pytest.approx(0.04 / 1e4))
    moms = [group["momentum"]]
    for _ in range(19):
        opt.step()
        sched.step()
        moms.append(group["momentum"])
    assert moms[0] == pytest.approx(0.95)
    assert min(moms) == pytest.approx(0.85)
    assert moms.index(min(moms)) == 7  # the lr peak, pct_start * 20 - 1
    assert moms[-1] == pytest.approx(0.95)


# --------------------------------------------------------------------------------------------
# composition


def test_two_schedulers_on_one_optimizer_compose():
    opt = make_opt(BASES)
    s1 = L.ExponentialLR(opt, gamma=0.9)
    s2 = L.StepLR(opt, step_size=4, gamma=0.5)
    got = [lrs_of(opt)]
    for _ in range(N_STEPS):
        opt.step()
        s1.step()
        s2.step()
        got.append(lrs_of(opt))
    assert_seq(got, expected(lambda b, e: b * 0.9**e * 0.5 ** (e // 4)), rel=1e-10)


def test_chained_scheduler_matches_manual_chaining():
    opt = make_opt(BASES)
    chain = L.ChainedScheduler([L.ConstantLR(opt, factor=0.5, total_iters=3), L.ExponentialLR(opt, gamma=0.95)])
    got = run(opt, chain)
    assert_seq(got, expected(lambda b, e: b * (0.5 if e < 3 else 1.0) * 0.95**e), rel=1e-10)
    assert chain.get_last_lr() == lrs_of(opt)
    assert chain.optimizer is opt


def test_sequential_lr_milestones_restart_children():
    opt = make_opt(BASES)
    warm = L.LinearLR(opt, start_factor=0.2, total_iters=4)
    decay = L.ExponentialLR(opt, gamma=0.9)
    step = L.StepLR(opt, step_size=3, gamma=0.5)
    seq = L.SequentialLR(opt, [warm, decay, step], milestones=[6, 15])

    def want(b, e):
        if e < 6:
            return b * (0.2 + 0.8 * min(e, 4) / 4)
        if e < 15:
            return b * 0.9 ** (e - 6)
        return b * 0.5 ** ((e - 15) // 3)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a milestone restart must not warn about the epoch argument
        got = run(opt, seq)
    assert_seq(got, expected(want), rel=1e-10)
    assert seq.last_epoch == N_STEPS
    assert seq.get_last_lr() == lrs_of(opt)


def test_sequential_lr_milestone_uses_the_closed_form():
    # the constant warm-up has not finished at the milestone: the next schedule starts from
    # the initial lr, not from the scaled one
    opt = make_opt((0.1,))
    seq = L.SequentialLR(opt, [L.ConstantLR(opt, factor=0.25, total_iters=10), L.ExponentialLR(opt, 0.5)], [3])
    assert_seq(run(opt, seq, 6), [[0.025], [0.025], [0.025], [0.1], [0.05], [0.025], [0.0125]])


def test_sequential_lr_restarts_a_chained_child():
    # PyTorch 2.13 raises NotImplementedError here; the chain restarts from the initial lrs
    opt = make_opt(BASES)
    chain = L.ChainedScheduler([L.LinearLR(opt, 0.5, total_iters=2), L.ExponentialLR(opt, 0.9),
                                L.StepLR(opt, 4, 0.5)])
    seq = L.SequentialLR(opt, [L.ConstantLR(opt, 0.25, 10), chain], [5])

    def want(b, e):
        if e < 5:
            return b * 0.25
        k = e - 5
        return b * (0.5 + 0.5 * min(k, 2) / 2) * 0.9**k * 0.5 ** (k // 4)

    assert_seq(run(opt, seq), expected(want), rel=1e-10)


# --------------------------------------------------------------------------------------------
# ReduceLROnPlateau


def _plateau(metrics, **kw):
    opt = make_opt(BASES)
    sched = L.ReduceLROnPlateau(opt, **kw)
    out = []
    for m in metrics:
        sched.step(m)
        out.append(lrs_of(opt))
    return sched, out


def test_plateau_min_mode_patience():
    metrics = [5.0, 4.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0, 3.0]
    sched, out = _plateau(metrics, patience=2, factor=0.5)
    # three non-improving epochs (> patience 2) after the best at epoch 2 -> cut at epoch 5
    assert [o[0] for o in out] == pytest.approx([0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025])
    assert sched.best == 3.0 and sched.last_epoch == len(metrics)
    assert sched.get_last_lr() == lrs_of(sched.optimizer)


def test_plateau_max_mode_and_thresholds():
    # rel: an improvement must beat best * (1 + threshold)
    _, out = _plateau([1.0, 1.05, 1.09, 1.12], mode="max", patience=0, threshold=0.1, factor=0.5)
    assert [o[0] for o in out] == pytest.approx([0.1, 0.05, 0.025, 0.025])
    # abs: an improvement must beat best + threshold
    _, out = _plateau([1.0, 1.05, 1.2, 1.25], mode="max", patience=0, threshold=0.1, threshold_mode="abs", factor=0.5)
    assert [o[0] for o in out] == pytest.approx([0.1, 0.05, 0.05, 0.025])
    # min/abs
    _, out = _plateau([1.0, 0.95, 0.85, 0.8], mode="min", patience=0, threshold=0.1, threshold_mode="abs", factor=0.5)
    assert [o[0] for o in out] == pytest.approx([0.1, 0.05, 0.05, 0.025])


def test_plateau_cooldown_and_min_lr_and_eps():
    sched, out = _plateau([1.0] * 12, patience=1, cooldown=2, factor=0.5, min_lr=[0.02, 0.0])
    # bad epochs 1,2 -> cut at epoch 3; cooldown hides the next two; then 2 more bad -> cut ...
    firsts = [o[1] for o in out]
    assert firsts == pytest.approx([0.03, 0.03, 0.015, 0.015, 0.015, 0.015, 0.0075, 0.0075, 0.0075, 0.0075,
                                    0.00375, 0.00375])
    assert [o[0] for o in out][-1] == pytest.approx(0.02)  # held at its floor
    # a cut smaller than eps is skipped
    _, out = _plateau([1.0] * 4, patience=0, factor=0.5, eps=0.1)
    assert [o[0] for o in out] == [0.1] * 4


def test_plateau_new_param_group():
    opt = make_opt(BASES)
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=0.001)
    opt.add_param_group({"params": _params(1), "lr": 0.5})
    sched.step(1.0)
    sched.step(2.0)
    assert lrs_of(opt) == pytest.approx([0.01, 0.003, 0.05])
    assert sched.min_lrs == [0.001] * 3
    opt = make_opt(BASES)
    sched = L.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
    opt.add_param_group({"params": _params(1), "lr": 0.5})
    sched.step(1.0)
    with pytest.raises(RuntimeError, match=r"The number of param groups in the `optimizer` \(3\) differs from when "
                                           r"`ReduceLROnPlateau` was initialized \(2\)"):
        sched.step(2.0)


def test_plateau_state_dict_round_trip():
    sched, _ = _plateau([3.0, 2.0, 2.5], patience=3, mode="min", threshold_mode="abs")
    state = sched.state_dict()
    assert "optimizer" not in state
    fresh = L.ReduceLROnPlateau(make_opt(BASES), mode="max")
    fresh.load_state_dict(copy.deepcopy(state))
    assert fresh.mode == "min" and fresh.best == 2.0 and fresh.num_bad_epochs == 1 and fresh.mode_worse == math.inf
    assert fresh._is_better(1.0, 2.0) and not fresh._is_better(1.99999, 2.0)


# --------------------------------------------------------------------------------------------
# base-class behaviour


def test_initial_lr_and_resume():
    opt = make_opt(BASES)
    L.StepLR(opt, 3)
    assert [g["initial_lr"] for g in opt.param_groups] == list(BASES)
    # a resumed schedule starts from initial_lr and continues where it left off
    opt2 = make_opt((0.05, 0.05))
    for g, base in zip(opt2.param_groups, BASES):
        g["initial_lr"] = base
    sched = L.StepLR(opt2, step_size=3, gamma=0.5, last_epoch=4)
    assert sched.last_epoch == 5 and sched.base_lrs == list(BASES)
    with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in param_groups\[0\] when resuming"):
        L.StepLR(make_opt(), 3, last_epoch=2)


def test_chainable_schedules_leave_a_resumed_lr_alone():
    for make in (lambda o: L.ExponentialLR(o, 0.5, last_epoch=5), lambda o: L.CosineAnnealingLR(o, 10, last_epoch=5),
                 lambda o: L.PolynomialLR(o, 10, last_epoch=2), lambda o: L.LinearLR(o, last_epoch=1),
                 lambda o: L.MultiplicativeLR(o, lambda e: 0.5, last_epoch=3)):
        opt = make_opt((0.05,))
        opt.param_groups[0]["initial_lr"] = 0.1
        make(opt)
        assert lrs_of(opt) == [0.05]


def test_get_last_lr_step_epoch_and_closed_form():
    opt = make_opt(BASES)
    sched = L.StepLR(opt, 3, gamma=0.1)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        sched.step(7)
    assert sched.last_epoch == 7
    assert sched.get_last_lr() == pytest.approx([b * 0.01 for b in BASES])
    assert L.EPOCH_DEPRECATION_WARNING.startswith("The epoch parameter")


def test_call_order_warnings():
    opt = make_opt()
    sched = L.StepLR(opt, 3)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    opt = make_opt()
    sched = L.StepLR(opt, 3)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()
        sched.step()  # only the first call is checked
    opt = make_opt()
    sched = L.StepLR(opt, 3)
    opt.step = lambda *a, **k: None
    with pytest.warns(UserWarning, match=r"Seems like `optimizer.step\(\)` has been overridden"):
        sched.step()


def test_step_observer_with_a_replaced_step_and_without_keeping_the_optimizer_alive():
    import gc
    import weakref

    opt = make_opt()
    calls = []
    opt.step = lambda *a, **k: calls.append(a)
    sched = L.StepLR(opt, 3)
    opt.step(1)
    assert calls == [(1,)] and opt._opt_called
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()

    opt = make_opt()
    L.StepLR(opt, 3)
    alive = weakref.ref(opt)
    del opt
    gc.collect()
    assert alive() is None


def test_step_observer_is_shared_and_not_pickled():
    opt = make_opt()
    s1 = L.StepLR(opt, 3)
    wrapper = opt.step
    L.ExponentialLR(opt, 0.9)
    assert opt.step is wrapper and getattr(opt.step, "_wrapped_by_lr_sched", False)
    opt.step()
    assert opt._opt_called
    # the observer lives on the instance only: a pickled optimizer carries its plain state
    assert "step" not in opt.__getstate__()
    s1.step()
    for clone in (pickle.loads(pickle.dumps(s1)), copy.deepcopy(s1)):
        assert clone.state_dict() == s1.state_dict()
        assert clone.optimizer is not opt and lrs_of(clone.optimizer) == lrs_of(opt)
        clone.optimizer.step()
        clone.step()


def test_get_lr_outside_step_warns():
    sched = L.ConstantLR(make_opt())
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        sched.get_lr()


def test_base_get_lr_is_abstract_and_alias():
    with pytest.raises(NotImplementedError):
        L.LRScheduler(make_opt())
    assert issubclass(L._LRScheduler, L.LRScheduler)

    class Halving(L._LRScheduler):  # the pre-2.0 way of writing a custom schedule
        def get_lr(self):
            return [base * 0.5**self.last_epoch for base in self.base_lrs]

    opt = make_opt(BASES)
    assert_seq(run(opt, Halving(opt), 10), expected(lambda b, e: b * 0.5**e, n=10))
    assert issubclass(L.ReduceLROnPlateau, L.LRScheduler)


def test_tensor_lr_is_updated_in_place():
    params = _params(1)
    lr = torchlike.tensor(0.5)
    opt = SGD(params, lr=lr)
    sched = L.ExponentialLR(opt, 0.5)
    held = opt.param_groups[0]["lr"]
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is held
    assert float(held) == pytest.approx(0.25)
    assert float(sched.get_last_lr()[0]) == pytest.approx(0.25)
    assert sched.get_last_lr()[0] is not held
    assert float(opt.param_groups[0]["initial_lr"]) == 0.5


# --------------------------------------------------------------------------------------------
# state_dict


class Halver:
    def __init__(self):
        self.rate = 0.5

    def __call__(self, epoch):
        return self.rate**epoch


SCHEDULE_FACTORIES = {
    "StepLR": lambda o: L.StepLR(o, 4, 0.5),
    "MultiStepLR": lambda o: L.MultiStepLR(o, [3, 9, 9], 0.3),
    "ConstantLR": lambda o: L.ConstantLR(o, 0.5, 6),
    "LinearLR": lambda o: L.LinearLR(o, 0.25, 0.9, 8),
    "ExponentialLR": lambda o: L.ExponentialLR(o, 0.9),
    "PolynomialLR": lambda o: L.PolynomialLR(o, 12, 1.5),
    "CosineAnnealingLR": lambda o: L.CosineAnnealingLR(o, 6, 0.001),
    "CosineAnnealingWarmRestarts": lambda o: L.CosineAnnealingWarmRestarts(o, 3, 2, 0.001),
    "CyclicLR": lambda o: L.CyclicLR(o, [0.01, 0.002], [0.2, 0.05], step_size_up=3, step_size_down=4, mode="triangular2"),
    "OneCycleLR": lambda o: L.OneCycleLR(o, [0.3, 0.1], total_steps=60, three_phase=True),
    "LambdaLR": lambda o: L.LambdaLR(o, Halver()),
    "MultiplicativeLR": lambda o: L.MultiplicativeLR(o, [Halver(), Halver()]),
    "SequentialLR": lambda o: L.SequentialLR(o, [L.LinearLR(o, 0.5, total_iters=3), L.CosineAnnealingLR(o, 9)], [4]),
    "ChainedScheduler": lambda o: L.ChainedScheduler([L.StepLR(o, 3, 0.5), L.ExponentialLR(o, 0.97)]),
}


@pytest.mark.parametrize("name", sorted(SCHEDULE_FACTORIES))
def test_state_dict_round_trip_continues_the_schedule(name):
    make = SCHEDULE_FACTORIES[name]
    opt = make_opt(BASES)
    sched = make(opt)
    run(opt, sched, 13)
    state = pickle.loads(pickle.dumps(sched.state_dict()))
    opt_state = opt.state_dict()
    reference = run(opt, sched, 20)

    opt2 = make_opt((0.9, 0.9))
    sched2 = make(opt2)
    opt2.load_state_dict(opt_state)
    sched2.load_state_dict(state)
    assert_seq(run(opt2, sched2, 20), reference)


def test_state_dict_of_user_functions():
    opt = make_opt(BASES)
    halver = Halver()
    sched = L.LambdaLR(opt, [lambda e: 1.0, halver])
    halver.rate = 0.25
    state = sched.state_dict()
    assert state["lr_lambdas"] == [None, {"rate": 0.25}]
    other = Halver()
    sched2 = L.LambdaLR(make_opt(BASES), [lambda e: 2.0, other])
    sched2.load_state_dict(state)
    assert other.rate == 0.25 and "lr_lambdas" in state
    assert callable(sched2.lr_lambdas[0])


def test_cyclic_state_dict_drops_function_scale_fn():
    sched = L.CyclicLR(make_opt(), 0.01, 0.1, scale_fn=lambda x: 0.5)
    assert sched.state_dict()["_scale_fn_custom"] is None
    obj = Halver()
    sched = L.CyclicLR(make_opt(), 0.01, 0.1, scale_fn=obj)
    obj.rate = 0.75
    assert sched.state_dict()["_scale_fn_custom"] == {"rate": 0.75}


# --------------------------------------------------------------------------------------------
# errors


def test_errors():
    opt = make_opt()
    with pytest.raises(TypeError, match="^object is not an Optimizer$"):
        L.StepLR(object(), 3)
    with pytest.raises(ValueError, match="^Expected 1 lr_lambdas, but got 2$"):
        L.LambdaLR(opt, [lambda e: 1, lambda e: 2])
    with pytest.raises(ValueError, match="^Expected 1 lr_lambdas, but got 2$"):
        L.MultiplicativeLR(opt, [lambda e: 1, lambda e: 2])
    for bad in (1.5, -0.5):
        with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1."):
            L.ConstantLR(opt, factor=bad)
    for bad in (0, 1.5):
        with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
            L.LinearLR(opt, start_factor=bad)
    for bad in (-1, 1.5):
        with pytest.raises(ValueError, match="Ending multiplicative factor expected to be between 0 and 1."):
            L.LinearLR(opt, end_factor=bad)
    with pytest.raises(ValueError, match="^Expected positive integer T_0, but got 2.0$"):
        L.CosineAnnealingWarmRestarts(opt, 2.0)
    with pytest.raises(ValueError, match="^Expected integer T_mult >= 1, but got 0$"):
        L.CosineAnnealingWarmRestarts(opt, 2, T_mult=0)
    with pytest.raises(ValueError, match="Expected float or int eta_min, but got a of type <class 'str'>"):
        L.CosineAnnealingWarmRestarts(opt, 2, eta_min="a")
    sched = L.CosineAnnealingWarmRestarts(opt, 2)
    with pytest.raises(ValueError, match="^Expected non-negative epoch, but got -1$"):
        sched.step(-1)
    with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
        L.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="^mode foo is unknown!$"):
        L.ReduceLROnPlateau(opt, mode="foo")
    with pytest.raises(ValueError, match="^threshold mode foo is unknown!$"):
        L.ReduceLROnPlateau(opt, threshold_mode="foo")
    with pytest.raises(ValueError, match="^expected 1 min_lrs, got 2$"):
        L.ReduceLROnPlateau(opt, min_lr=[0, 1])
    with pytest.raises(ValueError, match="could not convert string to float"):
        L.ReduceLROnPlateau(opt).step("x")
    with pytest.raises(ValueError, match="^mode is invalid and scale_fn is None$"):
        L.CyclicLR(opt, 0.1, 1, mode="x")
    with pytest.raises(ValueError, match=r"^base_lr must have the same length as optimizer.param_groups. "
                                         r"base_lr has 2 values, param_groups has 1.$"):
        L.CyclicLR(opt, [0.1, 0.2], 1)
    with pytest.raises(ValueError, match=r"^max_lr must have the same length"):
        L.OneCycleLR(opt, [0.1, 0.2], total_steps=3)
    with pytest.raises(ValueError, match=r"^You must define either total_steps OR \(epochs AND steps_per_epoch\)$"):
        L.OneCycleLR(opt, 0.1, epochs=2)
    for kw, msg in [(dict(total_steps=0), "total_steps, but got 0"), (dict(total_steps=1.5), "total_steps, but got 1.5"),
                    (dict(epochs=0, steps_per_epoch=2), "epochs, but got 0"),
                    (dict(epochs=2, steps_per_epoch=0), "steps_per_epoch, but got 0")]:
        with pytest.raises(ValueError, match=f"^Expected positive integer {msg}$"):
            L.OneCycleLR(opt, 0.1, **kw)
    for bad in (1, -0.1, 1.5):
        with pytest.raises(ValueError, match=f"^Expected float between 0 and 1 pct_start, but got {bad}$"):
            L.OneCycleLR(opt, 0.1, total_steps=10, pct_start=bad)
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear', instead got x$"):
        L.OneCycleLR(opt, 0.1, total_steps=10, anneal_strategy="x")
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        L.OneCycleLR(make_opt(cls=PlainOpt), 0.1, total_steps=10)


def test_composition_errors():
    opt, other = make_opt(), make_opt()
    with pytest.raises(ValueError, match="^SequentialLR expects at least one scheduler, but got no scheduler.$"):
        L.SequentialLR(opt, [], [])
    with pytest.raises(ValueError, match="^Sequential Schedulers expects number of schedulers provided to be one more "
                                         "than the number of milestone points, but got number of schedulers 2 and "
                                         "the number of milestones to be equal to 2$"):
        L.SequentialLR(opt, [L.ConstantLR(opt), L.ExponentialLR(opt, 0.9)], [3, 4])
    with pytest.raises(TypeError, match="^SequentialLR at index 1 should have `optimizer` as its attribute.$"):
        L.SequentialLR(opt, [L.ConstantLR(opt), 3], [3])
    with pytest.raises(ValueError, match="(?s)^SequentialLR expects all schedulers to belong to the same optimizer, but got "
                                         "scheduler ExponentialLR at index 1 has SGD .*which is different from SGD.$"):
        L.SequentialLR(opt, [L.ConstantLR(opt), L.ExponentialLR(other, 0.9)], [3])
    with pytest.raises(ValueError, match="^SequentialLR does not support `ReduceLROnPlateau` scheduler"):
        L.SequentialLR(opt, [L.ConstantLR(opt), L.ReduceLROnPlateau(opt)], [3])
    with pytest.raises(ValueError, match="^ChainedScheduler expects at least one scheduler to be chained"):
        L.ChainedScheduler([])
    with pytest.raises(ValueError, match="^ChainedScheduler expects all schedulers to belong to the same optimizer"):
        L.ChainedScheduler([L.ConstantLR(opt)], optimizer=other)
    with pytest.raises(ValueError, match="^ChainedScheduler does not support `ReduceLROnPlateau`"):
        L.ChainedScheduler([L.ConstantLR(opt), L.ReduceLROnPlateau(opt)])
    with pytest.raises(TypeError, match="^ChainedScheduler at index 1 should have `optimizer` as its attribute.$"):
        L.ChainedScheduler([L.ConstantLR(opt), 3])


def test_public_names():
    assert set(L.__all__) == {
        "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
        "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
        "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"}
    import torchlike.optim as optim

    assert optim.lr_scheduler is L


# --------------------------------------------------------------------------------------------
# PyTorch 2.13 parity


def _torch_opt(torch, lrs, kind="sgd"):
    groups = [{"params": [torch.nn.Parameter(torch.zeros(2))], "lr": lr} for lr in lrs]
    if kind == "adam":
        return torch.optim.Adam(groups, lr=lrs[0])
    return torch.optim.SGD(groups, lr=lrs[0], momentum=0.9)


def _group_view(opt):
    return [{k: v for k, v in g.items() if k in ("lr", "momentum", "betas", "initial_lr", "max_lr", "min_lr",
                                                 "max_momentum", "base_momentum", "swa_lr")}
            for g in opt.param_groups]


def _compare_runs(torch, build, kind="sgd", n=N_STEPS, lrs=BASES, epochs=None):
    """Build the same schedule on both sides (build gets the scheduler module and optimizer)."""
    import torch.optim.lr_scheduler as TL

    if kind == "adam":
        ours_opt = torchlike.optim.Adam([{"params": [p], "lr": lr} for p, lr in zip(_params(len(lrs)), lrs)], lr=lrs[0])
    else:
        ours_opt = make_opt(lrs)
    theirs_opt = _torch_opt(torch, lrs, kind)
    ours, theirs = build(L, ours_opt), build(TL, theirs_opt)
    views = [(_group_view(ours_opt), _group_view(theirs_opt))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(n):
            ours_opt.step()
            theirs_opt.step()
            if epochs is None:
                ours.step()
                theirs.step()
            else:
                ours.step(epochs[i])
                theirs.step(epochs[i])
            views.append((_group_view(ours_opt), _group_view(theirs_opt)))
    for step, (a, b) in enumerate(views):
        assert len(a) == len(b)
        for ga, gb in zip(a, b):
            assert ga.keys() == gb.keys(), step
            for key in ga:
                va, vb = ga[key], gb[key]
                if isinstance(va, tuple):
                    assert list(va) == pytest.approx(list(vb), rel=REL), (step, key)
                else:
                    assert va == pytest.approx(vb, rel=REL, abs=1e-16), (step, key)
    sa, sb = ours.state_dict(), theirs.state_dict()
    assert set(sa) == set(sb)
    return ours, theirs


PARITY = {
    "lambda": lambda M, o: M.LambdaLR(o, lambda e: 0.97**e + 0.01 * (e % 3)),
    "multiplicative": lambda M, o: M.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 1.05),
    "step": lambda M, o: M.StepLR(o, 5, 0.3),
    "multistep": lambda M, o: M.MultiStepLR(o, [2, 7, 7, 30], 0.5),
    "constant": lambda M, o: M.ConstantLR(o, 0.4, 7),
    "linear": lambda M, o: M.LinearLR(o, 0.05, 0.8, 13),
    "exponential": lambda M, o: M.ExponentialLR(o, 0.91),
    "polynomial": lambda M, o: M.PolynomialLR(o, 23, 2.5),
    "cosine": lambda M, o: M.CosineAnnealingLR(o, 9, 0.004),
    "warm_restarts": lambda M, o: M.CosineAnnealingWarmRestarts(o, 4, 2, 0.001),
    "cyclic_tri2": lambda M, o: M.CyclicLR(o, [0.01, 0.001], 0.2, 3, 5, "triangular2"),
    "cyclic_exp": lambda M, o: M.CyclicLR(o, 0.01, [0.2, 0.1], 4, None, "exp_range", 0.95),
    "one_cycle": lambda M, o: M.OneCycleLR(o, [0.3, 0.1], total_steps=45, pct_start=0.2),
    "one_cycle3": lambda M, o: M.OneCycleLR(o, 0.3, epochs=9, steps_per_epoch=5, anneal_strategy="linear",
                                            three_phase=True, base_momentum=[0.8, 0.7]),
    "sequential": lambda M, o: M.SequentialLR(
        o, [M.LinearLR(o, 0.1, total_iters=5), M.MultiplicativeLR(o, lambda e: 0.9),
            M.CosineAnnealingWarmRestarts(o, 5)], [6, 17]),
    "chained": lambda M, o: M.ChainedScheduler(
        [M.LinearLR(o, 0.2, total_iters=6), M.CosineAnnealingLR(o, 15), M.MultiStepLR(o, [10, 20])]),
    "resumed": lambda M, o: (o.param_groups[0].__setitem__("initial_lr", 0.2),
                             o.param_groups[1].__setitem__("initial_lr", 0.05),
                             M.CosineAnnealingLR(o, 12, last_epoch=4))[-1],
}


@requires_torch
@pytest.mark.parametrize("name", sorted(PARITY))
def test_matches_pytorch(name):
    import torch

    _compare_runs(torch, PARITY[name])


RESUMABLE = {
    "step": lambda M, o, last: M.StepLR(o, 5, 0.3, last_epoch=last),
    "cosine": lambda M, o, last: M.CosineAnnealingLR(o, 9, 0.004, last_epoch=last),
    "linear": lambda M, o, last: M.LinearLR(o, 0.05, 0.8, 13, last_epoch=last),
    "polynomial": lambda M, o, last: M.PolynomialLR(o, 23, 2.5, last_epoch=last),
    "exponential": lambda M, o, last: M.ExponentialLR(o, 0.91, last_epoch=last),
    "multiplicative": lambda M, o, last: M.MultiplicativeLR(o, lambda e: 0.9, last_epoch=last),
    "warm_restarts": lambda M, o, last: M.CosineAnnealingWarmRestarts(o, 4, 2, last_epoch=last),
    "cyclic": lambda M, o, last: M.CyclicLR(o, 0.01, 0.2, 3, last_epoch=last),
    "one_cycle": lambda M, o, last: M.OneCycleLR(o, 0.3, total_steps=40, last_epoch=last),
}


@requires_torch
@pytest.mark.parametrize("name", sorted(RESUMABLE))
def test_resuming_with_last_epoch_matches_pytorch(name):
    """The checkpoint pattern: a new scheduler built with last_epoch=k on a stepped optimizer."""
    import torch

    build = RESUMABLE[name]
    _compare_runs(torch, lambda M, o: _resumed(M, o, build), n=20)


def _resumed(M, opt, build):
    first = build(M, opt, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(7):
            opt.step()
            first.step()
    return build(M, opt, 7)


@requires_torch
def test_cyclic_beta1_matches_pytorch():
    import torch

    _compare_runs(torch, lambda M, o: M.CyclicLR(o, 0.001, 0.01, 2, base_momentum=0.8, max_momentum=0.93), kind="adam")
    _compare_runs(torch, lambda M, o: M.OneCycleLR(o, 0.01, total_steps=N_STEPS), kind="adam")


@requires_torch
def test_explicit_epochs_match_pytorch():
    import torch

    epochs = [3, 4, 9, 2, 15, 15, 16, 40, 7, 0, 11]
    for build in (PARITY["step"], PARITY["multistep"], PARITY["linear"], PARITY["cosine"], PARITY["polynomial"],
                  PARITY["constant"], PARITY["exponential"], PARITY["multiplicative"], PARITY["lambda"]):
        _compare_runs(torch, build, n=len(epochs), epochs=epochs)
    fractional = [0.5, 1.25, 3.9, 4.0, 12.3, 27.0, 1.0]
    _compare_runs(torch, PARITY["warm_restarts"], n=len(fractional), epochs=fractional)


@requires_torch
def test_plateau_matches_pytorch():
    import torch
    import torch.optim.lr_scheduler as TL

    metrics = [1.0, 0.9, 0.95, 0.9, 0.9, 0.91, 0.85, 0.85, 0.86, 0.87, 0.9, 0.7, 0.7, 0.71, 0.72, 0.8] * 3
    for kw in (dict(), dict(mode="max", patience=1, factor=0.3), dict(patience=2, cooldown=3, min_lr=[0.01, 0.002]),
               dict(threshold_mode="abs", threshold=0.05, patience=0, eps=1e-3)):
        ours_opt, theirs_opt = make_opt(BASES), _torch_opt(torch, BASES)
        ours, theirs = L.ReduceLROnPlateau(ours_opt, **kw), TL.ReduceLROnPlateau(theirs_opt, **kw)
        for m in metrics:
            ours.step(m)
            theirs.step(m)
            assert lrs_of(ours_opt) == pytest.approx(lrs_of(theirs_opt), rel=REL)
            assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=REL)
        assert ours.state_dict() == theirs.state_dict()


@requires_torch
@pytest.mark.parametrize("name", ["step", "cyclic_tri2", "one_cycle", "sequential", "chained", "lambda", "warm_restarts"])
def test_state_dicts_cross_load_with_pytorch(name):
    """A scheduler state saved by either library continues the same schedule in the other."""
    import torch
    import torch.optim.lr_scheduler as TL

    build = PARITY[name]
    ours_opt, theirs_opt = make_opt(BASES), _torch_opt(torch, BASES)
    ours, theirs = build(L, ours_opt), build(TL, theirs_opt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(7):
            ours_opt.step(), theirs_opt.step(), ours.step(), theirs.step()
    their_state, our_state = theirs.state_dict(), ours.state_dict()
    assert_seq([[v] for v in our_state["_last_lr"]] if "_last_lr" in our_state else [],
               [[v] for v in their_state["_last_lr"]] if "_last_lr" in their_state else [])
    # swap: our scheduler continues from PyTorch's state and the other way round
    ours.load_state_dict(copy.deepcopy(their_state))
    theirs.load_state_dict(copy.deepcopy(our_state))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(10):
            ours_opt.step(), theirs_opt.step(), ours.step(), theirs.step()
            assert lrs_of(ours_opt) == pytest.approx(lrs_of(theirs_opt), rel=REL)


@requires_torch
def test_signatures_match_pytorch():
    import inspect

    import torch.optim.lr_scheduler as TL

    for name in TL.__all__:
        ours = inspect.signature(getattr(L, name))
        theirs = inspect.signature(getattr(TL, name))
        assert list(ours.parameters) == list(theirs.parameters), name
        for pname, p in ours.parameters.items():
            assert p.default == theirs.parameters[pname].default, (name, pname)


@requires_torch
@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_training_with_a_momentum_cycling_schedule_matches_pytorch(kind):
    """Least squares trained with OneCycleLR (SGD momentum / Adam beta1 cycling) then SWALR:
    the weights follow PyTorch's step for step."""
    import torch
    import torch.optim.lr_scheduler as TL
    import torch.optim.swa_utils as TS

    from torchlike.optim import swa_utils as S

    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 3))
    y = x @ np.array([1.5, -2.0, 0.25]) + 0.1 * rng.standard_normal(32)
    w0 = rng.standard_normal(3)

    def setup(lib, optim, sched_mod, swa_mod):
        w = lib.tensor(w0.copy(), requires_grad=True)
        opt = optim.SGD([w], lr=0.01, momentum=0.9) if kind == "sgd" else optim.Adam([w], lr=0.01)
        return w, opt, sched_mod.OneCycleLR(opt, max_lr=0.2, total_steps=25), swa_mod

    sides = [setup(torchlike, torchlike.optim, L, S) + (torchlike,), setup(torch, torch.optim, TL, TS) + (torch,)]
    swalrs = [None, None]
    for step in range(40):
        for i, (w, opt, sched, swa_mod, lib) in enumerate(sides):
            opt.zero_grad()
            loss = ((lib.tensor(x) @ w - lib.tensor(y)) ** 2).mean()
            loss.backward()
            opt.step()
            if step < 24:
                sched.step()
            else:
                if swalrs[i] is None:
                    swalrs[i] = swa_mod.SWALR(opt, swa_lr=0.01, anneal_epochs=5)
                swalrs[i].step()
        ours_w, theirs_w = sides[0][0], sides[1][0]
        np.testing.assert_allclose(np.array(ours_w.detach().tolist()), theirs_w.detach().numpy(), rtol=1e-9, atol=1e-12)


@requires_torch
def test_tensor_lrs_match_pytorch():
    """A tensor lr stays the same tensor object, filled in place, on both sides."""
    import torch
    import torch.optim.lr_scheduler as TL

    builds = [lambda M, o: M.OneCycleLR(o, 0.1, total_steps=10), lambda M, o: M.CyclicLR(o, 0.01, 0.1, 2),
              lambda M, o: M.CosineAnnealingLR(o, 5), lambda M, o: M.LambdaLR(o, lambda e: 0.5**e),
              lambda M, o: M.ReduceLROnPlateau(o, patience=0)]
    for build in builds:
        sides = []
        for lib, optim, mod in ((torchlike, torchlike.optim, L), (torch, torch.optim, TL)):
            opt = optim.SGD([lib.zeros(1, requires_grad=True)], lr=lib.tensor(0.1), momentum=0.9)
            held = opt.param_groups[0]["lr"]
            sched = build(mod, opt)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for _ in range(3):
                    opt.step()
                    sched.step(1.0) if isinstance(sched, mod.ReduceLROnPlateau) else sched.step()
            group = opt.param_groups[0]
            assert group["lr"] is held
            sides.append((float(group["lr"]), [float(v) for v in sched.get_last_lr()],
                          [float(v) for v in getattr(sched, "base_lrs", [])], type(group.get("initial_lr")).__name__))
        assert sides[0][0] == pytest.approx(sides[1][0], rel=1e-6)
        assert sides[0][1] == pytest.approx(sides[1][1], rel=1e-6)
        assert sides[0][2] == pytest.approx(sides[1][2], rel=1e-6)
        assert sides[0][3] == sides[1][3]
