"""The op registry: one record per op, read by eager execution, both autodiffs, shape inference
and codegen.

An :class:`Op` holds
  * ``name`` (functional spelling, ``bias_add``) and ``prim`` (Primitive spelling, ``BiasAdd``);
  * ``inputs``: names of tensor operands (a leading ``*`` marks a variadic list, e.g. ``*xs``);
  * ``attrs``: ordered ``{name: Attr(default, check)}``; ``check`` normalises and validates;
  * ``impl(xp, *arrays, **attrs)``: generic over the array module (numpy or cupy);
  * ``infer(*avals, **attrs)``: output AVal(s); raises :func:`fail` errors naming op/shapes/attrs;
  * ``vjp(g, out, *inputs, **attrs)``: input cotangents written with registered ops through
    :func:`bind` (``F.mul(g, y)``), so it runs unchanged on eager tensors and on IR values;
  * ``kind``: how codegen lowers it: ``elementwise`` (with ``expr(E, *scalars, **attrs)``, a scalar
    expression over the emitter ``E``), ``reduction`` (with ``reduce`` = "add"/"max"/"min"),
    ``extern`` (a library call), ``view`` (layout only), or ``random``/``state`` (side effects);
  * ``communicates``: a collective (all-reduce...): every process of its group must run it, in the
    same order, so passes never remove, merge, fold or reorder it (:attr:`Op.has_effects`);
  * ``issue_early``: it starts asynchronous work (a non-blocking all-reduce), so schedulers run it,
    and what it needs, as soon as they can, letting that work overlap what follows;
  * ``shape_only``: its result depends on its operands' shapes and dtypes, never on their values
    (``ones_like``), so constant folding evaluates it whatever its operands are;
  * ``data_dependent_shape``: its output shape depends on its operands' values (``unique``), so
    ``infer`` cannot give one: it runs in PyNative only and graph capture breaks the graph there.
  * ``vjp_takes_none``: (ops with several outputs) its ``vjp`` takes None for an output that
    received no cotangent, instead of a tensor of zeros (graph/autodiff.py ``apply_vjp``).

:func:`bind` dispatches an op application on its arguments' types through a handler table that
upper layers fill (runtime: eager tensors; graph building: IR values), so this module imports
nothing above ``graph``.

Example:
    >>> from graph.ops import REGISTRY, F
    >>> REGISTRY["add"].prim
    'Add'
    >>> # F.add(x, y) == bind(REGISTRY["add"], x, y); runs eagerly on Tensors, records on IR values
"""
from __future__ import annotations

import builtins
import math
import threading
import types
from typing import Any, Callable

from ..aval import AVal
from ..dtypes import DType, as_dtype
from ..errors import op_label
from ..symint import holds_symbolic

REQUIRED = object()

ELEMENTWISE = "elementwise"
REDUCTION = "reduction"
EXTERN = "extern"
VIEW = "view"
RANDOM = "random"
STATE = "state"
KINDS = (ELEMENTWISE, REDUCTION, EXTERN, VIEW, RANDOM, STATE)


class Attr:
    """An op attribute: a default (or REQUIRED) and a ``check(value, op, name) -> value``."""

    __slots__ = ("default", "check", "doc")

    def __init__(self, default=REQUIRED, check: Callable | None = None, doc: str = ""):
        self.default = default
        self.check = check
        self.doc = doc


