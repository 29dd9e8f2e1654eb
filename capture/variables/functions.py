"""Callables met while tracing: user functions (inlined), framework functions (called with
symbolic tensors), builtins, Cells, gradient transforms, and plain objects."""
from __future__ import annotations

import builtins
import math
import operator
import types

from graph.ops import F
from graph.autodiff import append_vjp

from ..builder import SymTensor
from ..errors import GraphBreak
from .base import ConstantVariable, Variable
from .containers import DictVariable, IteratorVariable, ListVariable, TupleVariable
from .tensor import TensorVariable

FRAMEWORK_PREFIXES = ("runtime.", "graph.", "codegen.")
_PURE_MODULES = {"math", "operator", "_operator", "cmath"}


def is_framework_callable(obj) -> bool:
    mod = getattr(obj, "__module__", None) or ""
    if isinstance(obj, types.MethodType):
        mod = getattr(obj.__func__, "__module__", "") or ""
    return mod.startswith(FRAMEWORK_PREFIXES) or mod in ("runtime", "graph")


class UserFunctionVariable(Variable):
    """A Python function whose bytecode is inlined into the captured frame."""

    def __init__(self, fn, self_var=None):
        self.fn = fn
        self.self_var = self_var

    def call(self, tx, args, kwargs):
        if self.self_var is not None:
            args = [self.self_var] + list(args)
        return tx.inline_function(self.fn, args, kwargs)

    def describe(self):
        return f"function {getattr(self.fn, '__qualname__', self.fn)}"


class NestedFunctionVariable(Variable):
    """A function or lambda created by MAKE_FUNCTION inside the traced code (closures kept)."""

    def __init__(self, code, f_globals, defaults, kwdefaults, closure):
        self.code = code
        self.f_globals = f_globals
        self.defaults = defaults or ()
        self.kwdefaults = kwdefaults or {}
        self.closure = closure or ()  # tuple of Box

    def call(self, tx, args, kwargs):
        return tx.inline_code(self.code, self.f_globals, args, kwargs, self.defaults, self.kwdefaults,
                              self.closure, name=self.code.co_name)


class FrameworkCallableVariable(Variable):
    """A callable of this framework (ops.*, Primitives, composites): called directly with symbolic
    tensors, since it only builds ops through ``bind``."""

    def __init__(self, fn):
        self.fn = fn

    def call(self, tx, args, kwargs):
        rargs = [a.realize(tx) for a in args]
        rkw = {k: v.realize(tx) for k, v in kwargs.items()}
        try:
            out = self.fn(*rargs, **rkw)
        except GraphBreak:
            raise
        except (AttributeError, NotImplementedError) as e:
            raise GraphBreak(f"{getattr(self.fn, '__name__', self.fn)} cannot run on symbolic tensors: {e}")
        return tx.wrap(out)

    def describe(self):
        return f"framework callable {getattr(self.fn, '__name__', type(self.fn).__name__)}"


