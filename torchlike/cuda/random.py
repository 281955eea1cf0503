"""torchlike.cuda random-number state: one Philox generator per device
(its state is the same 16 bytes as the CPU generator's: seed and offset).
Without CUDA the seeding functions do nothing, as in PyTorch, so scripts
that seed everything run on CPU-only machines."""
from torchlike import _C

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed"]


def _generator(device="cuda"):
    from torchlike.cuda import _lazy_init, _index, current_device
    _lazy_init()
    idx = _index(device)
    return _C._default_generator(_C.device("cuda", idx if idx >= 0 else current_device()))


def get_rng_state(device="cuda"):
    """The generator state of `device` as a uint8 tensor."""
    return _generator(device).get_state()


def get_rng_state_all():
    from torchlike.cuda import device_count
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state, device="cuda"):
    _generator(device).set_state(new_state)


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def manual_seed(seed):
    """Seeds the current CUDA device's generator (no-op without CUDA)."""
    from torchlike.cuda import is_available
    if is_available():
        _generator().manual_seed(int(seed))


def manual_seed_all(seed):
    """Seeds every CUDA device's generator (no-op without CUDA)."""
    from torchlike.cuda import device_count
    seed = int(seed)
    for i in range(device_count()):
        _C._default_generator(_C.device("cuda", i)).manual_seed(seed)


def seed():
    """Seeds the current CUDA device's generator from OS entropy (no-op without CUDA)."""
    from torchlike.cuda import is_available
    if is_available():
        _generator().seed()


def seed_all():
    """Seeds every CUDA device's generator with one random seed (no-op without CUDA)."""
    from torchlike.cuda import device_count
    if device_count() > 0:
        s = _C._default_generator(_C.device("cuda", 0)).seed()
        manual_seed_all(s)


def initial_seed():
    """The current CUDA device's seed."""
    return _generator().initial_seed()
