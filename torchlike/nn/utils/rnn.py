"""Variable-length batches for the recurrent layers.

A PackedSequence stores a batch of sequences sorted by decreasing length,
time step by time step: the rows for t = 0 of every sequence, then the rows
for t = 1 of the sequences that are at least two long, and so on.
`batch_sizes[t]` says how many rows step t has. The packing and unpacking
below are one gather (index_select) and one scatter (index_copy) over a
flattened view of the padded tensor, so autograd sees two differentiable ops
instead of one op per time step.
"""
import collections

import torchlike

__all__ = [
    "PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
    "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence",
]

PackedSequence_ = collections.namedtuple(
    "PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(PackedSequence_):
    """The packed form of a batch of sequences (see the module docstring).

    Build one with pack_padded_sequence or pack_sequence rather than by hand.
    `sorted_indices` is the permutation that sorted the batch by length (None
    when the caller's batch was already sorted) and `unsorted_indices` undoes it.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # PackedSequence((data, batch_sizes)): the pair as one argument.
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    # ---- moving and casting: the data moves, batch_sizes stays on the CPU ----
    def to(self, *args, **kwargs):
        moved = self.data.to(*args, **kwargs)
        if moved is self.data:
            return self
        index_kwargs = {"device": moved.device}
        if "non_blocking" in kwargs:
            index_kwargs["non_blocking"] = kwargs["non_blocking"]
        perm = self.sorted_indices
        inv = self.unsorted_indices
        perm = None if perm is None else perm.to(**index_kwargs)
        inv = None if inv is None else inv.to(**index_kwargs)
        return type(self)(moved, self.batch_sizes, perm, inv)

    def cuda(self, *args, **kwargs):
        probe = torchlike.empty(0).cuda(*args, **kwargs)
        return self.to(device=probe.device, **{k: v for k, v in kwargs.items() if k == "non_blocking"})

    def cpu(self, *args, **kwargs):
        return self.to(device="cpu")

    def double(self):
        return self.to(dtype=torchlike.double)

    def float(self):
        return self.to(dtype=torchlike.float)

    def half(self):
        return self.to(dtype=torchlike.half)

    def long(self):
        return self.to(dtype=torchlike.long)

    def int(self):
        return self.to(dtype=torchlike.int)

    def short(self):
        return self.to(dtype=torchlike.short)

    def char(self):
        return self.to(dtype=torchlike.int8)

    def byte(self):
        return self.to(dtype=torchlike.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, self.sorted_indices,
                          self.unsorted_indices)


def invert_permutation(permutation):
    """The inverse of a 1-D index permutation (None stays None)."""
    if permutation is None:
        return None
    inverse = torchlike.empty_like(permutation)
    inverse[permutation] = torchlike.arange(permutation.numel(), device=permutation.device)
    return inverse


def _lengths_as_list(lengths):
    """lengths (list, tuple or tensor) as a list of ints, with torch's check on rank."""
    if isinstance(lengths, torchlike.Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(
                "'lengths' argument should be a 1D CPU int64 tensor, but got "
                f"{lengths.dim()}D cpu Long tensor")
        return [int(v) for v in lengths.tolist()]
    values = list(lengths)
    if any(isinstance(v, (list, tuple)) for v in values):
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu "
                           "Long tensor")
    return [int(v) for v in values]


def _packed_positions(lengths, steps, batch, batch_first):
    """Row numbers, in the flattened (steps*batch) padded layout, of every
    packed row in packed order (time step major, then sorted batch entry)."""
    lengths_t = torchlike.tensor(lengths, dtype=torchlike.int64)
    present = torchlike.arange(steps).unsqueeze(1) < lengths_t.unsqueeze(0)   # (steps, batch)
    where = present.nonzero()
    step_idx, entry_idx = where[:, 0], where[:, 1]
    if batch_first:
        return entry_idx * steps + step_idx
    return step_idx * batch + entry_idx


def _batch_sizes_for(lengths):
    """batch_sizes of a packed batch whose sorted (decreasing) lengths are `lengths`."""
    sizes = []
    live = len(lengths)
    for t in range(lengths[0]):
        while live and lengths[live - 1] <= t:
            live -= 1
        sizes.append(live)
    return torchlike.tensor(sizes, dtype=torchlike.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch, (T, B, *) or with batch_first (B, T, *), given each
    sequence's length. With enforce_sorted=False the batch may come in any order;
    the sorting permutation is kept in the result to undo it later."""
    lengths = _lengths_as_list(lengths)
    batch_dim = 0 if batch_first else 1
    if enforce_sorted:
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])   # stable
        lengths = [lengths[i] for i in order]
        sorted_indices = torchlike.tensor(order, dtype=torchlike.int64, device=input.device)
        input = input.index_select(batch_dim, sorted_indices)

    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.shape[batch_dim]
    steps = input.shape[1 - batch_dim]
    if len(lengths) != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={batch})")
    if lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
            "sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > steps:
        raise RuntimeError(
            f"Expected sequence length to be at most {steps} (the padded length of the input), "
            f"but got a length of {lengths[0]}")

    positions = _packed_positions(lengths, steps, batch, batch_first).to(input.device)
    flat = input.reshape((batch * steps,) + tuple(input.shape[2:]))
    data = flat.index_select(0, positions)
    return PackedSequence(data, _batch_sizes_for(lengths), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo pack_padded_sequence: the padded batch (in the caller's original
    order) and an int64 tensor of the lengths. total_length pads the time
    dimension to that length (at least the longest sequence)."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    sizes = [int(v) for v in batch_sizes.tolist()]
    max_len = len(sizes)
    batch = sizes[0]
    if total_length is not None:
        if total_length < max_len:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_len}")
        steps = total_length
    else:
        steps = max_len
    # Entry b of the sorted batch lives in every step that still has more than b rows.
    lengths = [0] * batch
    for rows in sizes:
        for b in range(rows):
            lengths[b] += 1

    positions = _packed_positions(lengths, steps, batch, batch_first).to(data.device)
    trailing = tuple(data.shape[1:])
    flat = data.new_full((batch * steps,) + trailing, padding_value)
    flat = flat.index_copy(0, positions, data)
    padded = flat.reshape(((batch, steps) if batch_first else (steps, batch)) + trailing)

    lengths = torchlike.tensor(lengths, dtype=torchlike.int64)
    if sequence.unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        padded = padded.index_select(batch_dim, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shape (L_i, *) into (max L, B, *), or (B, max L, *)
    with batch_first, filling with padding_value on the given side."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, torchlike.Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    columns = []
    for seq in sequences:
        if tuple(seq.shape[1:]) != trailing:
            raise RuntimeError(
                "pad_sequence: every sequence must have the same trailing dimensions, but got "
                f"{tuple(seq.shape[1:])} and {trailing}")
        missing = longest - seq.shape[0]
        if missing:
            filler = seq.new_full((missing,) + trailing, padding_value)
            seq = torchlike.cat([seq, filler] if padding_side == "right" else [filler, seq], 0)
        columns.append(seq)
    return torchlike.stack(columns, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of its unpadded sequences."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :int(n)] for i, n in enumerate(lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences of shape (L_i, *) directly."""
    lengths = torchlike.tensor([s.shape[0] for s in sequences], dtype=torchlike.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
