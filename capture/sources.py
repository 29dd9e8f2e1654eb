"""Sources: where a value the traced code reads comes from -- one description, with three uses.

A :class:`Source` names a value outside the frame: a call argument (:class:`Arg`), an object the
compiled entry holds (:class:`Object`: a Parameter, a Cell, a module's globals dict, a closure
cell), an attribute or item of another source (:class:`Attr`, :class:`Item`), and, for guards,
``type()``/``len()`` of one (:class:`TypeOf`, :class:`Len`), a held function called on one
(:class:`Call`), a literal (:class:`Lit`) or a read written as Python text (:class:`Text`).
Every source can

- ``read(args)``: give its value for a call (``args``: the call's flat arguments);
- ``expr()``: write itself as Python over ``args`` and the guard set's names (``o3``): shown in
  messages, and evaluated by the Python guard check where the C helper is missing;
- ``recipe(rec)``: give the recipe (``capture.reconstruct``) that reads it again after the graph
  ran (a list the frame mutated or returned, rebuilt as that same object), where it has one.

A guard (``capture.guards.Guard``) is built from the source it reads; the C guard program is
compiled from the sources' fields (``capture/guard_program.py``), never from their text.

Example:
    >>> src = Item(Arg(0), "k")
    >>> src.read(({"k": 3},)), src.expr(), src.path
    (3, "args[0]['k']", (0, 'k'))
"""
from __future__ import annotations

import re


class Source:
    """Where a value lives (see the module docstring). ``path``: the argument path of a source
    that is a call argument or an item inside one (``(0, 'k')`` for ``args[0]['k']``), else None."""

    __slots__ = ()

    #: the argument path, for sources read from the call's arguments alone
    path = None

    def read(self, args):
        """The value for a call with flat arguments ``args``."""
        raise NotImplementedError(f"{type(self).__name__} has no direct read")

    def expr(self, weak=()) -> str:
        """This read as Python text over ``args`` and the guard set's names; ``weak``: the names
        held weakly (``capture.guards.GuardSet.weak``), read by calling them (``o3()``)."""
        raise NotImplementedError

    def recipe(self, rec) -> tuple:
        """The recipe (``capture.reconstruct``) reading this value again for a call."""
        raise NotImplementedError(f"{type(self).__name__} has no reconstruction recipe")

    def __str__(self):
        return self.expr()

    def __repr__(self):
        return f"<{type(self).__name__} {self.expr()}>"


def arg_source(path: tuple) -> Source:
    """The source of the argument at ``path`` (flat argument index, then items inside it).

    Example:
        >>> arg_source((1, 0)).expr()
        'args[1][0]'
    """
    src = Arg(path[0])
    for key in path[1:]:
        src = Item(src, key)
    return src


