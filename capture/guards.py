"""Guards: what a compiled entry assumed, as records compiled into one fast check.

The one guard builder of capture: every assumption the translator makes about a Python value is
recorded through a method here, one per kind of guard (type, identity, equal constant, tensor
shape/dtype, length, dict keys, missing attribute, value of a Python object read at trace time,
call argument...). Each guard is a record (:class:`Guard`): its kind, the source it reads (a
:class:`capture.sources.Source`: an argument, an object the entry holds, named ``o0``, ``o1``...,
an attribute or item of one), what it expects (sources too), and a description in the user's
terms (``self.fc1.weight: Tensor Float32[120, 400]``). ``GuardSet.compile()`` builds the C guard
program from the records' sources (capture/guard_program.py); each record also reads as a Python
expression (``exprs``, from its sources' ``expr()``), kept for messages and for the Python check
used where the C helper is missing. The descriptions serve ``explain()`` and recompile reasons
(the first failing guard is reported).

Example:
    >>> g = GuardSet()
    >>> g.add("args[0] == 3", "argument 0 is 3")
    >>> check = g.compile(); check((3,)), check((4,))
    (True, False)
"""
from __future__ import annotations

import types
import weakref

import numpy as np

from graph.dtypes import DType

from .errors import interrupting
from .sources import Attr, Item, Lit, Object, Source, Text, as_source

#: containers read while tracing are guarded item by item up to this size and nesting depth
MAX_GUARDED_ITEMS = 64
MAX_GUARD_DEPTH = 4
_SCALARS = (int, float, bool, str, type(None))


#: Python values the translator treats as constants (wrapped as their value, guarded by equality)
CONSTANT_TYPES = (int, float, bool, str, bytes, complex, type(None), type(Ellipsis), range, slice, frozenset,
              DType, np.dtype, np.generic)


def _canonical_dtype(dtype):
    """numpy's own object for ``dtype`` where there is one (an array made from a buffer or a
    pickle may carry an equal copy): a guard's ``is`` then decides without ``==``."""
    builtin = np.dtype(dtype.type)
    return builtin if builtin == dtype else dtype


def _tensor_text(s, tensor_type, array_type, sizes, dtype):
    """A tensor guard's text: type, array type (device), ``sizes`` (conditions over the array,
    ``_d``) and dtype (the array read once; numpy's dtypes of one kind are one object, so ``is``
    decides first)."""
    return (f"type({s}) is {tensor_type} and type(_d := {s}._data) is {array_type} and {sizes} "
            f"and (_d.dtype is {dtype} or _d.dtype == {dtype})")


#: how each kind of guard reads as Python (``s``: the source, ``e``: what it expects, each already
#: written as text); the C program's lowering of each kind is in capture/guard_program.py
_TEXT = {
    "is": lambda s, e: f"{s} is {e[0]}",
    "is_not": lambda s, e: f"{s} is not {e[0]}",
    "eq": lambda s, e: f"{s} == {e[0]}",
    "not_in": lambda s, e: f"{e[0]} not in {s}",
    "type_is": lambda s, e: f"type({s}) is {e[0]}",
    "constant": lambda s, e: f"type({s}) is {e[0]} and {s} == {e[1]}",
    "length": lambda s, e: f"type({s}) is {e[0]} and len({s}) == {e[1]}",
    "dict_keys": lambda s, e: f"type({s}) is {e[0]} and list({s}) == {e[1]}",
    "scalars": lambda s, e: f"type({s}) is {e[0]} and {s} == {e[1]} and tuple(map(type, {s})) == {e[2]}",
    "not_hasattr": lambda s, e: f"not hasattr({s}, {e[0]})",
    "tensor": lambda s, e: _tensor_text(s, e[0], e[1], f"_d.shape == {e[2]}", e[3]),
    # (a shape-generic entry's tensor argument: its sizes as Python conditions over ``_d``)
    "tensor_sizes": lambda s, e: _tensor_text(s, e[0], e[1], e[2], e[3]),
    "eqs": lambda s, e: " and ".join(f"{e[i]} == {e[i + 1]}" for i in range(0, len(e), 2)),
    "text": lambda s, e: e[0],
}


