"""Collective ops: all_reduce, all_gather, reduce_scatter, broadcast, and the two halves of a
non-blocking all-reduce (all_reduce_start / all_reduce_wait) that gradient buckets use.

Each runs on a process group of :mod:`graph.ops.comm` (the world unless ``group`` names another).
They are ``extern`` kernels marked ``communicates``: every process of the group must run each of
them in the same order, so passes keep them in program order and never remove, merge or fold
them; in a compiled graph they are library calls on the graph's own buffers. With a group of one
process each is an identity (a copy), so a data-parallel script also runs as a single process.

VJPs follow MindSpore's rules: all_reduce(sum)'s is all_reduce(sum) of the cotangent (max/min: the
same, masked to where the input held the extreme; prod: ``all_reduce(g * out) / x``),
all_gather's is reduce_scatter(sum), reduce_scatter(sum)'s is all_gather, and broadcast's sums the
cotangents of every rank into the root's input (the other ranks' inputs get zeros).

Example:
    >>> from graph.ops import REGISTRY
    >>> [REGISTRY[n].prim for n in ("all_reduce", "all_gather", "reduce_scatter", "broadcast")]
    ['AllReduce', 'AllGather', 'ReduceScatter', 'Broadcast']
    >>> REGISTRY["all_reduce"].communicates, REGISTRY["all_reduce_start"].issue_early
    (True, True)
"""
from __future__ import annotations

from ..aval import AVal
from ..dtypes import int64
from . import comm
from .core import EXTERN, REQUIRED, Attr, F, Op, a_nonneg_int, a_oneof, describe, fail, register


def _a_group(v, op, name):
    if not isinstance(v, str) or not v:
        raise TypeError(f"{op.prim} (ops.{op.name}): {name} must be a group name (str), got {v!r}")
    return v


_GROUP = {"group": Attr(comm.WORLD, _a_group)}
_REDUCE = {"op": Attr("sum", a_oneof(*comm.REDUCE_OPS))}


def _group(op_name: str, name: str):
    try:
        return comm.get_group(name)
    except ValueError as e:
        fail(op_name, str(e))


def _check_operand(op_name: str, x):
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        fail(op_name, f"expects a tensor, got {describe(x)}", TypeError)
    if x.dtype.is_bool:
        fail(op_name, f"bool tensors cannot be reduced or exchanged, got {describe(x)}; cast to int32 first",
             TypeError)


# -- all_reduce -----------------------------------------------------------------------------------
def _infer_all_reduce(x, op="sum", group=comm.WORLD):
    _check_operand("all_reduce", x)
    _group("all_reduce", group)
    return AVal(x.shape, x.dtype)


def _all_reduce_impl(xp, x, op="sum", group=comm.WORLD):
    return comm.get_group(group).all_reduce(xp, x, op)


def _all_reduce_vjp(g, out, x, op="sum", group=comm.WORLD):
    if op == "sum":
        return (F.all_reduce(g, op="sum", group=group),)
    if op == "prod":
        return (F.div(F.all_reduce(F.mul(g, out), op="sum", group=group), x),)
    # max/min: the cotangent goes where this rank's input held the extreme value
    summed = F.all_reduce(g, op="sum", group=group)
    return (F.mul(summed, F.cast(F.equal(x, out), dtype=summed.dtype)),)


register(Op("all_reduce", prim="AllReduce", inputs=("x",), impl=_all_reduce_impl, infer=_infer_all_reduce,
            vjp=_all_reduce_vjp, kind=EXTERN, communicates=True, attrs={**_REDUCE, **_GROUP},
            doc="reduce (sum/max/min/prod) elementwise over every process of the group; each gets the result"))


# -- all_gather / reduce_scatter -----------------------------------------------------------------
def _infer_all_gather(x, group=comm.WORLD):
    _check_operand("all_gather", x)
    if x.ndim == 0:
        fail("all_gather", f"expects a tensor of rank >= 1 (results are concatenated along axis 0), "
                           f"got {describe(x)}")
    size = _group("all_gather", group).size
    return AVal((x.shape[0] * size,) + tuple(x.shape[1:]), x.dtype)


def _all_gather_impl(xp, x, group=comm.WORLD):
    return comm.get_group(group).all_gather(xp, x)


def _all_gather_vjp(g, out, x, group=comm.WORLD):
    return (F.reduce_scatter(g, op="sum", group=group),)


register(Op("all_gather", prim="AllGather", inputs=("x",), impl=_all_gather_impl, infer=_infer_all_gather,
            vjp=_all_gather_vjp, kind=EXTERN, communicates=True, attrs=dict(_GROUP),
            doc="concatenate every process's tensor along axis 0, in rank order"))


