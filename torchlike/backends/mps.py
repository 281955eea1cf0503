"""torchlike.backends.mps: Apple's Metal backend. torchlike has none."""


def is_built():
    """False: torchlike is not built with MPS support."""
    return False


def is_available():
    """False: no MPS device can be used."""
    return False
