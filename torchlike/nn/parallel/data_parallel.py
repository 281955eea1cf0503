"""DataParallel: splits a batch across GPUs in one process. Without CUDA
(torchlike's CPU build, or no visible GPU) it runs the wrapped module directly,
as PyTorch does; with one device it does too."""
import torchlike
from torchlike.nn.modules.module import Module
from torchlike.nn.parallel.parallel_apply import parallel_apply
from torchlike.nn.parallel.replicate import replicate
from torchlike.nn.parallel.scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _gpu_count():
    cuda = getattr(torchlike, "cuda", None)
    try:
        return cuda.device_count() if cuda is not None and cuda.is_available() else 0
    except Exception:
        return 0


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        if _gpu_count() == 0:
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_gpu_count()))
        device_ids = [d if isinstance(d, int) else torchlike.device(d).index for d in device_ids]
        if output_device is None:
            output_device = device_ids[0]
        self.device_ids = device_ids
        self.output_device = output_device if isinstance(output_device, int) else torchlike.device(output_device).index
        self.src_device_obj = torchlike.device("cuda", device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        inputs, kwargs = scatter_kwargs(inputs, kwargs, self.device_ids, self.dim)
        if not inputs and not kwargs:
            inputs, kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **kwargs[0])
        replicas = replicate(self.module, self.device_ids[:len(inputs)], not torchlike.is_grad_enabled())
        outputs = parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])
        return gather(outputs, self.output_device, self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form of DataParallel: module(inputs) split over device_ids."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if _gpu_count() == 0 or (device_ids is not None and len(device_ids) <= 1 and _gpu_count() == 0):
        return module(*inputs, **(module_kwargs or {}))
    if device_ids is None:
        device_ids = list(range(_gpu_count()))
    if output_device is None:
        output_device = device_ids[0]
    inputs, module_kwargs = scatter_kwargs(inputs, module_kwargs, device_ids, dim)
    if not inputs and not module_kwargs:
        inputs, module_kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **module_kwargs[0])
    used = device_ids[:len(inputs)]
    replicas = replicate(module, used)
    outputs = parallel_apply(replicas, inputs, module_kwargs, used)
    return gather(outputs, output_device, dim)
