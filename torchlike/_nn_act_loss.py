"""torchlike.* names of the nn activations, losses and distances that PyTorch
also has at the top level (torch.selu_, torch.kl_div, torch.cdist, ...).

The losses there take PyTorch's integer reduction (0 none, 1 mean, 2 sum); the
functional versions in torchlike.nn.functional take the strings."""
from torchlike.nn import _functional_act_loss as _F

__all__ = [
    "threshold_", "relu_", "selu_", "celu_", "rrelu", "rrelu_", "prelu", "binary_cross_entropy_with_logits",
    "kl_div", "poisson_nll_loss", "hinge_embedding_loss", "margin_ranking_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "ctc_loss", "cosine_similarity", "pairwise_distance", "pdist", "cdist",
    "pixel_shuffle", "pixel_unshuffle", "constant_pad_nd",
]

_REDUCTION_NAMES = {0: "none", 1: "mean", 2: "sum"}


def _reduction(r):
    if isinstance(r, str):
        return r
    try:
        return _REDUCTION_NAMES[r]
    except (KeyError, TypeError):
        raise ValueError(f"{r} is not a valid value for reduction") from None


threshold_ = _F.threshold_
relu_ = _F.relu_
selu_ = _F.selu_
celu_ = _F.celu_
prelu = _F.prelu
cosine_similarity = _F.cosine_similarity
pairwise_distance = _F.pairwise_distance
pdist = _F.pdist
pixel_shuffle = _F.pixel_shuffle
pixel_unshuffle = _F.pixel_unshuffle


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _F.rrelu(input, lower, upper, training, inplace=True)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return _F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                               pos_weight=pos_weight)


def kl_div(input, target, reduction=1, *, log_target=False):
    return _F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=1):
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)


def cdist(x1, x2, p=2.0, compute_mode=None):
    return _F.cdist(x1, x2, p, compute_mode or "use_mm_for_euclid_dist_if_necessary")


def constant_pad_nd(input, pad, value=0):
    return _F.pad(input, pad, "constant", value)