class Op:
    """One registered op. See the module docstring for the meaning of each field."""

    def __init__(self, name: str, *, prim: str, inputs: tuple[str, ...], impl: Callable,
                 infer: Callable, vjp: Callable | None = None, nondiff: str | None = None,
                 kind: str = EXTERN, expr: Callable | None = None, reduce: str | None = None,
                 attrs: dict[str, Attr] | None = None, n_outputs: int = 1,
                 eager_infer: bool | None = None, promote: bool = False, doc: str = "",
                 diff_inputs: tuple[int, ...] | None = None, mutates: int | None = None,
                 call_attrs: tuple[str, ...] = (), mixed_precision: bool = True,
                 communicates: bool = False, issue_early: bool = False, shape_only: bool = False,
                 data_dependent_shape: bool = False, vjp_takes_none: bool = False):
        if kind not in KINDS:
            raise ValueError(f"op {name}: unknown kind {kind!r}")
        if vjp is None and nondiff is None:
            raise ValueError(f"op {name}: give a vjp rule or a reason why it has none (nondiff=...)")
        if kind == ELEMENTWISE and expr is None:
            raise ValueError(f"op {name}: elementwise ops need a scalar expression builder (expr=...)")
        if kind == REDUCTION and reduce is None:
            raise ValueError(f"op {name}: reductions need reduce='add'|'max'|'min'")
        self.name = name
        self.prim = prim
        self.inputs = tuple(inputs)
        self.variadic = bool(self.inputs) and self.inputs[0].startswith("*")
        self.impl = impl
        self.infer_rule = infer
        self.vjp = vjp
        self.nondiff = nondiff
        self.kind = kind
        self.expr = expr
        self.reduce = reduce
        self.attrs = dict(attrs or {})
        self.n_outputs = n_outputs
        # Elementwise ops rely on numpy's broadcasting (identical to ours) and only need dtype
        # promotion; every other op validates shapes in eager mode too, so numpy can never
        # silently accept what graph mode rejects.
        self.eager_infer = (kind != ELEMENTWISE) if eager_infer is None else eager_infer
        self.promote = promote
        # inputs that take part in dtype promotion (a where() condition does not)
        self.promote_idx = tuple(i for i, n in enumerate(self.inputs) if n != "condition") if promote else ()
        # attributes a Primitive instance takes at call time (MindSpore: ReduceSum()(x, axis))
        self.call_attrs = tuple(call_attrs)
        self.doc = doc
        self.diff_inputs = diff_inputs
        self.mutates = mutates  # index of an input updated in place (assign-like ops)
        # whether float operands are cast to the compute dtype inside a Cell marked with
        # ``to_float`` (see :class:`computing_in`); never for ops that update their input in
        # place (the float32 master copy must receive the update)
        self.mixed_precision = mixed_precision and kind != STATE
        self.communicates = communicates
        self.issue_early = issue_early
        self.shape_only = shape_only
        self.data_dependent_shape = data_dependent_shape
        self.vjp_takes_none = vjp_takes_none
        # what passes must keep, in program order: random draws advance the shared stream,
        # state ops and mutations write memory, collectives talk to other processes
        self.has_effects = kind in (RANDOM, STATE) or mutates is not None or communicates
        self.label = op_label(name, prim)
        self._defaults = {k: a.default for k, a in self.attrs.items()}
        self._normalized: dict = {}  # memo of normalize(): _attrs_key(attrs) -> normalised attrs

    # -- attributes -------------------------------------------------------------------------
    def normalize(self, attrs: dict) -> dict:
        """Fill defaults, validate and normalise attributes (hashable result).

        Results are memoised per op for attributes made of plain values (the same few
        attribute sets recur on every step: VJP rules, ``ops.sum(x, axis=1)``); the returned dict
        is shared, so callers must not modify it."""
        key = _attrs_key(attrs)
        if key is not None:
            hit = self._normalized.get(key)
            if hit is not None:
                return hit
        out = self._normalize(attrs)
        if key is not None and len(self._normalized) < _NORMALIZED_PER_OP:
            self._normalized[key] = out
        return out

    def _normalize(self, attrs: dict) -> dict:
        out = {}
        for key, spec in self.attrs.items():
            v = attrs.get(key, spec.default)
            if v is REQUIRED:
                raise TypeError(f"{self.prim} (ops.{self.name}): missing required attribute {key!r}")
            out[key] = spec.check(v, self, key) if spec.check is not None and v is not None else v
        if len(attrs) > len(out) or any(k not in out for k in attrs):
            unknown = sorted(set(attrs) - set(out))
            raise TypeError(f"{self.prim} (ops.{self.name}): unknown attribute(s) {unknown}; "
                            f"valid: {list(self.attrs)}")
        return out

    # -- inference ----------------------------------------------------------------------------
    def infer(self, *avals, **attrs):
        return self.infer_rule(*avals, **attrs)

    def __repr__(self) -> str:
        return f"<op {self.name}>"


