"""Loss modules. Each stores its options (and class weights as buffers, so they
follow .to()/.double() and appear in state_dict) and calls the matching
torchlike.nn.functional loss in forward."""
import math
import warnings

from torchlike.nn import functional as F
from torchlike.nn.modules.linear import Linear
from torchlike.nn.modules.distance import PairwiseDistance
from torchlike.nn.modules.module import Module

__all__ = ["L1Loss", "NLLLoss", "NLLLoss2d", "PoissonNLLLoss", "GaussianNLLLoss", "KLDivLoss", "MSELoss", "BCELoss",
           "BCEWithLogitsLoss", "HingeEmbeddingLoss", "MultiLabelMarginLoss", "SmoothL1Loss", "HuberLoss",
           "SoftMarginLoss", "CrossEntropyLoss", "MultiLabelSoftMarginLoss", "CosineEmbeddingLoss",
           "MarginRankingLoss", "MultiMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CTCLoss",
           "LinearCrossEntropyLoss"]


def _reduction_from_legacy(size_average, reduce):
    """Maps the deprecated size_average/reduce pair onto a reduction string.

    An unset flag counts as True; reduce=False wins (per-element losses), and
    otherwise size_average picks mean over sum. Either flag being given at all
    triggers PyTorch's deprecation warning and overrides `reduction`."""
    averaged = True if size_average is None else bool(size_average)
    reduced = True if reduce is None else bool(reduce)
    if not reduced:
        chosen = "none"
    else:
        chosen = "mean" if averaged else "sum"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{chosen}' instead.",
                  stacklevel=4)
    return chosen


class _Loss(Module):
    """Base of the losses: holds `reduction` ('none' | 'mean' | 'sum'), resolved
    from the legacy flags when those are passed.

    A subclass names its functional (`_loss_fn`) and the attributes handed to it
    as keywords besides `reduction` (`_loss_options`); its forward passes the
    input tensors to `_loss`."""

    _loss_fn = None
    _loss_options = ()

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        legacy_given = size_average is not None or reduce is not None
        self.reduction = _reduction_from_legacy(size_average, reduce) if legacy_given else reduction

    def _keep(self, **options):
        """Stores the loss's options as attributes (PyTorch's attribute names)."""
        for name, value in options.items():
            setattr(self, name, value)

    def _loss(self, *tensors):
        keywords = {name: getattr(self, name) for name in self._loss_options}
        return type(self)._loss_fn(*tensors, reduction=self.reduction, **keywords)


class _WeightedLoss(_Loss):
    """A loss with an optional per-class `weight`, kept as a buffer (None when unset)."""

    _loss_options = ("weight",)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean absolute error |x - y|."""

    _loss_fn = staticmethod(F.l1_loss)

    def forward(self, input, target):
        return self._loss(input, target)


class MSELoss(_Loss):
    """Mean squared error (x - y)^2."""

    _loss_fn = staticmethod(F.mse_loss)

    def forward(self, input, target):
        return self._loss(input, target)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of class indices under log-probabilities (N, C, ...)."""

    _loss_fn = staticmethod(F.nll_loss)
    _loss_options = ("weight", "ignore_index")

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self._keep(ignore_index=ignore_index)

    def forward(self, input, target):
        return self._loss(input, target)


class NLLLoss2d(NLLLoss):
    """Deprecated alias of NLLLoss (which already handles (N, C, H, W) inputs)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and "
                      "see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
                      FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class CrossEntropyLoss(_WeightedLoss):
    """log_softmax over the class dim followed by NLL; targets are class indices
    or class probabilities, optionally label-smoothed."""

    _loss_fn = staticmethod(F.cross_entropy)
    _loss_options = ("weight", "ignore_index", "label_smoothing")

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self._keep(ignore_index=ignore_index, label_smoothing=label_smoothing)

    def forward(self, input, target):
        return self._loss(input, target)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities."""

    _loss_fn = staticmethod(F.binary_cross_entropy)

    def forward(self, input, target):
        return self._loss(input, target)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid + binary cross entropy in one numerically stable step; pos_weight
    scales the positive term per class. Both weights are buffers."""

    _loss_fn = staticmethod(F.binary_cross_entropy_with_logits)
    _loss_options = ("weight", "pos_weight")

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        for name, tensor in (("weight", weight), ("pos_weight", pos_weight)):
            self.register_buffer(name, tensor)

    def forward(self, input, target):
        return self._loss(input, target)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of target from input (input in log space;
    target too when log_target)."""

    _loss_fn = staticmethod(F.kl_div)
    _loss_options = ("log_target",)

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self._keep(log_target=log_target)

    def forward(self, input, target):
        return self._loss(input, target)


class HuberLoss(_Loss):
    """Squared error within `delta`, linear (scaled by delta) beyond it."""

    _loss_fn = staticmethod(F.huber_loss)
    _loss_options = ("delta",)

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self._keep(delta=delta)

    def forward(self, input, target):
        return self._loss(input, target)


