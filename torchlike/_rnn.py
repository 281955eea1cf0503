"""The recurrent kernels behind nn.RNN/LSTM/GRU and their cells, exposed under
torch's names: torchlike.lstm, gru, rnn_tanh, rnn_relu and the *_cell ops.

Layout of the work, per layer and direction:
  * the input-to-hidden projection of every time step is ONE addmm over the
    flattened (steps * batch, features) input, since it does not depend on the
    recurrence;
  * each step then needs one addmm for the hidden-to-hidden projection plus a
    few pointwise ops for the gates.
Padded input is a packed batch whose batch size never shrinks, so one loop
serves both: a step's rows are `batch_sizes[t]` leading rows of the state.

params follow torch's flat order: for each layer, for each direction,
w_ih, w_hh, then b_ih, b_hh when has_biases, then w_hr when the LSTM projects.
"""
import torchlike
from torchlike.autograd import Function, once_differentiable
from torchlike.nn import functional as _F

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu",
           "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


# ---------------------------------------------------------------- one time step

def _tanh(x):
    """tanh(x) as 2*sigmoid(2x) - 1: torchlike's tanh kernel is a scalar libm
    loop several times slower than its sigmoid, and the recurrences call it
    every step. The absolute error stays within a few float eps."""
    s = (x * 2).sigmoid()
    return s + s - 1


def _lstm_step(x_gates, state, w_hh_t, w_hr_t):
    """x_gates: this step's input projection with both biases folded in."""
    h, c = state
    gates = torchlike.addmm(x_gates, h, w_hh_t)
    hsz = c.shape[1]
    # One sigmoid over all four gate blocks is cheaper than three separate
    # calls; the cell-candidate block is recomputed with tanh.
    act = gates.sigmoid()
    in_gate = act[:, :hsz]
    forget_gate = act[:, hsz:2 * hsz]
    out_gate = act[:, 3 * hsz:]
    candidate = _tanh(gates[:, 2 * hsz:3 * hsz])
    c = torchlike.addcmul(forget_gate * c, in_gate, candidate)
    h = out_gate * _tanh(c)
    if w_hr_t is not None:
        h = h.mm(w_hr_t)
    return h, (h, c)


def _gru_step(x_gates, state, w_hh_t, b_hh):
    (h,) = state
    hsz = h.shape[1]
    h_gates = h.mm(w_hh_t) if b_hh is None else torchlike.addmm(b_hh, h, w_hh_t)
    reset_update = (x_gates[:, :2 * hsz] + h_gates[:, :2 * hsz]).sigmoid()
    reset = reset_update[:, :hsz]
    update = reset_update[:, hsz:]
    new = _tanh(torchlike.addcmul(x_gates[:, 2 * hsz:], reset, h_gates[:, 2 * hsz:]))
    # (1 - z) * n + z * h, written with one fused multiply-add.
    h = torchlike.addcmul(new, update, h - new)
    return h, (h,)


def _make_plain_step(nonlinearity):
    def step(x_gates, state, w_hh_t, unused):
        (h,) = state
        pre = torchlike.addmm(x_gates, h, w_hh_t)
        h = _tanh(pre) if nonlinearity == "tanh" else pre.relu()
        return h, (h,)
    return step


_CELL_STEPS = {"LSTM": _lstm_step, "GRU": _gru_step,
               "RNN_TANH": _make_plain_step("tanh"), "RNN_RELU": _make_plain_step("relu")}


# ---------------------------------------------------------------- fused LSTM over a padded sequence

