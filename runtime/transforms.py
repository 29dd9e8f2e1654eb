"""MindSpore 2.x's functional differentiation transforms: ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``
(``ms.`` and ``ops.`` spellings), with ``has_aux``.

All are written with ``ops.GradOperation`` / ``ms.grad`` (the tape in PyNative; capture compiles
them as gradient functions under ``ms.jit`` and GRAPH_MODE), so every op's VJP rule in the registry
is the only derivative code.

**Forward mode is JVP by double VJP** (a choice the design leaves open): for ``y = f(x)`` the
VJP ``u -> J^T u`` is linear in ``u``, so ``J v = d/du <J^T u, v>`` is one more reverse pass
through the VJP computation. This needs no JVP rule per op (every op already has a VJP written
with registered ops, which are themselves differentiable), costs about three reverse passes per
tangent, and gives exactly the reverse-mode numbers. ``jacfwd`` is one JVP per input element
(a column of the Jacobian), ``jacrev`` one VJP per output element (a row).

Example:
    >>> import numpy as np, runtime as ms
    >>> x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    >>> out, jv = ms.jvp(lambda t: t ** 3, x, ms.Tensor(np.ones(2, np.float32)))
    >>> jv.asnumpy().tolist()
    [3.0, 12.0]
    >>> ms.jacrev(lambda t: t ** 2)(x).asnumpy().tolist()
    [[2.0, 0.0], [0.0, 4.0]]
"""
from __future__ import annotations

import numpy as np

from graph.ops import REGISTRY, bind

from .autograd import GradOperation, grad
from .tensor import Tensor

__all__ = ["vjp", "jvp", "jacrev", "jacfwd"]

_R = REGISTRY
_GRAD_ALL_SENS = GradOperation(get_all=True, sens_param=True)
_GRAD_ALL_WEIGHTS_SENS = GradOperation(get_all=True, get_by_list=True, sens_param=True)


def _check_has_aux(has_aux):
    if not isinstance(has_aux, bool):
        raise TypeError(f"has_aux must be a bool, got {has_aux!r}")


def _aux_of(out):
    return out[1] if len(out) == 2 else out[1:]


def _check_tensors(what, values):
    for v in values:
        if not isinstance(v, Tensor) and not hasattr(v, "dtype"):
            raise TypeError(f"{what}: the inputs type must be Tensor, got {type(v).__name__}")


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _inner(grads, tangents):
    """sum_i <grads_i, tangents_i> as a 0-d tensor (None where nothing contributes)."""
    total = None
    for g, t in zip(grads, tangents):
        if t is None or not hasattr(g, "dtype") or not g.dtype.is_float:
            continue
        term = bind(_R["reduce_sum"], bind(_R["mul"], g, t), axis=tuple(range(g.ndim)), keep_dims=False)
        total = term if total is None else bind(_R["add"], total, term)
    return total


def _grad_positions(grad_position, nargs):
    if isinstance(grad_position, int) and not isinstance(grad_position, bool):
        pos = (grad_position,)
    elif isinstance(grad_position, tuple) and grad_position and all(
            isinstance(p, int) and not isinstance(p, bool) for p in grad_position):
        pos = grad_position
    else:
        raise TypeError(f"grad_position must be an int or a non-empty tuple of ints, got {grad_position!r}")
    for p in pos:
        if not -nargs <= p < nargs:
            raise ValueError(f"grad_position {p} is out of range for {nargs} input(s)")
    return tuple(p % nargs for p in pos)


def _basis(shape, dtype, k):
    """The k-th standard basis tensor of ``shape``."""
    e = np.zeros(int(np.prod(shape)) if shape else 1, dtype.np)
    e[k] = 1
    return Tensor._placed(e.reshape(shape))


def _arrange(per_output, n_inputs):
    """MindSpore's Jacobian structure: one Tensor; a tuple over inputs or over outputs; or a
    tuple (per output) of tuples (per input)."""
    flat = [j for row in per_output for j in row]
    if len(flat) == 1:
        return flat[0]
    if n_inputs == 1 or len(per_output) == 1:
        return tuple(flat)
    return tuple(tuple(row) for row in per_output)


def _vectorised_rows_allowed():
    """Compute a Jacobian's rows/columns all at once with ``vmap`` (eager), or one at a time
    while graph capture traces the transform (a graph builder is routing operandless draws then;
    capture cannot hand the row function to ``vmap``, and the loop compiles into one graph)."""
    from graph.ops.core import _OPERANDLESS
    return not _OPERANDLESS


def _stack_reshape(pieces, lead_shape, tail_shape, pieces_first):
    """Stack per-element results into the Jacobian block of shape out.shape + in.shape: rows (one
    per output element, each shaped like the input) on a new first axis, or columns (one per input
    element, each shaped like the output) on a new last axis."""
    stacked = bind(_R["stack"], *pieces, axis=0 if pieces_first else -1)
    return bind(_R["reshape"], stacked, shape=tuple(lead_shape) + tuple(tail_shape))


