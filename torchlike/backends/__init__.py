"""torchlike.backends: switches and facts about the compute libraries behind
the operators, answered truthfully for this build (as PyTorch's
torch.backends)."""
from torchlike.backends import cpu, cuda, cudnn, mps  # noqa: F401
