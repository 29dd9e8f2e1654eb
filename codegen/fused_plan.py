"""Fused kernel -> :class:`FusedPlan`: the backend-neutral description every code generator
(codegen/cpu with LLVM, codegen/cuda with CUDA C) lowers.

A fused kernel (graph/passes/schedule.py) is a chain of elementwise nodes over an iteration shape
``S`` with an optional trailing reduction. :func:`plan_fused` turns it into a :class:`FusedPlan`:
every operand (input, stored output, reduction output) gets strides in ``S`` coordinates (0 along
broadcast or reduced axes); size-1 axes are dropped and adjacent axes merged wherever every operand
allows, so most kernels become a 1-D or 2-D loop nest. :func:`reduction_identity` is the start
value of each reduction kind.

Example:
    >>> from codegen.fused_plan import reduction_identity
    >>> reduction_identity("max", "float32")
    -inf
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from graph.ir import Value
from graph.ops.core import normalize_axes
from graph.ops.promotion import promotion_target


def np_dtype(dt) -> np.dtype:
    return dt.np if hasattr(dt, "np") else np.dtype(dt)


def compute_dtype(dt) -> np.dtype:
    """The dtype arithmetic happens in: float16 is computed in float32."""
    dt = np_dtype(dt)
    return np.dtype(np.float32) if dt == np.float16 else dt


class NotFusable(Exception):
    """The kernel breaks an assumption of the LLVM lowering (the runner falls back to numpy)."""


@dataclass
class Operand:
    value: Value
    dtype: np.dtype  # storage dtype
    strides: list  # element strides per (collapsed) loop axis
    role: str  # "in" | "out" | "red"


@dataclass
class FusedPlan:
    name: str
    dims: list
    reduced: list  # per collapsed axis: is it reduced
    operands: list
    body: list  # elementwise nodes in order
    reduce: object = None  # the reduction node
    red_kind: str | None = None  # add | mul | max | min
    red_scale: float | None = None  # 1/count for reduce_mean
    red_dtype: np.dtype | None = None  # compute dtype of the accumulation
    size: int = 0  # elements of the iteration space
    cost: float = 1.0  # rough per-element cost (threading heuristic)
    notes: list = field(default_factory=list)
    #: CPU only: a reduction over the outer axis computed in blocks of this many outer indices,
    #: each block into its own partial result, so parts of the kernel can run on several threads
    #: (codegen/cpu/kernels.py: block_outer_reduction); 0: not blocked
    row_block: int = 0
    #: arrays passed after the operands (a blocked reduction's partial results and its counter)
    extra_args: tuple = ()
    #: the blocked reduction's count of finished blocks (zero between calls; a forked child resets it)
    block_counter: object = None
    #: CPU only: stored operand index -> input operand index whose memory it is written into
    #: (a parameter update in place, codegen/cpu/runner.py: ``_plan_inplace``); the kernel takes
    #: one pointer for the pair, loading each element before storing its new value
    inplace: dict = field(default_factory=dict)

    @property
    def outer_extent(self) -> int:
        """The range ``[0, extent)`` the kernel's ``lo``/``hi`` count: outer indices, or blocks
        of them for a blocked reduction."""
        d0 = self.dims[0] if self.dims else 1
        return -(-d0 // self.row_block) if self.row_block else d0

    @property
    def splittable(self):
        return bool(self.dims) and (not self.reduced[0] or self.row_block > 0) and self.outer_extent > 1

    def description(self) -> str:
        """Canonical text of the kernel (part of the cache key)."""
        lines = [f"dims={self.dims} reduced={self.reduced} red={self.red_kind}/{self.red_scale}/{self.red_dtype}"
                 + (f" row_block={self.row_block}" if self.row_block else "")
                 + (f" inplace={sorted(self.inplace.items())}" if self.inplace else "")]
        ids = {id(o.value): i for i, o in enumerate(self.operands)}
        for o in self.operands:
            lines.append(f"op {o.role} {o.dtype} {o.strides}")
        for n in self.body + ([self.reduce] if self.reduce is not None else []):
            for v in n.outputs:
                ids.setdefault(id(v), f"t{len(ids)}")
            lines.append(f"{n.op.name} {[ids.get(id(a), a) if isinstance(a, Value) else repr(a) for a in n.inputs]} "
                         f"{sorted((k, repr(v)) for k, v in n.attrs.items())} -> {[ids[id(v)] for v in n.outputs]} "
                         f"{[str(v.aval) for v in n.outputs]}")
        return "\n".join(lines)


def _contig(shape):
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= s
    return st[::-1]


def _bcast_strides(shape, S):
    nd = len(S)
    if len(shape) > nd:
        raise NotFusable(f"operand of shape {shape} is larger than the kernel shape {S}")
    cs = _contig(shape)
    out = []
    for i in range(nd):
        j = i - (nd - len(shape))
        if j < 0:
            out.append(0)
        elif shape[j] == S[i]:
            out.append(cs[j] if S[i] != 1 else 0)
        elif shape[j] == 1:
            out.append(0)
        else:
            raise NotFusable(f"operand of shape {shape} does not broadcast to {S}")
    return out


_TRANSC = {"exp", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "gelu", "softplus", "pow"}


def plan_fused(kernel, name: str) -> FusedPlan:
    red = kernel.reduce
    body = [n for n in kernel.nodes if n is not red]
    for n in body:
        if n.op.kind != "elementwise" or n.op.n_outputs != 1:
            raise NotFusable(f"{n.op.name} is not a single-output elementwise op")
    if red is not None and (red.op.kind != "reduction" or kernel.nodes[-1] is not red):
        raise NotFusable("the reduction must be the last node of a fused kernel")
    if body:
        S = tuple(body[-1].outputs[0].shape)
    else:
        S = tuple(red.inputs[0].shape)
    produced = {}
    for n in body:
        if tuple(n.outputs[0].shape) != S:
            raise NotFusable(f"{n.op.name} produces {n.outputs[0].shape}, kernel shape is {S}")
        produced[id(n.outputs[0])] = n
    if red is not None and tuple(red.inputs[0].shape) != S:
        raise NotFusable(f"reduction input {red.inputs[0].shape} is not the kernel shape {S}")
    nd = len(S)
    ops: list[Operand] = []
    seen = set()
    for n in kernel.nodes:
        for a in n.inputs:
            if isinstance(a, Value) and id(a) not in produced and id(a) not in seen:
                seen.add(id(a))
                ops.append(Operand(a, np_dtype(a.dtype), _bcast_strides(tuple(a.shape), S), "in"))
    outs = list(kernel.outputs)
    red_axes = ()
    if red is not None:
        red_axes = normalize_axes(red.op.name, red.attrs.get("axis"), nd)
        if red.outputs[0] not in outs:
            outs.append(red.outputs[0])
    for v in outs:
        if red is not None and v is red.outputs[0]:
            kept = [i for i in range(nd) if i not in red_axes]
            cs = _contig([S[i] for i in kept])
            st = [0] * nd
            for k, i in enumerate(kept):
                st[i] = cs[k] if S[i] != 1 else 0
            ops.append(Operand(v, np_dtype(v.dtype), st, "red"))
        elif id(v) in produced:
            ops.append(Operand(v, np_dtype(v.dtype), _bcast_strides(S, S), "out"))
        else:
            raise NotFusable(f"kernel output {v!r} is not produced by the kernel")
    # drop size-1 axes, merge adjacent axes
    axes = [i for i in range(nd) if S[i] != 1]
    dims, reduced, strides = [], [], [[] for _ in ops]
    for i in axes:
        r = i in red_axes
        if dims and reduced[-1] == r and all(st[-1] == o.strides[i] * S[i] for st, o in zip(strides, ops)):
            dims[-1] *= S[i]
            for st, o in zip(strides, ops):
                st[-1] = o.strides[i]
            continue
        dims.append(S[i])
        reduced.append(r)
        for st, o in zip(strides, ops):
            st.append(o.strides[i])
    for st, o in zip(strides, ops):
        o.strides = st
    plan = FusedPlan(name, dims, reduced, ops, body, red, size=int(np.prod(S, dtype=np.int64)))
    if red is not None:
        plan.red_kind = red.op.reduce
        out_dt = compute_dtype(red.outputs[0].dtype)
        plan.red_dtype = out_dt
        if red.op.name == "reduce_mean":
            cnt = 1
            for a in red_axes:
                cnt *= S[a]
            plan.red_scale = 1.0 / max(cnt, 1) if cnt else math.nan
    plan.cost = 1.0 + 0.25 * len(body) + sum(4.0 for n in body if n.op.name in _TRANSC)
    return plan


def c_identifier(name: str) -> str:
    """``name`` made a C identifier (symbols of generated kernels): other characters become ``_``.

    >>> c_identifier("Net.construct<locals>")
    'Net_construct_locals_'
    """
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "g"


def plan_schedule(schedule, name: str) -> dict:
    """kernel index -> :class:`FusedPlan` (or the :class:`NotFusable` that explains why not) for
    every fused kernel of a schedule; plans are named ``<name>_k<index>``."""
    ident = c_identifier(name)
    plans = {}
    for ki, k in enumerate(schedule.kernels):
        if k.kind == "fused":
            try:
                plans[ki] = plan_fused(k, f"{ident}_k{ki}")
            except NotFusable as e:
                plans[ki] = e
    return plans


def reduction_identity(kind, dt):
    """Start value of a ``kind`` ("add", "mul", "max", "min") reduction in dtype ``dt``."""
    dt = np.dtype(dt)
    if kind == "add":
        return 0
    if kind == "mul":
        return 1
    if dt.kind == "f":
        return -math.inf if kind == "max" else math.inf
    if dt == np.bool_:
        return 0 if kind == "max" else 1
    info = np.iinfo(dt)
    return info.min if kind == "max" else info.max


def _tensor_dtype(node):
    """The promoted dtype of a node's tensor operands (numpy), or None without any."""
    dts = [a.dtype.np for a in node.inputs if isinstance(a, Value)]
    return np.result_type(*dts) if dts else None


