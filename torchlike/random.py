"""The default random generator (counter-based Philox, see c10/Generator.h)."""
from torchlike import _C


def manual_seed(seed):
    """Seeds the default generator; returns it, as PyTorch does."""
    _C.default_generator.manual_seed(int(seed))
    return _C.default_generator


def seed():
    return _C.default_generator.seed()


def initial_seed():
    return _C.default_generator.initial_seed()


def get_rng_state():
    return _C.default_generator.get_state()


def set_rng_state(state):
    _C.default_generator.set_state(state)
