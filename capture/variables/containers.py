"""Tuples, lists, dicts, sets, slices and iterators built or read while tracing.

A container the frame builds is a new Python object after the graph (of its exact type:
namedtuples, tuple subclasses, OrderedDict). A list or dict read from outside the frame is that
object: its ``source`` says where it lives, mutations of it are side effects replayed on it
(``capture.side_effects``), and handing it back reads it again from there (``reconstruct``).
"""
from __future__ import annotations

import builtins
import collections
import types

from ..errors import GraphBreak, MissingAttribute
from .base import ConstantVariable, NotResumable, Variable, class_attribute


def rebuild_tuple(cls, items):
    """An instance of the tuple type ``cls`` (tuple, a namedtuple, another tuple subclass) holding
    ``items``: what the traced code built, with its exact type."""
    if cls is None or cls is tuple:
        return tuple(items)
    return tuple.__new__(cls, items)  # a namedtuple's __new__ takes fields, not an iterable


def rebuild_dict(cls, items: dict):
    """``items`` as an instance of the dict type ``cls`` (dict or OrderedDict)."""
    return items if cls is None or cls is dict else cls(items)


#: dict types whose instances behave like a plain dict while tracing (no missing-key hook)
PLAIN_DICT_TYPES = (dict, collections.OrderedDict)


def plain_tuple(value) -> bool:
    """A tuple modelled item by item: a tuple, namedtuple or tuple-subclass instance without
    per-instance attributes (fully described by its type and its items)."""
    return type(value) is tuple or not getattr(value, "__dict__", None)


def check_mutable(tx, var, what):
    """``var`` is about to be changed in place. A list/dict that exists outside the captured frame
    (an attribute, a global, an argument) is a side effect: recorded, and written back into the
    real object after the graph runs (``capture.side_effects``)."""
    if getattr(var, "external", False):
        tx.tracer.side_effects.mutate_container(var, what)


class ItemsVariable(Variable):
    """A sequence modelled as a Python list of item Variables (``items``), left to right."""

    items: list

    def iterate(self, tx):
        return list(self.items)

    def length(self, tx):
        return len(self.items)

    def truth(self, tx):
        return bool(self.items)


class TupleVariable(ItemsVariable):
    """A tuple (``cls``: its exact type when a namedtuple or another tuple subclass); the base of
    :class:`ListVariable`. ``external``: a list from outside the frame (see ``source``)."""

    kind = tuple
    #: the Python tuple this Variable was made from, when it was read from an existing object
    #: (``a is b`` between two reads of one tuple); None for a tuple the frame builds
    origin = None

    def __init__(self, items, external=False, cls=None):
        self.items = list(items)
        self.external = external  # wraps a Python list/dict the frame did not create
        self.cls = None if cls is self.kind else cls  # a tuple subclass (namedtuple...), else None

    def python_type(self):
        return self.cls or self.kind

    def is_const(self):
        return all(i.is_const() for i in self.items)

    def _make(self, values):
        return rebuild_tuple(self.cls, values) if self.kind is tuple else self.kind(values)

    @property
    def value(self):
        return self._make([i.value for i in self.items])

    def realize(self, tx):
        return self._make([i.realize(tx) for i in self.items])

    def reconstruct(self, rec):
        """A list from outside the frame, or a tuple the call received: that very object, read
        again through its source for each call (the caller's own object, never a copy). Else a
        new container of the exact type. A tuple read from elsewhere (an attribute, a global...)
        is rebuilt from its items: it cannot have changed, and its items' recipes do not depend
        on the container it was found in, which replayed side effects may rewrite first."""
        src = self.source
        if src is not None and (self.kind is not tuple or src.path is not None):
            return rec.source(src)
        if self.external and self.kind is list:
            raise NotResumable(f"a {self.describe()} read from outside the frame, with no known source")
        rebuilt = (self.kind.__name__, [rec.of(v) for v in self.items], self.cls, rec.memo_key())
        if self.kind is tuple and self.origin is not None and src is not None:
            # identity: the tuple still found at its source, when it holds these very items
            try:
                found = rec.source(src)
            except NotImplementedError:  # a source with no recipe
                return rebuilt
            return ("same_tuple", found, rebuilt, rec.memo_key())
        return rebuilt

    def getitem(self, tx, key):
        if not key.is_const():
            raise GraphBreak("indexing a tuple/list with a traced value")
        k = key.value
        if isinstance(k, slice):  # slicing a namedtuple gives a plain tuple, as in Python
            return type(self)(self.items[k])
        try:
            return self.items[k]
        except (IndexError, TypeError) as e:
            from ..errors import UserException
            raise UserException(e, f"indexing failed at trace time: {e}") from None

    def getattr(self, tx, name):
        if self.kind is list and name in ("append", "extend", "pop", "insert", "reverse", "clear", "remove"):
            return ListMethodVariable(self, name)
        if self.cls is not None:
            return self._subclass_attr(tx, name)
        if name in ("index", "count") and self.is_const():
            return tx.wrap(getattr(self.value, name))
        if not hasattr(self.kind, name):
            raise MissingAttribute(f"'{self.kind.__name__}' object has no attribute {name!r}")
        raise GraphBreak(f"{self.kind.__name__}.{name} is not supported in graph mode")

    def _subclass_attr(self, tx, name):
        """Fields, ``_asdict``/``_replace`` and the class's own methods and properties of a
        namedtuple or tuple subclass."""
        cls = self.cls
        fields = getattr(cls, "_fields", None)
        if fields is not None and name in fields:
            return self.items[fields.index(name)]
        if fields is not None and name in ("_asdict", "_replace"):
            return NamedTupleMethodVariable(self, name)
        static = class_attribute(cls, name, _MISSING)
        if static is _MISSING:
            raise MissingAttribute(f"'{cls.__name__}' object has no attribute {name!r}")
        from .functions import UserFunctionVariable
        if isinstance(static, types.FunctionType):
            return UserFunctionVariable(static, self)
        if isinstance(static, property) and isinstance(static.fget, types.FunctionType):
            return UserFunctionVariable(static.fget).call(tx, [self], {})
        if name in ("index", "count") and self.is_const():
            return tx.wrap(getattr(self.value, name))
        if isinstance(static, (staticmethod, classmethod)) or not callable(static):
            return tx.wrap_attr(cls, name, getattr(cls, name))
        raise GraphBreak(f"{cls.__name__}.{name} is not supported in graph mode")

    def describe(self):
        return self.python_type().__name__


