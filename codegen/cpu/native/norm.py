"""Batch normalisation (NCHW, the ``batch_norm`` op) as one kernel over channels.

The op's numpy implementation makes six whole-array passes with four temporaries (the mean, the
centred copy, its square, the mean of that, the scaled copy, the shifted result). Here each
channel [lo, hi) is normalised on its own: its N planes are read once for the sum, once for the
sum of squared deviations and once to write the result, and a channel's planes (ResNet-18 at
batch 32: at most 32 x 1024 values) stay in cache between the passes, so the kernel reads the
input from memory about once and writes the result once.

Arithmetic, per channel: the sums are accumulated in float64 (numpy sums float32 pairwise in
float32: the results agree to float32 rounding, and the float64 sums are the more accurate);
mean and biased variance are rounded to the operand type, then everything else is numpy's
expression in the operand type, operation for operation (no fused multiply-adds):
``scale = gamma / sqrt(var + eps)``, ``y = (x - mean) * scale + beta``, the unbiased variance
``var * (n / (n - 1))``. Not training: the moving statistics are used and passed through.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..emitter import I64
from ..kernels import _Loop
from ..vmath import intrinsic
from .body import begin, const64

F64 = ir.DoubleType()


def _sum_f64(E, start, stop, term):
    """sum over t in [start, stop) of ``term(t)`` (operand type), accumulated in float64
    (reassociable: vectorised)."""
    b = E.b
    pre = b.block
    head = b.function.append_basic_block("sum.head")
    body = b.function.append_basic_block("sum.body")
    done = b.function.append_basic_block("sum.done")
    b.branch(head)
    b.position_at_end(head)
    t = b.phi(I64)
    t.add_incoming(start, pre)
    acc = b.phi(F64)
    acc.add_incoming(ir.Constant(F64, 0.0), pre)
    b.cbranch(b.icmp_signed("<", t, stop), body, done)
    b.position_at_end(body)
    v = term(t)
    v = b.fpext(v, F64) if v.type != F64 else v
    acc.add_incoming(b.fadd(acc, v, flags=("reassoc", "contract")), b.block)
    t.add_incoming(b.add(t, const64(1), flags=("nsw",)), b.block)
    b.branch(head)
    b.position_at_end(done)
    return acc


def _channel_sum(E, total, c, images, channels, plane, term):
    """float64 sum over the channel's planes of ``term(index)`` (an element index of x), summed
    plane by plane into the float64 slot ``total``."""
    b = E.b
    b.store(ir.Constant(F64, 0.0), total)
    ln = _Loop(b, const64(0), const64(images), "n")
    base = E.add(E.mul(ln.i, channels * plane), E.mul(c, plane))
    part = _sum_f64(E, const64(0), const64(plane), lambda p: term(E.add(base, p)))
    b.store(b.fadd(b.load(total), part), total)
    ln.close()
    return b.load(total)


def emit_batch_norm(module, plan):
    """``(y, mean, var)`` of ``batch_norm(x, gamma, beta, moving_mean, moving_var)`` for the
    channels [lo, hi) (see the module docstring)."""
    g = plan.geometry
    images, channels, plane = g["images"], g["channels"], g["plane"]
    training, eps = g["training"], g["eps"]
    E, lo, hi = begin(module, plan)
    b = E.b
    X, GAMMA, BETA, MMEAN, MVAR, Y, MEAN, VAR = range(8)
    ty = E.ty

    def c_(v):
        return ir.Constant(ty, float(v))

    slot = b.alloca(F64)  # (in the entry block: one stack slot for every channel)
    lc = _Loop(b, lo, hi, "c")
    c = lc.i
    if training:
        count = images * plane
        total = _channel_sum(E, slot, c, images, channels, plane, lambda i: E.load(X, i))
        mean = b.fptrunc(b.fdiv(total, ir.Constant(F64, float(count))), ty) if ty != F64 else \
            b.fdiv(total, ir.Constant(F64, float(count)))

        def squared(i):
            d = b.fsub(E.load(X, i), mean)
            d = b.fpext(d, F64) if ty != F64 else d
            return b.fmul(d, d)
        ss = _channel_sum(E, slot, c, images, channels, plane, squared)
        var = b.fdiv(ss, ir.Constant(F64, float(count)))
        var = b.fptrunc(var, ty) if ty != F64 else var
        var_out = b.fmul(var, c_(np.dtype(plan.operands[0].dtype).type(count / (count - 1))))
    else:
        mean = E.load(MMEAN, c)
        var = E.load(MVAR, c)
        var_out = var
    scale = b.fdiv(E.load(GAMMA, c), intrinsic(b, "sqrt", b.fadd(var, c_(np.dtype(plan.operands[0].dtype).type(eps)))))
    beta = E.load(BETA, c)
    E.store(MEAN, c, mean)
    E.store(VAR, c, var_out)
    ln = _Loop(b, const64(0), const64(images), "n")
    base = E.add(E.mul(ln.i, channels * plane), E.mul(c, plane))
    lp = _Loop(b, const64(0), const64(plane), "p")
    at = E.add(base, lp.i)
    E.store(Y, at, b.fadd(b.fmul(b.fsub(E.load(X, at), mean), scale), beta))
    lp.close()
    ln.close()
    lc.close()
    b.ret_void()


def batch_norm_geometry(node):
    """Geometry of a batch_norm the kernel computes, or None: x of rank >= 2 with a non-empty
    (N, C, plane) shape, every operand of one dtype (the caller checks float32/float64)."""
    x = node.inputs[0]
    if x.ndim < 2 or 0 in x.shape:
        return None
    plane = int(np.prod(x.shape[2:], dtype=np.int64))
    if node.attrs.get("training", True) and x.shape[0] * plane < 2:
        return None
    return {"images": int(x.shape[0]), "channels": int(x.shape[1]), "plane": plane,
            "training": bool(node.attrs.get("training", True)), "eps": float(node.attrs.get("eps", 1e-5))}