#: how many distinct attribute sets ``Op.normalize`` remembers per op
_NORMALIZED_PER_OP = 512
_PLAIN = (type(None), bool, int, float, str)
_PLAIN_SET = frozenset(_PLAIN)


def _attrs_key(attrs: dict):
    """A memo key for ``attrs`` that equals another only for identical values *and types* (a
    check must still reject ``axis=True`` although ``True == 1``), or None when a value is not a
    plain value (None, bool, int, float, str, a DType, or a tuple of those)."""
    key = []
    for k, v in attrs.items():
        t = type(v)
        if t is tuple:
            types = tuple(map(type, v))
            if not _PLAIN_SET.issuperset(types) or (float in types and 0.0 in v):
                return None  # (a zero among floats: -0.0 == 0.0, so such a tuple is never a key)
            key.append((k, t, types, v))
        elif t is float:
            # -0.0 == 0.0: the sign tells them apart (nan never equals itself: never found)
            key.append((k, t, v, math.copysign(1.0, v)))
        elif t in _PLAIN or t is DType:
            key.append((k, t, v))
        else:
            return None
    return tuple(key)


REGISTRY: dict[str, Op] = {}


def register(op: Op) -> Op:
    if op.name in REGISTRY:
        raise ValueError(f"op {op.name!r} registered twice")
    REGISTRY[op.name] = op
    return op


def get_op(name: str) -> Op:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown op {name!r}") from None


# -- dispatch ----------------------------------------------------------------------------------
_HANDLERS: dict[type, tuple[int, Callable]] = {}
_RESOLVED: dict[type, tuple[int, Callable] | None] = {}
_DEFAULT: list[Callable] = []


def register_handler(cls: type, handler: Callable, priority: int = 0) -> None:
    """Route ``bind`` calls whose arguments include a ``cls`` instance to ``handler(op, args, attrs)``.

    With several handled types among the arguments, the highest priority wins (graph building
    outranks eager tensors, so an eager constant inside a traced region becomes a graph constant).
    """
    _HANDLERS[cls] = (priority, handler)
    _RESOLVED.clear()


def set_default_handler(handler: Callable) -> None:
    """Handler for calls with no handled argument (all Python scalars / arrays)."""
    _DEFAULT[:] = [handler]


def _resolve(cls: type):
    for base in cls.__mro__:
        h = _HANDLERS.get(base)
        if h is not None:
            _RESOLVED[cls] = h
            return h
    _RESOLVED[cls] = None
    return None


_MISSING = object()

#: handlers for ops that have no tensor operand and must not be computed once at trace time,
#: innermost last: random draws (``ops.randn(2, 3)``: drawn anew on every run) and ops whose
#: attributes hold symbolic sizes (``ops.ones((n, n))`` with ``n = x.shape[1]``: graph.symint;
#: the node's attributes keep the sizes' expressions). A graph builder pushes one while it traces
#: framework code, so such an op becomes a graph node
_OPERANDLESS: list[Callable] = []


class operandless_draws_to:
    """Context manager routing the ops bound with no handled operand that a trace must keep as
    nodes (random draws; ops sized by symbolic sizes) to ``handler``."""

    def __init__(self, handler: Callable):
        self.handler = handler

    def __enter__(self):
        _OPERANDLESS.append(self.handler)
        return self

    def __exit__(self, *exc):
        _OPERANDLESS.remove(self.handler)
        return False


