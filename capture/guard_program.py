"""Guard records compiled to a C guard program (capture/_guard_vm.c).

:class:`capture.guards.GuardSet` records each guard as a :class:`capture.guards.Guard`: its
kind, the source it reads (a :class:`capture.sources.Source`: an argument, an object the entry
holds, an attribute or item of one...) and what it expects. Joined into one generated Python
function the guards cost about 60 ns each, ~6 us a call for a LeNet5 train step's ~100.
:func:`lower` turns each record into the C program's instructions straight from its sources'
fields (no text is parsed): reads (:data:`_READS`: argument, held object -- through its weak
reference once held weakly --, attribute, item, ``type()``, ``len()``, a held function's call) and
tests (``is``, ``==``, ``not in``, shape, item types, ``not hasattr``, and a tensor's whole guard
as one test). A free-form guard (``GuardSet.add``: Python text) stays Python, in a residual
function the program calls once everything else held.

Guards decided by held objects' plain attributes (``self.fc1 is o34``, a hyperparameter equal
to an int) go to a stable section the program reruns only when one of the objects they read
changed (its type or instance dict: CPython 3.11 and 3.12 renew a dict's version at each change):
a LeNet5 step's ~60 attribute lookups become ~12 version reads. ``CAPTURE_GUARDS_NO_STABLE=1``
(read at import) and CPython 3.13 keep every guard in the main section.

``CAPTURE_PY_GUARDS=1`` (read at import) keeps every guard in Python, as does a missing C
helper (it is built by ``pip install -e .``; where it cannot be compiled the Python function is
used).

Example:
    >>> import numpy as np
    >>> from capture.guards import GuardSet
    >>> from capture.sources import Arg, Attr
    >>> g = GuardSet()
    >>> g.type_is(Arg(0), np.ndarray, "x")
    >>> g.equals(Attr(Arg(0), "shape"), (2, 3), "x.shape")
    >>> g.exprs
    ['type(args[0]) is o0', 'args[0].shape == (2, 3)']
    >>> check = g.compile()
    >>> check((np.zeros((2, 3)),)), check((np.zeros(3),)), check(([],))
    (True, False, False)
"""
from __future__ import annotations

import array
import ctypes
import sys

from graph import config as settings

from .sources import Arg, Attr, Call, Item, Len, Lit, Object, TypeOf

try:
    from . import _guard_vm as _vm
except ImportError:  # not built: GuardSet.compile keeps the Python function
    _vm = None

#: whether guards are lowered to the C program
AVAILABLE = _vm is not None and not settings.get("CAPTURE_PY_GUARDS")


class _Unsupported(Exception):
    """A guard (or part of one) the C program does not evaluate."""


