"""Eager reverse-mode autodiff: ``grad``, ``value_and_grad`` and ``ops.GradOperation``.

The function runs under a :class:`~runtime.tape.Tape`; backward applies each recorded op's VJP
rule from the registry (the same rules graph autodiff uses). Backward ops are recorded by any
outer tape, so ``grad(grad(f))`` works.

Example:
    >>> import runtime as ms
    >>> f = lambda x: (x * x * x).sum()
    >>> ms.grad(f)(ms.Tensor([2.0]))
    Tensor(shape=[1], dtype=Float32, value=[12.])
    >>> ms.grad(ms.grad(f))(ms.Tensor([2.0]))
    Tensor(shape=[1], dtype=Float32, value=[12.])
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Protocol, Sequence, Union

from graph.autodiff import apply_vjp, in_dtype_of
from graph.ops import F, comm
from graph.ops.core import Op

from . import context as _context
from . import eager_kernels as _eager_kernels
from .parallel import reducer as _dp
from .tape import ACTIVE, VMAP_LEVEL, Tape
from .tensor import Tensor
from .vmap import BatchedTensor, rebatch, unbatch

_VJP_COMPILED = _eager_kernels.VJP_OPS

#: which positional inputs a gradient is taken for: one index, several, or None (weights only)
GradPosition = Union[int, Sequence[int], None]


class HasTrainableParams(Protocol):
    """What ``weights`` may be besides Parameters: an object whose ``trainable_params()`` gives
    them (a Cell)."""

    def trainable_params(self) -> Iterable[Tensor]: ...


#: the weights a gradient is taken for: a Parameter, several (a list, a ParameterTuple), a Cell
#: (its trainable parameters), or None
Weights = Union[Tensor, Sequence[Tensor], HasTrainableParams, None]


def backward(tape: Tape, outputs: Sequence[Any], sens: Sequence[Any], wrt: Sequence[Tensor],
             on_final: Callable[[int, Any], None] | None = None) -> list:
    """Cotangents of ``outputs`` (seeded with ``sens``) with respect to each tensor in ``wrt``.

    ``on_final(k, grad)``, when given, is called with the gradient of ``wrt[k]`` as soon as the
    walk has passed every use of it (the data-parallel reduction starts its all-reduces then)."""
    grads: dict[int, object] = {}
    level = tape.vmap_level
    for o, s in zip(outputs, sens):
        if isinstance(o, Tensor) and s is not None:
            _accumulate(grads, o, s, level)
    final_after = _first_uses(tape, wrt) if on_final is not None else None
    entries = tape.entries
    tracked = tape.tracked
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        outputs = entry.outputs
        if len(outputs) == 1:  # (most ops: no list to build, no generator to run)
            g0 = grads.get(id(outputs[0]))
            gs = None if g0 is None else [g0]
        else:
            gs = [grads.get(id(o)) for o in outputs]
            if all(g is None for g in gs):
                gs = None
        if gs is not None:
            op = entry.op
            if VMAP_LEVEL[0] and not isinstance(op, Op) and not getattr(op, "batchable_vjp", False) \
                    and any(type(g) is BatchedTensor for g in gs):
                in_grads = _vjp_per_example(entry, gs)
            else:
                in_grads = None
                if op.name in _VJP_COMPILED and not ACTIVE and isinstance(op, Op):
                    # (no tape records this backward: the rule may run as one compiled graph)
                    in_grads = _eager_kernels.run_vjp(op, entry.attrs, entry.inputs, outputs, gs)
                if in_grads is None:
                    # (a rule may skip a cotangent nothing reads: graph.ops.core.input_needed)
                    needed = None
                    for inp in entry.inputs:
                        if id(inp) not in tracked:
                            needed = tuple(id(i) in tracked for i in entry.inputs)
                            break
                    in_grads = apply_vjp(op, entry.attrs, entry.inputs, outputs, gs, needed)
            for inp, gi in zip(entry.inputs, in_grads):
                if gi is not None and id(inp) in tracked and isinstance(inp, Tensor):
                    if type(gi) is BatchedTensor:
                        _accumulate(grads, inp, gi, level)
                    else:  # (_accumulate's common case, written out: one call less per cotangent)
                        prev = grads.get(id(inp))
                        grads[id(inp)] = gi if prev is None else F.add(prev, gi)
        if final_after is not None:
            for k in final_after.get(index, ()):
                on_final(k, _final_grad(tape, grads, wrt[k]))
            comm.progress()  # MPI moves started all-reduces only inside MPI calls
    return [_final_grad(tape, grads, w) for w in wrt]


def _vjp_per_example(entry, gs):
    """The VJP of a tape entry whose rule only takes real arrays (a compiled region's backward
    graph) for batched cotangents (``vmap`` of a gradient): once per example, stacked."""
    level = max(g.level for g in gs if type(g) is BatchedTensor)
    values = [unbatch(g) if type(g) is BatchedTensor and g.level == level else g for g in gs]
    size = next(v.shape[0] for v, g in zip(values, gs) if type(g) is BatchedTensor and g.level == level)
    per_example = []
    for i in range(size):
        gi = [F.getitem(v, index=(i,)) if type(g) is BatchedTensor and g.level == level else v
              for v, g in zip(values, gs)]
        per_example.append(apply_vjp(entry.op, entry.attrs, entry.inputs, entry.outputs, gi))
    out = []
    for k in range(len(entry.inputs)):
        column = [r[k] for r in per_example]
        if all(c is None for c in column):
            out.append(None)
            continue
        column = [F.zeros_like(entry.inputs[k]) if c is None else c for c in column]
        out.append(rebatch(F.stack(*column, axis=0), level))
    return tuple(out)


def _final_grad(tape, grads, w):
    g = in_dtype_of(grads.get(id(tape.leaf(w))), w)
    return F.zeros_like(w) if g is None else g


def _first_uses(tape, wrt) -> dict[int, list[int]]:
    """tape entry index -> the positions in ``wrt`` whose first (so, in the reverse walk, last)
    use is that entry."""
    position = {id(tape.leaf(w)): k for k, w in enumerate(wrt)}
    first: dict[int, int] = {}
    for index, entry in enumerate(tape.entries):
        for inp in entry.inputs:
            k = position.get(id(inp))
            if k is not None and k not in first:
                first[k] = index
    out: dict[int, list[int]] = {}
    for k, index in first.items():
        out.setdefault(index, []).append(k)
    return out


def _accumulate(grads, t, g, level=0):
    if type(g) is BatchedTensor:
        g = _sum_inner_batches(g, t, level)
    prev = grads.get(id(t))
    grads[id(t)] = g if prev is None else F.add(prev, g)


def _sum_inner_batches(g, t, level):
    """A cotangent batched by a vmap made after the tape (inside the differentiated function),
    reaching ``t`` that is not batched at that level (a tensor from outside the vmap): the
    examples' contributions add up, so the batch is summed out (``grad(vmap(f))``). A tape made
    inside the vmap (``vmap(grad(f))``) keeps the per-example cotangents."""
    while type(g) is BatchedTensor and g.level > level and not (
            type(t) is BatchedTensor and t.level == g.level):
        g = F.reduce_sum(unbatch(g), axis=(0,), keep_dims=False)
    return g


def _flatten_outputs(out):
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(_flatten_outputs(o))
        return flat
    if out is None:
        return []
    raise TypeError(f"grad: the function must return Tensors, got {type(out).__name__}")


def grad_positions(grad_position: GradPosition, nargs: int) -> tuple[int, ...]:
    """The input positions ``grad_position`` names for a call with ``nargs`` positional arguments,
    each in ``range(nargs)`` (negative ones counted from the end); TypeError/ValueError as
    MindSpore raises them.

    Example:
        >>> grad_positions((0, -1), 3), grad_positions(None, 2)
        ((0, 2), ())
    """
    if grad_position is None:
        return ()
    if isinstance(grad_position, int) and not isinstance(grad_position, bool):
        pos = (grad_position,)
    elif isinstance(grad_position, (tuple, list)) and all(isinstance(p, int) for p in grad_position):
        pos = tuple(grad_position)
    else:
        raise TypeError(f"grad: grad_position must be an int, a tuple of ints or None, got {grad_position!r}")
    for p in pos:
        if not -nargs <= p < nargs:
            raise ValueError(f"grad: grad_position {p} is out of range for {nargs} positional argument(s)")
    return tuple(p % nargs for p in pos)


def weights_list(weights: Weights) -> list[Tensor] | None:
    """The Parameters ``weights`` names, as a list (a Cell: its trainable parameters); None for
    None. Capture reads a gradient function's weights through this too."""
    if weights is None:
        return None
    if isinstance(weights, Tensor):
        return [weights]
    if hasattr(weights, "trainable_params") and callable(weights.trainable_params):
        return list(weights.trainable_params())
    ws = list(weights)
    for w in ws:
        if not isinstance(w, Tensor):
            raise TypeError(f"grad: weights must be Parameters, got {type(w).__name__}")
    return ws


