"""Recurrences over a whole sequence as one op: the LSTM and GRU recurrences and their gradients.

Unrolled step by step, an LSTM of T steps is about 15 ops per step forward and 30 backward: in
PyNative each is a dispatch and a tape record (35 steps of the bench's classifier: ~1500 op
applications a train step), and under capture each step is a few kernels and products more to
compile (compile time grew ~45 ms a step). Here the recurrence is one op, ``lstm_recurrence``,
whose backward through time is one op too, ``lstm_recurrence_grad`` (as MindSpore's own LSTM
primitive and cuDNN's RNN are); the same for the GRU (``gru_recurrence``, end of this module): what can be computed for all steps at once is, and only the
hidden-state product runs step by step.

What stays outside, as ordinary ops of the caller (runtime/nn/layers/rnn.py): the input
projection ``x W_ih^T + b_ih + b_hh`` of every step (one matrix product, whose gradients are the
matmul's), the reversal of a bidirectional layer's second direction (the ``reverse`` attribute
walks the steps backwards instead), dropout between layers and the final states' selection.

``lstm_recurrence(x_proj, w_hh, h0, c0, reverse=False) -> (hs, cs, gates)`` with MindSpore's
(and PyTorch's) equations and gate order i, f, g, o:

    gates_t = x_proj[t] + h_{t-1} W_hh^T            (B, 4H)
    i, f, o = sigmoid(...), g = tanh(...)            (the activated gates are the third output)
    c_t = f * c_{t-1} + i * g                        (cs[t])
    h_t = o * tanh(c_t)                              (hs[t])

The activated gates and the cell states are outputs so that the backward pass needs no
recomputation; their cotangents are honoured like any output's. An output without one (the
gates, usually the cell states) reaches the gradient op as the number 0 (``vjp_takes_none``),
so no tensor of zeros is made or read.

The sigmoid is evaluated as ``0.5 * tanh(x / 2) + 0.5`` (the same function; one vectorised tanh
over all four gates instead of exp/add/divide passes over three of them): it differs from
``1 / (1 + exp(-x))`` by float rounding only (absolute error below 1e-7 in float32).

Example:
    >>> import numpy as np
    >>> from graph.ops import REGISTRY
    >>> T, B, H = 3, 2, 4
    >>> hs, cs, gates = REGISTRY["lstm_recurrence"].impl(
    ...     np, np.zeros((T, B, 4 * H)), np.zeros((4 * H, H)), np.zeros((B, H)), np.ones((B, H)))
    >>> float(cs[0, 0, 0]), float(cs[2, 0, 0])  # f = sigmoid(0) = 0.5 halves c each step (i*g = 0)
    (0.5, 0.125)
"""
from __future__ import annotations

from ..aval import AVal
from ..dtypes import promote
from .core import EXTERN, Attr, F, Op, a_bool, describe, fail, register


# -- shapes -------------------------------------------------------------------------------------------
def _shape(a):
    return tuple(a.shape)


def _check_floats(name, operands, one_dtype=False):
    """Each (what, tensor) of ``operands`` is a float tensor, all of the first one's dtype when
    ``one_dtype`` (the gradient ops take their operands in the forward's one dtype)."""
    first = None
    for what, a in operands:
        dt = getattr(a, "dtype", None)
        if dt is None or not getattr(dt, "is_float", False) or not hasattr(a, "shape"):
            fail(name, f"{what} must be a float tensor, got {describe(a)}", TypeError)
        first = dt if first is None else first
        if one_dtype and dt is not first:
            fail(name, f"{what} has dtype {dt} but the forward's outputs have {first}: the operands "
                       f"of the gradient share one float dtype", TypeError)


def _sequence_of_gates(name, x_proj, n_gates, gate_names):
    """(seq, batch, n_gates * hidden) of the input projections ``x_proj``, or a clear error."""
    if x_proj.ndim != 3:
        fail(name, f"x_proj must be (seq, batch, {n_gates} * hidden), got shape {_shape(x_proj)}")
    t, b, g = _shape(x_proj)
    if t < 1:
        fail(name, f"the sequence must have at least one step, got x_proj shape {_shape(x_proj)}")
    if g % n_gates:
        fail(name, f"x_proj's last dimension must be {n_gates} * hidden (gates {gate_names}), got {g}")
    return t, b, g


