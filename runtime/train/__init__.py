"""``runtime.train`` (``mindspore.train``): Model, callbacks, metrics, checkpoints and export.

Example:
    >>> from runtime.train import Model, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig
    >>> cfg = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=3)
    >>> cfg.keep_checkpoint_max
    3
"""
from .callbacks import (Callback, CallbackList, CheckpointConfig, History, LambdaCallback, LossMonitor,
                        ModelCheckpoint, ProgressBar, RunContext, TimeMonitor)
from .checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from .mindir import export, load
from .model import Model
from .monitors import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau, SummaryCollector
from .metrics import *  # noqa: F403
from .metrics import __all__ as _metrics_all
from . import callback, serialization  # noqa: F401  (mindspore.train.callback / .serialization)
from . import amp, loss_scale_manager  # noqa: F401  (mindspore.train.amp / .loss_scale_manager)
from .amp import build_train_network
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager

__all__ = ["Model", "Callback", "CallbackList", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint",
           "CheckpointConfig", "ProgressBar", "LambdaCallback", "History", "save_checkpoint", "load_checkpoint",
           "load_param_into_net", "EarlyStopping", "LearningRateScheduler", "ReduceLROnPlateau",
           "SummaryCollector", "export", "load", "amp", "build_train_network", "LossScaleManager",
           "FixedLossScaleManager", "DynamicLossScaleManager"] + list(_metrics_all)
