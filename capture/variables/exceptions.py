"""Exception objects inside the traced code (``except E as e``, ``raise E(...) from e``).

An exception the traced code raises and handles itself is a real Python exception object made at
trace time (its class and arguments are constants); the translator runs the frame's exception
table over it. Such an object must never leave the captured region: a compiled entry runs many
times and would hand every caller the same object (with the trace's traceback), so it cannot be
rebuilt after the graph (returning it, storing it outside, or a graph break while it is live
makes the frame run eagerly instead).
"""
from __future__ import annotations

from .base import ConstantVariable, NotResumable


class ExceptionVariable(ConstantVariable):
    """A Python exception instance raised (and possibly caught) by the traced code."""

    def reconstruct(self, rec):
        raise NotResumable(f"the exception object {type(self.value).__name__}({self.value}) is live "
                           f"outside the code that raised and handled it")

    def getattr(self, tx, name):
        from ..errors import MissingAttribute
        try:
            attr = getattr(self.value, name)
        except AttributeError as e:
            raise MissingAttribute(f"{type(self.value).__name__} has no attribute {name!r}: {e}") from None
        if isinstance(attr, BaseException):  # e.__cause__, e.__context__
            return ExceptionVariable(attr)
        if attr is None or isinstance(attr, (bool, int, float, str)) or (
                isinstance(attr, tuple) and all(isinstance(a, (bool, int, float, str, type(None))) for a in attr)):
            return ConstantVariable(attr)
        if name == "__notes__" and isinstance(attr, list) and all(isinstance(a, str) for a in attr):
            return ConstantVariable(attr)  # rebuilt as a copy if it outlives the trace
        if name in _TRACE_LOCAL_METHODS:
            return ExceptionMethodVariable(self, name)
        import types
        if isinstance(attr, types.MethodType) and attr.__self__ is self.value and \
                isinstance(attr.__func__, types.FunctionType):
            from .functions import UserFunctionVariable  # a method of a user exception class: inlined
            return UserFunctionVariable(attr.__func__, self)
        from ..errors import GraphBreak
        raise GraphBreak(f"attribute {name!r} of an exception raised inside the captured region")

    def setattr(self, tx, name, value):
        # the object exists only inside the trace: setting ``__cause__``/``__suppress_context__``
        # /``__notes__``... on it is what the traced code does to its own exception
        if isinstance(value, ExceptionVariable) or (value.is_const() and not isinstance(value.value, (list, dict, set))):
            try:
                setattr(self.value, name, value.value)
            except (TypeError, AttributeError) as e:
                from ..errors import UserException
                raise UserException(e) from None
            return
        from ..errors import GraphBreak
        raise GraphBreak(f"setting {name!r} of an exception to a {value.describe()}")

    def describe(self):
        return f"exception {type(self.value).__name__}"

    def __repr__(self):
        return f"Exc({self.value!r})"


def python_init_exception_class(cls) -> bool:
    """An exception class with an ``__init__`` written in Python but no Python ``__new__``,
    ``__setattr__`` or ``__getattribute__`` and a plain metaclass: made by ``BaseException.__new__``
    at trace time, its ``__init__`` inlined (variables/functions.py ClassVariable.call)."""
    import types
    if not (isinstance(cls, type) and issubclass(cls, BaseException)) or type(cls) is not type:
        return False
    if not isinstance(cls.__init__, types.FunctionType):
        return False
    for base in cls.__mro__:
        d = vars(base)
        for name in ("__new__", "__setattr__", "__getattribute__", "__del__"):
            if isinstance(d.get(name), (types.FunctionType, staticmethod, classmethod)):
                return False
    return True


def plain_exception_class(cls) -> bool:
    """An exception class whose construction runs no Python code (no ``__init__``/``__new__``
    written in Python anywhere in its MRO): safe to instantiate while tracing."""
    import types
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        return False
    for base in cls.__mro__:
        d = vars(base)
        for name in ("__init__", "__new__", "__setattr__", "__getattribute__", "__init_subclass__"):
            if isinstance(d.get(name), (types.FunctionType, staticmethod, classmethod)):
                return False
    return type(cls) is type


#: methods of an exception that only change (or read) the exception object itself
_TRACE_LOCAL_METHODS = ("add_note", "__str__", "__repr__")


class ExceptionMethodVariable(ConstantVariable):
    """``e.add_note`` (...) of a trace-local exception: called at trace time on the very object
    (it never leaves the trace, so its mutation is the traced code's own)."""

    def __init__(self, exc_var, name, bound=None):
        super().__init__(bound if bound is not None else getattr(exc_var.value, name))
        self.exc_var = exc_var
        self.name = name

    def reconstruct(self, rec):
        raise NotResumable("a method of an exception object made in the captured code is live")

    def call(self, tx, args, kwargs):
        from ..errors import GraphBreak, UserException
        if not all(a.is_const() and isinstance(a.value, (str, int, float, bool, type(None))) for a in args) \
                or kwargs:
            raise GraphBreak(f"{self.name}() of an exception with a non-constant argument")
        try:
            out = self.value(*[a.value for a in args])
        except Exception as e:
            raise UserException(e) from None
        return ConstantVariable(out)

    def describe(self):
        return f"exception method {self.name}"