def _check_operands(name, x_proj, w_hh, h0, c0, same_dtype=False):
    """(T, B, H) of an LSTM recurrence's operands, or a clear error. The forward op promotes its
    float operands to one dtype (``promote=True``); its gradient takes them in one dtype."""
    _check_floats(name, (("x_proj", x_proj), ("w_hh", w_hh), ("h0", h0), ("c0", c0)), same_dtype)
    t, b, g = _sequence_of_gates(name, x_proj, 4, "i, f, g, o")
    h = g // 4
    if _shape(w_hh) != (g, h):
        fail(name, f"w_hh must be (4 * hidden, hidden) = {(g, h)} for x_proj shape {_shape(x_proj)}, "
                   f"got {_shape(w_hh)}")
    for what, a in (("h0", h0), ("c0", c0)):
        if _shape(a) != (b, h):
            fail(name, f"{what} must be (batch, hidden) = {(b, h)} for x_proj shape {_shape(x_proj)}, "
                       f"got {_shape(a)}")
    return t, b, h


def _infer_lstm(x_proj, w_hh, h0, c0, reverse=False):
    t, b, h = _check_operands("lstm_recurrence", x_proj, w_hh, h0, c0)
    dt = promote(promote(x_proj.dtype, w_hh.dtype), promote(h0.dtype, c0.dtype))
    return AVal((t, b, h), dt), AVal((t, b, h), dt), AVal((t, b, 4 * h), dt)


def _cotangent(name, what, d, like_shape, dtype):
    """A cotangent operand: a tensor of ``like_shape`` and ``dtype``, or the number 0 (none)."""
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        if d != 0:
            fail(name, f"{what} must be a tensor or the number 0 (no cotangent), got {d!r}")
        return
    if _shape(d) != like_shape or getattr(d, "dtype", None) is not dtype:
        fail(name, f"{what} must be {dtype}{list(like_shape)} like the forward output, got {describe(d)}")


def _infer_lstm_grad(d_hs, d_cs, d_gates, w_hh, h0, c0, hs, cs, gates, reverse=False):
    name = "lstm_recurrence_grad"
    if getattr(gates, "ndim", None) != 3:
        fail(name, f"gates must be the forward's (seq, batch, 4 * hidden) output, got {describe(gates)}")
    t, b, h = _check_operands(name, gates, w_hh, h0, c0, same_dtype=True)
    dt = gates.dtype
    for what, a, shape in (("hs", hs, (t, b, h)), ("cs", cs, (t, b, h)), ("d_hs", d_hs, (t, b, h)),
                           ("d_cs", d_cs, (t, b, h)), ("d_gates", d_gates, (t, b, 4 * h))):
        _cotangent(name, what, a, shape, dt)
    if not hasattr(hs, "shape") or not hasattr(cs, "shape"):
        fail(name, "hs and cs must be the forward's outputs (tensors)")
    return AVal((t, b, 4 * h), dt), AVal((b, h), dt), AVal((b, h), dt)


# -- the forward recurrence ------------------------------------------------------------------------------
def _gate_scale(xp, h, dtype):
    """Per gate column: 0.5 for the sigmoid gates i, f, o and 1 for the tanh gate g. ``sigmoid(x) =
    0.5 * tanh(0.5 * x) + 0.5``, so scaling by it before and after one tanh over all four gates and
    adding :func:`_gate_shift` activates every gate."""
    s = xp.full((4 * h,), 0.5, dtype=dtype)
    s[2 * h:3 * h] = 1.0
    return s


def _gate_shift(xp, h, dtype):
    s = xp.full((4 * h,), 0.5, dtype=dtype)
    s[2 * h:3 * h] = 0.0
    return s


def _steps(t, reverse):
    return range(t - 1, -1, -1) if reverse else range(t)


