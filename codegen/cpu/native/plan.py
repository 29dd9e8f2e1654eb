"""Which extern (and layout) kernels of a schedule get a native kernel, with what geometry."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graph.ir import NODE, Value

from ...fused_plan import Operand, c_identifier, np_dtype
from .. import blas
from .body import MAX_PLANE, MAX_WINDOW
from .conv import emit_col2im, emit_direct_conv, emit_direct_filter_grad, emit_im2col
from .gemm import SIZES, batch_block_of, emit_matmul, extra_arrays, k_chunks_of, sizes_table, split_of
from .gemm import library as gemm_library
from .layout import emit_transpose
from .norm import batch_norm_geometry, emit_batch_norm
from .pool import emit_max_pool, emit_max_pool_grad, vector_windows
from . import recurrent
from .gru import emit_gru, emit_gru_grad
from .rows import emit_one_hot, emit_softmax, emit_sparse_ce


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
    #: the index in the kernel's table of the ``i64`` it sets on bad input (then ``after_call``
    #: raises): a run of kernels in one native call stops after it (codegen/cpu/kernels.py:
    #: ``emit_segment``)
    error_flag: int | None = None
    #: a summed product's count of finished batch blocks (zero between calls; a forked child resets it)
    block_counter: object = None
    #: parts per thread when split over the pool (0: the pool's default, codegen/cpu/native_pool.py)
    parts_per_thread: int = 0
    #: whether the kernel calls BLAS (then a compiled call runs BLAS on one thread: codegen/cpu/blas.py)
    calls_blas: bool = False

    @property
    def outer_extent(self) -> int:
        """The range ``[0, extent)`` the kernel's ``lo``/``hi`` count."""
        return self.dims[0]

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

    def external_address(self) -> int | None:
        """The address of the kernel when it lives in a library of its own, compiled once per
        process (the product kernel, :func:`gemm.library`), loaded and its symbol registered
        for the graph's module; None when the kernel is compiled into the graph's module."""
        if self.emitter is emit_matmul:
            return gemm_library(self.operands[0].dtype.name, self.geometry["int_bits"])
        return None


#: a product's cost per multiply-add relative to the fused kernels' per-element unit (the thread
#: pool's split threshold is in those units): single-threaded sgemm takes 0.013-0.019 ns per
#: multiply-add on LeNet5's and the MLP's shapes, an elementwise fused kernel ~0.3 ns per unit
GEMM_COST = 0.05
#: multiply-adds from which a product split over C's rows or columns runs one BLAS call per thread
BIG_PRODUCT = 1 << 24


# -- planning -----------------------------------------------------------------------------------------
def _conv_geometry(node, x_shape):
    from graph.ops.nn import _window_check
    a = node.attrs
    pads, out_hw = _window_check(node.op.name, x_shape, a["kernel_size"], a["stride"], a["pad_mode"],
                                 a["padding"], a["dilation"])
    return {"shape": tuple(x_shape), "kernel": tuple(a["kernel_size"]), "stride": tuple(a["stride"]),
            "dilation": tuple(a["dilation"]), "pads": tuple(pads), "out_hw": tuple(out_hw), "layout": a["layout"]}


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
    geo = {"shape": tuple(x_shape), "kernel": tuple(a["kernel_size"]), "stride": tuple(stride),
           "dilation": (1, 1), "pads": tuple(pads), "out_hw": tuple(out_hw),
           "tiles": bool(_tiles(x_shape[2:], tuple(a["kernel_size"]), tuple(stride), pads, out_hw))}
    geo["vector"] = vector_windows(geo)  # in the geometry, so in the kernel's description
    return geo


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


