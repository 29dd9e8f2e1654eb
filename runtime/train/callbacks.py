"""Training callbacks with MindSpore's protocol (``mindspore.train.Callback``).

``Model.train`` calls ``on_train_begin``, ``on_train_epoch_begin``, ``on_train_step_begin``,
``on_train_step_end``, ``on_train_epoch_end``, ``on_train_end`` (which by default call the older
``begin``/``epoch_begin``/``step_begin``/``step_end``/``epoch_end``/``end``), and ``Model.eval``
the ``on_eval_*`` ones, each with a :class:`RunContext` whose ``original_args()`` is the
``cb_params`` namespace (cur_epoch_num, cur_step_num, batch_num, epoch_num, net_outputs,
train_network, ...).

Example:
    >>> from runtime.train import Callback
    >>> class StopAtStep(Callback):
    ...     def __init__(self, step):
    ...         super().__init__()
    ...         self.step = step
    ...     def on_train_step_end(self, run_context):
    ...         if run_context.original_args().cur_step_num >= self.step:
    ...             run_context.request_stop()
"""
from __future__ import annotations

import numbers
import os
import sys
import time
from collections import deque

import numpy as np

from ..parallel import ranks
from .checkpoint import save_checkpoint


class CallbackParams(dict):
    """``cb_params``: a dict whose keys are also attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def __delattr__(self, name):
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None


_InternalCallbackParam = CallbackParams


class RunContext:
    """What callbacks receive: ``original_args()`` (cb_params) and ``request_stop()``."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext: original_args must be a dict, got {type(original_args).__name__}")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        return self._original_args

    def request_stop(self):
        """Stop training after the current step."""
        self._stop_requested = True

    def get_stop_requested(self):
        return self._stop_requested


class Callback:
    """Base class: override any of the hooks. The ``on_train_*`` hooks call the older names."""

    def __enter__(self):
        return self

    def __exit__(self, *err):
        return None

    # MindSpore 1.x names
    def begin(self, run_context):
        pass

    def epoch_begin(self, run_context):
        pass

    def epoch_end(self, run_context):
        pass

    def step_begin(self, run_context):
        pass

    def step_end(self, run_context):
        pass

    def end(self, run_context):
        pass

    # MindSpore 2.x names
    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        pass

    def on_eval_epoch_begin(self, run_context):
        pass

    def on_eval_epoch_end(self, run_context):
        pass

    def on_eval_step_begin(self, run_context):
        pass

    def on_eval_step_end(self, run_context):
        pass

    def on_eval_end(self, run_context):
        pass


_HOOKS = ("begin", "epoch_begin", "epoch_end", "step_begin", "step_end", "end",
          "on_train_begin", "on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
          "on_train_step_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
          "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_end")


class CallbackList(Callback):
    """Several callbacks called in order (``_ListCallback`` in MindSpore)."""

    def __init__(self, callbacks=None):
        self.callbacks = normalize_callbacks(callbacks)

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self):
        return len(self.callbacks)


def _make_dispatch(hook):
    def dispatch(self, run_context):
        for cb in self.callbacks:
            getattr(cb, hook)(run_context)
    dispatch.__name__ = hook
    return dispatch


for _h in _HOOKS:
    setattr(CallbackList, _h, _make_dispatch(_h))


def normalize_callbacks(callbacks):
    if callbacks is None:
        return []
    if isinstance(callbacks, CallbackList):
        return list(callbacks.callbacks)
    if isinstance(callbacks, Callback):
        return [callbacks]
    if isinstance(callbacks, (list, tuple)):
        out = []
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f"callbacks: each element must be a Callback instance, got {type(cb).__name__}")
            out.append(cb)
        return out
    raise TypeError(f"callbacks must be a Callback or a list of Callbacks, got {type(callbacks).__name__}")


# ---------------------------------------------------------------------------------------------
# printing that cooperates with an active progress bar
# ---------------------------------------------------------------------------------------------
_ACTIVE_BARS: list = []


def _print(msg):
    """Print a line of training output (only on rank 0 of a data-parallel job, by default)."""
    if not ranks.logs_here():
        return
    for bar in _ACTIVE_BARS:
        bar._clear_line()
    print(ranks.log_prefix() + msg, flush=True)


