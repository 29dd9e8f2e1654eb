"""Sizes that remember how they were computed, while a frame is being captured.

``SymInt`` is an ``int`` (it behaves as its value everywhere: shape inference, comparisons,
numpy) that also carries an *expression*: ``("dim", value, d)`` for dimension ``d`` of a graph
Value, ``("int", c)``, ``("neg", a)`` or ``(op, a, b)`` with op in ``add sub mul floordiv mod``.
Integer arithmetic with another SymInt or a plain int keeps the expression (``//`` and ``%``
only by a positive int constant); any other operation gives a plain int or float.

While :func:`tagging` is on (capture.compile_policy turns it on for the thread translating a
frame), :attr:`graph.ir.Value.shape` returns SymInts, so a size framework code computes from
shapes for a node's attribute (``F.reshape(g, shape=tuple(x.shape))`` in a VJP rule,
``batch * heads`` in ``nn.MultiheadAttention``) says how it depends on the graph's shapes.
``capture.symbolic_sizes.strip`` turns them back into plain ints when the translation ends,
recording the expressions, from which ``capture.dynamic`` re-instantiates the graph at other
sizes. AVals always hold plain ints (``AVal.__init__`` converts). Outside tagging nothing
changes."""
from __future__ import annotations

import contextlib
import operator
import threading


class _Tagging(threading.local):
    depth = 0


_TAGGING = _Tagging()


@contextlib.contextmanager
def tagging():
    """Graph Values' ``.shape`` gives SymInts on this thread while inside."""
    _TAGGING.depth += 1
    try:
        yield
    finally:
        _TAGGING.depth -= 1


def is_tagging() -> bool:
    return _TAGGING.depth > 0


def tagged_shape(value, shape):
    """``shape`` (of graph Value ``value``) as SymInts naming its dims."""
    return tuple(SymInt(d, ("dim", value, k)) for k, d in enumerate(shape))


def _expr(x):
    if isinstance(x, SymInt):
        return x.expr
    if type(x) is int:
        return ("int", x)
    return None


def _arith(name, fn, by_constant=False):
    def forward(self, other):
        value = fn(int(self), other)
        e = _expr(other)
        if e is None or value is NotImplemented or (by_constant and not (e[0] == "int" and e[1] > 0)):
            return value
        return SymInt(value, (name, self.expr, e))

    def reverse(self, other):
        value = fn(other, int(self))
        e = _expr(other)
        if e is None or value is NotImplemented or by_constant:
            return value
        return SymInt(value, (name, e, self.expr))
    return forward, reverse


class SymInt(int):
    """An int carrying the expression it was computed by (see the module docstring). Copies and
    pickles are plain ints (a graph's attributes are hashed and cached by value)."""

    def __new__(cls, value, expr):
        self = super().__new__(cls, value)
        self.expr = expr
        return self

    def __reduce__(self):
        return (int, (int(self),))

    def __copy__(self):
        return int(self)

    def __deepcopy__(self, memo):
        return int(self)

    __add__, __radd__ = _arith("add", operator.add)
    __sub__, __rsub__ = _arith("sub", operator.sub)
    __mul__, __rmul__ = _arith("mul", operator.mul)
    __floordiv__, __rfloordiv__ = _arith("floordiv", operator.floordiv, by_constant=True)
    __mod__, __rmod__ = _arith("mod", operator.mod, by_constant=True)

    def __neg__(self):
        return SymInt(-int(self), ("neg", self.expr))

    def __pos__(self):
        return self

    def __index__(self):
        return int(self)
