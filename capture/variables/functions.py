"""Callables met while tracing: user functions (inlined), framework functions (called with
symbolic tensors), builtins, classes, partials, gradient transforms, and opaque callables.

A callable that exists outside the frame (``fn``) is that object after the graph; one the
traced code makes (a nested function or lambda, a bound method, a partial) is rebuilt from its
parts (see each class's ``reconstruct``)."""
from __future__ import annotations

import builtins
import collections
import functools
import inspect
import io
import math
import operator
import types

import numpy as np

from graph import symint as graph_symint
from graph.ops import F
from graph.ops.core import operandless_draws_to
from graph.autodiff import append_vjp
from graph.ir import NODE

from ..builder import SymTensor, lifting_parameters
from ..errors import CaptureUserError, GraphBreak, MissingAttribute
from ..sources import Attr, Call, Lit
from .base import ConstantVariable, NoPythonValue, NotResumable, Variable
from .containers import (SKIP, DefaultDictVariable, DictVariable, dict_items_of, IteratorVariable, ListVariable,
                         TupleVariable, iterator_pipeline, plain_tuple)
from .tensor import TensorVariable

from .dict_views import DictViewVariable, MappingProxyVariable
from .deques import DequeVariable
from .generators import GeneratorVariable
from .streams import StringIOVariable, trace_print

FRAMEWORK_PREFIXES = ("runtime.", "graph.", "codegen.")
#: Variables with no Python object at trace time whose exact type is known
_TYPED_WITHOUT_VALUE = (GeneratorVariable, DictViewVariable, MappingProxyVariable, StringIOVariable, DequeVariable,
                        DefaultDictVariable)
_PURE_MODULES = {"math", "operator", "_operator", "cmath"}


def is_framework_callable(obj) -> bool:
    mod = getattr(obj, "__module__", None) or ""
    if isinstance(obj, types.MethodType):
        mod = getattr(obj.__func__, "__module__", "") or ""
    return mod.startswith(FRAMEWORK_PREFIXES) or mod in ("runtime", "graph")


class KnownCallableVariable(Variable):
    """A callable object known at trace time (``fn``): after the graph it is that same object
    (read from the call when it is one of the call's arguments)."""

    def __init__(self, fn):
        self.fn = fn

    def python_value(self):
        return self.fn

    def reconstruct(self, rec):
        return rec.object_recipe(self.fn)


class UserFunctionVariable(KnownCallableVariable):
    """A Python function whose bytecode is inlined into the captured frame; with ``self_var``,
    a method bound to that value (rebuilt as a bound method of the rebuilt object)."""

    def __init__(self, fn, self_var=None):
        self.fn = fn
        self.self_var = self_var

    def python_value(self):
        if self.self_var is not None:
            raise NoPythonValue(f"the bound {self.describe()} has no Python value at trace time")
        return self.fn

    def reconstruct(self, rec):
        if self.self_var is None:
            return rec.object_recipe(self.fn)
        return ("method", rec.object_recipe(self.fn), rec.of(self.self_var))

    def call(self, tx, args, kwargs):
        if self.self_var is not None:
            args = [self.self_var] + list(args)
        fn = getattr(self.fn, "__wrapped_jit__", self.fn)  # a jitted function is inlined too
        if not isinstance(fn, types.FunctionType):
            return tx.wrap(fn).call(tx, args, kwargs)
        return tx.inline_function(fn, args, kwargs)

    def getattr(self, tx, name):
        if self.self_var is None and name in _FUNCTION_METADATA and isinstance(self.fn, types.FunctionType):
            value = getattr(self.fn, name)
            tx.guards.python_value(Attr(tx.guards.obj(self.fn), name), value, f"{self.fn.__qualname__}.{name}")
            return tx.wrap(value)
        return super().getattr(tx, name)

    def describe(self):
        return f"function {getattr(self.fn, '__qualname__', self.fn)}"


class PolyfillVariable(UserFunctionVariable):
    """A C-implemented helper (``functools.reduce``, ``itertools.chain``...) whose pure-Python
    version (``capture.polyfills``) is inlined when it is called; as a value (returned, stored,
    compared, passed to ``isinstance``) it is still the original object."""

    def __init__(self, original, polyfill, made_type=None):
        super().__init__(polyfill)
        self.original = original
        # the class of the object a call makes (itertools.chain.from_iterable makes a chain)
        self.made_type = made_type if made_type is not None else (original if isinstance(original, type) else None)

    def python_value(self):
        return self.original

    def getattr(self, tx, name):
        import itertools
        if self.original is itertools.chain and name == "from_iterable":  # (a new bound method per read)
            from ..polyfills import chain_from_iterable
            return PolyfillVariable(itertools.chain.from_iterable, chain_from_iterable, made_type=itertools.chain)
        return super().getattr(tx, name)

    def reconstruct(self, rec):
        return rec.object_recipe(self.original)

    def call(self, tx, args, kwargs):
        # a polyfill that is a generator (itertools.chain, islice) stands for an object of the
        # original's class; one that outlives the graph unstarted is made by the original
        from ..polyfills import CALL_PREPARES
        original = self.original
        prepare = next((p for o, p in CALL_PREPARES.items() if o is original), None)
        if prepare is not None:  # the original's call-time work: (args, kwargs) for the generator
            prepared = tx.inline_function(prepare, list(args), kwargs)
            args, kwargs = prepared.items[0].items, prepared.items[1].items
        return tx.inline_function(self.fn, list(args), kwargs, make_function=lambda rec: rec.object_recipe(original),
                                  made_type=self.made_type)


_FUNCTION_METADATA = ("__name__", "__qualname__", "__module__", "__doc__", "__defaults__", "__kwdefaults__")


class NestedFunctionVariable(Variable):
    """A function or lambda created by MAKE_FUNCTION inside the traced code (closures kept)."""

    def python_type(self):
        return types.FunctionType

    def __init__(self, code, f_globals, defaults, kwdefaults, closure):
        self.code = code
        self.f_globals = f_globals
        self.defaults = defaults or ()
        self.kwdefaults = kwdefaults or {}
        self.closure = closure or ()  # tuple of Box

    def reconstruct(self, rec):
        """A new function of the same code, defaults and closure. At a graph break only over
        cells that outlive the frame (free variables of the captured function), not over its own
        locals (the resumed code has cells of its own); in the frame's result, its own locals'
        cells are new cells holding their final values (``Recipes.local_cell``)."""
        cells = []
        for box in self.closure:
            cell = rec.free_cells.get(id(box))
            if cell is None:
                if not rec.frame_done:
                    raise NotResumable("a closure over a local of the frame is live at the break")
                cell = rec.local_cell(box)
            cells.append(cell)
        return ("func", self.code, self.f_globals,
                [rec.of(d) if isinstance(d, Variable) else ("val", d) for d in self.defaults],
                {k: rec.of(v) if isinstance(v, Variable) else ("val", v) for k, v in self.kwdefaults.items()},
                cells, rec.memo_key())

    def call(self, tx, args, kwargs):
        return tx.inline_code(self.code, self.f_globals, args, kwargs, self.defaults, self.kwdefaults,
                              self.closure, name=self.code.co_name, make_function=lambda rec: rec.of(self))


