"""FusedPlan (codegen/fused_plan.py) -> one LLVM function with the static shape baked in.

:func:`emit_fused` writes

    void <name>(i8** args, i64 lo, i64 hi)     ; runs outer-axis iterations [lo, hi)

which loads the operand pointers and calls an always-inlined ``noalias`` body (so the loop
vectoriser needs no runtime alias checks). Reductions accumulate in a register when the innermost
axis is reduced (float32 sums in float64), else into the (identity-initialised) output.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..fused_plan import FusedPlan, NotFusable, Operand, emit_body, plan_fused, reduction_identity
from . import vmath
from .emitter import (BOOL, FLOAT32, I1, I64, LLVMEmitter, LV, compute_dtype, convert, mem_type,
                      reg_type)


__all__ = ["FusedPlan", "NotFusable", "Operand", "plan_fused", "emit_fused", "kernel_entry"]  # plan names re-exported


class _Loop:
    """for (i = start; i < stop; ++i) with a phi; ``body(i)`` fills the loop body."""

    def __init__(self, b: ir.IRBuilder, start, stop, name):
        self.b = b
        fn = b.function
        self.pre = b.block
        self.head = fn.append_basic_block(f"{name}.head")
        self.body = fn.append_basic_block(f"{name}.body")
        self.exit = fn.append_basic_block(f"{name}.exit")
        b.branch(self.head)
        b.position_at_end(self.head)
        self.i = b.phi(I64, name=name)
        self.i.add_incoming(start, self.pre)
        b.cbranch(b.icmp_signed("<", self.i, stop), self.body, self.exit)
        b.position_at_end(self.body)

    def close(self):
        b = self.b
        nxt = b.add(self.i, ir.Constant(I64, 1), flags=("nsw",))
        self.i.add_incoming(nxt, b.block)
        b.branch(self.head)
        b.position_at_end(self.exit)


def _red_combine(E: LLVMEmitter, kind, acc: LV, v: LV, for_reduction=True):
    b = E.b
    dt = acc.dt
    if dt.kind == "f":
        flags = ("reassoc", "contract") if for_reduction else ("contract",)
        if kind == "add":
            return LV(b.fadd(acc.v, v.v, flags=flags), dt)
        if kind == "mul":
            return LV(b.fmul(acc.v, v.v, flags=flags), dt)
        name = "maximum" if kind == "max" else "minimum"
        return LV(vmath.intrinsic(b, name, acc.v, v.v), dt)
    if kind == "add":
        return E.add(acc, v)
    if kind == "mul":
        return E.mul(acc, v)
    return E.max(acc, v) if kind == "max" else E.min(acc, v)


#: iteration spaces of at most this many elements are compiled for size (see emit_fused)
SMALL_KERNEL = 16384


def kernel_entry(module: ir.Module, name: str, ptr_types, attributes=(), arg_index=None):
    """Start a kernel ``void name(i8** args, i64 lo, i64 hi)``: the exported function loads its
    operand pointers from ``args`` (pointer ``k`` from ``args[arg_index[k]]``, by default
    ``args[k]``) and calls an always-inlined body whose pointer arguments are ``noalias`` (so the
    loop vectoriser needs no run-time alias checks). ``attributes`` go on both functions.
    Returns the body's builder, its pointer arguments and ``lo``, ``hi``; the caller fills the
    body and returns."""
    impl_ty = ir.FunctionType(ir.VoidType(), list(ptr_types) + [I64, I64])
    impl = ir.Function(module, impl_ty, name + ".impl")
    impl.linkage = "internal"
    impl.attributes.add("alwaysinline")
    impl.attributes.add("nounwind")
    for attr in attributes:
        impl.attributes.add(attr)
    n = len(ptr_types)
    for a in impl.args[:n]:
        a.add_attribute("noalias")
    i8pp = ir.IntType(8).as_pointer().as_pointer()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i8pp, I64, I64]), name)
    fn.attributes.add("nounwind")
    for attr in attributes:
        fn.attributes.add(attr)
    wb = ir.IRBuilder(fn.append_basic_block("entry"))
    args = []
    for k, pt in enumerate(ptr_types):
        index = k if arg_index is None else arg_index[k]
        p = wb.load(wb.gep(fn.args[0], [ir.Constant(ir.IntType(32), index)], inbounds=True))
        args.append(wb.bitcast(p, pt))
    wb.call(impl, args + [fn.args[1], fn.args[2]])
    wb.ret_void()
    return ir.IRBuilder(impl.append_basic_block("entry")), impl.args[:n], impl.args[n], impl.args[n + 1]


#: outer indices per block of a blocked reduction over the outer axis: fixed, so the sums are
#: the same for every number of threads
ROW_BLOCK = 32
#: fewest elements x cost of a reduction over the outer axis computed in blocks: the blocks and
#: their combination cost LLVM some ms per kernel, paid back only where a single thread spends
#: ~100 us (MLP b1024's bias gradients, 262k elements: 120 -> 70 us)
BLOCKED_REDUCTION_WORK = 240_000


def block_outer_reduction(plan: FusedPlan) -> None:
    """Compute ``plan``'s reduction over its outer axis (a bias gradient: a column sum over the
    batch) in blocks of :data:`ROW_BLOCK` outer indices, when there are at least two blocks and
    inner axes are kept. The kernel's ``[lo, hi)`` then counts blocks: each block reduces its rows
    into its own row of partial results (``plan.extra_args[0]``); the part that finishes the last
    block (an atomic counter, ``extra_args[1]``) combines the partials in block order into the
    output. The kernel splits over the thread pool like an elementwise one, each thread reading
    the rows it wrote in the kernels before, and its sums do not depend on the number of parts.
    A plain reduction added row after row, on one thread, read a 1 MB gradient written by two
    cores at 2-6 GB/s on the 2-core VM."""
    if (not plan.reduced or not plan.reduced[0] or len(plan.dims) < 2 or all(plan.reduced)
            or plan.dims[0] < 2 * ROW_BLOCK or plan.row_block):
        return
    red = next(o for o in plan.operands if o.role == "red")
    kept = int(np.prod([d for d, r in zip(plan.dims, plan.reduced) if not r], dtype=np.int64))
    plan.row_block = ROW_BLOCK
    partials = np.zeros((plan.outer_extent, kept), red.dtype)
    plan.block_counter = np.zeros(8, np.int64)  # a cache line of its own
    plan.extra_args = (partials, plan.block_counter)


def emit_fused(module: ir.Module, plan: FusedPlan) -> str:
    ops = plan.operands
    # an output written in place (plan.inplace) has no pointer of its own: it is stored through
    # its input's, so the body's noalias pointers stay distinct memory
    own = [k for k in range(len(ops)) if k not in plan.inplace]
    ptr_types = [mem_type(ops[k].dtype).as_pointer() for k in own]
    blocked = plan.row_block > 0
    if blocked:
        red_index = next(k for k, o in enumerate(ops) if o.role == "red")
        ptr_types += [mem_type(ops[red_index].dtype).as_pointer(), I64.as_pointer()]
    # small kernels are optimised for size: their time is the call, not the loop, and the
    # vectoriser's interleaved and epilogue loops cost LLVM several ms per kernel
    b, body_ptrs, lo, hi = kernel_entry(module, plan.name, ptr_types, ("optsize",) if plan.size <= SMALL_KERNEL else (),
                                        own + ([len(ops), len(ops) + 1] if blocked else []))
    E = LLVMEmitter(b)
    ptrs = [None] * len(ops)
    for k, p in zip(own, body_ptrs):
        ptrs[k] = p
    for out, src in plan.inplace.items():
        ptrs[out] = ptrs[src]
    if blocked:
        partials, counter = body_ptrs[len(own):]
        block_lo, block_hi = lo, hi
    dims = plan.dims or [1]
    reduced = plan.reduced or [plan.reduce is not None]
    strides = [o.strides or [0] for o in ops]
    nd = len(dims)

    def c64(v):
        return ir.Constant(I64, v)

    red_op = next((k for k, o in enumerate(ops) if o.role == "red"), None)
    red_dt = plan.red_dtype
    # accumulate float32 sums in float64 registers
    acc_dt = np.dtype(np.float64) if (red_dt is not None and red_dt == np.float32
                                      and plan.red_kind == "add") else red_dt

    def out_region():
        if not reduced[0] and not blocked:
            s0 = strides[red_op][0]
            return b.mul(lo, c64(s0)), b.mul(hi, c64(s0))
        total = 1
        for d, r in zip(dims, reduced):
            if not r:
                total *= d
        return c64(0), c64(total)

    def load(k, off, base=None):
        """Operand ``k``'s element ``off`` (from ``base``, an array of its dtype, if given)."""
        o = ops[k]
        p = b.gep(ptrs[k] if base is None else base, [off], inbounds=True)
        v = b.load(p)
        cd = compute_dtype(o.dtype)
        if o.dtype == np.bool_:
            v = b.icmp_unsigned("!=", v, ir.Constant(v.type, 0))
        elif o.dtype == np.float16:
            v = b.fpext(v, reg_type(cd))
        return LV(v, cd)

    def store(k, off, lv: LV):
        o = ops[k]
        v = convert(b, lv.v, lv.dt, compute_dtype(o.dtype))
        if o.dtype == np.bool_:
            v = b.zext(v, mem_type(o.dtype))
        elif o.dtype == np.float16:
            v = b.fptrunc(v, mem_type(o.dtype))
        b.store(v, b.gep(ptrs[k], [off], inbounds=True))

    def fill_identity():
        """The reduction's output region (or the current partial row) set to its identity."""
        r0, r1 = out_region()
        lp = _Loop(b, r0, r1, "init")
        store(red_op, lp.i, E.const(reduction_identity(plan.red_kind, red_dt), dtype=red_dt))
        lp.close()

    def apply_scale():
        """reduce_mean's 1/count, over the output region."""
        if plan.red_scale is not None:
            r0, r1 = out_region()
            lp = _Loop(b, r0, r1, "fin")
            cur = load(red_op, lp.i)
            store(red_op, lp.i, E.mul(cur, E.const(plan.red_scale, cur)))
            lp.close()

    if red_op is not None and not blocked:
        fill_identity()

    def compute(offs):
        v = emit_body(E, plan, lambda k: load(k, offs[k]), lambda k, r: store(k, offs[k], r))
        return E.to(v, acc_dt) if v is not None else None

    def level(lv, offs):
        inner = lv == nd - 1
        start, stop = (lo, hi) if lv == 0 else (c64(0), c64(dims[lv]))
        if inner and red_op is not None and reduced[lv]:
            # register accumulation over the innermost (reduced) axis
            pre = b.block
            head = b.function.append_basic_block(f"l{lv}.head")
            body = b.function.append_basic_block(f"l{lv}.body")
            exit_ = b.function.append_basic_block(f"l{lv}.exit")
            b.branch(head)
            b.position_at_end(head)
            i = b.phi(I64, name=f"i{lv}")
            acc = b.phi(reg_type(acc_dt), name="acc")
            i.add_incoming(start, pre)
            acc.add_incoming(E.const(reduction_identity(plan.red_kind, acc_dt), dtype=acc_dt).v, pre)
            b.cbranch(b.icmp_signed("<", i, stop), body, exit_)
            b.position_at_end(body)
            noffs = [b.add(o, b.mul(i, c64(s[lv]))) if s[lv] else o for o, s in zip(offs, strides)]
            v = compute(noffs)
            nacc = _red_combine(E, plan.red_kind, LV(acc, acc_dt), v)
            i.add_incoming(b.add(i, c64(1), flags=("nsw",)), b.block)
            acc.add_incoming(nacc.v, b.block)
            b.branch(head)
            b.position_at_end(exit_)
            cur = load(red_op, offs[red_op])
            tot = _red_combine(E, plan.red_kind, E.to(cur, acc_dt), LV(acc, acc_dt), False)
            store(red_op, offs[red_op], E.to(tot, red_dt))
            return
        lp = _Loop(b, start, stop, f"l{lv}")
        noffs = [b.add(o, b.mul(lp.i, c64(s[lv]))) if s[lv] else o for o, s in zip(offs, strides)]
        if inner:
            v = compute(noffs)
            if red_op is not None:
                cur = load(red_op, noffs[red_op])
                tot = _red_combine(E, plan.red_kind, E.to(cur, acc_dt), v, False)
                store(red_op, noffs[red_op], E.to(tot, red_dt))
        else:
            level(lv + 1, noffs)
        lp.close()

    if not blocked:
        level(0, [c64(0)] * len(ops))
        if red_op is not None:
            apply_scale()
        b.ret_void()
        return plan.name
    # each block [i*B, min((i+1)*B, d0)) of outer indices reduces into partial row i
    final = ptrs[red_op]
    _, kept = out_region()
    blocks = _Loop(b, block_lo, block_hi, "block")
    ptrs[red_op] = b.gep(partials, [b.mul(blocks.i, kept)], inbounds=True)
    fill_identity()
    lo = b.mul(blocks.i, c64(plan.row_block))
    stop = b.add(lo, c64(plan.row_block))
    hi = b.select(b.icmp_signed("<", stop, c64(dims[0])), stop, c64(dims[0]))
    level(0, [c64(0)] * len(ops))
    blocks.close()
    # the part that completes the last block adds the partial rows into the output, in block order
    done = b.atomic_rmw("add", counter, b.sub(block_hi, block_lo), "seq_cst")
    last = b.icmp_signed("==", b.add(done, b.sub(block_hi, block_lo)), c64(plan.outer_extent))
    with b.if_then(last):
        b.store(c64(0), counter)
        ptrs[red_op] = final
        fill_identity()
        rows = _Loop(b, c64(0), c64(plan.outer_extent), "rows")
        r0, r1 = out_region()
        lp = _Loop(b, r0, r1, "combine")
        part = load(red_op, b.add(b.mul(rows.i, kept), lp.i), partials)
        tot = _red_combine(E, plan.red_kind, E.to(load(red_op, lp.i), acc_dt), E.to(part, acc_dt), False)
        store(red_op, lp.i, E.to(tot, red_dt))
        lp.close()
        rows.close()
        apply_scale()
    b.ret_void()
    return plan.name


