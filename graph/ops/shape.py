"""Shape and layout ops: reshape, transpose, broadcast_to, expand_dims, squeeze, zeros_like,
ones_like, concat, stack, split, tile, slice, strided_slice, getitem (and its scatter-add
gradient ``getitem_grad``).

Indexing: ``Tensor.__getitem__`` turns a Python index into a hashable *spec* plus the tensor operands
it contains with :func:`split_index`, then binds ``getitem(x, *index_tensors, index=spec)``.

Example:
    >>> from graph.ops.shape import split_index
    >>> split_index((0, slice(None, None, -1), None, Ellipsis))
    ((0, ('slice', None, None, -1), None, Ellipsis), [])
"""
from __future__ import annotations

import operator

import numpy as np

from ..symint import SymInt
from ..aval import AVal
from ..dtypes import from_numpy, promote
from .core import (ELEMENTWISE, EXTERN, VIEW, Attr, F, Op, a_int, a_ints, a_nonneg_int, a_pos_int,
                   a_shape, a_axis, describe, fail, gets_gradient, is_tensorlike, normalize_axes, normalize_axis,
                   register)


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
            # (inference, run before the impl in every mode, has checked the sizes; numpy's own
            # -1 resolution is the same rule)
            impl=lambda xp, x, shape: xp.reshape(x, shape),
            infer=lambda x, shape: AVal(resolve_reshape(x.shape, shape), x.dtype),
            vjp=lambda g, out, x, shape: (F.reshape(g, shape=tuple(x.shape)),),
            kind=VIEW, attrs={"shape": Attr(check=a_shape)}, call_attrs=("shape",),
            doc="same data, new shape (one -1 allowed)"))


def _perm(x, perm):
    if perm is None:
        return tuple(reversed(range(x.ndim)))
    if (len(perm) != x.ndim or any(not -x.ndim <= p < x.ndim for p in perm)
            or sorted(p % x.ndim for p in perm) != list(range(x.ndim))):
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
            kind=VIEW, attrs={"perm": Attr(None, a_ints)}, call_attrs=("perm",),
            doc="permute axes (None reverses them)"))


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


def _broadcast_to_impl(xp, x, shape):
    if -1 in shape:
        shape = _infer_broadcast_to(x, shape).shape
    if type(x) is np.ndarray and x.ndim == 0:
        # one value everywhere (a reduction's cotangent): the read-only zero-stride view
        # np.broadcast_to makes, built directly (np.broadcast_to's Python layers cost ~4x more)
        out = np.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
        out.flags.writeable = False
        return out
    return xp.broadcast_to(x, shape)


register(Op("broadcast_to", prim="BroadcastTo", inputs=("x",), impl=_broadcast_to_impl,
            infer=_infer_broadcast_to, vjp=_broadcast_vjp, kind=VIEW,
            attrs={"shape": Attr(check=a_ints)}, doc="broadcast to a larger shape (-1 keeps a dimension)"))


def _expand_axis(x, axis):
    return normalize_axis("expand_dims", axis, x.ndim + 1)


register(Op("expand_dims", prim="ExpandDims", inputs=("x",),
            impl=lambda xp, x, axis: xp.expand_dims(x, _expand_axis(x, axis)),
            infer=lambda x, axis: AVal(x.shape[:_expand_axis(x, axis)] + (1,) + x.shape[_expand_axis(x, axis):], x.dtype),
            vjp=lambda g, out, x, axis: (F.reshape(g, shape=tuple(x.shape)),),
            kind=VIEW, attrs={"axis": Attr(check=a_int)}, call_attrs=("axis",), doc="insert a size-1 axis"))


def _squeeze_axes(x, axis):
    if axis is None or axis == ():  # MindSpore: axis=() squeezes every size-1 axis
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
            kind=ELEMENTWISE, shape_only=True, doc="zeros of x's shape and dtype"))
register(Op("ones_like", prim="OnesLike", inputs=("x",),
            impl=lambda xp, x: xp.ones_like(x), expr=lambda E, x: E.const(1, x),
            infer=_like_infer, nondiff="constant output: no gradient flows to x",
            kind=ELEMENTWISE, shape_only=True, doc="ones of x's shape and dtype"))

register(Op("identity", prim="Identity", inputs=("x",),
            impl=lambda xp, x: x.copy(), expr=lambda E, x: x, vjp=lambda g, out, x: (g,),
            infer=_like_infer, kind=ELEMENTWISE,
            doc="a copy of x (same shape, dtype and values, its own memory); graph passes give outputs "
                "their own memory with it (graph/passes/outputs.py)"))

