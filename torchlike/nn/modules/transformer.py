"""The Transformer family: encoder and decoder layers, their stacks, and the
encoder-decoder model of "Attention Is All You Need".

Each layer is attention plus a two-layer feed-forward block, each wrapped in
a residual connection with LayerNorm either after the sum (norm_first=False,
the paper's arrangement) or before the block (norm_first=True)."""
import copy
import warnings

import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.activation import GELU, ReLU
from torchlike.nn.modules.activation_mha import MultiheadAttention
from torchlike.nn.modules.container import ModuleList
from torchlike.nn.modules.dropout import Dropout
from torchlike.nn.modules.linear import Linear
from torchlike.nn.modules.module import Module
from torchlike.nn.modules.normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


# ---------------------------------------------------------------- helpers

def _activation_from_name(name):
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


def _relu_or_gelu_code(activation):
    """1 for ReLU, 2 for GELU (function or module), 0 otherwise, as PyTorch records it."""
    if activation is F.relu or isinstance(activation, ReLU):
        return 1
    if activation is F.gelu or isinstance(activation, GELU):
        return 2
    return 0


def _as_float_mask(mask, name, other, other_name, dtype):
    """A bool mask turned additive (-inf where True); float masks pass through."""
    if mask is None:
        return None
    if mask.dtype != torchlike.bool and not torchlike.is_floating_point(mask):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. "
                      "Use same type for both instead.")
    if mask.dtype == torchlike.bool:
        return torchlike.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(
            mask, float("-inf"))
    return mask


def _causal_mask(size, device=None, dtype=None):
    """(size, size) float mask: 0 on and below the diagonal, -inf above."""
    if device is None:
        device = torchlike.device("cpu")
    if dtype is None:
        dtype = torchlike.float32
    full = torchlike.full((size, size), float("-inf"), dtype=dtype, device=device)
    return torchlike.triu(full, diagonal=1)


def _mask_is_causal(mask, is_causal, size):
    """Resolve the is_causal hint: an explicit value wins; with None, a square
    mask is checked against the causal pattern."""
    if is_causal is not None:
        return bool(is_causal)
    if mask is None or mask.dim() != 2 or tuple(mask.shape) != (size, size):
        return False
    if mask.dtype == torchlike.bool:
        reference = torchlike.ones((size, size), dtype=torchlike.bool, device=mask.device).triu(1)
    else:
        reference = _causal_mask(size, device=mask.device, dtype=mask.dtype)
    return bool(torchlike.equal(mask, reference))


def _seq_len(x, batch_first):
    return x.shape[1] if (batch_first and x.dim() == 3) else x.shape[0]


# ---------------------------------------------------------------- layers

class TransformerEncoderLayer(Module):
    """Self-attention then feed-forward, each with a residual and LayerNorm."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation_from_name(activation)
        self.activation_relu_or_gelu = _relu_or_gelu_code(activation)
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def _self_attention(self, x, attn_mask, key_padding_mask, is_causal):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                             need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(out)

    def _feed_forward(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src_key_padding_mask = _as_float_mask(src_key_padding_mask, "src_key_padding_mask",
                                              src_mask, "src_mask", src.dtype)
        src_mask = _as_float_mask(src_mask, "src_mask", None, "", src.dtype)
        x = src
        if self.norm_first:
            x = x + self._self_attention(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._feed_forward(self.norm2(x))
        else:
            x = self.norm1(x + self._self_attention(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._feed_forward(x))
        return x


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, then feed-forward;
    each with a residual and LayerNorm."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, **factory_kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation_from_name(activation)
        self.activation = activation

    def __setstate__(self, state):
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def _self_attention(self, x, attn_mask, key_padding_mask, is_causal):
        out = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                             is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(out)

    def _memory_attention(self, x, memory, attn_mask, key_padding_mask, is_causal):
        out = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                  key_padding_mask=key_padding_mask, is_causal=is_causal,
                                  need_weights=False)[0]
        return self.dropout2(out)

    def _feed_forward(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._self_attention(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._memory_attention(self.norm2(x), memory, memory_mask,
                                           memory_key_padding_mask, memory_is_causal)
            x = x + self._feed_forward(self.norm3(x))
        else:
            x = self.norm1(x + self._self_attention(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._memory_attention(x, memory, memory_mask,
                                                      memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._feed_forward(x))
        return x


# ---------------------------------------------------------------- stacks

def _repeat(module, count):
    return ModuleList([copy.deepcopy(module) for _ in range(count)])


def _nested_tensor_blocker(layer):
    """Why PyTorch's nested-tensor fast path could not be used with this layer
    (its warning names the first reason), or '' when it could."""
    who = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{who} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{who}.norm_first was True"
    if not layer.self_attn.batch_first:
        return (f"{who}.self_attn.batch_first was not True"
                "(use batch_first for better inference performance)")
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{who}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{who}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{who}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{who}.norm1.eps was not equal to {who}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{who}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer applied in turn, then `norm` if given.

    enable_nested_tensor is accepted for compatibility; torchlike has no nested
    tensors, so padded positions are always computed and masked."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _repeat(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        reason = _nested_tensor_blocker(encoder_layer)
        if enable_nested_tensor and reason:
            warnings.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                          f"because {reason}")
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        src_key_padding_mask = _as_float_mask(src_key_padding_mask, "src_key_padding_mask",
                                              mask, "mask", src.dtype)
        mask = _as_float_mask(mask, "mask", None, "", src.dtype)
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        is_causal = _mask_is_causal(mask, is_causal, _seq_len(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal,
                           src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer applied in turn, then `norm` if given."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _repeat(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        tgt_is_causal = _mask_is_causal(tgt_mask, tgt_is_causal, _seq_len(tgt, batch_first))
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """Encoder-decoder Transformer; custom_encoder / custom_decoder replace the
    default stacks. All matrices start Xavier-uniform."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        layer_args = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                          layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                          norm_first=norm_first, bias=bias, **factory_kwargs)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(d_model, nhead, **layer_args), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(d_model, nhead, **layer_args), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if batched and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The causal mask for a length-sz sequence: 0 where attending is allowed
        (on and below the diagonal), -inf above it."""
        return _causal_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
