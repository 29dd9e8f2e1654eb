"""Guard expressions lowered to a C guard program (capture/_guard_vm.c).

:class:`capture.guards.GuardSet` records each guard as a Python expression over the call's
arguments (``args``) and objects held by the entry (``o0``, ``o1``...). Joined into one
generated function they cost about 60 ns a guard, ~6 us a call for a LeNet5 train step's ~100
guards. :func:`lower` parses each expression and turns the kinds the guard builder writes
(attribute and item reads, ``type()``, ``len()``, calls of held functions and weak
references, ``is``, ``==``, ``in``, shape compares, ``not hasattr``, and a tensor's whole guard
as one test) into the C program's instructions; any other expression stays Python, in a
residual function the program calls once everything else held. The strings stay the one
record of a guard: descriptions, recompile reasons and saved entries read them as before.

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
    >>> g = GuardSet()
    >>> g.add("type(args[0]) is o0 and args[0].shape == (2, 3)")
    >>> g.namespace["o0"] = np.ndarray
    >>> check = g.compile()
    >>> check((np.zeros((2, 3)),)), check((np.zeros(3),)), check(([],))
    (True, False, False)
"""
from __future__ import annotations

import array
import ast
import ctypes
import sys
import weakref

from graph import config as settings

try:
    from . import _guard_vm as _vm
except ImportError:  # not built: GuardSet.compile keeps the Python function
    _vm = None

#: whether guards are lowered to the C program
AVAILABLE = _vm is not None and not settings.get("CAPTURE_PY_GUARDS")

_COMPARE = {ast.Is: "T_IS", ast.IsNot: "T_ISNOT", ast.Eq: "T_EQ", ast.NotEq: "T_NE",
            ast.In: "T_IN", ast.NotIn: "T_NOTIN"}


class _Unsupported(Exception):
    """An expression (or part of one) the C program does not evaluate."""


