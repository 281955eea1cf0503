"""torchlike.nn.functional: PyTorch's functional neural-network API.

Each area lives in its own module; this file only gathers them, so that
`import torchlike.nn.functional as F` sees one namespace, as in PyTorch."""
from torchlike.nn._functional_conv_pool import *  # noqa: F401,F403  convolution, pooling, fold/unfold, interpolate
from torchlike.nn._functional_norm import *  # noqa: F401,F403  softmax family, norms, dropout, embedding, attention
from torchlike.nn._functional_act_loss import *  # noqa: F401,F403  activations, losses, distances, pad, one_hot
from torchlike.nn._functional_mha import *  # noqa: F401,F403  multi_head_attention_forward
from torchlike.nn._functional_linear_ce import *  # noqa: F401,F403  linear_cross_entropy (chunked option)
from torchlike.nn._functional_fractional import *  # noqa: F401,F403  fractional max pooling