def _fold_batch_into_rows(geo) -> None:
    """A batch of products sharing one B matrix, with A not transposed, is one product of the
    stacked rows: (batch * m, k) @ (k, n) into the (batch * m, n) result (A and C are contiguous).
    One BLAS call packs B once instead of once per batch matrix (an RNN's input projection of every
    time step, a Dense layer on a 3-d input: 35 products of 32 x 64 @ 64 x 512 took the LSTM bench
    about twice as long as the one 1120-row product)."""
    if geo["a_batched"] and not geo["b_batched"] and not geo["ta"] and geo["batch"] > 1:
        geo["m"] *= geo["batch"]
        geo["batch"] = 1
        geo["a_batched"] = False
        geo["folded"] = True


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
                          emit_softmax, {"cols": x.shape[-1]})
    if op == "one_hot":
        idx = node.inputs[0]
        a = node.attrs
        if (np_dtype(idx.dtype) not in _INDICES or a.get("strict") or a.get("axis", -1) not in (-1, idx.ndim)
                or np_dtype(out.dtype) != np.float32 or 0 in out.shape):
            return None
        return NativePlan(name, node, [Operand(idx, np_dtype(idx.dtype), [], "in"), Operand(out, np.dtype(np.float32), [], "out")],
                          [idx.size], out.size, emit_one_hot,
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
        return NativePlan(name, node, ops, [logits.shape[0]], logits.size, emit_sparse_ce, {"cols": logits.shape[1]},
                          extra_args=(flag,), after_call=after_call, error_flag=len(ops))
    return None


def _plan_recurrence(node, name):
    """The plan of an LSTM or GRU recurrence or its backward pass (native/recurrent.py, gru.py), or
    None: split over the batch's rows, each part running the whole sequence for its rows."""
    geo = recurrent.recurrence_geometry(node)
    if geo is None:
        return None
    ins, outs = recurrent.operand_values(node, geo)
    dt = np_dtype(outs[0].dtype)
    ops = [Operand(v, dt, [], "in") for v in ins] + [Operand(v, dt, [], "out") for v in outs]
    # one part per thread: every part packs W_hh for itself and multiplies its rows in blocks of
    # packed_gemm.ROWS (a part's last rows one at a time, each re-reading all of W_hh per step), so
    # the pool's default of four parts per thread, on the LSTM bench's batch of 32 rows over two
    # threads (eight 4-row parts), ran the forward and backward pair in 5.3 ms against 1.7 ms in
    # two 16-row parts and 3.0 on one thread (interleaved in one process, loaded 2-core VM)
    return NativePlan(name, node, ops, [geo["batch"]], recurrent.work(geo), NATIVE_OPS[node.op.name][1], geo,
                      cost=GEMM_COST, calls_blas=True, parts_per_thread=1)


def plan_native(node, name: str, batch_sum=None):
    """A :class:`NativePlan` for ``node``, or None when it has no native kernel here.
    ``batch_sum``: a ``reduce_sum`` over axis 0 of a batched product's result, computed by the
    product itself (BLAS accumulates the batch matrices into one output: no batch of results)."""
    spec = NATIVE_OPS.get(node.op.name)
    if spec is not None and spec[0] is _plan_recurrence:  # (its cotangents may be the number 0)
        return _plan_recurrence(node, name)
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
        else:
            _fold_batch_into_rows(geo)
        ops = [Operand(v, dt, [], "in") for v in node.inputs] + [Operand(out, dt, [], "out")]
        m, n, k, batch = geo["m"], geo["n"], geo["k"], geo["batch"]
        summed = batch_sum is not None
        chunks = 0 if summed else k_chunks_of(m, n, k, batch, dt.itemsize)
        if chunks:  # cut along k: the chunks' products summed like a batch's (gemm.py)
            split, extent = "batch_blocks", chunks
        else:
            split, extent = split_of(m, n, batch, summed, dt.itemsize, geo["ta"], geo["tb"])
        sizes = sizes_table(m, n, k, geo["ta"], geo["tb"], geo["a_batched"], geo["b_batched"], batch, summed, split,
                            batch_block_of(m, n, batch, dt.itemsize) if split == "batch_blocks" else 0, chunks)
        geo["split"] = split
        geo["k_chunks"] = chunks
        # one kernel per dtype serves every product (their sizes are data): fewer functions to
        # compile. Split over the thread pool like any kernel (BLAS runs single-threaded inside
        # compiled code): parts of C, or the batch matrices
        shared = f"msjit_gemm_{dt.name}_i{api.int_bits}"
        scratch, counter = extra_arrays(m, n, batch, summed, split, dt, bool(sizes[SIZES["swap"]]), chunks)
        # a part of C is one BLAS call: cutting a big product finer costs BLAS speed (MLP b1024's
        # first product: 2.06 ms in halves, 2.45 in eighths), so it gets one part per thread;
        # small ones and those whose calls have a fixed size anyway (transposed products, summed
        # batches) get the pool's default, which balances better (MLP b32: 0.38 -> 0.32 ms a step)
        whole_calls = split in ("rows", "cols") and not sizes[SIZES["swap"]] and m * n * k >= BIG_PRODUCT
        return NativePlan(shared, node, ops, [extent], batch * m * n * k, emit_matmul, geo, cost=GEMM_COST,
                          extra_args=(sizes, scratch, counter), block_counter=counter,
                          parts_per_thread=1 if whole_calls else 0, calls_blas=True)
    geometry_of, emitter, outer = spec
    if node.op.name == "batch_norm":
        geo = geometry_of(node)
        if geo is None:
            return None
        ops = [Operand(v, dt, [], "in") for v in node.inputs] + [Operand(v, dt, [], "out") for v in node.outputs]
        return NativePlan(name, node, ops, [geo["channels"]], 3 * node.inputs[0].size, emitter, geo)
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
    if geo.get("layout") == "knp":  # the batch's columns are written channel by channel (conv.py)
        outer = "c"
    return NativePlan(name, node, ops, [{"n": n, "c": c}.get(outer, n * c)], size, emitter, geo)


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
    ident = c_identifier(graph_name)
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


#: op name -> (geometry, emitter, outer axis: "n" images or "nc" image channels)
NATIVE_OPS = {
    "softmax": (_plan_rows, emit_softmax, "rows"),
    "one_hot": (_plan_rows, emit_one_hot, "rows"),
    "sparse_softmax_cross_entropy": (_plan_rows, emit_sparse_ce, "rows"),
    "conv2d": (_direct_geometry, emit_direct_conv, "n"),
    "conv2d_backprop_filter": (_direct_geometry, emit_direct_filter_grad, "o"),
    "transpose": (_transpose_geometry, emit_transpose, "out0"),
    "batch_norm": (batch_norm_geometry, emit_batch_norm, "c"),
    "matmul": (None, emit_matmul, "batch"),
    "conv_im2col": (_conv_geometry, emit_im2col, "n"),
    "conv_col2im": (_conv_geometry, emit_col2im, "n"),
    "max_pool2d": (_pool_geometry, emit_max_pool, "nc"),
    "max_pool2d_grad": (_pool_geometry, emit_max_pool_grad, "nc"),
    "lstm_recurrence": (_plan_recurrence, recurrent.emit_lstm, "batch"),
    "lstm_recurrence_grad": (_plan_recurrence, recurrent.emit_lstm_grad, "batch"),
    "gru_recurrence": (_plan_recurrence, emit_gru, "batch"),
    "gru_recurrence_grad": (_plan_recurrence, emit_gru_grad, "batch"),
}