class _Lowering:
    """Instructions ``(op, dst, a, b)`` and constants for a list of guard records."""

    def __init__(self, namespace, stable_section=False, weak=()):
        self.namespace = namespace
        self.weak = weak  # the names held weakly (capture.guards.GuardSet.weak): read as ``oN()``
        self.code: list[tuple[int, int, int, int]] = []
        # guards decided by held objects' plain attributes (see _stable_reads), and those objects
        self.stable_section = stable_section
        self.stable: list[tuple[int, int, int, int]] = []
        self.watched: dict[int, tuple] = {}
        self.consts: list = []
        self._const_ids: dict[int, int] = {}
        self.n_regs = 0

    def const(self, value) -> int:
        k = self._const_ids.get(id(value))
        if k is None:
            k = self._const_ids[id(value)] = len(self.consts)
            self.consts.append(value)  # (the list keeps it alive, so its id stays its own)
        return k

    def _emit(self, op: str, a: int = 0, b: int = 0) -> int:
        dst = self.n_regs
        self.n_regs += 1
        self.code.append((getattr(_vm, op), dst, a, b))
        return dst

    def _test(self, op: str, a: int, b: int = 0) -> None:
        self.code.append((getattr(_vm, op), 0, a, b))

    def record(self, guard) -> bool:
        """Lower one guard record (capture.guards.Guard) from its kind, source and expected
        values, without parsing; False (and nothing emitted) when it must stay Python."""
        if guard.kind in ("text", "tensor_sizes"):  # (Python conditions: the residual function runs them)
            return False
        return self._lowered(lambda: self._record_tests(guard))

    def _record_tests(self, guard) -> None:
        kind, e = guard.kind, guard.expected
        if kind == "eqs":
            for i in range(0, len(e), 2):
                self._test("T_EQ", self.source(e[i]), self.source(e[i + 1]))
            return
        if kind == "eq" and type(guard.source) is Attr and guard.source.name == "shape" \
                and type(e[0].value) is tuple and all(type(d) is int for d in e[0].value):
            # (an array's dims compared in place: its ``shape`` would build a tuple)
            self._test("T_SHAPE", self.source(guard.source.base), self.const(e[0].value))
            return
        src = self.source(guard.source)  # (read once, though the text reads it at each mention)
        if kind == "tensor":
            tensor_type, array_type, dtype = (self.namespace[c.name] for c in (e[0], e[1], e[3]))
            if not (isinstance(tensor_type, type) and isinstance(array_type, type)):
                raise _Unsupported("tensor")
            self._test("T_TENSOR", src, self.const((tensor_type, array_type, e[2].value, dtype)))
        elif kind in ("is", "is_not", "eq"):
            self._test({"is": "T_IS", "is_not": "T_ISNOT", "eq": "T_EQ"}[kind], src, self.source(e[0]))
        elif kind == "not_in":
            self._test("T_NOTIN", self.source(e[0]), src)
        elif kind == "not_hasattr":
            self._test("T_NOT_HASATTR", src, self.const(e[0].value))
        else:  # the kinds that begin with ``type(source) is T``
            self._test("T_IS", self._emit("V_TYPE", src), self.source(e[0]))
            if kind in ("constant", "scalars"):
                self._test("T_EQ", src, self.source(e[1]))
            if kind == "length":
                self._test("T_EQ", self._emit("V_LEN", src), self.source(e[1]))
            elif kind == "dict_keys":
                self._test("T_EQ", self._emit("V_CALL", -1 - self.const(list), src), self.source(e[1]))
            elif kind == "scalars":
                types = self.namespace[e[2].name]
                if not all(isinstance(t, type) for t in types):
                    raise _Unsupported("item types")
                self._test("T_ITEM_TYPES", src, self.const(types))
            elif kind not in ("type_is", "constant"):
                raise _Unsupported(kind)

    def source(self, src) -> int:
        """The operand reading a guard source (capture.sources.Source): a register or a constant."""
        read = _READS.get(type(src))
        if read is None:  # (a read written as Python text: the residual function runs it)
            raise _Unsupported(type(src).__name__)
        return read(self, src)

    def _object(self, src) -> int:
        if src.name is None:  # (a graph input's object: no guard names it)
            raise _Unsupported("an unnamed object")
        value = self.namespace[src.name]
        if src.called or src.name in self.weak:
            # a held object read through its weak reference: a dead one fails the check
            return self._emit("V_DEREF", -1 - self.const(value))
        return -1 - self.const(value)

    def _lowered(self, emit) -> bool:
        mark = len(self.code)  # (registers a dropped guard numbered stay unused)
        try:
            emit()
        except _Unsupported:
            del self.code[mark:]
            return False
        watched = self._stable_reads(self.code[mark:]) if self.stable_section else None
        if watched is not None:
            self.stable.extend(self.code[mark:])
            del self.code[mark:]
            for obj, is_dict, *ref in watched:
                # (an object held weakly is watched through its weak reference: the program
                # must not keep it alive, and finds it changed once it died)
                self.watched.setdefault(id(obj), (ref[0] if ref else obj, is_dict))
        return True

    def _stable_reads(self, code):
        """The objects (``(object, is_dict)``) whose dicts alone decide ``code`` (one lowered
        guard), or None: it reads only plain attributes of held objects (found in the instance
        dict, the class holding no data descriptor of that name) and items of held dicts, and
        compares what it read by identity, or against immutable values (what the guard read
        then was immutable: while the dict is unchanged, it is the same object)."""
        values, watched = {}, []
        held = {}  # register -> the weak reference (a constant) it was read through (V_DEREF)

        def operand(x):  # (known, value) of a register or constant
            if x < 0:
                return True, self.consts[-1 - x]
            return (x in values), values.get(x)

        for op, dst, a, b in code:
            name = _OP_NAMES.get(op)
            if name == "V_DEREF" and a < 0:
                # a held object: while its watched dict is unchanged it is alive and the same (a
                # dead one makes the C program find the watched object changed, and run again)
                obj = self.consts[-1 - a]()
                if obj is None or obj is _DEAD:
                    return None
                values[dst] = obj
                held[dst] = self.consts[-1 - a]
            elif name == "V_ATTR" and (a < 0 or a in held):
                obj, attr = (self.consts[-1 - a] if a < 0 else values[a]), self.consts[b]
                if not _plain_instance_attribute(obj, attr):
                    return None
                values[dst] = vars(obj)[attr]
                watched.append((obj, False) if a < 0 else (obj, False, held[a]))
            elif name == "V_ITEM" and a < 0 and type(self.consts[-1 - a]) is dict:
                d, key = self.consts[-1 - a], self.consts[b]
                if not _immutable(key) or key not in d:
                    return None
                values[dst] = d[key]
                watched.append((d, True))
            elif name in ("V_TYPE", "V_LEN"):
                known, v = operand(a)
                if not known or not _immutable(v):
                    return None
                values[dst] = type(v) if name == "V_TYPE" else len(v)
            elif name in ("T_IS", "T_ISNOT"):
                if not (operand(a)[0] and operand(b)[0]):
                    return None
            elif name in ("T_EQ", "T_NE", "T_EQ_ID", "T_TRUE", "T_SHAPE", "T_ITEM_TYPES", "T_IN", "T_NOTIN"):
                known, v = operand(a)
                if not known or not _immutable(v):
                    return None
                if name in ("T_IN", "T_NOTIN"):
                    known, container = operand(b)
                    if type(container) is dict and b < 0:
                        watched.append((container, True))
                    elif not (known and _immutable(container)):
                        return None
                elif name in ("T_EQ", "T_NE", "T_EQ_ID"):
                    known, w = operand(b)
                    if not known or not _immutable(w):
                        return None
            else:  # arguments, calls, chained reads, tensors, hasattr: read anew on every call
                return None
        return watched if watched else None


