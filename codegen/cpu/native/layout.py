"""Layout kernels: a transpose that keeps the last axis, as contiguous row copies."""
from __future__ import annotations

import numpy as np

from ..kernels import _Loop
from .body import const64, begin


# -- transpose of the leading axes ----------------------------------------------------------------------
def emit_transpose(module, plan):
    """out[i0, .., i(d-2), :] = x[the same indices permuted back, :] over out's first axis
    [lo, hi): one contiguous row of the kept last axis per index."""
    g = plan.geometry
    shape_in, perm, shape_out = g["in"], g["perm"], g["out"]
    d = len(shape_in)
    in_strides = [int(np.prod(shape_in[i + 1:], dtype=np.int64)) for i in range(d)]
    row = shape_out[-1]
    E, lo, hi = begin(module, plan)
    b = E.b
    X, OUT = 0, 1
    loops, src, dst = [], const64(0), const64(0)
    for axis in range(d - 1):
        lp = _Loop(b, lo, hi, "t0") if axis == 0 else _Loop(b, const64(0), const64(shape_out[axis]), f"t{axis}")
        loops.append(lp)
        src = E.add(src, E.mul(lp.i, in_strides[perm[axis]]))
        dst = E.add(E.mul(dst, shape_out[axis]), lp.i)
    dst = E.mul(dst, row)
    lr = _Loop(b, const64(0), const64(row), "r")
    E.store(OUT, E.add(dst, lr.i), E.load(X, E.add(src, lr.i)))
    lr.close()
    for lp in reversed(loops):
        lp.close()
    b.ret_void()
