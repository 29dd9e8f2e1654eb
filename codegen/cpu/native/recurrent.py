"""The LSTM recurrence and its backward pass through time (``lstm_recurrence``,
``lstm_recurrence_grad``, graph/ops/recurrent.py) as native kernels over the batch's rows.

The ops' numpy implementations run every time step as a product ``h_{t-1} W_hh^T`` followed by
some ten whole-array numpy passes over the (batch, 4 * hidden) gates with temporaries (the
sigmoids as tanh, the cell update, the output), single-threaded: the bench's classifier (batch
32, hidden 128, 35 steps) spent 80% of its compiled train step there. Here each op is one
generated function with the shapes baked in:

  * per time step, one product for the hidden state of the part's rows: ``h_{t-1}[rows] @
    W_hh^T`` into the step's gates forward, ``d_gates[rows] @ W_hh`` into the carried ``d h``
    backward (the input projection of every step stays one product outside, the caller's
    ``matmul``). W_hh is packed once per call and part into vector panels and multiplied by a
    generated register-blocked kernel (native/packed_gemm.py) when its shape allows, else by
    numpy's own BLAS (``cblas_?gemm``, codegen/cpu/blas.py) on a transposed copy;
  * then one pass over the rows x hidden that does all the gate arithmetic of the step at once
    (forward: the input projection added, the four activations, the cell and hidden state;
    backward: the cell-state cotangent, the four gate cotangents through their activations, the
    carry through the forget gate) in registers, vectorised (float32: the inline tanh of
    codegen/cpu/vmath.py; float64: libm's ``tanh``).

Rows of the batch are independent in the recurrence (only W_hh is shared, and its gradient is a
product outside: the op's VJP rule), so the kernel's outer range ``[lo, hi)`` is batch rows and
the thread pool splits it like any kernel: each part runs the whole sequence for its rows, with
no synchronisation between steps. BLAS runs single-threaded inside compiled calls (the runner's
call region), the pool's threads being the parallelism.

Arithmetic: the registry's expressions, operation for operation and in the same order (no fused
multiply-adds outside the tanh polynomial and the products): ``sigmoid(x) = 0.5 * tanh(0.5 * x) + 0.5``, ``c = f *
c_prev + i * g``, ``h = tanh(c) * o``; backward ``dc = dh * (o * (1 - tanh(c)^2)) + dc_carry (+
d_cs)``, the gate cotangents times ``s * (1 - s)`` (``1 - g^2`` for g), and the carried
cotangents below the registry's flush floor set to zero (:func:`graph.ops.recurrent._flush_floor`,
the same floor). Results differ from the numpy implementation by the tanh's rounding (a few ulp)
and the product's summation order.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ...fused_plan import np_dtype
from .. import blas
from ..emitter import I64, mem_type
from ..kernels import _Loop, kernel_entry
from .. import vmath
from . import packed_gemm
from .body import Body, const64, libm

I32 = ir.IntType(32)

#: the ops with a kernel here or in native/gru.py
RECURRENT_OPS = ("lstm_recurrence", "lstm_recurrence_grad", "gru_recurrence", "gru_recurrence_grad")
#: per op: (the input holding the (seq, batch, gates * hidden) gates or their projections, gates)
_GATES_OPERAND = {"lstm_recurrence": (0, 4), "lstm_recurrence_grad": (8, 4), "gru_recurrence": (0, 3),
                  "gru_recurrence_grad": (6, 3)}
#: the backward op's cotangent operands, which may be the number 0 (no cotangent: no operand)
COTANGENTS = ("d_hs", "d_cs", "d_gates")


def recurrence_geometry(node) -> dict | None:
    """Geometry of an LSTM recurrence (or its gradient) the kernels compute, or None: float32 or
    float64 tensors of one dtype, a BLAS generated code can call, a non-empty batch and hidden
    size. The backward op's cotangents that are the number 0 are recorded as absent."""
    from graph.ir import Value
    api = blas.interface()
    if api is None:
        return None
    op = node.op.name
    where, n_gates = _GATES_OPERAND[op]
    steps, batch, gates = node.inputs[where].shape
    present = ()
    if op.endswith("_grad"):  # its first three operands are cotangents, each a tensor or the number 0
        present = tuple(isinstance(d, Value) for d in node.inputs[:3])
        for d, here in zip(node.inputs[:3], present):
            if not here and (not isinstance(d, (int, float)) or d != 0):
                return None  # (infer admits only the number 0 there)
    values = [v for v in node.inputs if isinstance(v, Value)] + list(node.outputs)
    if len(values) != len(node.inputs) - (len(present) - sum(present)) + len(node.outputs):
        return None  # (an operand that is not a tensor: the numpy implementation decides)
    dts = {np_dtype(v.dtype) for v in values}
    if len(dts) != 1:
        return None
    dt = dts.pop()
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)) or 0 in (steps, batch, gates):
        return None
    return {"steps": int(steps), "batch": int(batch), "hidden": int(gates) // n_gates, "gates": n_gates,
            "reverse": bool(node.attrs.get("reverse", False)), "present": present, "int_bits": api.int_bits}


