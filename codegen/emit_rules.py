"""What every backend's emitter decides the same way, written once: the LLVM emitter
(codegen/cpu/emitter.py) and the CUDA C emitter (codegen/cuda/emitter.py) derive from
:class:`EmitterRules` and only render.

* ``pow`` by a constant Python exponent is strength-reduced (``x**2`` is ``x * x``, ``x**0.5`` of a
  float ``sqrt(x)``...) before any backend sees it, so both backends round the same way; other
  powers go to the backend's ``_pow``.
* ``floor_div`` and ``floor_mod`` (Python's ``//`` and ``%``, numpy's results: graph/ops/emit.py)
  share one dispatch on the unified dtype: bools are refused, floats go to the backend's
  ``_float_divmod`` (numpy's npy_divmod), integers to its exact ``_int_divmod``.

These are emitter rules, not graph rewrites: they apply wherever an op's ``expr`` calls the
primitive, at every optimisation level (``O0`` runs no simplification pass).
"""
from __future__ import annotations

import numpy as np


class EmitterRules:
    """Base of the backends' emitters. A subclass names its value class (``value_type``) and
    provides ``wrap``, ``const``, ``mul``, ``div``, ``sqrt``, ``_unify`` and the rendering hooks
    ``_pow(x, y)``, ``_int_divmod(x, y, dt)`` and ``_float_divmod(x, y, dt)``."""

    #: the emitter's value class (an operand that is not one is a Python constant)
    value_type: type = object

    def pow(self, x, y):
        if not isinstance(y, self.value_type) and isinstance(y, (int, float)):
            x = self.wrap(x)
            yv = float(y)
            if yv == 2.0:
                return self.mul(x, x)
            if yv == 1.0:
                return x
            if yv == 3.0:
                return self.mul(self.mul(x, x), x)
            if yv == 0.5 and x.dt.kind == "f":
                return self.sqrt(x)
            if yv == -1.0 and x.dt.kind == "f":
                return self.div(self.const(1.0, x), x)
        return self._pow(x, y)

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
