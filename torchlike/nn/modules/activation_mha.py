"""nn.MultiheadAttention over nn.functional.multi_head_attention_forward."""
import torchlike
from torchlike.nn import functional as F
from torchlike.nn import init
from torchlike.nn.modules.linear import Linear
from torchlike.nn.modules.module import Module
from torchlike.nn.parameter import Parameter

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under its own name: PyTorch gives MultiheadAttention's output
    projection this type (it shows in the repr), to keep dynamic quantization
    from swapping it out."""


class MultiheadAttention(Module):
    """Attention over `num_heads` heads of width embed_dim // num_heads.

    With kdim == vdim == embed_dim the three input projections share one packed
    parameter in_proj_weight (3*embed_dim, embed_dim); otherwise they are
    q_proj_weight, k_proj_weight and v_proj_weight. add_bias_kv appends a learnt
    key and value position; add_zero_attn appends an all-zero one."""

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(torchlike.empty((3 * embed_dim, embed_dim), **factory_kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(torchlike.empty((embed_dim, embed_dim), **factory_kwargs))
            self.k_proj_weight = Parameter(torchlike.empty((embed_dim, self.kdim), **factory_kwargs))
            self.v_proj_weight = Parameter(torchlike.empty((embed_dim, self.vdim), **factory_kwargs))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torchlike.empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        **factory_kwargs)
        if add_bias_kv:
            self.bias_k = Parameter(torchlike.empty((1, 1, embed_dim), **factory_kwargs))
            self.bias_v = Parameter(torchlike.empty((1, 1, embed_dim), **factory_kwargs))
        else:
            self.bias_k = None
            self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        # Xavier for the projections, zero biases; the output projection's weight
        # keeps Linear's own initialisation.
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        # Modules pickled before _qkv_same_embed_dim existed default to the packed form.
        state.setdefault("_qkv_same_embed_dim", True)
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batched = query.dim() == 3
        if self.batch_first and batched:
            # Keep self-attention recognisable (query is key is value) after the transpose,
            # so the packed projection stays one matrix product.
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query = query.transpose(1, 0)
                    key = value = key.transpose(1, 0)
            else:
                query, key, value = (t.transpose(1, 0) for t in (query, key, value))

        common = dict(training=self.training, key_padding_mask=key_padding_mask,
                      need_weights=need_weights, attn_mask=attn_mask,
                      average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not self._qkv_same_embed_dim:
            output, weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, use_separate_proj_weight=True,
                q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
                v_proj_weight=self.v_proj_weight, **common)
        else:
            output, weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
                self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
                self.out_proj.weight, self.out_proj.bias, **common)
        if self.batch_first and batched:
            output = output.transpose(1, 0)
        return output, weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """One (N, heads, L, S) additive mask from attn_mask and key_padding_mask,
        and its type: 0 for (L, S), 1 for (N, S), 2 for (N, heads, L, S); (None, None)
        when there is neither."""
        if attn_mask is None and key_padding_mask is None:
            return None, None
        if attn_mask is not None and key_padding_mask is None:
            return attn_mask, 0
        batch, seq_len = query.shape[0], query.shape[1]
        kind = 2
        kpm = key_padding_mask.view(batch, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
        if kpm.dtype == torchlike.bool:
            kpm = torchlike.zeros(kpm.shape, dtype=query.dtype).masked_fill(kpm, float("-inf"))
        if attn_mask is None:
            return kpm.expand(-1, -1, seq_len, -1), kind
        if attn_mask.dim() == 2:
            am = attn_mask.view(1, 1, seq_len, seq_len).expand(batch, self.num_heads, -1, -1)
        else:
            am = attn_mask.view(batch, self.num_heads, seq_len, seq_len)
        if am.dtype == torchlike.bool:
            am = torchlike.zeros(am.shape, dtype=query.dtype).masked_fill(am, float("-inf"))
        return am + kpm, kind