# -- shared pieces ----------------------------------------------------------------------------------------
def _gemm_function(module, dt, int_bits):
    """The declaration of ``msjit_cblas_?gemm`` (bound to numpy's BLAS by codegen/cpu/blas.py)."""
    ty = mem_type(dt)
    ptr = ty.as_pointer()
    ity = ir.IntType(int_bits)
    name = blas.Interface(int_bits, "").symbol("s" if dt == np.float32 else "d")
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [I32, I32, I32, ity, ity, ity, ty, ptr, ity,
                                                                 ptr, ity, ty, ptr, ity]), name)
    return fn


def _gemm(b, E, fn, int_bits, trans_b, m, n, k, a_ptr, lda, b_ptr, ldb, c_ptr, ldc, accumulate=False):
    """C (m x n, row-major) = A (m x k) @ op(B) (``accumulate``: C += ...), op(B) = B^T when
    ``trans_b`` (an i1 value or a bool)."""
    ity = ir.IntType(int_bits)

    def i(v):
        v = v if isinstance(v, ir.Value) else const64(v)
        return b.trunc(v, ity) if int_bits < 64 else v
    if isinstance(trans_b, bool):
        tb = ir.Constant(I32, blas.TRANS if trans_b else blas.NO_TRANS)
    else:
        tb = b.select(trans_b, ir.Constant(I32, blas.TRANS), ir.Constant(I32, blas.NO_TRANS))
    b.call(fn, [ir.Constant(I32, blas.ROW_MAJOR), ir.Constant(I32, blas.NO_TRANS), tb, i(m), i(n), i(k),
                ir.Constant(E.ty, 1.0), a_ptr, i(lda), b_ptr, i(ldb), ir.Constant(E.ty, 1.0 if accumulate else 0.0),
                c_ptr, i(ldc)])


def _libc(module, name, ret, args):
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, args), name)
    return fn


def _packed_copy(b, E, w, k_dim, n_dim, transposed):
    """``(packed, raw, ok)``: a malloc'd copy of the product's B operand, W_hh (``transposed``:
    W_hh^T, k_dim x n_dim) in column panels (codegen/cpu/native/packed_gemm.py) when its columns
    allow, else plainly transposed (for BLAS) in the forward pass (no copy backward); ``ok``:
    whether the allocation succeeded (if not, BLAS multiplies by W_hh as it is). Each part of a
    split kernel makes its own copy, so no part waits for another.

    Why a copy: BLAS packs its B operand on every call, and runs ``h @ W_hh^T`` (a transposed B)
    slower still, worse when two threads call it at once (16 x 512 x 128 products, 35 a call, on
    the loaded 2-core VM: 4.2 ms against 1.2 with B stored transposed on one thread, 9.6 against
    2.3 on two). The copy costs one pass over W_hh per part and call."""
    i8p = ir.IntType(8).as_pointer()
    packs = packed_gemm.applies(n_dim, E.dt)
    if not packs and not transposed:
        return None, None, None
    raw = b.call(_libc(b.module, "malloc", i8p, [I64]), [const64(k_dim * n_dim * np.dtype(E.dt).itemsize)])
    ok = b.icmp_unsigned("!=", raw, ir.Constant(i8p, None))
    dst = b.bitcast(raw, E.ty.as_pointer())
    row = k_dim if transposed else n_dim
    with b.if_then(ok):
        if packs:
            packed_gemm.emit_pack(b, E.dt, w, dst, k_dim, n_dim, *((1, row) if transposed else (row, 1)))
        else:  # W_hh^T for BLAS: (k_dim, n_dim) from W_hh (n_dim, k_dim)
            lr = _Loop(b, const64(0), const64(n_dim), "wt.row")
            lc = _Loop(b, const64(0), const64(k_dim), "wt.col")
            v = b.load(b.gep(w, [E.add(E.mul(lr.i, k_dim), lc.i)], inbounds=True))
            b.store(v, b.gep(dst, [E.add(E.mul(lc.i, n_dim), lr.i)], inbounds=True))
            lc.close()
            lr.close()
    return dst, raw, ok