def _lstm_impl(xp, x_proj, w_hh, h0, c0, reverse=False):
    t, b, g = x_proj.shape
    h = g // 4
    dt = x_proj.dtype
    hs = xp.empty((t, b, h), dtype=dt)
    cs = xp.empty((t, b, h), dtype=dt)
    gates = xp.empty((t, b, g), dtype=dt)
    scale, shift = _gate_scale(xp, h, dt), _gate_shift(xp, h, dt)
    w_t = w_hh.T  # (a transposed operand is a BLAS flag, not a copy)
    h_prev, c_prev = h0, c0
    for k in _steps(t, reverse):
        a = gates[k]
        xp.matmul(h_prev, w_t, out=a)
        a += x_proj[k]
        a *= scale
        xp.tanh(a, out=a)
        a *= scale
        a += shift
        c = cs[k]
        xp.multiply(a[:, h:2 * h], c_prev, out=c)  # f * c_{t-1}
        c += a[:, :h] * a[:, 2 * h:3 * h]  # + i * g
        y = hs[k]
        xp.tanh(c, out=y)
        y *= a[:, 3 * h:]  # h_t = o * tanh(c_t)
        h_prev, c_prev = y, c
    return hs, cs, gates


def _lstm_vjp(g, out, x_proj, w_hh, h0, c0, reverse=False):
    d_hs, d_cs, d_gates = (0.0 if d is None else d for d in g)
    hs, cs, gates = out
    # (the forward promoted its operands to its outputs' dtype: the gradient runs in that one)
    w, h_0, c_0 = (_cast_to(a, hs.dtype) for a in (w_hh, h0, c0))
    d_x, d_h0, d_c0 = F.lstm_recurrence_grad(d_hs, d_cs, d_gates, w, h_0, c_0, hs, cs, gates, reverse=reverse)
    d_w = _summed_over_steps(d_x, _previous_states(hs, h_0, reverse))
    return (_cast_to(d_x, x_proj.dtype), _cast_to(d_w, w_hh.dtype), _cast_to(d_h0, h0.dtype),
            _cast_to(d_c0, c0.dtype))


def _cast_to(t, dtype):
    return t if t.dtype is dtype else F.cast(t, dtype=dtype)


def _previous_states(hs, h0, reverse):
    """The hidden state each step read, (seq, batch, hidden): h0 then hs shifted by one step."""
    t = hs.shape[0]
    h0_row = F.expand_dims(h0, axis=0)
    if t == 1:
        return h0_row
    rest = F.slice(hs, begin=(1 if reverse else 0, 0, 0), size=(t - 1,) + tuple(hs.shape[1:]))
    return F.concat(rest, h0_row, axis=0) if reverse else F.concat(h0_row, rest, axis=0)  # (reverse: step k reads k + 1)


def _summed_over_steps(d_gates, h_prev):
    """W_hh's gradient, the sum over steps of ``d_gates[t]^T h_prev[t]``: one product of the
    stacked rows, (gates, seq * batch) @ (seq * batch, hidden)."""
    rows = d_gates.shape[0] * d_gates.shape[1]
    return F.matmul(F.reshape(d_gates, shape=(rows, d_gates.shape[2])), F.reshape(h_prev, shape=(rows, h_prev.shape[2])),
                    transpose_a=True)


register(Op("lstm_recurrence", prim="LSTMRecurrence", inputs=("x_proj", "w_hh", "h0", "c0"), impl=_lstm_impl,
            infer=_infer_lstm, vjp=_lstm_vjp, kind=EXTERN, n_outputs=3, promote=True, vjp_takes_none=True,
            attrs={"reverse": Attr(False, a_bool)},
            doc="an LSTM layer's recurrence over a whole sequence from its input projections x_proj "
                "(seq, batch, 4 * hidden; gates i, f, g, o): returns (hs, cs, gates), the hidden and cell "
                "state of every step and the activated gates; reverse=True runs from the last step"))


# -- backward through time ----------------------------------------------------------------------------
def _is_zero(d):
    """Whether a cotangent operand is the number 0 (no cotangent) rather than an array."""
    return not hasattr(d, "shape") or getattr(d, "ndim", 1) == 0


