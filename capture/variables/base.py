"""Base class of the translator's symbolic stand-ins for Python values, and constants."""
from __future__ import annotations

import operator

from ..errors import GraphBreak, MissingAttribute


class Variable:
    """A value on the symbolic stack. Subclasses override what they support; the rest breaks."""

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
        return tx.wrap(self.value[key.value])

    def length(self, tx):
        return len(self.value)

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
