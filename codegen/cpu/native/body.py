"""IR building blocks shared by the native kernels: typed element access, the kernel entry
with its per-op function attributes, loops and sums, libm calls."""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from ..emitter import I64, mem_type
from ..kernels import _Loop, kernel_entry

#: kernel offsets unrolled per window at most (larger windows run the numpy implementation)
MAX_WINDOW = 64
#: function attributes per op: ``optsize`` keeps the vectoriser from interleaving and unrolling
#: short loops, which costs LLVM far more time than it gains here (measured on LeNet5's shapes:
#: im2col 0.106 -> 0.017 s of LLVM time for 60 us either way (conv1 80 -> 94 us), each pooling
#: kernel 0.026 -> 0.010 s for the same speed, the direct convolution 0.044 -> 0.026 s); col2im's
#: additions (57 -> 302 us) and the direct filter gradient (LeNet5 b256: 1.14 -> 1.70 ms) are
#: much slower under it, so they are optimised for speed
ATTRIBUTES = {"conv_im2col": ("optsize",), "max_pool2d": ("optsize",), "max_pool2d_grad": ("optsize",),
              "matmul": ("optsize",), "transpose": ("optsize",), "conv2d": ("optsize",),
              "softmax": ("optsize",), "one_hot": ("optsize",), "sparse_softmax_cross_entropy": ("optsize",)}
#: pooled planes of at most this many windows (max_pool2d_grad keeps one int per window on the stack)
MAX_PLANE = 1 << 16


def const64(v):
    return ir.Constant(I64, int(v))


def valid_range(n_out, n_in, stride, offset):
    """[lo, hi) of the output positions o whose input position o*stride + offset is in [0, n_in)."""
    lo = max(0, -(offset // stride)) if offset < 0 else 0
    while lo < n_out and lo * stride + offset < 0:
        lo += 1
    hi = n_out
    while hi > lo and (hi - 1) * stride + offset >= n_in:
        hi -= 1
    return lo, max(lo, hi)


# -- element access ----------------------------------------------------------------------------------------
class Body:
    """Typed element access over the kernel's pointer arguments."""

    def __init__(self, b, ptrs, dt):
        self.b = b
        self.ptrs = ptrs
        self.ty = mem_type(dt)
        self.zero = ir.Constant(self.ty, 0.0)
        self.ninf = ir.Constant(self.ty, -math.inf)

    def load(self, k, off):
        return self.b.load(self.b.gep(self.ptrs[k], [off], inbounds=True))

    def store(self, k, off, v):
        self.b.store(v, self.b.gep(self.ptrs[k], [off], inbounds=True))

    def add(self, x, *ys):
        for y in ys:
            x = self.b.add(x, y if isinstance(y, ir.Value) else const64(y), flags=("nsw",))
        return x

    def mul(self, x, y):
        return self.b.mul(x, y if isinstance(y, ir.Value) else const64(y), flags=("nsw",))

    def zero_fill(self, k, start, count):
        """ptr[k][start : start + count] = 0 (LLVM turns the loop into memset)."""
        if isinstance(count, int) and count <= 0:
            return
        lp = _Loop(self.b, const64(0), count if isinstance(count, ir.Value) else const64(count), "zero")
        self.store(k, self.add(start, lp.i), self.zero)
        lp.close()


def begin(module, plan):
    dt = plan.operands[0].dtype
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [mem_type(dt).as_pointer()] * len(plan.operands),
                                   ATTRIBUTES.get(plan.node.op.name, ()))
    return Body(b, ptrs, dt), lo, hi


def opaque(module, name, b, values):
    """``values`` read from a global LLVM cannot see through: loops over them keep a run-time
    trip count, so the optimiser does not unroll the kernel-offset loops into one vectorised
    copy of the body per offset (which cost 4x the compile time for no speed)."""
    ty = ir.ArrayType(I64, len(values))
    gv = ir.GlobalVariable(module, ty, name=f"{name}.extents")
    gv.initializer = ir.Constant(ty, list(values))  # external and writable: not a constant
    return [b.load(b.gep(gv, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), k)], inbounds=True))
            for k in range(len(values))]


def sums_over(b, E, start, stop, terms, name, ordered=False):
    """Register sums over t in [start, stop) of each ``terms(t)`` value (one loop, vectorisable:
    the sums may be reassociated, unless ``ordered``: then added in t's order); returns the totals."""
    pre = b.block
    head = b.function.append_basic_block(f"{name}.head")
    body = b.function.append_basic_block(f"{name}.body")
    done = b.function.append_basic_block(f"{name}.done")
    b.branch(head)
    b.position_at_end(head)
    t = b.phi(I64, name=name)
    t.add_incoming(start, pre)
    b.position_at_end(body)
    values = terms(t)
    b.position_at_end(head)
    sums = [b.phi(E.ty) for _ in values]
    for s_ in sums:
        s_.add_incoming(E.zero, pre)
    b.cbranch(b.icmp_signed("<", t, stop), body, done)
    b.position_at_end(body)
    for s_, v in zip(sums, values):
        s_.add_incoming(b.fadd(s_, v, flags=() if ordered else ("reassoc", "contract")), b.block)
    t.add_incoming(b.add(t, const64(1), flags=("nsw",)), b.block)
    b.branch(head)
    b.position_at_end(done)
    return sums


def libm(b, name, dt, x):
    """libm's ``name`` (``expf``/``exp``...) of x: a call, small to compile (rows here are short;
    the inline polynomials of the fused kernels pay off on long vector loops)."""
    fname = name + ("f" if dt == np.float32 else "")
    fn = b.module.globals.get(fname)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(x.type, [x.type]), fname)
    return b.call(fn, [x])