_MISSING = object()


class NamedTupleMethodVariable(Variable):
    """``nt._asdict()`` and ``nt._replace(field=value, ...)`` of a traced namedtuple."""

    def __init__(self, nt, name):
        self.nt, self.name = nt, name

    def call(self, tx, args, kwargs):
        fields = self.nt.cls._fields
        if self.name == "_asdict":
            if args or kwargs:
                raise GraphBreak("_asdict() takes no arguments")
            return DictVariable(dict(zip(fields, self.nt.items)))
        if args:
            raise GraphBreak("_replace() takes keyword arguments only")
        unknown = [k for k in kwargs if k not in fields]
        if unknown:
            raise GraphBreak(f"_replace() got unexpected field names {unknown}")  # eager raises ValueError
        return TupleVariable([kwargs.get(f, v) for f, v in zip(fields, self.nt.items)], cls=self.nt.cls)


class ListVariable(TupleVariable):
    kind = list


class OutsideListVariable(ListVariable):
    """A list from outside the frame (an attribute, a global, a closure variable) whose items are
    read, and guarded, only when the traced code looks at them. Code that only appends to it (a
    loss history) does not depend on its length, so the compiled entry stays valid as it grows;
    the appends are replayed on the real list after the graph."""

    def __init__(self, read_items, source):
        self._read_items = read_items  # () -> [Variable] (records the length and item guards)
        self._items = None
        self.appended: list = []  # appends made before the items were read
        self.external = True
        self.cls = None
        self.source = source

    @property
    def realized(self) -> bool:
        return self._items is not None

    @property
    def items(self):
        if self._items is None:
            self._items = list(self._read_items()) + self.appended
            self.appended = []
        return self._items

    @items.setter
    def items(self, value):
        self._items = value

    def describe(self):
        return "list"


class ListMethodVariable(Variable):
    """Mutating methods of a list (``lst.append``...): they change the list's model; on a list
    from outside the frame, the change is a side effect (``check_mutable``)."""

    def __init__(self, lst, name):
        self.lst, self.name = lst, name

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.lst), self.name)

    def call(self, tx, args, kwargs):
        if kwargs:
            raise GraphBreak(f"list.{self.name} with keyword arguments")
        check_mutable(tx, self.lst, f"list.{self.name}()")
        if isinstance(self.lst, OutsideListVariable) and not self.lst.realized and self.name in ("append", "extend"):
            # appending does not depend on what the list holds: keep its items unread (unguarded)
            new = [args[0]] if self.name == "append" else args[0].iterate(tx)
            self.lst.appended.extend(new)
            return ConstantVariable(None)
        items = self.lst.items
        if self.name == "append":
            items.append(args[0])
        elif self.name == "extend" and isinstance(args[0], IteratorVariable):
            # one item at a time, as CPython extends from an iterator: a generator reading the
            # list sees the items already appended
            while (v := args[0].next(tx)) is not None:
                items.append(v)
        elif self.name == "extend":
            items.extend(args[0].iterate(tx))
        elif self.name == "insert":
            items.insert(args[0].value, args[1])
        elif self.name == "reverse":
            items.reverse()
        elif self.name == "clear":
            items.clear()
        elif self.name == "remove":
            if not args[0].is_const() or not all(i.is_const() for i in items):
                raise GraphBreak("list.remove compares with ==, which needs run-time data for tensors")
            values = [i.value for i in items]
            if args[0].value not in values:
                raise GraphBreak("list.remove(x): x not in list (ValueError at run time)")
            del items[values.index(args[0].value)]
        elif self.name == "pop":
            return items.pop(args[0].value if args else -1)
        return ConstantVariable(None)


