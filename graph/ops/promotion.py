"""Operand dtype promotion for ops with ``promote=True``: one rule for eager execution, the
reference interpreter and compiled backends.

numpy would compute ``int32 tensor * 2.5`` in float64 and ``int32 + float32`` in float64; the
framework's rule (``graph.dtypes.promote`` / ``weak_scalar_type``) gives float32. Callers ask
:func:`promotion_target` for the dtype to cast to (None: no cast needed) and apply it with
:func:`cast_operands`.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import DType, from_numpy, promote, weak_scalar_type

#: promotion targets by (op, operand kinds): the rule reads only the operands' dtypes and the
#: *types* of Python scalars (``weak_scalar_type``), so numpy arrays (keyed by dtype) and exact
#: bool/int/float scalars (keyed by type) give one answer per key; anything else is not memoised
_TARGETS: dict = {}
_TARGETS_LIMIT = 4096
_SCALAR_TYPES = (bool, int, float)


def _memo_key(op, operands):
    key = [op]
    n = len(operands)
    for i in op.promote_idx:
        if i >= n:
            continue
        a = operands[i]
        t = type(a)
        if t is np.ndarray:
            key.append(a.dtype)
        elif t in _SCALAR_TYPES:
            key.append(t)
        elif a is None:
            key.append(None)
        else:
            return None
    return tuple(key)


def _dtype(a):
    d = a.dtype
    return d if isinstance(d, DType) else from_numpy(d)


def promotion_target(op, operands):
    """numpy dtype the promoted operands should be cast to, or None when numpy already agrees.

    ``operands`` are tensors/arrays/abstract values (anything with ``.dtype``) and Python scalars.
    """
    if not op.promote:
        return None
    key = _memo_key(op, operands)
    if key is None:
        return _target(op, operands)
    try:
        return _TARGETS[key]
    except KeyError:
        pass
    target = _target(op, operands)
    if len(_TARGETS) >= _TARGETS_LIMIT:
        _TARGETS.clear()
    _TARGETS[key] = target
    return target


def _target(op, operands):
    first = None
    same = True
    scalars = []
    dtypes = []
    for i in op.promote_idx:
        if i >= len(operands):
            continue
        a = operands[i]
        if a is None:
            continue
        if hasattr(a, "dtype") and hasattr(a, "shape"):
            d = _dtype(a)
            dtypes.append(d)
            if first is None:
                first = d
            elif d is not first:
                same = False
        elif isinstance(a, (bool, int, float)):
            scalars.append(a)
        else:  # a tuple, list, string...: the same error shape inference gives in a graph
            from .core import describe, fail
            fail(op.name, f"unsupported operand {describe(a)}", TypeError)
    if first is None:
        return None
    if same and (not scalars or first.is_float):
        return None  # numpy's weak-scalar rule (NEP 50) matches ours here
    target = first
    for d in dtypes[1:]:
        target = promote(target, d)
    for s in scalars:
        target = weak_scalar_type(target, s)
    if same and target is first and all(isinstance(s, int) for s in scalars):
        return None
    return target.np


def cast_operands(op, arrays, target):
    """Copy of ``arrays`` with the promoted operands cast to numpy dtype ``target``."""
    arrays = list(arrays)
    for i in op.promote_idx:
        if i >= len(arrays):
            continue
        a = arrays[i]
        if a is None:
            continue
        if hasattr(a, "dtype") and hasattr(a, "astype"):
            if a.dtype != target:
                arrays[i] = a.astype(target)
        else:
            arrays[i] = target.type(a)
    return arrays