class FrameworkCallableVariable(KnownCallableVariable):
    """A callable of this framework (ops.*, Primitives, composites): called directly with symbolic
    tensors, since it only builds ops through ``bind``."""

    def call(self, tx, args, kwargs):
        from ..translator import symbolic_realize
        with symbolic_realize(tx):  # sizes handed in keep their expressions (capture.symbolic_sizes)
            rargs = [a.realize(tx) for a in args]
            rkw = {k: v.realize(tx) for k, v in kwargs.items()}
        # only Python values (a method of a traced tensor, ``x.reshape(1, n)``, is not: its
        # receiver is one)
        constant = _all_const(args) and _all_const(kwargs.values()) and \
            not isinstance(getattr(self.fn, "__self__", None), SymTensor)
        if constant and (graph_symint.holds_symbolic(rargs) or graph_symint.holds_symbolic(rkw)):
            if getattr(self.fn, "keeps_symbolic_sizes", False):
                # a tensor made from sizes (``ops.ones((n, n))``): a graph node sized by their
                # expressions (graph.ops.creation)
                constant = False
            else:
                # only Python values: the result is computed now (a graph constant), so the sizes
                # are read as values
                rargs = [a.realize(tx) for a in args]
                rkw = {k: v.realize(tx) for k, v in kwargs.items()}
        name = getattr(self.fn, "__qualname__", None) or type(self.fn).__name__
        try:
            # ops.randn(...) draws on every run; ops on Parameters the code reaches are graph nodes
            with operandless_draws_to(tx.builder.draw), lifting_parameters(tx.builder):
                out = self.fn(*rargs, **rkw)
        except (GraphBreak, CaptureUserError):
            raise
        except Exception as e:
            # framework code that cannot run on symbolic tensors (or a bad argument: the eager run
            # raises it with PyNative's message)
            raise GraphBreak(f"{name}() cannot run on traced values: {type(e).__name__}: {e}",
                             hint="the frame runs eagerly") from None
        if constant:
            return _const_tensors(tx, out)  # built from Python values only: graph constants
        if (graph_symint.holds_symbolic(rargs) or graph_symint.holds_symbolic(rkw)) and _holds_python_number(out):
            # a number the framework computed from a size: its value depends on the size the
            # way the framework code says, which the trace does not follow, so the sizes count
            # as read (capture.dynamic compares the reads of two traces)
            for a in list(args) + list(kwargs.values()):
                a.realize(tx)
        return tx.wrap(out, fresh=True)

    def describe(self):
        return f"framework callable {getattr(self.fn, '__name__', type(self.fn).__name__)}"


class TensorMethodVariable(FrameworkCallableVariable):
    """A framework method of a traced tensor (``x.nonzero``): called on the symbolic tensor like
    any framework callable; rebuilt after the graph (a break before its call, whose resume makes
    the call) as that method of the rebuilt tensor, never of the symbolic stand-in."""

    def __init__(self, fn, tensor_var, name):
        super().__init__(fn)
        self.tensor_var, self.name = tensor_var, name

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.tensor_var), self.name)


class PureFunctionVariable(KnownCallableVariable):
    """A side-effect-free function (math.*, operator.*): evaluated at trace time on constants."""

    def call(self, tx, args, kwargs):
        symbolic = _symbolic_size_call(self.fn, args, kwargs)
        if symbolic is not None:
            return symbolic
        if all(a.is_const() for a in args) and all(v.is_const() for v in kwargs.values()) and "out" not in kwargs:
            return _call_at_trace_time(tx, self.fn, args, kwargs)
        if getattr(self.fn, "__module__", None) in ("operator", "_operator"):
            return tx.apply_python_operator(self.fn, args)
        mod = getattr(self.fn, "__module__", None) or ("numpy" if isinstance(self.fn, np.ufunc) else "")
        raise GraphBreak(f"call to {mod + '.' if mod else ''}{self.fn.__name__} with traced values (tensors), "
                         "which capture cannot trace",
                         hint="use the framework's ops (runtime.ops) on tensors, or accept the graph break")


#: functions of one number that keep a symbolic size's expression (capture.symbolic_sizes)
_SIZE_FUNCTIONS = {math.sqrt: graph_symint.sqrt, float: lambda n: n * 1.0}  # (n * 1.0 is exactly float(n))


def _symbolic_size_call(fn, args, kwargs):
    """``fn(arg)`` keeping the expression of a symbolic size ``arg`` (``math.sqrt(n)``,
    ``float(n)``) as a size variable; None when ``fn`` or its arguments are not such."""
    from .tensor import ShapeDimVariable
    symbolic = _SIZE_FUNCTIONS.get(fn)
    if symbolic is None or len(args) != 1 or kwargs:
        return None
    arg = args[0]
    if not isinstance(arg, ShapeDimVariable) or arg.expr is None:
        return None
    out = symbolic(graph_symint.tagged(arg._size, arg.expr))
    return ShapeDimVariable(out._plain(), arg._log, out.expr) if graph_symint.is_symbolic(out) else None


def _holds_python_number(value) -> bool:
    if isinstance(value, (int, float, complex)):  # (bools too: a branch may follow)
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_python_number(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_python_number(v) for v in value.values())
    return False


def _all_const(args):
    return all(a.is_const() for a in args)


def _const_tensors(tx, value):
    """Wrap a result computed from Python values only: fresh eager tensors in it become graph
    constants (each call returns its own copy), Parameters stay graph inputs."""
    from runtime.parameter import Parameter
    from runtime.tensor import Tensor
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return TensorVariable(tx.builder.const(value._data))
    if (isinstance(value, tuple) and plain_tuple(value)) or type(value) is list:
        items = [_const_tensors(tx, v) for v in value]
        return TupleVariable(items, cls=type(value)) if isinstance(value, tuple) else ListVariable(items)
    return tx.wrap(value, fresh=True)


def _array_read_per_call(array, made):
    """``Tensor(array)`` copies ``array``'s contents *when it runs* (as MindSpore's constructor
    does), so for an array from outside the frame a graph must read them on every call, not keep
    the ones seen while tracing (a global or attribute array changed in place later): a Tensor
    sharing ``array``'s memory, to be lifted as a graph input (graphs never write their inputs).
    (An array the frame made from constants stays a constant.) None when the tensor traced
    (``made``) is not a plain copy of it (another dtype or layout, or another device): then it
    stays a constant."""
    from runtime.tensor import Tensor
    if not array.flags.c_contiguous or made._data.dtype != array.dtype or not isinstance(made._data, np.ndarray):
        return None
    view = Tensor.from_numpy(array)
    return view if np.shares_memory(view._data, array) else None


