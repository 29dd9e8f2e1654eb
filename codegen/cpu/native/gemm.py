"""Matrix products through numpy's own BLAS (``cblas_?gemm`` called from generated code).

One kernel per dtype serves every product: the sizes are data (an int64 table, :data:`SIZES`),
so a graph with many products compiles one function. The kernel's outer range ``[lo, hi)`` is
either the batch matrices (a batch not summed: each part computes whole matrices) or blocks of
rows or columns of C (one matrix, or a batch summed into one C: each part computes its block for
every batch matrix, adding them in batch order). Either way each part of a split runs the same
``cblas_?gemm`` calls on its own piece of C, so the thread pool splits products like any other
kernel while BLAS runs single-threaded inside compiled code (codegen/cpu/blas.py), and no element
of C is summed in another order for another number of parts.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import blas
from ..emitter import I64, mem_type
from ..kernels import _Loop, kernel_entry
from .body import Body, const64

#: the product's int64 size table: name -> index
SIZES = {name: i for i, name in enumerate(
    ("m", "n", "k", "trans_a", "trans_b", "lda", "ldb", "a_stride", "b_stride", "c_stride", "summed", "batch",
     "row_block", "col_block"))}

#: rows (or columns) of C per block when a product is split over C: a part is never thinner than
#: this (BLAS's register tiles are 4..16 rows/columns; thinner pieces lose most of its speed)
BLOCK = 16


def sizes_table(m, n, k, ta, tb, a_batched, b_batched, batch, summed, split) -> np.ndarray:
    """The kernel's size table for a product C (m x n) = op(A) (m x k) @ op(B) (k x n) over
    ``batch`` matrices (``summed``: all added into one C). ``split`` is "batch", "rows", "cols"
    or None: what the outer range ``[lo, hi)`` counts."""
    row = dict(m=m, n=n, k=k, trans_a=blas.TRANS if ta else blas.NO_TRANS, trans_b=blas.TRANS if tb else blas.NO_TRANS,
               lda=m if ta else k, ldb=k if tb else n, a_stride=m * k if a_batched else 0,
               b_stride=k * n if b_batched else 0, c_stride=0 if summed else m * n, summed=int(summed), batch=batch,
               row_block=BLOCK if split == "rows" else 0, col_block=BLOCK if split == "cols" else 0)
    return np.array([row[name] for name in SIZES], np.int64)


def split_of(m, n, batch, summed) -> tuple[str, int]:
    """How a product's outer range is cut, and its extent: the batch matrices when there are
    several results, else blocks of C's longer side."""
    if batch > 1 and not summed:
        return "batch", batch
    rows, cols = -(-m // BLOCK), -(-n // BLOCK)
    return ("rows", rows) if rows >= cols else ("cols", cols)


def emit_matmul(module, plan):
    """``void msjit_gemm_<dtype>_i<bits>(args, lo, hi)``: args = (a, b, c, sizes) with sizes the
    table of :func:`sizes_table`; calls ``cblas_?gemm`` on the part ``[lo, hi)`` of the product
    (batch matrices, or row/column blocks of C for every batch matrix), each batch matrix adding
    into C after the first when the batch is summed."""
    g = plan.geometry
    dt = plan.operands[0].dtype
    ptr_ty = mem_type(dt).as_pointer()
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [ptr_ty] * 3 + [I64.as_pointer()], ("optsize",))
    E = Body(b, ptrs, dt)
    ity = ir.IntType(g["int_bits"])
    i32 = ir.IntType(32)
    char = "s" if dt == np.float32 else "d"
    name = blas.Interface(g["int_bits"], "").symbol(char)
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32, i32, i32, ity, ity, ity, E.ty, ptr_ty, ity,
                                                                 ptr_ty, ity, E.ty, ptr_ty, ity]), name)
    A, B, C, TABLE = 0, 1, 2, 3
    s = {key: b.load(b.gep(ptrs[TABLE], [const64(i)], inbounds=True)) for key, i in SIZES.items()}
    zero = const64(0)

    def i(v):
        return b.trunc(v, ity) if ity.width < 64 else v

    def nonzero(v):
        return b.icmp_signed("!=", v, zero)

    def block_range(block, extent):
        """[start, stop) of C's rows or columns for the parts [lo, hi) when split in ``block``s,
        else the whole extent."""
        start = E.mul(lo, block)
        stop = E.mul(hi, block)
        stop = b.select(b.icmp_signed("<", stop, extent), stop, extent)
        on = nonzero(block)
        return b.select(on, start, zero), b.select(on, stop, extent)

    by_blocks = b.or_(nonzero(s["row_block"]), nonzero(s["col_block"]))
    first = b.select(by_blocks, zero, lo)
    last = b.select(by_blocks, s["batch"], hi)
    r0, r1 = block_range(s["row_block"], s["m"])
    c0, c1 = block_range(s["col_block"], s["n"])
    # where the block starts in A (rows of op(A)), B (columns of op(B)) and C
    a_step = b.select(nonzero(b.sub(s["trans_a"], const64(blas.NO_TRANS))), const64(1), s["lda"])
    b_step = b.select(nonzero(b.sub(s["trans_b"], const64(blas.NO_TRANS))), s["ldb"], const64(1))
    a_off, b_off = E.mul(r0, a_step), E.mul(c0, b_step)
    c_off = E.add(E.mul(r0, s["n"]), c0)
    lb = _Loop(b, first, last, "batch")
    adds = b.and_(nonzero(s["summed"]), b.icmp_signed(">", lb.i, first))
    beta = b.select(adds, ir.Constant(E.ty, 1.0), ir.Constant(E.ty, 0.0))
    args = [ir.Constant(i32, blas.ROW_MAJOR), b.trunc(s["trans_a"], i32), b.trunc(s["trans_b"], i32),
            i(b.sub(r1, r0)), i(b.sub(c1, c0)), i(s["k"]), ir.Constant(E.ty, 1.0),
            b.gep(ptrs[A], [E.add(E.mul(lb.i, s["a_stride"]), a_off)]), i(s["lda"]),
            b.gep(ptrs[B], [E.add(E.mul(lb.i, s["b_stride"]), b_off)]), i(s["ldb"]), beta,
            b.gep(ptrs[C], [E.add(E.mul(lb.i, s["c_stride"]), c_off)]), i(s["n"])]
    b.call(fn, args)
    lb.close()
    b.ret_void()