class Guard:
    """One guard: ``kind`` (a key of :data:`_TEXT`), the ``source`` it reads (None for ``eqs``,
    whose expected operands are pairs of sources; a ``text`` guard may name the value its
    failure is reported on), ``expected`` (a tuple of :class:`capture.sources.Source` s; ``text``:
    one :class:`capture.sources.Text`, the whole expression), ``desc`` (the user's terms) and
    ``seen`` (for tensor and constant guards: the value's own description and what tracing saw,
    for the recompile reason)."""

    __slots__ = ("kind", "source", "expected", "desc", "seen")

    def __init__(self, kind: str, source, expected: tuple, desc: str, seen=None):
        self.kind, self.source, self.expected, self.desc, self.seen = kind, source, expected, desc, seen

    def expr(self, weak=()) -> str:
        """The guard as a Python expression over ``args`` and the entry's names."""
        s = self.source.expr(weak) if self.source is not None else None
        e = [x.expr(weak) for x in self.expected]
        return _TEXT[self.kind](s, e)


class GuardSet:
    def __init__(self):
        #: the guards, in the order they are checked
        self.guards: list[Guard] = []
        #: each guard as Python text (``Guard.expr``) and its description, in the same order
        self.exprs: list[str] = []
        self.descs: list[str] = []
        self.namespace: dict[str, object] = {"np": np}
        self._ids: dict[int, Source] = {}
        self._seen: set[str] = set()
        # How the user's code reaches each object (``self.fc1``), so guards read in source terms.
        self._paths: dict[int, str] = {}
        # ids of held objects guarded by identity against what an outside path reads: held
        # weakly once compiled (:meth:`hold_weakly`)
        self._identity_ids: set[int] = set()
        #: name -> the weak reference to a held object (filled by :meth:`hold_weakly`)
        self.weak: dict[str, "Held"] = {}
        self._on_death: list = []  # what the weak references' callbacks tell (:meth:`when_dead`)

    def obj(self, value) -> Source:
        """How guards read ``value``: an :class:`capture.sources.Object` naming it (``o3``: kept
        alive by the entry),
        or the argument it was bound to with :meth:`arg_identity`."""
        key = id(value)
        src = self._ids.get(key)
        if src is None:
            src = self._ids[key] = Object(value, f"o{len(self._ids)}")
            self.namespace[src.name] = value
        return src

    def name_object(self, value, path: str) -> None:
        """Remember ``path`` (e.g. ``self.fc1``) as how the traced code reached ``value``; the first
        path seen wins. Immutable values are not named: equal ones share identities."""
        if not isinstance(value, (int, float, complex, str, bytes, tuple, frozenset, type(None))):
            self._paths.setdefault(id(value), path)

    def path_of(self, value, default: str | None = None) -> str:
        """The source path recorded for ``value``, else ``default``, else its type's name."""
        return self._paths.get(id(value)) or default or type(value).__name__

    def add(self, expr: str, desc: str | None = None) -> None:
        """A free-form guard: a Python expression over ``args`` and the names of :meth:`obj`."""
        self._record(Guard("text", None, (Text(expr),), desc or expr))

    def _record(self, guard: Guard) -> None:
        expr = guard.expr(self.weak)
        if expr in self._seen:
            return
        self._seen.add(expr)
        self.guards.append(guard)
        self.exprs.append(expr)
        self.descs.append(guard.desc)

    # -- common guard kinds (``expr``: a Source, or Python text) -------------------------------
    def identity(self, expr, value, desc: str) -> None:
        src = self.obj(value)
        if isinstance(src, Object) and not src.called and str(src) != str(expr):  # (not arg_identity's argument)
            self._identity_ids.add(id(value))
        self._record(Guard("is", as_source(expr), (src,), f"{desc} is the same object"))

    def arg_identity(self, expr, value, desc: str) -> None:
        """``expr`` (an argument, e.g. ``args[0]``: the Cell) is ``value``, held by a weak reference
        so a cache entry does not keep a Cell alive; later guards reach the object through
        ``expr`` (checked first, so it is the same object)."""
        try:
            ref = weakref.ref(value)
        except TypeError:
            self.identity(expr, value, desc)
            return
        expr = as_source(expr)
        self._record(Guard("is", expr, (Object.through(ref, self._fresh_name(ref)),), f"{desc} is the same object"))
        self._ids.setdefault(id(value), expr)

    def _fresh_name(self, value) -> str:
        name = f"o{len(self._ids)}_{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def constant(self, expr, value, desc: str) -> None:
        """Python constant: same type and equal value (1 == 1.0 == True must not alias)."""
        if value is None or isinstance(value, bool):
            self._record(Guard("is", as_source(expr), (Lit(value),), f"{desc} is {value!r}"))
            return
        self._record(Guard("constant", as_source(expr), (self.obj(type(value)), self.obj(value)),
                           f"{desc} == {value!r}", (desc, ("value", value))))

    def type_is(self, expr, cls, desc: str) -> None:
        self._record(Guard("type_is", as_source(expr), (self.obj(cls),), f"{desc}: a {cls.__name__}"))

    def length(self, expr, value, desc: str) -> None:
        """Exact type and length of a list/tuple."""
        self._record(Guard("length", as_source(expr), (self.obj(type(value)), Lit(len(value))),
                           f"{desc}: {type(value).__name__} of length {len(value)}"))

    def dict_keys(self, expr, value, desc: str) -> None:
        """Exact type and the keys, in order, of a dict."""
        self._record(Guard("dict_keys", as_source(expr), (self.obj(type(value)), self.obj(list(value))),
                           f"{desc}: {type(value).__name__} keys {list(value)}"))

    def hasnt_attr(self, obj, name: str) -> None:
        """``obj.name`` was missing (a ``hasattr``/``getattr`` default decided on it)."""
        self._record(Guard("not_hasattr", self.obj(obj), (Lit(name),), f"{self.path_of(obj)}.{name} does not exist"))

    def same_object(self, expr, other, desc: str) -> None:
        """``expr is other`` (two sources: the same list or tensor passed as two arguments)."""
        self._record(Guard("is", as_source(expr), (as_source(other),), desc))

    def distinct_objects(self, expr, other, desc: str) -> None:
        """``expr is not other``: an entry traced with two distinct tensors must not run for
        aliased ones (``p is q``, a write through one seen through the other)."""
        self._record(Guard("is_not", as_source(expr), (as_source(other),), desc))

    def equals(self, expr, value, desc: str) -> None:
        """``expr == value`` (``value`` a literal: an int, a string)."""
        self._record(Guard("eq", as_source(expr), (Lit(value),), desc))

    def absent(self, container, key, desc: str) -> None:
        """``key`` is not in ``container`` (a source: a module's globals, an object's ``__dict__``)."""
        self._record(Guard("not_in", as_source(container), (Lit(key),), desc))

    def python_value(self, expr, value, desc: str, depth: int = 0) -> None:
        """``expr`` still gives what tracing read: Python scalars by type and value, small
        containers by type, length and item, dtypes and other immutable constants by equality,
        everything else (Cells, Parameters, functions, objects) by identity."""
        from runtime.tensor import Tensor
        expr = as_source(expr)
        if isinstance(value, types.ModuleType):
            # a name bound to a module may be rebound to another (``backend = fast_impl``)
            self.identity(expr, value, desc)
        elif isinstance(value, types.MethodType):
            # a bound method is a new object on every attribute read: guard what it binds
            self.identity(Attr(expr, "__func__"), value.__func__, f"{desc} (method)")
            self.identity(Attr(expr, "__self__"), value.__self__, f"{desc} (bound object)")
        elif isinstance(value, types.BuiltinMethodType) and not isinstance(value.__self__, (types.ModuleType, type(None))):
            # a builtin method bound to an object (``buf.getvalue``, ``items.append``) is a new
            # object on every read too (guarded by identity, the one tracing read would be held
            # weakly and die with no other holder): its object by identity, its method by name
            self.identity(Attr(expr, "__self__"), value.__self__, f"{desc} (bound object)")
            self.constant(Attr(expr, "__name__"), value.__name__, f"{desc} (method name)")
        elif isinstance(value, _SCALARS):
            self.constant(expr, value, desc)
        elif type(value) in (tuple, list) and len(value) <= MAX_GUARDED_ITEMS and depth < MAX_GUARD_DEPTH:
            if all(isinstance(v, _SCALARS) for v in value):
                self._record(Guard("scalars", expr, (self.obj(type(value)), self.obj(value),
                                                     self.obj(tuple(map(type, value)))), f"{desc} == {value!r}"))
                return
            self.length(expr, value, desc)
            for i, v in enumerate(value):
                self.python_value(Item(expr, i), v, f"{desc}[{i}]", depth + 1)
        elif type(value) is dict and len(value) <= MAX_GUARDED_ITEMS and depth < MAX_GUARD_DEPTH and \
                all(isinstance(k, (str, int)) and not isinstance(k, bool) for k in value):
            self.dict_keys(expr, value, desc)
            for k, v in value.items():
                self.python_value(Item(expr, k), v, f"{desc}[{k!r}]", depth + 1)
        elif isinstance(value, Tensor) or not isinstance(value, CONSTANT_TYPES):
            self.identity(expr, value, desc)
        elif isinstance(value, (DType, np.dtype)):
            self._record(Guard("eq", expr, (self.obj(value),), f"{desc} == {value}"))
        else:  # other immutable constants (range, slice, complex, numpy scalars...)
            self._record(Guard("constant", expr, (self.obj(type(value)), self.obj(value)), f"{desc} == {value!r}"))

    def argument(self, expr, value, desc: str, _open=None) -> None:
        """A call argument (``args[i]``): tensors by shape and dtype (any tensor of that kind will
        do), scalars by value, lists/tuples by length and item, Cells by a weak identity, other
        objects by identity. A container that contains itself stops at identity."""
        from runtime.nn.cell import Cell
        from runtime.parameter import Parameter
        from runtime.tensor import Tensor
        _open = set() if _open is None else _open
        expr = as_source(expr)
        if isinstance(value, (tuple, list)) and id(value) in _open:
            self.identity(expr, value, desc)
        elif isinstance(value, Tensor) and not isinstance(value, Parameter):
            self.tensor(expr, value, desc)
        elif isinstance(value, _SCALARS):
            self.constant(expr, value, desc)
        elif isinstance(value, (tuple, list)):
            self.length(expr, value, desc)
            _open.add(id(value))
            for i, v in enumerate(value):
                self.argument(Item(expr, i), v, f"{desc}[{i}]", _open)
            _open.discard(id(value))
        elif isinstance(value, Cell):
            self.arg_identity(expr, value, desc)
        else:
            self.identity(expr, value, desc)

    def compute_precision(self) -> None:
        """Mixed precision as at trace time: the compute dtype of the enclosing ``to_float`` Cell
        (a thread-local the ops read) and the count of ``to_float`` calls (a Cell's compute dtype
        decides which casts the graph holds)."""
        from graph.ops.core import COMPUTE_DTYPE
        from runtime.nn.cell import _PRECISION_SETTINGS
        dt, epoch = COMPUTE_DTYPE.dtype, _PRECISION_SETTINGS.epoch
        self._record(Guard("eqs", None, (Attr(self.obj(COMPUTE_DTYPE), "dtype"), self.obj(dt),
                                         Attr(self.obj(_PRECISION_SETTINGS), "epoch"), Lit(epoch)),
                           f"mixed precision: compute dtype {dt}, {epoch} to_float call(s)"))

    def tensor(self, expr, tensor, desc: str) -> None:
        """Type, device (the array's type: numpy or cupy), shape and dtype of a tensor."""
        shape = tuple(tensor.shape)
        on = "" if type(tensor._data) is np.ndarray else " on the GPU"
        # (the array read once; numpy's dtypes of one kind are one object, so ``is`` decides first)
        self._record(Guard("tensor", as_source(expr),
                           (self.obj(type(tensor)), self.obj(type(tensor._data)), Lit(shape),
                            self.obj(_canonical_dtype(tensor._data.dtype))),
                           f"{desc}: Tensor {tensor.dtype}{list(shape)}{on}",
                           (desc, ("tensor", type(tensor), type(tensor._data), shape, tensor.dtype))))

    # -- holding guarded objects weakly ---------------------------------------------------------------
    def hold_weakly(self) -> None:
        """Hold every object guarded by identity (a Parameter, a sub-Cell, a function, a global's
        value...) through a weak reference from now on, as TorchDynamo does: a stale entry must not
        keep what its guards name alive. Each such name ``oN`` becomes a :class:`Held` reference in
        the namespace and reads as ``oN()`` (the C program dereferences it; the descriptions are unchanged). Such an
        object is alive whenever the guard holds (the guard reads it from outside: an argument, a
        global, an attribute of a held object), and a dead one fails the guard: an entry whose
        referent died can never run again, and :meth:`when_dead` tells its owner to drop it.
        Objects without weak references (tuples, dicts, ints), types and modules stay held.
        Called once, when the guards are compiled (tracing needs the objects held: their ids name them)."""
        if self.weak or not self._identity_ids:
            return
        names = {}
        for name, value in self.namespace.items():
            if id(value) in self._identity_ids and not isinstance(value, (type, types.ModuleType)):
                try:
                    names[name] = Held(value, self._referent_died)
                except TypeError:  # (no weak references to it: held)
                    pass
        self._identity_ids = set()
        if not names:
            return
        self.exprs = [g.expr(names) for g in self.guards]  # (their held names called)
        self._seen = set(self.exprs)
        for name, ref in names.items():
            self.namespace[name] = ref
        self.weak = names
        for src in self._ids.values():  # (the records' sources no longer hold them either)
            if isinstance(src, Object) and src.name in names:
                src.hold_weakly(names[src.name])
        # (the ids stay the names of objects only while they live; nothing adds guards later)
        self._ids = {k: v for k, v in self._ids.items() if not (isinstance(v, Object) and v.name in names)}

    def when_dead(self, callback) -> None:
        """Call ``callback()`` once an object this guard set holds weakly is collected."""
        self._on_death.append(callback)

    def _referent_died(self, _ref) -> None:
        for callback in self._on_death:
            try:
                callback()
            except Exception:
                pass

    # -- compiling ----------------------------------------------------------------------------------
    def compile(self):
        """One callable ``check(args) -> bool`` for all the guards: a C program
        (capture/guard_program.py) where the C helper is built, else a generated Python function.
        Objects guarded by identity are held weakly from then on (:meth:`hold_weakly`)."""
        from .guard_program import lower
        self.hold_weakly()
        return lower(self.guards, self.exprs, self.namespace, self._python_check, self.weak) or self._python_check(self.exprs)

    def _python_check(self, exprs):
        body = " and ".join(f"({e})" for e in exprs) or "True"
        src = f"def guard(args):\n    return {body}\n"
        ns = dict(self.namespace)
        exec(compile(src, "<capture guard>", "exec"), ns)
        return ns.pop("guard")  # (no function <-> globals cycle holding the guarded objects)

    def failures(self, args):
        """The guards (records) that fail for ``args``, in order: each guard's Python text
        evaluated (the oracle the C program agrees with; an error fails the guard)."""
        for guard, expr in zip(self.guards, self.exprs):
            try:
                ok = eval(expr, dict(self.namespace), {"args": args})  # our own strings
            except Exception as e:
                if interrupting(e) is not None:  # (the user's signal, not a failed guard)
                    raise
                ok = False
            if not ok:
                yield guard

    def first_failure(self, args) -> str | None:
        """The description of the first guard that fails for ``args`` (for recompile reasons)."""
        for guard in self.failures(args):
            return self._what_changed(guard, args) or guard.desc
        return None

    def _what_changed(self, guard, args) -> str | None:
        """For a failed tensor or constant guard: the argument, what tracing saw and what the call
        gives (``x: shape (32, 784) -> (17, 784), dim 0 changed``); None for other guards."""
        if guard.seen is None:
            return None
        desc, seen = guard.seen
        try:
            try:
                now = guard.source.read(args)
            except NotImplementedError:  # (a read written as text, our own: evaluated with our names)
                now = eval(guard.source.expr(self.weak), dict(self.namespace), {"args": args})
        except Exception as e:
            if interrupting(e) is not None:
                raise
            return None
        if seen[0] == "value":
            return f"{desc}: {seen[1]!r} -> {now!r}"
        return describe_tensor_change(desc, seen[1:], now)


