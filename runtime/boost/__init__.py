"""``mindspore.boost``: ``GradientAccumulation`` (the rest of MindSpore's boost package, the
``boost_level`` training accelerations, is not here; ``Model(boost_level=...)`` accepts "O0").

Example:
    >>> import numpy as np, runtime as ms
    >>> from runtime import nn
    >>> from runtime.boost import GradientAccumulation
    >>> net = nn.Dense(2, 1)
    >>> acc = GradientAccumulation(2, nn.SGD(net.trainable_params(), learning_rate=0.1))
    >>> int(acc._accumulation_step.asnumpy())
    0
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..nn.cell import Cell
from ..parameter import Parameter
from ..tensor import Tensor

__all__ = ["GradientAccumulation"]


class GradientAccumulation(Cell):
    """``boost.GradientAccumulation(max_accumulation_step, optimizer)``: ``construct(loss, grads)``
    adds ``grads / max_accumulation_step`` to zero-initialised buffers (one per parameter of the
    optimizer); every ``max_accumulation_step``-th call runs ``optimizer`` on the accumulated
    gradients (their mean over the steps) and clears the buffers. Returns ``loss``."""

    def __init__(self, max_accumulation_step, optimizer):
        super().__init__()
        if isinstance(max_accumulation_step, bool) or not isinstance(max_accumulation_step, int) \
                or max_accumulation_step < 1:
            raise ValueError(f"GradientAccumulation: max_accumulation_step must be a positive int, "
                             f"got {max_accumulation_step!r}")
        if not isinstance(optimizer, Cell) or not hasattr(optimizer, "parameters"):
            raise TypeError(f"GradientAccumulation: optimizer must be an optimizer Cell, got {type(optimizer).__name__}")
        self._max_accumulation_step = max_accumulation_step
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self._grad_accumulation = [
            Parameter(Tensor._of_owned_array(np.zeros(w.shape, w.dtype.np)), name=f"grad_accumulation.{w.name}",
                      requires_grad=False)
            for w in self.weights]
        for i, p in enumerate(self._grad_accumulation):
            setattr(self, f"_grad_accumulation_{i}", p)  # registered, so they are saved and captured
        self._accumulation_step = Parameter(Tensor(np.int32(0)), name="accumulation_step", requires_grad=False)

    def construct(self, loss, grads):
        if len(grads) != len(self._grad_accumulation):
            raise ValueError(f"GradientAccumulation: got {len(grads)} gradients for "
                             f"{len(self._grad_accumulation)} parameters")
        for acc, g in zip(self._grad_accumulation, grads):
            ops.assign_add(acc, g / self._max_accumulation_step)
        ops.assign_add(self._accumulation_step, Tensor(np.int32(1)))
        if int(self._accumulation_step.asnumpy()) >= self._max_accumulation_step:
            self.optimizer(tuple(self._grad_accumulation))
            ops.assign(self._accumulation_step, Tensor(np.int32(0)))
            for acc in self._grad_accumulation:
                ops.assign(acc, ops.zeros_like(acc))
        return loss
