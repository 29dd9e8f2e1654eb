"""``runtime.train`` (``mindspore.train``): Model, callbacks, metrics, checkpoints and export.

Example:
    >>> from runtime.train import Model, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig
    >>> cfg = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=3)
    >>> cfg.keep_checkpoint_max
    3
"""
from .callbacks import (Callback, CallbackList, CheckpointConfig, History, LambdaCallback, LossMonitor,  # noqa: F401
                        ModelCheckpoint, ProgressBar, RunContext, TimeMonitor)
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint  # noqa: F401
from .mindir import export, load  # noqa: F401
from .model import Model  # noqa: F401
from .monitors import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau, SummaryCollector  # noqa: F401
from .metrics import *  # noqa: F401,F403
from .metrics import __all__ as _metrics_all
from . import callback, serialization  # noqa: F401,E402  (mindspore.train.callback / .serialization)
from . import amp, loss_scale_manager  # noqa: F401,E402  (mindspore.train.amp / .loss_scale_manager)
from .amp import build_train_network  # noqa: F401,E402
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager  # noqa: F401,E402

__all__ = ["Model", "Callback", "CallbackList", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "ProgressBar", "LambdaCallback", "History", "save_checkpoint", "load_checkpoint",
           "load_param_into_net", "EarlyStopping", "LearningRateScheduler", "ReduceLROnPlateau",
           "SummaryCollector", "export", "load", "amp", "build_train_network", "LossScaleManager",
           "FixedLossScaleManager", "DynamicLossScaleManager"] + list(_metrics_all)