def _run_with_tape(fn, args, kwargs, positions, weights, has_aux, sens=None):
    """Run ``fn`` under a tape; return (forward output, grads for positions, grads for weights).

    In data-parallel mode the weights are made identical across ranks before the first step, and
    their gradients are all-reduced unless a DistributedGradReducer was built for them
    (:mod:`runtime.parallel.reducer`)."""
    _dp.prepare_step(weights, fn)
    # MindSpore: a position holding a non-Tensor (a Python number, None...) gets () as its gradient
    all_positions = positions
    for p in positions:
        if not isinstance(args[p], Tensor):
            positions = tuple(p for p in positions if isinstance(args[p], Tensor))
            break
    tape = Tape()
    with tape:
        for p in positions:
            tape.watch(args[p])
        for w in weights or ():
            tape.watch(w)
        out = fn(*args, **kwargs)
    if has_aux:
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise TypeError("grad(has_aux=True): the function must return (output, aux...)")
        diff_out = out[0]
    else:
        diff_out = out
    flat = _flatten_outputs(diff_out)
    if sens is None:
        seeds = [F.ones_like(o) for o in flat]
    else:
        seeds = _flatten_outputs(sens) if not isinstance(sens, Tensor) else [sens]
        if len(seeds) != len(flat):
            raise ValueError(f"grad: sens has {len(seeds)} tensors but the function returned {len(flat)}")
    wrt = [args[p] for p in positions] + list(weights or ())
    if _dp.auto_reduce_needed(weights):
        # each bucket's all-reduce starts as soon as the walk has its gradients: it overlaps the
        # rest of the backward
        reducer, skip = _dp.auto_reducer(weights), len(positions)
        grads = backward(tape, flat, seeds, wrt,
                         on_final=lambda k, g: reducer.ready(k - skip, g) if k >= skip else None)
        return out, _with_empty(grads[:skip], positions, all_positions), list(reducer.finish(grads[skip:]))
    grads = backward(tape, flat, seeds, wrt)
    return out, _with_empty(grads[:len(positions)], positions, all_positions), grads[len(positions):]