register(Op("stop_gradient", prim="StopGradient", inputs=("x",),
            impl=lambda xp, x: x.copy(), expr=lambda E, x: x,
            infer=_like_infer, nondiff="stop_gradient: no gradient flows to x by definition",
            kind=ELEMENTWISE, doc="x itself, cut from differentiation (gradients through it are zero)"))



# -- helpers for multi-tensor layout ops ----------------------------------------------------------------
def _tensors(name, xs):
    if not xs:
        fail(name, "needs at least one tensor")
    for x in xs:
        if not is_tensorlike(x):
            fail(name, f"expects tensors, got {describe(x)}", TypeError)
    return xs


def _promoted(xs):
    dt = xs[0].dtype
    for x in xs[1:]:
        dt = promote(dt, x.dtype)
    return dt


def _np_promoted(arrays):
    """numpy dtype all arrays are cast to (our promotion rules, not numpy's)."""
    dt = from_numpy(arrays[0].dtype)
    same = True
    for a in arrays[1:]:
        if a.dtype != arrays[0].dtype:
            same = False
            dt = promote(dt, from_numpy(a.dtype))
    return None if same else dt.np


def _cotangent_for(g, x):
    """``g`` cast to ``x``'s dtype; None where ``x`` gets no gradient."""
    if not gets_gradient(x):
        return None
    if g.dtype is not x.dtype:
        g = F.cast(g, dtype=x.dtype)
    return g


def _axis_slice(g, axis, start, length):
    begin = [0] * g.ndim
    size = list(g.shape)
    begin[axis], size[axis] = start, length
    return F.slice(g, begin=tuple(begin), size=tuple(size))


# -- concat / stack / split --------------------------------------------------------------------------
def _infer_concat(*xs, axis=0):
    xs = _tensors("concat", xs)
    nd = xs[0].ndim
    if nd == 0:
        fail("concat", "cannot concatenate 0-d tensors; use stack")
    ax = normalize_axis("concat", axis, nd)
    first = tuple(xs[0].shape)
    for x in xs[1:]:
        s = tuple(x.shape)
        if len(s) != nd or any(s[i] != first[i] for i in range(nd) if i != ax):
            fail("concat", "shapes " + ", ".join(str(tuple(t.shape)) for t in xs)
                 + f" differ outside the concatenation axis {axis}")
    out = list(first)
    out[ax] = sum(x.shape[ax] for x in xs)
    return AVal(tuple(out), _promoted(xs))


def _concat_impl(xp, *xs, axis=0):
    dt = _np_promoted(xs)
    if dt is not None:
        xs = [x.astype(dt) for x in xs]
    return xp.concatenate(xs, axis=axis)


def _concat_vjp(g, out, *xs, axis=0):
    ax = normalize_axis("concat", axis, g.ndim)
    grads, start = [], 0
    for x in xs:
        n = x.shape[ax]
        grads.append(_cotangent_for(_axis_slice(g, ax, start, n), x))
        start += n
    return tuple(grads)


register(Op("concat", prim="Concat", inputs=("*xs",), impl=_concat_impl, infer=_infer_concat,
            vjp=_concat_vjp, kind=VIEW, attrs={"axis": Attr(0, a_int)},
            doc="join tensors along an existing axis"))


def _infer_stack(*xs, axis=0):
    xs = _tensors("stack", xs)
    first = tuple(xs[0].shape)
    for x in xs[1:]:
        if tuple(x.shape) != first:
            fail("stack", "all tensors must have the same shape, got "
                 + ", ".join(str(tuple(t.shape)) for t in xs))
    ax = normalize_axis("stack", axis, len(first) + 1)
    return AVal(first[:ax] + (len(xs),) + first[ax:], _promoted(xs))


def _stack_impl(xp, *xs, axis=0):
    dt = _np_promoted(xs)
    if dt is not None:
        xs = [x.astype(dt) for x in xs]
    return xp.stack(xs, axis=axis)


def _stack_vjp(g, out, *xs, axis=0):
    ax = normalize_axis("stack", axis, g.ndim)
    return tuple(_cotangent_for(F.reshape(_axis_slice(g, ax, i, 1), shape=tuple(x.shape)), x)
                 for i, x in enumerate(xs))


register(Op("stack", prim="Stack", inputs=("*xs",), impl=_stack_impl, infer=_infer_stack,
            vjp=_stack_vjp, kind=VIEW, attrs={"axis": Attr(0, a_int)},
            doc="join same-shape tensors along a new axis"))


