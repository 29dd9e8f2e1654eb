"""Sizes that remember how they were computed, while a frame is being captured.

``SymInt`` is an ``int`` (it behaves as its value everywhere: shape inference, comparisons,
numpy) that also carries an *expression*: ``("dim", value, d)`` for dimension ``d`` of a graph
Value, ``("int", c)``, ``("float", c)``, ``("neg", a)``, ``("sqrt", a)`` or ``(op, a, b)`` with op
in ``add sub mul floordiv mod truediv pow``. Integer arithmetic with another SymInt or a plain int
keeps the expression (``//`` and ``%`` only by a positive int constant). ``SymFloat`` is the same
for the floats computed from sizes (``1 / n``, ``n ** 0.5``, ``d * 0.5``): ``/`` and ``**`` of
sizes, and ``+ - * / **`` with a float, give one. Any other operation gives a plain int or float.

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
    if isinstance(x, (SymInt, SymFloat)):
        return x.expr
    if type(x) is int:
        return ("int", x)
    if type(x) is float:
        return ("float", x)
    return None


def tagged(value, expr):
    """``value`` carrying ``expr``: a SymInt for an int, a SymFloat for a float; any other value
    (a complex power, NotImplemented) as it is."""
    if type(value) is int:
        return SymInt(value, expr)
    if type(value) is float:
        return SymFloat(value, expr)
    return value


def _plain(x):
    return x._plain() if isinstance(x, (SymInt, SymFloat)) else x


def _arith(name, fn, by_constant=False):
    # (operands as plain numbers: ``6 * m`` must not call m's reflected method again)
    def forward(self, other):
        value = fn(self._plain(), _plain(other))
        e = _expr(other)
        if e is None or value is NotImplemented or (by_constant and not (e[0] == "int" and e[1] > 0)):
            return value
        return tagged(value, (name, self.expr, e))

    def reverse(self, other):
        value = fn(_plain(other), self._plain())
        e = _expr(other)
        if e is None or value is NotImplemented or by_constant:
            return value
        return tagged(value, (name, e, self.expr))
    return forward, reverse


class _Expression:
    """What SymInt and SymFloat share: a number of the plain type :attr:`PLAIN` carrying the
    expression it was computed by; copies and pickles are plain numbers (a graph's attributes
    are hashed and cached by value)."""

    PLAIN: type = object

    def __new__(cls, value, expr):
        self = super().__new__(cls, value)
        self.expr = expr
        return self

    def _plain(self):
        return self.PLAIN(self)

    def __reduce__(self):
        return (self.PLAIN, (self.PLAIN(self),))

    def __copy__(self):
        return self.PLAIN(self)

    def __deepcopy__(self, memo):
        return self.PLAIN(self)

    __add__, __radd__ = _arith("add", operator.add)
    __sub__, __rsub__ = _arith("sub", operator.sub)
    __mul__, __rmul__ = _arith("mul", operator.mul)
    __truediv__, __rtruediv__ = _arith("truediv", operator.truediv)
    __pow__, __rpow__ = _arith("pow", operator.pow)

    def __neg__(self):
        return type(self)(-self.PLAIN(self), ("neg", self.expr))

    def __pos__(self):
        return self


class SymInt(_Expression, int):
    """An int carrying the expression it was computed by (see the module docstring)."""

    PLAIN = int
    __floordiv__, __rfloordiv__ = _arith("floordiv", operator.floordiv, by_constant=True)
    __mod__, __rmod__ = _arith("mod", operator.mod, by_constant=True)

    def __index__(self):
        return int(self)


class SymFloat(_Expression, float):
    """A float computed from sizes, carrying its expression (see the module docstring)."""

    PLAIN = float


def sqrt(x):
    """``math.sqrt(x)``, keeping ``x``'s expression when it has one."""
    import math
    value = math.sqrt(x)
    return SymFloat(value, ("sqrt", x.expr)) if isinstance(x, (SymInt, SymFloat)) else value


def is_symbolic(x) -> bool:
    """A size or a number computed from sizes, carrying its expression."""
    return isinstance(x, (SymInt, SymFloat))


def holds_symbolic(value) -> bool:
    """``value`` is, or (in tuples, lists, dict values and slices) holds, a SymInt or SymFloat."""
    if isinstance(value, (SymInt, SymFloat)):
        return True
    if isinstance(value, (tuple, list)):
        return any(holds_symbolic(x) for x in value)
    if isinstance(value, dict):
        return any(holds_symbolic(x) for x in value.values())
    if isinstance(value, slice):
        return any(holds_symbolic(x) for x in (value.start, value.stop, value.step))
    return False


def keeps_symbolic_sizes(fn):
    """Mark a framework function that makes a tensor from sizes and numbers alone (``ops.ones``,
    ``ops.arange``): called while a frame is captured with sizes computed from traced shapes, it
    gets them symbolic and puts them into graph nodes (graph.ops.creation), rather than the
    sizes being read and the tensor becoming a constant of one size."""
    fn.keeps_symbolic_sizes = True
    return fn
