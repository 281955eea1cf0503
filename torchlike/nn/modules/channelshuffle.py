"""ChannelShuffle: interleaves the channels of `groups` equal groups."""
from torchlike.nn import functional as F
from torchlike.nn.modules._functional_layer import _FunctionalLayer

__all__ = ["ChannelShuffle"]


class ChannelShuffle(_FunctionalLayer):
    """(N, g * k, *) viewed as (N, g, k, *) and transposed to (N, k, g, *)."""

    _fn = staticmethod(F.channel_shuffle)
    _fn_args = ("groups",)

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return self._run(input)
