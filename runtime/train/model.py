"""``Model``: the high-level train / eval / predict loop (``mindspore.train.Model``).

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime import nn
    >>> from runtime.data import NumpySlicesDataset
    >>> x = np.random.default_rng(0).normal(size=(64, 4)).astype(np.float32)
    >>> y = (x[:, 0] > 0).astype(np.int32)
    >>> ds = NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(16)
    >>> net = nn.Dense(4, 2)
    >>> model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
    ...                  nn.SGD(net.trainable_params(), 0.5), metrics={"Accuracy": nn.Accuracy()})
    >>> model.train(3, ds)
    >>> 0.0 <= model.eval(ds)["Accuracy"] <= 1.0
    True
"""
from __future__ import annotations

import numbers
import sys

from graph import config as settings
from ..parallel import ranks
from ..parallel.context import get_auto_parallel_context
from .callbacks import (CallbackList, CallbackParams, LossMonitor, ProgressBar, RunContext, _ACTIVE_BARS,
                        _print, normalize_callbacks)

_AMP_LEVELS = ("O0", "O1", "O2", "O3", "auto")
_METRIC_NAMES = {
    "accuracy": "Accuracy", "acc": "Accuracy", "mae": "MAE", "mse": "MSE", "loss": "Loss",
    "top_k_categorical_accuracy": "TopKCategoricalAccuracy", "top_1_accuracy": "Top1CategoricalAccuracy",
    "top_5_accuracy": "Top5CategoricalAccuracy", "precision": "Precision", "recall": "Recall", "f1": "F1",
}


def _is_dataset(ds):
    from ..data.dataset import Dataset
    return isinstance(ds, Dataset)


def _check_positive_int(v, name, owner):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v <= 0:
        raise ValueError(f"{owner}: {name} must be a positive int, got {v!r}")
    return int(v)


