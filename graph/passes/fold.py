"""Constant folding: evaluate nodes whose tensor operands are all constants at compile time.

A node folds when it has no side effects (not RANDOM/STATE, does not mutate), every Value operand
(if it has any: ``fill`` and ``range`` have none) is a CONST or the op reads only its operands' shapes (``Op.shape_only``: ``ones_like(loss)``,
the seed of a gradient, is a constant), and its outputs hold at most :data:`FOLD_LIMIT` elements in all (folding a broadcast
into a huge constant would trade a cheap kernel for a big baked-in array). It is evaluated exactly
as the reference interpreter would (same operand promotion, the op's numpy ``impl``), so folding
never changes a result bit. An op whose impl raises, or returns something other than the
inferred shape/dtype, is left in the graph so the error surfaces at run time as it would unfolded.

Example:
    >>> from graph.passes import fold_constants
    >>> # g2 = fold_constants(g): every constant-only subgraph is now a `const`
"""
from __future__ import annotations

import numpy as np

from ..ir import CONST, Graph, Value
from ..ops.promotion import cast_operands, promotion_target
from .cleanup import has_side_effects
from .rewrite import Rewriter

#: the most elements a node's outputs may hold in all to be folded
FOLD_LIMIT = 1_000_000


def _evaluate(node, args):
    target = promotion_target(node.op, args)
    if target is not None:
        args = cast_operands(node.op, args, target)
    out = node.op.impl(np, *args, **node.attrs)
    outs = tuple(out) if node.op.n_outputs != 1 else (out,)
    result = []
    for v, o in zip(node.outputs, outs):
        arr = np.asarray(o)
        if not arr.flags.c_contiguous:  # (not ascontiguousarray always: it makes a 0-d array 1-d)
            arr = np.ascontiguousarray(arr)
        if arr.shape != tuple(v.aval.shape) or arr.dtype != v.aval.dtype.np:
            return None
        result.append(arr)
    return result if len(result) == len(node.outputs) else None


def _operand_data(v):
    """A constant's data, any other value's stand-in of its shape and dtype (for shape-only ops)."""
    if not isinstance(v, Value):
        return v
    return v.data if v.kind == CONST else np.zeros(tuple(v.aval.shape), v.aval.dtype.np)


def fold_constants(graph: Graph, limit: int = FOLD_LIMIT) -> Graph:
    """Replace constant-only subgraphs by constants (new Graph; dead inputs of folded nodes vanish
    with them because constants are only added when used)."""
    rw = Rewriter(graph)
    for node in graph.nodes:
        ins = [rw.get(v) for v in node.inputs]
        vals = [v for v in ins if isinstance(v, Value)]
        # (a node with no tensor operand, ``fill`` or ``range`` of sizes known here, folds too)
        if (not has_side_effects(node) and (node.op.shape_only or all(v.kind == CONST for v in vals))
                and sum(o.aval.size for o in node.outputs) <= limit):
            try:
                arrays = _evaluate(node, [_operand_data(v) for v in ins])
            except Exception:  # leave it to fail at run time, where errors are reported
                arrays = None
            if arrays is not None:
                for o, arr in zip(node.outputs, arrays):
                    rw.alias(o, rw.const(arr, aval=o.aval))
                continue
        rw.emit(node, ins)
    return rw.finish()