def _is_numpy_function(obj) -> bool:
    """numpy's functions are pure on constant arguments (np.random is not: it must run per call)."""
    mod = getattr(obj, "__module__", None) or ""
    return (mod == "numpy" or mod.startswith("numpy.")) and not mod.startswith("numpy.random") and \
        isinstance(obj, (types.FunctionType, types.BuiltinFunctionType))


def _call_at_trace_time(tx, fn, args, kwargs):
    """Evaluate a pure function on Python constants now; its errors make the frame run eagerly
    (where Python raises them)."""
    try:
        out = fn(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()})
    except Exception as e:
        from ..errors import UserException
        name = getattr(fn, "__name__", type(fn).__name__)
        raise UserException(e, f"{name}() raised {type(e).__name__} at trace time: {e}",
                            hint="the frame runs eagerly so Python raises the error") from None
    return tx.wrap(out, fresh=True)


def _fold_tensor_minmax(tx, fn, items, key):
    """``max``/``min`` over single-element tensors of one shape and dtype, as CPython runs it:
    the running best is replaced only where ``item > best`` (``<`` for min), so the first of
    equal items and a NaN already chosen are kept. Eager returns one of the tensors, so only
    tensors the frame computed qualify (no caller can hold them and see a different identity).
    None where that does not hold (mixed with numbers, several elements, a key, an argument or
    Parameter): then the result's type or identity depends on the values."""
    if key is not None and not (key.is_const() and key.value is None):
        return None
    if not items or not all(isinstance(v, TensorVariable) and v.sym.value.kind == NODE for v in items):
        return None
    first = items[0].sym.value.aval
    if any(v.sym.value.aval.shape != first.shape or v.sym.value.aval.dtype != first.dtype for v in items) \
            or int(np.prod(first.shape)) != 1:
        return None
    better = F.greater if fn is max else F.less
    best = items[0].sym.value
    for item in items[1:]:
        value = item.sym.value
        best = F.where(better(value, best), value, best)
    return TensorVariable(SymTensor(best, tx.builder))