def _handle_loss(net_outputs):
    """The loss as a float (first output if a tuple; mean over a non-scalar tensor)."""
    loss = net_outputs
    if isinstance(loss, (tuple, list)) and loss:
        loss = loss[0]
    if hasattr(loss, "asnumpy"):
        loss = float(np.mean(loss.asnumpy()))
    elif isinstance(loss, np.ndarray):
        loss = float(np.mean(loss))
    elif isinstance(loss, (np.floating, np.integer)):
        loss = float(loss)
    return loss


def _check_nonneg_int(v, name, owner):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
        raise ValueError(f"{owner}: {name} must be a non-negative int, got {v!r}")
    return int(v)


# ---------------------------------------------------------------------------------------------
# built-in callbacks
# ---------------------------------------------------------------------------------------------
class LossMonitor(Callback):
    """Print ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (0: never); S counts
    steps within the epoch. In ``Model.fit`` it also prints ``Eval result: epoch E, metrics: {...}``
    after each validation. A NaN or infinite loss stops training with ValueError.
    """

    def __init__(self, per_print_times=1):
        super().__init__()
        self._per_print_times = _check_nonneg_int(per_print_times, "per_print_times", "LossMonitor")
        self._last_print_time = 0

    def on_train_begin(self, run_context):
        self._last_print_time = run_context.original_args().get("cur_step_num", 0) or 0
        super().on_train_begin(run_context)

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        cur_epoch = cb_params.get("cur_epoch_num", 1)
        loss = _handle_loss(cb_params.get("net_outputs"))
        batch_num = cb_params.get("batch_num") or 1
        cur_step = cb_params.cur_step_num
        step_in_epoch = (cur_step - 1) % batch_num + 1
        if isinstance(loss, float) and (np.isnan(loss) or np.isinf(loss)):
            raise ValueError(f"epoch: {cur_epoch} step: {step_in_epoch}: the loss is NaN or Inf ({loss}); "
                             "training cannot continue")
        if self._per_print_times and cur_step <= self._last_print_time:
            while cur_step <= self._last_print_time:
                self._last_print_time -= max(self._per_print_times,
                                             batch_num if cb_params.get("dataset_sink_mode") else 1)
        if self._per_print_times and cur_step - self._last_print_time >= self._per_print_times:
            self._last_print_time = cur_step
            _print("epoch: %s step: %s, loss is %s" % (cur_epoch, step_in_epoch, loss))

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            _print("Eval result: epoch %d, metrics: %s" % (cb_params.cur_epoch_num, metrics))
        super().on_train_epoch_end(run_context)


class TimeMonitor(Callback):
    """Print ``Train epoch time: T ms, per step time: t ms`` after each epoch (and ``Eval ...``
    after an evaluation). ``data_size`` is the steps per epoch when the model cannot tell."""

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, numbers.Integral)
                                      or data_size <= 0):
            raise ValueError(f"TimeMonitor: data_size must be a positive int, got {data_size!r}")
        if not isinstance(data_time, bool):
            raise TypeError(f"TimeMonitor: data_time must be a bool, got {data_time!r}")
        self.data_size = data_size
        self.data_time = data_time
        self.epoch_time = time.time()

    def _end(self, run_context, mode, t0):
        ms = (time.time() - t0) * 1000
        cb_params = run_context.original_args()
        steps = self.data_size
        batch_num = cb_params.get("batch_num")
        if isinstance(batch_num, int) and batch_num > 0:
            steps = batch_num
        if not isinstance(steps, int) or steps < 1:
            raise ValueError(f"TimeMonitor: the step count must be a positive int, got {steps!r}; "
                             "give TimeMonitor(data_size=...)")
        _print("{} epoch time: {:5.3f} ms, per step time: {:5.3f} ms".format(mode, ms, ms / steps))

    def on_train_epoch_begin(self, run_context):
        self.epoch_time = time.time()
        super().on_train_epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self._end(run_context, "Train", self.epoch_time)
        super().on_train_epoch_end(run_context)

    def on_eval_epoch_begin(self, run_context):
        self._eval_time = time.time()

    def on_eval_epoch_end(self, run_context):
        self._end(run_context, "Eval", getattr(self, "_eval_time", time.time()))


class LambdaCallback(Callback):
    """A callback from functions: ``LambdaCallback(on_train_step_end=lambda run_context: ...)``."""

    def __init__(self, **hooks):
        super().__init__()
        for name, fn in hooks.items():
            if name not in _HOOKS:
                raise ValueError(f"LambdaCallback: unknown hook {name!r}; hooks are {list(_HOOKS)}")
            if not callable(fn):
                raise TypeError(f"LambdaCallback: {name} must be callable")
            setattr(self, name, fn)


