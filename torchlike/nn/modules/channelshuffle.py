"""ChannelShuffle: interleaves the channels of `groups` equal groups."""
from torchlike.nn import functional as F
from torchlike.nn.modules.module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """(N, g * k, *) viewed as (N, g, k, *) and transposed to (N, k, g, *)."""

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
