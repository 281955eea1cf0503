"""Re-laying out convolution weights (e.g. to channels_last) across a model."""
import torchlike

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, class_names):
    # Matched by class name so that this works whichever convolution modules exist.
    kinds = tuple(getattr(torchlike.nn, n) for n in class_names if hasattr(torchlike.nn, n))
    if kinds and isinstance(module, kinds):
        with torchlike.no_grad():
            module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, class_names)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Gives every Conv2d/ConvTranspose2d weight in `module` (recursively) the memory
    format `memory_format` (channels_last in PyTorch; torchlike has
    contiguous_format and preserve_format so far); returns module."""
    return _convert(module, memory_format, ("Conv2d", "ConvTranspose2d"))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Gives every Conv3d/ConvTranspose3d weight in `module` (recursively) the memory
    format `memory_format` (channels_last_3d in PyTorch); returns module."""
    return _convert(module, memory_format, ("Conv3d", "ConvTranspose3d"))