def _lstm_grad_impl(xp, d_hs, d_cs, d_gates, w_hh, h0, c0, hs, cs, gates, reverse=False):
    t, b, g = gates.shape
    h = g // 4
    dt = gates.dtype
    # what does not depend on the recurrence, for every step at once
    tanh_c = xp.tanh(cs)
    o = gates[:, :, 3 * h:]
    dc_from_dh = o * (1 - tanh_c * tanh_c)  # dc_t/dh_t through h_t = o * tanh(c_t)
    slope = gates * (1 - gates)  # sigmoid' = s (1 - s) for i, f, o ...
    gg = gates[:, :, 2 * h:3 * h]
    slope[:, :, 2 * h:3 * h] = 1 - gg * gg  # ... tanh' = 1 - g^2 for g
    d_x = xp.empty((t, b, g), dtype=dt)
    # what the later steps send back: d loss / d h_t (through W_hh) and d loss / d c_t (through f)
    carry = xp.zeros((2, b, h), dtype=dt)
    dh, dc_carry = carry[0], carry[1]
    floor = _flush_floor(xp, dt)
    order = list(_steps(t, reverse))
    for n, k in enumerate(reversed(order)):
        if not _is_zero(d_hs):
            dh += d_hs[k]
        dc = dh * dc_from_dh[k]
        dc += dc_carry
        if not _is_zero(d_cs):
            dc += d_cs[k]
        a = gates[k]
        c_prev = cs[order[len(order) - n - 2]] if n < t - 1 else c0
        row = d_x[k]
        xp.multiply(dc, a[:, 2 * h:3 * h], out=row[:, :h])  # d i
        xp.multiply(dc, c_prev, out=row[:, h:2 * h])  # d f
        xp.multiply(dc, a[:, :h], out=row[:, 2 * h:3 * h])  # d g
        xp.multiply(dh, tanh_c[k], out=row[:, 3 * h:])  # d o
        if not _is_zero(d_gates):
            row += d_gates[k]
        row *= slope[k]  # through the activations: the pre-activation gates' cotangent
        xp.multiply(dc, a[:, h:2 * h], out=dc_carry)
        xp.matmul(row, w_hh, out=dh)  # (B, 4H) @ (4H, H): to h_{t-1}
        # cotangents decay through the forget gates (0.5^126 is float32's smallest normal): the
        # few carried below ``floor`` are flushed to zero before their products turn subnormal,
        # which costs ~100x per operation (a 256-step sequence's backward took 3 ms a step)
        xp.multiply(carry, xp.abs(carry) >= floor, out=carry)
    return d_x, dh.copy(), dc_carry.copy()


def _flush_floor(xp, dtype):
    """2^26 times the dtype's smallest normal number (float32: 7.9e-31): a carried cotangent below
    it contributes less than that to any gradient, and its products with gates and weights
    (factors above 2^-26) stay normal numbers."""
    return xp.finfo(dtype).tiny * 2.0 ** 26


register(Op("lstm_recurrence_grad", prim="LSTMRecurrenceGrad",
            inputs=("d_hs", "d_cs", "d_gates", "w_hh", "h0", "c0", "hs", "cs", "gates"),
            impl=_lstm_grad_impl, infer=_infer_lstm_grad, kind=EXTERN, n_outputs=3,
            attrs={"reverse": Attr(False, a_bool)},
            nondiff="the backward pass of lstm_recurrence; second derivatives of the fused recurrence are "
                    "not implemented (differentiate the per-step formulation for those)",
            doc="backward through time of lstm_recurrence: from the cotangents of (hs, cs, gates) (each a "
                "tensor, or 0 for none) and the forward's operands and outputs, returns (d_x_proj, d_h0, "
                "d_c0); W_hh's gradient is one product of d_x_proj with the previous states (the VJP rule)"))


# == GRU ==============================================================================================
# ``gru_recurrence(x_proj, w_hh, b_hh, h0, reverse=False) -> (hs, gates, hn_proj)`` with MindSpore's
# (and PyTorch's) equations, gates r, z, n; x_proj = x W_ih^T + b_ih for every step:
#
#     hp = h_{t-1} W_hh^T + b_hh                                    (B, 3H)
#     r = sigmoid(x_r + hp_r), z = sigmoid(x_z + hp_z)
#     n = tanh(x_n + r * hp_n)                                      (b_hn stays inside r * (...))
#     h_t = (1 - z) * n + z * h_{t-1} = n + z * (h_{t-1} - n)
#
# ``gates`` holds the activated r, z, n and ``hn_proj`` every step's hp_n, for the backward pass.
def _infer_gru_operands(name, x_proj, w_hh, b_hh, h0):
    _check_floats(name, (("x_proj", x_proj), ("w_hh", w_hh), ("b_hh", b_hh), ("h0", h0)))
    t, b, g = _sequence_of_gates(name, x_proj, 3, "r, z, n")
    h = g // 3
    for what, a, want in (("w_hh", w_hh, (g, h)), ("b_hh", b_hh, (g,)), ("h0", h0, (b, h))):
        if _shape(a) != want:
            fail(name, f"{what} must have shape {want} for x_proj shape {_shape(x_proj)}, got {_shape(a)}")
    return t, b, h


