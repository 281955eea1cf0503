"""Learning-rate schedules for torchlike optimizers (the ``torch.optim.lr_scheduler`` surface).

A scheduler owns no learning rate of its own: it rewrites ``group["lr"]`` of every parameter
group of its optimizer each time ``step()`` is called.  Most schedules are written in a
*chainable* form (new lr = current lr x factor), so several schedulers may drive one optimizer
and their effects compose; the closed forms (``_get_closed_form_lr``) are used only when a
caller passes the deprecated explicit ``epoch`` to ``step``.

The public behaviour (arguments, defaults, warnings, error texts and the ``state_dict`` layout)
follows PyTorch 2.13 so that a state saved by either library loads in the other; the code
itself is written for torchlike.
"""

import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import update_wrapper

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
]

inf = math.inf

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_ORDER_DOC_URL = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


# --------------------------------------------------------------------------------------------
# helpers shared by the schedulers


def _require_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _per_group(name, optimizer, value):
    """One value per param group: a list/tuple is checked for length, a scalar is repeated."""
    n_groups = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n_groups:
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(value)} values, param_groups has {n_groups}."
            )
        return list(value)
    return [value] * n_groups


def _snapshot(lr):
    # A tensor lr is updated in place by the scheduler, so anything remembered must be a copy.
    return lr.clone() if isinstance(lr, Tensor) else lr


def _write_lr(group, value):
    current = group["lr"]
    if isinstance(current, Tensor):
        # keep the tensor object the optimizer (and maybe a compiled step) holds
        current.fill_(value.item() if isinstance(value, Tensor) else value)
    else:
        group["lr"] = value


class _StepObserver:
    """Stands in for ``optimizer.step`` and records on the optimizer that it has run.

    The first ``scheduler.step()`` uses the mark to warn about the old calling order
    (scheduler before optimizer), which silently skips the first value of a schedule.
    The optimizer is held weakly so the observer does not keep it alive.
    """

    _wrapped_by_lr_sched = True

    def __init__(self, optimizer, step):
        self._optimizer_ref = weakref.ref(optimizer)
        if getattr(step, "__self__", None) is optimizer:
            # a bound method would hold the optimizer strongly: keep its function instead
            self._function, self._callable = step.__func__, None
        else:
            # step was already replaced by some other callable: call that as it is
            self._function, self._callable = None, step
        update_wrapper(self, step)

    def __call__(self, *args, **kwargs):
        opt = self._optimizer_ref()
        if opt is not None:
            opt._opt_called = True
        if self._callable is not None:
            return self._callable(*args, **kwargs)
        return self._function(opt, *args, **kwargs)


def _observe_optimizer_step(optimizer):
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False):
        return  # another scheduler on this optimizer already installed one
    optimizer.step = _StepObserver(optimizer, optimizer.step)


class _InsideStep:
    """Marks the span of ``step()`` during which calling ``get_lr`` is legitimate."""

    __slots__ = ("sched",)

    def __init__(self, sched):
        self.sched = sched

    def __enter__(self):
        self.sched._get_lr_called_within_step = True
        return self.sched

    def __exit__(self, *exc):
        self.sched._get_lr_called_within_step = False
        return False


def _warn_if_outside_step(sched):
    if not sched._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=3,
        )


# --------------------------------------------------------------------------------------------
# the base class