class Arg(Source):
    """``args[index]``: a call argument."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    @property
    def path(self):
        return (self.index,)

    def read(self, args):
        return args[self.index]

    def expr(self, weak=()):
        return f"args[{self.index}]"

    def recipe(self, rec):
        return ("src", self)


class Object(Source):
    """An object the entry holds. Named (``o3``: a guard set's name for it, see
    :meth:`capture.guards.GuardSet.obj`) when guards read it; unnamed when it is a graph input the
    trace captured (a Parameter, a tensor held by a Cell). Once held weakly (:meth:`hold_weakly`,
    a weak reference ``ref``), the object is read through that reference: the guards passing
    prove it alive. ``called``: the guards read it by calling its name from the start (a Cell
    argument's weak reference, :meth:`capture.guards.GuardSet.arg_identity`)."""

    __slots__ = ("_obj", "ref", "name", "called")

    def __init__(self, obj, name: str | None = None):
        self._obj, self.name = obj, name
        self.ref = None  # a weak reference (capture.guards.Held), once held weakly
        self.called = False

    @classmethod
    def through(cls, ref, name: str) -> "Object":
        """The object ``ref`` (a weak reference) refers to, read as ``name()``."""
        src = cls(None, name)
        src.ref, src.called = ref, True
        return src

    @property
    def obj(self):
        return self._obj if self.ref is None else self.ref()

    def hold_weakly(self, ref) -> None:
        """Read the object through ``ref`` (a weak reference to it) from now on."""
        self.ref, self._obj = ref, None

    def read(self, args):
        return self.obj

    def expr(self, weak=()):
        if self.name is None:  # (a graph input's object: shown by its name)
            return getattr(self.obj, "name", None) or type(self.obj).__name__
        return self.name + "()" if self.called or self.name in weak else self.name

    def recipe(self, rec):
        return ("obj", self.obj)


class Lit(Source):
    """A literal value (an int, None, True...), written as its ``repr``."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def read(self, args):
        return self.value

    def expr(self, weak=()):
        return repr(self.value)

    def recipe(self, rec):
        return ("val", self.value)


class Attr(Source):
    """``base.name``."""

    __slots__ = ("base", "name")

    def __init__(self, base: Source, name: str):
        self.base, self.name = base, name

    def read(self, args):
        return getattr(self.base.read(args), self.name)

    def expr(self, weak=()):
        return f"{self.base.expr(weak)}.{self.name}"

    def recipe(self, rec):
        # (a held owner is read from the call when it is one of its arguments)
        owner = rec.object_recipe(self.base.obj) if type(self.base) is Object else self.base.recipe(rec)
        return ("getattr", owner, self.name)


class Item(Source):
    """``base[key]`` of a container found at source ``base``."""

    __slots__ = ("base", "key")

    def __init__(self, base: Source, key):
        self.base, self.key = base, key

    @property
    def path(self):
        base = self.base.path
        return None if base is None else base + (self.key,)

    def read(self, args):
        return self.base.read(args)[self.key]

    def expr(self, weak=()):
        return f"{self.base.expr(weak)}[{self.key!r}]"

    def recipe(self, rec):
        if self.path is not None:  # (an item of an argument: read from the call)
            return ("src", self)
        return ("item", self.base.recipe(rec), self.key)


class TypeOf(Source):
    """``type(base)``."""

    __slots__ = ("base",)
    builtin = "type"

    def __init__(self, base: Source):
        self.base = base

    def read(self, args):
        return type(self.base.read(args))

    def expr(self, weak=()):
        return f"{self.builtin}({self.base.expr(weak)})"


class Len(TypeOf):
    """``len(base)``."""

    __slots__ = ()
    builtin = "len"

    def read(self, args):
        return len(self.base.read(args))


class Call(Source):
    """``fn(arg)``: a function the entry holds, called with one argument."""

    __slots__ = ("fn", "arg")

    def __init__(self, fn: Source, arg: Source):
        self.fn, self.arg = fn, arg

    def read(self, args):
        return self.fn.read(args)(self.arg.read(args))

    def expr(self, weak=()):
        return f"{self.fn.expr(weak)}({self.arg.expr(weak)})"


class Text(Source):
    """A read or a whole guard written as Python text (``"args[0]"``, ``f"bool({o}) is True"``):
    evaluated with its guard set's names (the C program does not parse it; the residual Python
    function runs its guard)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def expr(self, weak=()):
        return call_names(self.text, weak) if weak else self.text


def as_source(expr) -> Source:
    """``expr`` itself when it is a :class:`Source`, else Python text as a :class:`Text`."""
    return expr if isinstance(expr, Source) else Text(expr)


#: a string literal (left alone) or a name, with the dot before it when it is an attribute
_NAME_OR_STRING = re.compile(r"""('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|(\.\s*)?\b([A-Za-z_]\w*)""")


def call_names(expr: str, names) -> str:
    """``expr`` with each variable named in ``names`` called (``o8`` -> ``o8()``); attribute
    names and strings are left alone. (A regular expression, not ``tokenize``: this runs on every
    free-form guard of every compiled entry, and tokenizing them was a third of a warm MLP step's
    guard time. The guard texts are ours: one line, strings only as ``repr`` writes them.)

    Example:
        >>> call_names("o1 is args[0].o1 and o12.w == 'o1' and o1.x", {"o1": 0, "o12": 0})
        "o1() is args[0].o1 and o12().w == 'o1' and o1().x"
    """
    def call(m):
        if m.group(1) is None and m.group(2) is None and m.group(3) in names:
            return m.group(3) + "()"
        return m.group(0)
    return _NAME_OR_STRING.sub(call, expr)
