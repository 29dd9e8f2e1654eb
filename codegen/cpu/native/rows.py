"""Classifier rows: softmax over the last axis, one_hot, sparse softmax cross entropy."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..emitter import I64, mem_type
from ..kernels import _Loop, kernel_entry
from .. import vmath
from ..vmath import intrinsic
from .body import ATTRIBUTES, Body, const64, libm, sums_over, begin


# -- classifier rows: softmax, one_hot, sparse cross entropy -------------------------------------------
def _row_max(E, X, base, cols):
    """max over x[base : base + cols] (NaN propagates, as numpy's max)."""
    b = E.b
    pre = b.block
    head = b.function.append_basic_block("max.head")
    body = b.function.append_basic_block("max.body")
    done = b.function.append_basic_block("max.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    m = b.phi(E.ty)
    i.add_incoming(const64(0), pre)
    m.add_incoming(E.ninf, pre)
    b.cbranch(b.icmp_signed("<", i, const64(cols)), body, done)
    b.position_at_end(body)
    m.add_incoming(intrinsic(b, "maximum", m, E.load(X, E.add(base, i))), body)
    i.add_incoming(b.add(i, const64(1), flags=("nsw",)), body)
    b.branch(head)
    b.position_at_end(done)
    return m


def _row_sum_exp(E, X, base, cols, m, store=None, inline_exp=False):
    """sum of exp(x - m) over the row; each term also stored with ``store(i, e)`` if given.
    ``inline_exp`` (float32): vmath's straight-line exp, which the loop vectoriser can widen,
    instead of a libm call per element."""
    b = E.b
    dt = E.dt

    def terms(i):
        shifted = b.fsub(E.load(X, E.add(base, i)), m)
        e = vmath.exp(b, shifted) if inline_exp else libm(b, "exp", dt, shifted)
        if store is not None:
            store(i, e)
        return [e]
    (total,) = sums_over(b, E, const64(0), const64(cols), terms, "sumexp")
    return total


def emit_softmax(module, plan):
    cols = plan.geometry["cols"]
    E, lo, hi = begin(module, plan)
    E.dt = plan.operands[0].dtype
    b = E.b
    X, Y = 0, 1
    lr = _Loop(b, lo, hi, "row")
    base = E.mul(lr.i, cols)
    m = _row_max(E, X, base, cols)
    s = _row_sum_exp(E, X, base, cols, m, store=lambda i, e: E.store(Y, E.add(base, i), e),
                     inline_exp=E.dt == np.float32)
    lc = _Loop(b, const64(0), const64(cols), "c")
    at = E.add(base, lc.i)
    E.store(Y, at, b.fdiv(E.load(Y, at), s))
    lc.close()
    lr.close()
    b.ret_void()


def emit_one_hot(module, plan):
    g = plan.geometry
    idx_dt = plan.operands[0].dtype
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [mem_type(idx_dt).as_pointer(), mem_type(np.float32).as_pointer()],
                                   ATTRIBUTES["one_hot"])
    E = Body(b, ptrs, np.float32)
    IDX, OUT = 0, 1
    on, off = ir.Constant(E.ty, g["on"]), ir.Constant(E.ty, g["off"])
    ln = _Loop(b, lo, hi, "n")
    hot = b.load(b.gep(ptrs[IDX], [ln.i], inbounds=True))
    hot = b.sext(hot, I64) if hot.type.width < 64 else hot
    ld = _Loop(b, const64(0), const64(g["depth"]), "d")
    E.store(OUT, E.add(E.mul(ln.i, g["depth"]), ld.i), b.select(b.icmp_signed("==", hot, ld.i), on, off))
    ld.close()
    ln.close()
    b.ret_void()


def emit_sparse_ce(module, plan):
    """loss[n] = log(sum(exp(x[n] - max))) - (x[n, label] - max); a label outside [0, C) sets the
    flag (and reads column 0 instead)."""
    cols = plan.geometry["cols"]
    dt = plan.operands[0].dtype
    lab_dt = plan.operands[1].dtype
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [mem_type(dt).as_pointer(), mem_type(lab_dt).as_pointer(),
                                                       mem_type(dt).as_pointer(), I64.as_pointer()],
                                   ATTRIBUTES["sparse_softmax_cross_entropy"])
    E = Body(b, ptrs, dt)
    E.dt = dt
    X, LAB, LOSS, FLAG = 0, 1, 2, 3
    lr = _Loop(b, lo, hi, "row")
    base = E.mul(lr.i, cols)
    label = b.load(b.gep(ptrs[LAB], [lr.i], inbounds=True))
    label = b.sext(label, I64) if label.type.width < 64 else label
    bad = b.icmp_unsigned(">=", label, const64(cols))  # (negative labels are huge unsigned)
    with b.if_then(bad):
        b.store(const64(1), ptrs[FLAG])
    label = b.select(bad, const64(0), label)
    m = _row_max(E, X, base, cols)
    s = _row_sum_exp(E, X, base, cols, m)
    picked = b.fsub(E.load(X, E.add(base, label)), m)
    E.store(LOSS, lr.i, b.fsub(libm(b, "log", dt, s), picked))
    lr.close()
    b.ret_void()