from .guards import DEAD as _DEAD  # noqa: E402 - (capture.guards imports this module lazily)

#: how the program reads each kind of source (capture.sources); a kind missing here (Text, or
#: a new one) leaves its guards to the residual Python function, which tests/capture count
_READS = {
    Arg: lambda lo, s: lo._emit("V_ARG", s.index),
    Object: _Lowering._object,
    Lit: lambda lo, s: -1 - lo.const(s.value),
    Attr: lambda lo, s: lo._emit("V_ATTR", lo.source(s.base), lo.const(s.name)),
    Item: lambda lo, s: lo._emit("V_ITEM", lo.source(s.base), lo.const(s.key)),
    Call: lambda lo, s: lo._emit("V_CALL", lo.source(s.fn), lo.source(s.arg)),
    TypeOf: lambda lo, s: lo._emit("V_TYPE", lo.source(s.base)),
    Len: lambda lo, s: lo._emit("V_LEN", lo.source(s.base)),
}

#: the C program's instruction names by number
_OP_NAMES = {getattr(_vm, n): n for n in dir(_vm) if n[:2] in ("V_", "T_")} if _vm is not None else {}

#: whether the stable section is used: CPython 3.11 and 3.12 renew a dict's version at each
#: change (3.13 no longer does for attributes kept in an object's inline values, nor tells dict
#: watchers about them)
_STABLE_SECTION = sys.version_info < (3, 13) and not settings.get("CAPTURE_GUARDS_NO_STABLE")

