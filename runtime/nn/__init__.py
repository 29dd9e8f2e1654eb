"""``runtime.nn``: Cell, layers, losses, optimizers, wrappers and metrics (``mindspore.nn``).

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
    >>> opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    >>> train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")), opt)
"""
from .cell import Cell
from ..parameter import Parameter, ParameterTuple
from .layers import *  # noqa: F403
from .layers import __all__ as _layers_all
from .loss import *  # noqa: F403
from .loss import __all__ as _loss_all
from .loss_more import *  # noqa: F403
from .loss_more import __all__ as _loss_more_all
from .optim import *  # noqa: F403
from .optim import __all__ as _optim_all
from .wrap import *  # noqa: F403
from .wrap import __all__ as _wrap_all
from .loss_scale import *  # noqa: F403
from .loss_scale import __all__ as _loss_scale_all
from .grad_reducer import DistributedGradReducer
from .metrics import *  # noqa: F403
from .metrics import __all__ as _metrics_all
from .dynamic_lr import *  # noqa: F403
from .dynamic_lr import __all__ as _dynamic_lr_all
from .learning_rate_schedule import *  # noqa: F403
from .learning_rate_schedule import __all__ as _lr_schedule_all
from .graph_cell import GraphCell
from . import layers, loss, loss_more, optim, wrap, loss_scale, metrics, dynamic_lr, learning_rate_schedule  # noqa: F401

__all__ = (["Cell", "GraphCell", "Parameter", "ParameterTuple", "DistributedGradReducer"] + _layers_all + _loss_all + _loss_more_all
           + _optim_all + _wrap_all + _loss_scale_all
           + _metrics_all + _dynamic_lr_all + _lr_schedule_all)