class Model:
    """Wraps a network with its loss and optimizer for training and evaluation.

    network: the Cell (outputs logits); loss_fn: a loss Cell (None if the network computes its
    loss itself); optimizer: an nn.Optimizer (needed for ``train``/``fit``); metrics: a dict name
    -> metric (``{"Accuracy": nn.Accuracy()}``) or a set of metric names (``{"accuracy"}``);
    eval_network: a Cell returning ``(loss, outputs, label)`` (see ``eval_indexes``).
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        from ..nn.cell import Cell
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        if loss_fn is not None and not callable(loss_fn):
            raise TypeError(f"Model: loss_fn must be a loss Cell, got {type(loss_fn).__name__}")
        if eval_network is not None and not isinstance(eval_network, Cell):
            raise TypeError(f"Model: eval_network must be a Cell, got {type(eval_network).__name__}")
        if amp_level not in _AMP_LEVELS:
            raise ValueError(f"Model: amp_level must be one of {list(_AMP_LEVELS)}, got {amp_level!r}")
        unknown = set(kwargs) - {"loss_scale_manager", "keep_batchnorm_fp32"}
        if unknown:
            raise ValueError(f"Model: unsupported argument(s) {sorted(unknown)}; valid: "
                             "loss_scale_manager, keep_batchnorm_fp32")
        if eval_indexes is not None:
            if not (isinstance(eval_indexes, (list, tuple)) and len(eval_indexes) == 3
                    and all(isinstance(i, int) for i in eval_indexes)):
                raise ValueError(f"Model: eval_indexes must be a list of 3 ints (loss, outputs, label), "
                                 f"got {eval_indexes!r}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._amp_config = dict(kwargs)  # loss_scale_manager / keep_batchnorm_fp32 override the level
        self._metric_fns = self._build_metrics(metrics)
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network, eval_indexes)
        self._current_epoch_num = 0
        self._current_step_num = 0

    # -- construction -----------------------------------------------------------------------------
    @staticmethod
    def _build_metrics(metrics):
        if metrics is None:
            return {}
        from .. import nn
        if isinstance(metrics, dict):
            out = {}
            for name, m in metrics.items():
                if not isinstance(name, str):
                    raise TypeError(f"Model: metric names must be strings, got {name!r}")
                if not (hasattr(m, "clear") and hasattr(m, "update") and hasattr(m, "eval")):
                    raise TypeError(f"Model: metric {name!r} must have clear/update/eval (an nn.Metric), "
                                    f"got {type(m).__name__}")
                out[name] = m
            return out
        if isinstance(metrics, (set, list, tuple)):
            out = {}
            for name in metrics:
                if not isinstance(name, str):
                    raise TypeError(f"Model: metric names must be strings, got {name!r}")
                cls_name = _METRIC_NAMES.get(name.lower())
                cls = getattr(nn, cls_name, None) if cls_name else None
                if cls is None:
                    known = sorted(k for k, v in _METRIC_NAMES.items() if hasattr(nn, v))
                    raise ValueError(f"Model: unknown metric name {name!r}; known names: {known}")
                out[name] = cls()
            return out
        raise TypeError(f"Model: metrics must be a dict name -> metric or a set of names, got {type(metrics).__name__}")

    def _build_train_network(self):
        if self._optimizer is None:
            return None
        from .. import amp, nn
        if self._amp_level == "O0" and not self._amp_config:
            net = self._network
            if self._loss_fn is not None:
                net = nn.WithLossCell(net, self._loss_fn)
            return nn.TrainOneStepCell(net, self._optimizer)
        # mixed precision (the network is cast in place, as MindSpore's Model does) and loss scaling
        return amp.build_train_network(self._network, self._optimizer, self._loss_fn, level=self._amp_level,
                                       **self._amp_config)

    def _build_eval_network(self, eval_network, eval_indexes):
        if eval_network is not None:
            return eval_network, eval_indexes
        if self._loss_fn is not None:
            from .. import nn
            cast_fp32 = self._amp_level in ("O2", "O3", "auto")
            return nn.WithEvalCell(self._network, self._loss_fn, cast_fp32), [0, 1, 2]
        return None, None

    # -- properties (MindSpore's names) ----------------------------------------------------------------
    @property
    def train_network(self):
        return self._train_network

    @property
    def predict_network(self):
        return self._network

    @property
    def eval_network(self):
        return self._eval_network

    # -- training ------------------------------------------------------------------------------------
    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train for ``epoch`` epochs over ``train_dataset`` (rows are the network inputs followed by
        the label). ``callbacks``: a Callback or a list. In sink mode the step callbacks run once
        per epoch (or per ``sink_size`` steps), as on a device."""
        self._check_train_args(epoch, train_dataset, sink_size, initial_epoch)
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, None)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode=False, valid_dataset_sink_mode=False, sink_size=-1, initial_epoch=0):
        """Train, evaluating on ``valid_dataset`` every ``valid_frequency`` epochs (an int, or a list
        of epoch numbers); prints ``Eval result: epoch E, metrics: {...}`` after each evaluation."""
        self._check_train_args(epoch, train_dataset, sink_size, initial_epoch)
        if valid_dataset is not None:
            if not _is_dataset(valid_dataset):
                raise TypeError(f"Model.fit: valid_dataset must be a Dataset, got {type(valid_dataset).__name__}")
            if not self._metric_fns:
                raise ValueError("Model.fit: validation needs metrics, e.g. Model(..., metrics={'Accuracy': nn.Accuracy()})")
            if isinstance(valid_frequency, bool) or not (
                    (isinstance(valid_frequency, int) and valid_frequency > 0)
                    or (isinstance(valid_frequency, list) and all(isinstance(v, int) for v in valid_frequency))):
                raise ValueError(f"Model.fit: valid_frequency must be a positive int or a list of epoch numbers, "
                                 f"got {valid_frequency!r}")
        valid_infos = (valid_dataset, valid_frequency, valid_dataset_sink_mode)
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, valid_infos)

    def _check_train_args(self, epoch, train_dataset, sink_size, initial_epoch):
        _check_positive_int(epoch, "epoch", "Model.train")
        if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, int) or not 0 <= initial_epoch < epoch:
            raise ValueError(f"Model.train: initial_epoch must be an int in [0, epoch), got {initial_epoch!r}")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int) or (sink_size <= 0 and sink_size != -1):
            raise ValueError(f"Model.train: sink_size must be -1 or a positive int, got {sink_size!r}")
        if not _is_dataset(train_dataset):
            raise TypeError(f"Model.train: train_dataset must be a Dataset (runtime.data), got "
                            f"{type(train_dataset).__name__}")
        if self._train_network is None:
            raise ValueError("Model.train: the Model has no optimizer; build it as Model(network, loss_fn, optimizer)")

    @staticmethod
    def _should_eval(epoch, valid_frequency):
        if isinstance(valid_frequency, int):
            return epoch % valid_frequency == 0
        return epoch in valid_frequency

    def _train(self, epoch, train_dataset, callbacks, sink_mode, sink_size, initial_epoch, valid_infos):
        cbs = normalize_callbacks(callbacks)
        if (not any(isinstance(c, ProgressBar) for c in cbs) and settings.get("RUNTIME_PROGRESS")
                and getattr(sys.stderr, "isatty", lambda: False)()):
            cbs.append(ProgressBar())
        print_eval = valid_infos is not None and valid_infos[0] is not None and not any(
            isinstance(c, LossMonitor) for c in cbs)
        cb_list = CallbackList(cbs)
        dataset_size = train_dataset.get_dataset_size()
        if dataset_size == 0:
            raise ValueError("Model.train: the training dataset is empty (get_dataset_size() == 0)")
        steps_per_epoch = sink_size if (sink_mode and sink_size > 0) else dataset_size
        cb_params = CallbackParams(
            train_network=self._train_network, network=self._network, loss_fn=self._loss_fn,
            optimizer=self._optimizer, parallel_mode=get_auto_parallel_context("parallel_mode"),
            device_number=ranks.world_size(),
            train_dataset=train_dataset, list_callback=cb_list, mode="train",
            epoch_num=epoch, initial_epoch=initial_epoch, batch_num=steps_per_epoch,
            dataset_sink_mode=bool(sink_mode), cur_epoch_num=initial_epoch,
            cur_step_num=initial_epoch * steps_per_epoch, net_outputs=None,
            last_save_ckpt_step=None, latest_ckpt_file=None, train_dataset_element=None)
        run_context = RunContext(cb_params)
        continuous = sink_mode and sink_size > 0
        iterator = train_dataset.create_tuple_iterator(num_epochs=-1 if continuous else epoch - initial_epoch)
        self._network.set_train(True)
        self._train_network.set_train(True)
        try:
            cb_list.on_train_begin(run_context)
            for i in range(initial_epoch, epoch):
                cb_params.cur_epoch_num = i + 1
                self._current_epoch_num = i + 1
                self._network.set_train(True)
                self._train_network.set_train(True)
                cb_list.on_train_epoch_begin(run_context)
                if sink_mode:
                    self._run_sunk_epoch(iterator, steps_per_epoch, continuous, cb_list, run_context)
                else:
                    self._run_epoch(iterator, cb_list, run_context)
                if valid_infos is not None:
                    self._eval_during_train(valid_infos, cb_params, cb_list, print_eval)
                cb_list.on_train_epoch_end(run_context)
                cb_params.pop("metrics", None)
                cb_params.pop("eval_results", None)
                if run_context.get_stop_requested():
                    break
            cb_list.on_train_end(run_context)
        finally:
            iterator.stop()
            for c in cbs:
                if isinstance(c, ProgressBar) and c in _ACTIVE_BARS:
                    _ACTIVE_BARS.remove(c)

    def _run_epoch(self, iterator, cb_list, run_context):
        cb_params = run_context.original_args()
        for data in iterator:
            cb_params.train_dataset_element = data
            cb_list.on_train_step_begin(run_context)
            outputs = self._train_network(*data)
            cb_params.cur_step_num += 1
            self._current_step_num = cb_params.cur_step_num
            cb_params.net_outputs = outputs
            cb_list.on_train_step_end(run_context)
            if run_context.get_stop_requested():
                iterator.stop()
                break

    def _run_sunk_epoch(self, iterator, steps, continuous, cb_list, run_context):
        """Sink mode: the steps of one sink run without per-step callbacks (as on a device)."""
        cb_params = run_context.original_args()
        cb_list.on_train_step_begin(run_context)
        outputs, done = None, 0
        if continuous:
            while done < steps:
                try:
                    data = next(iterator)
                except StopIteration:
                    continue  # the next pass over the dataset
                cb_params.train_dataset_element = data
                outputs = self._train_network(*data)
                done += 1
        else:
            for data in iterator:
                cb_params.train_dataset_element = data
                outputs = self._train_network(*data)
                done += 1
        cb_params.cur_step_num += done
        self._current_step_num = cb_params.cur_step_num
        cb_params.net_outputs = outputs
        cb_list.on_train_step_end(run_context)

    def _eval_during_train(self, valid_infos, cb_params, cb_list, print_eval):
        valid_dataset, valid_frequency, _ = valid_infos
        if valid_dataset is None or not self._should_eval(cb_params.cur_epoch_num, valid_frequency):
            return
        result = self._eval(valid_dataset, cb_list)
        cb_params.metrics = result
        cb_params.eval_results = result
        if print_eval:
            _print("Eval result: epoch %d, metrics: %s" % (cb_params.cur_epoch_num, result))
        self._network.set_train(True)
        self._train_network.set_train(True)

    # -- evaluation --------------------------------------------------------------------------------
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """Evaluate the metrics over ``valid_dataset``; returns ``{name: value}``."""
        if not _is_dataset(valid_dataset):
            raise TypeError(f"Model.eval: valid_dataset must be a Dataset, got {type(valid_dataset).__name__}")
        if not self._metric_fns:
            raise ValueError("Model.eval: the Model has no metrics; build it with metrics={'Accuracy': nn.Accuracy()}")
        return self._eval(valid_dataset, CallbackList(normalize_callbacks(callbacks)))

    def _eval(self, valid_dataset, cb_list):
        net = self._eval_network if self._eval_network is not None else self._network
        net.set_train(False)
        self._network.set_train(False)
        for m in self._metric_fns.values():
            m.clear()
        cb_params = CallbackParams(
            eval_network=net, network=self._network, valid_dataset=valid_dataset, mode="eval",
            batch_num=valid_dataset.get_dataset_size(), epoch_num=1, cur_epoch_num=1, cur_step_num=0,
            dataset_sink_mode=False, net_outputs=None, list_callback=cb_list, metrics=None)
        run_context = RunContext(cb_params)
        cb_list.on_eval_begin(run_context)
        cb_list.on_eval_epoch_begin(run_context)
        for data in valid_dataset.create_tuple_iterator(num_epochs=1):
            cb_list.on_eval_step_begin(run_context)
            if self._eval_network is not None:
                outputs = net(*data)
            else:
                outputs = (net(*data[:-1]), data[-1])
            cb_params.cur_step_num += 1
            cb_params.net_outputs = outputs
            self._update_metrics(outputs)
            cb_list.on_eval_step_end(run_context)
            if run_context.get_stop_requested():
                break
        result = {name: m.eval() for name, m in self._metric_fns.items()}
        cb_params.metrics = result
        cb_list.on_eval_epoch_end(run_context)
        cb_list.on_eval_end(run_context)
        return result

    def _update_metrics(self, outputs):
        from ..tensor import Tensor
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, (tuple, list)):
            raise TypeError(f"Model.eval: the eval network must return Tensors, got {type(outputs).__name__}")
        idx = self._eval_indexes if self._eval_network is not None else None
        if idx is not None and len(outputs) < 3:
            raise ValueError(f"Model.eval: eval_indexes {idx} needs the eval network to return 3 outputs "
                             f"(loss, outputs, label), got {len(outputs)}")
        for m in self._metric_fns.values():
            if idx is None:
                if type(m).__name__ == "Loss":
                    raise ValueError("Model.eval: the Loss metric needs a loss_fn (or an eval_network with eval_indexes)")
                m.update(*outputs)
            elif type(m).__name__ == "Loss":
                m.update(outputs[idx[0]])
            else:
                m.update(outputs[idx[1]], outputs[idx[2]])

    # -- prediction --------------------------------------------------------------------------------
    def predict(self, *predict_data, backend=None, config=None):
        """Run the network in inference mode (``set_train(False)``) on the given inputs."""
        self._network.set_train(False)
        return self._network(*predict_data)

    def infer_predict_layout(self, *predict_data):  # pragma: no cover - no parallel layouts here
        return {}