class BuiltinVariable(KnownCallableVariable):
    """Python builtins with trace-time semantics."""

    def describe(self):
        return f"builtin {self.fn.__name__}"

    def getattr(self, tx, name):
        if self.fn is dict and name == "fromkeys":  # (a new bound method per read: no identity)
            from ..polyfills import dict_fromkeys
            return PolyfillVariable(dict.fromkeys, dict_fromkeys)
        return super().getattr(tx, name)

    def realize(self, tx):
        return self.fn

    def reconstruct(self, rec):
        return ("val", self.fn)

    def call(self, tx, args, kwargs):
        name = self.fn.__name__
        handler = getattr(self, f"_call_{name}", None)
        if handler is not None:
            try:
                return handler(tx, *args, **kwargs)
            except (TypeError, ValueError, ArithmeticError, LookupError) as e:
                # the builtin itself raised on these trace-time values (``abs('a')``), or the
                # call does not fit its signature (``abs()``): the call breaks, so Python raises
                # its own exception, with its own message, where a handler of the user's may
                # catch it (this escaped as an internal error)
                raise GraphBreak(f"builtin {name}() raises {type(e).__name__} here (at run time too)",
                                 hint="the call runs eagerly so Python raises the error") from None
        symbolic = _symbolic_size_call(self.fn, args, kwargs)
        if symbolic is not None:
            return symbolic
        if name in _CONST_FOLDABLE and _all_const(args) and _all_const(kwargs.values()):
            return _call_at_trace_time(tx, self.fn, args, kwargs)
        raise GraphBreak(f"builtin {name}() with these arguments is not supported in graph mode",
                         hint="call it outside construct, or accept the graph break")

    def _call_setattr(self, tx, obj, name, value):
        """``setattr(obj, "name", value)``: the same store as ``obj.name = value``."""
        if not (name.is_const() and type(name.value) is str):
            raise GraphBreak("setattr() with a name not known at trace time",
                             hint="call it outside construct, or accept the graph break")
        obj.setattr(tx, name.value, value)
        return ConstantVariable(None)

    def _call_bool(self, tx, *args, **kwargs):
        """``bool(x)``: what ``if x:`` decides (``truth``), for a value of any kind."""
        if kwargs or len(args) > 1:
            raise GraphBreak("bool() takes at most 1 argument (TypeError at run time)")
        if not args:
            return ConstantVariable(False)
        if args[0].is_const():
            return _call_at_trace_time(tx, bool, args, {})
        return ConstantVariable(bool(args[0].truth(tx)))

    def _call_len(self, tx, x):
        if isinstance(x, TensorVariable):  # ``len(x)``: ``x.shape[0]``, a symbolic size
            return x.length_variable(tx)
        return ConstantVariable(x.length(tx))

    def _call_isinstance(self, tx, obj, cls):
        target = _class_spec(tx, cls)
        from .objects import NewObjectVariable
        if isinstance(obj, NewObjectVariable):
            return ConstantVariable(issubclass(obj.cls, target))
        if isinstance(obj, TensorVariable):
            return ConstantVariable(_is_tensor_class(target, obj.python_type()))
        if isinstance(obj, _TYPED_WITHOUT_VALUE):
            # a generator / dict view the frame made: its type is known, its object is not yet
            return ConstantVariable(issubclass(obj.python_type(), target))
        return ConstantVariable(isinstance(tx.python_value(obj), target))

    def _call_issubclass(self, tx, sub, cls):
        return ConstantVariable(issubclass(_class_spec(tx, sub), _class_spec(tx, cls)))

    def _call_range(self, tx, *args):
        if not _all_const(args):
            raise GraphBreak("range() over traced values")
        return ConstantVariable(range(*[a.value for a in args]))

    def _call_zip(self, tx, *its, strict=None):
        if strict is not None and (not strict.is_const() or strict.value):
            # strict zip raises at the end when lengths differ: Python decides that
            if not strict.is_const() or any(isinstance(it, IteratorVariable) for it in its) \
                    or len({it.length(tx) for it in its}) > 1:
                raise GraphBreak("zip(strict=True) whose lengths are not known to match")
        return iterator_pipeline(tx, its, lambda tx, row: TupleVariable(row), "zip")

    def _call_enumerate(self, tx, it, start=None):
        count = [start.value if start is not None else 0]

        def numbered(tx, row):
            count[0] += 1
            return TupleVariable([ConstantVariable(count[0] - 1), row[0]])
        return iterator_pipeline(tx, [it], numbered, "enumerate")

    def _call_map(self, tx, fn, *its):
        return iterator_pipeline(tx, its, lambda tx, row: fn.call(tx, row, {}), "map")

    def _call_filter(self, tx, fn, it):
        def keep(tx, row):
            test = row[0] if fn.is_const() and fn.value is None else fn.call(tx, row, {})
            return row[0] if test.truth(tx) else SKIP
        return iterator_pipeline(tx, [it], keep, "filter")

    def _call_reversed(self, tx, it):
        if isinstance(it, IteratorVariable):
            raise GraphBreak("reversed() of an iterator raises TypeError")
        return IteratorVariable(list(reversed(it.iterate(tx))), type(reversed(())))

    def _call_list(self, tx, it=None):
        return ListVariable([] if it is None else it.iterate(tx))

    def _call_tuple(self, tx, it=None):
        return TupleVariable([] if it is None else it.iterate(tx))

    def _call_dict(self, tx, *args, **kwargs):
        if len(args) > 1:
            raise GraphBreak(f"dict expected at most 1 argument, got {len(args)} (TypeError at run time)")
        items = dict_items_of(tx, args[0]) if args else {}
        items.update(kwargs)
        return DictVariable(items)

    def _call_getattr(self, tx, obj, name, default=None):
        if not name.is_const():
            raise GraphBreak("getattr with a traced name")
        try:
            return obj.getattr(tx, name.value)
        except MissingAttribute:
            if default is not None:
                return default
            raise

    def _call_hasattr(self, tx, obj, name):
        if not name.is_const():
            raise GraphBreak("hasattr with a traced name")
        known = obj.has_attribute(tx, name.value)
        if known is not None:
            return ConstantVariable(known)
        try:
            obj.getattr(tx, name.value)
            return ConstantVariable(True)
        except MissingAttribute:
            return ConstantVariable(False)
        except GraphBreak as e:  # the attribute may well exist: only Python can answer
            raise GraphBreak(f"hasattr({obj.describe()}, {name.value!r}) cannot be decided at trace time: "
                             f"{e.reason}") from None

    def _call_callable(self, tx, *args, **kwargs):
        if len(args) != 1 or kwargs:
            raise GraphBreak("callable() takes exactly one argument (TypeError at run time)")
        (obj,) = args
        if obj.is_const():
            return ConstantVariable(callable(obj.value))
        from .base import NoPythonValue
        try:
            return ConstantVariable(callable(obj.python_value()))
        except NoPythonValue:
            pass
        kind = obj.python_type()  # (a value the frame made: its type decides, as in CPython)
        if kind is object:
            raise GraphBreak(f"callable() of a {obj.describe()} whose type is not known at trace time")
        # (an instance is callable when its class's MRO defines __call__; ``hasattr(kind, ...)``
        # would find the metaclass's)
        return ConstantVariable(any("__call__" in vars(k) for k in kind.__mro__))

    def _call_print(self, tx, *args, **kwargs):
        # into a StringIO the frame made: modelled; anything else breaks (variables/streams.py)
        return trace_print(tx, args, kwargs)

    def _call_locals(self, tx):
        """A snapshot of the calling frame's variables, as Python 3.11-3.13 give it."""
        from .objects import Box
        code, snapshot = tx.code, {}
        for name in code.co_varnames + code.co_cellvars + code.co_freevars:
            v = tx.locals.get(name)
            if isinstance(v, Box):
                v = v.value
            if v is not None and name not in snapshot and not (name == "__class__" and name in code.co_freevars):
                snapshot[name] = v
        return DictVariable(snapshot)

    def _frame_reader(self, tx, *args, **kwargs):
        # eval/exec/vars()/dir() see every local by name: resumed code after a break would only
        # have the live ones, so the whole frame runs eagerly (in a callee, the call does)
        if self.fn.__name__ in ("eval", "exec") and len(args) + len(kwargs) >= 2:
            raise GraphBreak(f"{self.fn.__name__}() runs Python code")
        if self.fn.__name__ in ("eval", "exec") or not (args or kwargs):
            raise GraphBreak(f"{self.fn.__name__}() reads the frame's local variables by name",
                             resumable=tx.depth > 0, hint="the function runs eagerly")
        raise GraphBreak(f"builtin {self.fn.__name__}() is not supported in graph mode")

    _call_eval = _call_exec = _call_dir = _frame_reader

    def _call_vars(self, tx, *args, **kwargs):
        """``vars(obj)`` is ``obj.__dict__`` (``vars()`` reads the frame: see _frame_reader)."""
        if len(args) == 1 and not kwargs and not args[0].is_const():
            try:
                return args[0].getattr(tx, "__dict__")
            except MissingAttribute:
                raise GraphBreak("vars() argument must have __dict__ attribute (TypeError at run time)") from None
        return self._frame_reader(tx, *args, **kwargs)

    def _call_iter(self, tx, it):
        if isinstance(it, IteratorVariable):
            return it  # iter() of an iterator is the iterator itself
        if isinstance(it, ListVariable) and it.kind is list:
            from .containers import ListIteratorVariable
            return ListIteratorVariable(it)
        made = it.python_type()
        return IteratorVariable(it.iterate(tx), type(iter(made())) if made in (list, tuple, dict, str) else None)

    def _call_next(self, tx, it, default=None):
        if isinstance(it, IteratorVariable):
            v = it.next(tx)
            if v is None:
                if default is None:
                    raise GraphBreak("next() on an exhausted iterator")
                return default
            return v
        raise GraphBreak("next() on this value")

    def _call_sum(self, tx, it, start=None):
        items = it.iterate(tx)
        acc = start if start is not None else ConstantVariable(0)
        for v in items:
            acc = tx.binary_op("ADD", acc, v)
        return acc

    def _keys(self, tx, items, key):
        """Trace-time sort/min/max keys: ``key`` called on each item must give a Python value."""
        if key is None or (key.is_const() and key.value is None):
            if not _all_const(items):
                return None
            return [a.value for a in items]
        out = []
        for item in items:
            k = key.call(tx, [item], {})
            if not k.is_const():
                return None
            out.append(k.value)
        return out

    def _minmax(self, tx, fn, args, key=None, default=None):
        items = args[0].iterate(tx) if len(args) == 1 else list(args)
        if not items and default is not None:
            return default
        keys = self._keys(tx, items, key)
        if keys is None:
            folded = _fold_tensor_minmax(tx, fn, items, key)
            if folded is not None:
                return folded
            raise GraphBreak(f"{fn.__name__}() over tensors whose result's type or identity depends on the "
                             f"values (mixed with numbers, argument tensors or Parameters, a key, or tensors of "
                             f"several elements or of different shapes/dtypes)",
                             hint="use ops.maximum/ops.minimum or a reduction")
        try:
            best = fn(range(len(items)), key=lambda i: keys[i])
        except Exception as e:
            raise GraphBreak(f"{fn.__name__}() raised {type(e).__name__} at trace time: {e}")
        return items[best]

    def _call_max(self, tx, *args, key=None, default=None):
        return self._minmax(tx, max, args, key, default)

    def _call_min(self, tx, *args, key=None, default=None):
        return self._minmax(tx, min, args, key, default)

    def _call_any(self, tx, it):
        return ConstantVariable(any(v.truth(tx) for v in _items_on_demand(tx, it)))

    def _call_all(self, tx, it):
        return ConstantVariable(all(v.truth(tx) for v in _items_on_demand(tx, it)))

    def _call_sorted(self, tx, it, key=None, reverse=None):
        items = it.iterate(tx)
        keys = self._keys(tx, items, key)
        if keys is None or (reverse is not None and not reverse.is_const()):
            raise GraphBreak("sorted() of traced values (tensors)")
        try:
            order = sorted(range(len(items)), key=lambda i: keys[i], reverse=bool(reverse.value) if reverse else False)
        except Exception as e:
            raise GraphBreak(f"sorted() raised {type(e).__name__} at trace time: {e}")
        return ListVariable([items[i] for i in order])

    def _call_abs(self, tx, x):
        if isinstance(x, TensorVariable):
            return tx.wrap(abs(x.sym))
        return tx.wrap(abs(x.value))

    def _call_super(self, tx, *args):
        if args:
            cls, obj = args[0].realize(tx), tx.python_value(args[1])
        else:
            cls, obj = tx.current_class(), tx.current_self()
        return SuperVariable(cls, obj, tx.current_self_var() if not args else args[1])

    def _call_type(self, tx, x):
        return ClassVariable(x.python_type())


