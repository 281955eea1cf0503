"""Recurrent layers: RNN, LSTM and GRU over whole sequences (padded or packed),
and their single-step cells. The arithmetic lives in torchlike._rnn; these
classes own the parameters, PyTorch's argument checks and the reshaping
between the user's layouts and the time-major one the kernels use."""
import math
import numbers
import warnings

import torchlike
from torchlike import _rnn
from torchlike.nn import init
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter
from torchlike.nn.utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

# Gate blocks stacked in each weight matrix, per mode.
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _reorder_batch(state, permutation):
    """Rows of a (layers*dirs, B, H) state picked in `permutation` order along B."""
    return state if permutation is None else state.index_select(1, permutation)


class RNNBase(Module):
    """Shared machinery of RNN, LSTM and GRU: parameter creation and naming
    (weight_ih_l{k}[_reverse], ...), initialisation, input checks, flat weights."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")

        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size

        gate_rows = _GATES[mode] * hidden_size
        out_size = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else out_size * directions
            for direction in range(directions):
                tag = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih" + tag, (gate_rows, in_size)),
                          ("weight_hh" + tag, (gate_rows, out_size))]
                if bias:
                    shapes += [("bias_ih" + tag, (gate_rows,)), ("bias_hh" + tag, (gate_rows,))]
                if proj_size > 0:
                    shapes.append(("weight_hr" + tag, (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name, Parameter(torchlike.empty(shape, **factory_kwargs)))
                names = [n for n, _ in shapes]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    # ---- the flat weight list, in the order the kernels take them ----
    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, n, None) for n in self._flat_weights_names]

    def __setattr__(self, name, value):
        # Re-assigning a weight (e.g. by load_state_dict(assign=True)) must reach
        # the flat list the forward pass reads.
        names = self.__dict__.get("_flat_weights_names")
        if names is not None and name in names:
            self._flat_weights[names.index(name)] = value
        super().__setattr__(name, value)

    def flatten_parameters(self):
        """Kept for API compatibility: the weights are used where they are, there
        is no packed cuDNN buffer to rebuild."""
        return None

    def _apply(self, fn, recurse=True):
        result = super()._apply(fn, recurse)
        self._init_flat_weights()
        return result

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def __setstate__(self, state):
        super().__setstate__(state)
        self._init_flat_weights()

    # ---- argument checks, with torch's messages ----
    def check_input(self, input, batch_sizes):
        if not torchlike.is_floating_point(input) and not input.is_complex():
            raise ValueError(f"input must have the type torch.float32, got type {input.dtype}")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, batch, out_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(tuple(expected_hidden_size), list(hx.size())))

    def _weights_have_changed(self):
        return any(w is not getattr(self, n, None)
                   for w, n in zip(self._flat_weights, self._flat_weights_names))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return _reorder_batch(hx, permutation)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # ---- the forward pass shared by the three layers ----
    def _split_input(self, input):
        """(data, batch_sizes, sorted_indices, unsorted_indices, batched) of the input."""
        if isinstance(input, PackedSequence):
            return input.data, input.batch_sizes, input.sorted_indices, input.unsorted_indices, True
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, "
                             f"got {input.dim()}D instead")
        return input, None, None, None, input.dim() == 3

    def _check_dtype(self, data):
        weight = getattr(self, self._flat_weights_names[0])
        if weight is not None and data.dtype != weight.dtype:
            raise ValueError(
                f"RNN input dtype ({data.dtype}) does not match weight dtype ({weight.dtype}). "
                f"Convert input: input.to({weight.dtype}), or convert model: model.to({data.dtype})")

    def _zero_state(self, data, batch_sizes, batched, size):
        directions = 2 if self.bidirectional else 1
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        elif not batched:
            batch = 1
        else:
            batch = data.size(0) if self.batch_first else data.size(1)
        return torchlike.zeros(self.num_layers * directions, batch, size,
                               dtype=data.dtype, device=data.device)

    def _run(self, input, states):
        """Run the kernels for (data, batch_sizes) and the checked state tuple."""
        data, batch_sizes = input
        # Read the parameters afresh: .to(), load_state_dict(assign=True) and
        # user re-assignment may all have replaced them since the last call.
        weights = [getattr(self, n) for n in self._flat_weights_names]
        common = (weights, self.bias, self.num_layers, self.dropout, self.training,
                  self.bidirectional)
        if batch_sizes is None:
            sizes = None
        else:
            sizes = [int(v) for v in batch_sizes.tolist()]
        if sizes is None:
            x = data.transpose(0, 1) if self.batch_first else data
            steps, batch = x.shape[0], x.shape[1]
            out, final = _rnn._run_stack(self.mode, x, [batch] * steps, (steps, batch),
                                         states, *common)
            if self.batch_first:
                out = out.transpose(0, 1)
        else:
            out, final = _rnn._run_stack(self.mode, data, sizes, None, states, *common)
        return out, final

    def _forward_common(self, input, hx, state_count):
        """The forward of RNN/GRU (state_count 1) and LSTM (2): returns
        (output, final states tuple)."""
        data, batch_sizes, sorted_indices, unsorted_indices, batched = self._split_input(input)
        packed = batch_sizes is not None
        if not packed and not batched:
            data = data.unsqueeze(1)
        self._check_dtype(data)
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            states = (self._zero_state(data, batch_sizes, True, out_size),)
            if state_count == 2:
                states += (self._zero_state(data, batch_sizes, True, self.hidden_size),)
        else:
            states = tuple(hx) if state_count == 2 else (hx,)
            if state_count == 2 and len(states) != 2:
                raise RuntimeError("LSTM expects hx to be a tuple of (h_0, c_0)")
            dims = [s.dim() for s in states]
            if not packed:
                want = 3 if batched else 2
                if any(d != want for d in dims):
                    kind = "batched 3-D" if batched else "unbatched 2-D"
                    if state_count == 2:
                        raise RuntimeError(
                            f"For {kind} input, hx and cx should also be {want}-D but got "
                            f"({dims[0]}-D, {dims[1]}-D) tensors")
                    raise RuntimeError(
                        f"For {kind} input, hx should also be {want}-D but got {dims[0]}-D tensor")
                if not batched:
                    states = tuple(s.unsqueeze(1) for s in states)
            states = tuple(_reorder_batch(s, sorted_indices) for s in states)

        self.check_input(data, batch_sizes)
        expected = self.get_expected_hidden_size(data, batch_sizes)
        if state_count == 2:
            self.check_hidden_size(states[0], expected, "Expected hidden[0] size {}, got {}")
            cell_expected = expected[:2] + (self.hidden_size,)
            self.check_hidden_size(states[1], cell_expected, "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(states[0], expected)

        out, final = self._run((data, batch_sizes), states)
        final = tuple(_reorder_batch(s, unsorted_indices) for s in final)
        if packed:
            out = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        elif not batched:
            out = out.squeeze(1)
            final = tuple(s.squeeze(1) for s in final)
        return out, final


class RNN(RNNBase):
    """Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu.

    RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)"""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        out, (h_n,) = self._forward_common(input, hx, 1)
        return out, h_n


class LSTM(RNNBase):
    """Long short-term memory; with proj_size > 0 the hidden state is projected
    by weight_hr to proj_size features.

    LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None)"""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        size = self.get_expected_hidden_size(input, batch_sizes)
        return size[:2] + (self.hidden_size,)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _reorder_batch(hx[0], permutation), _reorder_batch(hx[1], permutation)

    def forward(self, input, hx=None):
        out, (h_n, c_n) = self._forward_common(input, hx, 2)
        return out, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit (reset, update and new gates, in that row order).

    GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, device=None, dtype=None)"""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        out, (h_n,) = self._forward_common(input, hx, 1)
        return out, h_n


