"""Integer arithmetic on tensor sizes in traced Python code, kept as expressions.

``tgt, batch = q.shape[0], q.shape[1]`` then ``ops.reshape(q, (tgt, batch * heads, d))`` (what
``nn.MultiheadAttention`` does) puts ``batch * heads`` into a graph attribute. A plain int there
ties the graph to one batch size. Here a size read from a traced tensor is a symbolic int of the
translator (``capture.variables.tensor.ShapeDimVariable``): ``+``, ``-``, ``*`` between sizes and
integer constants, unary ``-``, and ``//`` / ``%`` by a positive integer constant give another
symbolic int whose *expression* says how it was computed. Every other use (a branch, a
comparison, ``range(n)``, a call of a non-framework function, a result) reads the value as
before, and is logged in ``GraphBuilder.shape_reads`` (capture/dynamic.py then refuses to make a
dimension generic if the logs of two traces differ).

An expression reaching the graph (an op attribute, a Python number operand) is carried there by
``graph.symint.SymInt``, an ``int`` tagged with it (which framework code's own arithmetic on
shapes produces too, graph.symint), handed to framework code (``ops.*``, Tensor methods)
that builds the node. At the end of a translation :func:`strip` replaces each SymInt in the graph
by its plain value and returns where they were, with their leaves named by graph position
(:func:`graph_positions`), so that ``capture.dynamic`` can re-instantiate the graph at other
sizes by evaluating the expressions on the re-inferred graph (:func:`evaluate`): a leaf is a size
of a graph value *as shape inference gives it at the new sizes*, not a guess from the values seen.

Expressions are nested tuples:

* ``("dim", leaf, d)``: dimension ``d`` of a graph value (``leaf`` is the ``graph.ir.Value`` while
  tracing, its position ``("in", i)`` / ``("const", i)`` / ``("node", i, j)`` after :func:`strip`);
* ``("int", c)`` / ``("float", c)``: the constant ``c``;
* ``(op, a, b)`` for op in ``add sub mul floordiv mod truediv pow``; ``("neg", a)``; ``("sqrt", a)``.

A float computed from sizes (``x.sum() / n``, ``x * (1 / math.sqrt(n))``) is a
``graph.symint.SymFloat`` carrying its expression the same way, and goes into a node's Python
number operand like a size into an attribute.
"""
from __future__ import annotations

import math
import operator

from graph.symint import SymFloat, SymInt, tagged

_EVAL = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
         "mod": operator.mod, "truediv": operator.truediv, "pow": operator.pow}
_CONSTANTS = ("int", "float")


def apply(fn, operands):
    """``fn(*operands)`` (sizes as SymInts, numbers computed from them as SymFloats, other
    operands plain ints or floats) when it stays an expression, as ``graph.symint`` 's arithmetic
    decides (``+ - * / **``, ``//`` and ``%`` by a positive int constant, unary ``-``): the
    resulting SymInt or SymFloat; else None (the caller reads the operands' values)."""
    if not all(type(x) in (int, float, SymInt, SymFloat) for x in operands):
        return None
    # constants tagged too, so the expression's own methods run whatever the operand order
    # (``2.0 * n``: float's multiplication takes an int, so n's reflected method never would)
    operands = [x if type(x) in (SymInt, SymFloat) else tagged(x, (type(x).__name__, x)) for x in operands]
    try:
        out = fn(*operands)
    except Exception:
        return None  # (Python's error is raised where the values are read)
    return out if type(out) in (SymInt, SymFloat) else None


def evaluate(expr, size_of):
    """The value of ``expr``, ``size_of(leaf, d)`` giving a leaf's size."""
    kind = expr[0]
    if kind == "dim":
        return size_of(expr[1], expr[2])
    if kind in _CONSTANTS:
        return expr[1]
    if kind == "neg":
        return -evaluate(expr[1], size_of)
    if kind == "sqrt":
        return math.sqrt(evaluate(expr[1], size_of))
    return _EVAL[kind](evaluate(expr[1], size_of), evaluate(expr[2], size_of))


