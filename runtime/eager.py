"""PyNative execution: the ``bind`` handler for eager tensors.

An op application runs the registry's ``impl`` on the arrays, wraps the result, and (only while a
gradient tape is active) records the application. Errors from bad input are re-raised as
TypeError/ValueError naming the op, the shapes and the user's ``file:line``.
"""
from __future__ import annotations

import numpy as np

from graph.errors import relocate
from graph.ops import intraop as _intraop
from graph.ops import register_handler, set_default_handler
from graph.ops.core import describe
from graph.ops.promotion import cast_operands, promotion_target

from . import context as _context
from . import device as _device
from . import eager_kernels as _eager_kernels
from . import tape as _tape
from .tensor import Tensor

_ndarray = np.ndarray
_ACTIVE_TAPES = _tape.ACTIVE  # (one list, changed in place only)
_wrap = Tensor._wrap
_new = object.__new__


def _as_tensor_out(x, xp):
    t = _new(Tensor)
    t._data = x if type(x) is _ndarray else xp.asarray(x)
    return t


def _promote(op, args, arrays):
    """Cast operands to the promoted dtype (numpy would give float64 for int32 + float32). The
    target is asked of the arrays (a Tensor's dtype is its array's), whose kinds it memoises."""
    target = promotion_target(op, arrays)
    return arrays if target is None else cast_operands(op, arrays, target)


_GPU = _device.GPU
_TIERED = _eager_kernels.OPS


def _placed(op, args, arrays):
    """(array module, arrays) for an op while a GPU is in use: the device of its tensor operands
    (all on one device), else the context's; host arrays passed as raw operands follow it."""
    where = None
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            dev = _device.device_of(a._data)
            if where is None:
                where = (i, dev)
            elif dev != where[1]:
                raise relocate(ValueError(
                    f"{op.prim} (ops.{op.name}): input {where[0]} is on the {where[1]} and input {i} on the "
                    f"{dev}: the tensors of one op must be on one device (move one with "
                    f"Tensor.move_to('{where[1]}'), or create both after ms.set_context(device_target=...))"))
    target = where[1] if where is not None else _context._state["device_target"]
    if target == "CPU":
        return np, arrays
    xp = _device.array_module("GPU")
    return xp, [xp.asarray(a) if type(a) is _ndarray else a for a in arrays]


def _explain_failure(op, args, attrs, exc):
    """Turn an exception from ``impl`` into a clear error, preferring the op's own inference."""
    try:
        op.infer_rule(*args, **attrs)
    except (TypeError, ValueError) as e:
        return relocate(e)
    shapes = ", ".join(describe(a) for a in args)
    return relocate(ValueError(f"{op.prim} (ops.{op.name}): {type(exc).__name__}: {exc} "
                               f"(inputs: {shapes}; attributes: {attrs})"))


_HALF = np.dtype(np.float16)
_SCALARS = (bool, int, float)


def _in_half(arrays):
    """Whether one of the first two operands is a float16 array."""
    for a in arrays[:2]:
        if getattr(a, "dtype", None) is _HALF:
            return True
    return False


#: shape checks that passed, by signature (see :func:`_checked`); cleared when it grows past
#: :data:`_CHECKED_LIMIT` (a process that keeps meeting new shapes re-checks, it never grows unbounded)
_CHECKED: dict = {}
_CHECKED_LIMIT = 1 << 14


def _signature(op, arrays, attrs):
    """What an op's shape inference depends on: the op, each operand's shape and dtype (a
    Python scalar's type and value) and the attributes; None when an operand or attribute is
    something else (no memo: its inference runs every time). ``arrays``: the operands with
    tensors replaced by their arrays."""
    key = [op]
    for d in arrays:
        t = type(d)
        if t is _ndarray or (t is not list and hasattr(d, "__cuda_array_interface__")):
            key.append(d.shape)
            key.append(d.dtype)
        elif t in _SCALARS:
            key.append(t)
            key.append(d)
        elif d is None:
            key.append(None)
        else:
            return None
    if attrs:
        key.append(tuple(attrs.values()))  # normalised: one fixed order per op
    return tuple(key)


