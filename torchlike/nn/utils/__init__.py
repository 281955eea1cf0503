"""torchlike.nn.utils: gradient clipping, parameter vectors, and (from their own files)
RNN packing, parametrizations, weight/spectral norm, fusion and stateless calls."""
from torchlike.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm)
from torchlike.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from torchlike.nn.utils import rnn  # noqa: F401,E402
