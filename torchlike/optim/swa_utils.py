"""Weight averaging for torchlike models (the ``torch.optim.swa_utils`` surface).

``AveragedModel`` keeps a copy of a model whose weights are a running average of the live
model's: the equal-weight average of Stochastic Weight Averaging (SWA) by default, or an
exponential moving average (EMA) with ``get_ema_multi_avg_fn``.  ``SWALR`` anneals each param
group's lr to a constant SWA lr, and ``update_bn`` recomputes BatchNorm statistics for the
averaged weights with one pass over the data.
"""

import importlib
import itertools
import math
from copy import deepcopy

import torchlike

from .._tensor import Tensor
from ..nn import Module
from .lr_scheduler import LRScheduler, _per_group, _require_optimizer, _warn_if_outside_step

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _is_float_like(t):
    return t.is_floating_point() or t.is_complex()


def _multi_kernel(name):
    """torchlike's multi-tensor kernel ``name`` when this build has it (else None)."""
    return getattr(torchlike, name, None)


def get_ema_multi_avg_fn(decay=0.999):
    """An ``AveragedModel`` multi-tensor update for an exponential moving average:
    ``ema = decay * ema + (1 - decay) * current``, over a list of tensors at once."""
    _check_decay(decay)
    weight = 1 - decay

    def ema_update(ema_param_list, current_param_list, _):
        floats = [(e, c) for e, c in zip(ema_param_list, current_param_list) if _is_float_like(e)]
        others = [(e, c) for e, c in zip(ema_param_list, current_param_list) if not _is_float_like(e)]
        if floats:
            ema_side, cur_side = [e for e, _ in floats], [c for _, c in floats]
            lerp_all = _multi_kernel("_foreach_lerp_")
            if lerp_all is not None:
                lerp_all(ema_side, cur_side, weight)
            else:
                for e, c in zip(ema_side, cur_side):
                    e.lerp_(c, weight)
        # integer buffers (e.g. BatchNorm's num_batches_tracked) cannot lerp; blend and truncate
        for e, c in others:
            e.copy_(e * decay + c * weight)

    return ema_update


def get_swa_multi_avg_fn():
    """An ``AveragedModel`` multi-tensor update for the equal-weight (SWA) running mean:
    ``avg += (current - avg) / (n + 1)``."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if not averaged_param_list:
            return
        if isinstance(num_averaged, Tensor) and num_averaged.device.type != "cpu":
            # keep an accelerator-resident count there (reading it would synchronize)
            sub_all = _multi_kernel("_foreach_sub")
            if sub_all is not None:
                gaps = sub_all(current_param_list, averaged_param_list)
            else:
                gaps = [c - a for a, c in zip(averaged_param_list, current_param_list)]
            count = num_averaged + 1
            for a, g in zip(averaged_param_list, gaps):
                a.addcdiv_(g, count)
            return
        # avg + (cur - avg) / (n + 1) is a lerp towards cur: one in-place pass, no temporaries
        share = 1.0 / (int(num_averaged) + 1)
        lerp_all = _multi_kernel("_foreach_lerp_")
        if lerp_all is not None:
            lerp_all(averaged_param_list, current_param_list, share)
        else:
            for a, c in zip(averaged_param_list, current_param_list):
                a.lerp_(c, share)

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """A per-tensor ``avg_fn`` returning ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    keep, take = decay, 1 - decay

    def ema_update(averaged, current, n):
        return keep * averaged + take * current

    return ema_update


def get_swa_avg_fn():
    """A per-tensor ``avg_fn`` returning the running mean after one more sample."""

    def swa_update(averaged, current, n):
        gap = current - averaged
        return averaged + gap / (n + 1)

    return swa_update