def _checked(op, args, attrs, key) -> None:
    """``op.infer_rule`` on the operands, once per signature ``key`` (:func:`_signature`; None: no
    memo): eager execution only needs its errors (numpy must never silently accept what graph
    mode rejects), and a signature that passed once passes again (inference reads shapes,
    dtypes, scalar operands and attributes). :func:`eager_handler` tests the memo inline and
    calls this only on a miss."""
    op.infer_rule(*args, **attrs)
    if key is not None:
        if len(_CHECKED) >= _CHECKED_LIMIT:
            _CHECKED.clear()
        try:
            _CHECKED[key] = True
        except TypeError:  # an unhashable attribute value (a list): no memo
            pass


#: non-empty while graph capture calls framework code that must not compute on real tensors
#: (its last element is the exception type to raise); see capture.variables.objects
FORBID_EAGER: list = []


class _Plan:
    """What :func:`eager_handler` reads of an op on every call, gathered once per op (one
    attribute load instead of seven; the registry's fields never change after registration)."""

    __slots__ = ("infer", "memo", "promote", "single", "mutates", "records", "tiered", "bare", "lean")

    def __init__(self, op):
        self.infer = op.eager_infer
        # (a collective's inference also reads the live group table: a group destroyed since
        # must be refused, so it is never memoised)
        self.memo = self.infer and not op.communicates
        self.promote = op.promote
        self.single = op.n_outputs == 1
        self.mutates = op.mutates
        self.records = op.vjp is not None
        self.tiered = op.name in _TIERED
        # no inference to run, no compiled tier, one output, no operand overwritten
        self.bare = not self.infer and not self.tiered and self.single and self.mutates is None
        # a memoised shape check, then as bare (matmul, reductions, reshape, transpose...)
        self.lean = self.memo and not self.tiered and self.single and self.mutates is None


_PLANS: dict = {}


def _plan(op) -> _Plan:
    plan = _PLANS[op] = _Plan(op)
    return plan