class _LSTMSequence(Function):
    """A whole LSTM direction over a padded (T, B, 4H) input projection, run by
    the C++ ops _lstm_fused_sequence / _lstm_fused_sequence_backward.

    Why: recorded op by op, every step leaves ~8 autograd nodes and a dozen
    dispatched calls; here a step is one GEMM plus one fused gate pass in C++,
    and the backward's recurrent-weight gradient is one product over all steps.

    Inputs: x_gates (T, B, 4H) = x W_ih^T + biases, h0 and c0 (B, H), w_hh (4H, H).
    Outputs: out (T, B, H) in time order, h_n, c_n (B, H). The gradient for
    x_gates flows on through the input projection's own autograd node."""

    @staticmethod
    def forward(ctx, x_gates, h0, c0, w_hh, reverse):
        out, h_n, c_n, workspace = torchlike._lstm_fused_sequence(x_gates, h0, c0, w_hh, reverse)
        ctx.reverse = reverse
        ctx.save_for_backward(h0, c0, w_hh, out, workspace)
        return out, h_n, c_n

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out, grad_hn, grad_cn):
        h0, c0, w_hh, out, workspace = ctx.saved_tensors
        grad_gates, grad_h0, grad_c0, grad_w_hh = torchlike._lstm_fused_sequence_backward(
            grad_out, grad_hn, grad_cn, h0, c0, w_hh, out, workspace, ctx.reverse)
        return grad_gates, grad_h0, grad_c0, grad_w_hh, None


# ---------------------------------------------------------------- one direction of one layer

def _input_projection(mode, seq2d, w_ih, b_ih, b_hh):
    """All steps' input projections, (rows, gates), as one matrix product.
    For the GRU only b_ih folds in: its b_hh sits inside the reset product."""
    if b_ih is None:
        return seq2d.mm(w_ih.t())
    bias = b_ih if mode == "GRU" else b_ih + b_hh
    return torchlike.addmm(bias, seq2d, w_ih.t())


def _run_direction(mode, steps_in, sizes, state0, weights, reverse):
    """Run the recurrence over `steps_in` (a list of per-step input projections,
    step t having sizes[t] rows). Returns the per-step outputs in time order and
    the final state, full batch, each tensor sorted like the batch."""
    w_hh, b_hh, w_hr = weights
    w_hh_t = w_hh.t()
    extra = b_hh if mode == "GRU" else (None if w_hr is None else w_hr.t())
    step = _CELL_STEPS[mode]
    n_steps = len(steps_in)
    full = sizes[0] if n_steps else state0[0].shape[0]
    outputs = [None] * n_steps

    if not reverse:
        state = state0
        finished = []  # state rows of sequences that have ended, latest-ending first
        live = full
        for t in range(n_steps):
            rows = sizes[t]
            if rows < live:
                finished.append(tuple(s[rows:live] for s in state))
                state = tuple(s[:rows] for s in state)
                live = rows
            outputs[t], state = step(steps_in[t], state, w_hh_t, extra)
        if finished:
            pieces = [state] + finished[::-1]
            state = tuple(torchlike.cat([p[i] for p in pieces], 0) for i in range(len(state)))
        return outputs, state

    # Backwards in time the batch only grows: rows join from the initial state
    # when their sequences start (at their last element).
    live = sizes[-1] if n_steps else full
    state = tuple(s[:live] for s in state0)
    for t in range(n_steps - 1, -1, -1):
        rows = sizes[t]
        if rows > live:
            state = tuple(torchlike.cat([s, s0[live:rows]], 0) for s, s0 in zip(state, state0))
            live = rows
        outputs[t], state = step(steps_in[t], state, w_hh_t, extra)
    return outputs, state


# ---------------------------------------------------------------- the whole stack

def _param_groups(mode, params, has_biases, num_layers, num_directions, projects):
    per = 2 + (2 if has_biases else 0) + (1 if projects else 0)
    expected = per * num_layers * num_directions
    if len(params) != expected:
        raise RuntimeError(
            f"{mode.lower()}: expected {expected} parameter tensors for {num_layers} layer(s) "
            f"and {num_directions} direction(s), got {len(params)}")
    groups = []
    for k in range(num_layers * num_directions):
        chunk = list(params[k * per:(k + 1) * per])
        w_ih, w_hh = chunk[0], chunk[1]
        b_ih = chunk[2] if has_biases else None
        b_hh = chunk[3] if has_biases else None
        w_hr = chunk[-1] if projects else None
        groups.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    return groups


