"""Printing tensors the way PyTorch does (the text of torch._tensor_str).

The layout rules, in short:
- every element of a tensor is printed with one shared format, chosen from the
  nonzero finite values: fixed point with `precision` digits, integer mode
  ("3.") when all are whole numbers, or scientific notation when the values
  span more than 1e3, exceed 1e8, or (fixed point only) go below 1e-4;
- elements are right-aligned to the widest one and wrapped at `linewidth`;
- above `threshold` elements each dimension longer than 2 * `edgeitems` shows
  only its first and last `edgeitems` entries around "...";
- non-default dtypes, non-CPU devices, empty and meta shapes are added as
  keyword suffixes after the data.

Values are read with Tensor.tolist() (C++), a slice at a time when the tensor
is summarised, so printing a huge tensor reads only the part that is shown.
"""
import contextlib
import dataclasses
import math

_ELLIPSIS = object()  # marks the elided middle of a summarised dimension


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Set options for printing tensors (same arguments as torch.set_printoptions).

    precision: digits after the decimal point (default 4); threshold: element
    count above which the output is summarised (default 1000); edgeitems:
    entries kept at each end of a summarised dimension (default 3); linewidth:
    characters per line (default 80); profile: "default", "short" or "full",
    applied first; sci_mode: True/False forces scientific notation on/off,
    None (the default) chooses automatically. Like PyTorch, sci_mode is reset
    to None by any call that does not pass it.
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown profile {profile!r}; expected one of {', '.join(_PROFILES)}")
        for k, v in _PROFILES[profile].items():
            setattr(PRINT_OPTS, k, v)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict (keys as set_printoptions' arguments)."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager that sets print options and restores the old ones on exit."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------- values

def _summarized(t, summarize):
    """t's values as nested lists; with summarize, long dims are cut to their
    edges around an _ELLIPSIS marker. Reads only what will be printed."""
    if not summarize or t.dim() == 0:
        return t.tolist()
    e, n = PRINT_OPTS.edgeitems, t.shape[0]
    if t.dim() == 1:
        if e == 0:
            return [_ELLIPSIS]
        if n > 2 * e:
            return t[:e].tolist() + [_ELLIPSIS] + t[n - e:].tolist()
        return t.tolist()
    if n > 2 * e:
        return ([_summarized(t[i], True) for i in range(e)] + [_ELLIPSIS]
                + [_summarized(t[i], True) for i in range(n - e, n)])
    return [_summarized(t[i], True) for i in range(n)]


def _leaves(data, out):
    if isinstance(data, list):
        for x in data:
            if x is not _ELLIPSIS:
                _leaves(x, out)
    else:
        out.append(data)
    return out


class _Formatter:
    """One format for all elements of a tensor, chosen from its (shown) values."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
        else:
            finite = [v for v in values if v != 0 and math.isfinite(v)]
            if finite:
                mags = [abs(v) for v in finite]
                lo, hi = min(mags), max(mags)
                self.int_mode = all(v == math.ceil(v) for v in finite)
                # A forced sci_mode also decides the width the columns get.
                if PRINT_OPTS.sci_mode is None:
                    self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
                else:
                    self.sci_mode = PRINT_OPTS.sci_mode
                if self.sci_mode:
                    self.max_width = max(len(f"{v:.{p}e}") for v in finite)
                elif self.int_mode:
                    # Whole numbers print as "3." (the dot marks a float); the
                    # dot's column counts in the width.
                    self.max_width = max(len(f"{v:.0f}") + 1 for v in finite)
                else:
                    self.max_width = max(len(f"{v:.{p}f}") for v in finite)

    def width(self):
        return self.max_width

    def format(self, v):
        p = PRINT_OPTS.precision
        if not self.floating:
            s = str(v)
        elif self.sci_mode:
            s = f"{v:{self.max_width}.{p}e}"
        elif self.int_mode:
            s = f"{v:.0f}"
            if math.isfinite(v):
                s += "."
        else:
            s = f"{v:.{p}f}"
        return s.rjust(self.max_width)


# ---------------------------------------------------------------- layout

def _vector_str(data, indent, fmt):
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / (fmt.width() + 2))))
    if len(data) == 1 and data[0] is _ELLIPSIS:  # edgeitems=0: nothing but the marker
        items = ["..."]
    else:
        items = [" ..." if v is _ELLIPSIS else fmt.format(v) for v in data]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(data, dim, indent, fmt):
    if dim == 0:
        return fmt.format(data)
    if dim == 1:
        return _vector_str(data, indent, fmt)
    parts = ["..." if x is _ELLIPSIS else _nested_str(x, dim - 1, indent + 1, fmt) for x in data]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(parts) + "]"


def _tensor_str(t, indent):
    if t.numel() == 0:
        return "[]"
    summarize = t.numel() > PRINT_OPTS.threshold
    data = _summarized(t, summarize)
    fmt = _Formatter(_leaves(data, []), t.dtype.is_floating_point)
    return _nested_str(data, t.dim(), indent, fmt)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        # Measured as PyTorch's text ("torch.float64"), so the output is
        # PyTorch's with only the module name changed, line breaks included.
        n = len(suffix.replace("torchlike.", "torch."))
        if last_line_len + n + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + n
        else:
            parts.append(", " + suffix)
            last_line_len += n + 2
    parts.append(")")
    return "".join(parts)


def _str(self, *, tensor_contents=None):
    import torchlike

    cls = type(self)
    plain = cls is torchlike.Tensor or cls.__name__ == "Parameter"
    prefix = "tensor(" if plain else f"{cls.__name__}("
    indent = len(prefix)
    suffixes = []
    default_dtype = torchlike.get_default_dtype()

    if self.device.type != "cpu":
        suffixes.append(f"device='{self.device}'")
    if self.device.type == "meta":
        suffixes.append(f"size={tuple(self.shape)}")
        if self.dtype != default_dtype:
            suffixes.append(f"dtype={self.dtype}")
        body = "..."
    elif self.numel() == 0:
        # No element shows the dtype or (beyond 1-D) the shape: say them.
        if self.dim() != 1:
            suffixes.append(f"size={tuple(self.shape)}")
        if self.dtype != default_dtype:
            suffixes.append(f"dtype={self.dtype}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(self.shape)}")
        if self.dtype not in (default_dtype, torchlike.int64, torchlike.bool):
            suffixes.append(f"dtype={self.dtype}")
        body = None
    if tensor_contents is not None:
        body = tensor_contents
    elif body is None:
        body = _tensor_str(self, indent)

    grad_fn = getattr(self, "grad_fn", None)
    if grad_fn is not None:
        name = type(grad_fn).__name__
        if hasattr(grad_fn, "name") and name in ("CppFunction", "Node", "_Node"):
            name = grad_fn.name().rsplit("::", 1)[-1]
        suffixes.append(f"grad_fn=<{name}>")
    elif getattr(self, "requires_grad", False):
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