class AveragedModel(Module):
    r"""A copy of ``model`` whose parameters are averaged by :meth:`update_parameters`.

    Args:
        model (Module): the model to average; it is deep-copied.
        device: where to keep the averaged copy (default: where ``model`` is).
        avg_fn: per-tensor update ``avg_fn(averaged, current, num_averaged) -> new averaged``.
        multi_avg_fn: in-place update over lists of tensors
            ``multi_avg_fn(averaged_list, current_list, num_averaged)``; at most one of the two.
            Without either, parameters get the equal-weight SWA mean.
        use_buffers (bool): average buffers along with the parameters (True) or copy the live
            model's buffers as they are (False, the default; then run :func:`update_bn`).
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torchlike.tensor(0, dtype=torchlike.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Run the averaged copy."""
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, module):
        if self.use_buffers:
            return list(itertools.chain(module.parameters(), module.buffers()))
        return list(module.parameters())

    def update_parameters(self, model):
        """Fold the current weights of ``model`` into the average."""
        targets = [t.detach() for t in self._averaged_tensors(self.module)]
        sources = [s.detach().to(t.device) for t, s in zip(targets, self._averaged_tensors(model))]
        if int(self.n_averaged) == 0:
            # the first sample is the average
            for t, s in zip(targets, sources):
                t.copy_(s)
        else:
            self._fold_in(targets, sources)
        if not self.use_buffers:
            # unaveraged buffers simply follow the live model
            for mine, live in zip(self.module.buffers(), model.buffers()):
                mine.detach().copy_(live.detach().to(mine.device))
        self.n_averaged.add_(1)

    def _fold_in(self, targets, sources):
        if self.avg_fn is not None:
            for t, s in zip(targets, sources):
                t.copy_(self.avg_fn(t, s, self.n_averaged.to(t.device)))
            return
        # one list update per (device, dtype), as the multi-tensor kernels require
        buckets = {}
        for t, s in zip(targets, sources):
            bucket = buckets.setdefault((str(t.device), t.dtype), ([], []))
            bucket[0].append(t)
            bucket[1].append(s)
        for (device, _), (ts, ss) in buckets.items():
            count = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(ts, ss, count)
            elif _is_float_like(ts[0]):
                get_swa_multi_avg_fn()(ts, ss, count)
            else:
                # integer buffers: the mean truncated back to the buffer's dtype
                mean_of = get_swa_avg_fn()
                for t, s in zip(ts, ss):
                    t.copy_(mean_of(t, s, count))


def _batch_norm_types():
    """The BatchNorm module classes of torchlike.nn (their common base when it has one)."""
    try:
        layers = importlib.import_module("torchlike.nn.modules.batchnorm")
    except ImportError:
        layers = None
    base = getattr(layers, "_BatchNorm", None)
    if isinstance(base, type):
        return (base,)
    from .. import nn

    names = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm",
             "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d")
    return tuple(cls for cls in (getattr(nn, n, None) for n in names) if isinstance(cls, type))


def update_bn(loader, model, device=None):
    r"""Recompute the running statistics of every BatchNorm layer in ``model``.

    The statistics are reset and then accumulated as an equal-weight average over one pass
    through ``loader`` (momentum ``None``), which is what the averaged weights of an
    :class:`AveragedModel` need.  A batch that is a list or tuple contributes its first
    element.  The model's training mode and the layers' momenta are restored afterwards.

    Args:
        loader: an iterable of input batches (for example a ``DataLoader``).
        model (Module): the model whose BatchNorm layers are updated.
        device: if given, each batch is moved there first.
    """
    bn_types = _batch_norm_types()
    momenta = {}
    for layer in model.modules():
        if bn_types and isinstance(layer, bn_types):
            layer.reset_running_stats()
            momenta[layer] = layer.momentum
    if len(momenta) == 0:
        return

    mode_before = model.training
    model.train(True)
    for layer in momenta:
        layer.momentum = None
    try:
        with torchlike.no_grad():
            for batch in loader:
                if isinstance(batch, (list, tuple)):
                    batch = batch[0]
                if device is not None:
                    batch = batch.to(device)
                model(batch)
    finally:
        for layer, momentum in momenta.items():
            layer.momentum = momentum
        model.train(mode_before)


def _cosine_anneal(t):
    return (1 - math.cos(math.pi * t)) / 2


def _linear_anneal(t):
    return t


def _clamp_unit(x):
    return max(0.0, min(1.0, x))


class SWALR(LRScheduler):
    r"""Anneal each param group's lr to its ``swa_lr`` over ``anneal_epochs`` epochs (cosine
    or linear), then hold it there; the usual companion of :class:`AveragedModel`.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        swa_lr (float or list): the lr to anneal to, one value or one per param group.
        anneal_epochs (int): epochs of the annealing phase (0: jump straight to ``swa_lr``).
        anneal_strategy (str): ``"cos"`` or ``"linear"``.
        last_epoch (int): index of the last epoch.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        _require_optimizer(optimizer)
        for group, target in zip(optimizer.param_groups, _per_group("swa_lr", optimizer, swa_lr)):
            group["swa_lr"] = target
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t):
        return _cosine_anneal(t) if self._anneal_strategy == "cos" else _linear_anneal(t)

    def get_lr(self):
        _warn_if_outside_step(self)
        # progress counts this scheduler's own steps; with no annealing the first one already
        # lands on swa_lr
        done = self._step_count - 1
        if self.anneal_epochs == 0:
            done = max(1, done)
        span = max(1, self.anneal_epochs)
        mix_before = self._anneal(_clamp_unit((done - 1) / span))
        mix_now = self._anneal(_clamp_unit(done / span))
        new_lrs = []
        for group in self.optimizer.param_groups:
            lr, target = group["lr"], group["swa_lr"]
            # undo last step's blend to recover the lr the annealing started from (another
            # scheduler may have changed it in between)
            if mix_before == 1:
                origin = target
            else:
                origin = (lr - mix_before * target) / (1 - mix_before)
            new_lrs.append(target * mix_now + origin * (1 - mix_now))
        return new_lrs
