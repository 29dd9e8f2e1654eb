"""The GRU recurrence and its backward pass through time (``gru_recurrence``,
``gru_recurrence_grad``, graph/ops/recurrent.py) as native kernels over the batch's rows, built
like the LSTM's (native/recurrent.py: the split over rows, W_hh packed once per call and part,
one product per step, then one vectorised pass of the gate arithmetic).

The registry's equations, gates r, z, n (``hp = h_{t-1} W_hh^T + b_hh``)::

    r = sigmoid(x_r + hp_r), z = sigmoid(x_z + hp_z), n = tanh(r * hp_n + x_n)
    h_t = (h_{t-1} - n) * z + n

Forward, a step's product is written into the step's gates (3 * hidden wide, as the product),
then the pass adds b_hh, keeps ``hp_n`` (the ``hn_proj`` output) and overwrites the product with
the activated gates. Backward, the pass writes both cotangents of the step (the pre-activation
gates' ``d_x`` and the hidden projection's ``d_hp``) and replaces the carried ``d h`` by ``d h *
z``; the product then adds ``d_hp @ W_hh`` to it, and the carry is flushed below the registry's
floor. Operation for operation the numpy implementation's arithmetic (sigmoid as ``0.5 * tanh(0.5
* x) + 0.5``), except the product's summation order and the tanh's rounding.
"""
from __future__ import annotations

from ..emitter import mem_type
from ..kernels import _Loop, kernel_entry
from .body import Body, const64
from .recurrent import (_emit_flush, _free, _gemm_function, _Math, _packed_copy, _rows_function, _step_index,
                        _step_product, emit_forward)

#: the backward op's cotangent operands, which may be the number 0 (no cotangent: no operand)
COTANGENTS = ("d_hs", "d_gates", "d_hn")


# -- forward ------------------------------------------------------------------------------------------------
def _emit_forward_rows(module, name, dt, hidden):
    """``rows(x_k, gates_k, b_hh, h_prev, hs_k, hn_k, lo, hi)``: from the product in gates_k,
    one step's gates, hn_proj and hidden state."""
    three = 3 * hidden
    b, ptrs, lo, hi, fn = _rows_function(module, name, 6, mem_type(dt))
    E = Body(b, ptrs, dt)
    M = _Math(b, dt)
    X, GATES, BIAS, H_PREV, HS, HN = range(6)
    lr = _Loop(b, lo, hi, "row")
    gbase, sbase = E.mul(lr.i, three), E.mul(lr.i, hidden)
    lj = _Loop(b, const64(0), const64(hidden), "j")
    j = lj.i
    at = [E.add(gbase, q * hidden, j) for q in range(3)]
    hp = [M.add(E.load(GATES, a), E.load(BIAS, E.add(j, q * hidden))) for q, a in enumerate(at)]  # + b_hh
    r = M.sigmoid(M.add(E.load(X, at[0]), hp[0]))
    z = M.sigmoid(M.add(E.load(X, at[1]), hp[1]))
    n = M.tanh(M.add(M.mul(r, hp[2]), E.load(X, at[2])))
    s_at = E.add(sbase, j)
    E.store(HN, s_at, hp[2])
    for a, v in zip(at, (r, z, n)):
        E.store(GATES, a, v)
    E.store(HS, s_at, M.add(M.mul(M.sub(E.load(H_PREV, s_at), n), z), n))  # (h_{t-1} - n) * z + n
    lj.close()
    lr.close()
    b.ret_void()
    return fn


def emit_gru(module, plan):
    """``(hs, gates, hn_proj)`` of ``gru_recurrence(x_proj, w_hh, b_hh, h0)`` for the batch rows [lo, hi)."""
    X, W, BIAS, H0, HS, GATES, HN = range(7)
    rows_fn = _emit_forward_rows(module, plan.name + ".rows", plan.operands[0].dtype, plan.geometry["hidden"])
    emit_forward(module, plan, 3, rows_fn, 7, W, H0, HS, GATES, lambda s: [
        s.at(X, s.gate), s.at(GATES, s.gate), s.ptrs[BIAS], s.h_prev, s.at(HS, s.state), s.at(HN, s.state), s.lo,
        s.hi])