#: what a dead :class:`Held` reference gives a guard: no object is it, it has no attribute
DEAD = type("DeadReferent", (), {"__slots__": (), "__repr__": lambda self: "<dead referent>"})()


class Held(weakref.ref):
    """A weak reference a guard reads through (``oN()``): the object, or :data:`DEAD` once it was
    collected (never None: ``x is oN()`` must fail for ``x`` None when the object died). The C
    guard program reads the reference itself (capture/_guard_vm.c, ``V_DEREF``)."""

    __slots__ = ()

    def __call__(self):
        obj = super().__call__()
        return DEAD if obj is None else obj


def describe_tensor_change(desc, seen, now) -> str:
    """``desc: shape (32, 784) -> (17, 784), dim 0 changed`` (and/or the dtype, type or device that
    changed) between what a tensor guard recorded (``seen``: class, array type, shape, dtype) and
    the value ``now``."""
    from runtime.tensor import Tensor
    cls, array_type, shape, dtype = seen
    if not isinstance(now, Tensor):
        return f"{desc}: a {cls.__name__} -> a {type(now).__name__}"
    if type(now) is not cls:
        return f"{desc}: type {cls.__name__} -> {type(now).__name__}"
    if type(now._data) is not array_type:
        return f"{desc}: device changed ({array_type.__module__} array -> {type(now._data).__module__} array)"
    changes = []
    new_shape = tuple(now.shape)
    if new_shape != shape:
        if len(new_shape) != len(shape):
            changes.append(f"shape {shape} -> {new_shape}, rank {len(shape)} -> {len(new_shape)}")
        else:
            dims = [i for i, (a, b) in enumerate(zip(shape, new_shape)) if a != b]
            which = f"dim {dims[0]}" if len(dims) == 1 else "dims " + ", ".join(map(str, dims))
            changes.append(f"shape {shape} -> {new_shape}, {which} changed")
    if now.dtype != dtype:
        changes.append(f"dtype {dtype} -> {now.dtype}")
    return f"{desc}: " + ("; ".join(changes) or "tensor changed")
