"""Distance layers: PairwiseDistance (p-norm of x1 - x2 + eps) and
CosineSimilarity, both over torchlike.nn.functional."""
from torchlike.nn import functional as F
from torchlike.nn.modules._functional_layer import _FunctionalLayer

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class _Distance(_FunctionalLayer):
    """forward(x1, x2); the repr shows no options (as in PyTorch)."""

    _shown = ()

    def forward(self, x1, x2):
        return self._run(x1, x2)


class PairwiseDistance(_Distance):
    """||x1 - x2 + eps||_p over the last dimension. The exponent is stored as
    `norm` (PyTorch's attribute name), though the constructor calls it p."""

    _fn = staticmethod(F.pairwise_distance)
    _fn_args = ("norm", "eps", "keepdim")

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim


class CosineSimilarity(_Distance):
    """x1 . x2 / max(||x1|| ||x2||, eps) along `dim`."""

    _fn = staticmethod(F.cosine_similarity)
    _fn_args = ("dim", "eps")

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps
