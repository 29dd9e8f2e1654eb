"""Generated native code for the data movement of convolution and pooling (extern ops).

The numpy implementations of these ops move data in many whole-array passes (strided window
copies, a zero fill and then one ``+=`` pass per kernel offset, compare/select masks per offset).
Here each becomes one LLVM function with the static shapes baked in, that walks the data once,
one image (or one image channel) at a time so the working set stays in cache:

  * ``conv_im2col``   (N, C, H, W) -> (N, C*kh*kw, Ho*Wo) columns: a row copy per window offset,
    zeros where the window reads padding;
  * ``conv_col2im``   the adjoint: per image, zero the (C, H, W) block then add every column row
    into the input rows it was read from (the same additions in the same order as the numpy
    implementation, so the results are identical);
  * ``conv2d`` and ``conv2d_backprop_filter`` computed directly when graph lowering left them
    (few inputs per output, no padding: graph/passes/lower.py): per output row, the sum over
    the C*kh*kw window offsets, unrolled, of weight times a shifted input row; the filter
    gradient accumulates every offset's products in registers, one output channel per part;
  * ``max_pool2d``    the running maximum over the window offsets (NaN propagates, as numpy's
    ``maximum``);
  * ``max_pool2d_grad`` one pass: each window sends ``dout`` to its first position equal to the
    max (row-major), written directly when the windows tile the input, else added into a zeroed
    plane;
  * ``transpose``     keeping the last axis: contiguous rows copied into a planned buffer
    instead of a strided view that the next kernel would copy into a new array on every call;
  * ``softmax`` over the last axis, ``one_hot`` along a new last axis and
    ``sparse_softmax_cross_entropy`` row by row (the loss of a classifier and its gradient's
    pieces: a dozen numpy calls each otherwise); labels out of range set a flag the runner
    checks after the call, which then raises the op's own ValueError;
  * ``matmul``        a call of numpy's own BLAS ``cblas_?gemm`` per batch matrix
    (codegen/cpu/blas.py), so products can run inside a native run of kernels (the runner's
    segments) instead of as ``np.matmul`` steps.

Each function has the fused kernels' ABI, ``void name(i8** args, i64 lo, i64 hi)`` over the outer
axis (images, or image channels for pooling), so the runner calls, caches and splits it over the
thread pool exactly like a fused kernel. :func:`plan_native` returns None for what is not covered
(other dtypes, groups, very large windows): the op's numpy ``impl`` runs instead.

Example:
    >>> from codegen.cpu.native import NATIVE_OPS
    >>> sorted(NATIVE_OPS)[:5]
    ['conv2d', 'conv2d_backprop_filter', 'conv_col2im', 'conv_im2col', 'matmul']
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir

from graph.ir import NODE, Value

from ..fused_plan import Operand, np_dtype
from . import blas
from .emitter import I64, LLVMEmitter, LV, mem_type
from .kernels import _Loop, kernel_entry

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


def _c(v):
    return ir.Constant(I64, int(v))


def _valid_range(n_out, n_in, stride, offset):
    """[lo, hi) of the output positions o whose input position o*stride + offset is in [0, n_in)."""
    lo = max(0, -(offset // stride)) if offset < 0 else 0
    while lo < n_out and lo * stride + offset < 0:
        lo += 1
    hi = n_out
    while hi > lo and (hi - 1) * stride + offset >= n_in:
        hi -= 1
    return lo, max(lo, hi)


@dataclass
class NativePlan:
    """A native kernel for one extern node; quacks like :class:`codegen.fused_plan.FusedPlan`
    where the runner and the buffer plan look (name, operands, dims, size, cost, splittable)."""
    name: str
    node: object
    operands: list  # Operand per tensor input ("in") then per output ("out")
    dims: list  # [outer extent]
    size: int  # elements touched (threading heuristic)
    emitter: object = None
    geometry: dict = field(default_factory=dict)
    cost: float = 1.0
    parallel: bool = True  # whether the outer axis may be split over the thread pool
    #: arrays passed after the operands (data of the kernel: a product's sizes, an error flag)
    extra_args: tuple = ()
    #: ``after_call(inputs)``, run once the kernel has run (with the input arrays): raises the
    #: op's error when the kernel flagged bad input
    after_call: object = None

    @property
    def splittable(self):
        return self.parallel and self.dims[0] > 1

    def description(self) -> str:
        """Canonical text of the kernel (part of the cache key)."""
        shapes = [tuple(o.value.shape) for o in self.operands]
        return (f"native {self.node.op.name} {[str(o.dtype) for o in self.operands]} {shapes} "
                f"{sorted((k, repr(v)) for k, v in self.geometry.items())}")

    def emit(self, module):
        if self.name not in module.globals:  # a kernel shared by several plans is emitted once
            self.emitter(module, self)
        return self.name


# -- planning -----------------------------------------------------------------------------------------
def _conv_geometry(node, x_shape):
    from graph.ops.nn import _window_check
    a = node.attrs
    pads, out_hw = _window_check(node.op.name, x_shape, a["kernel_size"], a["stride"], a["pad_mode"],
                                 a["padding"], a["dilation"])
    return {"shape": tuple(x_shape), "kernel": tuple(a["kernel_size"]), "stride": tuple(a["stride"]),
            "dilation": tuple(a["dilation"]), "pads": tuple(pads), "out_hw": tuple(out_hw)}


def _direct_geometry(node, x_shape):
    """Geometry of a convolution computed directly (None unless graph lowering left it for that)."""
    from graph.ops.nn import _conv_check
    from graph.passes.lower import direct_convolution
    a = node.attrs
    w_shape = tuple(node.inputs[1].shape) if node.op.name == "conv2d" else tuple(a["filter_size"])
    if not direct_convolution(x_shape, w_shape, a):
        return None
    pads, out_hw = _conv_check(node.op.name, x_shape, w_shape, a["stride"], a["pad_mode"], a["padding"],
                               a["dilation"], 1)
    return {"shape": tuple(x_shape), "weight": w_shape, "stride": tuple(a["stride"]),
            "dilation": tuple(a["dilation"]), "out_hw": tuple(out_hw)}


def _pool_geometry(node, x_shape):
    from graph.ops.nn import _pool_geometry as geometry, _tiles
    a = node.attrs
    stride, pads, out_hw = geometry(node.op.name, x_shape, a["kernel_size"], a["stride"], a["pad_mode"])
    return {"shape": tuple(x_shape), "kernel": tuple(a["kernel_size"]), "stride": tuple(stride),
            "dilation": (1, 1), "pads": tuple(pads), "out_hw": tuple(out_hw),
            "tiles": bool(_tiles(x_shape[2:], tuple(a["kernel_size"]), tuple(stride), pads, out_hw))}


def _matmul_geometry(node):
    """Shapes of a product BLAS can run batch matrix by batch matrix, or None: each operand is a
    matrix or has the output's full batch shape (no partial broadcasting), no empty dimension."""
    a, b = node.inputs
    out = node.outputs[0]
    if a.ndim < 2 or b.ndim < 2 or 0 in out.shape or 0 in a.shape or 0 in b.shape:
        return None
    batch = tuple(out.shape[:-2])
    if any(v.ndim > 2 and tuple(v.shape[:-2]) != batch for v in (a, b)):
        return None
    ta, tb = node.attrs.get("transpose_a", False), node.attrs.get("transpose_b", False)
    m, k = (a.shape[-1], a.shape[-2]) if ta else (a.shape[-2], a.shape[-1])
    n = b.shape[-2] if tb else b.shape[-1]
    return {"m": m, "n": n, "k": k, "ta": bool(ta), "tb": bool(tb), "batch": int(np.prod(batch, dtype=np.int64)),
            "a_batched": a.ndim > 2, "b_batched": b.ndim > 2}


def _transpose_geometry(node):
    """Shapes of a transpose that keeps the last axis (rows stay contiguous), or None."""
    x, out = node.inputs[0], node.outputs[0]
    perm = node.attrs.get("perm")
    perm = tuple(range(x.ndim))[::-1] if perm is None else tuple(p % x.ndim for p in perm)
    if x.ndim < 2 or perm[-1] != x.ndim - 1 or perm == tuple(range(x.ndim)) or 0 in x.shape:
        return None
    return {"in": tuple(x.shape), "perm": perm, "out": tuple(out.shape)}


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_INDICES = (np.dtype(np.int32), np.dtype(np.int64))


def _plan_rows(node, name):
    """Plans of the row-wise classifier ops (softmax, one_hot, sparse cross entropy), or None."""
    op = node.op.name
    out = node.outputs[0]
    if op == "softmax":
        x = node.inputs[0]
        dt = np_dtype(x.dtype)
        if dt not in _FLOATS or x.ndim < 1 or node.attrs.get("axis", -1) % x.ndim != x.ndim - 1 or 0 in x.shape:
            return None
        rows = int(np.prod(x.shape[:-1], dtype=np.int64))
        return NativePlan(name, node, [Operand(x, dt, [], "in"), Operand(out, dt, [], "out")], [rows], x.size,
                          _emit_softmax, {"cols": x.shape[-1]})
    if op == "one_hot":
        idx = node.inputs[0]
        a = node.attrs
        if (np_dtype(idx.dtype) not in _INDICES or a.get("strict") or a.get("axis", -1) not in (-1, idx.ndim)
                or np_dtype(out.dtype) != np.float32 or 0 in out.shape):
            return None
        return NativePlan(name, node, [Operand(idx, np_dtype(idx.dtype), [], "in"), Operand(out, np.dtype(np.float32), [], "out")],
                          [idx.size], out.size, _emit_one_hot,
                          {"depth": a["depth"], "on": float(a["on_value"]), "off": float(a["off_value"])})
    if op == "sparse_softmax_cross_entropy":
        logits, labels = node.inputs
        dt = np_dtype(logits.dtype)
        if dt not in _FLOATS or np_dtype(labels.dtype) not in _INDICES or 0 in logits.shape:
            return None
        flag = np.zeros(1, np.int64)

        def after_call(inputs, flag=flag):
            if flag[0]:  # a label out of range: the op's own check raises its ValueError
                flag[0] = 0
                from graph.ops.nn import _check_index_range
                _check_index_range(np, "sparse_softmax_cross_entropy", "labels", inputs[1], logits.shape[1])
        ops = [Operand(logits, dt, [], "in"), Operand(labels, np_dtype(labels.dtype), [], "in"), Operand(out, dt, [], "out")]
        return NativePlan(name, node, ops, [logits.shape[0]], logits.size, _emit_sparse_ce, {"cols": logits.shape[1]},
                          extra_args=(flag,), after_call=after_call)
    return None


def plan_native(node, name: str, batch_sum=None):
    """A :class:`NativePlan` for ``node``, or None when it has no native kernel here.
    ``batch_sum``: a ``reduce_sum`` over axis 0 of a batched product's result, computed by the
    product itself (BLAS accumulates the batch matrices into one output: no batch of results)."""
    spec = NATIVE_OPS.get(node.op.name)
    if spec is None or not all(isinstance(v, Value) for v in node.inputs):
        return None
    if spec[0] is _plan_rows:
        return _plan_rows(node, name)
    values = list(node.inputs) + list(node.outputs)
    dts = {np_dtype(v.dtype) for v in values}
    if len(dts) != 1 or next(iter(dts)) not in (np.dtype(np.float32), np.dtype(np.float64)):
        return None
    dt = next(iter(dts))
    if node.op.name == "matmul":
        api = blas.interface()
        geo = _matmul_geometry(node)
        if api is None or geo is None:
            return None
        geo["int_bits"] = api.int_bits
        out = node.outputs[0]
        if batch_sum is not None:
            if len(out.shape) != 3 or np_dtype(batch_sum.outputs[0].dtype) != dt:
                return None
            out = batch_sum.outputs[0]
            geo["batch_sum"] = True
        ops = [Operand(v, dt, [], "in") for v in node.inputs] + [Operand(out, dt, [], "out")]
        m, n, k = geo["m"], geo["n"], geo["k"]
        sizes = np.array([m, n, k, blas.TRANS if geo["ta"] else blas.NO_TRANS,
                          blas.TRANS if geo["tb"] else blas.NO_TRANS, m if geo["ta"] else k, k if geo["tb"] else n,
                          m * k if geo["a_batched"] else 0, k * n if geo["b_batched"] else 0,
                          0 if batch_sum is not None else m * n, int(batch_sum is not None)], np.int64)
        # one kernel per dtype serves every product (their sizes are data): fewer functions to compile
        shared = f"msjit_gemm_{dt.name}_i{api.int_bits}"
        return NativePlan(shared, node, ops, [geo["batch"]], geo["batch"] * m * n * k, _emit_matmul, geo,
                          parallel=False, extra_args=(sizes,))  # BLAS runs its own threads
    geometry_of, emitter, outer = spec
    if node.op.name == "transpose":
        geo = _transpose_geometry(node)
        if geo is None:
            return None
        ops = [Operand(node.inputs[0], dt, [], "in"), Operand(node.outputs[0], dt, [], "out")]
        return NativePlan(name, node, ops, [geo["out"][0]], node.outputs[0].size, emitter, geo)
    if geometry_of is _direct_geometry:
        x = node.inputs[0] if node.op.name == "conv2d" else node.inputs[1]
        geo = _direct_geometry(node, tuple(x.shape))
        if geo is None:
            return None
        ops = [Operand(v, dt, [], "in") for v in node.inputs] + [Operand(node.outputs[0], dt, [], "out")]
        o, c, kh, kw = geo["weight"]
        n = x.shape[0]
        work = n * o * geo["out_hw"][0] * geo["out_hw"][1] * c * kh * kw
        return NativePlan(name, node, ops, [n if node.op.name == "conv2d" else o], work, emitter, geo)
    big = node.inputs[0] if node.op.name != "conv_col2im" else node.outputs[0]
    geo = geometry_of(node, tuple(big.shape))
    kh, kw = geo["kernel"]
    if kh * kw > MAX_WINDOW or 0 in geo["shape"] or geo["out_hw"][0] * geo["out_hw"][1] > MAX_PLANE:
        return None
    ops = [Operand(v, dt, [], "in") for v in node.inputs] + [Operand(v, dt, [], "out") for v in node.outputs]
    n, c = geo["shape"][:2]
    size = max(int(np.prod(v.shape, dtype=np.int64)) for v in values) * (kh * kw if "pool" in node.op.name else 1)
    return NativePlan(name, node, ops, [n if outer == "n" else n * c], size, emitter, geo)


class Absorbed:
    """The plan of a kernel whose result another kernel's plan computes (kernel ``into``)."""

    def __init__(self, into):
        self.into = into

    def __repr__(self):
        return f"computed by k{self.into}"


def _batch_sums(graph, kernels_) -> dict:
    """{product kernel index: index of the kernel that only sums its result over axis 0} for
    products read by nothing else."""
    readers = {}
    for ki, k in enumerate(kernels_):
        for v in k.inputs:
            readers.setdefault(id(v), set()).add(ki)
    kept = {id(v) for v in graph.outputs if isinstance(v, Value)} | {id(v) for v in graph.updates.values()}
    pairs = {}
    for ki, k in enumerate(kernels_):
        node = k.nodes[0]
        if k.kind != "fused" or len(k.nodes) != 1 or node.op.name != "reduce_sum":
            continue
        src = node.inputs[0]
        axis = node.attrs.get("axis")
        if (isinstance(src, Value) and src.kind == NODE and src.producer.op.name == "matmul"
                and axis in (0, (0,), [0]) and not node.attrs.get("keep_dims", False)
                and readers.get(id(src)) == {ki} and id(src) not in kept):
            producer = next((pi for pi, pk in enumerate(kernels_) if pk.nodes[0] is src.producer), None)
            if producer is not None and kernels_[producer].kind == "extern":
                pairs[producer] = ki
    return pairs


def plan_kernels(graph, kernels_, graph_name: str) -> dict:
    """kernel index -> :class:`NativePlan` for the extern kernels of a schedule generated here.
    A batched product whose only reader sums it over the batch (a convolution's filter gradient)
    computes that sum itself; the summing kernel's plan is then :class:`Absorbed`."""
    ident = "".join(c if c.isalnum() or c == "_" else "_" for c in graph_name) or "g"
    batch_sums = _batch_sums(graph, kernels_)
    plans = {}
    for ki, k in enumerate(kernels_):
        if k.kind not in ("extern", "view") or len(k.nodes) != 1:
            continue
        summed = batch_sums.get(ki)
        plan = plan_native(k.nodes[0], f"{ident}_k{ki}", kernels_[summed].nodes[0]) if summed is not None else None
        if plan is None:
            summed = None
            plan = plan_native(k.nodes[0], f"{ident}_k{ki}")
        if plan is not None:
            plans[ki] = plan
            if summed is not None:
                plans[summed] = Absorbed(ki)
    return plans


# -- IR helpers ----------------------------------------------------------------------------------------
class _Body:
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
            x = self.b.add(x, y if isinstance(y, ir.Value) else _c(y), flags=("nsw",))
        return x

    def mul(self, x, y):
        return self.b.mul(x, y if isinstance(y, ir.Value) else _c(y), flags=("nsw",))

    def zero_fill(self, k, start, count):
        """ptr[k][start : start + count] = 0 (LLVM turns the loop into memset)."""
        if isinstance(count, int) and count <= 0:
            return
        lp = _Loop(self.b, _c(0), count if isinstance(count, ir.Value) else _c(count), "zero")
        self.store(k, self.add(start, lp.i), self.zero)
        lp.close()


def _begin(module, plan):
    dt = plan.operands[0].dtype
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [mem_type(dt).as_pointer()] * len(plan.operands),
                                   ATTRIBUTES.get(plan.node.op.name, ()))
    return _Body(b, ptrs, dt), lo, hi


# -- conv_im2col / conv_col2im ----------------------------------------------------------------------------
def _ranges(E, module, name, g):
    """Constant tables of the valid output rows per kernel row i and valid output columns per
    kernel column j (where the window reads the input, not padding), indexed at run time:
    ``rows(i) -> (lo, hi)``, ``cols(j) -> (lo, hi)``."""
    _, _, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    dh, dw = g["dilation"]
    pt, _, pl, _ = g["pads"]
    ho, wo = g["out_hw"]
    rows = [_valid_range(ho, h, sh, i * dh - pt) for i in range(kh)]
    cols = [_valid_range(wo, w, sw, j * dw - pl) for j in range(kw)]

    def table(suffix, pairs):
        flat = [v for pair in pairs for v in pair]
        ty = ir.ArrayType(I64, len(flat))
        gv = ir.GlobalVariable(module, ty, name=f"{name}.{suffix}")
        gv.global_constant = True
        gv.linkage = "internal"
        gv.initializer = ir.Constant(ty, flat)

        def lookup(k):
            b = E.b
            at = E.mul(k, 2)
            lo = b.load(b.gep(gv, [ir.Constant(ir.IntType(32), 0), at], inbounds=True))
            hi = b.load(b.gep(gv, [ir.Constant(ir.IntType(32), 0), E.add(at, 1)], inbounds=True))
            return lo, hi
        return lookup
    full_rows = all(r == (0, ho) for r in rows)
    full_cols = all(c == (0, wo) for c in cols)
    return table("rows", rows), table("cols", cols), full_rows, full_cols


def _opaque(module, name, b, values):
    """``values`` read from a global LLVM cannot see through: loops over them keep a run-time
    trip count, so the optimiser does not unroll the kernel-offset loops into one vectorised
    copy of the body per offset (which cost 4x the compile time for no speed)."""
    ty = ir.ArrayType(I64, len(values))
    gv = ir.GlobalVariable(module, ty, name=f"{name}.extents")
    gv.initializer = ir.Constant(ty, list(values))  # external and writable: not a constant
    return [b.load(b.gep(gv, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), k)], inbounds=True))
            for k in range(len(values))]


def _conv_layout(module, plan, to_columns):
    """conv_im2col (``to_columns``) or conv_col2im over images [lo, hi): loops over channel c,
    kernel row i, kernel column j (run time, bounds from :func:`_ranges`) and the valid output
    rows/columns; the innermost loop runs over contiguous column entries."""
    g = plan.geometry
    _, c_, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    dh, dw = g["dilation"]
    pt, _, pl, _ = g["pads"]
    ho, wo = g["out_hw"]
    p = ho * wo
    E, lo, hi = _begin(module, plan)
    b = E.b
    rows, cols, full_rows, full_cols = _ranges(E, module, plan.name, g)
    if to_columns:
        X, COLS = 0, 1
    else:
        COLS, X = 0, 1
    ln = _Loop(b, lo, hi, "n")
    if not to_columns:  # col2im adds into the image: start from zero
        E.zero_fill(X, E.mul(ln.i, c_ * h * w), c_ * h * w)
    lc = _Loop(b, _c(0), _c(c_), "c")
    x_base = E.add(E.mul(ln.i, c_ * h * w), E.mul(lc.i, h * w))
    row_c = E.add(E.mul(ln.i, c_ * kh * kw * p), E.mul(lc.i, kh * kw * p))
    kh_, kw_ = _opaque(module, plan.name, b, (kh, kw))
    li = _Loop(b, _c(0), kh_, "i")
    # static bounds where every window row/column reads the input: known trip counts
    oh_lo, oh_hi = (_c(0), _c(ho)) if full_rows else rows(li.i)
    lj = _Loop(b, _c(0), kw_, "j")
    ow_lo, ow_hi = (_c(0), _c(wo)) if full_cols else cols(lj.i)
    row = E.add(row_c, E.mul(E.add(E.mul(li.i, kw), lj.i), p))
    if to_columns and not (full_rows and full_cols):  # window positions in padding read 0
        E.zero_fill(COLS, row, p)
    loh = _Loop(b, oh_lo, oh_hi, "oh")
    at_row = E.add(row, E.mul(loh.i, wo))
    x_row = E.add(x_base, E.mul(E.add(E.add(E.mul(loh.i, sh), E.mul(li.i, dh)), -pt), w),
                  E.add(E.mul(lj.i, dw), -pl))
    low = _Loop(b, ow_lo, ow_hi, "ow")
    at_col = E.add(at_row, low.i)
    at_x = E.add(x_row, E.mul(low.i, sw))
    if to_columns:
        E.store(COLS, at_col, E.load(X, at_x))
    else:  # the same additions in the same (i, j) order as the numpy implementation
        E.store(X, at_x, b.fadd(E.load(X, at_x), E.load(COLS, at_col)))
    low.close()
    loh.close()
    lj.close()
    li.close()
    lc.close()
    ln.close()
    b.ret_void()


def _emit_im2col(module, plan):
    _conv_layout(module, plan, to_columns=True)


def _emit_col2im(module, plan):
    _conv_layout(module, plan, to_columns=False)


# -- max pooling ---------------------------------------------------------------------------------------
def _window_positions(E, g, oh, ow):
    """For each kernel offset (i, j): (input offset within the plane, is-inside) with i1
    conditions only where padding can be read (None: always inside)."""
    b = E.b
    _, _, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    pt, _, pl, _ = g["pads"]
    padded = any(g["pads"])
    out = []
    for i in range(kh):
        ih = E.add(E.mul(oh, sh), i - pt)
        for j in range(kw):
            iw = E.add(E.mul(ow, sw), j - pl)
            if not padded:
                out.append((E.add(E.mul(ih, w), iw), None))
                continue
            inside = b.and_(b.icmp_unsigned("<", ih, _c(h)), b.icmp_unsigned("<", iw, _c(w)))
            # a clamped offset keeps the load in bounds; its value is replaced by -inf
            ihc = b.select(inside, ih, _c(0))
            iwc = b.select(inside, iw, _c(0))
            out.append((E.add(E.mul(ihc, w), iwc), inside))
    return out


def _emit_max_pool(module, plan):
    g = plan.geometry
    _, _, h, w = g["shape"]
    ho, wo = g["out_hw"]
    E, lo, hi = _begin(module, plan)
    b = E.b
    X, Y = 0, 1
    from .vmath import intrinsic
    lp = _Loop(b, lo, hi, "plane")
    x_base, y_base = E.mul(lp.i, h * w), E.mul(lp.i, ho * wo)
    loh = _Loop(b, _c(0), _c(ho), "oh")
    low = _Loop(b, _c(0), _c(wo), "ow")
    m = E.ninf
    for off, inside in _window_positions(E, g, loh.i, low.i):
        v = E.load(X, E.add(x_base, off))
        if inside is not None:
            v = b.select(inside, v, E.ninf)
        m = intrinsic(b, "maximum", m, v)  # NaN-propagating, as numpy's maximum
    E.store(Y, E.add(y_base, E.add(E.mul(loh.i, wo), low.i)), m)
    low.close()
    loh.close()
    lp.close()
    b.ret_void()


def _emit_max_pool_grad(module, plan):
    """Windows that tile the input write each position once: ``dout * hit`` straight into dx.
    Otherwise (overlapping or padded windows) a first pass finds each window's first max offset
    (kept on the stack, one int per window of the plane) and a second adds ``dout * hit`` into the
    zeroed plane offset by offset, in the numpy implementation's order (identical results)."""
    g = plan.geometry
    _, _, h, w = g["shape"]
    kh, kw = g["kernel"]
    sh, sw = g["stride"]
    pt, _, pl, _ = g["pads"]
    ho, wo = g["out_hw"]
    tiles = g["tiles"]
    E, lo, hi = _begin(module, plan)
    b = E.b
    X, OUT, DOUT, DX = 0, 1, 2, 3
    i32 = ir.IntType(32)
    first = None if tiles else b.alloca(i32, size=ho * wo, name="first")
    lp = _Loop(b, lo, hi, "plane")
    x_base, o_base = E.mul(lp.i, h * w), E.mul(lp.i, ho * wo)
    loh = _Loop(b, _c(0), _c(ho), "oh")
    low = _Loop(b, _c(0), _c(wo), "ow")
    at = E.add(E.mul(loh.i, wo), low.i)
    best = E.load(OUT, E.add(o_base, at))
    grad = E.load(DOUT, E.add(o_base, at)) if tiles else None
    none = ir.Constant(i32, kh * kw)
    found = none
    taken = ir.Constant(ir.IntType(1), 0)
    for k, (off, inside) in enumerate(_window_positions(E, g, loh.i, low.i)):
        v = E.load(X, E.add(x_base, off))
        if inside is not None:
            v = b.select(inside, v, E.ninf)
        hit = b.and_(b.fcmp_ordered("==", v, best), b.not_(taken))
        taken = b.or_(taken, hit)
        if tiles:  # dout * hit, as numpy computes it (inf/nan in dout reach where it does)
            E.store(DX, E.add(x_base, off), b.fmul(grad, b.uitofp(hit, E.ty)))
        else:
            found = b.select(hit, ir.Constant(i32, k), found)
    if not tiles:
        b.store(found, b.gep(first, [at], inbounds=True))
    low.close()
    loh.close()
    if not tiles:
        E.zero_fill(DX, x_base, h * w)
        li = _Loop(b, _c(0), _c(kh), "i")
        lj = _Loop(b, _c(0), _c(kw), "j")
        k = b.trunc(E.add(E.mul(li.i, kw), lj.i), i32)
        loh = _Loop(b, _c(0), _c(ho), "oh2")
        ih = E.add(E.add(E.mul(loh.i, sh), li.i), -pt)
        low = _Loop(b, _c(0), _c(wo), "ow2")
        iw = E.add(E.add(E.mul(low.i, sw), lj.i), -pl)
        at = E.add(E.mul(loh.i, wo), low.i)
        hit = b.icmp_unsigned("==", b.load(b.gep(first, [at], inbounds=True)), k)
        share = b.fmul(E.load(DOUT, E.add(o_base, at)), b.uitofp(hit, E.ty))
        pos = E.add(x_base, E.add(E.mul(ih, w), iw))
        if any(g["pads"]):  # numpy adds into padding that is cropped away: skip those
            inside = b.and_(b.icmp_unsigned("<", ih, _c(h)), b.icmp_unsigned("<", iw, _c(w)))
            with b.if_then(inside):
                E.store(DX, pos, b.fadd(E.load(DX, pos), share))
        else:
            E.store(DX, pos, b.fadd(E.load(DX, pos), share))
        low.close()
        loh.close()
        lj.close()
        li.close()
    lp.close()
    b.ret_void()


# -- matmul through BLAS ---------------------------------------------------------------------------------
def _emit_matmul(module, plan):
    """``void msjit_gemm_<dtype>_i<bits>(args, lo, hi)``: args = (a, b, c, sizes) with sizes the
    int64 [m, n, k, trans_a, trans_b, lda, ldb, a batch stride, b batch stride, c batch stride,
    sum over the batch] of the product; calls ``cblas_?gemm`` for batch matrices [lo, hi), each
    adding into c after the first when the batch is summed (in batch order, as a reduction)."""
    g = plan.geometry
    dt = plan.operands[0].dtype
    ptr_ty = mem_type(dt).as_pointer()
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [ptr_ty] * 3 + [I64.as_pointer()], ("optsize",))
    E = _Body(b, ptrs, dt)
    ity = ir.IntType(g["int_bits"])
    i32 = ir.IntType(32)
    char = "s" if dt == np.float32 else "d"
    name = blas.Interface(g["int_bits"], "").symbol(char)
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32, i32, i32, ity, ity, ity, E.ty, ptr_ty, ity,
                                                                 ptr_ty, ity, E.ty, ptr_ty, ity]), name)
    A, B, C, SIZES = 0, 1, 2, 3
    m, n, k, ta, tb, lda, ldb, sa, sb, sc, acc = (b.load(b.gep(ptrs[SIZES], [_c(i)], inbounds=True))
                                                  for i in range(11))

    def i(v):
        return b.trunc(v, ity) if ity.width < 64 else v
    lb = _Loop(b, lo, hi, "batch")
    adds = b.and_(b.icmp_signed("!=", acc, _c(0)), b.icmp_signed(">", lb.i, lo))
    beta = b.select(adds, ir.Constant(E.ty, 1.0), ir.Constant(E.ty, 0.0))
    args = [ir.Constant(i32, blas.ROW_MAJOR), b.trunc(ta, i32), b.trunc(tb, i32), i(m), i(n), i(k),
            ir.Constant(E.ty, 1.0), b.gep(ptrs[A], [E.mul(lb.i, sa)]), i(lda), b.gep(ptrs[B], [E.mul(lb.i, sb)]),
            i(ldb), beta, b.gep(ptrs[C], [E.mul(lb.i, sc)]), i(n)]
    b.call(fn, args)
    lb.close()
    b.ret_void()


# -- direct convolution --------------------------------------------------------------------------------
def _window_offsets(g):
    """(input offset within an image, weight offset within an output channel) per window
    position (c, i, j), for output position (0, 0)."""
    _, _, h, w = g["shape"]
    _, c_, kh, kw = g["weight"]
    dh, dw = g["dilation"]
    return [((c * h + i * dh) * w + j * dw, (c * kh + i) * kw + j)
            for c in range(c_) for i in range(kh) for j in range(kw)]


def _emit_direct_conv(module, plan):
    """out[n, o, oh, ow] = sum over (c, i, j) of w[o, c, i, j] * x[n, c, oh*sh + i*dh, ow*sw + j*dw],
    images [lo, hi); the window sum unrolled (fused multiply-adds). With stride 1 the output
    plane is computed as one flat run over input-width rows (every window position then reads the
    input at a fixed offset from t = oh*W + ow, so the loop is long and vectorises fully; the
    W - Wo extra columns per row are dropped when copying out), else row by row."""
    g = plan.geometry
    _, c_, h, w = g["shape"]
    o_, _, kh, kw = g["weight"]
    sh, sw = g["stride"]
    ho, wo = g["out_hw"]
    k = c_ * kh * kw
    E, lo, hi = _begin(module, plan)
    b = E.b
    X, W, OUT = 0, 1, 2
    flat = (sh, sw) == (1, 1)
    span = (ho - 1) * w + wo  # flat positions t covering every output (oh, ow) at t = oh*W + ow
    wide = b.alloca(E.ty, size=span, name="wide") if flat else None
    ln = _Loop(b, lo, hi, "n")
    lo_ = _Loop(b, _c(0), _c(o_), "o")
    weights = [E.load(W, E.add(E.mul(lo_.i, k), wk)) for _, wk in _window_offsets(g)]
    x_img = E.mul(ln.i, c_ * h * w)
    out_plane = E.mul(E.add(E.mul(ln.i, o_), lo_.i), ho * wo)

    def window_sum(x_at):
        acc = None
        for (xk, _), wv in zip(_window_offsets(g), weights):
            term = b.fmul(wv, E.load(X, E.add(x_at, xk)), flags=("contract",))
            acc = term if acc is None else b.fadd(acc, term, flags=("contract",))  # (fused multiply-adds)
        return acc

    if flat:
        lt = _Loop(b, _c(0), _c(span), "t")
        b.store(window_sum(E.add(x_img, lt.i)), b.gep(wide, [lt.i], inbounds=True))
        lt.close()
        loh = _Loop(b, _c(0), _c(ho), "oh")
        low = _Loop(b, _c(0), _c(wo), "ow")
        v = b.load(b.gep(wide, [E.add(E.mul(loh.i, w), low.i)], inbounds=True))
        E.store(OUT, E.add(out_plane, E.add(E.mul(loh.i, wo), low.i)), v)
        low.close()
        loh.close()
    else:
        loh = _Loop(b, _c(0), _c(ho), "oh")
        x_row = E.add(x_img, E.mul(loh.i, sh * w))
        low = _Loop(b, _c(0), _c(wo), "ow")
        E.store(OUT, E.add(out_plane, E.add(E.mul(loh.i, wo), low.i)), window_sum(E.add(x_row, E.mul(low.i, sw))))
        low.close()
        loh.close()
    lo_.close()
    ln.close()
    b.ret_void()


