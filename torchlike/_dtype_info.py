"""torchlike.finfo / torchlike.iinfo: machine limits of the floating and integer dtypes."""
import struct

from torchlike import _C

# (bits, mantissa bits incl. implicit, min exponent, max exponent) of each float format.
_FLOAT_FORMATS = {"float16": (16, 11, -14, 15), "bfloat16": (16, 8, -126, 127),
                  "float32": (32, 24, -126, 127), "float64": (64, 53, -1022, 1023)}
_DECIMALS = {"float16": 3, "bfloat16": 2, "float32": 6, "float64": 15}


def _name(dtype):
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"expected a torchlike.dtype, got {type(dtype).__name__}")
    return repr(dtype).split(".")[-1]


class finfo:
    """Limits of a floating dtype (float32 when called without arguments)."""

    def __init__(self, dtype=None):
        name = _name(dtype if dtype is not None else _C._get_default_dtype())
        if name not in _FLOAT_FORMATS:
            raise TypeError(f"finfo: torchlike.{name} is not a floating point dtype")
        bits, mant, emin, emax = _FLOAT_FORMATS[name]
        self.dtype = name
        self.bits = bits
        self.eps = 2.0 ** (1 - mant)
        self.max = (2.0 - 2.0 ** (1 - mant)) * 2.0 ** emax
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** emin
        self.resolution = 10.0 ** -_DECIMALS[name]
        if name == "float32":  # round through float32 so the values print as PyTorch's do
            self.eps, self.max, self.tiny = (struct.unpack("f", struct.pack("f", v))[0]
                                             for v in (self.eps, self.max, self.tiny))
            self.min, self.smallest_normal = -self.max, self.tiny

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer (or bool) dtype."""

    def __init__(self, dtype):
        name = _name(dtype)
        if name == "bool":
            self.bits, self.min, self.max = 8, 0, 1
        elif name == "uint8":
            self.bits, self.min, self.max = 8, 0, 255
        elif name.startswith("int"):
            self.bits = int(name[3:])
            self.min, self.max = -(2 ** (self.bits - 1)), 2 ** (self.bits - 1) - 1
        else:
            raise TypeError(f"iinfo: torchlike.{name} is not an integer dtype")
        self.dtype = name

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
