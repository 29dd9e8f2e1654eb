"""Variables: the translator's symbolic stand-ins for Python values (the base class, constants).

Every value on the translator's stack, in its locals or inside another Variable is a
:class:`Variable`, made by the variable builder (``capture.variable_builder``) or by the
translator and the variables themselves as the traced code computes. Each one knows

- its ``source`` (``capture.sources``): where the value was read from outside the frame (a call
  argument, an attribute, a global, an item of such a container, a closure cell); None for
  values the frame computed. The builder sets it; mutations of an outside list/dict are replayed
  on the object its source names, and returning one gives that very object back;
- :meth:`Variable.python_value`: the real Python object, when one exists while tracing
  (constants, classes, functions, objects from outside the frame);
- :meth:`Variable.reconstruct`: its *recipe*, how to rebuild it as a Python object after the
  graph ran (the frame's result, the live values at a graph break). ``capture.reconstruct``
  collects the recipes (memoised, with the graph outputs they read) and evaluates them per call.

Subclasses live one module per kind of value (``containers``, ``functions``, ``objects``,
``tensor``); each overrides what it supports, and everything else breaks the graph.
"""
from __future__ import annotations

import inspect
import operator

from ..errors import GraphBreak, MissingAttribute

_TYPE_MRO = type.__mro__  # (type, object): where a class's own attributes end, its metaclass's


def class_attribute(cls, name: str, default):
    """``inspect.getattr_static(cls, name, default)``: what ``cls.name`` finds without running a
    descriptor or ``__getattr__``. For a class whose metaclass is ``type`` (then every class of
    its MRO's is), by a walk of its MRO's dictionaries and then its metaclass's, the same walk
    getattr_static makes after checking each class for a metaclass that shadows ``__dict__``,
    which cannot happen here; that check made it ~10x slower, and capture asks per attribute.

    Example:
        >>> class A:
        ...     x = 1
        >>> class B(A):
        ...     pass
        >>> class_attribute(B, "x", None), class_attribute(B, "mro", None) is type.__dict__["mro"]
        (1, True)
    """
    if type(cls) is not type:
        return inspect.getattr_static(cls, name, default)
    for klass in cls.__mro__ + _TYPE_MRO:
        attrs = klass.__dict__
        if name in attrs:
            return attrs[name]
    return default


class NotResumable(Exception):
    """A value cannot be rebuilt as a Python object after the graph (its ``reconstruct`` fails):
    at a graph break the whole frame runs eagerly, for the frame's result the frame does."""


class NoPythonValue(GraphBreak):
    """``Variable.python_value()`` of a value with no Python object at trace time (a tensor's
    data, a container or object the frame builds): code that needs the object breaks."""


class Variable:
    """A value on the symbolic stack. Subclasses override what they support; the rest breaks."""

    #: where the value was read from (a ``capture.sources.Source``); None: computed by the frame
    source = None

    def python_value(self):
        """The real Python object this Variable stands for, when it exists while tracing.
        Raises :class:`NoPythonValue` otherwise."""
        raise NoPythonValue(f"a {self.describe()} has no Python value at trace time")

    def reconstruct(self, rec) -> tuple:
        """The recipe that rebuilds this value after the graph ran, evaluated per call by
        ``capture.reconstruct.build``. ``rec`` (``capture.reconstruct.Recipes``) gives the
        recipes of the Variables it holds (``rec.of``), graph outputs and memo keys. Raises
        :class:`NotResumable` when the value cannot be rebuilt."""
        raise NotResumable(f"a {self.describe()} is live at the break")

    def python_type(self):
        return object

    def is_const(self) -> bool:
        return False

    def realize(self, tx):
        """The object framework code sees when this value is passed to it (SymTensor, consts...)."""
        raise GraphBreak(f"cannot pass a {self.describe()} to framework code")

    def getattr(self, tx, name: str) -> "Variable":
        raise GraphBreak(f"attribute {name!r} of a {self.describe()} is not supported")

    def has_attribute(self, tx, name: str):
        """``hasattr(value, name)`` when it is known without reading the attribute, else None."""
        return None

    def setattr(self, tx, name: str, value: "Variable") -> None:
        raise GraphBreak(f"setting attribute {name!r} on a {self.describe()} is not supported",
                         hint="mutate Python objects outside construct, or accept the graph break")

    def call(self, tx, args, kwargs) -> "Variable":
        raise GraphBreak(f"calling a {self.describe()} is not supported")

    def iterate(self, tx) -> list["Variable"]:
        raise GraphBreak(f"iterating over a {self.describe()} is not supported")

    def truth(self, tx) -> bool:
        raise GraphBreak(f"the truth value of a {self.describe()} is not known at trace time")

    def getitem(self, tx, key: "Variable") -> "Variable":
        raise GraphBreak(f"indexing a {self.describe()} is not supported")

    def length(self, tx) -> int:
        raise GraphBreak(f"len() of a {self.describe()} is not supported")

    def describe(self) -> str:
        return type(self).__name__.replace("Variable", "").lower() or "value"