def eager_handler(op, args, attrs):
    if FORBID_EAGER:
        raise FORBID_EAGER[-1](f"{op.name} would run eagerly at trace time")
    plan = _PLANS.get(op)
    if plan is None:
        plan = _plan(op)
    n = len(args)
    if n == 1 and plan.bare:
        # one array through an op with nothing to check, tier or mutate (relu, exp, neg...): the
        # steps below that apply, in order
        a = args[0]
        first = a._data if isinstance(a, Tensor) else a
        if type(first) is _ndarray and first.dtype is not _HALF and not _GPU.active:
            try:
                out = op.impl(np, first, **attrs) if attrs else op.impl(np, first)
            except (TypeError, ValueError, IndexError, ArithmeticError, AttributeError) as e:
                raise _explain_failure(op, args, attrs, e) from None
            return _single_result(op, plan, args, attrs, out, np)
    if plan.lean and 0 < n < 3 and not _GPU.active:
        # one array or two of one dtype through an op with a memoised shape check and one output,
        # nothing tiered or mutated: the steps below that apply, in order (the keys are theirs)
        a = args[0]
        first = a._data if isinstance(a, Tensor) else a
        if type(first) is _ndarray and first.dtype is not _HALF:
            if n == 1:
                key = (op, first.shape, first.dtype, tuple(attrs.values())) if attrs else (op, first.shape, first.dtype)
                arrays = (first,)
            else:
                b = args[1]
                second = b._data if isinstance(b, Tensor) else b
                if type(second) is _ndarray and second.dtype is first.dtype:
                    key = (op, first.shape, first.dtype, second.shape, second.dtype, tuple(attrs.values())) \
                        if attrs else (op, first.shape, first.dtype, second.shape, second.dtype)
                    arrays = (first, second)
                else:
                    key = None
            if key is not None:
                try:
                    checked = key in _CHECKED
                except TypeError:  # an unhashable attribute value (a list): _checked keeps no memo
                    checked = False
                try:
                    if not checked:
                        _checked(op, args, attrs, key)
                    out = op.impl(np, *arrays, **attrs)
                except (TypeError, ValueError) as e:
                    raise relocate(e) from None
                except (IndexError, ArithmeticError, AttributeError) as e:
                    raise _explain_failure(op, args, attrs, e) from None
                return _single_result(op, plan, args, attrs, out, np)
    # the common cases, one array or two of one dtype, need no promotion; their signature (the
    # same tuple _signature builds) is written out here: no call, no list per op
    key = None
    if n == 1:
        a = args[0]
        first = a._data if isinstance(a, Tensor) else a
        arrays = [first]
        plain = type(first) is _ndarray
        if plain and plan.memo:
            key = (op, first.shape, first.dtype, tuple(attrs.values())) if attrs else (op, first.shape, first.dtype)
    elif n == 2:
        a, b = args
        first = a._data if isinstance(a, Tensor) else a
        second = b._data if isinstance(b, Tensor) else b
        arrays = [first, second]
        plain = type(first) is _ndarray and type(second) is _ndarray and second.dtype is first.dtype
        if plain and plan.memo:
            key = (op, first.shape, first.dtype, second.shape, second.dtype, tuple(attrs.values())) if attrs \
                else (op, first.shape, first.dtype, second.shape, second.dtype)
    else:
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        first = arrays[0] if n else None
        plain = False
    if plan.memo and key is None:
        key = _signature(op, arrays, attrs)
    if key is not None:
        # the memo of shape checks that passed (see _checked), tested here: no call on a hit
        try:
            if key in _CHECKED:
                key = _PASSED
        except TypeError:  # an unhashable attribute value (a list): no memo
            key = None
    if _GPU.active:  # a CPU-only process never gets here
        xp, arrays = _placed(op, args, arrays)
        plain = False
    else:
        xp = np
    if plain:
        half = first.dtype is _HALF
    else:
        if plan.promote:
            arrays = _promote(op, args, arrays)
        half = _in_half(arrays)
    try:
        if plan.infer and key is not _PASSED:
            _checked(op, args, attrs, key)
        if half:
            # float16 arithmetic overflows to inf by design under mixed precision (loss scaling
            # detects it and skips the step), silently as on accelerators: no numpy warnings
            with np.errstate(over="ignore", invalid="ignore"):
                out = op.impl(xp, *arrays, **attrs)
        elif plan.tiered and xp is np:  # hot convolutions as compiled graphs (eager_kernels)
            out = _eager_kernels.run(op, arrays, attrs)
            if out is None:
                out = op.impl(xp, *arrays, **attrs)
        else:
            out = op.impl(xp, *arrays, **attrs) if attrs else op.impl(xp, *arrays)
    except (TypeError, ValueError) as e:
        if plan.infer:
            raise relocate(e) from None
        raise _explain_failure(op, args, attrs, e) from None
    except (IndexError, ArithmeticError, AttributeError) as e:
        raise _explain_failure(op, args, attrs, e) from None
    if plan.single:
        if plan.mutates is not None:
            target = args[plan.mutates]
            target._data = out if type(out) is _ndarray else xp.asarray(out)
            return target
        return _single_result(op, plan, args, attrs, out, xp)
    res = tuple(_as_tensor_out(o, xp) for o in out)
    if _ACTIVE_TAPES and plan.records:
        for tp in _ACTIVE_TAPES:
            tp.record(op, args, attrs, res)
    return res


def _single_result(op, plan, args, attrs, out, xp):
    """The Tensor of an op's one output ``out``, recorded by the active tapes."""
    res = _new(Tensor)
    res._data = out if type(out) is _ndarray else xp.asarray(out)
    if _ACTIVE_TAPES and plan.records:
        outs = (res,)
        for tp in _ACTIVE_TAPES:
            tp.record(op, args, attrs, outs)
    return res


#: the key :func:`eager_handler` uses for "this signature's shape check passed before"
_PASSED = object()


def _default_handler(op, args, attrs):
    # No tensor among the arguments (e.g. ops.zeros_like on a numpy array): run eagerly.
    return eager_handler(op, args, attrs)


register_handler(Tensor, eager_handler, priority=0)
# intra-op threads of array impls (graph/ops/intraop.py) follow set_context(num_threads=)
_context.on_setting("num_threads", _intraop.set_threads)
set_default_handler(_default_handler)
