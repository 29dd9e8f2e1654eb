"""Algebraic simplification: identities that make a node disappear or shrink a chain of layout ops.

Rules are a table keyed by op name (:data:`RULES`); each takes ``(node, operands, rewriter)`` with
operands already mapped into the new graph and returns the new-graph Value that replaces the
node's output, or None to keep the node. A replacement is only accepted when its shape *and* dtype
equal the node's output (``int32 * 1.0`` is float32, so it stays a multiplication).

    x*1, 1*x, x+0, 0+x, x-0, x/1 -> x          (1 and 0: Python scalars or all-one/zero constants)
    neg(neg x), logical_not(logical_not x) -> x
    reshape/squeeze/expand_dims/broadcast_to to the same shape -> x;  cast to x's dtype -> x
    reshape(reshape x) -> reshape x;  transpose(transpose x) -> one transpose, or x if identity
    bias_add(x, b) -> add(x, reshape(b, channel view)), so fusion can merge it with what follows

Returns a new Graph; nodes left unused by a rewrite are removed by the next :func:`dce`.

:func:`reduce_strength` (the pipelines' ``strength`` step, at every level, ``O0`` included) writes
a power by a constant Python exponent as cheaper ops, so no backend's emitter decides it:

    x**2 -> x*x    x**3 -> (x*x)*x    x**1 -> identity(x)    x**-1 -> 1/x (float x)
    x**0.5 -> sqrt(x)  (float32/float64 x: numpy's power takes the square root there, so the sign
                        of zero and the NaN of -inf are sqrt's; its float16 power is C's pow)

Rewritten are exactly the powers that compute in their operand's dtype (no promotion: int8 ** 2.0
is float32, computed by ``pow``); a float16 exponent is the scalar rounded to float16, as the
kernels read it. A float16 ``x**3`` multiplies in float32 and rounds once (as one fused node
computes float16 arithmetic), which the rewrite spells with casts.
"""
from __future__ import annotations

import numpy as np

from ..aval import AVal
from ..ir import CONST, NODE, Graph, Value
from .rewrite import Rewriter

_CONST_CHECK_LIMIT = 4096  # constants larger than this are not inspected for all-ones/zeros


def _is_scalar_const(v, want: float) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return v == want
    if isinstance(v, Value) and v.kind == CONST and v.data is not None and v.data.size <= _CONST_CHECK_LIMIT:
        return v.data.size > 0 and bool(np.all(v.data == want))
    return False


def _producer(v, op_name):
    if isinstance(v, Value) and v.kind == NODE and v.producer.op.name == op_name:
        return v.producer
    return None


def _mul(node, ins, rw):
    x, y = ins
    if _is_scalar_const(y, 1):
        return x
    if _is_scalar_const(x, 1):
        return y
    return None


def _add(node, ins, rw):
    x, y = ins
    if _is_scalar_const(y, 0):
        return x
    if _is_scalar_const(x, 0):
        return y
    return None


def _sub(node, ins, rw):
    return ins[0] if _is_scalar_const(ins[1], 0) else None


def _div(node, ins, rw):
    return ins[0] if _is_scalar_const(ins[1], 1) else None


def _involution(name):
    def rule(node, ins, rw):
        inner = _producer(ins[0], name)
        return inner.inputs[0] if inner is not None else None
    return rule


def _same_shape(node, ins, rw):
    x = ins[0]
    return x if isinstance(x, Value) and x.shape == node.outputs[0].shape else None


def _cast(node, ins, rw):
    x = ins[0]
    return x if isinstance(x, Value) and x.dtype is node.attrs["dtype"] else None


def _reshape(node, ins, rw):
    x = ins[0]
    out = node.outputs[0]
    if isinstance(x, Value) and x.shape == out.shape:
        return x
    inner = _producer(x, "reshape")
    if inner is not None:
        base = inner.inputs[0]
        if base.shape == out.shape:
            return base
        return rw.emit_new(node.op, (base,), {"shape": tuple(out.shape)}, (out.aval,), node.loc).outputs[0]
    return None


def _full_perm(perm, ndim):
    if perm is None:
        return tuple(reversed(range(ndim)))
    return tuple(p % ndim for p in perm)


def _transpose(node, ins, rw):
    x = ins[0]
    out = node.outputs[0]
    perm = _full_perm(node.attrs.get("perm"), x.ndim)
    if perm == tuple(range(x.ndim)):
        return x
    inner = _producer(x, "transpose")
    if inner is not None:
        base = inner.inputs[0]
        p1 = _full_perm(inner.attrs.get("perm"), base.ndim)
        q = tuple(p1[p] for p in perm)
        if q == tuple(range(base.ndim)):
            return base
        return rw.emit_new(node.op, (base,), {"perm": q}, (out.aval,), node.loc).outputs[0]
    return None