def _items_on_demand(tx, it):
    """The items of ``it``, taken one at a time (``any``/``all`` stop early: an iterator keeps
    the rest, and a generator runs no further than Python runs it)."""
    if not isinstance(it, IteratorVariable):
        yield from it.iterate(tx)
        return
    while (v := it.next(tx)) is not None:
        yield v


def _class_spec(tx, var):
    """The class (or tuple of classes) a Variable stands for, for isinstance/issubclass."""
    if isinstance(var, ClassVariable):
        return var.cls
    if isinstance(var, BuiltinVariable) and isinstance(var.fn, type):
        return var.fn
    if isinstance(var, TupleVariable):
        return tuple(_class_spec(tx, v) for v in var.items)
    if var.is_const() and isinstance(var.value, (type, tuple)):
        return var.value
    raise GraphBreak(f"isinstance/issubclass with a {var.describe()} as the class")


def _is_tensor_class(target, tensor_cls):
    """isinstance(<a traced tensor>, target): traced tensors stand for eager Tensors."""
    classes = target if isinstance(target, tuple) else (target,)
    out = False
    for c in classes:
        if isinstance(c, tuple):
            out = out or _is_tensor_class(c, tensor_cls)
        elif isinstance(c, type):
            out = out or issubclass(tensor_cls, c) or c is SymTensor
    return out


_CONST_FOLDABLE = {"int", "float", "bool", "str", "round", "divmod", "pow", "sorted", "all", "any",
                   "repr", "format", "hash", "ord", "chr", "callable", "set", "frozenset", "slice"}


class SuperVariable(Variable):
    """``super()`` / ``super(cls, obj)``: methods found through it are inlined on ``obj_var``."""

    def __init__(self, cls, obj, obj_var):
        self.cls, self.obj, self.obj_var = cls, obj, obj_var

    def reconstruct(self, rec):
        return ("super", ("val", self.cls), rec.of(self.obj_var))

    def getattr(self, tx, name):
        attr = getattr(super(self.cls, self.obj), name)
        from .exceptions import ExceptionMethodVariable, ExceptionVariable
        if isinstance(self.obj_var, ExceptionVariable) and isinstance(self.obj, BaseException) and \
                not isinstance(attr, types.MethodType) and getattr(attr, "__self__", None) is self.obj:
            # ``super().__init__(msg)`` in an exception class's __init__: the builtin method on
            # the trace-local exception object
            return ExceptionMethodVariable(self.obj_var, name, attr)
        if isinstance(attr, types.MethodType) and not is_framework_callable(attr):
            return UserFunctionVariable(attr.__func__, self.obj_var)
        return tx.wrap(attr)