# -- backward through time -----------------------------------------------------------------------------------
def _emit_backward_rows(module, name, dt, hidden, present):
    """``rows([d_hs_k, d_gates_k, d_hn_k,] gates_k, h_prev, hn_k, d_x_k, d_hp_k, dh, lo, hi)`` (the
    present cotangents only): one step's two cotangents, and ``dh`` (the carried d loss / d h_t)
    replaced by ``dh * z``, the part that reaches h_{t-1} directly."""
    three = 3 * hidden
    names = [c for c in COTANGENTS if present[c]] + ["gates", "h_prev", "hn", "d_x", "d_hp", "dh"]
    P = {name: i for i, name in enumerate(names)}.__getitem__
    b, ptrs, lo, hi, fn = _rows_function(module, name, len(names), mem_type(dt))
    E = Body(b, ptrs, dt)
    M = _Math(b, dt)
    one = M.c(1.0)
    lr = _Loop(b, lo, hi, "row")
    gbase, sbase = E.mul(lr.i, three), E.mul(lr.i, hidden)
    lj = _Loop(b, const64(0), const64(hidden), "j")
    j = lj.i
    s_at = E.add(sbase, j)
    at = [E.add(gbase, q * hidden, j) for q in range(3)]
    dh = E.load(P("dh"), s_at)
    if present["d_hs"]:
        dh = M.add(dh, E.load(P("d_hs"), s_at))
    r, z, n = (E.load(P("gates"), a) for a in at)
    dz = M.mul(dh, M.sub(E.load(P("h_prev"), s_at), n))
    dn = M.mul(dh, M.sub(one, z))
    if present["d_gates"]:
        dz = M.add(dz, E.load(P("d_gates"), at[1]))
        dn = M.add(dn, E.load(P("d_gates"), at[2]))
    dn_pre = M.mul(dn, M.sub(one, M.mul(n, n)))  # through tanh
    dr = M.mul(dn_pre, E.load(P("hn"), s_at))
    if present["d_gates"]:
        dr = M.add(dr, E.load(P("d_gates"), at[0]))
    dr = M.mul(dr, M.mul(r, M.sub(one, r)))  # through the sigmoids
    dz = M.mul(dz, M.mul(z, M.sub(one, z)))
    d_hn = M.mul(dn_pre, r)
    if present["d_hn"]:
        d_hn = M.add(d_hn, E.load(P("d_hn"), s_at))
    for a, v in zip(at, (dr, dz, dn_pre)):
        E.store(P("d_x"), a, v)
    for a, v in zip(at, (dr, dz, d_hn)):
        E.store(P("d_hp"), a, v)
    E.store(P("dh"), s_at, M.mul(dh, z))
    lj.close()
    lr.close()
    b.ret_void()
    return fn


def emit_gru_grad(module, plan):
    """``(d_x_proj, d_hp, d_h0)`` of ``gru_recurrence_grad`` for the batch rows [lo, hi); d_h0
    holds the carried d loss / d h while the steps run."""
    g = plan.geometry
    steps, batch, hidden, reverse = g["steps"], g["batch"], g["hidden"], g["reverse"]
    three = 3 * hidden
    present = dict(zip(COTANGENTS, g["present"]))
    dt = plan.operands[0].dtype
    ty = mem_type(dt)
    given = [c for c in COTANGENTS if present[c]]
    names = given + ["w_hh", "h0", "hs", "gates", "hn_proj", "d_x", "d_hp", "d_h0"]
    P = {name: i for i, name in enumerate(names)}.__getitem__
    rows_fn = _emit_backward_rows(module, plan.name + ".rows", dt, hidden, present)
    flush_fn = _emit_flush(module, plan.name + ".flush", dt)
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [ty.as_pointer()] * len(names))
    E = Body(b, ptrs, dt)
    E.dt = dt
    gemm = _gemm_function(module, dt, g["int_bits"])
    rows = b.sub(hi, lo)
    packed = _packed_copy(b, E, ptrs[P("w_hh")], three, hidden, transposed=False)  # B = W_hh: (3 * hidden, hidden)
    E.zero_fill(P("d_h0"), E.mul(lo, hidden), E.mul(rows, hidden))
    ln = _Loop(b, const64(0), const64(steps), "step")
    k, kp = _step_index(b, ln.i, steps, reverse, backward=True)
    first_forward = b.icmp_signed("==", ln.i, const64(steps - 1))  # the step that read h0
    h_prev = b.select(first_forward, ptrs[P("h0")], b.gep(ptrs[P("hs")], [E.mul(kp, batch * hidden)]))
    state, gate = E.mul(k, batch * hidden), E.mul(k, batch * three)
    at_step = {"d_hs": state, "d_gates": gate, "d_hn": state}
    b.call(rows_fn, [b.gep(ptrs[P(c)], [at_step[c]]) for c in given]
           + [b.gep(ptrs[P("gates")], [gate]), h_prev, b.gep(ptrs[P("hn_proj")], [state]),
              b.gep(ptrs[P("d_x")], [gate]), b.gep(ptrs[P("d_hp")], [gate]), ptrs[P("d_h0")], lo, hi])
    # d h_{t-1} = d h * z + d_hp @ W_hh, then flushed like the registry's
    _step_product(b, E, g, gemm, packed, b.gep(ptrs[P("d_hp")], [E.add(gate, E.mul(lo, three))]), three,
                  ptrs[P("w_hh")], False, b.gep(ptrs[P("d_h0")], [E.mul(lo, hidden)]), hidden, rows, three, hidden,
                  plan.name + ".product", accumulate=True)
    b.call(flush_fn, [ptrs[P("d_h0")], E.mul(lo, hidden), E.mul(hi, hidden)])
    ln.close()
    _free(b, packed)
    b.ret_void()
