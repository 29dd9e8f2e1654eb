"""Recurrent layers (``mindspore.nn``): RNN, LSTM, GRU and their single-step cells.

An LSTM or GRU layer without ``seq_length`` runs its recurrence as one op over the whole sequence
(``ops.lstm_recurrence``/``ops.gru_recurrence``, graph/ops/recurrent.py, whose backward through
time is one op too): in PyNative that is a few op applications a layer instead of ~15 a step,
and under graph capture the graph does not grow with the sequence length. The input projection
of every step is one matrix product before it. With ``seq_length`` (and for RNN) the recurrence
is unrolled over the (fixed) sequence length with registered ops (matmul, sigmoid, tanh), so
under graph capture one sequence compiles into one graph and its backward pass is compiled too.
Parameter names, shapes and gate orders follow MindSpore 2.x (the same as PyTorch):
``weight_ih_l{k}[_reverse]`` (gates x input), ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}``;
LSTM gates i, f, g, o; GRU gates r, z, n. Weights start uniform in ±1/sqrt(hidden_size).

``seq_length`` (N,) gives each sequence's true length: outputs past it are zero and the final
states are those at the last valid step.

Example:
    >>> import numpy as np
    >>> from runtime import nn, Tensor
    >>> lstm = nn.LSTM(4, 8, num_layers=2, batch_first=True, bidirectional=True)
    >>> out, (h, c) = lstm(Tensor(np.zeros((3, 5, 4), np.float32)))
    >>> out.shape, h.shape, c.shape
    ((3, 5, 16), (4, 3, 8), (4, 3, 8))
"""
from __future__ import annotations

import math

from graph.dtypes import as_dtype, float32

from ... import ops
from ...common.initializer import Uniform, initializer
from ...parameter import Parameter
from ..cell import Cell
from .basic import _check_bool, _check_int

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _linear(x, w, b):
    y = ops.matmul(x, w, transpose_b=True)
    return y if b is None else ops.add(y, b)


def _rnn_step(mode, x, state, w_ih, w_hh, b_ih, b_hh, x_proj=None):
    """One time step: (new hidden, new state) where state is h, or (h, c) for LSTM. ``x_proj``:
    ``_linear(x, w_ih, b_ih)`` computed beforehand (for every step of a sequence at once)."""
    if x_proj is None:
        x_proj = _linear(x, w_ih, b_ih)
    if mode == "LSTM":
        h, c = state
        gates = ops.add(x_proj, _linear(h, w_hh, b_hh))
        i, f, g, o = ops.split(gates, gates.shape[-1] // 4, -1)
        c_new = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), ops.tanh(g)))
        h_new = ops.mul(ops.sigmoid(o), ops.tanh(c_new))
        return h_new, (h_new, c_new)
    if mode == "GRU":
        h = state
        gi = x_proj
        gh = _linear(h, w_hh, b_hh)
        size = gi.shape[-1] // 3
        ir, iz, in_ = ops.split(gi, size, -1)
        hr, hz, hn = ops.split(gh, size, -1)
        r = ops.sigmoid(ops.add(ir, hr))
        z = ops.sigmoid(ops.add(iz, hz))
        n = ops.tanh(ops.add(in_, ops.mul(r, hn)))
        h_new = ops.add(ops.mul(ops.sub(1.0, z), n), ops.mul(z, h))
        return h_new, h_new
    pre = ops.add(x_proj, _linear(state, w_hh, b_hh))
    h_new = ops.tanh(pre) if mode == "RNN_TANH" else ops.relu(pre)
    return h_new, h_new


def _select(mask, new, old):
    return ops.where(mask, new, old)


