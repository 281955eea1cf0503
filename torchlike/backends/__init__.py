"""torchlike.backends: switches and facts about the compute libraries behind
the operators, answered truthfully for this build (as PyTorch's
torch.backends). `torchlike.backends.cuda` comes with the CUDA backend."""
from torchlike.backends import cpu, cudnn, mps  # noqa: F401