class SmoothL1Loss(_Loss):
    """0.5 (x - y)^2 / beta within `beta`, |x - y| - 0.5 beta beyond it."""

    _loss_fn = staticmethod(F.smooth_l1_loss)
    _loss_options = ("beta",)

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self._keep(beta=beta)

    def forward(self, input, target):
        return self._loss(input, target)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-y x)) for targets y in {-1, 1}."""

    _loss_fn = staticmethod(F.soft_margin_loss)

    def forward(self, input, target):
        return self._loss(input, target)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Per-class logistic loss averaged over classes, for multi-hot targets."""

    _loss_fn = staticmethod(F.multilabel_soft_margin_loss)

    def forward(self, input, target):
        return self._loss(input, target)


class MultiLabelMarginLoss(_Loss):
    """Multi-class hinge loss with a -1-terminated list of target classes per sample."""

    _loss_fn = staticmethod(F.multilabel_margin_loss)

    def forward(self, input, target):
        return self._loss(input, target)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss max(0, margin - x[y] + x[i])^p, p in {1, 2}."""

    _loss_fn = staticmethod(F.multi_margin_loss)
    _loss_options = ("p", "margin", "weight")

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.dim()}D "
                             "instead")
        self._keep(p=p, margin=margin)

    def forward(self, input, target):
        return self._loss(input, target)


class _PairMarginLoss(_Loss):
    """Margin losses over two inputs and a +-1 target."""

    _loss_options = ("margin",)

    def forward(self, input1, input2, target):
        return self._loss(input1, input2, target)


class MarginRankingLoss(_PairMarginLoss):
    """max(0, -y (x1 - x2) + margin)."""

    _loss_fn = staticmethod(F.margin_ranking_loss)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self._keep(margin=margin)


class CosineEmbeddingLoss(_PairMarginLoss):
    """1 - cos(x1, x2) for y = 1, max(0, cos(x1, x2) - margin) for y = -1."""

    _loss_fn = staticmethod(F.cosine_embedding_loss)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self._keep(margin=margin)


class HingeEmbeddingLoss(_Loss):
    """x for y = 1, max(0, margin - x) for y = -1."""

    _loss_fn = staticmethod(F.hinge_embedding_loss)
    _loss_options = ("margin",)

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self._keep(margin=margin)

    def forward(self, input, target):
        return self._loss(input, target)


def _check_positive_margin(owner, margin):
    if margin <= 0:
        raise ValueError(f"{owner}: expected margin to be greater than 0, got {margin} instead")


class _TripletLoss(_Loss):
    """Triplet losses: forward(anchor, positive, negative)."""

    def forward(self, anchor, positive, negative):
        return self._loss(anchor, positive, negative)


class TripletMarginLoss(_TripletLoss):
    """max(d(a, p) - d(a, n) + margin, 0) with the p-norm distance."""

    _loss_fn = staticmethod(F.triplet_margin_loss)
    _loss_options = ("margin", "p", "eps", "swap")

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        _check_positive_margin("TripletMarginLoss", margin)
        self._keep(margin=margin, p=p, eps=eps, swap=swap)


class TripletMarginWithDistanceLoss(_TripletLoss):
    """Triplet loss with any distance callable; the default is a PairwiseDistance()
    submodule (so it shows in the repr)."""

    _loss_fn = staticmethod(F.triplet_margin_with_distance_loss)
    _loss_options = ("distance_function", "margin", "swap")

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        _check_positive_margin("TripletMarginWithDistanceLoss", margin)
        if distance_function is None:
            distance_function = PairwiseDistance()
        self._keep(distance_function=distance_function, margin=margin, swap=swap)


class PoissonNLLLoss(_Loss):
    """Poisson negative log likelihood; with log_input the input is log(rate),
    with full the Stirling term log(y!) is added."""

    _loss_fn = staticmethod(F.poisson_nll_loss)
    _loss_options = ("log_input", "full", "eps")

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self._keep(log_input=log_input, full=full, eps=eps)

    def forward(self, log_input, target):
        return self._loss(log_input, target)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood of target under mean `input` and variance `var`."""

    _loss_fn = staticmethod(F.gaussian_nll_loss)
    _loss_options = ("full", "eps")

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self._keep(full=full, eps=eps)

    def forward(self, input, target, var):
        return self._loss(input, target, var)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss over (T, N, C) log-probabilities."""

    _loss_fn = staticmethod(F.ctc_loss)
    _loss_options = ("blank", "zero_infinity")

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self._keep(blank=blank, zero_infinity=zero_infinity)

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return self._loss(log_probs, targets, input_lengths, target_lengths)


class LinearCrossEntropyLoss(_WeightedLoss):
    """A bias-optional Linear(in_features, num_classes * prod(out_features))
    followed by cross entropy, through F.linear_cross_entropy (which, given
    `options`, avoids materialising all the logits at once).

    The Linear's weight is stored flat, (C * prod(out_features), in_features);
    forward views it as (C, *out_features, in_features)."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        super().__init__(weight, None, None, reduction)
        self._keep(num_classes=num_classes, out_features=out_features, ignore_index=ignore_index,
                   label_smoothing=label_smoothing, options=options)
        logits_per_row = num_classes * math.prod(out_features)
        self.linear = Linear(in_features, logits_per_row, bias=bias, device=device, dtype=dtype)

    def forward(self, input, target):
        grid = (self.num_classes, *self.out_features)
        linear_weight = self.linear.weight.reshape(grid + (self.linear.in_features,))
        linear_bias = None if self.linear.bias is None else self.linear.bias.reshape(grid)
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