def _infer_reduce_scatter(x, op="sum", group=comm.WORLD):
    _check_operand("reduce_scatter", x)
    size = _group("reduce_scatter", group).size
    if x.ndim == 0 or x.shape[0] % size:
        fail("reduce_scatter", f"axis 0 of the input must split evenly over the {size} processes of group "
                               f"{group!r}, got {describe(x)}")
    return AVal((x.shape[0] // size,) + tuple(x.shape[1:]), x.dtype)


def _reduce_scatter_impl(xp, x, op="sum", group=comm.WORLD):
    return comm.get_group(group).reduce_scatter(xp, x, op)


def _reduce_scatter_vjp(g, out, x, op="sum", group=comm.WORLD):
    if op != "sum":
        fail("reduce_scatter", f"only op='sum' has a gradient, got op={op!r}")
    return (F.all_gather(g, group=group),)


register(Op("reduce_scatter", prim="ReduceScatter", inputs=("x",), impl=_reduce_scatter_impl,
            infer=_infer_reduce_scatter, vjp=_reduce_scatter_vjp, kind=EXTERN, communicates=True,
            attrs={**_REDUCE, **_GROUP},
            doc="reduce over the group, then give process i the i-th of size equal parts along axis 0"))


# -- broadcast -------------------------------------------------------------------------------------
def _infer_broadcast(*xs, root_rank=0, group=comm.WORLD):
    if not xs:
        fail("broadcast", "expects at least one tensor")
    for x in xs:
        _check_operand("broadcast", x)
    size = _group("broadcast", group).size
    if root_rank >= size:
        fail("broadcast", f"root_rank {root_rank} is not a rank of group {group!r} (size {size})")
    return tuple(AVal(x.shape, x.dtype) for x in xs)


def _broadcast_impl(xp, *xs, root_rank=0, group=comm.WORLD):
    return comm.get_group(group).broadcast(xp, xs, root_rank)


def _broadcast_vjp(g, out, *xs, root_rank=0, group=comm.WORLD):
    gs = g if isinstance(g, tuple) else (g,)
    # every rank takes part in each all-reduce; only the root's inputs reached the outputs
    is_root = comm.get_group(group).rank == root_rank
    summed = [F.all_reduce(gi, op="sum", group=group) for gi in gs]
    return tuple(s if is_root else F.zeros_like(s) for s in summed)


register(Op("broadcast", prim="Broadcast", inputs=("*xs",), impl=_broadcast_impl, infer=_infer_broadcast,
            vjp=_broadcast_vjp, kind=EXTERN, communicates=True, n_outputs=-1,
            attrs={"root_rank": Attr(REQUIRED, a_nonneg_int), **_GROUP},
            doc="every process gets the root's tensors (a tuple, one per input)"))


# -- non-blocking all-reduce ------------------------------------------------------------------------
def _all_reduce_start_impl(xp, x, op="sum", group=comm.WORLD):
    return comm.start_all_reduce(comm.get_group(group), xp, x, op)


def _infer_all_reduce_start(x, op="sum", group=comm.WORLD):
    _check_operand("all_reduce_start", x)
    _group("all_reduce_start", group)
    return AVal((), int64)


def _infer_all_reduce_wait(ticket, sent):
    if not (hasattr(ticket, "dtype") and ticket.dtype is int64 and tuple(ticket.shape) == ()):
        fail("all_reduce_wait", f"ticket must be the int64 scalar all_reduce_start returned, got {describe(ticket)}",
             TypeError)
    _check_operand("all_reduce_wait", sent)
    return AVal(sent.shape, sent.dtype)


def _all_reduce_wait_impl(xp, ticket, sent):
    return comm.finish_all_reduce(ticket)


_HALF = "one half of a gradient bucket's all-reduce (differentiate all_reduce instead)"
register(Op("all_reduce_start", prim="AllReduceStart", inputs=("x",), impl=_all_reduce_start_impl,
            infer=_infer_all_reduce_start, kind=EXTERN, communicates=True, issue_early=True,
            attrs={**_REDUCE, **_GROUP}, nondiff=_HALF,
            doc="start a non-blocking all_reduce of x; returns its ticket (an int64 scalar) for all_reduce_wait"))
register(Op("all_reduce_wait", prim="AllReduceWait", inputs=("ticket", "sent"), impl=_all_reduce_wait_impl,
            infer=_infer_all_reduce_wait, kind=EXTERN, communicates=True, nondiff=_HALF,
            doc="the result of the all_reduce_start that gave ``ticket``; ``sent`` is what it was started on "
                "(kept alive and unmodified until the exchange completes)"))