def _with_empty(grads, tensor_positions, all_positions):
    """Gradients for ``all_positions``: those of the Tensor positions, () for the others."""
    if len(tensor_positions) == len(all_positions):
        return grads
    by_position = dict(zip(tensor_positions, grads))
    return [by_position.get(p, ()) for p in all_positions]


def _weight_grads(weight_grads, weights_given):
    """The weights' gradients as MindSpore returns them: a tuple, or the gradient alone where
    ``weights`` was one Parameter (not a list of them)."""
    return weight_grads[0] if isinstance(weights_given, Tensor) else tuple(weight_grads)


def _pack(pos_grads, weight_grads, positions_given, grad_position, weights, weights_given=None):
    if weights is None:
        if isinstance(grad_position, int):
            return pos_grads[0]
        return tuple(pos_grads)
    if grad_position is None:
        return _weight_grads(weight_grads, weights_given)
    pg = pos_grads[0] if isinstance(grad_position, int) else tuple(pos_grads)
    return pg, _weight_grads(weight_grads, weights_given)


#: set by capture once its frame hook is turned on (``capture.dispatch.call_grad_function``):
#: ``handler(grad_fn, args, kwargs) -> (handled, result)``. On a thread with the hook on, a grad
#: function called from code that is not itself captured (a loop in ``main()``) runs as one
#: compiled forward + backward graph instead of walking the tape.
CALL_HANDLER = None


def _vmapped(args) -> bool:
    """Called inside ``vmap`` (a BatchedTensor among ``args``, or in a tuple of them): the grad
    function runs on the tape, where the batched ops are recorded, not as a compiled graph."""
    if not VMAP_LEVEL[0]:
        return False
    for a in args:
        if type(a) is BatchedTensor or (isinstance(a, tuple) and any(type(x) is BatchedTensor for x in a)):
            return True
    return False


