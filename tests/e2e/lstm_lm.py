# A word-level LSTM language model as in PyTorch's word_language_model example.
import numpy as np
import torch
import torch.nn as nn

from _common import parse_args, prepare, report


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.encoder(input), hidden)
        return self.decoder(output).view(-1, self.decoder.out_features), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


args = parse_args(10)
torch.manual_seed(args.seed)
rng = np.random.default_rng(args.seed)
ntokens, bptt, bsz = 50, 20, 8
corpus = torch.from_numpy(rng.integers(0, ntokens, bptt * bsz * 4 + 1).astype(np.int64)).to(args.device)
model = RNNModel(ntokens, 32, 64, 2)
prepare(torch, model, args)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
hidden = model.init_hidden(bsz)
stream = corpus[: (corpus.numel() - 1) // bsz * bsz].view(bsz, -1).t().contiguous()
targets_all = corpus[1: stream.numel() + 1].view(bsz, -1).t().contiguous()
model.train()
for step in range(args.steps):
    i = (step * bptt) % (stream.size(0) - bptt)
    data, targets = stream[i:i + bptt], targets_all[i:i + bptt].reshape(-1)
    hidden = repackage_hidden(hidden)
    model.zero_grad()
    output, hidden = model(data, hidden)
    loss = criterion(output, targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
    report(step, loss.item())