def _no_operand(op: Op, args, attrs):
    if _OPERANDLESS and (op.kind == RANDOM or holds_symbolic(attrs)):
        return _OPERANDLESS[-1](op, args, attrs)
    if not _DEFAULT:
        raise RuntimeError("no execution handler registered: import runtime first")
    return _DEFAULT[0](op, args, attrs)


class _ComputeDtype(threading.local):
    dtype = None  # per thread; None: operands keep their dtypes


#: the dtype float operands are cast to while a Cell marked with ``to_float`` runs (MindSpore's
#: mixed precision: float32 master weights, float16 arithmetic); read by :func:`bind`
COMPUTE_DTYPE = _ComputeDtype()


class computing_in:
    """Context manager: every op bound inside (eagerly or while tracing a graph) first casts its
    float operands to ``dtype`` -- parameters included, so a float16 Cell keeps float32 weights
    and differentiates through the casts back to them. Nests; ``None`` switches casting off.

    Example:
        >>> from graph.dtypes import float16
        >>> with computing_in(float16):
        ...     COMPUTE_DTYPE.dtype
        Float16
        >>> COMPUTE_DTYPE.dtype is None
        True
    """

    def __init__(self, dtype):
        self.dtype = None if dtype is None else as_dtype(dtype)

    def __enter__(self):
        self._outer = COMPUTE_DTYPE.dtype
        COMPUTE_DTYPE.dtype = self.dtype
        return self

    def __exit__(self, *exc):
        COMPUTE_DTYPE.dtype = self._outer
        return False


def _cast_operands(args, dtype):
    cast = REGISTRY["cast"]
    out = list(args)
    for i, a in enumerate(args):
        d = getattr(a, "dtype", None)
        if isinstance(d, DType) and d.is_float and d != dtype and is_tensorlike(a):
            out[i] = bind_normalized(cast, (a,), {"dtype": dtype})
    return tuple(out)


def bind(op: Op, /, *args, **attrs):
    """Apply ``op`` to ``args``: the handler for the arguments' types decides what that means."""
    if op.attrs:
        attrs = op.normalize(attrs)
    elif attrs:
        raise TypeError(f"{op.prim} (ops.{op.name}) takes no attributes, got {sorted(attrs)}")
    if COMPUTE_DTYPE.dtype is not None and op.mixed_precision:
        args = _cast_operands(args, COMPUTE_DTYPE.dtype)
    best = None
    for a in args:
        h = _RESOLVED.get(a.__class__, _MISSING)
        if h is _MISSING:
            h = _resolve(a.__class__)
        if h is not None and (best is None or h[0] > best[0]):
            best = h
    if best is None:
        return _no_operand(op, args, attrs)
    return best[1](op, args, attrs)


def bind_normalized(op: Op, args: tuple, attrs: dict):
    """``bind`` with attributes already normalised (Primitive instances, hot paths)."""
    if COMPUTE_DTYPE.dtype is not None and op.mixed_precision:
        args = _cast_operands(args, COMPUTE_DTYPE.dtype)
    n = len(args)
    if n == 1 or (n == 2 and args[0].__class__ is args[1].__class__):
        # (one class of operand: its handler, without the search for the highest priority)
        h = _RESOLVED.get(args[0].__class__, _MISSING)
        if h is not _MISSING and h is not None:
            return h[1](op, args, attrs)
    best = None
    for a in args:
        h = _RESOLVED.get(a.__class__, _MISSING)
        if h is _MISSING:
            h = _resolve(a.__class__)
        if h is not None and (best is None or h[0] > best[0]):
            best = h
    if best is None:
        return _no_operand(op, args, attrs)
    return best[1](op, args, attrs)


#: the classes of attribute values :func:`bind_remembering` remembers sets of: equal values of one
#: of these classes normalise alike (a float's -0.0 equals 0.0; a tuple's elements would need
#: their classes in the key too)
_MEMO_CLASSES = frozenset((type(None), bool, int, str, DType))
_MEMO_PER_CALLER = 512


