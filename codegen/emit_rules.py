"""What every backend's emitter decides the same way, written once: the LLVM emitter
(codegen/cpu/emitter.py) and the CUDA C emitter (codegen/cuda/emitter.py) derive from
:class:`EmitterRules` and only render.

* ``floor_div`` and ``floor_mod`` (Python's ``//`` and ``%``, numpy's results: graph/ops/emit.py)
  share one dispatch on the unified dtype: bools are refused, floats go to the backend's
  ``_float_divmod`` (numpy's npy_divmod), integers to its exact ``_int_divmod``.

This is a dispatch on the operands' dtype, not algebra: algebraic rewrites (a power by a constant
exponent as multiplications, ``sqrt`` or a reciprocal) are graph passes (graph/passes/simplify.py),
run at every optimisation level before any backend sees the graph.
"""
from __future__ import annotations

import numpy as np


class EmitterRules:
    """Base of the backends' emitters. A subclass provides ``_unify`` and the rendering hooks
    ``_int_divmod(x, y, dt)`` and ``_float_divmod(x, y, dt)``."""

    def floor_div(self, x, y):
        return self._divmod(x, y)[0]

    def floor_mod(self, x, y):
        return self._divmod(x, y)[1]

    def _divmod(self, x, y):
        (x, y), dt = self._unify(x, y)
        if dt == np.bool_:
            raise NotImplementedError("floor_div/floor_mod of bools (refused by the ops' inference)")
        if dt.kind == "f":
            return self._float_divmod(x, y, dt)
        return self._int_divmod(x, y, dt)
