"""The dispatcher's Python layer, shared by everything that watches operator
calls from Python (torchlike.compile's graph capture, jit.trace).

The dispatcher has one Python functionality key above Autocast and Autograd,
and a key has one boxed fallback, so the process registers one fallback
here; a watcher is a handler pushed on this thread's stack for the length of
a `with active(handler):` block, which also switches the key on for the
thread. The handler gets (op, keyset, args) for every operator call made on
the thread, and returns the call's result, usually from `below(...)` (the
call made with the layer off, so the calls inside its kernel are not seen)
or `through(...)` (with the layer still on, to see a composite's parts).
Threads with no handler pay nothing: the key is off for them.
"""
from __future__ import annotations

import contextlib
import threading

from torchlike import _C

__all__ = ["active", "below", "through", "layer_off", "current"]

PYTHON_KEY = _C._dispatch_key_bit("Python")
_local = threading.local()
_lib = None
_lock = threading.Lock()


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def current():
    """The handler active on this thread, or None."""
    s = _stack()
    return s[-1] if s else None


def _fallback(op, keyset, *args):
    s = _stack()
    if not s:  # the layer is on in a thread with no handler (one that inherited the TLS): pass through
        return below(op, keyset, args)
    return s[-1](op, keyset, args)


def _install():
    global _lib
    with _lock:
        if _lib is None:
            import torchlike.library
            lib = torchlike.library.Library("_", "IMPL")
            lib.fallback(_fallback, "Python", with_keyset=True)
            _lib = lib


@contextlib.contextmanager
def layer_off():
    """Calls made inside are not seen by the handler."""
    inc, exc = _C._dispatch_tls_get()
    _C._dispatch_tls_set(inc & ~PYTHON_KEY, exc)
    try:
        yield
    finally:
        _C._dispatch_tls_set(inc, exc)


def below(op, keyset, args):
    """Runs the call under the Python layer, with the layer off meanwhile."""
    with layer_off():
        return _C._ops_redispatch(op._handle, keyset & ~PYTHON_KEY, args)


def through(op, keyset, args):
    """Runs the call under the Python layer, leaving the layer on: the
    operator calls its kernel makes come back to the handler."""
    return _C._ops_redispatch(op._handle, keyset & ~PYTHON_KEY, args)


@contextlib.contextmanager
def active(handler):
    """handler(op, keyset, args) sees every operator call this thread makes
    inside the block."""
    _install()
    s = _stack()
    s.append(handler)
    inc, exc = _C._dispatch_tls_get()
    _C._dispatch_tls_set(inc | PYTHON_KEY, exc)
    try:
        yield handler
    finally:
        _C._dispatch_tls_set(inc, exc)
        s.pop()
