"""MindSpore 2.x's ``nn.Transformer``, ``TransformerEncoder``/``TransformerEncoderLayer`` and
``TransformerDecoder``/``TransformerDecoderLayer``, composed from ``MultiheadAttention``, ``Dense``,
``LayerNorm`` and ``Dropout``.

The arguments, sub-Cell names (``self_attn``, ``linear1``, ``norm1`` ...) and the computation are
MindSpore's (which follow PyTorch's): given the same weights, the outputs equal
``torch.nn.Transformer``'s (tests/runtime/test_transformer.py). Masks: a bool mask is True where
attention is forbidden; a float mask is added to the attention scores.

Example:
    >>> import numpy as np
    >>> from runtime import nn, Tensor
    >>> layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16)
    >>> enc = nn.TransformerEncoder(layer, num_layers=2)
    >>> enc(Tensor(np.zeros((5, 3, 8), np.float32))).shape
    (5, 3, 8)
"""
from __future__ import annotations

import copy

from graph.dtypes import as_dtype, float32

from ... import ops
from ..cell import Cell
from .attention import MultiheadAttention
from .basic import CellList, Dense, Dropout, _check_bool, _check_int
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "Transformer"]

_ACTIVATIONS = {"relu": ops.relu, "gelu": ops.gelu}


def _activation(name, activation):
    """``activation``: "relu", "gelu" (exact), a Cell or a callable."""
    if isinstance(activation, str):
        fn = _ACTIVATIONS.get(activation.lower())
        if fn is None:
            raise ValueError(f"{name}: activation should be 'relu' or 'gelu' (or a Cell/callable), got {activation!r}")
        return fn
    if callable(activation):
        return activation
    raise TypeError(f"{name}: activation must be a str, a Cell or a callable, got {type(activation).__name__}")


def _check_args(name, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, batch_first, norm_first):
    _check_int(name, "d_model", d_model)
    _check_int(name, "nhead", nhead)
    _check_int(name, "dim_feedforward", dim_feedforward)
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
        raise ValueError(f"{name}: dropout must be a float in [0, 1), got {dropout!r}")
    if isinstance(layer_norm_eps, bool) or not isinstance(layer_norm_eps, (int, float)) or layer_norm_eps <= 0:
        raise ValueError(f"{name}: layer_norm_eps must be a positive float, got {layer_norm_eps!r}")
    _check_bool(name, "batch_first", batch_first)
    _check_bool(name, "norm_first", norm_first)


def _layer_norm(d_model, eps, dt):
    return LayerNorm((d_model,), epsilon=float(eps), dtype=dt)


class TransformerEncoderLayer(Cell):
    """Self-attention then a feed-forward block, each with a residual connection and LayerNorm
    (after the block, or before it with ``norm_first=True``).
    ``construct(src, src_mask=None, src_key_padding_mask=None)``."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=float32):
        super().__init__()
        name = "TransformerEncoderLayer"
        _check_args(name, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, batch_first, norm_first)
        dt = as_dtype(dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dt)
        self.linear1 = Dense(d_model, dim_feedforward, dtype=dt)
        self.dropout = Dropout(p=dropout)
        self.linear2 = Dense(dim_feedforward, d_model, dtype=dt)
        self.norm_first = norm_first
        self.norm1 = _layer_norm(d_model, layer_norm_eps, dt)
        self.norm2 = _layer_norm(d_model, layer_norm_eps, dt)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.activation = _activation(name, activation)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Cell):
    """Self-attention, attention over the encoder's ``memory``, then a feed-forward block, each
    with a residual connection and LayerNorm. ``construct(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None)``."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=float32):
        super().__init__()
        name = "TransformerDecoderLayer"
        _check_args(name, d_model, nhead, dim_feedforward, dropout, layer_norm_eps, batch_first, norm_first)
        dt = as_dtype(dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dt)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dt)
        self.linear1 = Dense(d_model, dim_feedforward, dtype=dt)
        self.dropout = Dropout(p=dropout)
        self.linear2 = Dense(dim_feedforward, d_model, dtype=dt)
        self.norm_first = norm_first
        self.norm1 = _layer_norm(d_model, layer_norm_eps, dt)
        self.norm2 = _layer_norm(d_model, layer_norm_eps, dt)
        self.norm3 = _layer_norm(d_model, layer_norm_eps, dt)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)
        self.activation = _activation(name, activation)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _clones(layer, n):
    """``n`` independent copies of ``layer`` (fresh Parameters with the same initial values)."""
    return CellList([copy.deepcopy(layer) for _ in range(n)])


class TransformerEncoder(Cell):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then ``norm`` when given.
    ``construct(src, src_mask=None, src_key_padding_mask=None)``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        if not isinstance(encoder_layer, Cell):
            raise TypeError(f"TransformerEncoder: encoder_layer must be a Cell, got {type(encoder_layer).__name__}")
        self.layers = _clones(encoder_layer, _check_int("TransformerEncoder", "num_layers", num_layers))
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Cell):
    """``num_layers`` copies of ``decoder_layer`` applied in turn, then ``norm`` when given.
    ``construct(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        if not isinstance(decoder_layer, Cell):
            raise TypeError(f"TransformerDecoder: decoder_layer must be a Cell, got {type(decoder_layer).__name__}")
        self.layers = _clones(decoder_layer, _check_int("TransformerDecoder", "num_layers", num_layers))
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Cell):
    """An encoder-decoder Transformer (Vaswani et al.): ``construct(src, tgt, src_mask=None,
    tgt_mask=None, memory_mask=None, src_key_padding_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None)``; inputs (S, N, E)/(T, N, E), or batch first."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, dtype=float32):
        super().__init__()
        dt = as_dtype(dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dt)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, _layer_norm(d_model, layer_norm_eps, dt))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype=dt)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, _layer_norm(d_model, layer_norm_eps, dt))
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        batch_axis = 0 if self.batch_first else 1
        if src.shape[batch_axis] != tgt.shape[batch_axis]:
            raise ValueError(f"Transformer: the batch number of src ({src.shape[batch_axis]}) and tgt "
                             f"({tgt.shape[batch_axis]}) must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: the feature number of src and tgt must be equal to d_model "
                             f"({self.d_model}), got {src.shape[-1]} and {tgt.shape[-1]}")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)