def _step_product(b, E, g, gemm, packed, a_ptr, lda, w, w_is_transposed, c_ptr, ldc, rows, k_dim, n_dim, name,
                  accumulate=False):
    """C[rows, n_dim] = A[rows, k_dim] @ B for one step (``accumulate``: C += ...), B being W_hh^T
    (``w_is_transposed``) or W_hh: the packed kernel when B was packed, BLAS on the plain copy
    (forward) or on W_hh itself."""
    dst, raw, ok = packed
    if dst is not None and packed_gemm.applies(n_dim, E.dt):
        product = b.module.globals.get(name) or packed_gemm.emit_product(b.module, name, E.dt, k_dim, n_dim,
                                                                         accumulate)
        with b.if_else(ok) as (then, otherwise):
            with then:
                b.call(product, [a_ptr, const64(lda), dst, c_ptr, const64(ldc), rows])
            with otherwise:
                _gemm(b, E, gemm, g["int_bits"], w_is_transposed, rows, n_dim, k_dim, a_ptr, lda, w,
                      k_dim if w_is_transposed else n_dim, c_ptr, ldc, accumulate)
        return
    if dst is None:  # W_hh as it is
        _gemm(b, E, gemm, g["int_bits"], w_is_transposed, rows, n_dim, k_dim, a_ptr, lda, w,
              k_dim if w_is_transposed else n_dim, c_ptr, ldc, accumulate)
        return
    # its transposed copy (forward), or W_hh transposed by BLAS if the copy could not be made
    _gemm(b, E, gemm, g["int_bits"], b.not_(ok), rows, n_dim, k_dim, a_ptr, lda, b.select(ok, dst, w),
          b.select(ok, const64(n_dim), const64(k_dim)), c_ptr, ldc, accumulate)


def _free(b, packed):
    _, raw, ok = packed
    if raw is None:
        return
    with b.if_then(ok):
        b.call(_libc(b.module, "free", ir.VoidType(), [ir.IntType(8).as_pointer()]), [raw])


class _Math:
    """The operand type's arithmetic, without fast-math flags (numpy's rounding, step by step),
    and its tanh (float32: codegen/cpu/vmath.py's inline one, vectorisable; float64: libm)."""

    def __init__(self, b, dt):
        self.b, self.dt = b, np.dtype(dt)
        self.ty = mem_type(dt)

    def c(self, v):
        return ir.Constant(self.ty, float(v))

    def add(self, x, y):
        return self.b.fadd(x, y)

    def sub(self, x, y):
        return self.b.fsub(x, y)

    def mul(self, x, y):
        return self.b.fmul(x, y)

    def tanh(self, x):
        if self.dt == np.float32:
            return vmath.tanh(self.b, x)
        return libm(self.b, "tanh", self.dt, x)

    def sigmoid(self, x):
        """``0.5 * tanh(0.5 * x) + 0.5`` (the registry's form)."""
        half = self.c(0.5)
        return self.add(self.mul(self.tanh(self.mul(x, half)), half), half)

    def flushed(self, x, floor):
        """x, or 0 where ``|x| < floor`` (NaN kept: numpy multiplies by the comparison, NaN * 0)."""
        small = self.b.fcmp_ordered("<", vmath.intrinsic(self.b, "fabs", x), floor)
        return self.b.select(small, self.mul(x, self.c(0.0)), x)


def _step_index(b, n, steps, reverse, backward):
    """The time step the n-th iteration handles: forward order runs 0..T-1 (T-1..0 when
    ``reverse``), the backward pass the other way; and the step before it in forward order."""
    last = const64(steps - 1)
    walks_down = reverse != backward  # forward-reverse and backward-plain both count down
    k = b.sub(last, n) if walks_down else n
    previous = b.add(k, const64(1)) if reverse else b.sub(k, const64(1))
    return k, previous


