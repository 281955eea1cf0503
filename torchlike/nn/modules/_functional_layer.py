"""The base of the layers that are one functional call with stored options.

A subclass names its function (`_fn`) and the attributes passed after the
inputs (`_fn_args`, positionally, in order); forward is then `self._run(...)`,
and the repr lists `_shown` attributes as name=value, followed by
"inplace=True" when the layer has `inplace` set and `_show_inplace` is true.
Keeping the call and the repr in data is what lets the activation, shape and
distance layers share one implementation instead of each spelling it out."""
from torchlike.nn.modules.module import Module

__all__ = []


class _FunctionalLayer(Module):
    _fn = None
    _fn_args = ()
    _shown = None  # defaults to _fn_args without "inplace"
    _show_inplace = True

    def _run(self, *inputs):
        options = [getattr(self, name) for name in self._fn_args]
        return type(self)._fn(*inputs, *options)

    def _shown_names(self):
        if self._shown is not None:
            return self._shown
        return tuple(name for name in self._fn_args if name != "inplace")

    def extra_repr(self):
        parts = [f"{name}={getattr(self, name)}" for name in self._shown_names()]
        if self._show_inplace and getattr(self, "inplace", False):
            parts.append("inplace=True")
        return ", ".join(parts)