def _sums_over(b, E, start, stop, terms, name):
    """Register sums over t in [start, stop) of each ``terms(t)`` value (one loop, vectorisable:
    the sums may be reassociated); returns the totals."""
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
        s_.add_incoming(b.fadd(s_, v, flags=("reassoc", "contract")), b.block)
    t.add_incoming(b.add(t, _c(1), flags=("nsw",)), b.block)
    b.branch(head)
    b.position_at_end(done)
    return sums


def _emit_direct_filter_grad(module, plan):
    """dw[o, c, i, j] = sum over (n, oh, ow) of dout[n, o, oh, ow] * x[n, c, oh*sh + i*dh, ow*sw + j*dw],
    output channels [lo, hi). With stride 1, each image's dout plane is first spread over
    input-width rows (zeros in the W - Wo extra columns): every window position is then one long
    dot product of that flat plane with the input at a fixed offset, all of them in one
    vectorised loop with register sums (a loop per window position instead measured 1.64x
    slower on LeNet5 b256 and compiles no faster). Other strides sum row by row."""
    g = plan.geometry
    n_, c_, h, w = g["shape"]
    o_, _, kh, kw = g["weight"]
    sh, sw = g["stride"]
    ho, wo = g["out_hw"]
    k = c_ * kh * kw
    E, lo, hi = _begin(module, plan)
    b = E.b
    DOUT, X, DW = 0, 1, 2
    offsets = _window_offsets(g)
    flat = (sh, sw) == (1, 1)
    span = (ho - 1) * w + wo
    wide = b.alloca(E.ty, size=span, name="wide") if flat else None
    lo_ = _Loop(b, lo, hi, "o")
    dw_row = E.mul(lo_.i, k)
    E.zero_fill(DW, dw_row, k)
    ln = _Loop(b, _c(0), _c(n_), "n")
    d_plane = E.mul(E.add(E.mul(ln.i, o_), lo_.i), ho * wo)
    x_img = E.mul(ln.i, c_ * h * w)
    if flat:
        lz = _Loop(b, _c(0), _c(span), "z")
        b.store(E.zero, b.gep(wide, [lz.i], inbounds=True))
        lz.close()
        loh = _Loop(b, _c(0), _c(ho), "oh")
        low = _Loop(b, _c(0), _c(wo), "ow")
        b.store(E.load(DOUT, E.add(d_plane, E.add(E.mul(loh.i, wo), low.i))),
                b.gep(wide, [E.add(E.mul(loh.i, w), low.i)], inbounds=True))
        low.close()
        loh.close()

        def terms(t):
            d = b.load(b.gep(wide, [t], inbounds=True))
            return [b.fmul(d, E.load(X, E.add(E.add(x_img, t), xk)), flags=("contract",)) for xk, _ in offsets]
        sums = _sums_over(b, E, _c(0), _c(span), terms, "t")
    else:
        loh = _Loop(b, _c(0), _c(ho), "oh")
        d_row = E.add(d_plane, E.mul(loh.i, wo))
        x_row = E.add(x_img, E.mul(loh.i, sh * w))

        def terms(ow):
            d = E.load(DOUT, E.add(d_row, ow))
            x_at = E.add(x_row, E.mul(ow, sw))
            return [b.fmul(d, E.load(X, E.add(x_at, xk)), flags=("contract",)) for xk, _ in offsets]
        sums = _sums_over(b, E, _c(0), _c(wo), terms, "ow")
    for total, (_, wk) in zip(sums, offsets):
        at = E.add(dw_row, wk)
        E.store(DW, at, b.fadd(E.load(DW, at), total))
    if not flat:
        loh.close()
    ln.close()
    lo_.close()
    b.ret_void()


# -- transpose of the leading axes ----------------------------------------------------------------------
def _emit_transpose(module, plan):
    """out[i0, .., i(d-2), :] = x[the same indices permuted back, :] over out's first axis
    [lo, hi): one contiguous row of the kept last axis per index."""
    g = plan.geometry
    shape_in, perm, shape_out = g["in"], g["perm"], g["out"]
    d = len(shape_in)
    in_strides = [int(np.prod(shape_in[i + 1:], dtype=np.int64)) for i in range(d)]
    row = shape_out[-1]
    E, lo, hi = _begin(module, plan)
    b = E.b
    X, OUT = 0, 1
    loops, src, dst = [], _c(0), _c(0)
    for axis in range(d - 1):
        lp = _Loop(b, lo, hi, "t0") if axis == 0 else _Loop(b, _c(0), _c(shape_out[axis]), f"t{axis}")
        loops.append(lp)
        src = E.add(src, E.mul(lp.i, in_strides[perm[axis]]))
        dst = E.add(E.mul(dst, shape_out[axis]), lp.i)
    dst = E.mul(dst, row)
    lr = _Loop(b, _c(0), _c(row), "r")
    E.store(OUT, E.add(dst, lr.i), E.load(X, E.add(src, lr.i)))
    lr.close()
    for lp in reversed(loops):
        lp.close()
    b.ret_void()