def same(a, b) -> bool:
    """Structurally the same expression (leaves compared by identity while tracing, by position
    after :func:`strip`): then it has the same value at every size."""
    if a[0] != b[0] or len(a) != len(b):
        return False
    if a[0] == "dim":
        return a[1] is b[1] and a[2] == b[2] if not isinstance(a[1], tuple) else a[1:] == b[1:]
    if a[0] in _CONSTANTS:
        return type(a[1]) is type(b[1]) and a[1] == b[1]
    return all(same(x, y) for x, y in zip(a[1:], b[1:]))


def is_constant(expr) -> bool:
    """No leaf: the same value whatever the sizes."""
    if expr[0] == "dim":
        return False
    if expr[0] in _CONSTANTS:
        return True
    return all(is_constant(x) for x in expr[1:])


def graph_positions(graph) -> dict:
    """Every Value of ``graph`` -> the position naming it in any graph built the same way."""
    pos = {}
    for i, v in enumerate(graph.inputs):
        pos[v] = ("in", i)
    for i, v in enumerate(graph.consts):
        pos[v] = ("const", i)
    for i, n in enumerate(graph.nodes):
        for j, v in enumerate(n.outputs):
            pos[v] = ("node", i, j)
    return pos


def _positioned(expr, pos):
    """``expr`` with its leaves named by position; None if a leaf is not in the graph."""
    if expr[0] == "dim":
        p = pos.get(expr[1])
        return None if p is None else ("dim", p, expr[2])
    if expr[0] in _CONSTANTS:
        return expr
    parts = [_positioned(x, pos) for x in expr[1:]]
    return None if any(p is None for p in parts) else (expr[0], *parts)


def _strip_value(value, path, found, pos):
    """``value`` (an attribute or operand) with SymInts made plain ints (SymFloats plain floats);
    their positioned expressions recorded in ``found`` under their path inside ``value``."""
    if isinstance(value, (SymInt, SymFloat)):
        expr = _positioned(value.expr, pos)
        if expr is not None and not is_constant(expr):
            found[path] = expr
        return value._plain()
    if type(value) is tuple:
        items = tuple(_strip_value(x, path + (k,), found, pos) for k, x in enumerate(value))
        return items if any(a is not b for a, b in zip(items, value)) else value
    if type(value) is list:
        return [_strip_value(x, path + (k,), found, pos) for k, x in enumerate(value)]
    if type(value) is slice:
        parts = [_strip_value(x, path + (k,), found, pos) for k, x in enumerate((value.start, value.stop, value.step))]
        return slice(*parts)
    return value


def strip(graph) -> dict:
    """Replace every SymInt (SymFloat) in ``graph``'s node attributes and Python operands by its value;
    returns ``{(node index, attribute name or ("input", k)): {path: expression}}``, each
    expression's leaves named by graph position (an expression over a value that is not in the
    graph is dropped: that attribute is then compared as a plain int)."""
    pos = graph_positions(graph)
    exprs: dict = {}
    for i, node in enumerate(graph.nodes):
        for key, value in list(node.attrs.items()):
            found: dict = {}
            plain = _strip_value(value, (), found, pos)
            if plain is not value:
                node.attrs[key] = plain
            if found:
                exprs[(i, key)] = found
        if any(isinstance(x, (SymInt, SymFloat)) for x in node.inputs):
            inputs = list(node.inputs)
            for k, x in enumerate(inputs):
                if isinstance(x, (SymInt, SymFloat)):
                    found = {}
                    inputs[k] = _strip_value(x, (), found, pos)
                    if found:
                        exprs[(i, ("input", k))] = found
            node.inputs = type(node.inputs)(inputs)
    return exprs


_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%", "truediv": "/", "pow": "**"}


def describe(expr, name_of) -> str:
    """``expr`` as Python-like text; ``name_of(position, dim)`` names a leaf (``s0``, or
    ``%node3.shape[1]``)."""
    kind = expr[0]
    if kind == "dim":
        return name_of(expr[1], expr[2])
    if kind in _CONSTANTS:
        return repr(expr[1])
    if kind == "neg":
        return f"-{_operand_text(expr[1], name_of)}"
    if kind == "sqrt":
        return f"sqrt({describe(expr[1], name_of)})"
    return f"{_operand_text(expr[1], name_of)} {_SYMBOL[kind]} {_operand_text(expr[2], name_of)}"


def _operand_text(expr, name_of):
    text = describe(expr, name_of)
    return f"({text})" if expr[0] not in ("dim", "sqrt") + _CONSTANTS else text