class GradFunction:
    """The function returned by ``grad``/``value_and_grad`` (capture recognises this type)."""

    def __init__(self, fn, grad_position, weights, has_aux, return_value):
        if grad_position is None and weights is None:
            raise ValueError("grad: grad_position and weights cannot both be None")
        self.fn = fn
        self.grad_position = grad_position
        self.weights = weights
        self.has_aux = has_aux
        self.return_value = return_value
        self._positions = {}  # (number of positional arguments, grad_position) -> grad_positions(...)

    def __call__(self, *args, **kwargs):
        if self.grad_position == ():  # MindSpore raises for an empty grad_position (its C++ check)
            raise RuntimeError("grad: grad_position is an empty tuple; give an int, a non-empty tuple or None")
        if CALL_HANDLER is not None and not _vmapped(args):
            handled, result = CALL_HANDLER(self, args, kwargs)
            if handled:
                return result
        try:  # (checked once per argument count and grad_position; an error is raised every time)
            positions = self._positions[len(args), self.grad_position]
        except (KeyError, TypeError):  # (TypeError: a list grad_position, never memoised)
            positions = grad_positions(self.grad_position, len(args))
            if type(self.grad_position) is not list:
                self._positions[len(args), self.grad_position] = positions
        weights = weights_list(self.weights)
        out, pg, wg = _run_with_tape(self.fn, args, kwargs, positions, weights, self.has_aux)
        grads = _pack(pg, wg, positions, self.grad_position, weights, self.weights)
        if self.has_aux and not self.return_value:  # MindSpore 2.x: (gradient, (aux outputs...))
            return grads, tuple(out[1:])
        return (out, grads) if self.return_value else grads


class _StructuredGradFn:
    """The gradient function ``grad``/``value_and_grad`` return for ``return_ids=True`` (MindSpore:
    each gradient becomes ``(position, grad)`` or ``(parameter name, grad)``, in the same
    structure), which capture's graph autodiff does not build. It calls the plain
    :class:`GradFunction` -- which in GRAPH_MODE may run compiled -- and restructures the result. It
    is deliberately not a ``GradFunction``: capture would rebuild the plain structure when it meets
    one inside traced code; this one it calls as a framework callable (and ``grad(...,
    return_ids=True)`` written inside traced code is an unknown argument there: a graph break)."""

    def __init__(self, inner: GradFunction, return_ids: bool):
        self.inner = inner
        self.return_ids = return_ids

    def __call__(self, *args, **kwargs):
        inner = self.inner
        res = inner(*args, **kwargs)
        if inner.has_aux and not inner.return_value:
            return self._restructure(res[0], len(args)), res[1]
        if inner.return_value:
            return res[0], self._restructure(res[1], len(args))
        return self._restructure(res, len(args))

    def _restructure(self, packed, nargs):
        inner = self.inner
        weights = weights_list(inner.weights)
        if weights is None:
            pg, wg = packed, None
        elif inner.grad_position is None:
            pg, wg = None, packed
        else:
            pg, wg = packed
        if self.return_ids:
            positions = grad_positions(inner.grad_position, nargs)
            if isinstance(inner.grad_position, int):
                pg = (positions[0], pg)
            elif pg is not None:
                pg = tuple((p, g) for p, g in zip(positions, pg))
            if wg is not None:
                wg = ((weights[0].name, wg) if isinstance(inner.weights, Tensor)
                      else tuple((w.name, g) for w, g in zip(weights, wg)))
        if weights is None:
            return pg
        if inner.grad_position is None:
            return wg
        return pg, wg


def grad(fn: Callable[..., Any], grad_position: GradPosition = 0, weights: Weights = None,
         has_aux: bool = False, return_ids: bool = False) -> Callable[..., Any]:
    """Gradient function of ``fn`` (MindSpore 2.x ``mindspore.grad``).

    grad_position: int or tuple of input indices (None: only ``weights``); weights: Parameters
    or a Cell (its trainable parameters). Returns one grad, a tuple, or (input grads, weight grads).
    has_aux: ``fn`` returns ``(out, aux...)``; only ``out`` is differentiated and the gradient
    function returns ``(grads, (aux...))``.

    Example:
        >>> import numpy as np, runtime as ms
        >>> def fn(x):
        ...     return (x * x).sum(), x + 1
        >>> g, aux = ms.grad(fn, has_aux=True)(ms.Tensor(np.array([1.0, 2.0], np.float32)))
        >>> g.asnumpy().tolist(), len(aux), aux[0].asnumpy().tolist()
        ([2.0, 4.0], 1, [2.0, 3.0])

    return_ids: each gradient is replaced by ``(position, gradient)`` (inputs) or
    ``(parameter name, gradient)`` (weights), in the same structure.
    """
    return _make_grad_fn(fn, grad_position, weights, has_aux, False, return_ids)