class ClassVariable(Variable):
    """A class: calling it builds namedtuples, OrderedDicts, constants at trace time, framework
    objects, or user objects (:class:`~capture.variables.objects.NewObjectVariable`)."""

    def __init__(self, cls):
        self.cls = cls

    def python_value(self):
        return self.cls

    def reconstruct(self, rec):
        return ("val", self.cls)

    def is_const(self):
        return True

    @property
    def value(self):
        return self.cls

    def realize(self, tx):
        return self.cls

    def call(self, tx, args, kwargs):
        import functools
        from runtime.tensor import Tensor
        if self.cls is functools.partial and args:
            inner = args[0]
            if isinstance(inner, PartialVariable) and (inner.obj is None or not inner.obj.__dict__):
                # a partial of a plain partial is flattened, as CPython's constructor does
                return PartialVariable(inner.fn, inner.args + list(args[1:]), {**inner.kwargs, **kwargs})
            return PartialVariable(args[0], args[1:], kwargs)
        if _is_framework_print(self.cls):
            return PrintVariable(self.cls())
        if isinstance(self.cls, type) and issubclass(self.cls, tuple) and hasattr(self.cls, "_fields"):
            return self._namedtuple(tx, args, kwargs)
        if self.cls is io.StringIO and not args and not kwargs:
            return StringIOVariable()
        if self.cls is collections.deque and len(args) <= 2 and set(kwargs) <= {"iterable", "maxlen"}:
            from .deques import DequeVariable
            return DequeVariable.made_by_call(tx, args, kwargs)
        if self.cls is collections.defaultdict:
            from .containers import DefaultDictVariable
            factory = args[0] if args else None
            if factory is not None and factory.is_const() and factory.value is None:
                factory = None
            if factory is not None and BuiltinVariable(callable).call(tx, [factory], {}).value is not True:
                from ..errors import UserException
                raise UserException(TypeError("first argument must be callable or None"))
            d = BuiltinVariable(dict).call(tx, list(args[1:]), kwargs)
            return DefaultDictVariable(d.items, factory)
        if self.cls is collections.OrderedDict:
            d = BuiltinVariable(dict).call(tx, args, kwargs)
            return DictVariable(d.items, cls=collections.OrderedDict)
        if self.cls in (np.iinfo, np.finfo) and _all_const(args) and _all_const(kwargs.values()):
            # machine limits of a dtype: an immutable record whose attributes are constants
            try:
                return ConstantVariable(self.cls(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
            except Exception as e:
                from ..errors import UserException
                raise UserException(e) from None
        if (self.cls in (int, float, bool, str, complex, slice, range, np.dtype)
                or issubclass(self.cls, np.generic)) and _all_const(args) and _all_const(kwargs.values()):
            return _call_at_trace_time(tx, self.cls, args, kwargs)
        if self.cls is Tensor and args and _all_const(args) and _all_const(kwargs.values()):
            try:
                t = Tensor(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()})
            except Exception as e:
                raise GraphBreak(f"Tensor() raised {type(e).__name__} at trace time: {e}",
                                 hint="the frame runs eagerly so the error is raised there") from None
            first = args[0].value
            if isinstance(first, np.ndarray) and args[0].source is not None:  # (an array from outside the frame)
                view = _array_read_per_call(first, t)
                if view is not None:
                    return TensorVariable(tx.builder.sym(view))
            return _const_tensors(tx, t)
        if _pure_constructor(self.cls) and _all_const(args) and _all_const(kwargs.values()):
            # Primitives / GradOperation only record their attributes: build them at trace time
            try:
                obj = self.cls(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()})
            except (TypeError, ValueError) as e:
                from ..errors import CaptureUserError
                raise CaptureUserError(e) from None
            return tx.wrap(obj)
        import contextlib
        if self.cls is contextlib._GeneratorContextManager and len(args) == 3 and not kwargs:
            # @contextmanager's helper(*args, **kwds) -> _GeneratorContextManager(func, args, kwds):
            # its generator runs in two halves around the with body (variables/ctxmanagers.py)
            from . import containers
            from .ctxmanagers import GeneratorContextManagerVariable
            func, gargs, gkwargs = args
            if isinstance(gargs, containers.TupleVariable) and isinstance(gkwargs, containers.DictVariable) and \
                    all(isinstance(k, str) for k in gkwargs.items):
                return GeneratorContextManagerVariable(func, list(gargs.items), dict(gkwargs.items))
        from .exceptions import ExceptionVariable, plain_exception_class, python_init_exception_class
        if python_init_exception_class(self.cls) and _all_const(args) and _all_const(kwargs.values()):
            # ``class MyError(Exception): def __init__(self, msg, code): ...``: the object made by
            # BaseException.__new__ now, its Python __init__ inlined on it (it only sets
            # attributes of this trace-local object)
            from ..errors import UserException
            try:
                obj = self.cls.__new__(self.cls, *[a.value for a in args], **{k: v.value for k, v in kwargs.items()})
            except Exception as e:
                raise UserException(e) from None
            var = ExceptionVariable(obj)
            ret = UserFunctionVariable(self.cls.__init__, var).call(tx, args, kwargs)
            if not (ret.is_const() and ret.value is None):
                raise UserException(TypeError(f"__init__() should return None, not '{ret.python_type().__name__}'"))
            return var
        if plain_exception_class(self.cls) and _all_const(args) and _all_const(kwargs.values()):
            # an exception object (``raise KeyError(k)``): its construction runs no Python code
            try:
                return ExceptionVariable(self.cls(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
            except Exception as e:
                from ..errors import UserException
                raise UserException(e) from None
        from .objects import NewCellVariable
        if NewCellVariable.can_make(self.cls) and _all_const(args) and _all_const(kwargs.values()):
            return NewCellVariable.make(self.cls, [a.value for a in args], {k: v.value for k, v in kwargs.items()})
        from .objects import NewObjectVariable
        if NewObjectVariable.can_create(self.cls):
            obj = NewObjectVariable(self.cls)
            init = self.cls.__init__
            if init is not object.__init__:
                if not UserFunctionVariable(init, obj).call(tx, args, kwargs).is_const():
                    raise GraphBreak(f"{self.cls.__name__}.__init__ returns a value (TypeError at run time)")
            elif args or kwargs:
                raise GraphBreak(f"{self.cls.__name__}() takes no arguments (TypeError at run time)")
            return obj
        raise GraphBreak(f"creating a {self.cls.__name__} object inside a captured region",
                         hint="create objects in __init__, not in construct")

    def _namedtuple(self, tx, args, kwargs):
        """``P(a, b=...)`` for a namedtuple / typing.NamedTuple class: fields bound as Python
        binds them (defaults included), the result keeps its type."""
        try:
            bound = inspect.signature(self.cls).bind(*args, **kwargs)
        except TypeError as e:
            raise GraphBreak(f"{self.cls.__name__}() raises TypeError: {e}") from None  # eager raises it
        bound.apply_defaults()
        items = [v if isinstance(v, Variable) else tx.wrap(v) for v in bound.arguments.values()]
        return TupleVariable(items, cls=self.cls)

    def getattr(self, tx, name):
        from .objects import user_package
        user_class = user_package(getattr(self.cls, "__module__", None))
        try:
            value = getattr(self.cls, name)
        except AttributeError as e:  # (hasattr is False, getattr's default applies, or Python raises)
            if user_class:  # an attribute set on the class later changes the answer
                tx.guards.hasnt_attr(self.cls, name)
            raise MissingAttribute(str(e)) from None
        if not user_class:  # (the framework's, numpy's, Python's)
            return tx.wrap(value)
        # a user class's attribute may be rebound between calls (``Config.scale = 3``), like a global
        return tx.wrap_attr(self.cls, name, value)


def _pure_constructor(cls) -> bool:
    """Framework classes whose construction has no side effects (safe to run while tracing)."""
    from runtime.autograd import GradOperation
    from runtime.ops import Primitive
    from runtime.ops.composite import CompositePrimitive
    return isinstance(cls, type) and issubclass(cls, (Primitive, CompositePrimitive, GradOperation))


class GradSpec:
    """What a gradient transform computes (from ``grad``/``value_and_grad``/``GradOperation``)."""

    __slots__ = ("kind", "grad_position", "weights", "has_aux", "return_value", "op", "single_weight")

    def __init__(self, kind, grad_position=0, weights=None, has_aux=False, return_value=False, op=None,
                 single_weight=False):
        self.kind = kind  # "grad" (ms.grad / value_and_grad) or "gradop" (GradOperation)
        self.grad_position = grad_position
        self.weights = weights  # list of Parameters or None
        self.has_aux = has_aux
        self.return_value = return_value
        self.op = op
        # weights given as one Parameter: its gradient comes alone, not in a tuple (MindSpore)
        self.single_weight = single_weight

    def weight_grads(self, wg):
        return wg[0] if self.single_weight else TupleVariable(wg)


def _param_of(tx, var):
    """The Parameter a traced tensor stands for (weights of a gradient transform)."""
    if isinstance(var, TensorVariable):
        p = tx.builder.graph.param_of(var.sym.value)
        if p is not None and p.ref is not None:
            return p.ref
    raise GraphBreak(f"gradient weights must be Parameters, got a {var.describe()}")


def _weights_from_var(tx, var):
    from runtime.parameter import Parameter
    if var is None or (var.is_const() and var.value is None):
        return None
    if isinstance(var, TensorVariable):
        return [_param_of(tx, var)]
    if isinstance(var, TupleVariable):
        return [_param_of(tx, v) for v in var.items]
    obj = tx.python_value(var)
    if hasattr(obj, "trainable_params") and callable(obj.trainable_params):
        ps = list(obj.trainable_params())
        if all(isinstance(p, Parameter) for p in ps):
            return ps
    raise GraphBreak(f"gradient weights given as a {var.describe()}")


class GradTransformVariable(Variable):
    """``ms.grad`` / ``ms.value_and_grad`` / a ``GradOperation`` instance called while tracing:
    returns a :class:`GradVariable` over the traced function (any callable Variable)."""

    def __init__(self, kind, op=None):
        self.kind = kind  # "grad", "value_and_grad" or "gradop"
        self.op = op

    def describe(self):
        return "GradOperation" if self.kind == "gradop" else f"ms.{self.kind}"

    def call(self, tx, args, kwargs):
        if self.kind == "gradop":
            names = ("fn", "weights")
            bound = _bind_simple(self.describe(), names, args, kwargs, {"weights": None})
            weights = _weights_from_var(tx, bound["weights"]) if self.op.get_by_list else None
            if self.op.get_by_list and weights is None:
                raise GraphBreak("GradOperation(get_by_list=True) needs weights")
            return GradVariable(bound["fn"], GradSpec("gradop", op=self.op, weights=weights,
                                                      single_weight=isinstance(bound["weights"], TensorVariable)))
        names = ("fn", "grad_position", "weights", "has_aux")
        bound = _bind_simple(self.describe(), names, args, kwargs,
                             {"grad_position": ConstantVariable(0), "weights": None, "has_aux": ConstantVariable(False)})
        for k in ("grad_position", "has_aux"):
            if not bound[k].is_const():
                raise GraphBreak(f"{self.describe()}: {k} must be a Python value")
        weights = _weights_from_var(tx, bound["weights"])
        if bound["grad_position"].value is None and weights is None:
            raise GraphBreak("grad: grad_position and weights cannot both be None",
                             hint="the frame runs eagerly so the error is raised there")
        return GradVariable(bound["fn"], GradSpec("grad", bound["grad_position"].value, weights,
                                                  bool(bound["has_aux"].value), self.kind == "value_and_grad",
                                                  single_weight=isinstance(bound["weights"], TensorVariable)))


def _bind_simple(what, names, args, kwargs, defaults):
    if len(args) > len(names) or any(k not in names for k in kwargs):
        raise GraphBreak(f"{what} called with unexpected arguments")
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound:
            raise GraphBreak(f"{what}: multiple values for {k}")
        bound[k] = v
    for k in names:
        if k not in bound:
            if k not in defaults:
                raise GraphBreak(f"{what}: missing argument {k}")
            bound[k] = defaults[k]
    return bound


class GradVariable(Variable):
    """A gradient function (``ms.grad``/``ms.value_and_grad``/``GradOperation`` result) called
    while tracing: the forward is inlined and its backward appended to the same graph by graph
    autodiff (``append_vjp``)."""

    def __init__(self, fn_var, spec: GradSpec):
        self.fn_var = fn_var
        self.spec = spec

    @classmethod
    def from_object(cls, tx, g):
        """From an existing GradFunction / GradOperation result object (e.g. a Cell attribute)."""
        from runtime.autograd import GradFunction, weights_list
        from runtime.tensor import Tensor
        single = isinstance(g.weights, Tensor)
        if isinstance(g, GradFunction):
            spec = GradSpec("grad", g.grad_position, weights_list(g.weights), g.has_aux, g.return_value,
                            single_weight=single)
        else:
            # (a function holding its GradOperation: guarded by identity; another process
            # translates anew, reading its own object's flags, capture/persist.py)
            tx.guards.identity(Attr(tx.guards.obj(g), "grad_operation"), g.grad_operation, "GradOperation")
            op = g.grad_operation
            spec = GradSpec("gradop", op=op, weights=weights_list(g.weights) if op.get_by_list else None,
                            single_weight=single)
        return cls(tx.wrap(g.fn), spec)

    def describe(self):
        return "gradient function"

    def call(self, tx, args, kwargs):
        from runtime.autograd import grad_positions
        spec = self.spec
        args = list(args)
        sens = None
        if spec.kind == "grad":
            try:
                positions = grad_positions(spec.grad_position, len(args))
            except (TypeError, ValueError) as e:
                raise GraphBreak(f"grad: {e}", hint="the frame runs eagerly so the error is raised there")
            has_aux, return_value = spec.has_aux, spec.return_value
        else:
            op = spec.op
            has_aux = return_value = False
            if op.sens_param:
                if not args:
                    raise GraphBreak("GradOperation(sens_param=True) called without sens")
                args, sens = args[:-1], args[-1]
            positions = tuple(range(len(args))) if op.get_all else ((0,) if args and not op.get_by_list else ())
        weights = spec.weights
        b = tx.builder
        for p in positions:
            if not isinstance(args[p], TensorVariable):
                raise GraphBreak(f"grad with respect to argument {p}, which is a {args[p].describe()}, not a tensor")
        wrt = [args[p].sym.value for p in positions] + [b.lift(w) for w in (weights or ())]
        out = tx.call_variable(self.fn_var, args, kwargs)
        if has_aux:
            if not isinstance(out, TupleVariable) or len(out.items) < 2:
                raise GraphBreak("grad(has_aux=True): the function must return (output, aux...)")
            diff = out.items[0]
        else:
            diff = out
        flat = tx.flatten_tensors(diff)
        if sens is None:
            seeds = [F.ones_like(v.sym.value) for v in flat]
        else:
            seeds = [v.sym.value for v in tx.flatten_tensors(sens)]
            if len(seeds) != len(flat):
                raise GraphBreak(f"grad: sens has {len(seeds)} tensors but the function returned {len(flat)}")
        grads = append_vjp(b.graph, [v.sym.value for v in flat], seeds, wrt)
        grads = [F.zeros_like(w) if gr is None else gr for gr, w in zip(grads, wrt)]
        gvars = [TensorVariable(SymTensor(gr, b)) for gr in grads]
        pg, wg = gvars[:len(positions)], gvars[len(positions):]
        if weights:
            wg = _data_parallel_grads(tx, weights, wg, self.fn_var)
        if spec.kind == "grad":
            grad_position = spec.grad_position
            if weights is None:
                packed = pg[0] if isinstance(grad_position, int) else TupleVariable(pg)
            elif grad_position is None:
                packed = spec.weight_grads(wg)
            else:
                packed = TupleVariable([pg[0] if isinstance(grad_position, int) else TupleVariable(pg),
                                        spec.weight_grads(wg)])
            if has_aux and not return_value:  # MindSpore 2.x: (gradient, (aux outputs...))
                return TupleVariable([packed, TupleVariable(out.items[1:])])
            return TupleVariable([out, packed]) if return_value else packed
        op = spec.op
        if op.get_all and op.get_by_list:
            return TupleVariable([TupleVariable(pg), spec.weight_grads(wg)])
        if op.get_by_list:
            return spec.weight_grads(wg)
        if op.get_all:
            return TupleVariable(pg)
        return pg[0] if pg else TupleVariable([])  # (a net called with no inputs: (), as eagerly)


def _data_parallel_grads(tx, weights, wg, fn_var=None):
    """Data parallel (as ``runtime.autograd`` does eagerly): the replicas are made identical now, at
    trace time, before the graph first runs; unless a DistributedGradReducer handles these
    parameters, their gradients are all-reduced inside the graph (bucketed, non-blocking)."""
    from runtime.parallel import reducer as dp
    dp.prepare_step(weights, getattr(fn_var, "obj", None))
    needed = dp.auto_reduce_needed(weights)
    g = tx.guards
    g.same_object(Call(g.obj(dp.auto_reduce_needed), g.obj(list(weights))), Lit(needed),
                  f"data-parallel gradient reduction is {'on' if needed else 'off'}")
    if not needed:
        return wg
    return [TensorVariable(r) for r in dp.auto_reduce([v.sym for v in wg], weights)]


class PartialVariable(Variable):
    """``functools.partial(fn, *args, **kw)``: calls ``fn`` with the bound arguments prepended."""

    def __init__(self, fn_var, args, kwargs, obj=None):
        self.fn = fn_var
        self.args = list(args)
        self.kwargs = dict(kwargs)
        self.obj = obj  # the partial object itself, when it exists outside the frame

    def python_value(self):
        if self.obj is None:
            raise NoPythonValue("a functools.partial the frame made has no Python value at trace time")
        return self.obj

    def reconstruct(self, rec):
        """An existing partial is that object; one the frame made is a new partial, made once
        per call (every use of it is the same object: a dict key, an ``is`` test)."""
        if self.obj is not None:
            return rec.object_recipe(self.obj)
        return ("partial", rec.of(self.fn), [rec.of(a) for a in self.args],
                {k: rec.of(v) for k, v in self.kwargs.items()}, rec.memo_key())

    @classmethod
    def from_object(cls, tx, p):
        return cls(tx.wrap(p.func), [tx.wrap(a) for a in p.args], {k: tx.wrap(v) for k, v in p.keywords.items()},
                   obj=p)

    def call(self, tx, args, kwargs):
        return self.fn.call(tx, self.args + list(args), {**self.kwargs, **kwargs})

    def getattr(self, tx, name):
        from .containers import DictVariable, TupleVariable
        if name == "func":
            return self.fn
        if name == "args":
            return TupleVariable(list(self.args))
        if name == "keywords":
            return DictVariable(dict(self.kwargs))
        if not hasattr(functools.partial, name):
            raise MissingAttribute(f"'functools.partial' object has no attribute {name!r}")
        return super().getattr(tx, name)


def _is_framework_print(obj):
    from runtime.ops import composite
    return obj is composite.print_ or obj is composite.Print or isinstance(obj, composite.Print)


class PrintVariable(KnownCallableVariable):
    """``ops.print_`` / ``ops.Print()``: printing must happen on every call, with run-time values."""

    def call(self, tx, args, kwargs):
        raise GraphBreak("ops.Print / ops.print_ inside a captured region: it must print on every call",
                         hint="remove the print, or accept the graph break (the print runs eagerly between two graphs)")


def _changes_random_stream(obj) -> bool:
    from graph.ops import rng
    from runtime import random
    return obj is random.set_seed or obj is rng.seed


class RandomStreamSetterVariable(KnownCallableVariable):
    """``ms.set_seed(n)``: it reseeds the stream the graph's random ops draw from, so it must run
    on every call, between the draws before it and the draws after it: a graph break (as
    ``torch.manual_seed`` is for TorchDynamo)."""

    def call(self, tx, args, kwargs):
        raise GraphBreak("ms.set_seed inside a captured region: it reseeds the random stream on every call",
                         hint="seed outside the jitted function, or accept the graph break")


def _traced_framework_functions():
    """Framework functions whose bytecode is traced like user code: type predicates, which must
    see the user-visible type of a value (a Tensor), not the symbolic stand-in."""
    from runtime.tensor import is_tensor
    return (is_tensor,)


def _is_stateful_framework_method(obj) -> bool:
    """A framework method bound to a plain object (a loss scaler, a metric...): such an object may
    hold Parameters or tensors, so its bytecode is traced like user code (they become graph
    inputs and their updates graph updates). Calling it directly would run that state's
    arithmetic eagerly at trace time and bake today's values into the graph as constants."""
    if not isinstance(obj, types.MethodType) or not is_framework_callable(obj):
        return False
    from runtime.tensor import Tensor
    owner = obj.__self__
    return not isinstance(owner, (Tensor, type, types.ModuleType)) and hasattr(owner, "__dict__")


def wrap_callable(tx, obj):
    """Variable for a callable Python object."""
    import functools
    from ..polyfills import polyfill_for
    polyfill = polyfill_for(obj)
    if polyfill is not None:
        return PolyfillVariable(obj, polyfill)
    if type(obj) is functools.partial:
        return PartialVariable.from_object(tx, obj)
    from runtime import autograd
    from runtime.nn.cell import Cell
    if isinstance(obj, autograd.GradFunction) or (isinstance(obj, types.FunctionType) and hasattr(obj, "grad_operation")):
        return GradVariable.from_object(tx, obj)
    if obj is autograd.grad or obj is autograd.value_and_grad:
        return GradTransformVariable(obj.__name__)
    if isinstance(obj, autograd.GradOperation):
        return GradTransformVariable("gradop", obj)
    if isinstance(obj, Cell):
        return None  # handled by CellVariable
    jitted = getattr(obj, "__wrapped_jit__", None)
    if jitted is not None:
        return UserFunctionVariable(jitted)
    if isinstance(obj, np.ufunc) or _is_numpy_function(obj):
        return PureFunctionVariable(obj)  # numpy on Python values/arrays: evaluated while tracing
    if isinstance(obj, types.BuiltinFunctionType) or isinstance(obj, types.BuiltinMethodType):
        mod = getattr(obj, "__module__", None)
        if getattr(builtins, obj.__name__, None) is obj:
            return BuiltinVariable(obj)
        if mod in _PURE_MODULES:
            return PureFunctionVariable(obj)
        return None
    if _is_framework_print(obj):
        return PrintVariable(obj)
    if _changes_random_stream(obj):
        return RandomStreamSetterVariable(obj)
    if isinstance(obj, types.MethodType) and isinstance(obj.__self__, Cell) and is_framework_callable(obj):
        from .objects import CellMethodVariable
        return CellMethodVariable(obj, tx.wrap(obj.__self__))
    if any(obj is f for f in _traced_framework_functions()):  # (``in`` would call a user __eq__)
        return UserFunctionVariable(obj)
    if _is_stateful_framework_method(obj):
        return UserFunctionVariable(obj.__func__, tx.wrap(obj.__self__))
    if is_framework_callable(obj):
        return FrameworkCallableVariable(obj)
    if isinstance(obj, types.FunctionType):
        if obj.__module__ in _PURE_MODULES:
            return PureFunctionVariable(obj)
        return UserFunctionVariable(obj)
    if isinstance(obj, types.MethodType):
        return UserFunctionVariable(obj.__func__, tx.wrap(obj.__self__))
    return None


math, operator  # modules referenced by _PURE_MODULES names


class OpaqueCallableVariable(KnownCallableVariable):
    """A callable capture knows nothing about (C extension, numpy...): calling it breaks."""

    def call(self, tx, args, kwargs):
        name = getattr(self.fn, "__qualname__", None) or type(self.fn).__name__
        mod = getattr(self.fn, "__module__", None)
        full = f"{mod}.{name}" if mod else name
        raise GraphBreak(f"call to {full}, which capture cannot trace",
                         hint="move the call out of construct, or accept the graph break")

    def describe(self):
        return f"callable {getattr(self.fn, '__name__', self.fn)!s}"
