"""The default random generator (counter-based Philox, see c10/Generator.h).

Its state is (seed, offset): every random op reserves a block of Philox
counters starting at offset, so a saved state replays the same numbers."""
import contextlib

from torchlike import _C


def manual_seed(seed):
    """Seeds the default generator; returns it, as PyTorch does."""
    _C.default_generator.manual_seed(int(seed))
    return _C.default_generator


def seed():
    """Seeds the default generator from OS entropy; returns the seed."""
    return _C.default_generator.seed()


def initial_seed():
    return _C.default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor (for set_rng_state)."""
    return _C.default_generator.get_state()


def set_rng_state(state):
    _C.default_generator.set_state(state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, **kwargs):
    """Restores the default generator's state on exit, so random ops inside
    the block leave the global stream where it was."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
