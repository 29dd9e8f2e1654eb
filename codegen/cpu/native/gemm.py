"""Matrix products through numpy's own BLAS (``cblas_?gemm`` called from generated code)."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import blas
from ..emitter import I64, mem_type
from ..kernels import _Loop, kernel_entry
from .body import Body, const64


# -- matmul through BLAS ---------------------------------------------------------------------------------
def emit_matmul(module, plan):
    """``void msjit_gemm_<dtype>_i<bits>(args, lo, hi)``: args = (a, b, c, sizes) with sizes the
    int64 [m, n, k, trans_a, trans_b, lda, ldb, a batch stride, b batch stride, c batch stride,
    sum over the batch] of the product; calls ``cblas_?gemm`` for batch matrices [lo, hi), each
    adding into c after the first when the batch is summed (in batch order, as a reduction)."""
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
    A, B, C, SIZES = 0, 1, 2, 3
    m, n, k, ta, tb, lda, ldb, sa, sb, sc, acc = (b.load(b.gep(ptrs[SIZES], [const64(i)], inbounds=True))
                                                  for i in range(11))

    def i(v):
        return b.trunc(v, ity) if ity.width < 64 else v
    lb = _Loop(b, lo, hi, "batch")
    adds = b.and_(b.icmp_signed("!=", acc, const64(0)), b.icmp_signed(">", lb.i, lo))
    beta = b.select(adds, ir.Constant(E.ty, 1.0), ir.Constant(E.ty, 0.0))
    args = [ir.Constant(i32, blas.ROW_MAJOR), b.trunc(ta, i32), b.trunc(tb, i32), i(m), i(n), i(k),
            ir.Constant(E.ty, 1.0), b.gep(ptrs[A], [E.mul(lb.i, sa)]), i(lda), b.gep(ptrs[B], [E.mul(lb.i, sb)]),
            i(ldb), beta, b.gep(ptrs[C], [E.mul(lb.i, sc)]), i(n)]
    b.call(fn, args)
    lb.close()
    b.ret_void()
