"""A generated matrix product against a matrix packed once and reused many times: the
recurrences' per-step products ``h_{t-1} @ W_hh^T`` (and ``d_gates @ W_hh`` backward), where the
same W_hh multiplies a thin block of rows (the part's batch rows) at every one of T steps.

BLAS re-packs its B operand into panels on every call: for the LSTM bench's 32 x 512 x 128
products that pass over W_hh (256 KB) costs about as much as the multiply-adds, and two threads
calling at once each pay it (16-row products: 41-75 GFLOP/s single-threaded OpenBLAS, measured
on the loaded 2-core VM, against ~150 for the large products). Here W_hh is packed once per call
and part into column panels of one vector register (``lanes`` = 16 float32 / 8 float64 values,
``[panel][k][lane]``), and the product is a register-blocked kernel: :data:`ROWS` rows x two
panels of accumulators, one broadcast of A and two panel loads per k, fused multiply-adds; every
element of C is the sum over k in k's order, whatever the split of the rows.

Used when the product's columns are a multiple of two panels (else the caller keeps BLAS).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..emitter import I64, mem_type
from ..kernels import _Loop
from .body import const64

#: rows of C per register block (x two panels: 16 accumulators, half of AVX-512's registers)
ROWS = 8
#: bytes of one vector register the panels are cut to
VECTOR_BYTES = 64


def lanes(dt) -> int:
    return VECTOR_BYTES // np.dtype(dt).itemsize


def applies(n_cols, dt) -> bool:
    """Whether a product with ``n_cols`` columns runs here (whole pairs of panels)."""
    return n_cols > 0 and n_cols % (2 * lanes(dt)) == 0


def emit_pack(b, dt, src, dst, k_dim, n_dim, stride_k, stride_n):
    """dst[(p * k_dim + k) * lanes + l] = B[k, p * lanes + l] with B[k, n] = src[k * stride_k + n *
    stride_n] (B = W^T: stride_k 1, stride_n = W's row length; B = W: stride_k = row length, 1)."""
    v = lanes(dt)
    lp = _Loop(b, const64(0), const64(n_dim // v), "pack.p")
    lk = _Loop(b, const64(0), const64(k_dim), "pack.k")
    ll = _Loop(b, const64(0), const64(v), "pack.l")
    n = b.add(b.mul(lp.i, const64(v)), ll.i)
    value = b.load(b.gep(src, [b.add(b.mul(lk.i, const64(stride_k)), b.mul(n, const64(stride_n)))], inbounds=True))
    at = b.add(b.mul(b.add(b.mul(lp.i, const64(k_dim)), lk.i), const64(v)), ll.i)
    b.store(value, b.gep(dst, [at], inbounds=True))
    ll.close()
    lk.close()
    lp.close()


def _fma(module, vec):
    name = f"llvm.fma.v{vec.count}{'f32' if vec.element == ir.FloatType() else 'f64'}"
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(vec, [vec, vec, vec]), name)
    return fn


def emit_product(module, name, dt, k_dim, n_dim, accumulate=False):
    """``void name(A*, i64 lda, Bp*, C*, i64 ldc, i64 m)``: C[0:m, 0:n_dim] = A[0:m, 0:k_dim] @ B
    with B packed by :func:`emit_pack` (the shapes baked in; C overwritten, or added to when
    ``accumulate``: the sums then start from C's values)."""
    ty = mem_type(dt)
    v = lanes(dt)
    vec = ir.VectorType(ty, v)
    ptr = ty.as_pointer()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, I64, ptr, ptr, I64, I64]), name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    a_ptr, lda, bp, c_ptr, ldc, m = fn.args
    for p in (a_ptr, bp, c_ptr):
        p.add_attribute("noalias")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    fma = _fma(module, vec)
    zero = ir.Constant(vec, [0.0] * v)
    splat_mask = ir.Constant(ir.VectorType(ir.IntType(32), v), [0] * v)
    full = b.mul(b.udiv(m, const64(ROWS)), const64(ROWS))

    def vload(p, at):
        return b.load(b.bitcast(b.gep(p, [at], inbounds=True), vec.as_pointer()), align=np.dtype(dt).itemsize)

    def vstore(p, at, value):
        b.store(value, b.bitcast(b.gep(p, [at], inbounds=True), vec.as_pointer()), align=np.dtype(dt).itemsize)

    def block(row0, rows):
        """C[row0 : row0 + rows, all columns], two panels at a time."""
        lp = _Loop(b, const64(0), const64(n_dim // (2 * v)), f"pp{rows}")
        panel0 = b.mul(lp.i, const64(2))
        base = [b.mul(b.add(panel0, const64(j)), const64(k_dim * v)) for j in (0, 1)]
        a_rows = [b.mul(b.add(row0, const64(r)), lda) for r in range(rows)]
        c_at = [[b.add(b.mul(b.add(row0, const64(r)), ldc), b.mul(b.add(panel0, const64(j)), const64(v)))
                 for j in (0, 1)] for r in range(rows)]
        start = [[vload(c_ptr, c_at[r][j]) if accumulate else zero for j in (0, 1)] for r in range(rows)]
        pre = b.block
        head = fn.append_basic_block(f"k{rows}.head")
        body = fn.append_basic_block(f"k{rows}.body")
        done = fn.append_basic_block(f"k{rows}.done")
        b.branch(head)
        b.position_at_end(head)
        k = b.phi(I64)
        k.add_incoming(const64(0), pre)
        accs = [[b.phi(vec) for _ in (0, 1)] for _ in range(rows)]
        for r in range(rows):
            for j in (0, 1):
                accs[r][j].add_incoming(start[r][j], pre)
        b.cbranch(b.icmp_signed("<", k, const64(k_dim)), body, done)
        b.position_at_end(body)
        kv = b.mul(k, const64(v))
        panels = [vload(bp, b.add(base[j], kv)) for j in (0, 1)]
        for r in range(rows):
            a = b.load(b.gep(a_ptr, [b.add(a_rows[r], k)], inbounds=True))
            splat = b.shuffle_vector(b.insert_element(ir.Constant(vec, ir.Undefined), a, ir.Constant(ir.IntType(32), 0)),
                                     ir.Constant(vec, ir.Undefined), splat_mask)
            for j in (0, 1):
                accs[r][j].add_incoming(b.call(fma, [splat, panels[j], accs[r][j]]), body)
        k.add_incoming(b.add(k, const64(1)), body)
        b.branch(head)
        b.position_at_end(done)
        for r in range(rows):
            for j in (0, 1):
                vstore(c_ptr, c_at[r][j], accs[r][j])
        lp.close()

    lr = _Loop(b, const64(0), b.udiv(m, const64(ROWS)), "rowblock")
    block(b.mul(lr.i, const64(ROWS)), ROWS)
    lr.close()
    lt = _Loop(b, full, m, "rowtail")
    block(lt.i, 1)
    lt.close()
    b.ret_void()
    return fn