def bind_remembering(op: Op, memo: dict, inputs: tuple, attrs: dict):
    """``bind`` for a caller that keeps its own memo of normalised attribute sets, keyed by each
    value's class and the value, in ``attrs``' order (True and 1 are different keys): normalise
    (raising what ``bind`` raises), remember the set when its values are all of
    :data:`_MEMO_CLASSES`, and bind. The caller looks its key up first and, on a hit, calls
    :func:`bind_normalized` with the remembered set: no keyword packing, no normalisation.

    Example:
        >>> import numpy as np, runtime  # (runtime: the eager handler that runs the op)
        >>> memo = {}
        >>> bind_remembering(REGISTRY["reduce_sum"], memo, (runtime.Tensor(np.ones((2, 3))),),
        ...                  {"axis": 1, "keep_dims": False})
        Tensor(shape=[2], dtype=Float64, value=[3., 3.])
        >>> memo[int, 1, bool, False]
        {'axis': (1,), 'keep_dims': False}
    """
    normalized = op.normalize(attrs)
    if len(memo) < _MEMO_PER_CALLER:
        key = []
        for v in attrs.values():
            if v.__class__ not in _MEMO_CLASSES:
                break  # (a tuple, a float...: normalize's own memo serves it)
            key.append(v.__class__)
            key.append(v)
        else:
            memo[tuple(key)] = normalized
    return bind_normalized(op, inputs, normalized)


def op_function(op: Op, input_names=None, *, sequence_input: bool = False, keyword_attrs: bool = False):
    """A Python function applying ``op``: ``def name(x, y, attr=default, ...)``.

    ``input_names``: the inputs' parameter names (default: the registry's). A variadic op takes
    its inputs as ``*xs``, or, with ``sequence_input``, as one sequence (``ops.concat((a, b))``).
    ``keyword_attrs``: attributes only by keyword.

    An op without attributes binds its inputs directly. An op with attributes looks its arguments
    up in the function's own memo of normalised attribute sets (:func:`bind_remembering`): a hit
    binds with the remembered set, a miss normalises (checking, and raising what ``bind``
    raises) and remembers.

    The function's code is compiled once per *shape* of signature (how many inputs, which
    attributes are required, which are keyword-only) with placeholder names, and each op's
    function is that code renamed (its parameters, name and file: what error messages, keyword
    calls and ``inspect.signature`` read) with its own defaults and globals: compiling a
    function per op cost ~50 us each, ~8 ms of ``import runtime`` and ~0.7 ms of a first
    training step (the VJP rules' functions are made on first use).

    Example:
        >>> import numpy as np, runtime  # (runtime: the eager handler that runs the op)
        >>> reduce_sum = op_function(REGISTRY["reduce_sum"])
        >>> reduce_sum(runtime.Tensor(np.ones((2, 3))), 1)
        Tensor(shape=[2], dtype=Float64, value=[3., 3.])
        >>> reduce_sum.__code__.co_code == op_function(REGISTRY["reduce_max"]).__code__.co_code
        True
    """
    params, real = [], {}  # placeholder parameters; placeholder -> the parameter's real name
    if op.variadic:
        real["_i0"] = op.inputs[0][1:]
        params.append("_i0" if sequence_input else "*_i0")
        inputs = "tuple(_i0)" if sequence_input else "_i0"
    else:
        names = op.inputs if input_names is None else input_names
        for i, n in enumerate(names):
            star = "*" if n.startswith("*") else ""  # (getitem's ``x, *indices``: the rest, starred)
            real[f"_i{i}"] = n[len(star):]
            params.append(f"{star}_i{i}")
        inputs = f"({', '.join(params)},)" if names else "()"
    if keyword_attrs and op.attrs and not any(p.startswith("*") for p in params):
        params.append("*")  # (after a starred input, attributes are keyword-only already)
    attrs = list(op.attrs.items())
    for i, (k, a) in enumerate(attrs):
        real[f"_a{i}"] = k
        params.append(f"_a{i}" if a.default is REQUIRED else f"_a{i}=_d{i}")
    if len(set(real.values())) != len(real):  # (a def with two parameters of one name: a SyntaxError)
        raise ValueError(f"op function {op.name}: parameter names repeat: {list(real.values())}")
    template = _template(params, inputs, len(attrs))
    code = template.__code__
    code = code.replace(co_varnames=tuple(real.get(v, v) for v in code.co_varnames), co_name=op.name,
                        co_qualname=op.name, co_filename=f"<graph.ops.{op.name}>")
    env = {"__builtins__": builtins, "_bind": bind_normalized, "_op": op, "_memo": {}, "_bind_kw": bind_remembering,
           "_NONE": {}, "_names": tuple(op.attrs)}
    # (the template's defaults are markers naming the attribute whose default stands there)
    defaults = tuple(attrs[d.index][1].default for d in template.__defaults__ or ())
    fn = types.FunctionType(code, env, op.name, defaults or None)
    if template.__kwdefaults__:
        fn.__kwdefaults__ = {real[p]: attrs[d.index][1].default for p, d in template.__kwdefaults__.items()}
    fn.__module__ = "graph.ops"  # (framework code: capture calls it, never inlines it)
    fn.__op__ = op
    return fn