class LRScheduler:
    r"""Base class of the epoch/iteration based learning-rate schedulers.

    Subclasses implement :meth:`get_lr` (the chainable update, reading ``group["lr"]``) and,
    where a schedule has one, ``_get_closed_form_lr`` (the value as a function of
    ``last_epoch`` and ``base_lrs`` only).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        last_epoch (int): index of the last epoch; -1 starts a fresh schedule, anything else
            resumes one and then requires ``initial_lr`` in every param group.
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:
                group.setdefault("initial_lr", _snapshot(group["lr"]))
        else:
            for index, group in enumerate(groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{index}] when resuming "
                        "scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't properly "
                        "loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs = [_snapshot(group["initial_lr"]) for group in groups]
        self.last_epoch = last_epoch
        _observe_optimizer_step(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Bring the optimizer to the schedule's value at ``last_epoch + 1``.

        ``_is_initial`` lets chainable schedules leave a resumed lr alone on this first step.
        """
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Everything but the optimizer (whose own state_dict holds the param groups)."""
        state = dict(self.__dict__)
        state.pop("optimizer", None)
        return state

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates this scheduler set last, one per param group."""
        return self._last_lr

    def get_lr(self):
        """The chainable update for the current ``last_epoch``; subclasses define it."""
        raise NotImplementedError

    def _warn_about_call_order(self):
        step = self.optimizer.step
        if not getattr(step, "_wrapped_by_lr_sched", False):
            warnings.warn(
                "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                "initialization. Please, make sure to call `optimizer.step()` before "
                f"`lr_scheduler.step()`. See more details at {_ORDER_DOC_URL}",
                UserWarning,
                stacklevel=3,
            )
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: `optimizer.step()` "
                "before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping "
                f"the first value of the learning rate schedule. See more details at {_ORDER_DOC_URL}",
                UserWarning,
                stacklevel=3,
            )

    def step(self, epoch=None):
        """Advance the schedule by one epoch (or, deprecated, jump to ``epoch``)."""
        if self._step_count == 1:
            # the first call after construction: the optimizer should have stepped by now
            self._warn_about_call_order()
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """Move to the next epoch (chainable form) or to ``epoch`` (closed form where one exists).

        No bookkeeping of calls and no warnings: SequentialLR uses this to restart a child at 0.
        """
        with _InsideStep(self):
            if epoch is None:
                self.last_epoch += 1
                new_lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                new_lrs = closed_form() if closed_form is not None else self.get_lr()
        self._apply_lrs(new_lrs)

    def _apply_lrs(self, new_lrs):
        groups = self.optimizer.param_groups
        for group, value in zip(groups, new_lrs):
            _write_lr(group, value)
        self._last_lr = [_snapshot(group["lr"]) for group in groups]

    def _group_lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]


class _LRScheduler(LRScheduler):
    """The pre-2.0 name of :class:`LRScheduler`; older training code still subclasses it."""


# --------------------------------------------------------------------------------------------
# schedules driven by user functions


class _UserFunctionsMixin:
    """state_dict handling for schedules holding one callable per param group.

    Plain functions and lambdas cannot be saved, so they are stored as ``None``; a callable
    object is saved as a copy of its ``__dict__`` and restored into the live object on load.
    """

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else dict(fn.__dict__) for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict):
        saved_fns = state_dict.pop("lr_lambdas")
        try:
            self.__dict__.update(state_dict)
        finally:
            state_dict["lr_lambdas"] = saved_fns  # leave the caller's dict as it was
        for fn, attrs in zip(self.lr_lambdas, saved_fns):
            if attrs is not None:
                fn.__dict__.update(attrs)