def _bias_add(node, ins, rw):
    """Lower bias_add to a broadcasting add (an elementwise op the fusion pass can group with the
    activation after it) over a layout-only view of the bias."""
    from ..ops import REGISTRY
    x, b = ins
    if not (isinstance(x, Value) and isinstance(b, Value)) or x.dtype is not b.dtype:
        return None
    fmt = node.attrs.get("data_format", "nchw")
    axis = x.ndim - 1 if fmt == "nhwc" else 1
    view = tuple(x.shape[axis] if i == axis else 1 for i in range(x.ndim))
    if axis != x.ndim - 1:
        b = rw.emit_new(REGISTRY["reshape"], (b,), {"shape": view}, (AVal(view, b.dtype),), node.loc).outputs[0]
    out = node.outputs[0]
    return rw.emit_new(REGISTRY["add"], (x, b), {}, (out.aval,), node.loc).outputs[0]


RULES = {
    "bias_add": _bias_add,
    "mul": _mul, "add": _add, "sub": _sub, "div": _div,
    "neg": _involution("neg"), "logical_not": _involution("logical_not"),
    "reshape": _reshape, "transpose": _transpose, "cast": _cast,
    "broadcast_to": _same_shape, "squeeze": _same_shape, "expand_dims": _same_shape,
}


def _power_by_constant(node, rw):
    """The new-graph Value computing ``node`` (a ``pow``) as cheaper ops, or None to keep it."""
    from ..dtypes import float16, float32, float64
    from ..ops import REGISTRY
    from ..ops.promotion import promotion_target
    x, y = node.inputs
    out = node.outputs[0]
    if not isinstance(x, Value) or isinstance(y, Value) or not isinstance(y, (int, float)):
        return None
    if promotion_target(node.op, node.inputs) is not None or x.dtype is not out.dtype:
        return None  # promoted operands: pow proper (the scalar becomes a value of the target)
    if x.dtype is float16 and not isinstance(y, bool):
        with np.errstate(over="ignore"):
            y = float(np.float16(y))  # the weak scalar as a float16 kernel reads it
    y = float(y)
    x = rw.get(x)

    def emit(name, ins, aval, **attrs):
        return rw.emit_new(REGISTRY[name], ins, attrs, (aval,), node.loc).outputs[0]
    if y == 2.0:
        return emit("mul", (x, x), out.aval)
    if y == 1.0:
        return emit("identity", (x,), out.aval)
    if y == 3.0:
        if x.dtype is float16:  # one rounding to float16, after both products
            wide = AVal(out.shape, float32)
            x32 = emit("cast", (x,), wide, dtype=float32)
            cube = emit("mul", (emit("mul", (x32, x32), wide), x32), wide)
            return emit("cast", (cube,), out.aval, dtype=float16)
        return emit("mul", (emit("mul", (x, x), out.aval), x), out.aval)
    if y == 0.5 and x.dtype in (float32, float64):  # numpy's own shortcut, for these two only:
        return emit("sqrt", (x,), out.aval)  # its float16 loop is C's pow ((-inf) ** 0.5 = inf)
    if y == -1.0 and x.dtype.is_float:
        return emit("div", (1.0, x), out.aval)
    return None


#: the strength reductions of :func:`reduce_strength`, keyed by op name: ``(node, rewriter) ->``
#: new-graph Value or None
STRENGTH_RULES = {"pow": _power_by_constant}


def reduce_strength(graph: Graph) -> Graph:
    """Apply :data:`STRENGTH_RULES` over the graph (new Graph). A rewritten node is dropped here,
    so no :func:`dce` needs to follow."""
    rw = Rewriter(graph)
    for node in graph.nodes:
        rule = STRENGTH_RULES.get(node.op.name)
        repl = rule(node, rw) if rule is not None and len(node.outputs) == 1 else None
        if repl is not None:
            rw.alias(node.outputs[0], repl)
        else:
            rw.emit(node)
    return rw.finish()


def simplify(graph: Graph) -> Graph:
    """Apply :data:`RULES` once over the graph in order (new Graph)."""
    rw = Rewriter(graph)
    for node in graph.nodes:
        rule = RULES.get(node.op.name)
        if rule is not None and len(node.outputs) == 1:
            ins = tuple(rw.get(v) for v in node.inputs)
            repl = rule(node, ins, rw)
            if isinstance(repl, Value) and repl.aval == node.outputs[0].aval:
                rw.alias(node.outputs[0], repl)
                continue
            rw.emit(node, ins)
        else:
            rw.emit(node)
    return rw.finish()

