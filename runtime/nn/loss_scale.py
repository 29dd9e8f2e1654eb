"""Loss-scaled training (``mindspore.nn.wrap.loss_scale``): ``DynamicLossScaleUpdateCell``,
``FixedLossScaleUpdateCell`` and ``TrainOneStepWithLossScaleCell``.

The loss scale lives in a Parameter (``scale_sense``) updated with ``ops.assign``, and a step
whose gradients overflow is skipped with ``ops.select`` on every parameter and optimizer state
instead of a Python branch, so a whole loss-scaled step -- forward, scaled backward, overflow
check, scale update and the conditional optimizer update -- compiles into one graph.

Example:
    >>> import numpy as np, runtime as ms
    >>> from runtime import nn
    >>> net = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
    >>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    >>> manager = nn.DynamicLossScaleUpdateCell(loss_scale_value=2**12, scale_factor=2, scale_window=1000)
    >>> train = nn.TrainOneStepWithLossScaleCell(net, opt, scale_sense=manager)
    >>> loss, overflow, scale = train(ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32)))
    >>> bool(overflow), float(scale.asnumpy())
    (False, 4096.0)
"""
from __future__ import annotations

import numbers

import numpy as np

from graph.dtypes import float32, int32

from .. import ops
from ..amp import all_finite
from ..autograd import value_and_grad
from ..parameter import Parameter
from ..tensor import Tensor
from .cell import Cell
from .optim.optimizer import Optimizer
from .wrap import _check_cell

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]


def _check_scale_value(owner, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{owner}: loss_scale_value must be a float, got {type(v).__name__} {v!r}")
    if not v > 0:
        raise ValueError(f"{owner}: loss_scale_value must be > 0, got {v}")
    return float(v)


class DynamicLossScaleUpdateCell(Cell):
    """Updates a loss scale (MindSpore's rule): on overflow the scale becomes
    ``max(scale / scale_factor, 1)``; after ``scale_window`` steps since the last overflow it is
    multiplied by ``scale_factor``. ``construct(loss_scale, overflow)`` assigns the new value to
    the ``loss_scale`` Parameter and returns ``overflow``.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        name = "DynamicLossScaleUpdateCell"
        self.loss_scale_value = _check_scale_value(name, loss_scale_value)
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, numbers.Real) or scale_factor <= 0:
            raise ValueError(f"{name}: scale_factor must be a positive number, got {scale_factor!r}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, numbers.Integral) or scale_window < 1:
            raise ValueError(f"{name}: scale_window must be a positive int, got {scale_window!r}")
        self.scale_window = Tensor(int(scale_window), dtype=int32)
        self.scale_factor = Tensor(float(scale_factor), dtype=float32)
        self.minimum_loss_scale = Tensor(1.0, dtype=float32)
        self.cur_iter = Parameter(Tensor(1, dtype=int32), name="current_iterator_step", requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(0, dtype=int32), name="last_overflow_iterator_step",
                                            requires_grad=False)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        scale_on_overflow = ops.select(overflow, ops.maximum(loss_scale * ops.reciprocal(self.scale_factor),
                                                             self.minimum_loss_scale), loss_scale)
        should_inc = ops.less_equal(self.scale_window, self.cur_iter - self.last_overflow_iter)
        last_iter_cond = ops.logical_or(overflow, should_inc)
        ops.assign(self.last_overflow_iter, ops.select(last_iter_cond, self.cur_iter, self.last_overflow_iter))
        grow = ops.logical_and(should_inc, ops.logical_not(overflow))
        ops.assign(loss_scale, ops.select(grow, scale_on_overflow * self.scale_factor, scale_on_overflow))
        ops.assign(self.cur_iter, self.cur_iter + 1)
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A fixed loss scale: ``construct(loss_scale, overflow)`` returns ``overflow`` and changes
    nothing (overflowing steps are still skipped by ``TrainOneStepWithLossScaleCell``)."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = _check_scale_value("FixedLossScaleUpdateCell", loss_scale_value)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(Cell):
    """A training step with loss scaling (MindSpore 2.x): the backward is seeded with the loss
    scale, gradients are divided by it, and when any gradient is inf/NaN the optimizer update is
    skipped (parameters and optimizer state keep their values). ``scale_sense`` is an update Cell
    (``DynamicLossScaleUpdateCell``/``FixedLossScaleUpdateCell``) or a Tensor of shape () or (1,)
    (change it with :meth:`set_sense_scale`). Returns ``(loss, overflow, loss_scale)``, the loss
    scale being the one this step used.
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(auto_prefix=False)
        name = "TrainOneStepWithLossScaleCell"
        self.network = _check_cell(name, "network", network)
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{name}: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), dtype=float32), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(f"{name}: scale_sense must have shape () or (1,), got {tuple(scale_sense.shape)}")
            self.scale_sense = Parameter(Tensor(scale_sense.asnumpy().copy()), name="scale_sense")
        else:
            raise TypeError(f"{name}: scale_sense must be a Cell or a Tensor, got {type(scale_sense).__name__}")
        # one forward: the differentiated output is loss * scale (its backward is seeded with the
        # scale, as MindSpore's sens), the loss itself rides along as the auxiliary output
        self.grad_fn = value_and_grad(self._scaled_loss, None, self.weights, has_aux=True)
        # everything an update may change, restored when a step overflows
        seen, state = set(), []
        for p in list(optimizer.parameters) + list(optimizer.get_parameters()):
            if id(p) not in seen:
                seen.add(id(p))
                state.append(p)
        self._update_state = tuple(state)

    def _scaled_loss(self, *inputs):
        loss = self.network(*inputs)
        return loss * ops.cast(self.scale_sense, loss.dtype), loss

    def set_sense_scale(self, sens):
        """Set the loss scale used when ``scale_sense`` was given as a Tensor."""
        if self.loss_scaling_manager is not None:
            raise TypeError("TrainOneStepWithLossScaleCell.set_sense_scale: the loss scale is managed by "
                            f"{type(self.loss_scaling_manager).__name__}; only a Tensor scale_sense can be set")
        if not isinstance(sens, Tensor):
            raise TypeError(f"TrainOneStepWithLossScaleCell.set_sense_scale: sens must be a Tensor, got {type(sens).__name__}")
        self.scale_sense.set_data(Tensor(np.asarray(sens.asnumpy(), self.scale_sense.dtype.np)
                                         .reshape(self.scale_sense.shape)))

    def get_overflow_status(self, status, compute_output):
        """True (a 0-d bool tensor) when any of ``compute_output`` holds inf or NaN."""
        return ops.logical_not(all_finite(compute_output))

    def process_loss_scale(self, overflow):
        """Update the loss scale through the manager Cell, if any; returns ``overflow``."""
        if self.loss_scaling_manager is None:
            return overflow
        return self.loss_scaling_manager(self.scale_sense, overflow)

    def construct(self, *inputs):
        scaling_sens = self.scale_sense * 1  # the scale of this step (the Parameter changes below)
        (_, loss), grads = self.grad_fn(*inputs)
        inverse = ops.reciprocal(scaling_sens)
        grads = tuple(g * ops.cast(inverse, g.dtype) for g in grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        self._update_unless(overflow, grads)
        return loss, cond, scaling_sens

    def _update_unless(self, overflow, grads):
        """``optimizer(grads)``, undone where ``overflow`` is True: MindSpore's ``if not
        overflow: optimizer(grads)`` as data flow, so the step stays one graph."""
        before = tuple(p * 1 for p in self._update_state)
        self.optimizer(grads)
        for p, old in zip(self._update_state, before):
            ops.assign(p, ops.select(overflow, old, p))