class History(Callback):
    """Records the loss at the end of each epoch (``history.epoch``, ``history.history``)."""

    def __init__(self):
        super().__init__()
        self.epoch = []
        self.history = {}

    def on_train_begin(self, run_context):
        self.epoch = []
        self.history = {}

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self.epoch.append(cb_params.cur_epoch_num)
        loss = _handle_loss(cb_params.get("net_outputs"))
        if loss is not None:
            self.history.setdefault("net_output", []).append(loss)
        for k, v in (cb_params.get("metrics") or {}).items():
            self.history.setdefault(k, []).append(v)


# ---------------------------------------------------------------------------------------------
# checkpoints
# ---------------------------------------------------------------------------------------------
class CheckpointConfig:
    """When ModelCheckpoint saves and how many files it keeps.

    save_checkpoint_steps: save every N steps; save_checkpoint_seconds: or every N seconds;
    keep_checkpoint_max: keep at most N files (the oldest are deleted);
    keep_checkpoint_per_n_minutes: also keep one file per N minutes; append_info: extra values
    saved with each checkpoint (``"epoch_num"``, ``"step_num"`` and/or a dict).
    per_rank (keyword, an extension): in a data-parallel job every rank saves its own files
    (``{prefix}_rank{r}-...``) instead of rank 0 alone.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, *, per_rank=False, **kwargs):
        owner = "CheckpointConfig"
        if not isinstance(per_rank, bool):
            raise TypeError(f"{owner}: per_rank must be a bool, got {per_rank!r}")
        steps = _check_nonneg_int(save_checkpoint_steps or 0, "save_checkpoint_steps", owner)
        secs = _check_nonneg_int(save_checkpoint_seconds or 0, "save_checkpoint_seconds", owner)
        keep = _check_nonneg_int(keep_checkpoint_max or 0, "keep_checkpoint_max", owner)
        per_min = _check_nonneg_int(keep_checkpoint_per_n_minutes or 0, "keep_checkpoint_per_n_minutes", owner)
        if not steps and not secs:
            raise ValueError(f"{owner}: save_checkpoint_steps and save_checkpoint_seconds cannot both be 0")
        if not keep and not per_min:
            keep = 1
        if enc_key is not None:
            raise ValueError(f"{owner}: encrypted checkpoints (enc_key) are not supported")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = secs
        self._keep_checkpoint_max = keep
        self._keep_checkpoint_per_n_minutes = per_min
        self._integrated_save = integrated_save
        self._async_save = async_save
        self._saved_network = saved_network
        self._append_dict = self._parse_append_info(append_info)
        self._exception_save = exception_save
        self._per_rank = per_rank

    @staticmethod
    def _parse_append_info(info):
        if info is None:
            return {}
        if not isinstance(info, (list, tuple)):
            raise TypeError(f"CheckpointConfig: append_info must be a list, got {type(info).__name__}")
        out = {}
        for item in info:
            if item in ("epoch_num", "step_num"):
                out[item] = 0
            elif isinstance(item, dict):
                for k, v in item.items():
                    if not isinstance(k, str):
                        raise TypeError(f"CheckpointConfig: append_info keys must be strings, got {k!r}")
                    out[k] = v
            else:
                raise ValueError(f"CheckpointConfig: append_info items must be 'epoch_num', 'step_num' or a "
                                 f"dict, got {item!r}")
        return out

    @property
    def save_checkpoint_steps(self):
        return self._save_checkpoint_steps

    @property
    def save_checkpoint_seconds(self):
        return self._save_checkpoint_seconds

    @property
    def keep_checkpoint_max(self):
        return self._keep_checkpoint_max

    @property
    def keep_checkpoint_per_n_minutes(self):
        return self._keep_checkpoint_per_n_minutes

    @property
    def integrated_save(self):
        return self._integrated_save

    @property
    def async_save(self):
        return self._async_save

    @property
    def saved_network(self):
        return self._saved_network

    @property
    def per_rank(self):
        return self._per_rank

    @property
    def append_dict(self):
        return dict(self._append_dict)

    def get_checkpoint_policy(self):
        return {"save_checkpoint_steps": self._save_checkpoint_steps,
                "save_checkpoint_seconds": self._save_checkpoint_seconds,
                "keep_checkpoint_max": self._keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self._keep_checkpoint_per_n_minutes}


def _prefix_in_use(directory, prefix):
    try:
        names = os.listdir(directory)
    except OSError:
        return False
    return any(n.startswith(prefix + "-") and n.endswith(".ckpt") for n in names)


class ModelCheckpoint(Callback):
    """Save ``{prefix}-{epoch}_{step}.ckpt`` into ``directory`` (default: the working directory) as
    ``config`` says, deleting the oldest files beyond ``keep_checkpoint_max``. The last step is
    always saved at the end of training. If files with this prefix already exist in the
    directory, the prefix becomes ``{prefix}_1`` (``_2``...), as in MindSpore.

    In a data-parallel job (several processes) only rank 0 saves, since every replica holds the
    same parameters; with ``CheckpointConfig(per_rank=True)`` every rank saves, its prefix
    suffixed ``_rank{r}``. Either file loads in a single process.
    """

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file name prefix without '/', got {prefix!r}")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got {type(config).__name__}")
        if directory is None:
            directory = os.getcwd()
        if not isinstance(directory, (str, os.PathLike)):
            raise TypeError(f"ModelCheckpoint: directory must be a path, got {type(directory).__name__}")
        self._directory = os.path.abspath(os.fspath(directory))
        self._writes = ranks.world_size() == 1 or ranks.world_rank() == 0 or config.per_rank
        if ranks.world_size() > 1 and config.per_rank:
            prefix = f"{prefix}_rank{ranks.world_rank()}"
        if self._writes:
            os.makedirs(self._directory, exist_ok=True)
        base, i = prefix, 0
        while _prefix_in_use(self._directory, prefix):
            i += 1
            prefix = f"{base}_{i}"
        self._prefix = prefix
        self._config = config
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._saved = deque()
        self._latest_ckpt_file_name = ""

    @property
    def latest_ckpt_file_name(self):
        return self._latest_ckpt_file_name

    def on_train_begin(self, run_context):
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._last_triggered_step = run_context.original_args().get("cur_step_num", 0) or 0
        super().on_train_begin(run_context)

    def step_end(self, run_context):
        self._save_ckpt(run_context.original_args(), force=False)

    def end(self, run_context):
        self._save_ckpt(run_context.original_args(), force=True)

    def _should_save(self, cb_params, force):
        if force:
            return True
        steps = self._config.save_checkpoint_steps
        if steps and cb_params.cur_step_num - self._last_triggered_step >= steps:
            return True
        secs = self._config.save_checkpoint_seconds
        if secs and time.time() - self._last_time >= secs:
            return True
        return False

    def _save_ckpt(self, cb_params, force):
        cur = cb_params.get("cur_step_num", 0)
        if cur == self._last_triggered_step or not cur:
            return
        if not self._should_save(cb_params, force):
            return
        batch_num = cb_params.get("batch_num") or 1
        step_in_epoch = (cur - 1) % batch_num + 1
        name = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.ckpt"
        path = os.path.join(self._directory, name)
        self._last_triggered_step = cur
        self._last_time = time.time()
        if not self._writes:
            return
        network = self._config.saved_network or cb_params.get("train_network") or cb_params.get("network")
        append = self._config.append_dict
        if "epoch_num" in append:
            append["epoch_num"] = int(cb_params.cur_epoch_num)
        if "step_num" in append:
            append["step_num"] = int(cur)
        save_checkpoint(network, path, append_dict=append or None)
        self._latest_ckpt_file_name = path
        cb_params["latest_ckpt_file"] = path
        cb_params["last_save_ckpt_step"] = cur
        self._record(path)

    def _record(self, path):
        if path in self._saved:
            self._saved.remove(path)
        self._saved.append(path)
        per_min = self._config.keep_checkpoint_per_n_minutes
        if per_min and time.time() - self._last_time_for_keep >= per_min * 60:
            # keep this one for good: it is not counted against keep_checkpoint_max
            self._last_time_for_keep = time.time()
            self._saved.pop()
            return
        keep = self._config.keep_checkpoint_max
        while keep and len(self._saved) > keep:
            old = self._saved.popleft()
            try:
                os.remove(old)
            except FileNotFoundError:
                pass


# ---------------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------------
def _fmt_ms(ms):
    return f"{ms:.3g} ms" if ms < 100 else f"{ms:.0f} ms"


def _fmt_secs(s):
    s = int(max(0, s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h:d}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


class ProgressBar(Callback):
    """Training progress on ``stream`` (default stderr).

    On a terminal: one line redrawn in place at most every ``interval`` seconds (epoch, steps,
    step time, ETA, last loss). Elsewhere (logs, CI): one line per ``every_percent`` percent of
    the steps (default 10, so at most ~10 lines per training run). ``Model.train`` adds one
    automatically when stderr is a terminal (set ``RUNTIME_PROGRESS=0`` to disable).

    The step time is the network's own time per step (from step begin to step end, smoothed over
    the recent steps); the ETA uses the wall time per step, data loading included.
    """

    def __init__(self, stream=None, interval=0.2, every_percent=10, width=28):
        super().__init__()
        self.stream = stream
        self.interval = float(interval)
        self.every_percent = float(every_percent)
        self.width = int(width)
        self._tty = False
        self._shown = False
        self._silent = False

    def _out(self):
        return self.stream if self.stream is not None else sys.stderr

    def on_train_begin(self, run_context):
        cb = run_context.original_args()
        out = self._out()
        self._silent = not ranks.logs_here()  # other ranks of a data-parallel job stay quiet
        self._tty = bool(getattr(out, "isatty", lambda: False)()) and not self._silent
        self._total = max(1, int(cb.get("epoch_num", 1) - cb.get("initial_epoch", 0)) * int(cb.get("batch_num") or 1))
        self._start_step = cb.get("cur_step_num", 0) or 0
        self._t0 = time.time()
        self._last_draw = 0.0
        self._next_pct = self.every_percent
        self._shown = False
        self._step_t0 = None
        self._step_ms = None
        if self._tty:
            _ACTIVE_BARS.append(self)

    def on_train_step_begin(self, run_context):
        self._step_t0 = time.perf_counter()
        self._step_n0 = run_context.original_args().get("cur_step_num", 0) or 0

    def _time_step(self, cb):
        if self._step_t0 is None:
            return
        steps = max(1, (cb.get("cur_step_num", 0) or 0) - self._step_n0)  # a sunk epoch is many steps
        ms = (time.perf_counter() - self._step_t0) * 1e3 / steps
        # Smoothed, so one slow step (a compile, a GC pause) does not make the line jump.
        self._step_ms = ms if self._step_ms is None else 0.8 * self._step_ms + 0.2 * ms
        self._step_t0 = None

    def _line(self, cb, done):
        frac = min(1.0, done / self._total)
        elapsed = time.time() - self._t0
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self._total - done) / rate if rate > 0 else 0.0
        loss = _handle_loss(cb.get("net_outputs"))
        loss_s = f" loss {loss:.4f}" if isinstance(loss, float) else ""
        epoch = f"epoch {cb.get('cur_epoch_num', 1)}/{cb.get('epoch_num', 1)}"
        step_s = f" {_fmt_ms(self._step_ms)}/step" if self._step_ms is not None else ""
        return frac, elapsed, rate, eta, step_s + loss_s, epoch

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self._time_step(cb)
        if self._silent:
            return
        done = (cb.get("cur_step_num", 0) or 0) - self._start_step
        now = time.time()
        if self._tty:
            if now - self._last_draw < self.interval and done < self._total:
                return
            self._last_draw = now
            frac, elapsed, rate, eta, loss_s, epoch = self._line(cb, done)
            filled = int(round(frac * self.width))
            bar = "#" * filled + "-" * (self.width - filled)
            out = self._out()
            out.write(f"\r\x1b[K{epoch} [{bar}] {done}/{self._total} {frac * 100:5.1f}% "
                      f"{loss_s.lstrip()} ETA {_fmt_secs(eta)}")
            out.flush()
            self._shown = True
        else:
            pct = done * 100.0 / self._total
            if pct + 1e-9 < self._next_pct:
                return
            while self._next_pct <= pct + 1e-9:
                self._next_pct += self.every_percent
            frac, elapsed, rate, eta, loss_s, epoch = self._line(cb, done)
            out = self._out()
            out.write(f"progress: {pct:5.1f}% ({done}/{self._total} steps, {epoch}) "
                      f"{rate:.1f} step/s elapsed {_fmt_secs(elapsed)} ETA {_fmt_secs(eta)}{loss_s}\n")
            out.flush()

    def _clear_line(self):
        if self._tty and self._shown:
            out = self._out()
            out.write("\r\x1b[K")
            out.flush()
            self._shown = False
            self._last_draw = 0.0  # redraw at the next step

    def on_train_end(self, run_context):
        if self._tty:
            if self._shown:
                self._out().write("\n")
                self._out().flush()
            self._shown = False
            if self in _ACTIVE_BARS:
                _ACTIVE_BARS.remove(self)