def value_and_grad(fn: Callable[..., Any], grad_position: GradPosition = 0, weights: Weights = None,
                   has_aux: bool = False, return_ids: bool = False) -> Callable[..., Any]:
    """Like :func:`grad` but returns ``(value, grads)``; with has_aux, value is ``(out, aux...)``."""
    return _make_grad_fn(fn, grad_position, weights, has_aux, True, return_ids)


def _make_grad_fn(fn, grad_position, weights, has_aux, return_value, return_ids):
    for k, v in (("has_aux", has_aux), ("return_ids", return_ids)):
        if not isinstance(v, bool):  # MindSpore: TypeError for a non-bool has_aux / return_ids
            raise TypeError(f"grad: {k} must be a bool, got {v!r}")
    inner = GradFunction(fn, grad_position, weights, has_aux, return_value)
    if return_ids:
        return _StructuredGradFn(inner, return_ids)
    return inner


def get_grad(gradients: tuple, identifier: int | Tensor) -> Tensor:
    """``mindspore.get_grad``: the gradient for ``identifier`` (an input position or a Parameter)
    in the result of ``grad(..., return_ids=True)`` (or value_and_grad's gradient part)."""
    if not isinstance(identifier, (int, Tensor)) or isinstance(identifier, bool):
        raise TypeError(f"get_grad: identifier must be an int or a Parameter, got {type(identifier).__name__}")
    key = getattr(identifier, "name", None) if isinstance(identifier, Tensor) else identifier

    def find(node):
        if isinstance(node, tuple):
            if len(node) == 2 and isinstance(node[0], (int, str)) and not isinstance(node[0], bool) \
                    and isinstance(node[1], Tensor):
                return node[1] if node[0] == key and type(node[0]) is type(key) else None
            for item in node:
                hit = find(item)
                if hit is not None:
                    return hit
        return None
    found = find(gradients)
    if found is None:
        raise RuntimeError(f"get_grad: no gradient for {identifier!r} in the given gradients")
    return found


class GradOperation:
    """``ops.GradOperation(get_all=False, get_by_list=False, sens_param=False)(net, weights)``.

    get_all: grads for all positional inputs (tuple); get_by_list: grads for ``weights``; both:
    (input grads, weight grads); neither: the grad of the first input. sens_param: the last
    call argument is the output cotangent.

    Example:
        >>> import numpy as np, runtime as ms
        >>> grad_all = ms.ops.GradOperation(get_all=True)
        >>> dx, dy = grad_all(lambda x, y: x * y)(ms.Tensor(np.float32(3)), ms.Tensor(np.float32(4)))
        >>> float(dx.asnumpy()), float(dy.asnumpy())
        (4.0, 3.0)
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False) -> None:
        for k, v in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"GradOperation: {k} must be a bool, got {v!r}")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn: Callable[..., Any], weights: Weights = None) -> Callable[..., Any]:
        op = self

        def grad_fn(*args, **kwargs):
            if CALL_HANDLER is not None and not _vmapped(args):
                handled, result = CALL_HANDLER(grad_fn, args, kwargs)
                if handled:
                    return result
            sens = None
            if op.sens_param:
                if not args:
                    raise ValueError("GradOperation(sens_param=True): the last argument must be sens")
                args, sens = args[:-1], args[-1]
            positions = tuple(range(len(args))) if op.get_all else ((0,) if args and not op.get_by_list else ())
            # MindSpore: get_by_list with weights=None gives an empty tuple of weight gradients
            ws = (weights_list(weights) or []) if op.get_by_list else None
            _, pg, wg = _run_with_tape(fn, args, kwargs, positions, ws, False, sens=sens)
            if op.get_all and op.get_by_list:
                return tuple(pg), _weight_grads(wg, weights)
            if op.get_by_list:
                return _weight_grads(wg, weights)
            if op.get_all:
                return tuple(pg)
            return pg[0] if pg else ()  # MindSpore: a net called with no inputs gives ()

        grad_fn.grad_operation = op
        grad_fn.fn = fn
        grad_fn.weights = weights
        return grad_fn


def is_recording() -> bool:
    return bool(ACTIVE)


_context  # imported for its side effects on mode checks in callers
