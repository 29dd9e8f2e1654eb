"""``collections.deque`` objects made by the traced code (TorchDynamo traces them too).

The model is a list of item Variables and ``maxlen``; each method does to it what CPython's
deque does (a bounded deque drops from the other end, ``insert`` into a full one raises
IndexError, indices must be integers). A deque that outlives the graph is built after it from
its items and ``maxlen``; one read from outside the frame is not modelled (its methods break).
"""
from __future__ import annotations

import collections

from ..errors import GraphBreak, MissingAttribute, UserException
from .base import ConstantVariable, Variable
from .containers import ItemsVariable


def _user_error(error):
    return UserException(error, f"{type(error).__name__} at trace time: {error}",
                         hint="the frame runs eagerly so Python raises the error")


class DequeVariable(ItemsVariable):
    """A deque the frame made: ``items`` (Variables, left to right) and ``maxlen``."""

    def __init__(self, items, maxlen=None):
        self.maxlen = maxlen
        self.items: list = []
        self._extend(items)

    @classmethod
    def made_by_call(cls, tx, args, kwargs):
        """``collections.deque(iterable=(), maxlen=None)`` called in the frame, with CPython's checks."""
        iterable = args[0] if args else kwargs.get("iterable")
        maxlen = args[1] if len(args) > 1 else kwargs.get("maxlen")
        if maxlen is not None and not maxlen.is_const():
            raise GraphBreak("deque maxlen is a traced value")
        n = None if maxlen is None else maxlen.value
        if n is not None and not isinstance(n, int):
            raise _user_error(TypeError("an integer is required"))
        if n is not None and n < 0:
            raise _user_error(ValueError("maxlen must be non-negative"))
        items = [] if iterable is None or (iterable.is_const() and iterable.value is None) else iterable.iterate(tx)
        return cls(items, n)

    # -- the model ---------------------------------------------------------------------------------
    def _append(self, v):
        if self.maxlen == 0:
            return
        if self.maxlen is not None and len(self.items) == self.maxlen:
            del self.items[0]
        self.items.append(v)

    def _appendleft(self, v):
        if self.maxlen == 0:
            return
        if self.maxlen is not None and len(self.items) == self.maxlen:
            del self.items[-1]
        self.items.insert(0, v)

    def _extend(self, values):
        for v in list(values):
            self._append(v)

    def _index(self, key):
        if not key.is_const():
            raise GraphBreak("indexing a deque with a traced value")
        k = key.value
        if not isinstance(k, int):
            raise _user_error(TypeError(f"sequence index must be integer, not '{type(k).__name__}'"))
        if not -len(self.items) <= k < len(self.items):
            raise _user_error(IndexError("deque index out of range"))
        return k

    # -- as a Python value ---------------------------------------------------------------------------
    def python_type(self):
        return collections.deque

    def describe(self):
        return "deque"

    def reconstruct(self, rec):
        return ("call", ("val", collections.deque), [("list", [rec.of(v) for v in self.items], None, rec.memo_key())],
                {"maxlen": ("val", self.maxlen)}, rec.memo_key())

    def getitem(self, tx, key):
        return self.items[self._index(key)]

    def setitem(self, tx, key, value):
        self.items[self._index(key)] = value

    def getattr(self, tx, name):
        if name == "maxlen":
            return ConstantVariable(self.maxlen)
        if name in _METHODS:
            return DequeMethodVariable(self, name)
        if not hasattr(collections.deque, name):
            raise MissingAttribute(f"'collections.deque' object has no attribute {name!r}")
        raise GraphBreak(f"deque.{name} is not supported in graph mode")


_METHODS = ("append", "appendleft", "extend", "extendleft", "pop", "popleft", "insert", "clear", "copy",
            "rotate", "reverse", "count", "index", "remove")


class DequeMethodVariable(Variable):
    """A bound method of a :class:`DequeVariable`."""

    def __init__(self, dq, name):
        self.dq, self.name = dq, name

    def describe(self):
        return f"deque.{self.name}"

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.dq), self.name)

    def call(self, tx, args, kwargs):
        if kwargs:
            raise GraphBreak(f"deque.{self.name} with keyword arguments")
        dq, name, items = self.dq, self.name, self.dq.items
        if name == "append":
            dq._append(args[0])
        elif name == "appendleft":
            dq._appendleft(args[0])
        elif name == "extend":
            dq._extend(args[0].iterate(tx))
        elif name == "extendleft":
            for v in args[0].iterate(tx):
                dq._appendleft(v)
        elif name in ("pop", "popleft"):
            if not items:
                raise _user_error(IndexError(f"{name} from an empty deque"))
            return items.pop() if name == "pop" else items.pop(0)
        elif name == "insert":
            if not args[0].is_const() or not isinstance(args[0].value, int):
                raise GraphBreak("deque.insert at a traced or non-integer index")
            if dq.maxlen is not None and len(items) == dq.maxlen:
                raise _user_error(IndexError("deque already at its maximum size"))
            items.insert(args[0].value, args[1])
        elif name == "clear":
            items.clear()
        elif name == "copy":
            return DequeVariable(items, dq.maxlen)
        elif name == "rotate":
            n = args[0].value if args else 1
            if args and (not args[0].is_const() or not isinstance(n, int)):
                raise GraphBreak("deque.rotate by a traced or non-integer amount")
            if items:
                n %= len(items)
                items[:] = items[-n:] + items[:-n] if n else items
        elif name == "reverse":
            items.reverse()
        elif name in ("count", "index", "remove"):
            if not args or not all(v.is_const() for v in [args[0], *items]):
                raise GraphBreak(f"deque.{name} compares with ==, which needs run-time data for tensors")
            values = collections.deque(v.value for v in items)
            try:
                out = getattr(values, name)(*[a.value for a in args])
            except (ValueError, TypeError) as e:
                raise _user_error(e) from None
            if name == "remove":
                del items[[v.value for v in items].index(args[0].value)]
                return ConstantVariable(None)
            return ConstantVariable(out)
        return ConstantVariable(None)