def _split_sizes(x, axis, output_num, sizes):
    if x.ndim == 0:
        fail("split", "cannot split a 0-d tensor")
    ax = normalize_axis("split", axis, x.ndim)
    dim = x.shape[ax]
    if sizes is not None:
        if any(s < 0 for s in sizes) or sum(sizes) != dim:
            fail("split", f"sizes {sizes} must be non-negative and add up to {dim}, the size of axis "
                          f"{axis} of shape {tuple(x.shape)}")
        return ax, tuple(sizes)
    if dim % output_num:
        fail("split", f"axis {axis} of shape {tuple(x.shape)} (size {dim}) cannot be split into "
                      f"{output_num} equal parts")
    return ax, (dim // output_num,) * output_num


def _infer_split(x, axis=0, output_num=1, sizes=None):
    ax, sizes = _split_sizes(x, axis, output_num, sizes)
    shape = tuple(x.shape)
    return tuple(AVal(shape[:ax] + (s,) + shape[ax + 1:], x.dtype) for s in sizes)


def _split_impl(xp, x, axis=0, output_num=1, sizes=None):
    ax, sizes = _split_sizes(x, axis, output_num, sizes)
    outs, start = [], 0
    for s in sizes:
        idx = [slice(None)] * x.ndim
        idx[ax] = slice(start, start + s)
        outs.append(x[tuple(idx)])
        start += s
    return tuple(outs)


def _split_vjp(g, out, x, axis=0, output_num=1, sizes=None):
    if not gets_gradient(x):
        return (None,)
    gs = g if isinstance(g, (tuple, list)) else (g,)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if len(gs) == 1:
        return (gs[0],)
    gs = [F.zeros_like(o) if gi is None else gi for gi, o in zip(gs, outs)]
    return (F.concat(*gs, axis=axis),)


register(Op("split", prim="Split", inputs=("x",), impl=_split_impl, infer=_infer_split,
            vjp=_split_vjp, kind=VIEW, n_outputs=-1,
            attrs={"axis": Attr(0, a_int), "output_num": Attr(1, a_pos_int),
                   "sizes": Attr(None, a_ints)},
            doc="split along axis into output_num equal parts (or parts of the given sizes); "
                "returns a tuple"))


# -- tile ---------------------------------------------------------------------------------------------
def _tile_shapes(x, multiples):
    if any(m < 0 for m in multiples):
        fail("tile", f"multiples must be non-negative, got {multiples}")
    nd = max(x.ndim, len(multiples))
    xs = (1,) * (nd - x.ndim) + tuple(x.shape)
    ms = (1,) * (nd - len(multiples)) + tuple(multiples)
    return xs, ms


def _infer_tile(x, multiples):
    xs, ms = _tile_shapes(x, multiples)
    return AVal(tuple(s * m for s, m in zip(xs, ms)), x.dtype)


def _tile_vjp(g, out, x, multiples):
    if not gets_gradient(x):
        return (None,)
    xs, ms = _tile_shapes(x, multiples)
    inter = []
    for s, m in zip(xs, ms):
        inter += [m, s]
    g = F.reshape(g, shape=tuple(inter))
    g = F.reduce_sum(g, axis=tuple(range(0, 2 * len(xs), 2)), keep_dims=False)
    return (F.reshape(g, shape=tuple(x.shape)),)


register(Op("tile", prim="Tile", inputs=("x",),
            impl=lambda xp, x, multiples: xp.tile(x, multiples), infer=_infer_tile, vjp=_tile_vjp,
            kind=VIEW, attrs={"multiples": Attr(check=a_ints)}, call_attrs=("multiples",),
            doc="repeat x multiples[i] times along axis i (numpy.tile)"))


# -- indexing -------------------------------------------------------------------------------------------
_SPEC_TAGS = ("slice", "list", "tensor", "bool")


def _index_int(v, what="index"):
    if type(v) is SymInt:
        return v  # (a size computed while capturing keeps its expression: graph.symint)
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"GetItem (ops.getitem): {what} {v!r} is not an integer") from None


def _const_list(v):
    arr = np.asarray(v)
    if arr.dtype == object or arr.dtype.kind not in "biu":
        raise TypeError(f"GetItem (ops.getitem): a list index must hold ints or bools, got {v!r:.80}")
    return ("list", _nested_tuple(arr.tolist()))


def _nested_tuple(v):
    return tuple(_nested_tuple(i) for i in v) if isinstance(v, list) else v


