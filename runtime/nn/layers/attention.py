"""Multi-head attention (``mindspore.nn.MultiheadAttention``), composed from registered ops.

Example:
    >>> import numpy as np
    >>> from runtime import nn, Tensor
    >>> mha = nn.MultiheadAttention(8, 2)
    >>> x = Tensor(np.zeros((5, 3, 8), np.float32))  # (L, N, E)
    >>> out, w = mha(x, x, x)
    >>> out.shape, w.shape
    ((5, 3, 8), (3, 5, 5))
"""
from __future__ import annotations

import math

import numpy as np

from graph.dtypes import as_dtype, bool_, float32

from ... import ops
from ...common.initializer import XavierUniform, initializer
from ...parameter import Parameter
from ..cell import Cell
from .basic import Dense, _check_bool, _check_int

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Cell):
    """``softmax(Q K^T / sqrt(d) + masks) V`` over ``num_heads`` heads of size
    ``embed_dim // num_heads``, with the input projections ``in_proj_weight`` (3E, E) /
    ``in_proj_bias`` and the output projection ``out_proj``. Inputs are (L, N, E) (or (N, L, E)
    with ``batch_first``). ``key_padding_mask`` (N, S): True marks keys to ignore; ``attn_mask``
    (L, S) or (N * num_heads, L, S): True (bool) forbids, a float mask is added. Returns
    ``(output, weights)`` with weights averaged over heads (N, L, S) unless
    ``average_attn_weights=False`` (N, heads, L, S); None when ``need_weights=False``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=float32):
        super().__init__()
        name = "MultiheadAttention"
        self.embed_dim = _check_int(name, "embed_dim", embed_dim)
        self.num_heads = _check_int(name, "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"{name}: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise ValueError(f"{name}: add_bias_kv, add_zero_attn and kdim/vdim other than embed_dim are not supported")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"{name}: dropout must be a float in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.batch_first = _check_bool(name, "batch_first", batch_first)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.head_dim = embed_dim // num_heads
        dt = as_dtype(dtype)
        self.in_proj_weight = Parameter(initializer(XavierUniform(), (3 * embed_dim, embed_dim), dt),
                                        name="in_proj_weight")
        self.in_proj_bias = (Parameter(initializer("zeros", (3 * embed_dim,), dt), name="in_proj_bias")
                             if has_bias else None)
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, dtype=dt)
        if has_bias:
            self.out_proj.bias.set_data(np.zeros(embed_dim, dt.np))

    def _project(self, x, i):
        e = self.embed_dim
        w = self.in_proj_weight[i * e:(i + 1) * e]
        y = ops.matmul(x, w, transpose_b=True)
        return y if self.in_proj_bias is None else ops.add(y, self.in_proj_bias[i * e:(i + 1) * e])

    def _project_packed(self, x):
        """q, k and v of self-attention (query, key and value one tensor) from one product with the
        whole ``in_proj_weight``, as torch's MHA computes them: one GEMM three times as wide instead
        of three, and no slices of the weight whose gradients would be scattered back and added."""
        y = ops.matmul(x, self.in_proj_weight, transpose_b=True)
        if self.in_proj_bias is not None:
            y = ops.add(y, self.in_proj_bias)
        return ops.split(y, self.embed_dim, axis=-1)

    def _heads(self, x, length, batch):
        # (L, N, E) -> (N * H, L, d)
        return ops.swapaxes(ops.reshape(x, (length, batch * self.num_heads, self.head_dim)), 0, 1)

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        packed = query is key and key is value
        if self.batch_first:
            query, key, value = (ops.swapaxes(t, 0, 1) for t in (query, key, value))
        tgt, batch = query.shape[0], query.shape[1]
        src = key.shape[0]
        h = self.num_heads
        if packed:
            q, k, v = self._project_packed(query)
        else:
            q, k, v = self._project(query, 0), self._project(key, 1), self._project(value, 2)
        q = ops.mul(self._heads(q, tgt, batch), 1.0 / math.sqrt(self.head_dim))
        k = self._heads(k, src, batch)
        v = self._heads(v, src, batch)
        scores = ops.matmul(q, k, transpose_b=True)  # (N*H, L, S)
        if attn_mask is not None:
            if attn_mask.dtype == bool_:
                scores = ops.masked_fill(scores, attn_mask, float("-inf"))
            else:
                scores = ops.add(scores, attn_mask)
        if key_padding_mask is not None:
            scores = ops.reshape(scores, (batch, h, tgt, src))
            scores = ops.masked_fill(scores, ops.reshape(key_padding_mask, (batch, 1, 1, src)), float("-inf"))
            scores = ops.reshape(scores, (batch * h, tgt, src))
        weights = ops.softmax(scores, -1)
        if self.dropout and self.training:
            weights = ops.dropout(weights, p=self.dropout)
        out = ops.matmul(weights, v)  # (N*H, L, d)
        out = ops.reshape(ops.swapaxes(out, 0, 1), (tgt, batch, self.embed_dim))
        out = self.out_proj(out)
        if self.batch_first:
            out = ops.swapaxes(out, 0, 1)
        if not need_weights:
            return out, None
        w = ops.reshape(weights, (batch, h, tgt, src))
        return out, (ops.mean(w, 1) if average_attn_weights else w)

