"""Recurrent-layer timings vs PyTorch (same run, same thread count, same
weights and inputs). Not a test.

    python tools/bench/bench_rnn.py [--threads 2] [--only lstm_step,gru_fwd]

Cases:
  lstm_step  nn.LSTM(128, 128), batch 32, sequence 50: forward, sum().backward()
             and a plain SGD update of every parameter (the issue's target);
  gru_fwd    nn.GRU(128, 128) forward only, same shapes, under no_grad;
  lstm_packed  the LSTM step on a packed batch of mixed lengths.

Printed ratio is torchlike time / PyTorch time: at most 1.0 meets the target.
On a machine busier than its core count, compare with --threads 1 as well:
torchlike's OpenMP regions (pointwise ops over large tensors, and those run
from the autograd engine's thread as well as the caller's) slow down badly
when their second thread is descheduled, and that swamps the RNN's own cost.

torchlike.optim may not exist in this checkout, so both libraries update
with the same hand-written SGD loop (p -= lr * grad under no_grad)."""
import argparse
import importlib
import os
import sys

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(_HERE)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402

import torchlike as tl  # noqa: E402

try:
    import torch
except Exception:  # pragma: no cover
    torch = None

SEQ, BATCH, HIDDEN = 50, 32, 128


def _copy_weights(src, dst, lib):
    """Load src's (a torch module) weights into dst (either library) by value."""
    state = {k: lib.from_numpy(v.detach().numpy().copy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)


def _sgd_step(lib, module, lr=0.01):
    with lib.no_grad():
        for p in module.parameters():
            p.add_(p.grad, alpha=-lr)
            p.grad = None


def make_lstm_step(lib, reference, x_np):
    m = lib.nn.LSTM(HIDDEN, HIDDEN)
    _copy_weights(reference, m, lib)
    x = lib.from_numpy(x_np)

    def run():
        out, _ = m(x)
        out.sum().backward()
        _sgd_step(lib, m)
    return run


def make_gru_fwd(lib, reference, x_np):
    m = lib.nn.GRU(HIDDEN, HIDDEN)
    _copy_weights(reference, m, lib)
    x = lib.from_numpy(x_np)

    def run():
        with lib.no_grad():
            m(x)
    return run


def make_lstm_packed(lib, reference, x_np, lengths):
    m = lib.nn.LSTM(HIDDEN, HIDDEN)
    _copy_weights(reference, m, lib)
    x = lib.from_numpy(x_np)
    pack = lib.nn.utils.rnn.pack_padded_sequence

    def run():
        out, _ = m(pack(x, lengths, enforce_sorted=False))
        out.data.sum().backward()
        _sgd_step(lib, m)
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    if torch is None:
        print("PyTorch is not installed: nothing to compare against")
        return
    if args.threads:
        tl.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    # The packed case reaches the packing helpers as lib.nn.utils.rnn.
    importlib.import_module("torchlike.nn.utils.rnn")
    importlib.import_module("torch.nn.utils.rnn")

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((SEQ, BATCH, HIDDEN)).astype(np.float32)
    lengths = list(rng.integers(SEQ // 2, SEQ + 1, BATCH))
    lengths[0] = SEQ
    torch.manual_seed(0)
    ref_lstm = torch.nn.LSTM(HIDDEN, HIDDEN)
    ref_gru = torch.nn.GRU(HIDDEN, HIDDEN)

    cases = {
        "lstm_step": lambda lib: make_lstm_step(lib, ref_lstm, x_np),
        "gru_fwd": lambda lib: make_gru_fwd(lib, ref_gru, x_np),
        "lstm_packed": lambda lib: make_lstm_packed(lib, ref_lstm, x_np, lengths),
    }
    wanted = [c for c in args.only.split(",") if c] or list(cases)
    print(f"CPU: {cpu_name()}; threads torchlike={tl.get_num_threads()} torch={torch.get_num_threads()}")
    print(f"{'case':<14}{'torchlike ms':>14}{'torch ms':>12}{'ratio tl/torch':>16}")
    for name in wanted:
        ours, theirs = interleaved_median_times([cases[name](tl), cases[name](torch)], repeat=15)
        print(f"{name:<14}{ours * 1e3:>14.2f}{theirs * 1e3:>12.2f}{ours / theirs:>16.2f}")


if __name__ == "__main__":
    main()