def split_index(index):
    """Python index -> (hashable spec, list of tensor operands).

    spec is a tuple with one entry per index item: an int, None, Ellipsis,
    ``("slice", start, stop, step)``, ``("list", nested tuple)`` for constant int/bool lists and
    arrays, ``("bool", b)`` for a Python bool, or ``("tensor", k)`` for the k-th tensor operand (int
    tensors gather, bool tensors are masks). Tensors are anything tensor-like (eager Tensors, IR
    values); numpy arrays become constant lists.
    """
    items = index if type(index) is tuple else (index,)
    spec, tensors = [], []
    for v in items:
        if v is None or v is Ellipsis:
            spec.append(v)
        elif type(v) is int or type(v) is SymInt:
            spec.append(v)
        elif isinstance(v, slice):
            spec.append(("slice",
                         None if v.start is None else _index_int(v.start, "slice start"),
                         None if v.stop is None else _index_int(v.stop, "slice stop"),
                         None if v.step is None else _index_int(v.step, "slice step")))
        elif isinstance(v, (bool, np.bool_)):
            spec.append(("bool", bool(v)))
        elif isinstance(v, np.integer):
            spec.append(int(v))
        elif isinstance(v, (np.ndarray, list, tuple)):
            spec.append(_const_list(v))
        elif is_tensorlike(v):
            spec.append(("tensor", len(tensors)))
            tensors.append(v)
        else:
            raise TypeError(f"GetItem (ops.getitem): unsupported index {v!r:.80} of type "
                            f"{type(v).__name__}; use ints, slices, None, ..., int lists or tensors")
    return tuple(spec), tensors


def _is_spec_item(v):
    if v is None or v is Ellipsis or type(v) is int or type(v) is SymInt:
        return True
    return type(v) is tuple and len(v) >= 2 and v[0] in _SPEC_TAGS


def a_index(v, op, name):
    """Attribute check for index specs: a spec passes; a plain Python index (no tensors) becomes one."""
    if type(v) is tuple and all(_is_spec_item(i) for i in v):
        return v
    spec, tensors = split_index(v)
    if tensors:
        raise TypeError(f"{op.prim} (ops.{op.name}): tensor indices are operands, not attributes; "
                        f"use x[index] or {op.name}(x, *tensors, {name}=spec)")
    return spec


def build_index(spec, tensors, xp=np):
    """spec + index arrays -> the Python index numpy/cupy understand."""
    out = []
    for s in spec:
        if type(s) is tuple:
            tag = s[0]
            if tag == "slice":
                out.append(slice(s[1], s[2], s[3]))
            elif tag == "tensor":
                out.append(tensors[s[1]])
            elif tag == "list":
                out.append(xp.asarray(s[1]))
            else:
                out.append(s[1])
        else:
            out.append(s)
    return tuple(out)


def _is_advanced(spec):
    return any(type(s) is tuple and s[0] in ("list", "tensor", "bool") for s in spec)


def index_result_shape(op_name, shape, spec, index_avals):
    """Result shape of ``x[index]`` for x of ``shape`` (numpy semantics, computed on a zero-strided
    dummy so no data is touched). Fails for data-dependent shapes (tensor boolean masks)."""
    shape = tuple(shape)
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape, [0] * len(shape))
    placeholders, masks = [], []
    for a in index_avals:
        if not is_tensorlike(a):
            fail(op_name, f"index operands must be tensors, got {describe(a)}", TypeError)
        dt = a.dtype
        if not (dt.is_int or dt.is_bool):
            fail(op_name, f"tensors used as indices must be integer or bool, got {describe(a)}",
                 TypeError)
        if dt.is_bool:
            masks.append(a)
        placeholders.append(np.zeros(tuple(a.shape), dt.np))
    try:
        idx = build_index(spec, placeholders)
    except (IndexError, TypeError) as e:
        fail(op_name, f"index spec {spec} does not match {len(index_avals)} tensor operand(s): {e}")
    try:
        with np.errstate(all="ignore"):
            r = dummy[idx]
    except (IndexError, ValueError, TypeError) as e:
        fail(op_name, f"cannot index a tensor of shape {shape} with {_spec_str(spec, index_avals)}: {e}")
    if masks:
        fail(op_name, "boolean mask indexing has a data-dependent shape (mask "
                      + ", ".join(describe(m) for m in masks)
                      + f" on shape {shape}); it is supported in PyNative mode only")
    return tuple(np.shape(r))


