"""``mindspore.train.loss_scale_manager``: the loss-scale managers ``Model(..., loss_scale_manager=)``
and ``build_train_network`` take (defined in :mod:`runtime.amp`; the same classes).

Example:
    >>> from runtime.train.loss_scale_manager import FixedLossScaleManager
    >>> FixedLossScaleManager(1024.0, drop_overflow_update=False).get_loss_scale()
    1024.0
"""
from ..amp import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]
