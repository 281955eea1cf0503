"""torchlike.cuda.Stream / ExternalStream / Event: CUDA-typed views of the
device-neutral torchlike.Stream and torchlike.Event. A Stream made here is a
new one from the device's pool, as torch.cuda.Stream(); the stream and event
work itself (query, synchronize, wait, elapsed_time) is the CUDA
DeviceGuard's."""
import ctypes

from torchlike import _C


def _cuda_device(device):
    from torchlike.cuda import _lazy_init, _index, current_device
    _lazy_init()
    idx = _index(device)
    return _C.device("cuda", idx if idx >= 0 else current_device())


class Stream(_C.Stream):
    """A CUDA stream from the device's pool (priority 0 normal, negative higher)."""

    def __new__(cls, device=None, priority=0, **kwargs):
        if {"stream_id", "device_type", "device_index"} <= set(kwargs):  # an existing stream, by name
            return super().__new__(cls, stream_id=kwargs["stream_id"], device_type=kwargs["device_type"],
                                   device_index=kwargs["device_index"])
        if kwargs:
            raise TypeError(f"Stream() got unexpected keyword arguments {sorted(kwargs)}")
        base = _C._new_stream(_cuda_device(device), int(priority))
        return super().__new__(cls, stream_id=base.stream_id, device_type=base.device_type,
                               device_index=base.device_index)

    def wait_event(self, event):
        """Work queued on this stream from now on waits for `event`."""
        event.wait(self)

    def wait_stream(self, stream):
        """Work queued on this stream from now on waits for `stream`'s work so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records `event` (a new Event when None) on this stream and returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    @property
    def cuda_stream(self):
        """The cudaStream_t handle, as an int (0 for the legacy default stream)."""
        return _C._stream_native_handle(self)

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self.cuda_stream)

    def __eq__(self, other):
        if isinstance(other, _C.Stream):
            return super().__eq__(other)
        return NotImplemented

    def __hash__(self):
        return super().__hash__()

    def __repr__(self):
        return f"<torchlike.cuda.Stream device={self.device} cuda_stream={self.cuda_stream:#x}>"


class ExternalStream(Stream):
    """Wraps a cudaStream_t created outside torchlike (by another library);
    torchlike never destroys it."""

    def __new__(cls, stream_ptr, device=None, **kwargs):
        if kwargs:
            raise TypeError(f"ExternalStream() got unexpected keyword arguments {sorted(kwargs)}")
        base = _C._external_stream(int(stream_ptr), _cuda_device(device))
        return _C.Stream.__new__(cls, stream_id=base.stream_id, device_type=base.device_type,
                                 device_index=base.device_index)


class Event(_C.Event):
    """A CUDA event: recorded on a stream, waited on by other streams or the
    host, and timed against another event when enable_timing=True."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False, external=False):
        from torchlike.cuda import _lazy_init
        _lazy_init()
        if interprocess:
            raise NotImplementedError("torchlike.cuda.Event: interprocess events are not supported")
        return super().__new__(cls, "cuda", enable_timing=bool(enable_timing), blocking=bool(blocking))

    def record(self, stream=None):
        from torchlike.cuda import current_stream
        super().record(current_stream() if stream is None else stream)

    def wait(self, stream=None):
        from torchlike.cuda import current_stream
        super().wait(current_stream() if stream is None else stream)

    def ipc_handle(self):
        raise NotImplementedError("torchlike.cuda.Event: interprocess events are not supported")

    @classmethod
    def from_ipc_handle(cls, device, handle):
        raise NotImplementedError("torchlike.cuda.Event: interprocess events are not supported")

    def __repr__(self):
        return f"<torchlike.cuda.Event device={self.device} recorded={'recorded=True' in super().__repr__()}>"
