"""The default random generator (counter-based Philox, see c10/Generator.h).

Its state is (seed, offset): every random op reserves a block of Philox
counters starting at offset, so a saved state replays the same numbers."""
import contextlib

from torchlike import _C


def manual_seed(seed):
    """Seeds the default generator of every device (CPU's and, where a
    backend is registered, each accelerator's); returns the CPU one, as
    PyTorch does."""
    _C._manual_seed_all(int(seed))
    return _C.default_generator


def seed():
    """Seeds every device's default generator with one seed from OS entropy; returns it."""
    s = _C.default_generator.seed()
    _C._manual_seed_all(s)
    return s


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