def _rows_function(module, name, n_ptrs, ty):
    """An internal ``void name(ty* noalias x n_ptrs, i64 lo, i64 hi)``: one time step's
    elementwise pass over the rows [lo, hi), its pointers each one step's slice of an operand.
    Distinct ``noalias`` parameters (a step's slices never overlap) let its loop vectorise
    without run-time overlap checks, which the previous state's pointer (the initial state or
    the previous step's, chosen at run time) would otherwise need."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ty.as_pointer()] * n_ptrs + [I64, I64]), name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    # vectorised but not interleaved or unrolled: the LSTM bench's two kernels took 0.41 + 0.37 s of
    # LLVM time without, 0.27 + 0.21 with, and ran as fast (within the noise of the loaded VM)
    fn.attributes.add("optsize")
    for a in fn.args[:n_ptrs]:
        a.add_attribute("noalias")
    return ir.IRBuilder(fn.append_basic_block("entry")), fn.args[:n_ptrs], fn.args[n_ptrs], fn.args[n_ptrs + 1], fn


# -- forward ------------------------------------------------------------------------------------------------
def _emit_forward_rows(module, name, dt, hidden):
    """``rows(x_k, gates_k, c_prev, cs_k, hs_k, lo, hi)``: from the product already in gates_k,
    every gate, the cell and hidden state of one step's rows."""
    four = 4 * hidden
    ty = mem_type(dt)
    b, ptrs, lo, hi, fn = _rows_function(module, name, 5, ty)
    E = Body(b, ptrs, dt)
    M = _Math(b, dt)
    X, GATES, CP, CS, HS = range(5)
    lr = _Loop(b, lo, hi, "row")
    gbase, sbase = E.mul(lr.i, four), E.mul(lr.i, hidden)
    lj = _Loop(b, const64(0), const64(hidden), "j")
    j = lj.i

    def pre(q):  # the q-th gate's pre-activation: the product plus the input projection
        at = E.add(gbase, q * hidden, j)
        return at, M.add(E.load(GATES, at), E.load(X, at))
    (ai, vi), (af, vf), (ag, vg), (ao, vo) = (pre(q) for q in range(4))
    gi, gf, gg, go = M.sigmoid(vi), M.sigmoid(vf), M.tanh(vg), M.sigmoid(vo)
    for at, v in ((ai, gi), (af, gf), (ag, gg), (ao, go)):
        E.store(GATES, at, v)
    s_at = E.add(sbase, j)
    c = M.add(M.mul(gf, E.load(CP, s_at)), M.mul(gi, gg))  # f * c_{t-1} + i * g
    E.store(CS, s_at, c)
    E.store(HS, s_at, M.mul(M.tanh(c), go))  # o * tanh(c_t)
    lj.close()
    lr.close()
    b.ret_void()
    return fn


class ForwardStep:
    """What one time step of a forward recurrence kernel hands to its rows function: the kernel's
    pointers, the rows [lo, hi), whether it is the first step, and the offsets of step k's state
    (``state``: k * batch * hidden), of its gates (``gate``) and of step k-1's state (``prev``)."""

    def __init__(self, b, ptrs, lo, hi, first, prev, state, gate, h_prev):
        self.b, self.ptrs, self.lo, self.hi = b, ptrs, lo, hi
        self.first, self.prev, self.state, self.gate, self.h_prev = first, prev, state, gate, h_prev

    def at(self, k, offset):
        """Pointer operand ``k`` at ``offset``."""
        return self.b.gep(self.ptrs[k], [offset])

    def carried(self, initial, saved):
        """The previous step's state: operand ``initial`` at the first step, else ``saved`` at ``prev``."""
        return self.b.select(self.first, self.ptrs[initial], self.at(saved, self.prev))


def emit_forward(module, plan, gates_per_unit, rows_fn, n_ptrs, w, h0, hs, gates, rows_args):
    """The forward kernel of a recurrence over the batch rows [lo, hi): W_hh^T packed once, then
    per time step the gates' product ``h_{t-1}[rows] @ W_hh^T`` into operand ``gates`` and one call
    of ``rows_fn`` (everything elementwise) with ``rows_args(step)`` (a :class:`ForwardStep`).
    ``w``, ``h0``, ``hs``, ``gates``: the operand positions of W_hh, h0, the saved states and gates."""
    g = plan.geometry
    steps, batch, hidden, reverse = g["steps"], g["batch"], g["hidden"], g["reverse"]
    width = gates_per_unit * hidden
    dt = plan.operands[0].dtype
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [mem_type(dt).as_pointer()] * n_ptrs)
    E = Body(b, ptrs, dt)
    E.dt = dt
    gemm = _gemm_function(module, dt, g["int_bits"])
    rows = b.sub(hi, lo)
    packed = _packed_copy(b, E, ptrs[w], hidden, width, transposed=True)  # B = W_hh^T: (hidden, width)
    ln = _Loop(b, const64(0), const64(steps), "step")
    k, kp = _step_index(b, ln.i, steps, reverse, backward=False)
    step = ForwardStep(b, ptrs, lo, hi, b.icmp_signed("==", ln.i, const64(0)), E.mul(kp, batch * hidden),
                       E.mul(k, batch * hidden), E.mul(k, batch * width), None)
    step.h_prev = step.carried(h0, hs)
    # the step's gates = h_{t-1}[rows] @ W_hh^T, then everything elementwise in one pass
    _step_product(b, E, g, gemm, packed, b.gep(step.h_prev, [E.mul(lo, hidden)]), hidden, ptrs[w], True,
                  step.at(gates, E.add(step.gate, E.mul(lo, width))), width, rows, hidden, width,
                  plan.name + ".product")
    b.call(rows_fn, rows_args(step))
    ln.close()
    _free(b, packed)
    b.ret_void()