BOOL, FLOAT32, I1  # re-exported names used by callers


#: a graph with more kernels than this compiles as several modules (parts), on several cores
#: (codegen/cpu/parallel_compile.py); decided by the kernels alone, never by the machine, so a
#: part's cache key is the same on every machine
KERNELS_PER_PART = 48
MAX_PARTS = 64


def part_groups(plans) -> list[list]:
    """``plans`` cut into the parts of their module, in order: runs of about
    :data:`KERNELS_PER_PART` kernels (at most :data:`MAX_PARTS` runs), plans that share a kernel
    (one name) kept in one part, since that kernel is emitted once.

    Example:
        >>> class P:
        ...     def __init__(self, name): self.name = name
        >>> [[p.name for p in g] for g in part_groups([P("a"), P("b"), P("a")])]
        [['a', 'a', 'b']]
    """
    by_name: dict = {}
    for p in plans:
        by_name.setdefault(p.name, []).append(p)
    names = list(by_name)
    n = min(MAX_PARTS, max(1, len(names) // KERNELS_PER_PART))
    size = -(-len(names) // n)
    return [[p for name in names[i:i + size] for p in by_name[name]] for i in range(0, len(names), size)]


def emit_segment(module: ir.Module, name: str, members) -> str:
    """``void name(i8*** tables, i64* parts)``: call each kernel of ``members`` ((kernel name,
    outer extent, split alignment or None, error flag or None) tuples, all defined in
    ``module``) in order as ``kernel(tables[j], 0, extent)``: a run of kernels in one native call.
    A member with an alignment is split over the thread pool into ``parts[j]`` pieces (decided
    per call) through ``msjit_parallel_for`` (codegen/cpu/native_pool.py). A member with an
    error flag (the index in its table of an ``i64`` it sets on bad input) ends the run when it
    flagged: the kernels after it do not run, so a parameter they update in place keeps its value
    while the runner raises the op's error. The calls are never inlined (the kernels stay
    compiled once)."""
    i8p = ir.IntType(8).as_pointer()
    i8pp = i8p.as_pointer()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i8pp.as_pointer(), I64.as_pointer()]), name)
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    pfor = None
    for j, (kernel, extent, align, flag) in enumerate(members):
        argv = b.load(b.gep(fn.args[0], [ir.Constant(ir.IntType(32), j)], inbounds=True))
        if kernel not in module.globals:  # defined in another part of a module compiled in parts
            ir.Function(module, ir.FunctionType(ir.VoidType(), [i8pp, I64, I64]), kernel)
        if align is None:
            b.call(module.globals[kernel], [argv, ir.Constant(I64, 0), ir.Constant(I64, extent)], attrs=("noinline",))
        else:
            if pfor is None:
                pfor = module.globals.get("msjit_parallel_for") or ir.Function(
                    module, ir.FunctionType(ir.VoidType(), [i8p, i8pp, I64, I64, I64, I64]), "msjit_parallel_for")
            parts = b.load(b.gep(fn.args[1], [ir.Constant(ir.IntType(32), j)], inbounds=True))
            b.call(pfor, [b.bitcast(module.globals[kernel], i8p), argv, ir.Constant(I64, 0), ir.Constant(I64, extent),
                          parts, ir.Constant(I64, align)])
        if flag is not None and j + 1 < len(members):
            slot = b.load(b.gep(argv, [ir.Constant(ir.IntType(32), flag)], inbounds=True))
            flagged = b.icmp_signed("!=", b.load(b.bitcast(slot, I64.as_pointer())), ir.Constant(I64, 0))
            with b.if_then(flagged, likely=False):
                b.ret_void()
    b.ret_void()
    return name
