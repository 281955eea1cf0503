"""Type aliases used by the generated stubs (torchlike/_C/__init__.pyi)."""
from typing import Union

from torchlike._C import device as _device, dtype as _dtype_t, layout as _layout_t, memory_format as _mf

Number = Union[int, float, bool]
_int = int
_float = float
_bool = bool
_dtype = _dtype_t
_layout = _layout_t
memory_format = _mf
DeviceLikeType = Union[str, _device, int]