class DictVariable(Variable):
    """A dict of constant keys (``cls``: OrderedDict, else None). ``external``: a dict from
    outside the frame (see ``source``)."""

    def __init__(self, items: dict, external=False, cls=None):
        self.items = dict(items)  # const key -> Variable
        self.external = external
        self.cls = None if cls is dict else cls  # OrderedDict, else None

    def python_type(self):
        return self.cls or dict

    def is_const(self):
        return all(v.is_const() for v in self.items.values())

    @property
    def value(self):
        return rebuild_dict(self.cls, {k: v.value for k, v in self.items.items()})

    def realize(self, tx):
        return rebuild_dict(self.cls, {k: v.realize(tx) for k, v in self.items.items()})

    def reconstruct(self, rec):
        """A dict from outside the frame: that very object, read again through its source. A
        dict the frame built: a new dict (OrderedDict) of the items."""
        if self.source is not None:
            return rec.source(self.source)
        if self.external:
            raise NotResumable(f"a {self.describe()} read from outside the frame, with no known source")
        return ("dict", {k: rec.of(v) for k, v in self.items.items()}, self.cls, rec.memo_key())

    def getitem(self, tx, key):
        if not has_dict_key(key):
            raise GraphBreak("indexing a dict with a traced value")
        k = dict_key(key)
        try:
            return self.items[k]
        except KeyError as e:
            from ..errors import UserException
            raise UserException(e, f"KeyError {k!r} at trace time") from None
        except TypeError as e:  # an unhashable key
            from ..errors import UserException
            raise UserException(e, f"indexing a dict raised TypeError at trace time: {e}") from None

    def length(self, tx):
        return len(self.items)

    def truth(self, tx):
        return bool(self.items)

    def iterate(self, tx):
        return [key_variable(tx, k) for k in self.items]

    def getattr(self, tx, name):
        if name in ("keys", "values", "items", "get", "update", "pop", "setdefault"):
            return DictMethodVariable(self, name)
        if name == "has_key" and self.python_type() is dict and _in_static_graph_syntax():
            # MindSpore's static-graph syntax lists ``dict.has_key(key)`` (``key in d``); Python's
            # dict has no such method, so outside jit/GRAPH_MODE the AttributeError below stands
            return DictMethodVariable(self, name)
        if not hasattr(self.python_type(), name):
            raise MissingAttribute(f"'{self.python_type().__name__}' object has no attribute {name!r}")
        raise GraphBreak(f"{self.python_type().__name__}.{name} is not supported in graph mode")


class DefaultDictVariable(DictVariable):
    """A ``collections.defaultdict`` the frame made: a missing key read with ``d[key]`` calls
    ``factory`` (a Variable; None: KeyError, as Python), stores and returns its result."""

    def __init__(self, items: dict, factory):
        super().__init__(items)
        self.cls = collections.defaultdict
        self.factory = factory

    def _factory_value(self, how):
        if self.factory is None:
            return None
        return how(self.factory)

    @property
    def value(self):
        return collections.defaultdict(self._factory_value(lambda f: f.value),
                                       {k: v.value for k, v in self.items.items()})

    def is_const(self):
        return False  # (its factory runs on reads: never folded into a constant)

    def realize(self, tx):
        raise GraphBreak("passing a defaultdict made in the frame to framework code")

    def reconstruct(self, rec):
        factory = ("val", None) if self.factory is None else rec.of(self.factory)
        return ("call", ("val", collections.defaultdict),
                [factory, ("dict", {k: rec.of(v) for k, v in self.items.items()}, None, rec.memo_key())], {},
                rec.memo_key())

    def getitem(self, tx, key):
        if has_dict_key(key) and dict_key(key) not in self.items and self.factory is not None:
            value = tx.call_variable(self.factory, [], {})
            self.items[dict_key(key)] = value
            return value
        return super().getitem(tx, key)

    def getattr(self, tx, name):
        if name == "default_factory":
            return ConstantVariable(None) if self.factory is None else self.factory
        return super().getattr(tx, name)

    def describe(self):
        return "defaultdict"