class _Lowering:
    """Instructions ``(op, dst, a, b)`` and constants for a list of guard expressions."""

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
        self._names: dict[str, int] = {}  # walrus-bound names of the expression being lowered

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

    def _builtin(self, node, name) -> bool:
        return (isinstance(node, ast.Name) and node.id == name and name not in self.namespace
                and name not in self._names)

    def _item_types_of(self, node):
        """``x`` of ``tuple(map(type, x))`` (the item types of a guarded tuple of scalars), else None."""
        if (isinstance(node, ast.Call) and self._builtin(node.func, "tuple") and len(node.args) == 1
                and not node.keywords):
            inner = node.args[0]
            if (isinstance(inner, ast.Call) and self._builtin(inner.func, "map") and len(inner.args) == 2
                    and not inner.keywords and self._builtin(inner.args[0], "type")):
                return inner.args[1]
        return None

    # -- operands: a register written by an instruction, or -1 - k for the constant k -------------------
    def value(self, node) -> int:
        if isinstance(node, ast.Name):
            if node.id in self._names:
                return self._names[node.id]
            if node.id in self.namespace and node.id != "args":
                return -1 - self.const(self.namespace[node.id])
            raise _Unsupported(node.id)
        if isinstance(node, (ast.Constant, ast.Tuple)):
            value = _literal(node)
            if value is _NOT_LITERAL:
                raise _Unsupported("tuple")
            return -1 - self.const(value)
        if isinstance(node, ast.Attribute):
            return self._emit("V_ATTR", self.value(node.value), self.const(node.attr))
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
            if isinstance(node.value, ast.Name) and node.value.id == "args" and "args" not in self._names:
                if type(key) is not int or key < 0:
                    raise _Unsupported("args index")
                return self._emit("V_ARG", key)
            return self._emit("V_ITEM", self.value(node.value), self.const(key))
        if isinstance(node, ast.Call) and len(node.args) <= 1 and not node.keywords \
                and not any(isinstance(a, ast.Starred) for a in node.args):
            # a function the entry holds (a weak reference to a Cell argument takes no argument)
            if isinstance(node.func, ast.Name) and node.func.id in self.namespace:
                if not node.args and isinstance(self.namespace[node.func.id], weakref.ref):
                    # a held object read through its weak reference: a dead one fails the check
                    return self._emit("V_DEREF", self.value(node.func))
                if not node.args:
                    return self._emit("V_CALL0", self.value(node.func))
                return self._emit("V_CALL", self.value(node.func), self.value(node.args[0]))
            for name, op in (("type", "V_TYPE"), ("len", "V_LEN")):
                if node.args and self._builtin(node.func, name):
                    return self._emit(op, self.value(node.args[0]))
            for name, builtin in (("list", list), ("tuple", tuple)):  # (dict keys are guarded as a list)
                if node.args and self._builtin(node.func, name):
                    return self._emit("V_CALL", -1 - self.const(builtin), self.value(node.args[0]))
        if isinstance(node, ast.NamedExpr):
            reg = self.value(node.value)
            self._names[node.target.id] = reg
            return reg
        raise _Unsupported(type(node).__name__)

    def _tensor_test(self, node) -> bool:
        """``type(t) is T and type(_d := t._data) is A and _d.shape == S and (_d.dtype is D or
        _d.dtype == D)`` (GuardSet.tensor) as one T_TENSOR test, the constants (T, A, S, D);
        False (nothing emitted) for any other expression."""
        if not (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And) and len(node.values) == 4):
            return False
        of_type, data_type, shape_test, dtype_test = node.values

        def type_is(test):  # ``type(x) is Name``: (x, the name), else None
            if (_single_compare(test, ast.Is) and isinstance(test.left, ast.Call) and self._builtin(test.left.func, "type")
                    and len(test.left.args) == 1 and not test.left.keywords and isinstance(test.comparators[0], ast.Name)):
                return test.left.args[0], test.comparators[0].id
            return None

        def of_data(test, attr):  # ``_d.<attr>`` of the walrus name
            return isinstance(test, ast.Attribute) and test.attr == attr and isinstance(test.value, ast.Name) \
                and test.value.id == data

        first, second = type_is(of_type), type_is(data_type)
        if first is None or second is None or not isinstance(second[0], ast.NamedExpr):
            return False
        tensor, read = first[0], second[0]
        data = read.target.id
        if not (isinstance(read.value, ast.Attribute) and read.value.attr == "_data"
                and ast.dump(read.value.value) == ast.dump(tensor)):
            return False
        shape = _literal(shape_test.comparators[0]) if _single_compare(shape_test, ast.Eq) else None
        if not (of_data(shape_test.left, "shape") and type(shape) is tuple and all(type(d) is int for d in shape)):
            return False
        if not (isinstance(dtype_test, ast.BoolOp) and isinstance(dtype_test.op, ast.Or) and len(dtype_test.values) == 2):
            return False
        is_, eq = dtype_test.values
        if not (_single_compare(is_, ast.Is) and _single_compare(eq, ast.Eq) and of_data(is_.left, "dtype")
                and of_data(eq.left, "dtype") and isinstance(is_.comparators[0], ast.Name)
                and isinstance(eq.comparators[0], ast.Name) and is_.comparators[0].id == eq.comparators[0].id):
            return False
        names = (first[1], second[1], is_.comparators[0].id)
        if any(n not in self.namespace or n in self._names or n == data for n in names):
            return False
        tensor_type, array_type, dtype = (self.namespace[n] for n in names)
        if not (isinstance(tensor_type, type) and isinstance(array_type, type)):
            return False
        self._test("T_TENSOR", self.value(tensor), self.const((tensor_type, array_type, shape, dtype)))
        return True

    # -- tests: the check ends at the first that is false ------------------------------------------------
    def test(self, node) -> None:
        if self._tensor_test(node):
            return
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for v in node.values:
                self.test(v)
            return
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            # ``a is b or a == b`` (dtype guards): identity first, then equality
            is_, eq = node.values if len(node.values) == 2 else (None, None)
            if (_single_compare(is_, ast.Is) and _single_compare(eq, ast.Eq)
                    and ast.dump(is_.left) == ast.dump(eq.left)
                    and ast.dump(is_.comparators[0]) == ast.dump(eq.comparators[0])
                    and not any(isinstance(n, (ast.NamedExpr, ast.Call)) for n in ast.walk(is_))):
                self._test("T_EQ_ID", self.value(is_.left), self.value(is_.comparators[0]))
                return
            raise _Unsupported("or")
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op, left, right = type(node.ops[0]), node.left, node.comparators[0]
            shape = _literal(right)
            if (op is ast.Eq and isinstance(left, ast.Attribute) and left.attr == "shape"
                    and type(shape) is tuple and all(type(d) is int for d in shape)):
                self._test("T_SHAPE", self.value(left.value), self.const(shape))
                return
            items = self._item_types_of(left)
            types = self.namespace.get(right.id) if isinstance(right, ast.Name) else None
            if op is ast.Eq and items is not None and type(types) is tuple and all(isinstance(t, type) for t in types):
                self._test("T_ITEM_TYPES", self.value(items), self.const(types))
                return
            if op in _COMPARE:
                a = self.value(left)
                self._test(_COMPARE[op], a, self.value(right))
                return
            raise _Unsupported(op.__name__)
        if (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Call)
                and self._builtin(node.operand.func, "hasattr") and len(node.operand.args) == 2
                and not node.operand.keywords and isinstance(node.operand.args[1], ast.Constant)
                and type(node.operand.args[1].value) is str):
            call = node.operand
            self._test("T_NOT_HASATTR", self.value(call.args[0]), self.const(call.args[1].value))
            return
        self._test("T_TRUE", self.value(node))

    def expression(self, expr: str) -> bool:
        """Lower one guard written as Python text; False (and nothing emitted) when it must stay Python."""
        return self._lowered(lambda: self.test(ast.parse(expr, mode="eval").body))

    def record(self, guard) -> bool:
        """Lower one guard record (capture.guards.Guard) from its kind, source and expected
        values, without parsing; False (and nothing emitted) when it must stay Python."""
        if guard.kind == "text":
            return self.expression(guard.expected[0].text)
        return self._lowered(lambda: self._record_tests(guard))

    def _record_tests(self, guard) -> None:
        kind, e = guard.kind, guard.expected
        if kind == "eqs":
            for i in range(0, len(e), 2):
                self._test("T_EQ", self.source(e[i]), self.source(e[i + 1]))
            return
        src = self.source(guard.source)  # (read once, though the text reads it at each mention)
        if kind == "tensor":
            tensor_type, array_type, dtype = (self.namespace[c.name] for c in (e[0], e[1], e[3]))
            if not (isinstance(tensor_type, type) and isinstance(array_type, type)):
                raise _Unsupported("tensor")
            self._test("T_TENSOR", src, self.const((tensor_type, array_type, e[2].value, dtype)))
        elif kind in ("is", "eq"):
            self._test("T_IS" if kind == "is" else "T_EQ", src, self.source(e[0]))
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
        """The operand reading a guard source (capture.guards.GuardSource)."""
        kind = type(src).__name__
        if kind == "Arg":
            return self._emit("V_ARG", src.index)
        if kind == "Const":
            value = self.namespace[src.name]
            if src.call or src.name in self.weak:
                # a held object read through its weak reference: a dead one fails the check
                return self._emit("V_DEREF", -1 - self.const(value))
            return -1 - self.const(value)
        if kind == "Lit":
            return -1 - self.const(src.value)
        if kind == "Attr":
            return self._emit("V_ATTR", self.source(src.base), self.const(src.name))
        if kind == "Item":
            return self._emit("V_ITEM", self.source(src.base), self.const(src.key))
        if kind == "Call":
            return self._emit("V_CALL", self.source(src.fn), self.source(src.arg))
        if kind == "TypeOf":
            return self._emit("V_TYPE", self.source(src.base))
        if kind == "Text":
            self._names = {}
            return self.value(ast.parse(src.expr(self.weak), mode="eval").body)
        raise _Unsupported(kind)

    def _lowered(self, emit) -> bool:
        mark = len(self.code)  # (registers a dropped guard numbered stay unused)
        self._names = {}
        try:
            emit()
        except (_Unsupported, SyntaxError):
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


_NOT_LITERAL = object()
from .guards import DEAD as _DEAD  # noqa: E402 - (capture.guards imports this module lazily)

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


def _literal(node):
    """The value of a constant or a tuple of constants (``(32, 1, 32, 32)`` parses as a tuple
    display), else ``_NOT_LITERAL``."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load):
        items = tuple(_literal(e) for e in node.elts)
        return _NOT_LITERAL if any(i is _NOT_LITERAL for i in items) else items
    return _NOT_LITERAL


def _single_compare(node, op) -> bool:
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], op)


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
