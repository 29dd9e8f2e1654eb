"""capture.variables.base.class_attribute against its oracle, inspect.getattr_static: every
attribute name of a spread of classes (builtins, user classes with slots, properties,
classmethods, diamond inheritance, metaclasses, a metaclass shadowing ``__dict__``)."""
import abc
import collections
import enum
import inspect

import numpy as np
import pytest

import runtime as ms
from capture.variables.base import class_attribute

_MISSING = object()


class Base:
    x = 1

    @property
    def p(self):
        return 2

    @classmethod
    def c(cls):
        return cls


class Left(Base):
    __slots__ = ("s",)
    x = 3


class Right(Base):
    y = 4


class Diamond(Left, Right):
    pass


class Meta(type):
    meta_attr = 5

    def meta_method(cls):
        return cls


class WithMeta(metaclass=Meta):
    own = 6


class ShadowingMeta(type):
    __dict__ = {"x": 7}  # (getattr_static's reason to check each class's metaclass)


class Shadowed(metaclass=ShadowingMeta):
    x = 8


class Colour(enum.Enum):
    RED = 1


CLASSES = [int, str, list, dict, object, type, Base, Left, Right, Diamond, WithMeta, Shadowed, Colour,
           collections.OrderedDict, collections.abc.Mapping, abc.ABC, np.ndarray, ms.Tensor, ms.Parameter,
           ms.nn.Cell, ms.nn.Dense, Exception, KeyError]
NAMES = sorted({n for c in CLASSES if c is not Shadowed for n in dir(c)} | {n for c in CLASSES for n in dir(type(c))}
               | {"missing_name", "__dict__", "__mro__", "__name__", "mro", "meta_attr", "meta_method", "x", "s"})


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_class_attribute_finds_what_getattr_static_finds(cls):
    for name in NAMES:
        expected = inspect.getattr_static(cls, name, _MISSING)
        assert class_attribute(cls, name, _MISSING) is expected, name


def test_class_attribute_of_an_instance_is_getattr_statics():
    obj = Diamond()  # (not a class: getattr_static itself answers)
    for name in ("x", "p", "c", "y", "s", "missing_name"):
        assert class_attribute(obj, name, _MISSING) is inspect.getattr_static(obj, name, _MISSING)