class _DefaultOf:
    """In a template's defaults: the default of attribute ``index`` goes here."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


#: (placeholder parameters, inputs expression, number of attributes) -> the template function
_TEMPLATES: dict = {}


def _template(params, inputs, n_attrs):
    """The function (defaults: :class:`_DefaultOf` markers) whose code every op function with
    these placeholder parameters shares, compiled once per shape."""
    key = (tuple(params), inputs, n_attrs)
    template = _TEMPLATES.get(key)
    if template is not None:
        return template
    if not n_attrs:
        body = f"    return _bind(_op, {inputs}, _NONE)\n"
    else:
        names = [f"_a{i}" for i in range(n_attrs)]
        memo_key = ", ".join(f"{a}.__class__, {a}" for a in names)
        body = (f"    try:\n        _attrs = _memo[{memo_key}]\n"
                f"    except (KeyError, TypeError):\n"
                f"        return _bind_kw(_op, _memo, {inputs}, dict(zip(_names, ({', '.join(names)},))))\n"
                f"    return _bind(_op, {inputs}, _attrs)\n")
    namespace = {f"_d{i}": _DefaultOf(i) for i in range(n_attrs)}
    exec(compile(f"def _op_function({', '.join(params)}):\n{body}", "<graph.ops template>", "exec"), namespace)
    template = _TEMPLATES[key] = namespace["_op_function"]
    return template


class _Binder:
    """``F.mul(a, b)`` is ``bind(REGISTRY['mul'], a, b)`` (attributes by keyword): how VJP rules
    call ops."""

    def __getattr__(self, name: str):
        op = REGISTRY.get(name)
        if op is None:  # (an AttributeError, so hasattr, getattr with a default and copy work)
            raise AttributeError(f"graph.ops.F has no op {name!r}")
        call = op_function(op, keyword_attrs=True)
        setattr(self, name, call)
        return call


F = _Binder()


# -- errors and checks used by infer rules ---------------------------------------------------------
def fail(op_name: str, message: str, exc=ValueError):
    """Raise an error naming the op in both spellings (functional and Primitive)."""
    op = REGISTRY.get(op_name)
    prim = op.prim if op else op_name
    raise exc(f"{prim} (ops.{op_name}): {message}")


def shape_str(x) -> str:
    if hasattr(x, "shape"):
        return f"{tuple(x.shape)}"
    return repr(x)


def describe(x) -> str:
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return f"{x.dtype}{list(x.shape)}"
    return f"{type(x).__name__} {x!r}"


def is_tensorlike(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (int, float, bool))


class _VjpInputs(threading.local):
    needed = None  # per input of the VJP rule running now: is its cotangent read? (None: all are)


#: set by ``graph.autodiff.apply_vjp`` while a rule runs for the eager tape (read by :func:`input_needed`)
VJP_INPUTS = _VjpInputs()


def input_needed(k: int) -> bool:
    """Whether the VJP rule running now must compute the cotangent of its input ``k``. False only
    where the eager tape knows nothing reads it (an input that does not depend on what is
    differentiated: the data a first layer is given); graph autodiff asks for every cotangent
    (the graph's dead-code elimination removes unread ones). Rules whose cotangents are costly
    (matrix products, convolutions) skip the unread ones; any rule may ignore this."""
    needed = VJP_INPUTS.needed
    return needed is None or needed[k]


def gets_gradient(x) -> bool:
    """Whether an op operand receives a cotangent: float *and integer* tensors do, as in MindSpore
    2.x (whose bprops compute integer gradients in the input's dtype, e.g. ``grad(x * x)`` at an
    int32 ``x = 3`` is int32 ``6``); bool tensors, Python scalars and raw constants do not."""
    # (is_tensorlike written out, reading the dtype once: PyNative's backward asks this per cotangent)
    dtype = getattr(x, "dtype", None)
    if dtype is None or not hasattr(x, "shape") or isinstance(x, (int, float, bool)):
        return False
    return not getattr(dtype, "is_bool", True)


# attribute normalisers: (value, op, name) -> value
def a_int(v, op, name):
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            import numpy as np
            if isinstance(v, np.integer):
                return int(v)
        except ImportError:  # pragma: no cover
            pass
        raise TypeError(f"{op.prim} (ops.{op.name}): attribute {name} must be an int, got {v!r}")
    return v


def a_nonneg_int(v, op, name):
    v = a_int(v, op, name)
    if v < 0:
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be >= 0, got {v}")
    return v


def a_pos_int(v, op, name):
    v = a_int(v, op, name)
    if v <= 0:
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be > 0, got {v}")
    return v


def a_bool(v, op, name):
    if not isinstance(v, bool):
        try:
            import numpy as np
            if isinstance(v, np.bool_):
                return bool(v)
        except ImportError:  # pragma: no cover
            pass
        raise TypeError(f"{op.prim} (ops.{op.name}): attribute {name} must be a bool, got {v!r}")
    return v


def a_size(v, op, name):
    """A shape of non-negative sizes (an int is a 1-D shape): the ``shape`` of the ops that make a
    tensor from no operand (random draws, ``fill``)."""
    import numpy as np
    dims = (v,) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"{op.prim} (ops.{op.name}): {name} must be a tuple of ints, got {v!r}")
    out = tuple(a_int(d, op, name) for d in dims)
    if any(d < 0 for d in out):
        raise ValueError(f"{op.prim} (ops.{op.name}): {name} has a negative size: {out}")
    return out


def a_float(v, op, name):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        try:
            import numpy as np
            if isinstance(v, (np.floating, np.integer)):
                return float(v)
        except ImportError:  # pragma: no cover
            pass
        raise TypeError(f"{op.prim} (ops.{op.name}): attribute {name} must be a number, got {v!r}")
    return float(v)


def a_axis(v, op, name):
    """None, an int, or a sequence of ints -> None | tuple[int, ...] (not yet range-checked)."""
    if isinstance(v, (list, tuple)):
        return tuple(a_int(x, op, name) for x in v)
    return (a_int(v, op, name),)


def a_ints(v, op, name):
    if isinstance(v, (list, tuple)):
        return tuple(a_int(x, op, name) for x in v)
    return (a_int(v, op, name),)


def a_shape(v, op, name):
    t = a_ints(v, op, name)
    if any(s < -1 for s in t):
        raise ValueError(f"{op.prim} (ops.{op.name}): {name} has a negative size: {t}")
    return t


def a_dtype(v, op, name):
    try:
        return as_dtype(v)
    except TypeError as e:
        raise TypeError(f"{op.prim} (ops.{op.name}): attribute {name}: {e}") from None


def a_oneof(*choices):
    def check(v, op, name):
        if isinstance(v, str) and v.lower() in choices:
            return v.lower()
        raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be one of {list(choices)}, got {v!r}")
    return check


def a_pair(v, op, name):
    """int or (int, int) -> (int, int)"""
    if isinstance(v, (list, tuple)):
        if len(v) == 4:  # MindSpore allows (1, 1, s, s) for strides of NCHW
            v = v[2:]
        if len(v) != 2:
            raise ValueError(f"{op.prim} (ops.{op.name}): attribute {name} must be an int or a pair, got {v!r}")
        return (a_int(v[0], op, name), a_int(v[1], op, name))
    v = a_int(v, op, name)
    return (v, v)


def a_any(v, op, name):
    return v


#: normalize_axes results that passed the checks, by (axis, ndim): every eager reduction and its
#: gradient asks again for the same few (bounded: cleared when full)
_AXES: dict = {}


def normalize_axes(op_name: str, axis, ndim: int) -> tuple[int, ...]:
    """Axis attribute -> sorted tuple of non-negative axes; None or () means all axes."""
    # (memoised for the common attributes, None or one int axis, whose checks passed before: a
    # float or bool axis is never a key, as 1.0 and True equal 1)
    if type(ndim) is not int or not (axis is None or (type(axis) is tuple and len(axis) == 1
                                                        and type(axis[0]) is int)):
        return _normalize_axes(op_name, axis, ndim)
    key = (axis, ndim)
    out = _AXES.get(key)
    if out is None:
        out = _normalize_axes(op_name, axis, ndim)
        if len(_AXES) >= 4096:
            _AXES.clear()
        _AXES[key] = out
    return out


def _normalize_axes(op_name: str, axis, ndim: int) -> tuple[int, ...]:
    if axis is None or axis == ():
        return tuple(range(ndim))
    out = []
    for a in axis:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            fail(op_name, f"axis {a} is out of range for a tensor of rank {ndim}")
        if ndim:  # a 0-d tensor accepts axis 0/-1 and has nothing to reduce
            out.append(a % ndim)
    if len(set(out)) != len(out):
        fail(op_name, f"axis {tuple(axis)} repeats an axis")
    return tuple(sorted(out))


def normalize_axis(op_name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        fail(op_name, f"axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % ndim


def broadcast_shapes(op_name: str, *shapes) -> tuple[int, ...]:
    if len(shapes) == 2:
        a, b = shapes
        if a == b:
            return tuple(a)
        if len(a) == len(b):  # (the loop below for two shapes of one rank, unrolled)
            out = []
            for x, y in zip(a, b):
                if y != 1:
                    if x != 1 and x != y:
                        break
                    out.append(y)
                else:
                    out.append(x if x != 1 else 1)
            else:
                return tuple(out)
    nd = max(len(s) for s in shapes)
    out = []
    for i in range(nd):
        dim = 1
        for s in shapes:
            j = i - (nd - len(s))
            if j < 0:
                continue
            d = s[j]
            if d == 1:
                continue
            if dim != 1 and d != dim:
                fail(op_name, "shapes " + " and ".join(str(tuple(s)) for s in shapes)
                     + " cannot be broadcast together")
            dim = d
        out.append(dim)
    return tuple(out)


def require_float(op_name: str, *avals):
    for a in avals:
        if is_tensorlike(a) and not a.dtype.is_float:
            fail(op_name, f"expects a floating-point tensor, got {describe(a)}", TypeError)


def require_rank(op_name: str, x, *ranks, what="input"):
    if x.ndim not in ranks:
        want = " or ".join(str(r) for r in ranks)
        fail(op_name, f"{what} must have rank {want}, got shape {tuple(x.shape)}")


Any  # re-exported for type hints in op families
__all__ = ["Op", "Attr", "REQUIRED", "REGISTRY", "register", "get_op", "bind", "bind_normalized",
           "register_handler", "set_default_handler", "F", "fail", "AVal", "DType"]