class _RNNBase(Cell):
    #: whether an LSTM or GRU without ``seq_length`` runs as one recurrence op (False: unrolled
    #: step by step, the formulation tests compare the recurrence ops with)
    _fuse = True

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=float32):
        super().__init__()
        name = type(self).__name__
        self.mode = mode
        self.input_size = _check_int(name, "input_size", input_size)
        self.hidden_size = _check_int(name, "hidden_size", hidden_size)
        self.num_layers = _check_int(name, "num_layers", num_layers)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        self.batch_first = _check_bool(name, "batch_first", batch_first)
        self.bidirectional = _check_bool(name, "bidirectional", bidirectional)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"{name}: dropout must be a float in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.num_directions = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        bound = 1.0 / math.sqrt(hidden_size)
        dt = as_dtype(dtype)
        self._weight_names = []  # per (layer, direction): (w_ih, w_hh, b_ih, b_hh)
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else hidden_size * self.num_directions
            for d in range(self.num_directions):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                w_ih = Parameter(initializer(Uniform(bound), (gate, in_size), dt), name=f"weight_ih{sfx}")
                w_hh = Parameter(initializer(Uniform(bound), (gate, hidden_size), dt), name=f"weight_hh{sfx}")
                setattr(self, f"weight_ih{sfx}", w_ih)
                setattr(self, f"weight_hh{sfx}", w_hh)
                b_ih = b_hh = None
                if has_bias:
                    b_ih = Parameter(initializer(Uniform(bound), (gate,), dt), name=f"bias_ih{sfx}")
                    b_hh = Parameter(initializer(Uniform(bound), (gate,), dt), name=f"bias_hh{sfx}")
                    setattr(self, f"bias_ih{sfx}", b_ih)
                    setattr(self, f"bias_hh{sfx}", b_hh)
                self._weight_names.append((f"weight_ih{sfx}", f"weight_hh{sfx}",
                                      f"bias_ih{sfx}" if has_bias else None, f"bias_hh{sfx}" if has_bias else None))

    def _layer_params(self, idx):
        return tuple(getattr(self, n) if n is not None else None for n in self._weight_names[idx])

    def _initial(self, hx, batch, dtype):
        shape = (self.num_layers * self.num_directions, batch, self.hidden_size)
        if self.mode == "LSTM":
            if hx is None:
                z = ops.zeros(shape, dtype)
                return z, z
            return hx
        return ops.zeros(shape, dtype) if hx is None else hx

    def _run_direction(self, x_all, state, params, reverse, mask):
        """``x_all``: the layer's (seq, batch, feature) input. The input projection of every step
        is one matrix product (only the hidden state's needs the recurrence), the same arithmetic
        per row as one product per step."""
        seq = x_all.shape[0]
        w_ih, b_ih = params[0], params[2]
        # (seq, batch, gates * hidden), taken apart by one op whose gradient is one concatenation
        # (indexing step by step would add a sequence-sized gradient per step: O(seq^2))
        projected = ops.unstack(_linear(x_all, w_ih, b_ih), 0)
        steps = range(seq - 1, -1, -1) if reverse else range(seq)
        outs = [None] * seq
        for t in steps:
            h_new, new_state = _rnn_step(self.mode, None, state, *params, x_proj=projected[t])
            if mask is not None:
                m = mask[t]
                if self.mode == "LSTM":
                    new_state = (_select(m, new_state[0], state[0]), _select(m, new_state[1], state[1]))
                else:
                    new_state = _select(m, new_state, state)
                h_new = ops.mul(h_new, ops.cast(m, h_new.dtype))
            state = new_state
            outs[t] = h_new
        return outs, state

    def _run_fused(self, x_all, state, params, reverse):
        """One LSTM or GRU direction over the whole ``(seq, batch, feature)`` input as one
        recurrence op: ``(hs (seq, batch, hidden), final state)``, the final state being
        ``(h_n, c_n)`` for LSTM. An LSTM's two biases join its input projection (one add); a GRU
        keeps ``b_hh`` apart (its n gate scales ``h W_hn^T + b_hn`` by r)."""
        w_ih, w_hh, b_ih, b_hh = params
        last = 0 if reverse else x_all.shape[0] - 1  # the state after the direction's last step
        if self.mode == "LSTM":
            projected = _linear(x_all, w_ih, None if b_ih is None else ops.add(b_ih, b_hh))
            hs, cs, _ = ops.lstm_recurrence(projected, w_hh, state[0], state[1], reverse=reverse)
            return hs, (hs[last], cs[last])
        if b_hh is None:
            b_hh = ops.zeros((w_hh.shape[0],), w_hh.dtype)
        hs, _, _ = ops.gru_recurrence(_linear(x_all, w_ih, b_ih), w_hh, b_hh, state, reverse=reverse)
        return hs, hs[last]

    def _construct_fused(self, x, init):
        """``construct`` on the recurrence ops: ``x`` is (seq, batch, feature), ``init`` the
        initial states; layers and directions as in the per-step formulation below, each
        direction's outputs one tensor (dropout between layers applies to it whole)."""
        layer_input = x
        finals_h, finals_c = [], []
        for layer in range(self.num_layers):
            layer_outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                state = (init[0][k], init[1][k]) if self.mode == "LSTM" else init[k]
                hs, final = self._run_fused(layer_input, state, self._layer_params(k), d == 1)
                layer_outs.append(hs)
                if self.mode == "LSTM":
                    finals_h.append(final[0])
                    finals_c.append(final[1])
                else:
                    finals_h.append(final)
            layer_input = ops.cat(layer_outs, -1) if self.num_directions == 2 else layer_outs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = ops.dropout(layer_input, p=self.dropout)
        out = ops.swapaxes(layer_input, 0, 1) if self.batch_first else layer_input
        h_n = ops.stack(finals_h, 0)
        return (out, (h_n, ops.stack(finals_c, 0))) if self.mode == "LSTM" else (out, h_n)

    def construct(self, x, hx=None, seq_length=None):
        if x.ndim != 3:
            raise ValueError(f"{type(self).__name__}: input must be 3-D (seq, batch, feature) or (batch, seq, "
                             f"feature) with batch_first, got shape {tuple(x.shape)}")
        if self.batch_first:
            x = ops.swapaxes(x, 0, 1)
        seq, batch = x.shape[0], x.shape[1]
        init = self._initial(hx, batch, x.dtype)
        if self.mode in ("LSTM", "GRU") and seq_length is None and self._fuse:
            return self._construct_fused(x, init)
        mask = None
        if seq_length is not None:
            steps = ops.reshape(ops.arange(0, seq, 1, dtype=seq_length.dtype), (seq, 1, 1))
            mask = ops.less(steps, ops.reshape(seq_length, (1, batch, 1)))  # (seq, batch, 1)
            mask = [mask[t] for t in range(seq)]
        layer_input = x
        finals_h, finals_c = [], []
        for layer in range(self.num_layers):
            layer_outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                state = (init[0][k], init[1][k]) if self.mode == "LSTM" else init[k]
                outs, state = self._run_direction(layer_input, state, self._layer_params(k), d == 1, mask)
                layer_outs.append(outs)
                if self.mode == "LSTM":
                    finals_h.append(state[0])
                    finals_c.append(state[1])
                else:
                    finals_h.append(state)
            xs = [ops.cat([o[t] for o in layer_outs], -1) if self.num_directions == 2 else layer_outs[0][t]
                  for t in range(seq)]
            if self.dropout and self.training and layer < self.num_layers - 1:
                xs = [ops.dropout(v, p=self.dropout) for v in xs]
            layer_input = ops.stack(xs, 0)
        out = layer_input
        if self.batch_first:
            out = ops.swapaxes(out, 0, 1)
        h_n = ops.stack(finals_h, 0)
        if self.mode == "LSTM":
            return out, (h_n, ops.stack(finals_c, 0))
        return out, h_n

    def extend_repr(self):
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, num_layers={self.num_layers}, "
                f"has_bias={self.has_bias}, batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")