def _run_stack(mode, data, sizes, padded_shape, hx, params, has_biases, num_layers,
               dropout, train, bidirectional):
    """data: time-major rows, either (T, B, F) padded (sizes all B) or packed (N, F).
    hx: tuple of state tensors, each (layers * directions, B, size).
    Returns (output rows like data, tuple of final states)."""
    num_directions = 2 if bidirectional else 1
    projects = mode == "LSTM" and hx[0].shape[-1] != hx[1].shape[-1]
    groups = _param_groups(mode, params, has_biases, num_layers, num_directions, projects)
    finals = [[] for _ in hx]
    layer_in = data if padded_shape is None else data.reshape(-1, data.shape[-1])
    for layer in range(num_layers):
        direction_outputs = []
        for d in range(num_directions):
            w_ih, w_hh, b_ih, b_hh, w_hr = groups[layer * num_directions + d]
            proj = _input_projection(mode, layer_in, w_ih, b_ih, b_hh)
            state0 = tuple(s[layer * num_directions + d] for s in hx)
            # The fused kernels are CPU (and Meta) only; other devices step in Python.
            if (mode == "LSTM" and w_hr is None and padded_shape is not None
                    and proj.device.type in ("cpu", "meta")):
                h0, c0, w_rec = state0[0], state0[1], w_hh
                if proj.dtype != w_hh.dtype:
                    # Under autocast the input projection ran in the lower precision;
                    # the recurrent product would too, so the sequence runs in it.
                    h0, c0, w_rec = h0.to(proj.dtype), c0.to(proj.dtype), w_hh.to(proj.dtype)
                out, h_n, c_n = _LSTMSequence.apply(
                    proj.view(len(sizes), sizes[0], proj.shape[1]), h0, c0, w_rec, d == 1)
                direction_outputs.append(out.view(-1, out.shape[-1]))
                finals[0].append(h_n)
                finals[1].append(c_n)
                continue
            steps_in = (proj.view(len(sizes), sizes[0], proj.shape[1]).unbind(0)
                        if padded_shape is not None else proj.split(sizes, 0))
            outs, state = _run_direction(mode, steps_in, sizes, state0, (w_hh, b_hh, w_hr), d == 1)
            direction_outputs.append(torchlike.cat(outs, 0))
            for store, s in zip(finals, state):
                store.append(s)
        layer_out = (direction_outputs[0] if num_directions == 1
                     else torchlike.cat(direction_outputs, 1))
        if dropout > 0 and train and layer < num_layers - 1:
            layer_out = _F.dropout(layer_out, p=dropout, training=True)
        layer_in = layer_out
    if padded_shape is not None:
        layer_in = layer_in.view(padded_shape[0], padded_shape[1], layer_in.shape[-1])
    return layer_in, tuple(torchlike.stack(store, 0) for store in finals)


def _dispatch(mode, args, kwargs, state_is_pair):
    """Sort out torch's two overloads of the functional RNN ops:
    (input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
    and (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)."""
    name = mode.lower()
    packed = len(args) > 2 and isinstance(args[1], torchlike.Tensor) and (
        state_is_pair or isinstance(args[2], torchlike.Tensor))
    if packed:
        names = ("data", "batch_sizes", "hx", "params", "has_biases", "num_layers", "dropout",
                 "train", "bidirectional")
    else:
        names = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
                 "bidirectional", "batch_first")
    if len(args) > len(names):
        raise TypeError(f"{name}() takes {len(names)} arguments but {len(args)} were given")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in bound:
            raise TypeError(f"{name}() got an unexpected or repeated argument '{key}'")
        bound[key] = value
    missing = [n for n in names if n not in bound]
    if missing:
        raise TypeError(f"{name}() missing required argument '{missing[0]}'")

    hx = tuple(bound["hx"]) if state_is_pair else (bound["hx"],)
    if state_is_pair and len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    common = (list(bound["params"]), bool(bound["has_biases"]), int(bound["num_layers"]),
              float(bound["dropout"]), bool(bound["train"]), bool(bound["bidirectional"]))
    if packed:
        sizes = [int(v) for v in bound["batch_sizes"].tolist()]
        out, states = _run_stack(mode, bound["data"], sizes, None, hx, *common)
    else:
        x = bound["input"]
        if bound["batch_first"]:
            x = x.transpose(0, 1)
        if x.dim() != 3:
            raise RuntimeError(f"{name}: expected a 3-D input, got {x.dim()}-D")
        sizes = [x.shape[1]] * x.shape[0]
        out, states = _run_stack(mode, x, sizes, (x.shape[0], x.shape[1]), hx, *common)
        if bound["batch_first"]:
            out = out.transpose(0, 1)
    return (out,) + states


