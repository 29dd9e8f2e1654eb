"""Training wrappers: WithLossCell, WithEvalCell, TrainOneStepCell (``mindspore.nn.wrap``).

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.Dense(2, 1)
    >>> loss_net = nn.WithLossCell(net, nn.MSELoss())
    >>> train = nn.TrainOneStepCell(loss_net, nn.SGD(net.trainable_params(), 0.1)).set_train()
    >>> float(train(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[1.0]])).asnumpy()) >= 0
    True
"""
from __future__ import annotations

import numbers

from .. import ops
from ..autograd import value_and_grad
from ..parallel import context as parallel_context
from .cell import Cell
from .grad_reducer import DistributedGradReducer
from .optim.optimizer import Optimizer

__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell"]


def _check_cell(owner, name, v):
    if not isinstance(v, Cell):
        raise TypeError(f"{owner}: {name} must be a Cell, got {type(v).__name__}")
    return v


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = _check_cell("WithLossCell", "backbone", backbone)
        self._loss_fn = _check_cell("WithLossCell", "loss_fn", loss_fn)

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    """Returns ``(loss, outputs, label)`` for evaluation."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = _check_cell("WithEvalCell", "network", network)
        self._loss_fn = _check_cell("WithEvalCell", "loss_fn", loss_fn)
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:  # MindSpore: float labels to float32 (integer labels stay), outputs to float32
            from graph.dtypes import float32
            from .cell import cast_float_inputs
            label = cast_float_inputs((label,), float32)[0]
            outputs = ops.cast(outputs, float32)
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class TrainOneStepCell(Cell):
    """One training step: forward + backward of ``network`` (which returns the loss) with respect
    to ``optimizer.parameters``, then ``optimizer(grads)``; returns the loss.

    ``sens`` scales the gradients (the backward seed), as MindSpore's loss-scale sens does; the
    default ``None`` means 1.0 and 0 is refused (MindSpore 2.x). ``return_grad=True`` returns
    ``(loss, {parameter name: gradient})`` (the parameters are still updated). In
    DATA_PARALLEL mode (``ms.set_auto_parallel_context``) the gradients pass through a
    :class:`~runtime.nn.DistributedGradReducer` (``self.grad_reducer``; ``self.reducer_flag`` says
    whether there is one) before the optimizer, as in MindSpore.
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = _check_cell("TrainOneStepCell", "network", network)
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"TrainOneStepCell: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        # MindSpore 2.x: sens None means 1.0, and 0 is refused
        if sens is None:
            sens = 1.0
        if isinstance(sens, bool) or not isinstance(sens, numbers.Real):
            raise TypeError(f"TrainOneStepCell: sens must be a float, got {sens!r}")
        if sens == 0:
            raise ValueError("TrainOneStepCell: the input argument of 'sens' can not be 0")
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = float(sens)
        self.return_grad = return_grad
        self.weights_name = [p.name for p in self.weights] if return_grad else None
        self.grad_fn = value_and_grad(self.network, None, self.weights)
        self.reducer_flag = parallel_context.data_parallel()
        self.grad_reducer = DistributedGradReducer(self.weights) if self.reducer_flag else None

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        if self.sens != 1.0:
            grads = tuple(ops.mul(g, self.sens) for g in grads)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            # MindSpore 2.x returns the gradients by parameter name
            return loss, {name: g for name, g in zip(self.weights_name, grads)}
        return loss
