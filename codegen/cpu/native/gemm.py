"""Matrix products through numpy's own BLAS (``cblas_?gemm`` called from generated code).

One kernel per dtype serves every product: the sizes are data (an int64 table, :data:`SIZES`),
so a graph with many products compiles one function. The kernel's outer range ``[lo, hi)`` is
either the batch matrices (a batch not summed: each part computes whole matrices), blocks of
rows or columns of C (one matrix: each part computes its block), or, for a batch summed into one
C (a convolution's filter gradient), fixed blocks of :data:`BATCH_BLOCK`-ish batch matrices: each
block sums its products into its own partial C, and the part that finishes the last block (an
atomic counter) adds the partials in block order into C. Either way each part of a split runs
the same ``cblas_?gemm`` calls on its own data, so the thread pool splits products like any other
kernel while BLAS runs single-threaded inside compiled code (codegen/cpu/blas.py), and no element
of C is summed in another order for another number of parts.

A summed product with fewer rows than columns (``A @ B^T`` of a filter gradient: O x K with
O < K) computes each partial transposed, ``B @ A^T`` (K x O), and transposes while adding the
partials: OpenBLAS runs that orientation 1.3-1.7x faster on small per-image products (LeNet5's
second convolution: 16 x 150 x 100, 7.7 against 12.7 us), and the C-block split it replaces
cut them into 16 x 16 pieces (2560 calls a step at batch 256: 2.6 ms, now ~1 ms).
"""
from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir

from .. import blas
from ..emitter import I64, mem_type
from ..kernels import _Loop, kernel_entry
from .body import Body, const64, sums_over

#: the product's int64 size table: name -> index
SIZES = {name: i for i, name in enumerate(
    ("m", "n", "k", "trans_a", "trans_b", "lda", "ldb", "a_stride", "b_stride", "c_stride", "summed", "batch",
     "row_block", "col_block", "batch_block", "swap"))}

#: rows (or columns) of C per block when a product is split over C: a part is never thinner than
#: this (BLAS's register tiles are 4..16 rows/columns; thinner pieces lose most of its speed)
BLOCK = 16
#: batch matrices per block of a summed product (at least; see :func:`batch_block_of`)
BATCH_BLOCK = 8
#: the most bytes of partial results a summed product may keep (else it splits over C)
MAX_PARTIAL_BYTES = 8 << 20