class RNN(_RNNBase):
    """Elman RNN: ``h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (tanh or relu)."""

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Long short-term memory; returns ``(output, (h_n, c_n))``."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    """Gated recurrent unit; returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class _CellBase(Cell):
    def __init__(self, mode, input_size, hidden_size, has_bias=True, dtype=float32):
        super().__init__()
        name = type(self).__name__
        self.mode = mode
        self.input_size = _check_int(name, "input_size", input_size)
        self.hidden_size = _check_int(name, "hidden_size", hidden_size)
        self.has_bias = _check_bool(name, "has_bias", has_bias)
        gate = _GATES[mode] * hidden_size
        bound = 1.0 / math.sqrt(hidden_size)
        dt = as_dtype(dtype)
        self.weight_ih = Parameter(initializer(Uniform(bound), (gate, input_size), dt), name="weight_ih")
        self.weight_hh = Parameter(initializer(Uniform(bound), (gate, hidden_size), dt), name="weight_hh")
        self.bias_ih = Parameter(initializer(Uniform(bound), (gate,), dt), name="bias_ih") if has_bias else None
        self.bias_hh = Parameter(initializer(Uniform(bound), (gate,), dt), name="bias_hh") if has_bias else None

    def _step(self, x, state):
        return _rnn_step(self.mode, x, state, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


class RNNCell(_CellBase):
    """One RNN step: ``cell(x, hx) -> h'`` (x (N, input_size), hx (N, hidden_size))."""

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh", dtype=float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        if hx is None:
            hx = ops.zeros((x.shape[0], self.hidden_size), x.dtype)
        return self._step(x, hx)[0]


class LSTMCell(_CellBase):
    """One LSTM step: ``cell(x, (h, c)) -> (h', c')``."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=float32):
        super().__init__("LSTM", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        if hx is None:
            z = ops.zeros((x.shape[0], self.hidden_size), x.dtype)
            hx = (z, z)
        return self._step(x, tuple(hx))[1]


class GRUCell(_CellBase):
    """One GRU step: ``cell(x, hx) -> h'``."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=float32):
        super().__init__("GRU", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        if hx is None:
            hx = ops.zeros((x.shape[0], self.hidden_size), x.dtype)
        return self._step(x, hx)[0]