def emit_lstm(module, plan):
    """``(hs, cs, gates)`` of ``lstm_recurrence(x_proj, w_hh, h0, c0)`` for the batch rows [lo, hi)."""
    X, W, H0, C0, HS, CS, GATES = range(7)
    rows_fn = _emit_forward_rows(module, plan.name + ".rows", plan.operands[0].dtype, plan.geometry["hidden"])
    emit_forward(module, plan, 4, rows_fn, 7, W, H0, HS, GATES, lambda s: [
        s.at(X, s.gate), s.at(GATES, s.gate), s.carried(C0, CS), s.at(CS, s.state), s.at(HS, s.state), s.lo, s.hi])


# -- backward through time -----------------------------------------------------------------------------------
def _emit_backward_rows(module, name, dt, hidden, present):
    """``rows([d_hs_k, d_cs_k, d_gates_k,] cs_k, gates_k, c_prev, d_x_k, dh, dc, lo, hi)`` (the
    present cotangents only): one step's gate cotangents into d_x_k and the cell-state carry
    ``dc`` (read, then replaced by the one for the previous step); ``dh`` is read."""
    four = 4 * hidden
    ty = mem_type(dt)
    names = [c for c in COTANGENTS if present[c]] + ["cs", "gates", "c_prev", "d_x", "dh", "dc"]
    at_ = {name: i for i, name in enumerate(names)}
    P = at_.__getitem__
    b, ptrs, lo, hi, fn = _rows_function(module, name, len(names), ty)
    E = Body(b, ptrs, dt)
    M = _Math(b, dt)
    floor = M.c(np.finfo(dt).tiny * 2.0 ** 26)  # graph.ops.recurrent._flush_floor
    lr = _Loop(b, lo, hi, "row")
    gbase, sbase = E.mul(lr.i, four), E.mul(lr.i, hidden)
    lj = _Loop(b, const64(0), const64(hidden), "j")
    j = lj.i
    s_at = E.add(sbase, j)
    dh = E.load(P("dh"), s_at)
    if present["d_hs"]:
        dh = M.add(dh, E.load(P("d_hs"), s_at))
    tc = M.tanh(E.load(P("cs"), s_at))
    g_at = [E.add(gbase, q * hidden, j) for q in range(4)]
    gi, gf, gg, go = (E.load(P("gates"), a) for a in g_at)
    one = M.c(1.0)
    dc = M.mul(dh, M.mul(go, M.sub(one, M.mul(tc, tc))))  # through h = o * tanh(c)
    dc = M.add(dc, E.load(P("dc"), s_at))
    if present["d_cs"]:
        dc = M.add(dc, E.load(P("d_cs"), s_at))
    d_act = [M.mul(dc, gg), M.mul(dc, E.load(P("c_prev"), s_at)), M.mul(dc, gi), M.mul(dh, tc)]  # d i, f, g, o
    if present["d_gates"]:
        d_act = [M.add(d, E.load(P("d_gates"), a)) for d, a in zip(d_act, g_at)]
    slopes = [M.mul(s, M.sub(one, s)) for s in (gi, gf)] + [M.sub(one, M.mul(gg, gg)), M.mul(go, M.sub(one, go))]
    for d, s, a in zip(d_act, slopes, g_at):
        E.store(P("d_x"), a, M.mul(d, s))
    E.store(P("dc"), s_at, M.flushed(M.mul(dc, gf), floor))  # to c_{t-1} through f
    lj.close()
    lr.close()
    b.ret_void()
    return fn