def _infer_gru(x_proj, w_hh, b_hh, h0, reverse=False):
    t, b, h = _infer_gru_operands("gru_recurrence", x_proj, w_hh, b_hh, h0)
    dt = promote(promote(x_proj.dtype, w_hh.dtype), promote(b_hh.dtype, h0.dtype))
    return AVal((t, b, h), dt), AVal((t, b, 3 * h), dt), AVal((t, b, h), dt)


def _gru_impl(xp, x_proj, w_hh, b_hh, h0, reverse=False):
    t, b, g = x_proj.shape
    h = g // 3
    dt = x_proj.dtype
    hs = xp.empty((t, b, h), dtype=dt)
    gates = xp.empty((t, b, g), dtype=dt)
    hn_proj = xp.empty((t, b, h), dtype=dt)
    hp = xp.empty((b, g), dtype=dt)
    w_t = w_hh.T
    h_prev = h0
    for k in _steps(t, reverse):
        xp.matmul(h_prev, w_t, out=hp)
        hp += b_hh
        x, a = x_proj[k], gates[k]
        rz = a[:, :2 * h]
        xp.add(x[:, :2 * h], hp[:, :2 * h], out=rz)
        rz *= 0.5  # sigmoid(v) = 0.5 * tanh(v / 2) + 0.5
        xp.tanh(rz, out=rz)
        rz *= 0.5
        rz += 0.5
        hn_proj[k] = hp[:, 2 * h:]
        n = a[:, 2 * h:]
        xp.multiply(a[:, :h], hp[:, 2 * h:], out=n)
        n += x[:, 2 * h:]
        xp.tanh(n, out=n)
        y = hs[k]
        xp.subtract(h_prev, n, out=y)
        y *= a[:, h:2 * h]
        y += n  # h_t = n + z * (h_{t-1} - n)
        h_prev = y
    return hs, gates, hn_proj


def _gru_vjp(g, out, x_proj, w_hh, b_hh, h0, reverse=False):
    d_hs, d_gates, d_hn = (0.0 if d is None else d for d in g)
    hs, gates, hn_proj = out
    w, h_0 = _cast_to(w_hh, hs.dtype), _cast_to(h0, hs.dtype)
    d_x, d_hp, d_h0 = F.gru_recurrence_grad(d_hs, d_gates, d_hn, w, h_0, hs, gates, hn_proj, reverse=reverse)
    d_w = _summed_over_steps(d_hp, _previous_states(hs, h_0, reverse))
    d_b = F.reduce_sum(d_hp, axis=(0, 1))
    return (_cast_to(d_x, x_proj.dtype), _cast_to(d_w, w_hh.dtype), _cast_to(d_b, b_hh.dtype),
            _cast_to(d_h0, h0.dtype))


register(Op("gru_recurrence", prim="GRURecurrence", inputs=("x_proj", "w_hh", "b_hh", "h0"), impl=_gru_impl,
            infer=_infer_gru, vjp=_gru_vjp, kind=EXTERN, n_outputs=3, promote=True, vjp_takes_none=True,
            attrs={"reverse": Attr(False, a_bool)},
            doc="a GRU layer's recurrence over a whole sequence from its input projections x_proj "
                "(seq, batch, 3 * hidden; gates r, z, n, with b_ih): returns (hs, gates, hn_proj), every "
                "step's hidden state, activated gates and h W_hn^T + b_hn; reverse=True runs from the last step"))


