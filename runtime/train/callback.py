"""``mindspore.train.callback``: the training callbacks of :mod:`runtime.train.callbacks`."""
from .callbacks import (Callback, CallbackList, CheckpointConfig, History, LambdaCallback, LossMonitor,  # noqa: F401
                        ModelCheckpoint, ProgressBar, RunContext, TimeMonitor)
from .monitors import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau, SummaryCollector  # noqa: F401
