"""Callbacks that watch a quantity and act on training: ``EarlyStopping``, ``ReduceLROnPlateau``,
``LearningRateScheduler``, and ``SummaryCollector`` (scalars to CSV and JSON-lines files).

The monitored quantity is ``"loss"`` (the training loss of the last step) or a name in the
evaluation results ``Model.fit`` computes on ``valid_dataset`` (``"eval_loss"`` also finds the
metric named ``"loss"``). ``mode='auto'`` minimises the names MindSpore lists as smaller-is-better
(``"loss"``, ``"eval_loss"``, ``"mae"``, ``"mse"``, ``"perplexity"``, ``"hausdorff_distance"``,
``"mean_surface_distance"``, ``"root_mean_square_distance"``) and maximises every other name.

EarlyStopping and ReduceLROnPlateau follow MindSpore 2.x's rules: an epoch without an improvement
larger than ``min_delta`` adds one to ``wait``, and they act when ``wait >= patience``.

Example:
    >>> from runtime.train import EarlyStopping
    >>> cb = EarlyStopping(monitor="acc", patience=2)
    >>> cb.mode, cb.best
    ('auto', -inf)
"""
from __future__ import annotations

import csv
import json
import numbers
import os

import numpy as np

from .callbacks import Callback, _handle_loss

__all__ = ["EarlyStopping", "ReduceLROnPlateau", "LearningRateScheduler", "SummaryCollector"]

# MindSpore's ``_smaller_better_metrics`` (train/callback/_early_stop.py, _reduce_lr_on_plateau.py)
SMALLER_BETTER_METRICS = ("hausdorff_distance", "mae", "mse", "loss", "perplexity",
                          "mean_surface_distance", "root_mean_square_distance", "eval_loss")


def _scalar(v):
    if hasattr(v, "asnumpy"):
        v = v.asnumpy()
    arr = np.asarray(v, dtype=np.float64)
    return float(arr.mean()) if arr.size else float("nan")


def _monitored(cb_params, monitor, owner):
    """The current value of ``monitor``, or None when this epoch has none; a value that is not a
    scalar is refused (as MindSpore does)."""
    if monitor == "loss":
        return _handle_loss(cb_params.get("net_outputs"))
    results = cb_params.get("eval_results") or {}
    for key in (monitor, monitor[len("eval_"):] if monitor.startswith("eval_") else None):
        if key is not None and key in results:
            value = results[key]
            if hasattr(value, "asnumpy"):
                value = value.asnumpy()
            if np.ndim(value) != 0:
                raise ValueError(f"{owner} only supports a scalar monitor; {monitor!r} has shape {np.shape(value)}")
            return float(value)
    return None