def lstm(*args, **kwargs):
    """lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
    or lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)
    -> (output, h_n, c_n)."""
    return _dispatch("LSTM", args, kwargs, True)


def gru(*args, **kwargs):
    """gru(input, hx, params, ...) or gru(data, batch_sizes, hx, params, ...) -> (output, h_n)."""
    return _dispatch("GRU", args, kwargs, False)


def rnn_tanh(*args, **kwargs):
    """Elman RNN with tanh; same two overloads as gru."""
    return _dispatch("RNN_TANH", args, kwargs, False)


def rnn_relu(*args, **kwargs):
    """Elman RNN with ReLU; same two overloads as gru."""
    return _dispatch("RNN_RELU", args, kwargs, False)


# ---------------------------------------------------------------- single cells

def _check_cell(input, states, w_ih, w_hh, gates_per_hidden):
    if input.dim() != 2:
        raise RuntimeError(f"Expected input to be 2-D (batch, input_size), got {input.dim()}-D")
    hidden = w_hh.shape[1]
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    if w_ih.shape[0] != gates_per_hidden * hidden:
        raise RuntimeError(
            f"weight_ih first dim must be {gates_per_hidden} * hidden_size = "
            f"{gates_per_hidden * hidden}, but got {w_ih.shape[0]}")
    for i, s in enumerate(states):
        if s.dim() != 2 or s.shape[0] != input.shape[0]:
            raise RuntimeError(
                f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                f"{s.shape[0] if s.dim() else 0}")
        if s.shape[1] != hidden:
            raise RuntimeError(
                f"hidden{i} has inconsistent hidden_size: got {s.shape[1]}, expected {hidden}")


def _cell_input_gates(input, w_ih, b_ih, b_hh):
    """x W_ih^T plus whichever of the two biases are given (both fold into one addmm)."""
    if b_ih is not None and b_hh is not None:
        return torchlike.addmm(b_ih + b_hh, input, w_ih.t())
    bias = b_ih if b_ih is not None else b_hh
    return input.mm(w_ih.t()) if bias is None else torchlike.addmm(bias, input, w_ih.t())


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: (h', c') from input (B, I) and hx = (h, c)."""
    hx = tuple(hx)
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    _check_cell(input, hx, w_ih, w_hh, 4)
    x_gates = _cell_input_gates(input, w_ih, b_ih, b_hh)
    _, state = _lstm_step(x_gates, hx, w_hh.t(), None)
    return state


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: h' from input (B, I) and h (B, H)."""
    _check_cell(input, (hx,), w_ih, w_hh, 3)
    x_gates = input.mm(w_ih.t()) if b_ih is None else torchlike.addmm(b_ih, input, w_ih.t())
    h, _ = _gru_step(x_gates, (hx,), w_hh.t(), b_hh)
    return h


def _plain_cell(nonlinearity, input, hx, w_ih, w_hh, b_ih, b_hh):
    _check_cell(input, (hx,), w_ih, w_hh, 1)
    x_gates = _cell_input_gates(input, w_ih, b_ih, b_hh)
    h, _ = _CELL_STEPS[nonlinearity](x_gates, (hx,), w_hh.t(), None)
    return h


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step: tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _plain_cell("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step: relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _plain_cell("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)