class DictMethodVariable(Variable):
    """Methods of a dict (``d.get``, ``d.update``...); mutating ones on a dict from outside the
    frame are side effects (``check_mutable``)."""

    def __init__(self, d, name):
        self.d, self.name = d, name

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.d), self.name)

    def call(self, tx, args, kwargs):
        items = self.d.items
        if self.name in ("keys", "values", "items"):
            if args or kwargs:
                raise GraphBreak(f"dict.{self.name}() takes no arguments (TypeError at run time)")
            from .dict_views import DictViewVariable
            return DictViewVariable(self.d, self.name)
        if self.name == "get":
            key = _const_key(args[0])
            return items.get(key, args[1] if len(args) > 1 else ConstantVariable(None))
        if self.name == "has_key":
            if len(args) != 1 or kwargs:
                raise GraphBreak(f"dict.has_key takes exactly one argument ({len(args)} given)")
            return ConstantVariable(_const_key(args[0]) in items)
        check_mutable(tx, self.d, f"dict.{self.name}()")
        if self.name == "update":
            if len(args) > 1:
                raise GraphBreak(f"dict.update expected at most 1 argument, got {len(args)} (TypeError at run time)",
                                 hint="the frame runs eagerly so Python raises the error")
            new = {}
            for a in args:
                new.update(dict_items_of(tx, a))
            new.update(kwargs)
            items.update(new)
            return ConstantVariable(None)
        if self.name == "pop":
            key = _const_key(args[0])
            if key in items:
                return items.pop(key)
            if len(args) > 1:
                return args[1]
            raise GraphBreak(f"KeyError {key!r} at trace time")
        if self.name == "setdefault":
            key = _const_key(args[0])
            return items.setdefault(key, args[1] if len(args) > 1 else ConstantVariable(None))
        raise GraphBreak(f"dict.{self.name}")


def _in_static_graph_syntax() -> bool:
    from runtime.context import in_static_graph_syntax
    return in_static_graph_syntax()


def dict_items_of(tx, var) -> dict:
    """The items ``dict(var)`` / ``d.update(var)`` take from ``var``: a dict's, or the pairs of
    an iterable; anything Python would reject (or that needs run-time data) breaks."""
    if isinstance(var, DictVariable):
        return dict(var.items)
    from .object_dicts import ObjectDictVariable
    if isinstance(var, ObjectDictVariable):
        return var.snapshot(tx)
    if var.is_const() and isinstance(var.value, dict):
        return {k: tx.wrap(v) for k, v in var.value.items()}
    out = {}
    for pair in var.iterate(tx):
        kv = pair.iterate(tx) if isinstance(pair, TupleVariable) or pair.is_const() else None
        if kv is None or len(kv) != 2:
            raise GraphBreak("dict update sequence element is not a pair (TypeError/ValueError at run time)")
        out[_const_key(kv[0])] = kv[1]
    return out


def key_variable(tx, k):
    """The Variable for key ``k`` of a modelled dict (see :func:`dict_key`)."""
    return ConstantVariable(k) if type(k) in _SCALAR_KEYS or tx is None else tx.wrap(k)


_SCALAR_KEYS = (int, str, float, bool, type(None), bytes, tuple, frozenset, complex)


def has_dict_key(var) -> bool:
    """Whether ``var`` can be a key of a modelled dict (see :func:`dict_key`)."""
    if var.is_const():
        return True
    from .functions import PartialVariable
    return isinstance(var, PartialVariable) and var.obj is not None


def dict_key(var):
    """The Python key ``var`` stands for in a modelled dict: a Python constant, or an object from
    outside the frame hashed by identity (a ``functools.partial``). Others break."""
    if var.is_const():
        return var.value
    if has_dict_key(var):
        return var.python_value()
    raise GraphBreak(f"dict with a {var.describe()} as a key")


_const_key = dict_key


class SliceVariable(Variable):
    def __init__(self, start, stop, step):
        self.parts = (start, stop, step)

    def is_const(self):
        return all(p.is_const() for p in self.parts)

    @property
    def value(self):
        return slice(*(p.value for p in self.parts))

    def realize(self, tx):
        return slice(*(p.realize(tx) for p in self.parts))

    def reconstruct(self, rec):
        return ("slice", [rec.of(p) for p in self.parts])