def _infer_gru_grad(d_hs, d_gates, d_hn, w_hh, h0, hs, gates, hn_proj, reverse=False):
    name = "gru_recurrence_grad"
    if getattr(gates, "ndim", None) != 3 or gates.shape[2] % 3:
        fail(name, f"gates must be the forward's (seq, batch, 3 * hidden) output, got {describe(gates)}")
    t, b, g = _shape(gates)
    h = g // 3
    dt = gates.dtype
    for what, a, shape in (("w_hh", w_hh, (g, h)), ("h0", h0, (b, h)), ("hs", hs, (t, b, h)),
                           ("hn_proj", hn_proj, (t, b, h))):
        if not hasattr(a, "shape") or _shape(a) != shape or a.dtype is not dt:
            fail(name, f"{what} must be {dt}{list(shape)}, got {describe(a)}")
    for what, a, shape in (("d_hs", d_hs, (t, b, h)), ("d_gates", d_gates, (t, b, g)), ("d_hn", d_hn, (t, b, h))):
        _cotangent(name, what, a, shape, dt)
    return AVal((t, b, g), dt), AVal((t, b, g), dt), AVal((b, h), dt)


def _gru_grad_impl(xp, d_hs, d_gates, d_hn, w_hh, h0, hs, gates, hn_proj, reverse=False):
    t, b, g = gates.shape
    h = g // 3
    dt = gates.dtype
    d_x = xp.empty((t, b, g), dtype=dt)  # the pre-activation gates' cotangent (x_proj's)
    d_hp = xp.empty((t, b, g), dtype=dt)  # the hidden projection's (hp = h W_hh^T + b_hh)
    dh = xp.zeros((b, h), dtype=dt)  # d loss / d h_t from the later steps
    floor = _flush_floor(xp, dt)
    order = list(_steps(t, reverse))
    for n_, k in enumerate(reversed(order)):
        if not _is_zero(d_hs):
            dh += d_hs[k]
        a = gates[k]
        r, z, n = a[:, :h], a[:, h:2 * h], a[:, 2 * h:]
        h_prev = hs[order[len(order) - n_ - 2]] if n_ < t - 1 else h0
        row, row_h = d_x[k], d_hp[k]
        xp.multiply(dh, h_prev - n, out=row[:, h:2 * h])  # d z
        dn = dh * (1 - z)
        if not _is_zero(d_gates):
            row[:, h:2 * h] += d_gates[k][:, h:2 * h]
            dn += d_gates[k][:, 2 * h:]
        dn_pre = row[:, 2 * h:]
        xp.multiply(dn, 1 - n * n, out=dn_pre)  # through tanh
        xp.multiply(dn_pre, hn_proj[k], out=row[:, :h])  # d r
        if not _is_zero(d_gates):
            row[:, :h] += d_gates[k][:, :h]
        rz = row[:, :2 * h]
        rz *= a[:, :2 * h] * (1 - a[:, :2 * h])  # through the sigmoids
        row_h[:, :2 * h] = rz
        xp.multiply(dn_pre, r, out=row_h[:, 2 * h:])
        if not _is_zero(d_hn):
            row_h[:, 2 * h:] += d_hn[k]
        dh = dh * z
        dh += xp.matmul(row_h, w_hh)  # (B, 3H) @ (3H, H): to h_{t-1}
        xp.multiply(dh, xp.abs(dh) >= floor, out=dh)  # (as the LSTM's: no subnormal cotangents)
    return d_x, d_hp, dh


register(Op("gru_recurrence_grad", prim="GRURecurrenceGrad",
            inputs=("d_hs", "d_gates", "d_hn", "w_hh", "h0", "hs", "gates", "hn_proj"),
            impl=_gru_grad_impl, infer=_infer_gru_grad, kind=EXTERN, n_outputs=3,
            attrs={"reverse": Attr(False, a_bool)},
            nondiff="the backward pass of gru_recurrence; second derivatives of the fused recurrence are "
                    "not implemented (differentiate the per-step formulation for those)",
            doc="backward through time of gru_recurrence: from the cotangents of (hs, gates, hn_proj) (each a "
                "tensor, or 0 for none) returns (d_x_proj, d_hp, d_h0), d_hp being the cotangent of every "
                "step's h W_hh^T + b_hh (W_hh's and b_hh's gradients are its product and sum: the VJP rule)"))
