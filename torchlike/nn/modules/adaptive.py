"""AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. (2016).

The classes are split by `cutoffs` into a frequent shortlist, scored directly
by the head, and clusters of rarer classes. The head also scores each cluster as
a whole; a class inside cluster k gets
    log p(class) = log p_head(cluster k) + log p_k(class | cluster k),
where p_k comes from a small two-layer projection (in_features -> in_features //
div_value^(k+1) -> cluster size), so rare classes cost less to score."""
from collections import namedtuple

import torchlike
from torchlike.nn import functional as F
from torchlike.nn.modules.container import ModuleList, Sequential
from torchlike.nn.modules.linear import Linear
from torchlike.nn.modules.module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

# forward's result: per-row target log-probabilities and their mean NLL.
_ASMoutput = namedtuple("_ASMoutput", "output loss")


class AdaptiveLogSoftmaxWithLoss(Module):
    """forward(input, target) returns (output, loss): the log-probability of each
    target and the mean negative log-likelihood. log_prob gives the full (N,
    n_classes) log-distribution and predict its argmax."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        increasing = all(a < b for a, b in zip(cutoffs, cutoffs[1:]))
        in_range = all(int(c) == c and 0 < c < n_classes for c in cutoffs)
        if not (increasing and in_range):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")

        self.in_features, self.n_classes = in_features, n_classes
        self.div_value, self.head_bias = div_value, head_bias
        # Class ranges: [0, cutoffs[0]) is the shortlist, then one cluster per
        # consecutive pair of boundaries, the last ending at n_classes.
        boundaries = cutoffs + [n_classes]
        self.cutoffs = boundaries
        self.shortlist_size = boundaries[0]
        self.n_clusters = len(cutoffs)
        self.head_size = boundaries[0] + len(cutoffs)

        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory_kwargs)
        self.tail = ModuleList([self._cluster_projection(k, factory_kwargs) for k in range(len(cutoffs))])

    def _cluster_projection(self, k, factory_kwargs):
        """in_features -> in_features // div_value^(k+1) -> size of cluster k."""
        hidden = int(self.in_features // (self.div_value ** (k + 1)))
        low, high = self.cutoffs[k], self.cutoffs[k + 1]
        return Sequential(Linear(self.in_features, hidden, bias=False, **factory_kwargs),
                          Linear(hidden, high - low, bias=False, **factory_kwargs))

    def reset_parameters(self):
        for layer in [self.head] + [lin for projection in self.tail for lin in projection]:
            layer.reset_parameters()

    def _cluster_bounds(self):
        """(first class, one past the last class) of each tail cluster."""
        return list(zip(self.cutoffs[:-1], self.cutoffs[1:]))

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.dim() == 0 or input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.shape}")
            input, target = input_, target_
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.shape}")
            input, target = input_.unsqueeze(0), target_.unsqueeze(0)
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

        batch = target.shape[0]
        # Which head column scores each row: the class itself for shortlist
        # targets, the cluster's column for tail targets.
        head_column = target.clone()
        tail_part = torchlike.zeros(batch, dtype=input.dtype, device=input.device)
        covered = (target >= 0) & (target < self.shortlist_size)
        for k, (low, high) in enumerate(self._cluster_bounds()):
            in_cluster = (target >= low) & (target < high)
            rows = in_cluster.nonzero().flatten()
            if rows.numel() == 0:
                continue
            covered = covered | in_cluster
            head_column = head_column.masked_fill(in_cluster, self.shortlist_size + k)
            within = (target.index_select(0, rows) - low).unsqueeze(1)
            cluster_logprob = F.log_softmax(self.tail[k](input.index_select(0, rows)), dim=1)
            tail_part = tail_part.index_add(0, rows, cluster_logprob.gather(1, within).squeeze(1))

        if batch and not bool(covered.all()):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{int(target.min())}, {int(target.max())}] were found. ")

        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = head_logprob.gather(1, head_column.unsqueeze(1)).squeeze(1) + tail_part
        loss = (-output).mean()
        if target_.dim() == 0:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input, head_logprob):
        """(N, n_classes) log-probabilities given the head's log-softmax."""
        pieces = [head_logprob[:, :self.shortlist_size]]
        for k, projection in enumerate(self.tail):
            cluster_logprob = F.log_softmax(projection(input), dim=1)
            column = self.shortlist_size + k
            pieces.append(cluster_logprob + head_logprob[:, column:column + 1])
        return torchlike.cat(pieces, dim=1)

    def log_prob(self, input):
        """Log-probabilities of every class for a (N, in_features) input."""
        return self._full_log_prob(input, F.log_softmax(self.head(input), dim=1))

    def predict(self, input):
        """The most likely class of each row of a (N, in_features) input.

        A shortlist class that wins the head beats every tail class (whose
        probability is at most its cluster's), so only rows whose head winner is
        a cluster need the full distribution."""
        head_out = self.head(input)
        best = head_out.argmax(1)
        needs_tail = best >= self.shortlist_size
        rows = needs_tail.nonzero().flatten()
        if rows.numel() == 0:
            return best
        subset = input.index_select(0, rows)
        full = self._full_log_prob(subset, F.log_softmax(head_out.index_select(0, rows), dim=1))
        return best.index_put((rows,), full.argmax(1))