def _spec_str(spec, avals=()):
    parts = []
    for s in spec:
        if s is None:
            parts.append("None")
        elif s is Ellipsis:
            parts.append("...")
        elif type(s) is tuple:
            if s[0] == "slice":
                parts.append(":".join("" if v is None else str(v) for v in s[1:3])
                             + ("" if s[3] is None else f":{s[3]}"))
            elif s[0] == "tensor":
                parts.append(f"tensor {describe(avals[s[1]])}" if s[1] < len(avals) else "tensor")
            else:
                parts.append(repr(s[1]))
        else:
            parts.append(str(s))
    return "[" + ", ".join(parts) + "]"


def _infer_getitem(x, *indices, index):
    if not is_tensorlike(x):
        fail("getitem", f"cannot index {describe(x)}", TypeError)
    return AVal(index_result_shape("getitem", x.shape, index, indices), x.dtype)


def _getitem_impl(xp, x, *indices, index):
    return x[build_index(index, indices, xp)]


def _getitem_vjp(g, out, x, *indices, index):
    gx = None
    if gets_gradient(x):
        gx = F.getitem_grad(g, *indices, index=index, shape=tuple(x.shape))
    return (gx,) + (None,) * len(indices)


register(Op("getitem", prim="GetItem", inputs=("x", "*indices"), impl=_getitem_impl,
            infer=_infer_getitem, vjp=_getitem_vjp, kind=VIEW, eager_infer=False,
            attrs={"index": Attr(check=a_index)},
            doc="x[index]: ints, slices, None, Ellipsis, int lists, int tensors (gather) and, in "
                "PyNative mode, bool masks; index is a spec from split_index, tensors follow x"))


def _infer_getitem_grad(g, *indices, index, shape):
    want = index_result_shape("getitem_grad", shape, index, indices)
    if tuple(g.shape) != want:
        fail("getitem_grad", f"cotangent shape {tuple(g.shape)} does not match the indexed shape "
                             f"{want} of {tuple(shape)}{_spec_str(index, indices)}")
    return AVal(tuple(shape), g.dtype)


def _getitem_grad_impl(xp, g, *indices, index, shape):
    out = xp.zeros(tuple(shape), dtype=g.dtype)
    idx = build_index(index, indices, xp)
    if _is_advanced(index):
        xp.add.at(out, idx, g)  # repeated indices accumulate (CuPy: a scatter-add)
    else:
        out[idx] = g
    return out


register(Op("getitem_grad", prim="GetItemGrad", inputs=("g", "*indices"), impl=_getitem_grad_impl,
            infer=_infer_getitem_grad, kind=EXTERN, eager_infer=False,
            vjp=lambda gg, out, g, *indices, index, shape: (
                (F.getitem(gg, *indices, index=index),) + (None,) * len(indices)),
            attrs={"index": Attr(check=a_index), "shape": Attr(check=a_shape)},
            doc="zeros of shape with g added at x[index] (repeated indices accumulate): the "
                "gradient of getitem"))


# -- setitem: x[index] = value as a new tensor (the functional form of in-place assignment) ------------
def _infer_setitem(x, value, *indices, index):
    if not is_tensorlike(x):
        fail("setitem", f"cannot assign into {describe(x)}", TypeError)
    target = index_result_shape("setitem", x.shape, index, indices)
    vshape = tuple(value.shape)
    try:
        np.broadcast_shapes(vshape, target)
        ok = len(vshape) <= len(target) or all(d == 1 for d in vshape[:len(vshape) - len(target)])
    except ValueError:
        ok = False
    if not ok:
        fail("setitem", f"cannot assign a value of shape {vshape} to x{_spec_str(index, indices)} of shape "
                        f"{target} (x has shape {tuple(x.shape)})")
    return AVal(tuple(x.shape), x.dtype)


def _setitem_impl(xp, x, value, *indices, index):
    out = x.copy()
    idx = build_index(index, indices, xp)
    target = out[idx]
    # numpy drops leading size-1 axes of the value (x[0] = v[None]); do the same explicitly
    v = value.reshape(value.shape[value.ndim - target.ndim:]) if value.ndim > target.ndim else value
    out[idx] = v.astype(x.dtype, copy=False)
    return out