def _emit_flush(module, name, dt):
    """``flush(x, lo, hi)``: x[lo:hi] below the flush floor set to zero."""
    b, ptrs, lo, hi, fn = _rows_function(module, name, 1, mem_type(dt))
    E = Body(b, ptrs, dt)
    M = _Math(b, dt)
    floor = M.c(np.finfo(dt).tiny * 2.0 ** 26)
    lf = _Loop(b, lo, hi, "flush")
    E.store(0, lf.i, M.flushed(E.load(0, lf.i), floor))
    lf.close()
    b.ret_void()
    return fn


def emit_lstm_grad(module, plan):
    """``(d_x_proj, d_h0, d_c0)`` of ``lstm_recurrence_grad`` for the batch rows [lo, hi). The
    outputs d_h0 and d_c0 hold the carried cotangents (d loss / d h and d loss / d c of the
    step after the current one) while the steps run."""
    g = plan.geometry
    steps, batch, hidden, reverse = g["steps"], g["batch"], g["hidden"], g["reverse"]
    four = 4 * hidden
    present = dict(zip(COTANGENTS, g["present"]))
    dt = plan.operands[0].dtype
    ty = mem_type(dt)
    given = [c for c in COTANGENTS if present[c]]
    names = given + ["w_hh", "h0", "c0", "hs", "cs", "gates", "d_x", "d_h0", "d_c0"]
    at_ = {name: i for i, name in enumerate(names)}
    P = at_.__getitem__
    rows_fn = _emit_backward_rows(module, plan.name + ".rows", dt, hidden, present)
    flush_fn = _emit_flush(module, plan.name + ".flush", dt)
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [ty.as_pointer()] * len(names))
    E = Body(b, ptrs, dt)
    E.dt = dt
    gemm = _gemm_function(module, dt, g["int_bits"])
    rows = b.sub(hi, lo)
    packed = _packed_copy(b, E, ptrs[P("w_hh")], four, hidden, transposed=False)  # B = W_hh: (4 * hidden, hidden)
    E.zero_fill(P("d_h0"), E.mul(lo, hidden), E.mul(rows, hidden))
    E.zero_fill(P("d_c0"), E.mul(lo, hidden), E.mul(rows, hidden))
    ln = _Loop(b, const64(0), const64(steps), "step")
    k, kp = _step_index(b, ln.i, steps, reverse, backward=True)
    first_forward = b.icmp_signed("==", ln.i, const64(steps - 1))  # the step that read c0
    c_prev = b.select(first_forward, ptrs[P("c0")], b.gep(ptrs[P("cs")], [E.mul(kp, batch * hidden)]))
    state, gate = E.mul(k, batch * hidden), E.mul(k, batch * four)
    at_state = {"d_hs": state, "d_cs": state, "d_gates": gate}
    b.call(rows_fn, [b.gep(ptrs[P(c)], [at_state[c]]) for c in given]
           + [b.gep(ptrs[P("cs")], [state]), b.gep(ptrs[P("gates")], [gate]), c_prev, b.gep(ptrs[P("d_x")], [gate]),
              ptrs[P("d_h0")], ptrs[P("d_c0")], lo, hi])
    # to h_{t-1}: the pre-activation gates' cotangent @ W_hh, then flushed like the registry's
    _step_product(b, E, g, gemm, packed, b.gep(ptrs[P("d_x")], [E.add(gate, E.mul(lo, four))]), four, ptrs[P("w_hh")],
                  False, b.gep(ptrs[P("d_h0")], [E.mul(lo, hidden)]), hidden, rows, four, hidden, plan.name + ".product")
    b.call(flush_fn, [ptrs[P("d_h0")], E.mul(lo, hidden), E.mul(hi, hidden)])
    ln.close()
    _free(b, packed)
    b.ret_void()


def operand_values(node, geometry):
    """The op's tensor operands in kernel order (the absent cotangents left out), then its outputs."""
    if not node.op.name.endswith("_grad"):
        ins = list(node.inputs)
    else:
        ins = [d for d, here in zip(node.inputs[:3], geometry["present"]) if here] + list(node.inputs[3:])
    return ins, list(node.outputs)


def work(geometry) -> int:
    """Multiply-adds of the hidden-state products (the threading heuristic's size)."""
    return geometry["steps"] * geometry["batch"] * geometry["gates"] * geometry["hidden"] * geometry["hidden"]

