"""Shape and layout ops: reshape, transpose, broadcast_to, expand_dims, squeeze, zeros_like,
ones_like (more in the same style below)."""
from __future__ import annotations

from ..aval import AVal
from .core import (ELEMENTWISE, VIEW, Attr, F, Op, a_int, a_ints, a_shape, a_axis, fail,
                   normalize_axes, normalize_axis, register)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def resolve_reshape(x_shape, shape):
    """Target shape with one -1 resolved; ValueError naming both shapes if sizes disagree."""
    shape = tuple(shape)
    n = _prod(x_shape)
    if shape.count(-1) > 1:
        fail("reshape", f"at most one -1 is allowed in the target shape {shape}")
    if -1 in shape:
        known = _prod(s for s in shape if s != -1)
        if known == 0 or n % known:
            fail("reshape", f"cannot reshape input of shape {tuple(x_shape)} (size {n}) into {shape}")
        shape = tuple(n // known if s == -1 else s for s in shape)
    if _prod(shape) != n:
        fail("reshape", f"cannot reshape input of shape {tuple(x_shape)} (size {n}) into {shape} "
                        f"(size {_prod(shape)})")
    return shape


register(Op("reshape", prim="Reshape", inputs=("x",),
            impl=lambda xp, x, shape: xp.reshape(x, resolve_reshape(x.shape, shape)),
            infer=lambda x, shape: AVal(resolve_reshape(x.shape, shape), x.dtype),
            vjp=lambda g, out, x, shape: (F.reshape(g, shape=tuple(x.shape)),),
            kind=VIEW, attrs={"shape": Attr(check=a_shape)}, doc="same data, new shape (one -1 allowed)"))


def _perm(x, perm):
    if perm is None:
        return tuple(reversed(range(x.ndim)))
    if sorted(p % max(x.ndim, 1) for p in perm) != list(range(x.ndim)) or len(perm) != x.ndim:
        fail("transpose", f"perm {tuple(perm)} is not a permutation of the {x.ndim} axes of shape {tuple(x.shape)}")
    return tuple(p % x.ndim for p in perm)


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


register(Op("transpose", prim="Transpose", inputs=("x",),
            impl=lambda xp, x, perm=None: xp.transpose(x, _perm(x, perm)),
            infer=lambda x, perm=None: AVal(tuple(x.shape[p] for p in _perm(x, perm)), x.dtype),
            vjp=lambda g, out, x, perm=None: (F.transpose(g, perm=_inverse(_perm(x, perm))),),
            kind=VIEW, attrs={"perm": Attr(None, a_ints)}, doc="permute axes (None reverses them)"))


def _infer_broadcast_to(x, shape):
    shape = tuple(shape)
    if len(shape) < x.ndim:
        fail("broadcast_to", f"cannot broadcast shape {tuple(x.shape)} to fewer dimensions {shape}")
    lead = len(shape) - x.ndim
    out = list(shape)
    for i, s in enumerate(x.shape):
        t = shape[lead + i]
        if t == -1:
            out[lead + i] = s
        elif s != 1 and s != t:
            fail("broadcast_to", f"cannot broadcast shape {tuple(x.shape)} to {shape}")
    if any(s < 0 for s in out):
        fail("broadcast_to", f"-1 is only allowed for existing dimensions, got {shape}")
    return AVal(tuple(out), x.dtype)


def _broadcast_vjp(g, out, x, shape):
    from .elementwise import unbroadcast
    return (unbroadcast(g, x),)


register(Op("broadcast_to", prim="BroadcastTo", inputs=("x",),
            impl=lambda xp, x, shape: xp.broadcast_to(x, _infer_broadcast_to(x, shape).shape),
            infer=_infer_broadcast_to, vjp=_broadcast_vjp, kind=VIEW,
            attrs={"shape": Attr(check=a_ints)}, doc="broadcast to a larger shape (-1 keeps a dimension)"))


def _expand_axis(x, axis):
    return normalize_axis("expand_dims", axis, x.ndim + 1)


register(Op("expand_dims", prim="ExpandDims", inputs=("x",),
            impl=lambda xp, x, axis: xp.expand_dims(x, _expand_axis(x, axis)),
            infer=lambda x, axis: AVal(x.shape[:_expand_axis(x, axis)] + (1,) + x.shape[_expand_axis(x, axis):], x.dtype),
            vjp=lambda g, out, x, axis: (F.reshape(g, shape=tuple(x.shape)),),
            kind=VIEW, attrs={"axis": Attr(check=a_int)}, doc="insert a size-1 axis"))


def _squeeze_axes(x, axis):
    if axis is None:
        return tuple(i for i, s in enumerate(x.shape) if s == 1)
    axes = normalize_axes("squeeze", axis, x.ndim)
    for a in axes:
        if x.shape[a] != 1:
            fail("squeeze", f"cannot squeeze axis {a} of size {x.shape[a]} in shape {tuple(x.shape)}")
    return axes


def _infer_squeeze(x, axis=None):
    axes = _squeeze_axes(x, axis)
    return AVal(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype)


register(Op("squeeze", prim="Squeeze", inputs=("x",),
            impl=lambda xp, x, axis=None: xp.reshape(x, _infer_squeeze(x, axis).shape),
            infer=_infer_squeeze, vjp=lambda g, out, x, axis=None: (F.reshape(g, shape=tuple(x.shape)),),
            kind=VIEW, attrs={"axis": Attr(None, a_axis)}, doc="drop size-1 axes"))


def _like_infer(x, dtype=None):
    return AVal(x.shape, dtype or x.dtype)


register(Op("zeros_like", prim="ZerosLike", inputs=("x",),
            impl=lambda xp, x: xp.zeros_like(x), expr=lambda E, x: E.const(0, x),
            infer=_like_infer, nondiff="constant output: no gradient flows to x",
            kind=ELEMENTWISE, doc="zeros of x's shape and dtype"))
register(Op("ones_like", prim="OnesLike", inputs=("x",),
            impl=lambda xp, x: xp.ones_like(x), expr=lambda E, x: E.const(1, x),
            infer=_like_infer, nondiff="constant output: no gradient flows to x",
            kind=ELEMENTWISE, doc="ones of x's shape and dtype"))