def _setitem_vjp(g, out, x, value, *indices, index):
    gx = gv = None
    if gets_gradient(x):  # the overwritten elements no longer depend on x
        gx = F.setitem(g, F.zeros_like(value if tuple(value.shape) == () else F.getitem(g, *indices, index=index)),
                       *indices, index=index)
    if gets_gradient(value):
        gv = F.getitem(g, *indices, index=index)
        lead = gv.ndim - value.ndim
        if lead < 0:  # value had extra leading size-1 axes
            gv = F.reshape(gv, shape=tuple(value.shape))
        gv = _cotangent_for(unbroadcast_to(gv, value), value)
    return (gx, gv) + (None,) * len(indices)


def unbroadcast_to(g, x):
    """``g`` summed down to ``x``'s shape (the axes broadcasting added or stretched)."""
    shape, gshape = tuple(x.shape), tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and gshape[i + lead] != 1)
    if axes:
        g = F.reduce_sum(g, axis=axes, keep_dims=False)
    return F.reshape(g, shape=shape) if tuple(g.shape) != shape else g


register(Op("setitem", prim="TensorSetItem", inputs=("x", "value", "*indices"), impl=_setitem_impl,
            infer=_infer_setitem, vjp=_setitem_vjp, kind=EXTERN, eager_infer=False,
            attrs={"index": Attr(check=a_index)},
            doc="a copy of x with x[index] = value (value broadcast and cast to x's dtype); the "
                "functional form of Tensor.__setitem__, differentiable in x and value (with repeated "
                "advanced indices the last write wins, as in numpy)"))


# -- slice / strided_slice ----------------------------------------------------------------------------
def _slice_spec(x, begin, size):
    shape = tuple(x.shape)
    if len(begin) != len(shape) or len(size) != len(shape):
        fail("slice", f"begin {begin} and size {size} must both have one entry per axis of shape {shape}")
    spec = []
    for i, (b, s, d) in enumerate(zip(begin, size, shape)):
        if s == -1:
            s = d - b
        if b < 0 or s < 0 or b + s > d:
            fail("slice", f"begin {begin} and size {size} do not fit shape {shape} (axis {i})")
        spec.append(("slice", b, b + s, 1))
    return tuple(spec)


def _slice_impl(xp, x, begin, size):
    return x[build_index(_slice_spec(x, begin, size), ())]


register(Op("slice", prim="Slice", inputs=("x",), impl=_slice_impl,
            infer=lambda x, begin, size: AVal(index_result_shape("slice", x.shape, _slice_spec(x, begin, size), ()),
                                              x.dtype),
            vjp=lambda g, out, x, begin, size: (
                F.getitem_grad(g, index=_slice_spec(x, begin, size), shape=tuple(x.shape))
                if gets_gradient(x) else None,),
            kind=VIEW, attrs={"begin": Attr(check=a_ints), "size": Attr(check=a_ints)},
            call_attrs=("begin", "size"),
            doc="the block of the given size starting at begin (size -1: to the end of the axis)"))


def _strided_spec(x, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                  shrink_axis_mask):
    if not len(begin) == len(end) == len(strides):
        fail("strided_slice", f"begin {begin}, end {end} and strides {strides} must have the same length")
    if any(s == 0 for s in strides):
        fail("strided_slice", f"strides must be non-zero, got {strides}")
    spec = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            spec.append(Ellipsis)
        elif new_axis_mask & bit:
            spec.append(None)
        elif shrink_axis_mask & bit:
            spec.append(b)
        else:
            spec.append(("slice", None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return tuple(spec)


_SS_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _ss_infer(x, begin, end, strides, **masks):
    spec = _strided_spec(x, begin, end, strides, **masks)
    return AVal(index_result_shape("strided_slice", x.shape, spec, ()), x.dtype)


def _ss_impl(xp, x, begin, end, strides, **masks):
    return x[build_index(_strided_spec(x, begin, end, strides, **masks), ())]


def _ss_vjp(g, out, x, begin, end, strides, **masks):
    if not gets_gradient(x):
        return (None,)
    return (F.getitem_grad(g, index=_strided_spec(x, begin, end, strides, **masks), shape=tuple(x.shape)),)


register(Op("strided_slice", prim="StridedSlice", inputs=("x",), impl=_ss_impl, infer=_ss_infer,
            vjp=_ss_vjp, kind=VIEW,
            attrs={"begin": Attr(check=a_ints), "end": Attr(check=a_ints), "strides": Attr(check=a_ints),
                   **{m: Attr(0, a_nonneg_int) for m in _SS_MASKS}},
            call_attrs=("begin", "end", "strides"),
            doc="x[begin:end:strides] per axis, with MindSpore's bit masks (begin/end: ignore the "
                "bound; ellipsis; new_axis; shrink_axis: take index begin[i] and drop the axis)"))
