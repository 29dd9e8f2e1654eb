"""Callbacks that watch a quantity and act on training: ``EarlyStopping``, ``ReduceLROnPlateau``,
``LearningRateScheduler``, and ``SummaryCollector`` (scalars to CSV and JSON-lines files).

The monitored quantity is ``"loss"`` (the training loss of the last step) or a name in the
evaluation results ``Model.fit`` computes on ``valid_dataset`` (``"eval_loss"`` also finds the
metric named ``"loss"``). ``mode='auto'`` maximises names containing "acc" and minimises the rest.

Example:
    >>> from runtime.train import EarlyStopping
    >>> EarlyStopping(monitor="acc", patience=2).mode
    'max'
"""
from __future__ import annotations

import csv
import json
import numbers
import os

import numpy as np

from .callbacks import Callback, _handle_loss

__all__ = ["EarlyStopping", "ReduceLROnPlateau", "LearningRateScheduler", "SummaryCollector"]


def _scalar(v):
    if hasattr(v, "asnumpy"):
        v = v.asnumpy()
    arr = np.asarray(v, dtype=np.float64)
    return float(arr.mean()) if arr.size else float("nan")


def _monitored(cb_params, monitor):
    """The current value of ``monitor``, or None when this epoch has none."""
    if monitor == "loss":
        return _handle_loss(cb_params.get("net_outputs"))
    results = cb_params.get("eval_results") or {}
    for key in (monitor, monitor[len("eval_"):] if monitor.startswith("eval_") else None):
        if key is not None and key in results:
            return _scalar(results[key])
    return None


class _Watch(Callback):
    """Shared by EarlyStopping and ReduceLROnPlateau: the best value so far and the number of
    epochs without an improvement larger than ``min_delta``."""

    def __init__(self, monitor, patience, mode, min_delta, baseline=None):
        super().__init__()
        name = type(self).__name__
        if not isinstance(monitor, str):
            raise TypeError(f"{name}: monitor must be a str, got {monitor!r}")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"{name}: patience must be an int >= 0, got {patience!r}")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"{name}: mode must be 'auto', 'min' or 'max', got {mode!r}")
        if isinstance(min_delta, bool) or not isinstance(min_delta, numbers.Real) or min_delta < 0:
            raise ValueError(f"{name}: min_delta must be a float >= 0, got {min_delta!r}")
        self.monitor, self.patience = monitor, patience
        self.mode = ("max" if "acc" in monitor else "min") if mode == "auto" else mode
        self.min_delta = float(min_delta)
        self.baseline = baseline
        self._reset()

    def _reset(self):
        self.wait = 0
        self.best = self.baseline if self.baseline is not None else (-np.inf if self.mode == "max" else np.inf)

    def _improved(self, value):
        if self.mode == "max":
            return value > self.best + self.min_delta
        return value < self.best - self.min_delta

    def on_train_begin(self, run_context):
        self._reset()


class EarlyStopping(_Watch):
    """Stop training when ``monitor`` has not improved for ``patience`` epochs (after the epoch
    where it last did); ``restore_best_weights`` puts back the parameters of the best epoch."""

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto", baseline=None,
                 restore_best_weights=False):
        super().__init__(monitor, patience, mode, min_delta, baseline)
        self.verbose = bool(verbose)
        self.restore_best_weights = bool(restore_best_weights)
        self.stopped_epoch = 0
        self.best_weights = None

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        value = _monitored(cb, self.monitor)
        if value is None:
            return
        if self._improved(value):
            self.best, self.wait = value, 0
            if self.restore_best_weights:
                self.best_weights = {p.name: p.asnumpy().copy() for p in cb.network.get_parameters()}
            return
        self.wait += 1
        if self.wait > self.patience:
            self.stopped_epoch = cb.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights is not None:
                for p in cb.network.get_parameters():
                    if p.name in self.best_weights:
                        p.set_data(self.best_weights[p.name].copy())

    def on_train_end(self, run_context):
        if self.stopped_epoch and self.verbose:
            print(f"Epoch {self.stopped_epoch}: early stopping ({self.monitor} best {self.best:.6g})")


def _lr_parameter(optimizer, owner):
    lr = getattr(optimizer, "learning_rate", None)
    if getattr(optimizer, "dynamic_lr", False) or getattr(optimizer, "is_group_lr", False) or not hasattr(lr, "set_data"):
        raise ValueError(f"{owner}: the optimizer's learning rate must be one fixed value (not a list, schedule "
                         "or per-group rates) to be changed by a callback")
    return lr


class ReduceLROnPlateau(_Watch):
    """Multiply the learning rate by ``factor`` when ``monitor`` has not improved for ``patience``
    epochs (never below ``min_lr``), then wait ``cooldown`` epochs before watching again."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        super().__init__(monitor, patience, mode, min_delta)
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 < factor < 1:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0, 1), got {factor!r}")
        self.factor, self.cooldown, self.min_lr = float(factor), int(cooldown), float(min_lr)
        self.verbose = bool(verbose)
        self.cooldown_counter = 0

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        value = _monitored(cb, self.monitor)
        if value is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(value):
            self.best, self.wait = value, 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait > self.patience:
            lr = _lr_parameter(cb.optimizer, "ReduceLROnPlateau")
            old = float(lr.asnumpy())
            new = max(old * self.factor, self.min_lr)
            if new < old:
                lr.set_data(np.asarray(new, lr.asnumpy().dtype))
                if self.verbose:
                    print(f"Epoch {cb.cur_epoch_num}: reducing the learning rate to {new:.6g}")
            self.cooldown_counter, self.wait = self.cooldown, 0


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