class PureFunctionVariable(Variable):
    """A side-effect-free function (math.*, operator.*): evaluated at trace time on constants."""

    def __init__(self, fn):
        self.fn = fn

    def call(self, tx, args, kwargs):
        if all(a.is_const() for a in args) and all(v.is_const() for v in kwargs.values()):
            return tx.wrap(self.fn(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
        if self.fn.__module__ in ("operator", "_operator"):
            return tx.apply_python_operator(self.fn, args)
        raise GraphBreak(f"{self.fn.__name__} called with traced values")


def _all_const(args):
    return all(a.is_const() for a in args)


class BuiltinVariable(Variable):
    """Python builtins with trace-time semantics."""

    def __init__(self, fn):
        self.fn = fn

    def describe(self):
        return f"builtin {self.fn.__name__}"

    def realize(self, tx):
        return self.fn

    def call(self, tx, args, kwargs):
        name = self.fn.__name__
        handler = getattr(self, f"_call_{name}", None)
        if handler is not None:
            return handler(tx, *args, **kwargs)
        if name in _CONST_FOLDABLE and _all_const(args) and _all_const(kwargs.values()):
            return tx.wrap(self.fn(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
        raise GraphBreak(f"builtin {name}() with these arguments is not supported in graph mode",
                         hint="call it outside construct, or accept the graph break")

    def _call_len(self, tx, x):
        return ConstantVariable(x.length(tx))

    def _call_isinstance(self, tx, obj, cls):
        target = _class_spec(tx, cls)
        if isinstance(obj, TensorVariable):
            return ConstantVariable(_is_tensor_class(target, obj.python_type()))
        return ConstantVariable(isinstance(tx.python_value(obj), target))

    def _call_issubclass(self, tx, sub, cls):
        return ConstantVariable(issubclass(_class_spec(tx, sub), _class_spec(tx, cls)))

    def _call_range(self, tx, *args):
        if not _all_const(args):
            raise GraphBreak("range() over traced values")
        return ConstantVariable(range(*[a.value for a in args]))

    def _call_zip(self, tx, *its, strict=None):
        cols = [it.iterate(tx) for it in its]
        return ListVariable([TupleVariable(list(row)) for row in zip(*cols)])

    def _call_enumerate(self, tx, it, start=None):
        s = start.value if start is not None else 0
        return ListVariable([TupleVariable([ConstantVariable(i + s), v]) for i, v in enumerate(it.iterate(tx))])

    def _call_reversed(self, tx, it):
        return ListVariable(list(reversed(it.iterate(tx))))

    def _call_list(self, tx, it=None):
        return ListVariable([] if it is None else it.iterate(tx))

    def _call_tuple(self, tx, it=None):
        return TupleVariable([] if it is None else it.iterate(tx))

    def _call_dict(self, tx, *args, **kwargs):
        items = {}
        if args:
            src = args[0]
            if isinstance(src, DictVariable):
                items.update(src.items)
            else:
                for pair in src.iterate(tx):
                    k, v = pair.iterate(tx)
                    items[k.value] = v
        items.update(kwargs)
        return DictVariable(items)

    def _call_getattr(self, tx, obj, name, default=None):
        if not name.is_const():
            raise GraphBreak("getattr with a traced name")
        try:
            return obj.getattr(tx, name.value)
        except GraphBreak:
            if default is not None:
                return default
            raise

    def _call_hasattr(self, tx, obj, name):
        try:
            obj.getattr(tx, name.value)
            return ConstantVariable(True)
        except GraphBreak:
            return ConstantVariable(False)

    def _call_print(self, tx, *args, **kwargs):
        raise GraphBreak("print() inside a captured region: it must print on every call",
                         hint="remove the print, or accept the graph break (the frame runs eagerly)")

    def _call_iter(self, tx, it):
        return IteratorVariable(it.iterate(tx))

    def _call_next(self, tx, it, default=None):
        if isinstance(it, IteratorVariable):
            v = it.next()
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

    def _minmax(self, tx, fn, args):
        items = args[0].iterate(tx) if len(args) == 1 else list(args)
        if _all_const(items):
            return tx.wrap(fn(a.value for a in items))
        raise GraphBreak(f"{fn.__name__}() over tensors: use ops.maximum/ops.minimum or reduce_max")

    def _call_max(self, tx, *args):
        return self._minmax(tx, max, args)

    def _call_min(self, tx, *args):
        return self._minmax(tx, min, args)

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
    def __init__(self, cls, obj, obj_var):
        self.cls, self.obj, self.obj_var = cls, obj, obj_var

    def getattr(self, tx, name):
        attr = getattr(super(self.cls, self.obj), name)
        if isinstance(attr, types.MethodType) and not is_framework_callable(attr):
            return UserFunctionVariable(attr.__func__, self.obj_var)
        return tx.wrap(attr)


class ClassVariable(Variable):
    def __init__(self, cls):
        self.cls = cls

    def is_const(self):
        return True

    @property
    def value(self):
        return self.cls

    def realize(self, tx):
        return self.cls

    def call(self, tx, args, kwargs):
        from runtime.tensor import Tensor
        if self.cls in (int, float, bool, str) and _all_const(args):
            return tx.wrap(self.cls(*[a.value for a in args]))
        if self.cls is Tensor and args and _all_const(args) and _all_const(kwargs.values()):
            return tx.wrap(Tensor(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
        if _pure_constructor(self.cls) and _all_const(args) and _all_const(kwargs.values()):
            # Primitives / GradOperation only record their attributes: build them at trace time
            try:
                obj = self.cls(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()})
            except (TypeError, ValueError) as e:
                from ..errors import CaptureUserError
                raise CaptureUserError(e) from None
            return tx.wrap(obj)
        raise GraphBreak(f"creating a {self.cls.__name__} object inside a captured region",
                         hint="create objects in __init__, not in construct")

    def getattr(self, tx, name):
        return tx.wrap(getattr(self.cls, name))


def _pure_constructor(cls) -> bool:
    """Framework classes whose construction has no side effects (safe to run while tracing)."""
    from runtime.autograd import GradOperation
    from runtime.ops import Primitive
    return isinstance(cls, type) and issubclass(cls, (Primitive, GradOperation))


class GradVariable(Variable):
    """``ms.grad``/``ms.value_and_grad``/``GradOperation`` results: the forward is inlined and
    its backward appended to the same graph by graph autodiff."""

    def __init__(self, gradfn):
        self.g = gradfn

    def call(self, tx, args, kwargs):
        from runtime.autograd import _GradFn, _positions, _weights_list
        g = self.g
        sens = None
        if isinstance(g, _GradFn):
            fn, has_aux, return_value = g.fn, g.has_aux, g.return_value
            positions = _positions(g.grad_position, len(args))
            weights = _weights_list(g.weights)
            mode = ("grad", g.grad_position, weights)
        else:  # GradOperation(...)(fn, weights)
            op = g.grad_operation
            fn, has_aux, return_value = g.fn, False, False
            if op.sens_param:
                args, sens = list(args[:-1]), args[-1]
            positions = tuple(range(len(args))) if op.get_all else ((0,) if args and not op.get_by_list else ())
            weights = _weights_list(g.weights) if op.get_by_list else None
            mode = ("gradop", op, weights)
        b = tx.builder
        for p in positions:
            if not isinstance(args[p], TensorVariable):
                raise GraphBreak(f"grad with respect to argument {p}, which is not a tensor")
        wrt = [args[p].sym.value for p in positions] + [b.lift(w) for w in (weights or ())]
        out = tx.call_variable(tx.wrap(fn), list(args), kwargs)
        diff = out.items[0] if has_aux else out
        flat = tx.flatten_tensors(diff)
        if sens is None:
            seeds = [F.ones_like(v.sym.value) for v in flat]
        else:
            seeds = [v.sym.value for v in tx.flatten_tensors(sens)]
        grads = append_vjp(b.graph, [v.sym.value for v in flat], seeds, wrt)
        grads = [F.zeros_like(w) if gr is None else gr for gr, w in zip(grads, wrt)]
        gvars = [TensorVariable(SymTensor(gr, b)) for gr in grads]
        pg, wg = gvars[:len(positions)], gvars[len(positions):]
        if mode[0] == "grad":
            grad_position = mode[1]
            if weights is None:
                packed = pg[0] if isinstance(grad_position, int) else TupleVariable(pg)
            elif grad_position is None:
                packed = TupleVariable(wg)
            else:
                packed = TupleVariable([pg[0] if isinstance(grad_position, int) else TupleVariable(pg),
                                        TupleVariable(wg)])
            if has_aux and not return_value:
                return packed
            return TupleVariable([out, packed]) if return_value else packed
        op = mode[1]
        if op.get_all and op.get_by_list:
            return TupleVariable([TupleVariable(pg), TupleVariable(wg)])
        if op.get_by_list:
            return TupleVariable(wg)
        if op.get_all:
            return TupleVariable(pg)
        return pg[0]


def wrap_callable(tx, obj):
    """Variable for a callable Python object."""
    from runtime.autograd import _GradFn
    from runtime.nn.cell import Cell
    if isinstance(obj, _GradFn) or hasattr(obj, "grad_operation"):
        return GradVariable(obj)
    if isinstance(obj, Cell):
        return None  # handled by CellVariable
    jitted = getattr(obj, "__wrapped_jit__", None)
    if jitted is not None:
        return UserFunctionVariable(jitted)
    if isinstance(obj, types.BuiltinFunctionType) or isinstance(obj, types.BuiltinMethodType):
        mod = getattr(obj, "__module__", None)
        if getattr(builtins, obj.__name__, None) is obj:
            return BuiltinVariable(obj)
        if mod in _PURE_MODULES:
            return PureFunctionVariable(obj)
        return None
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
