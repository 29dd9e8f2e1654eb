"""``ops.einsum`` / ``ops.Einsum``: Einstein summation, composed of registry ops.

An equation names each operand's axes with letters (``"bij,bjk->bik"``); letters missing from the
output are summed over. It is built from ops that exist (no new op semantics here), so it
differentiates, vmaps and compiles where they do:

* a letter repeated inside one operand (``"ii->i"``) takes the diagonal: the operand times an
  identity mask over the two axes, summed over one of them;
* a letter only one operand has and the rest of the equation does not need is summed at once;
* operands are then contracted left to right, each pair as **one batched matrix product**: the
  letters both have and the rest still needs are the batch, the ones only one of them has are the
  rows / columns, the ones both have and nothing later needs are contracted (``matmul`` over
  transposed, reshaped operands, as ``tensordot`` is);
* ``...`` stands for the axes an operand has beyond its letters, right-aligned and broadcast
  between operands (size 1 against n), as in numpy.

Without ``->`` the output is the letters used exactly once, in alphabetical order, after the
ellipsis axes (numpy's implicit mode). An output without letters is a 1-element vector, as
MindSpore's documented ``einsum("i->", x)`` prints ``[7.]`` (numpy and torch give a 0-d value). MindSpore's sublist form ``einsum(a, [0, 1], b, [1, 2],
[0, 2])`` (integers in [0, 52), ``Ellipsis``) is accepted too.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> x = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))
    >>> y = Tensor(np.array([[2.0, 3.0], [1.0, 2.0], [4.0, 5.0]], np.float32))
    >>> print(ops.einsum("ij,jk->ik", x, y))
    [[16. 22.]
     [37. 52.]]
    >>> print(ops.einsum("i->", Tensor(np.array([1.0, 2.0, 4.0], np.float32))))
    [7.]
"""
from __future__ import annotations

import string

import numpy as np

from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

_R = REGISTRY
_LETTERS = string.ascii_lowercase + string.ascii_uppercase  # sublist integer k is _LETTERS[k]

__all__ = ["einsum", "Einsum"]


def _fail(equation, message, exc=ValueError):
    raise exc(f"Einsum (ops.einsum) {equation!r}: {message}")


def _from_sublists(args):
    """(equation, operands) of MindSpore's sublist form ``(op, sublist, op, sublist, ..., [out])``."""
    def letters(sub):
        out = []
        for k in sub:
            if k is Ellipsis:
                out.append("...")
            elif isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 0 <= k < 52:
                out.append(_LETTERS[k])
            else:
                raise ValueError(f"Einsum (ops.einsum): sublist entries must be integers in [0, 52) or "
                                 f"Ellipsis, got {k!r}")
        return "".join(out)
    operands = list(args[0::2])
    subs = list(args[1::2])
    out = None
    if len(operands) > len(subs):  # an odd count: the last item is the output sublist
        out = operands.pop()
    equation = ",".join(letters(s) for s in subs)
    if out is not None:
        equation += "->" + letters(out)
    return equation, operands


def _parse(equation, operands):
    """Each operand's letters (ellipsis expanded to fresh letters) and the output's letters."""
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        _fail(equation, "more than one '->'")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        _fail(equation, f"the equation names {len(terms)} operands but {len(operands)} were given")
    allowed = set(_LETTERS) | {"."}
    for t in terms + ([rhs] if arrow else []):
        bad = set(t) - allowed
        if bad:
            _fail(equation, f"only letters, ',', '...' and '->' may appear, got {sorted(bad)}")
        if t.replace("...", "").count(".") or t.count("...") > 1:
            _fail(equation, "'.' must come as one '...' per operand")
    used = set(lhs) - {",", "."}
    spare = [c for c in reversed(_LETTERS) if c not in used]  # letters for ellipsis axes
    ell_rank = 0
    for t, x in zip(terms, operands):
        named = len(t.replace("...", ""))
        if "..." in t:
            if x.ndim < named:
                _fail(equation, f"operand {t!r} has rank {x.ndim}, fewer than its {named} letters")
            ell_rank = max(ell_rank, x.ndim - named)
        elif x.ndim != named:
            _fail(equation, f"operand {t!r} has {named} letters but rank {x.ndim} (shape {tuple(x.shape)})")
    ell = spare[:ell_rank][::-1]  # the ellipsis axes' letters, right-aligned across operands
    subs = []
    for t, x in zip(terms, operands):
        if "..." in t:
            k = x.ndim - len(t.replace("...", ""))
            t = t.replace("...", "".join(ell[ell_rank - k:]))
        subs.append(t)
    if arrow:
        if rhs.count("...") and not ell_rank and not any("..." in t for t in terms):
            _fail(equation, "'...' in the output but in no operand")
        out = rhs.replace("...", "".join(ell))
        if len(set(out)) != len(out):
            _fail(equation, f"output letters repeat: {rhs!r}")
        missing = set(out) - set("".join(subs))
        if missing:
            _fail(equation, f"output letters {sorted(missing)} appear in no operand")
    else:  # implicit: the ellipsis axes, then the letters used once, alphabetically
        counts = {}
        for c in "".join(t.replace("...", "") for t in terms):
            counts[c] = counts.get(c, 0) + 1
        out = "".join(ell) + "".join(sorted((c for c, n in counts.items() if n == 1),
                                            key=_LETTERS.index))
    return subs, out