class ConstantVariable(Variable):
    """A Python value known at trace time (numbers, strings, None, slices, dtypes...)."""

    def __init__(self, value):
        self.value = value

    def python_type(self):
        return type(self.value)

    def is_const(self):
        return True

    def realize(self, tx):
        return self.value

    def python_value(self):
        return self.value

    def reconstruct(self, rec):
        """A mutable value (a set the frame built, a bytearray...): a fresh copy per call; an
        object that is one of the call's arguments: read from the call; else the value itself."""
        val = self.value
        if isinstance(val, (set, bytearray, list, dict)):
            return ("copy", val, rec.memo_key())
        if not isinstance(val, (int, float, str, bool, type(None))):
            return rec.object_recipe(val)
        return ("val", val)

    def truth(self, tx):
        return bool(self.value)

    def getattr(self, tx, name):
        try:
            attr = getattr(self.value, name)
        except AttributeError as e:
            raise MissingAttribute(f"{type(self.value).__name__} has no attribute {name!r}: {e}")
        if isinstance(self.value, _IMMUTABLE) and callable(attr) and not isinstance(attr, type):
            # methods of immutable Python values ("a,b".split(","), (1.5).is_integer()) are pure
            from .functions import PureFunctionVariable
            return PureFunctionVariable(attr)
        return tx.wrap(attr)

    def getitem(self, tx, key):
        if not key.is_const():
            raise GraphBreak("indexing a Python constant with a traced value")
        try:
            item = self.value[key.value]
        except (LookupError, TypeError, ValueError) as e:  # what Python raises at run time too
            from ..errors import UserException
            raise UserException(e, f"indexing a {type(self.value).__name__} raised {type(e).__name__} at trace "
                                   f"time: {e}") from None
        return tx.wrap(item)

    def length(self, tx):
        try:
            return len(self.value)
        except TypeError as e:
            from ..errors import UserException
            raise UserException(e, f"len() raised TypeError at trace time: {e}") from None

    def iterate(self, tx):
        try:
            items = list(self.value)
        except TypeError:
            raise GraphBreak(f"{type(self.value).__name__} object is not iterable")
        return [tx.wrap(i) for i in items]

    def describe(self):
        return f"constant {type(self.value).__name__}"

    def __repr__(self):
        return f"Const({self.value!r})"


_IMMUTABLE = (str, bytes, int, float, complex, bool, tuple, frozenset, range, slice)


class NullVariable(Variable):
    """The NULL CPython pushes before/after a callable for CALL."""

    def describe(self):
        return "NULL"


NULL = NullVariable()

BINARY_OPS = {
    "ADD": operator.add, "SUBTRACT": operator.sub, "MULTIPLY": operator.mul,
    "TRUE_DIVIDE": operator.truediv, "FLOOR_DIVIDE": operator.floordiv, "REMAINDER": operator.mod,
    "POWER": operator.pow, "MATRIX_MULTIPLY": operator.matmul, "LSHIFT": operator.lshift,
    "RSHIFT": operator.rshift, "AND": operator.and_, "OR": operator.or_, "XOR": operator.xor,
}
for _k in list(BINARY_OPS):
    BINARY_OPS["INPLACE_" + _k] = BINARY_OPS[_k]

COMPARE_OPS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
               ">": operator.gt, ">=": operator.ge}