def batch_block_of(m, n, batch, itemsize) -> int:
    """Batch matrices per block of a batch summed into one C, or 0 when the partial results
    would not pay (under two blocks) or take too much memory. Depends on the shapes only, so
    the sums are the same for every number of threads."""
    block = max(BATCH_BLOCK, -(-batch // 64))
    blocks = -(-batch // block)
    if blocks < 2 or blocks * m * n * itemsize > MAX_PARTIAL_BYTES:
        return 0
    return block


#: a single product whose inner dimension is at least this many times its longer side of C (a
#: convolution's filter gradient over the batch's columns: 64 x 576 summed over 32768 positions)
#: is cut along the inner dimension into :func:`k_chunks_of` chunks, each summed into a partial C
#: (the summed batch's blocks, below). Cutting C instead re-reads the long operands once per piece
#: of C (OpenBLAS single-threaded, 64 x 576 x 32768: 24 GFLOP/s in 32-column pieces, 39-46 in
#: 4096-long chunks; compiled on 2 threads, 2x faster cut along k than in two halves of C, all
#: measured interleaved on the loaded 2-core VM). At ratios of 7-9 (128 x 1152 x 8192, 512 x 512 x
#: 4608) the two were within noise, so those keep the split of C.
K_SPLIT_RATIO = 16
#: the most chunks, and the fewest inner-dimension values per chunk
K_CHUNKS = 8
K_CHUNK_MIN = 1024


def k_chunks_of(m, n, k, batch, itemsize) -> int:
    """Chunks of the inner dimension a single product is summed over (0: not cut). Depends on the
    shapes only, so the sums are the same for every number of threads."""
    if batch != 1 or k < K_SPLIT_RATIO * max(m, n):
        return 0
    for chunks in range(min(K_CHUNKS, k // K_CHUNK_MIN), 1, -1):
        if k % chunks == 0 and chunks * m * n * itemsize <= MAX_PARTIAL_BYTES:
            return chunks
    return 0


def sizes_table(m, n, k, ta, tb, a_batched, b_batched, batch, summed, split, batch_block=0,
                k_chunks=0) -> np.ndarray:
    """The kernel's size table for a product C (m x n) = op(A) (m x k) @ op(B) (k x n) over
    ``batch`` matrices (``summed``: all added into one C). ``split`` is "batch", "rows", "cols",
    "batch_blocks" (``batch_block`` matrices each) or None: what the outer range ``[lo, hi)``
    counts. ``k_chunks``: a single product cut into that many chunks of its inner dimension,
    run as a summed batch of the chunks' products (one block each)."""
    if k_chunks:
        kc = k // k_chunks
        row = dict(m=m, n=n, k=kc, trans_a=blas.TRANS if ta else blas.NO_TRANS,
                   trans_b=blas.TRANS if tb else blas.NO_TRANS, lda=m if ta else k, ldb=k if tb else n,
                   a_stride=kc * m if ta else kc, b_stride=kc if tb else kc * n, c_stride=0, summed=1,
                   batch=k_chunks, row_block=0, col_block=0, batch_block=1, swap=int(m < n))
        return np.array([row[name] for name in SIZES], np.int64)
    swap = _swaps(m, n, ta, tb, batch, summed, split)
    row = dict(m=m, n=n, k=k, trans_a=blas.TRANS if ta else blas.NO_TRANS, trans_b=blas.TRANS if tb else blas.NO_TRANS,
               lda=m if ta else k, ldb=k if tb else n, a_stride=m * k if a_batched else 0,
               b_stride=k * n if b_batched else 0, c_stride=0 if summed else m * n, summed=int(summed), batch=batch,
               row_block=BLOCK if split == "rows" else 0,
               col_block=(SWAP_BLOCK if swap else BLOCK) if split == "cols" else 0,
               batch_block=batch_block if split == "batch_blocks" else 0, swap=int(swap))
    return np.array([row[name] for name in SIZES], np.int64)


#: a single product ``A @ B^T`` with at most this many rows (and more columns) is computed
#: transposed, :data:`SWAP_BLOCK` columns of C per BLAS call
SWAP_MAX_ROWS = 64
SWAP_BLOCK = 32


def _swaps(m, n, ta, tb, batch, summed, split) -> bool:
    """Whether C is computed transposed (``op(B)^T @ op(A)^T``). OpenBLAS runs ``A @ B^T`` with
    fewer rows than columns far slower than the same product transposed, and the transposed one
    fastest in calls of 32 rows (an MLP's first layer at batch 32, 32 x 256 x 784 on one core:
    219 us as one call, 150 transposed, 128 transposed in 32-row calls). The calls have a fixed
    size, so the sums do not depend on the number of parts (one call per part does not
    guarantee that: OpenBLAS picks its kernels by size). A summed batch's partials are transposed
    whenever ``m < n`` (filter gradients: one call per batch matrix)."""
    if m >= n:
        return False
    if split == "batch_blocks":
        return True
    return split == "cols" and batch == 1 and not summed and tb and not ta and m <= SWAP_MAX_ROWS


def split_of(m, n, batch, summed, itemsize=4, ta=False, tb=False) -> tuple[str, int]:
    """How a product's outer range is cut, and its extent: the batch matrices when there are
    several results, blocks of batch matrices when they are summed (and their partial results
    fit), else blocks of C's longer side (:data:`SWAP_BLOCK` columns for a transposed one)."""
    if batch > 1 and not summed:
        return "batch", batch
    if summed and batch_block_of(m, n, batch, itemsize):
        return "batch_blocks", -(-batch // batch_block_of(m, n, batch, itemsize))
    rows, cols = -(-m // BLOCK), -(-n // BLOCK)
    if rows >= cols:
        return "rows", rows
    return "cols", (-(-n // SWAP_BLOCK) if _swaps(m, n, ta, tb, batch, summed, "cols") else cols)


def extra_arrays(m, n, batch, summed, split, dtype, swapped=False, k_chunks=0) -> tuple:
    """The partial results (or a swapped product's ``C^T``) and the block counter a product's
    kernel is given (one-element placeholders when it keeps none: every product shares one
    kernel signature)."""
    if k_chunks:
        return np.zeros(k_chunks * m * n, dtype), np.zeros(8, np.int64)
    if swapped and split != "batch_blocks":
        return np.zeros(m * n, dtype), np.zeros(8, np.int64)
    if split != "batch_blocks":
        return np.zeros(1, dtype), np.zeros(8, np.int64)
    blocks = -(-batch // batch_block_of(m, n, batch, np.dtype(dtype).itemsize))
    return np.zeros(blocks * m * n, dtype), np.zeros(8, np.int64)


def kernel_name(dtype, int_bits) -> str:
    return f"msjit_gemm_{np.dtype(dtype).name}_i{int_bits}"


@functools.lru_cache(maxsize=None)
def library(dtype_name: str, int_bits: int) -> int:
    """Address of the product kernel for a dtype, compiled once per process (it serves every
    product: the sizes are data) through the disk cache, its symbol registered for the graphs'
    generated code. Compiling it into every graph cost each ~35 ms of LLVM time."""
    import llvmlite.binding as llvm
    from .. import compiler
    name = kernel_name(dtype_name, int_bits)

    def make_module():
        module = compiler.new_module(name)
        _define_matmul(module, name, np.dtype(dtype_name), int_bits)
        return module
    lib = compiler.keep_for_process(compiler.build_described(f"product kernel {name}", make_module))
    address = lib.address(name)
    llvm.add_symbol(name, address)
    return address


def emit_matmul(module, plan):
    """Declare the shared product kernel (:func:`library`) in a graph's module."""
    dt = plan.operands[0].dtype
    library(dt.name, plan.geometry["int_bits"])
    i8pp = ir.IntType(8).as_pointer().as_pointer()
    ir.Function(module, ir.FunctionType(ir.VoidType(), [i8pp, I64, I64]), plan.name)


def _define_matmul(module, name, dt, int_bits):
    """``void msjit_gemm_<dtype>_i<bits>(args, lo, hi)``: args = (a, b, c, sizes, scratch,
    counter) with sizes the table of :func:`sizes_table`; calls ``cblas_?gemm`` on the part
    ``[lo, hi)`` of the product (batch matrices, row/column blocks of C, or blocks of a summed
    batch)."""
    ptr_ty = mem_type(dt).as_pointer()
    b, ptrs, lo, hi = kernel_entry(module, name, [ptr_ty] * 3 + [I64.as_pointer(), ptr_ty, I64.as_pointer()],
                                   ("optsize",))
    E = Body(b, ptrs, dt)
    ity = ir.IntType(int_bits)
    i32 = ir.IntType(32)
    char = "s" if dt == np.float32 else "d"
    blas_name = blas.Interface(int_bits, "").symbol(char)
    fn = module.globals.get(blas_name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32, i32, i32, ity, ity, ity, E.ty, ptr_ty, ity,
                                                                 ptr_ty, ity, E.ty, ptr_ty, ity]), blas_name)
    A, B, C, TABLE, PARTIALS, COUNTER = range(6)
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

    blocked, single = b.function.append_basic_block("batch_blocks"), b.function.append_basic_block("single")
    b.cbranch(nonzero(s["batch_block"]), blocked, single)
    b.position_at_end(blocked)
    _emit_batch_blocks(b, E, fn, ptrs, s, lo, hi, i)
    b.position_at_end(single)
    swapped, whole = b.function.append_basic_block("swapped"), b.function.append_basic_block("whole")
    b.cbranch(nonzero(s["swap"]), swapped, whole)
    b.position_at_end(swapped)
    _emit_swapped_product(b, E, fn, ptrs, s, lo, hi, i)
    b.position_at_end(whole)

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


def _emit_swapped_product(b, E, gemm, ptrs, s, lo, hi, i):
    """One product ``A @ B^T`` with fewer rows than columns, column blocks ``[lo, hi)`` of C
    (``col_block`` columns each): each block computed as the same rows of ``C^T = B @ A^T`` into
    the scratch (``n x m``), one call per block, then transposed into C (each part writes its
    own columns)."""
    A, B, C, TABLE, SCRATCH, COUNTER = range(6)
    i32 = ir.IntType(32)
    m, n, block = s["m"], s["n"], s["col_block"]
    blocks = _Loop(b, lo, hi, "chunk")
    c0 = E.mul(blocks.i, block)
    c1 = E.add(c0, block)
    c1 = b.select(b.icmp_signed("<", c1, n), c1, n)
    b.call(gemm, [ir.Constant(i32, blas.ROW_MAJOR), ir.Constant(i32, blas.NO_TRANS), ir.Constant(i32, blas.TRANS),
                  i(b.sub(c1, c0)), i(m), i(s["k"]), ir.Constant(E.ty, 1.0),
                  b.gep(ptrs[B], [E.mul(c0, s["ldb"])]), i(s["ldb"]), ptrs[A], i(s["lda"]),
                  ir.Constant(E.ty, 0.0), b.gep(ptrs[SCRATCH], [E.mul(c0, m)]), i(m)])
    col = _Loop(b, c0, c1, "col")
    row = _Loop(b, const64(0), m, "row")
    v = b.load(b.gep(ptrs[SCRATCH], [E.add(E.mul(col.i, m), row.i)]))
    b.store(v, b.gep(ptrs[C], [E.add(E.mul(row.i, n), col.i)]))
    row.close()
    col.close()
    blocks.close()
    b.ret_void()


def _emit_batch_blocks(b, E, gemm, ptrs, s, lo, hi, i):
    """A batch summed into one C, over blocks ``[lo, hi)`` of ``batch_block`` batch matrices: each
    block's products summed into its partial (``m x n``, or ``n x m`` computed as ``op(B)^T @
    op(A)^T`` when ``swap``), then the part completing the last block adds the partials into C in
    block order (transposing swapped ones) and resets the counter."""
    A, B, C, TABLE, PARTIALS, COUNTER = range(6)
    i32 = ir.IntType(32)
    one, zero = const64(1), const64(0)
    m, n, k, batch, bb = s["m"], s["n"], s["k"], s["batch"], s["batch_block"]
    swap = b.icmp_signed("!=", s["swap"], zero)
    mn = E.mul(m, n)
    flip = {blas.NO_TRANS: blas.TRANS, blas.TRANS: blas.NO_TRANS}

    def flipped(t):
        return b.select(b.icmp_signed("==", t, const64(blas.NO_TRANS)), const64(flip[blas.NO_TRANS]),
                        const64(flip[blas.TRANS]))

    blocks = _Loop(b, lo, hi, "blk")
    partial = b.gep(ptrs[PARTIALS], [E.mul(blocks.i, mn)])
    first = E.mul(blocks.i, bb)
    stop = E.add(first, bb)
    stop = b.select(b.icmp_signed("<", stop, batch), stop, batch)
    lb = _Loop(b, first, stop, "mat")
    beta = b.select(b.icmp_signed(">", lb.i, first), ir.Constant(E.ty, 1.0), ir.Constant(E.ty, 0.0))
    a_ptr = b.gep(ptrs[A], [E.mul(lb.i, s["a_stride"])])
    b_ptr = b.gep(ptrs[B], [E.mul(lb.i, s["b_stride"])])
    # C = op(A) @ op(B), or C^T = op(B)^T @ op(A)^T: (transB', transA') on (B, A), n x m
    ta = b.select(swap, flipped(s["trans_b"]), s["trans_a"])
    tb = b.select(swap, flipped(s["trans_a"]), s["trans_b"])
    rows, cols = b.select(swap, n, m), b.select(swap, m, n)
    first_op, second_op = b.select(swap, b_ptr, a_ptr), b.select(swap, a_ptr, b_ptr)
    ld1, ld2 = b.select(swap, s["ldb"], s["lda"]), b.select(swap, s["lda"], s["ldb"])
    b.call(gemm, [ir.Constant(i32, blas.ROW_MAJOR), b.trunc(ta, i32), b.trunc(tb, i32), i(rows), i(cols), i(k),
                  ir.Constant(E.ty, 1.0), first_op, i(ld1), second_op, i(ld2), beta, partial, i(cols)])
    lb.close()
    blocks.close()
    count = b.sub(hi, lo)
    done = b.atomic_rmw("add", ptrs[COUNTER], count, "seq_cst")
    total = b.udiv(E.add(batch, b.sub(bb, one)), bb)
    with b.if_then(b.icmp_signed("==", E.add(done, count), total)):
        b.store(zero, ptrs[COUNTER])
        r = _Loop(b, zero, m, "row")
        c = _Loop(b, zero, n, "col")
        # element (r, c) of C: at r*n + c in a partial, or at c*m + r in a swapped one
        at = b.select(swap, E.add(E.mul(c.i, m), r.i), E.add(E.mul(r.i, n), c.i))
        (acc,) = sums_over(b, E, zero, total, lambda j: [b.load(b.gep(ptrs[PARTIALS], [E.add(E.mul(j, mn), at)]))],
                           "sum", ordered=True)  # the partials added in block order
        b.store(acc, b.gep(ptrs[C], [E.add(E.mul(r.i, n), c.i)]))
        c.close()
        r.close()
    b.ret_void()