def _sizes(equation, subs, operands):
    """letter -> size, with size-1 ellipsis axes broadcasting against n."""
    size = {}
    for t, x in zip(subs, operands):
        for c, n in zip(t, x.shape):
            m = size.get(c)
            if m is None or m == 1:
                size[c] = n
            elif n not in (1, m):
                _fail(equation, f"letter {c!r} is {m} in one place and {n} in another "
                                f"(shapes {[tuple(o.shape) for o in operands]})")
    return size


def _diagonal(x, t):
    """Operand ``x`` with letters ``t`` where every letter appears once (diagonals taken)."""
    while len(set(t)) != len(t):
        c = next(c for c in t if t.count(c) > 1)
        i = t.index(c)
        j = t.index(c, i + 1)
        n = x.shape[i]
        mask_shape = [1] * x.ndim
        mask_shape[i] = mask_shape[j] = n
        mask = Tensor(np.eye(n, dtype=x.dtype.np).reshape(mask_shape))
        x = bind(_R["reduce_sum"], bind(_R["mul"], x, mask), axis=(j,))
        t = t[:j] + t[j + 1:]
    return x, t


def _sum_out(x, t, keep):
    """Sum the axes of ``x`` whose letters are not in ``keep``."""
    axes = tuple(i for i, c in enumerate(t) if c not in keep)
    if not axes:
        return x, t
    return bind(_R["reduce_sum"], x, axis=axes), "".join(c for c in t if c in keep)


def _arrange(x, t, order, size):
    """``x`` (letters ``t``) transposed to the letters ``order`` and broadcast to their sizes."""
    perm = tuple(t.index(c) for c in order)
    if perm != tuple(range(len(perm))):
        x = bind(_R["transpose"], x, perm=perm)
    want = tuple(size[c] for c in order)
    if tuple(x.shape) != want:
        x = bind(_R["broadcast_to"], x, shape=want)
    return x


def _contract(a, ta, b, tb, needed, size):
    """One batched matrix product of ``a`` and ``b``: (result, its letters)."""
    both = [c for c in ta if c in tb]
    batch = [c for c in both if c in needed]
    summed = [c for c in both if c not in needed]
    rows = [c for c in ta if c not in tb]
    cols = [c for c in tb if c not in ta]
    nb, nm, nk, nn = (int(np.prod([size[c] for c in g], dtype=np.int64)) for g in (batch, rows, summed, cols))
    a3 = bind(_R["reshape"], _arrange(a, ta, batch + rows + summed, size), shape=(nb, nm, nk))
    b3 = bind(_R["reshape"], _arrange(b, tb, batch + summed + cols, size), shape=(nb, nk, nn))
    out = bind(_R["matmul"], a3, b3)
    letters = batch + rows + cols
    return bind(_R["reshape"], out, shape=tuple(size[c] for c in letters)), "".join(letters)


def einsum(equation, *operands):
    """MindSpore 2.x ``ops.einsum(equation, *operands)`` (see the module docstring)."""
    if not isinstance(equation, str):  # the sublist form
        equation, operands = _from_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    if not operands:
        _fail(equation, "no operands")
    for x in operands:
        if not is_tensorlike(x):
            _fail(equation, f"operands must be Tensors, got {type(x).__name__}", TypeError)
    dtypes = {str(x.dtype) for x in operands}
    if len(dtypes) != 1:
        _fail(equation, f"operands must have one dtype, got {sorted(dtypes)}", TypeError)
    subs, out = _parse(equation, operands)
    size = _sizes(equation, subs, operands)
    xs = list(operands)
    for k, (x, t) in enumerate(zip(xs, subs)):
        x, t = _diagonal(x, t)
        later = set(out).union(*[set(s) for i, s in enumerate(subs) if i != k])
        xs[k], subs[k] = _sum_out(x, t, later)
    acc, ta = xs[0], subs[0]
    for k in range(1, len(xs)):
        needed = set(out).union(*[set(s) for s in subs[k + 1:]])
        acc, ta = _contract(acc, ta, xs[k], subs[k], needed, size)
    acc, ta = _sum_out(acc, ta, set(out))
    if not out:  # a full contraction is a 1-element vector in MindSpore ("i->" prints [7.])
        return bind(_R["reshape"], acc, shape=(1,))
    return _arrange(acc, ta, list(out), size)


class Einsum:
    """``ops.Einsum(equation)(x)``: the Primitive form; ``x`` is a tuple/list of Tensors."""

    def __init__(self, equation):
        if not isinstance(equation, str):
            raise TypeError(f"Einsum: equation must be a str, got {type(equation).__name__}")
        self.equation = equation

    def __call__(self, x):
        if not isinstance(x, (tuple, list)):
            raise TypeError(f"Einsum: the input must be a tuple/list of Tensors, got {type(x).__name__}")
        return einsum(self.equation, *x)