def _callables_per_group(optimizer, lr_lambda):
    n_groups = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n_groups:
            raise ValueError(f"Expected {n_groups} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * n_groups


class LambdaLR(_UserFunctionsMixin, LRScheduler):
    """lr = initial lr x ``lr_lambda(epoch)`` (one function, or one per param group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _callables_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        epoch = self.last_epoch
        return [base * fn(epoch) for base, fn in zip(self.base_lrs, self.lr_lambdas)]


class MultiplicativeLR(_UserFunctionsMixin, LRScheduler):
    """Each step multiplies the current lr by ``lr_lambda(epoch)``."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _callables_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        if self._is_initial:
            return current
        epoch = self.last_epoch
        return [lr * fn(epoch) for lr, fn in zip(current, self.lr_lambdas)]


# --------------------------------------------------------------------------------------------
# decays


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        at_boundary = self.last_epoch != 0 and self.last_epoch % self.step_size == 0
        return [lr * self.gamma for lr in current] if at_boundary else current

    def _get_closed_form_lr(self):
        decays = self.last_epoch // self.step_size
        return [base * self.gamma**decays for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each milestone (a repeated milestone counts repeatedly)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        hits = self.milestones.get(self.last_epoch, 0)
        if not hits:
            return current
        factor = self.gamma**hits
        return [lr * factor for lr in current]

    def _get_closed_form_lr(self):
        passed = sorted(self.milestones.elements())
        factor = self.gamma ** bisect_right(passed, self.last_epoch)
        return [base * factor for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the lr by ``factor`` until epoch ``total_iters``, then restore it."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1.0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in current]
        if self.last_epoch == self.total_iters:
            undo = 1.0 / self.factor
            return [lr * undo for lr in current]
        return current

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        scale = 1.0 if done else self.factor
        return [base * scale for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Ramp the lr factor linearly from ``start_factor`` to ``end_factor`` over ``total_iters``."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if not 0 < start_factor <= 1.0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if not 0 <= end_factor <= 1.0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        epoch = self.last_epoch
        if epoch == 0:
            return [lr * self.start_factor for lr in current]
        if self._is_initial or epoch > self.total_iters:
            return current
        # factor(e) is proportional to total_iters*start + e*(end - start); step by its ratio
        slope = self.end_factor - self.start_factor
        offset = self.total_iters * self.start_factor
        ratio = 1.0 + slope / (offset + (epoch - 1) * slope)
        return [lr * ratio for lr in current]

    def _get_closed_form_lr(self):
        progress = min(self.total_iters, self.last_epoch) / self.total_iters
        factor = self.start_factor + (self.end_factor - self.start_factor) * progress
        return [base * factor for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        if self.last_epoch == 0 or self._is_initial:
            return current
        return [lr * self.gamma for lr in current]

    def _get_closed_form_lr(self):
        factor = self.gamma**self.last_epoch
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the lr as ``(1 - epoch / total_iters) ** power`` until ``total_iters``."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        epoch, horizon = self.last_epoch, self.total_iters
        if epoch == 0 or self._is_initial or epoch > horizon:
            return current
        remaining_now = 1.0 - epoch / horizon
        remaining_before = 1.0 - (epoch - 1) / horizon
        ratio = (remaining_now / remaining_before) ** self.power
        return [lr * ratio for lr in current]

    def _get_closed_form_lr(self):
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        factor = remaining**self.power
        return [base * factor for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from the initial lr to ``eta_min`` over ``T_max`` epochs (SGDR without
    restarts); past ``T_max`` the chainable form keeps following the cosine back up."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def _cosine_value(self, base, epoch):
        return self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * epoch / self.T_max)) / 2

    def get_lr(self):
        _warn_if_outside_step(self)
        current = self._group_lrs()
        epoch, period, floor_lr = self.last_epoch, self.T_max, self.eta_min
        if epoch == 0 or self._is_initial:
            return current
        if self._step_count == 1:
            # first step of a scheduler whose counter was reset: nothing to chain from
            return [self._cosine_value(base, epoch) for base in self.base_lrs]
        if (epoch - 1 - period) % (2 * period) == 0:
            # leaving the trough: the ratio form would divide by zero, add the increment instead
            lift = (1 - math.cos(math.pi / period)) / 2
            return [lr + (base - floor_lr) * lift for lr, base in zip(current, self.base_lrs)]
        now = 1 + math.cos(math.pi * epoch / period)
        before = 1 + math.cos(math.pi * (epoch - 1) / period)
        return [floor_lr + (lr - floor_lr) * now / before for lr in current]

    def _get_closed_form_lr(self):
        return [self._cosine_value(base, self.last_epoch) for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing with warm restarts (SGDR): the period starts at ``T_0`` epochs and is
    multiplied by ``T_mult`` after each restart.  ``step`` accepts fractional epochs, so it can be
    called once per batch with ``epoch + batch / n_batches``."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        phase = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (base - self.eta_min) * phase for base in self.base_lrs]

    def _locate(self, epoch):
        """Set T_i and T_cur for an absolute (possibly fractional) epoch."""
        first, growth = self.T_0, self.T_mult
        if epoch < first:
            self.T_i, self.T_cur = first, epoch
        elif growth == 1:
            self.T_i, self.T_cur = first, epoch % first
        else:
            # restarts happen at first * (growth**n - 1) / (growth - 1); find the last one passed
            cycles = int(math.log(epoch / first * (growth - 1) + 1, growth))
            self.T_cur = epoch - first * (growth**cycles - 1) / (growth - 1)
            self.T_i = first * growth**cycles

    def step(self, epoch=None):
        """Advance one epoch, or (no deprecation here) jump to the fractional ``epoch``."""
        if epoch is not None:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self._locate(epoch)
        elif self.last_epoch < 0:
            epoch = 0  # the construction step of a fresh schedule
            self._locate(epoch)
        else:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                # wrap into the period (several periods at once when resuming with last_epoch);
                # the next period grows once, as PyTorch's does
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        self.last_epoch = math.floor(epoch)
        with _InsideStep(self):
            new_lrs = self.get_lr()
        self._apply_lrs(new_lrs)


# --------------------------------------------------------------------------------------------
# composition


def _check_same_optimizer(kind, schedulers, optimizer):
    for index, sched in enumerate(schedulers):
        if not hasattr(sched, "optimizer"):
            raise TypeError(f"{kind} at index {index} should have `optimizer` as its attribute.")
        if isinstance(sched, ReduceLROnPlateau):
            raise ValueError(
                f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                "kwargs to be specified when calling `step`, but got one at index "
                f"{index} in the given schedulers sequence."
            )
        if sched.optimizer is not optimizer:
            raise ValueError(
                f"{kind} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(sched).__name__} at index {index} has {sched.optimizer}, "
                f"which is different from {type(optimizer).__name__}."
            )


class _CompositeStateMixin:
    """state_dict for schedulers made of other schedulers: the children are saved by state."""

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [child.state_dict() for child in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        children = state_dict.pop("_schedulers")
        try:
            self.__dict__.update(state_dict)
        finally:
            state_dict["_schedulers"] = children
        for child, child_state in zip(self._schedulers, children):
            child.load_state_dict(child_state)


def _restart(sched):
    """Put a SequentialLR child at epoch 0 when its milestone is reached.

    A plain schedule jumps there by its closed form (the initial lr times its epoch-0 factor).
    A composite one (a ChainedScheduler) starts again from the initial lrs and lets each of its
    members take its chainable epoch-0 step, so their factors compose as they did at the start.
    """
    members = getattr(sched, "_schedulers", None)
    if members is None:
        sched._update_lr(0)
        return
    for group in sched.optimizer.param_groups:
        _write_lr(group, group["initial_lr"])
    _rewind_to_start(sched)
    sched._last_lr = [_snapshot(lr) for lr in sched._group_lrs()]


def _rewind_to_start(sched):
    members = getattr(sched, "_schedulers", None)
    if members is not None:
        for member in members:
            _rewind_to_start(member)
        return
    sched.last_epoch = -1
    sched._update_lr()


class SequentialLR(_CompositeStateMixin, LRScheduler):
    """Run ``schedulers[i]`` between ``milestones[i-1]`` and ``milestones[i]``; each one after the
    first is restarted from epoch 0 when its milestone is reached."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_same_optimizer(type(self).__name__, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the "
                f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                f"number of milestones to be equal to {len(milestones)}"
            )
        _require_optimizer(optimizer)
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer

        # Each child already took its initial step when it was built; rewind them all and let
        # only the first one act, so epoch 0 is the first schedule's value alone.
        for group in optimizer.param_groups:
            _write_lr(group, group["initial_lr"])
        self.recursive_undo()
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    def recursive_undo(self, sched=None):
        """Step every (possibly nested) child back by one epoch."""
        target = self if sched is None else sched
        children = getattr(target, "_schedulers", None)
        if children is not None:
            for child in children:
                self.recursive_undo(child)
        elif hasattr(target, "last_epoch"):
            target.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        which = bisect_right(self._milestones, self.last_epoch)
        active = self._schedulers[which]
        if which > 0 and self._milestones[which - 1] == self.last_epoch:
            _restart(active)
        else:
            active.step()
        self._last_lr = active.get_last_lr()


class ChainedScheduler(_CompositeStateMixin, LRScheduler):
    """Step several schedulers of one optimizer together, so their chainable updates compose."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got no scheduler."
            )
        if optimizer is None:
            optimizer = getattr(schedulers[0], "optimizer", None)
        _check_same_optimizer(type(self).__name__, schedulers, optimizer)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [_snapshot(lr) for lr in self._group_lrs()]

    def step(self):
        for sched in self._schedulers:
            sched.step()
        self._last_lr = [_snapshot(lr) for lr in self._group_lrs()]


# --------------------------------------------------------------------------------------------
# metric driven


class ReduceLROnPlateau(LRScheduler):
    """Divide the lr by ``1/factor`` once a monitored metric stops improving for ``patience``
    epochs (then wait ``cooldown`` epochs before counting again)."""

    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
    ):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _require_optimizer(optimizer)
        self.optimizer = optimizer
        n_groups = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n_groups:
                raise ValueError(f"expected {n_groups} min_lrs, got {len(min_lr)}")
            # explicit per-group floors cannot be extended when groups are added later
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n_groups
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = [_snapshot(lr) for lr in self._group_lrs()]
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        value = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch

        if self._is_better(value, self.best):
            self.best = value
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # epochs during cooldown never count as bad
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [_snapshot(lr) for lr in self._group_lrs()]

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                    "param group being added to the optimizer. Please modify the `min_lrs` field to "
                    "match the length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor_lr in zip(groups, self.min_lrs):
            before = float(group["lr"])
            after = max(before * self.factor, floor_lr)
            # ignore reductions too small to matter (and do not creep below min_lr)
            if before - after > self.eps:
                _write_lr(group, after)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        rel = self.threshold_mode == "rel"
        if self.mode == "min":
            bar = best * (1.0 - self.threshold) if rel else best - self.threshold
            return a < bar
        bar = best * (self.threshold + 1.0) if rel else best + self.threshold
        return a > bar

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.mode_worse = inf if mode == "min" else -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


# --------------------------------------------------------------------------------------------
# cyclical schedules (they may also cycle momentum / Adam's beta1)


def _momentum_support(optimizer):
    """Whether the optimizer exposes ``momentum`` (False) or Adam-style ``betas`` (True)."""
    defaults = optimizer.defaults
    if "momentum" not in defaults and "betas" not in defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in defaults


def _write_momentum(group, value, use_beta1):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class CyclicLR(LRScheduler):
    r"""Cyclical learning rate (Smith, 2017): the lr oscillates between ``base_lr`` and
    ``max_lr`` with ``step_size_up`` rising and ``step_size_down`` falling iterations; momentum
    moves the opposite way between ``max_momentum`` and ``base_momentum``.  Call ``step`` after
    every batch."""

    def __init__(
        self,
        optimizer,
        base_lr,
        max_lr,
        step_size_up=2000,
        step_size_down=None,
        mode="triangular",
        gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        cycle_momentum=True,
        base_momentum=0.8,
        max_momentum=0.9,
        last_epoch=-1,
    ):
        _require_optimizer(optimizer)
        low_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, low_lrs):
                _write_lr(group, lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)

        rise = float(step_size_up)
        fall = float(step_size_down) if step_size_down is not None else rise
        self.total_size = rise + fall
        self.step_ratio = rise / self.total_size

        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        if scale_fn is None:
            # the built-in shapes decide whether they count cycles or iterations
            scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.scale_mode = scale_mode

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_support(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for group, high, low in zip(optimizer.param_groups, self.max_momentums, self.base_momentums):
                    _write_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low

        super().__init__(optimizer, last_epoch)
        self.base_lrs = low_lrs

    def scale_fn(self, x):
        """Amplitude multiplier at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self):
        _warn_if_outside_step(self)
        position = self.last_epoch / self.total_size
        cycle = math.floor(1 + position)
        within = 1.0 + position - cycle  # fraction of the current cycle, in [0, 1)
        if within <= self.step_ratio:
            height = within / self.step_ratio
        else:
            height = (within - 1) / (self.step_ratio - 1)
        amplitude = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)

        new_lrs = [low + (high - low) * height * amplitude for low, high in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _write_momentum(group, high - (high - low) * height * amplitude, self.use_beta1)
        return new_lrs

    def state_dict(self):
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        custom = state.pop("_scale_fn_custom")
        # like the lambdas of LambdaLR: a callable object's attributes are saved, a function is not
        saved = None
        if custom is not None and not isinstance(custom, types.FunctionType):
            saved = dict(custom.__dict__)
        state["_scale_fn_custom"] = saved
        return state

    def load_state_dict(self, state_dict):
        # the live callable stays; the saved entry only holds a callable object's attributes
        saved = state_dict.pop("_scale_fn_custom", None)
        try:
            super().load_state_dict(state_dict)
        finally:
            state_dict["_scale_fn_custom"] = saved
        if saved is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(saved)


class OneCycleLR(LRScheduler):
    r"""The 1cycle policy (Smith & Topin, 2018): warm up from ``max_lr / div_factor`` to ``max_lr``
    over ``pct_start`` of the run, then anneal to ``initial_lr / final_div_factor`` (with
    ``three_phase`` the warm-up is mirrored before the final anneal).  Momentum cycles inversely
    between ``max_momentum`` and ``base_momentum``.  Call ``step`` after every batch."""

    def __init__(
        self,
        optimizer,
        max_lr,
        total_steps=None,
        epochs=None,
        steps_per_epoch=None,
        pct_start=0.3,
        anneal_strategy="cos",
        cycle_momentum=True,
        base_momentum=0.85,
        max_momentum=0.95,
        div_factor=25.0,
        final_div_factor=1e4,
        three_phase=False,
        last_epoch=-1,
    ):
        _require_optimizer(optimizer)
        self.optimizer = optimizer

        if total_steps is not None:
            _check_positive_int("total_steps", total_steps)
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            _check_positive_int("epochs", epochs)
            _check_positive_int("steps_per_epoch", steps_per_epoch)
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        self._schedule_phases = _one_cycle_phases(self.total_steps, pct_start, three_phase)

        peaks = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, peak in zip(optimizer.param_groups, peaks):
                start = peak / div_factor
                group["initial_lr"] = start
                group["max_lr"] = peak
                group["min_lr"] = start / final_div_factor

        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_support(optimizer)
            highs = _per_group("max_momentum", optimizer, max_momentum)
            lows = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, high, low in zip(optimizer.param_groups, highs, lows):
                    _write_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low

        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return start + (end - start) * pct

    def get_lr(self):
        _warn_if_outside_step(self)
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total steps is {self.total_steps}")

        # the phase containing step_num (the last phase also takes anything beyond its end)
        phases = self._schedule_phases
        begin = 0
        for index, phase in enumerate(phases):
            if step_num <= phase["end_step"] or index == len(phases) - 1:
                break
            begin = phase["end_step"]
        pct = (step_num - begin) / (phase["end_step"] - begin)

        new_lrs = []
        for group in self.optimizer.param_groups:
            new_lrs.append(self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                momentum = self._anneal_func(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                _write_momentum(group, momentum, self.use_beta1)
        return new_lrs


def _check_positive_int(name, value):
    if not isinstance(value, int) or value <= 0:
        raise ValueError(f"Expected positive integer {name}, but got {value}")


def _one_cycle_phases(total_steps, pct_start, three_phase):
    """Phase table of OneCycleLR: each names the group keys it anneals between and its last step."""

    def phase(end_step, lr_from, lr_to, mom_from, mom_to):
        return {
            "end_step": end_step,
            "start_lr": lr_from,
            "end_lr": lr_to,
            "start_momentum": mom_from,
            "end_momentum": mom_to,
        }

    warmup_end = float(pct_start * total_steps) - 1
    last = total_steps - 1
    if not three_phase:
        return [
            phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
            phase(last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
        ]
    return [
        phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
        phase(float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
        phase(last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
    ]