def _check_number(owner, name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a float or int, got {v!r}")
    return v


class _Watch(Callback):
    """Shared by EarlyStopping and ReduceLROnPlateau: the best value so far, the direction of
    improvement, and the number of epochs without one (``wait``)."""

    def __init__(self, monitor, patience, mode, min_delta):
        super().__init__()
        name = type(self).__name__
        if not isinstance(monitor, str):
            raise TypeError(f"{name}: monitor must be a str, got {monitor!r}")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"{name}: patience must be an int >= 0, got {patience!r}")
        if not isinstance(mode, str):
            raise TypeError(f"{name}: mode must be a str, got {mode!r}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"{name}: mode should be 'auto', 'min' or 'max', but got {mode!r}")
        self.monitor, self.patience, self.mode = monitor, patience, mode
        self.min_delta = abs(float(_check_number(name, "min_delta", min_delta)))
        self.wait = 0
        self.best = self._initial_best()

    def _minimising(self):
        return self.mode == "min" or (self.mode == "auto" and self.monitor in SMALLER_BETTER_METRICS)

    def _initial_best(self):
        return np.inf if self._minimising() else -np.inf

    def is_improvement(self, a, b):
        """``a`` better than ``b`` by more than ``min_delta``."""
        if self._minimising():
            return bool(np.less(a, b - self.min_delta))
        return bool(np.greater(a, b + self.min_delta))


class EarlyStopping(_Watch):
    """Stop training when ``monitor`` has stopped improving (MindSpore 2.x
    ``train.EarlyStopping``): each epoch adds one to ``wait``; an improvement over the best value
    by more than ``min_delta`` (and, with a ``baseline``, over the baseline too) sets it back to 0;
    training stops at the end of the epoch where ``wait >= patience``. ``restore_best_weights``
    then puts back the parameters of the best epoch (or of the first watched epoch when none
    improved).

    Example:
        >>> from runtime.train import EarlyStopping, RunContext
        >>> from runtime.train.callbacks import _InternalCallbackParam
        >>> cb, params = EarlyStopping(monitor="eval_loss", patience=2), _InternalCallbackParam()
        >>> ctx = RunContext(params)
        >>> for epoch, loss in enumerate([1.0, 0.8, 0.9, 0.85, 0.7], 1):
        ...     params.cur_epoch_num, params.eval_results = epoch, {"eval_loss": loss}
        ...     cb.on_train_epoch_end(ctx)
        ...     if ctx.get_stop_requested():
        ...         break
        >>> cb.stopped_epoch, cb.best
        (4, 0.8)
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto", baseline=None,
                 restore_best_weights=False):
        super().__init__(monitor, patience, mode, min_delta)
        if not isinstance(verbose, bool):
            raise TypeError(f"EarlyStopping: verbose must be a bool, got {verbose!r}")
        if not isinstance(restore_best_weights, bool):
            raise TypeError(f"EarlyStopping: restore_best_weights must be a bool, got {restore_best_weights!r}")
        # MindSpore: ``baseline if baseline else None`` (a baseline of 0 is no baseline)
        self.baseline = float(_check_number("EarlyStopping", "baseline", baseline)) if baseline else None
        self.verbose = verbose
        self.restore_best_weights = restore_best_weights
        self.stopped_epoch = 0
        self.best_weights = None

    def on_train_begin(self, run_context):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self._initial_best()
        self.best_weights = None

    @staticmethod
    def _network(cb):
        return cb.get("train_network") or cb.get("network")

    def _snapshot(self, cb):
        return {p.name: p.asnumpy().copy() for p in self._network(cb).get_parameters()}

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        current = _monitored(cb, self.monitor, "EarlyStopping")
        if current is None:
            return
        self.wait += 1
        improved = self.is_improvement(current, self.best)
        if self.restore_best_weights and (improved or self.best_weights is None):
            self.best_weights = self._snapshot(cb)  # (the first epoch's, whatever it gives)
        if improved:
            self.best = current
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb.get("cur_epoch_num")
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                for p in self._network(cb).get_parameters():
                    if p.name in self.best_weights:
                        p.set_data(self.best_weights[p.name].copy())

    def on_train_end(self, run_context):
        if self.stopped_epoch and self.stopped_epoch > 0 and self.verbose:
            print("Epoch %05d: early stopping" % self.stopped_epoch)


def _lr_parameter(optimizer, owner):
    lr = getattr(optimizer, "learning_rate", None)
    if getattr(optimizer, "dynamic_lr", False) or getattr(optimizer, "is_group_lr", False) or not hasattr(lr, "set_data"):
        raise ValueError(f"{owner}: the optimizer's learning rate must be one fixed value (not a list, schedule "
                         "or per-group rates) to be changed by a callback")
    return lr


class ReduceLROnPlateau(_Watch):
    """Multiply the learning rate by ``factor`` (never below ``min_lr``) when ``monitor`` has
    stopped improving (MindSpore 2.x ``train.ReduceLROnPlateau``): an epoch without an improvement
    over the best value by more than ``min_delta`` adds one to ``wait``; at ``wait >= patience``
    the rate is reduced, ``wait`` restarts and ``cooldown`` epochs pass before epochs count again.

    Example (MindSpore's own test case: losses 1.0, 1.1, 1.2 with patience 2):
        >>> import runtime as ms
        >>> from runtime import nn
        >>> from runtime.train import ReduceLROnPlateau, RunContext
        >>> from runtime.train.callbacks import _InternalCallbackParam
        >>> params = _InternalCallbackParam()
        >>> params.optimizer = nn.Momentum(nn.Dense(1, 1).trainable_params(), learning_rate=1.0, momentum=0.9)
        >>> cb, lrs = ReduceLROnPlateau(monitor="eval_loss", patience=2), []
        >>> for epoch, loss in enumerate([1.0, 1.1, 1.2], 1):
        ...     params.cur_epoch_num, params.eval_results = epoch, {"eval_loss": loss}
        ...     cb.on_train_epoch_end(RunContext(params))
        ...     lrs.append(round(float(params.optimizer.learning_rate.asnumpy()), 6))
        >>> lrs
        [1.0, 1.0, 0.1]
    """

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        super().__init__(monitor, patience, mode, min_delta)
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 < factor < 1:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0, 1), got {factor!r}")
        if isinstance(cooldown, bool) or not isinstance(cooldown, int) or cooldown < 0:
            raise ValueError(f"ReduceLROnPlateau: cooldown must be an int >= 0, got {cooldown!r}")
        if not isinstance(verbose, bool):
            raise TypeError(f"ReduceLROnPlateau: verbose must be a bool, got {verbose!r}")
        self.factor, self.cooldown = float(factor), cooldown
        self.min_lr = float(_check_number("ReduceLROnPlateau", "min_lr", min_lr))
        self.verbose = verbose
        self.cooldown_counter = 0

    def on_train_begin(self, run_context):
        self.cooldown_counter = 0
        self.wait = 0
        self.best = self._initial_best()

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        lr = _lr_parameter(cb.get("optimizer"), "ReduceLROnPlateau")
        current = _monitored(cb, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = lr.asnumpy()
                if float(old) > self.min_lr:
                    new = max(float(old) * self.factor, self.min_lr)
                    lr.set_data(np.asarray(new, old.dtype).reshape(old.shape))
                    if self.verbose:
                        print("Epoch %05d: ReduceLROnPlateau reducing learning rate to %s."
                              % (cb.get("cur_epoch_num"), new))
                self.cooldown_counter = self.cooldown
                self.wait = 0


class LearningRateScheduler(Callback):
    """Each step, ``learning_rate_function(lr, cur_step_num)`` gives the new learning rate."""

    def __init__(self, learning_rate_function):
        super().__init__()
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: learning_rate_function must be callable")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        lr = _lr_parameter(cb.optimizer, "LearningRateScheduler")
        old = float(lr.asnumpy())
        new = float(self.learning_rate_function(old, cb.cur_step_num))
        if new != old:
            lr.set_data(np.asarray(new, lr.asnumpy().dtype))


class SummaryCollector(Callback):
    """Record scalars -- the training loss every ``collect_freq`` steps, the learning rate, and the
    evaluation results of each epoch -- to ``summary_dir/scalars.csv`` (step, epoch, tag, value)
    and ``summary_dir/scalars.jsonl`` (one JSON object per row). Files are appended and flushed
    per row, so a crashed run keeps what it logged."""

    def __init__(self, summary_dir, collect_freq=10):
        super().__init__()
        if isinstance(collect_freq, bool) or not isinstance(collect_freq, int) or collect_freq < 1:
            raise ValueError(f"SummaryCollector: collect_freq must be an int >= 1, got {collect_freq!r}")
        self.summary_dir, self.collect_freq = str(summary_dir), collect_freq
        self._csv = self._jsonl = None

    def _open(self):
        if self._csv is None:
            os.makedirs(self.summary_dir, exist_ok=True)
            csv_path = os.path.join(self.summary_dir, "scalars.csv")
            new = not os.path.exists(csv_path) or os.path.getsize(csv_path) == 0
            self._csv = open(csv_path, "a", newline="", encoding="utf-8")
            self._writer = csv.writer(self._csv)
            if new:
                self._writer.writerow(["step", "epoch", "tag", "value"])
            self._jsonl = open(os.path.join(self.summary_dir, "scalars.jsonl"), "a", encoding="utf-8")

    def record(self, step, epoch, tag, value):
        self._open()
        value = _scalar(value)
        self._writer.writerow([step, epoch, tag, repr(value)])
        self._csv.flush()
        self._jsonl.write(json.dumps({"step": step, "epoch": epoch, "tag": tag, "value": value}) + "\n")
        self._jsonl.flush()

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        if cb.cur_step_num % self.collect_freq:
            return
        loss = _handle_loss(cb.get("net_outputs"))
        if loss is not None:
            self.record(cb.cur_step_num, cb.cur_epoch_num, "loss", loss)
        lr = getattr(cb.get("optimizer"), "learning_rate", None)
        if hasattr(lr, "asnumpy") and not getattr(cb.optimizer, "dynamic_lr", False):
            self.record(cb.cur_step_num, cb.cur_epoch_num, "learning_rate", lr)

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        for name, value in (cb.get("eval_results") or {}).items():
            self.record(cb.cur_step_num, cb.cur_epoch_num, f"eval_{name}", value)

    def on_train_end(self, run_context):
        for f in (self._csv, self._jsonl):
            if f is not None:
                f.close()
        self._csv = self._jsonl = None
