"""Training-step benchmarks of issue 11, torchlike against PyTorch in one run.

Each case builds the same model in both libraries (torchlike's weights copied from
PyTorch's), then times one full step (forward, loss, backward, optimizer step) with
interleaved medians of >= 15 repeats after warm-up. Ratio = torchlike time / PyTorch
time; <= 1.0 means torchlike is at least as fast.

    python tools/bench/bench_training.py [--only mlp,cnn,lstm,gpt] [--threads N]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cpu_name, interleaved_median_times  # noqa: E402


def copy_weights(src, dst, torchlike):
    sd = {k: torchlike.from_numpy(v.detach().numpy().copy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(sd)


def make_mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def make_cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64 * 12 * 12, 10))


def make_lstm(lib):
    nn = lib.nn

    class LSTMNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(128, 128, batch_first=True)
            self.head = nn.Linear(128, 10)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[:, -1])
    return LSTMNet()


def make_gpt(lib):
    nn = lib.nn
    F = lib.nn.functional

    class Block(nn.Module):
        def __init__(self, d, h):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
            self.h = h

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, self.h, C // self.h).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self, vocab=65, block=64, layers=4, heads=4, d=128):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(block, d)
            self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
            self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            for b in self.blocks:
                x = b(x)
            return self.head(self.ln_f(x))
    return GPT()


rng = np.random.default_rng(0)
CASES = {
    # name: (builder, input array, target array, optimizer factory, loss)
    "mlp": (make_mlp, rng.standard_normal((128, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 128),
            lambda lib, p: lib.optim.SGD(p, lr=0.01, momentum=0.9), "ce"),
    "cnn": (make_cnn, rng.standard_normal((64, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 64),
            lambda lib, p: lib.optim.Adam(p, lr=1e-3), "ce"),
    "lstm": (make_lstm, rng.standard_normal((32, 50, 128)).astype(np.float32), rng.integers(0, 10, 32),
             lambda lib, p: lib.optim.SGD(p, lr=0.01), "ce"),
    "gpt": (make_gpt, rng.integers(0, 65, (16, 64)), rng.integers(0, 65, (16, 64)),
            lambda lib, p: lib.optim.AdamW(p, lr=1e-3), "ce_seq"),
}
LABELS = {
    "mlp": "MLP 784-512-256-10 step, batch 128, SGD momentum",
    "cnn": "CNN 1->32->64 conv3x3, maxpool, linear, batch 64 28x28, Adam",
    "lstm": "LSTM step, batch 32, seq 50, hidden 128, SGD",
    "gpt": "GPT step, 4 layers, 4 heads, width 128, seq 64, batch 16, AdamW",
}


def make_step(lib, model, x, y, opt, loss_kind):
    F = lib.nn.functional

    def step():
        opt.zero_grad(set_to_none=True)
        out = model(x)
        if loss_kind == "ce_seq":
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        else:
            loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="mlp,cnn,lstm,gpt")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    import torch
    import torchlike
    if args.threads:
        torch.set_num_threads(args.threads)
        torchlike.set_num_threads(args.threads)
    print(f"CPU: {cpu_name()}; threads torch={torch.get_num_threads()} torchlike={torchlike.get_num_threads()}")
    print(f"{'case':66s} {'torchlike ms':>12s} {'torch ms':>9s} {'ratio':>6s}")
    for name in args.only.split(","):
        build, xa, ya, make_opt, loss_kind = CASES[name]
        torch.manual_seed(0)
        ref = build(torch)
        ours = build(torchlike)
        copy_weights(ref, ours, torchlike)
        xt = torch.from_numpy(xa.astype(np.int64) if xa.dtype.kind == "i" else xa)
        xo = torchlike.from_numpy(xa.astype(np.int64) if xa.dtype.kind == "i" else xa)
        yt, yo = torch.from_numpy(ya.astype(np.int64)), torchlike.from_numpy(ya.astype(np.int64))
        step_t = make_step(torch, ref, xt, yt, make_opt(torch, ref.parameters()), loss_kind)
        step_o = make_step(torchlike, ours, xo, yo, make_opt(torchlike, ours.parameters()), loss_kind)
        t_ours, t_ref = interleaved_median_times([step_o, step_t], repeat=args.repeat, warmup=3)
        print(f"{LABELS[name]:66s} {t_ours * 1e3:12.2f} {t_ref * 1e3:9.2f} {t_ours / t_ref:6.2f}")


if __name__ == "__main__":
    main()