# ---------------------------------------------------------------- cells

class RNNCellBase(Module):
    """Parameters (weight_ih, weight_hh, bias_ih, bias_hh) shared by the cells;
    num_chunks is the number of gate blocks stacked in the weights."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(torchlike.empty((rows, input_size), **factory_kwargs))
        self.weight_hh = Parameter(torchlike.empty((rows, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(torchlike.empty(rows, **factory_kwargs))
            self.bias_hh = Parameter(torchlike.empty(rows, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            text += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _prepare(self, input, hx, state_count):
        """Batch an unbatched call and default the state to zeros; returns
        (input, states tuple, batched)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for s in (hx if state_count == 2 else (hx,)):
                if s.dim() not in (1, 2):
                    raise ValueError(
                        f"{name}: Expected hidden to be 1D or 2D, got {s.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = torchlike.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                                    device=input.device)
            states = (zeros,) * state_count
        else:
            states = tuple(hx) if state_count == 2 else (hx,)
            if not batched:
                states = tuple(s.unsqueeze(0) for s in states)
        return input, states, batched


class RNNCell(RNNCellBase):
    """One Elman step: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        if self.nonlinearity == "tanh":
            out = _rnn.rnn_tanh_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih,
                                     self.bias_hh)
        elif self.nonlinearity == "relu":
            out = _rnn.rnn_relu_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih,
                                     self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, batched = self._prepare(input, hx, 2)
        h, c = _rnn.lstm_cell(input, states, self.weight_ih, self.weight_hh, self.bias_ih,
                              self.bias_hh)
        if not batched:
            return h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """One GRU step: returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        out = _rnn.gru_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return out if batched else out.squeeze(0)