class _Transforms:
    """The transforms, as methods of one plain object: capture traces such methods' bytecode like
    user code (a module-level framework function would instead be called with symbolic tensors),
    so under ``ms.jit``/GRAPH_MODE the ``GradOperation``/``grad`` calls inside become graph
    autodiff in the caller's graph. Every function they hand to a gradient transform is made
    inside them for the same reason."""

    def vjp(self, fn, *inputs, weights=None, has_aux=False):
        """``ms.vjp(fn, *inputs, weights=None, has_aux=False)`` -> ``(outputs, vjp_fn[, aux])``.

        ``vjp_fn(v)`` (``v`` shaped like the outputs; a tuple of them for several outputs) gives
        the gradients ``v^T J`` of every input as a tuple; with ``weights`` it gives
        ``(input gradients, weight gradients)``."""
        _check_has_aux(has_aux)
        _check_tensors("vjp", inputs)

        def first_output(*args):
            out = fn(*args)
            if not isinstance(out, tuple) or len(out) < 2:
                raise ValueError("When 'has_aux' is True, origin 'fn' requires more than one outputs.")
            return out[0]
        diff_fn = first_output if has_aux else fn

        def vjp_fn(*v):
            _check_tensors("vjp_fn", [t for x in v for t in _as_tuple(x)])
            sens = v[0] if len(v) == 1 else tuple(v)
            if weights is None:
                return _GRAD_ALL_SENS(diff_fn)(*inputs, sens)
            return _GRAD_ALL_WEIGHTS_SENS(diff_fn, weights)(*inputs, sens)

        out = fn(*inputs)
        if has_aux:
            if not isinstance(out, tuple) or len(out) < 2:
                raise ValueError("When 'has_aux' is True, origin 'fn' requires more than one outputs.")
            return out[0], vjp_fn, _aux_of(out)
        return out, vjp_fn

    def jvp_of(self, diff_fn, inputs, tangents, outputs):
        """``J v`` for ``diff_fn`` at ``inputs`` along ``tangents`` (one per input, None for
        none): the gradient with respect to ``u`` of ``<J^T u, v>`` (double VJP)."""
        multi = isinstance(outputs, (tuple, list))
        outs = tuple(outputs) if multi else (outputs,)
        n = len(outs)
        # J^T u is linear in u, so its u-gradient is the same at every u: zeros are as good as any
        us = tuple(bind(_R["zeros_like"], o) for o in outs)

        def pulled_back_dot(*args):
            u, xs = args[:n], args[n:]
            grads = _GRAD_ALL_SENS(diff_fn)(*xs, tuple(u) if multi else u[0])
            total = _inner(grads, tangents)
            if total is None:  # no tangent reaches the outputs: J v = 0
                total = bind(_R["reduce_sum"], bind(_R["mul"], u[0], 0.0), axis=tuple(range(u[0].ndim)),
                             keep_dims=False)
            return total

        jv = grad(pulled_back_dot, grad_position=tuple(range(n)))(*us, *inputs)
        return tuple(jv) if multi else jv[0]

    def jvp(self, fn, inputs, v, has_aux=False):
        """``ms.jvp(fn, inputs, v, has_aux=False)`` -> ``(outputs, jvp[, aux])``: the
        Jacobian-vector product ``J v`` of ``fn`` at ``inputs`` (a Tensor or a tuple of them)
        along ``v`` (matching ``inputs``), by double VJP (see the module docstring)."""
        _check_has_aux(has_aux)
        if not isinstance(inputs, (tuple, list)) and not hasattr(inputs, "dtype") or \
                not isinstance(v, (tuple, list)) and not hasattr(v, "dtype"):
            raise TypeError("jvp: inputs and v must be a Tensor or a tuple/list of Tensors")
        xs, vs = _as_tuple(inputs), _as_tuple(v)
        if len(xs) != len(vs):
            raise ValueError(f"jvp: {len(xs)} input(s) but {len(vs)} tangent vector(s)")
        for x, t in zip(xs, vs):
            if tuple(x.shape) != tuple(t.shape):
                raise ValueError(f"jvp: tangent of shape {tuple(t.shape)} for an input of shape {tuple(x.shape)}")

        def first_output(*args):
            return fn(*args)[0]
        out = fn(*xs)
        if has_aux and (not isinstance(out, tuple) or len(out) < 2):
            raise ValueError("When 'has_aux' is True, origin 'fn' requires more than one outputs.")
        primal = out[0] if has_aux else out
        jv = self.jvp_of(first_output if has_aux else fn, xs, vs, primal)
        if has_aux:
            return primal, jv, _aux_of(out)
        return out, jv

    def jacrev(self, fn, grad_position=0, has_aux=False):
        """``ms.jacrev(fn, grad_position=0, has_aux=False)``: a function giving the Jacobian of
        ``fn`` with respect to the inputs at ``grad_position``, by reverse mode (one VJP per
        output element). With ``has_aux`` it returns ``(jacobian, aux)``."""
        _check_has_aux(has_aux)
        transforms = self

        def jacobian(*args):
            return transforms.jacobian(fn, args, grad_position, has_aux, True)
        return jacobian

    def jacfwd(self, fn, grad_position=0, has_aux=False):
        """``ms.jacfwd(fn, grad_position=0, has_aux=False)``: the Jacobian by forward mode (one
        JVP, i.e. one double VJP, per input element); same structure as :func:`jacrev`."""
        _check_has_aux(has_aux)
        transforms = self

        def jacobian(*args):
            return transforms.jacobian(fn, args, grad_position, has_aux, False)
        return jacobian

    def rows_batched(self, diff_fn, args, positions, outs, j, multi):
        """Every row of the Jacobian of output ``j`` at once: one VJP under ``vmap`` over the
        standard basis of that output (the backward pass runs batched)."""
        from .vmap import vmap
        o = outs[j]
        basis = Tensor._placed(np.eye(o.size, dtype=o.dtype.np).reshape((o.size,) + tuple(o.shape)))

        def rows(seed):
            seeds = tuple(seed if i == j else bind(_R["zeros_like"], oi) for i, oi in enumerate(outs))
            grads = _GRAD_ALL_SENS(diff_fn)(*args, seeds if multi else seeds[0])
            return tuple(grads[p] for p in positions)
        return dict(zip(positions, vmap(rows)(basis)))

    def columns_batched(self, diff_fn, args, p, primal, multi):
        """Every column for input ``p`` at once: one JVP under ``vmap`` over its standard basis."""
        from .vmap import vmap
        x = args[p]
        basis = Tensor._placed(np.eye(x.size, dtype=x.dtype.np).reshape((x.size,) + tuple(x.shape)))
        transforms = self

        def columns(t):
            tangents = [None] * len(args)
            tangents[p] = t
            jv = transforms.jvp_of(diff_fn, args, tangents, primal)
            return tuple(jv) if multi else (jv,)
        return list(vmap(columns)(basis))

    def jacobian(self, fn, args, grad_position, has_aux, reverse):
        """The Jacobian of ``fn`` at ``args``: rows by VJPs (``reverse``) or columns by JVPs."""
        _check_tensors("jacrev" if reverse else "jacfwd", args)
        positions = _grad_positions(grad_position, len(args))

        def first_output(*a):
            return fn(*a)[0]
        diff_fn = first_output if has_aux else fn
        out = fn(*args)
        if has_aux and (not isinstance(out, tuple) or len(out) < 2):
            raise ValueError("When 'has_aux' is True, origin 'fn' requires more than one outputs.")
        primal = out[0] if has_aux else out
        multi = isinstance(primal, (tuple, list))
        outs = tuple(primal) if multi else (primal,)
        blocks = {}
        vectorise = _vectorised_rows_allowed()
        if reverse:
            for j, o in enumerate(outs):
                if vectorise:
                    rows = self.rows_batched(diff_fn, args, positions, outs, j, multi)
                else:
                    rows = {p: [] for p in positions}
                    for k in range(o.size):
                        seeds = tuple(_basis(tuple(o.shape), o.dtype, k) if i == j else bind(_R["zeros_like"], oi)
                                      for i, oi in enumerate(outs))
                        grads = _GRAD_ALL_SENS(diff_fn)(*args, seeds if multi else seeds[0])
                        for p in positions:
                            rows[p].append(grads[p])
                    rows = {p: bind(_R["stack"], *rows[p], axis=0) for p in positions}
                for p in positions:
                    blocks[(j, p)] = bind(_R["reshape"], rows[p], shape=tuple(o.shape) + tuple(args[p].shape))
        else:
            for p in positions:
                x = args[p]
                if vectorise:
                    columns = self.columns_batched(diff_fn, args, p, primal, multi)
                else:
                    per_k = []
                    for k in range(x.size):
                        tangents = [None] * len(args)
                        tangents[p] = _basis(tuple(x.shape), x.dtype, k)
                        jv = self.jvp_of(diff_fn, args, tangents, primal)
                        per_k.append(jv if multi else (jv,))
                    columns = [bind(_R["stack"], *[c[j] for c in per_k], axis=0) for j in range(len(outs))]
                for j, o in enumerate(outs):
                    # (n_in, *out.shape) -> (*out.shape, n_in) -> out.shape + in.shape
                    col = columns[j]
                    nd = len(col.shape)
                    col = bind(_R["transpose"], col, perm=tuple(range(1, nd)) + (0,))
                    blocks[(j, p)] = bind(_R["reshape"], col, shape=tuple(o.shape) + tuple(x.shape))
        jac = _arrange([[blocks[(j, p)] for p in positions] for j in range(len(outs))], len(positions))
        return (jac, _aux_of(out)) if has_aux else jac


_TRANSFORMS = _Transforms()
vjp = _TRANSFORMS.vjp
jvp = _TRANSFORMS.jvp
jacrev = _TRANSFORMS.jacrev
jacfwd = _TRANSFORMS.jacfwd