_IMMUTABLE_SCALARS = (int, float, bool, str, bytes, complex, type(None), type(Ellipsis))


def _immutable(value, depth=0) -> bool:
    """Whether ``value`` cannot change (a builtin scalar, or a tuple/frozenset of them)."""
    if type(value) in _IMMUTABLE_SCALARS:
        return True
    if type(value) in (tuple, frozenset) and depth < 4 and len(value) <= 64:
        return all(_immutable(v, depth + 1) for v in value)
    return False


def _plain_instance_attribute(obj, name) -> bool:
    """Whether ``obj.<name>`` is read from ``obj``'s instance dict by the generic lookup, and
    nothing else: the type keeps the generic ``__getattribute__``, has no ``__getattr__`` and no
    data descriptor (property, slot) of that name in its MRO, and the dict holds it. (The dict is
    made here where the object had its attributes in inline values: every later change of them
    then goes through it and renews its version.)"""
    cls = type(obj)
    if (not isinstance(name, str) or cls.__getattribute__ is not object.__getattribute__
            or isinstance(obj, type) or hasattr(cls, "__getattr__")):
        return False
    for klass in cls.__mro__:
        attr = klass.__dict__.get(name)
        if attr is not None and (hasattr(type(attr), "__set__") or hasattr(type(attr), "__delete__")):
            return False
        if name in klass.__dict__:
            break
    try:
        d = obj.__dict__
    except AttributeError:
        return False
    return type(d) is dict and name in d


def _ndarray_layout():
    """(numpy.ndarray, offsets of ``nd``, ``dimensions`` and ``descr``) in an array object,
    checked on arrays of several ranks and dtypes; (None, -1, -1, -1) where the layout is not the
    one expected."""
    import numpy as np
    unknown = None, -1, -1, -1
    ptr = ctypes.sizeof(ctypes.c_void_p)
    head = object.__basicsize__
    # after PyObject_HEAD and the data pointer: nd, dimensions, strides, base, descr
    nd_offset, dims_offset, descr_offset = head + ptr, head + 2 * ptr, head + 5 * ptr
    if np.ndarray.__basicsize__ < descr_offset + ptr:
        return unknown
    try:
        for shape in ((), (7,), (3, 5), (2, 1, 4), (2, 3, 4, 5, 6)):
            for a in (np.empty(shape, np.float32), np.empty(shape + (2,), np.int8)[..., 0],
                      np.empty(shape, np.dtype(">f8")), np.empty(shape, np.int32).view(np.float32)):
                if ctypes.c_int.from_address(id(a) + nd_offset).value != a.ndim:
                    return unknown
                dims = ctypes.c_void_p.from_address(id(a) + dims_offset).value
                if a.ndim and (not dims or tuple((ctypes.c_ssize_t * a.ndim).from_address(dims)) != a.shape):
                    return unknown
                if ctypes.c_void_p.from_address(id(a) + descr_offset).value != id(a.dtype):
                    return unknown
    except (ValueError, OverflowError):
        return unknown
    return np.ndarray, nd_offset, dims_offset, descr_offset


_LAYOUT = _ndarray_layout() if AVAILABLE else (None, -1, -1, -1)


def lower(guards, exprs, namespace, residual_function, weak=()):
    """The C program checking ``guards`` (capture.guards.Guard records, whose Python texts are
    ``exprs``; their objects in ``namespace``, ``weak`` the names held weakly), or None where the
    C helper is not available. ``residual_function(texts)`` compiles the guards left to Python
    into one function of ``args``."""
    if not AVAILABLE:
        return None
    lowering = _Lowering(namespace, _STABLE_SECTION, weak)
    residual = [e for g, e in zip(guards, exprs) if not lowering.record(g)]

    def packed(code):
        return array.array("i", [x for ins in code for x in ins]).tobytes()
    return _vm.Program(packed(lowering.code), tuple(lowering.consts), lowering.n_regs,
                       residual_function(residual) if residual else None, *_LAYOUT,
                       packed(lowering.stable), tuple(lowering.watched.values()))