def emit_body(E, plan: FusedPlan, load, store):
    """Emit one element of ``plan``'s elementwise chain with emitter ``E`` (any implementation
    of graph/ops/emit.py's interface): ``load(k)`` gives input operand ``k``'s element, each
    stored output ``k`` is written with ``store(k, value)``. Returns the reduction's operand
    element (None without a reduction). Operand promotion and weak Python scalars follow
    :mod:`graph.ops.promotion`, as in eager execution."""
    ops = plan.operands
    env = {id(o.value): load(k) for k, o in enumerate(ops) if o.role == "in"}
    out_ops = {id(o.value): k for k, o in enumerate(ops) if o.role == "out"}
    for n in plan.body:
        target = promotion_target(n.op, n.inputs)
        xs = []
        for a in n.inputs:
            if isinstance(a, Value):
                x = env[id(a)]
                if target is not None:
                    x = E.to(x, target)
            else:
                x = a
                if target is not None and a is not None:
                    x = E.const(a, dtype=target)
                elif isinstance(a, (int, float)) and not isinstance(a, bool) and _tensor_dtype(n) == np.float16:
                    # a weak scalar adopts the tensor operands' dtype: with float16 ones it is a
                    # float16 value (0.1 -> 0.0999755859375, 65536 -> inf), as in eager
                    with np.errstate(over="ignore"):
                        x = float(np.float16(a))
            xs.append(x)
        out = n.outputs[0]
        if target is None and n.op.promote and out.dtype.is_float:
            # an op with a float result computes in it, as its impl does (exp of an int tensor,
            # sigmoid of a bool one): the expression's constants are built like the operand
            for i in n.op.promote_idx:
                if i < len(xs) and isinstance(n.inputs[i], Value) and not n.inputs[i].dtype.is_float:
                    xs[i] = E.to(xs[i], out.dtype)
        r = n.op.expr(E, *xs, **n.attrs)
        r = E.to(E.wrap(r, compute_dtype(out.dtype)), out.dtype)
        env[id(out)] = r
        k = out_ops.get(id(out))
        if k is not None:
            store(k, r)
    if plan.reduce is not None:
        return env[id(plan.reduce.inputs[0])]
    return None
