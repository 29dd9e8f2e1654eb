"""Dead-code elimination and common-subexpression elimination. Both return a new Graph.

* :func:`dce` drops nodes none of whose outputs reach a graph output or a parameter update, and
  constants nobody reads. Nodes with side effects stay: RANDOM ops (they advance the random
  stream, so dropping one would change every later draw), STATE ops, any op that ``mutates`` and
  collectives (every process of a group must take part in each one).
* :func:`cse` merges nodes with the same op, the same attributes and the same operands (Python
  scalars compared with their type: ``x * 2`` and ``x * 2.0`` differ for an int tensor) into the
  first of them, and identical small constants into one. Nodes with side effects are never
  merged: two dropouts draw two masks, two all-reduces are two exchanges.

Example:
    >>> from graph.passes import dce, cse
    >>> # g2 = cse(dce(g)); g2.verify()
"""
from __future__ import annotations

import numpy as np

from ..ir import Graph, Value
from .rewrite import Rewriter

#: constants with at most this many elements are deduplicated by content
CONST_DEDUP_LIMIT = 4096


def has_side_effects(node) -> bool:
    return node.op.has_effects


def dce(graph: Graph) -> Graph:
    """Remove dead nodes and unused constants (new Graph; inputs are kept: they are the signature)."""
    live: set[int] = {id(v) for v in graph.outputs if isinstance(v, Value)}
    live.update(id(v) for v in graph.updates.values())
    keep = []
    for node in reversed(graph.nodes):
        if has_side_effects(node) or any(id(o) in live for o in node.outputs):
            keep.append(node)
            for v in node.inputs:
                if isinstance(v, Value):
                    live.add(id(v))
    rw = Rewriter(graph)
    for node in reversed(keep):
        rw.emit(node)
    return rw.finish()


def _scalar_key(v):
    # type matters (promotion), and repr tells -0.0 from 0.0 and makes NaN equal to itself
    return (type(v).__name__, repr(v))


def attr_key(v):
    """A hashable, type-exact key for an attribute value (None if it cannot be keyed)."""
    if isinstance(v, (bool, int, float, str)) or v is None:
        return _scalar_key(v)
    if isinstance(v, (tuple, list)):
        parts = tuple(attr_key(x) for x in v)
        return None if None in parts else (type(v).__name__, parts)
    if isinstance(v, slice):
        return ("slice", attr_key(v.start), attr_key(v.stop), attr_key(v.step))
    try:
        hash(v)
    except TypeError:
        return None
    return ("obj", type(v).__name__, v)


def _const_key(v: Value):
    data = v.data
    if data is None or data.size > CONST_DEDUP_LIMIT:
        return None
    return (v.aval.shape, v.aval.dtype.name, np.ascontiguousarray(data).tobytes())


def cse(graph: Graph) -> Graph:
    """Merge structurally identical nodes and identical small constants (new Graph)."""
    rw = Rewriter(graph)
    consts: dict[tuple, Value] = {}
    for c in graph.consts:  # dedupe constants first so nodes reading twin constants merge too
        key = _const_key(c)
        if key is None:
            continue
        hit = consts.get(key)
        if hit is None:
            consts[key] = rw.get(c)
        else:
            rw.alias(c, hit)
    seen: dict[tuple, object] = {}
    for node in graph.nodes:
        ins = tuple(rw.get(v) for v in node.inputs)
        if has_side_effects(node):
            rw.emit(node, ins)
            continue
        akey = attr_key(tuple(node.attrs.items()))
        key = None
        if akey is not None:
            key = (node.op.name, akey,
                   tuple(("v", v.id) if isinstance(v, Value) else _scalar_key(v) for v in ins))
        prev = seen.get(key) if key is not None else None
        if prev is not None:
            for old_o, new_o in zip(node.outputs, prev.outputs):
                rw.alias(old_o, new_o)
            continue
        new = rw.emit(node, ins)
        if key is not None:
            seen[key] = new
    return rw.finish()
