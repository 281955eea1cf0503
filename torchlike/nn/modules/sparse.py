"""Embedding lookup tables: Embedding (one row per index) and EmbeddingBag
(sums, means or maxima over bags of rows, without materialising the rows of a
plain Embedding first)."""
import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


def _resolve_padding_idx(padding_idx, num_embeddings, message):
    """A padding index in [-num, num) made non-negative; None stays None."""
    if padding_idx is None:
        return None
    if padding_idx > 0:
        assert padding_idx < num_embeddings, message
    elif padding_idx < 0:
        assert padding_idx >= -num_embeddings, message
        padding_idx += num_embeddings
    return padding_idx


def _table(num_embeddings, embedding_dim, given, requires_grad, factory_kwargs):
    """The weight Parameter: fresh (to be initialised) or the given tensor."""
    if given is None:
        return Parameter(torchlike.empty((num_embeddings, embedding_dim), **factory_kwargs),
                         requires_grad=requires_grad), True
    assert list(given.shape) == [num_embeddings, embedding_dim], \
        "Shape of weight does not match num_embeddings and embedding_dim"
    return Parameter(given, requires_grad=requires_grad), False


class _LookupTable(Module):
    """What both tables share: a standard-normal weight whose padding row is zero."""

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with torchlike.no_grad():
                self.weight[self.padding_idx].fill_(0)


class Embedding(_LookupTable):
    """Maps integer indices to rows of a (num_embeddings, embedding_dim) weight.
    The padding_idx row gets no gradient; max_norm renormalises looked-up rows in
    place; sparse=True makes the weight's gradient a sparse tensor."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _resolve_padding_idx(padding_idx, num_embeddings,
                                                "Padding_idx must be within num_embeddings")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.weight, fresh = _table(num_embeddings, embedding_dim, _weight, not _freeze, factory_kwargs)
        if fresh:
            self.reset_parameters()
        self.sparse = sparse

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            text += ", sparse=True"
        return text

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is `embeddings` (2-d), frozen unless freeze=False."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(_LookupTable):
    """Reduces bags of embedding rows ('sum', 'mean' or 'max'). A 2-d input is a
    batch of equal-length bags; a 1-d input is split into bags at `offsets`
    (with include_last_offset, the last offset closes the last bag).
    per_sample_weights scale each row before a 'sum'."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _resolve_padding_idx(padding_idx, num_embeddings,
                                                "padding_idx must be within num_embeddings")
        self.weight, fresh = _table(num_embeddings, embedding_dim, _weight, True, factory_kwargs)
        if fresh:
            self.reset_parameters()
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        return text

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose weight is `embeddings` (2-d), frozen unless freeze=False."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
