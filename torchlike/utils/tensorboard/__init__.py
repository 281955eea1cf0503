"""TensorBoard logging (`SummaryWriter`) over the `tensorboard` package,
which is an optional dependency: importing this module without it fails
with the import error, as torch.utils.tensorboard does."""
import tensorboard  # noqa: F401  (ModuleNotFoundError when it is not installed)

try:
    from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: F401
except ImportError:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from None

from torchlike.utils.tensorboard.writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