class IteratorVariable(Variable):
    """An iterator over items known at trace time (loops are unrolled)."""

    def __init__(self, items, python_type=None):
        self.items = list(items)
        self.pos = 0
        self._type = python_type  # the iterator type Python would have made (zip, map, ...)

    def python_type(self):
        return self._type or type(iter(()))

    def iterate(self, tx):
        rest = self.items[self.pos:]
        self.pos = len(self.items)
        return rest

    def describe(self):
        return "iterator"

    lazy = False  # items all known now (rebuilt as a fresh iterator at a graph break)

    def reconstruct(self, rec):
        """A new iterator over the items not consumed yet."""
        if self.lazy:
            raise NotResumable(f"a {self.describe()} over another iterator is live at the break")
        return ("iter", [rec.of(v) for v in self.items[self.pos:]], rec.memo_key())

    def next(self, tx):
        if self.pos >= len(self.items):
            return None
        v = self.items[self.pos]
        self.pos += 1
        return v


class ListIteratorVariable(IteratorVariable):
    """``iter(lst)`` of a list: it indexes the list as it goes, as CPython's list iterator does,
    so items appended meanwhile are reached (a generator expression over a list the frame keeps
    extending sees the new items)."""

    def __init__(self, lst):
        self.lst = lst
        self.pos = 0
        self._type = type(iter([]))

    @property
    def items(self):
        return self.lst.items


class LazyIteratorVariable(IteratorVariable):
    """``zip``/``enumerate``/``map``/``filter`` over a stateful iterator: items are pulled one at
    a time when the frame asks for them, as Python does, so whatever a loop leaves unconsumed
    is still in the underlying iterator afterwards. ``pull(tx)`` gives the next item or None."""

    lazy = True  # cannot be rebuilt at a graph break without consuming its sources early

    def __init__(self, pull, what):
        super().__init__([], getattr(builtins, what))
        self.pull, self.what, self.done = pull, what, False

    def describe(self):
        return f"{self.what} iterator"

    def next(self, tx):
        if self.done:
            return None
        v = self.pull(tx)
        self.done = v is None
        return v

    def iterate(self, tx):
        rest = []
        while (v := self.next(tx)) is not None:
            rest.append(v)
        return rest


SKIP = object()


def iterator_pipeline(tx, sources, step, what):
    """The iterator ``what`` (zip, map, ...) over the iterables ``sources``: each item is
    ``step(tx, [one value from each source])`` (``SKIP`` drops it); it ends with the shortest
    source. Over lists, tuples, ranges and dicts the items are computed now; over a stateful
    iterator they are pulled lazily (see :class:`LazyIteratorVariable`)."""
    iters = [s if isinstance(s, IteratorVariable) else IteratorVariable(s.iterate(tx)) for s in sources]

    def pull(tx):
        while True:
            values = []
            for it in iters:
                v = it.next(tx)
                if v is None:
                    return None
                values.append(v)
            out = step(tx, values)
            if out is not SKIP:
                return out

    if any(isinstance(s, IteratorVariable) for s in sources):
        return LazyIteratorVariable(pull, what)
    items = []
    while (v := pull(tx)) is not None:
        items.append(v)
    return IteratorVariable(items, getattr(builtins, what))


class SetVariable(ConstantVariable):
    """A set built by the traced code (BUILD_SET / set comprehension) of Python constants. Only
    the frame holds it, so its methods run on the real set at trace time."""

    def getattr(self, tx, name):
        try:
            method = getattr(self.value, name)
        except AttributeError as e:
            raise MissingAttribute(str(e)) from None
        return SetMethodVariable(self, method)


class SetMethodVariable(Variable):
    def __init__(self, target, method):
        self.target, self.method = target, method

    def call(self, tx, args, kwargs):
        values = []
        for a in list(args) + list(kwargs.values()):
            items = a.iterate(tx) if isinstance(a, (TupleVariable, IteratorVariable)) else None
            if items is not None:
                if not all(i.is_const() for i in items):
                    raise GraphBreak("a set of traced values (tensors) inside a captured region")
                values.append([i.value for i in items])
            elif a.is_const():
                values.append(a.value)
            else:
                raise GraphBreak(f"set.{self.method.__name__} with a {a.describe()}")
        try:
            out = self.method(*values[:len(args)], **dict(zip(kwargs, values[len(args):])))
        except Exception as e:
            raise GraphBreak(f"set.{self.method.__name__} raises {type(e).__name__} at trace time: {e}",
                             hint="the frame runs eagerly so Python raises the error")
        return SetVariable(out) if isinstance(out, set) else tx.wrap(out, fresh=True)