# -- classifier rows: softmax, one_hot, sparse cross entropy -------------------------------------------
def _row_max(E, X, base, cols):
    """max over x[base : base + cols] (NaN propagates, as numpy's max)."""
    from .vmath import intrinsic
    b = E.b
    pre = b.block
    head = b.function.append_basic_block("max.head")
    body = b.function.append_basic_block("max.body")
    done = b.function.append_basic_block("max.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    m = b.phi(E.ty)
    i.add_incoming(_c(0), pre)
    m.add_incoming(E.ninf, pre)
    b.cbranch(b.icmp_signed("<", i, _c(cols)), body, done)
    b.position_at_end(body)
    m.add_incoming(intrinsic(b, "maximum", m, E.load(X, E.add(base, i))), body)
    i.add_incoming(b.add(i, _c(1), flags=("nsw",)), body)
    b.branch(head)
    b.position_at_end(done)
    return m


def _libm(b, name, dt, x):
    """libm's ``name`` (``expf``/``exp``...) of x: a call, small to compile (rows here are short;
    the inline polynomials of the fused kernels pay off on long vector loops)."""
    fname = name + ("f" if dt == np.float32 else "")
    fn = b.module.globals.get(fname)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(x.type, [x.type]), fname)
    return b.call(fn, [x])


def _row_sum_exp(E, LE, X, base, cols, m, store=None):
    """sum of exp(x - m) over the row; each term also stored with ``store(i, e)`` if given."""
    b = E.b
    dt = E.dt

    def terms(i):
        e = _libm(b, "exp", dt, b.fsub(E.load(X, E.add(base, i)), m))
        if store is not None:
            store(i, e)
        return [e]
    (total,) = _sums_over(b, E, _c(0), _c(cols), terms, "sumexp")
    return total


def _emit_softmax(module, plan):
    cols = plan.geometry["cols"]
    E, lo, hi = _begin(module, plan)
    E.dt = plan.operands[0].dtype
    LE = LLVMEmitter(E.b, E.dt)
    b = E.b
    X, Y = 0, 1
    lr = _Loop(b, lo, hi, "row")
    base = E.mul(lr.i, cols)
    m = _row_max(E, X, base, cols)
    s = _row_sum_exp(E, LE, X, base, cols, m, store=lambda i, e: E.store(Y, E.add(base, i), e))
    lc = _Loop(b, _c(0), _c(cols), "c")
    at = E.add(base, lc.i)
    E.store(Y, at, b.fdiv(E.load(Y, at), s))
    lc.close()
    lr.close()
    b.ret_void()


def _emit_one_hot(module, plan):
    g = plan.geometry
    idx_dt = plan.operands[0].dtype
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [mem_type(idx_dt).as_pointer(), mem_type(np.float32).as_pointer()],
                                   ATTRIBUTES["one_hot"])
    E = _Body(b, ptrs, np.float32)
    IDX, OUT = 0, 1
    on, off = ir.Constant(E.ty, g["on"]), ir.Constant(E.ty, g["off"])
    ln = _Loop(b, lo, hi, "n")
    hot = b.load(b.gep(ptrs[IDX], [ln.i], inbounds=True))
    hot = b.sext(hot, I64) if hot.type.width < 64 else hot
    ld = _Loop(b, _c(0), _c(g["depth"]), "d")
    E.store(OUT, E.add(E.mul(ln.i, g["depth"]), ld.i), b.select(b.icmp_signed("==", hot, ld.i), on, off))
    ld.close()
    ln.close()
    b.ret_void()


def _emit_sparse_ce(module, plan):
    """loss[n] = log(sum(exp(x[n] - max))) - (x[n, label] - max); a label outside [0, C) sets the
    flag (and reads column 0 instead)."""
    cols = plan.geometry["cols"]
    dt = plan.operands[0].dtype
    lab_dt = plan.operands[1].dtype
    b, ptrs, lo, hi = kernel_entry(module, plan.name, [mem_type(dt).as_pointer(), mem_type(lab_dt).as_pointer(),
                                                       mem_type(dt).as_pointer(), I64.as_pointer()],
                                   ATTRIBUTES["sparse_softmax_cross_entropy"])
    E = _Body(b, ptrs, dt)
    E.dt = dt
    LE = LLVMEmitter(b, dt)
    X, LAB, LOSS, FLAG = 0, 1, 2, 3
    lr = _Loop(b, lo, hi, "row")
    base = E.mul(lr.i, cols)
    label = b.load(b.gep(ptrs[LAB], [lr.i], inbounds=True))
    label = b.sext(label, I64) if label.type.width < 64 else label
    bad = b.icmp_unsigned(">=", label, _c(cols))  # (negative labels are huge unsigned)
    with b.if_then(bad):
        b.store(_c(1), ptrs[FLAG])
    label = b.select(bad, _c(0), label)
    m = _row_max(E, X, base, cols)
    s = _row_sum_exp(E, LE, X, base, cols, m)
    picked = b.fsub(E.load(X, E.add(base, label)), m)
    E.store(LOSS, lr.i, b.fsub(_libm(b, "log", dt, s), picked))
    lr.close()
    b.ret_void()


#: op name -> (geometry, emitter, outer axis: "n" images or "nc" image channels)
NATIVE_OPS = {
    "softmax": (_plan_rows, _emit_softmax, "rows"),
    "one_hot": (_plan_rows, _emit_one_hot, "rows"),
    "sparse_softmax_cross_entropy": (_plan_rows, _emit_sparse_ce, "rows"),
    "conv2d": (_direct_geometry, _emit_direct_conv, "n"),
    "conv2d_backprop_filter": (_direct_geometry, _emit_direct_filter_grad, "o"),
    "transpose": (_transpose_geometry, _emit_transpose, "out0"),
    "matmul": (None, _emit_matmul, "batch"),
    "conv_im2col": (_conv_geometry, _emit_im2col, "n"),
    "conv_col2im": (_conv_geometry, _emit_col2im, "n"),
    "max_pool2d": (_pool_geometry, _emit_max_pool, "nc"),
    "max_pool2d_grad": (_pool_geometry, _emit_max_pool_grad, "nc"),
}
