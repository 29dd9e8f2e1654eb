"""Evaluation metrics (host-side, numpy): Metric, Accuracy, MAE, MSE, Loss, TopKCategoricalAccuracy.

Each has ``clear()``, ``update(*inputs)`` and ``eval()``; inputs may be Tensors, numpy arrays or
lists. ``Model(..., metrics={"Accuracy": nn.Accuracy()})`` calls them with ``(logits, labels)``
(``Loss`` takes the loss value).

Example:
    >>> import numpy as np
    >>> from runtime import nn
    >>> acc = nn.Accuracy()
    >>> acc.update(np.array([[0.1, 0.9], [0.8, 0.2]]), np.array([1, 1]))
    >>> acc.eval()
    0.5
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = ["Metric", "Accuracy", "MAE", "MSE", "Loss", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "Precision", "Recall", "Fbeta", "F1", "rearrange_inputs"]


def _to_numpy(x, cls_name):
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (list, tuple, int, float, np.generic)):
        return np.asarray(x)
    raise TypeError(f"{cls_name}: inputs must be Tensors, numpy arrays or lists, got {type(x).__name__}")


def rearrange_inputs(func):
    """Decorator for ``update``: reorder its inputs by the metric's ``indexes`` (set_indexes)."""
    def wrapper(self, *inputs):
        idx = getattr(self, "_indexes", None)
        if idx is not None:
            inputs = [inputs[i] for i in idx]
        return func(self, *inputs)
    wrapper.__name__ = func.__name__
    wrapper.__doc__ = func.__doc__
    return wrapper


class Metric:
    """Base class: ``clear()``, ``update(*inputs)``, ``eval()``; calling it runs all three."""

    def __init__(self):
        self._indexes = None

    @property
    def indexes(self):
        return self._indexes

    def set_indexes(self, indexes):
        """Choose which of the network's outputs ``update`` receives (e.g. [0, 2])."""
        if not isinstance(indexes, (list, tuple)) or not all(isinstance(i, int) for i in indexes):
            raise TypeError(f"{type(self).__name__}.set_indexes: indexes must be a list of ints, got {indexes!r}")
        self._indexes = list(indexes)
        return self

    def _convert_data(self, data):
        return _to_numpy(data, type(self).__name__)

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()


def _need(cls_name, inputs, n):
    if len(inputs) != n:
        raise ValueError(f"{cls_name}.update: needs {n} inputs, got {len(inputs)}")


class Accuracy(Metric):
    """Fraction of correct predictions.

    ``eval_type='classification'``: y_pred (N, C) scores, y class indices (N,) or one-hot (N, C).
    ``eval_type='multilabel'``: y_pred rounded to 0/1 must equal y (N, C) in every column.
    """

    def __init__(self, eval_type="classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type must be 'classification' or 'multilabel', got {eval_type!r}")
        self.eval_type = eval_type
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        _need("Accuracy", inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self.eval_type == "classification":
            if y_pred.ndim < 1:
                raise ValueError(f"Accuracy: y_pred must have a class axis, got shape {y_pred.shape}")
            if y.ndim == y_pred.ndim and y.shape == y_pred.shape and y_pred.ndim > 1:
                y = y.argmax(axis=-1)  # one-hot labels
            if y_pred.ndim == y.ndim + 1:
                if self._class_num == 0:
                    self._class_num = y_pred.shape[-1]
                elif y_pred.shape[-1] != self._class_num:
                    raise ValueError(f"Accuracy: class number changed from {self._class_num} to "
                                     f"{y_pred.shape[-1]}")
                indices = y_pred.argmax(axis=-1)
            elif y_pred.shape == y.shape:
                indices = y_pred  # already class indices
            else:
                raise ValueError(f"Accuracy: y_pred shape {y_pred.shape} and y shape {y.shape} do not match "
                                 "(expected y_pred (N, C) with y (N,) or (N, C))")
            result = (np.equal(indices, y) * 1).reshape(-1)
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"Accuracy(multilabel): y_pred shape {y_pred.shape} != y shape {y.shape}")
            y_pred = y_pred.round()
            result = np.all(np.equal(y_pred, y), axis=tuple(range(1, y.ndim))).reshape(-1) * 1
        self._correct_num += int(result.sum())
        self._total_num += int(result.shape[0])

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("Accuracy: cannot be calculated because the number of samples is 0; "
                               "call update() first")
        return self._correct_num / self._total_num


class _ErrorMetric(Metric):
    """MindSpore's MAE/MSE: the error summed over every element of every update, divided by the
    number of samples (the first dimension of each ``y``), so a sample of k values contributes its
    summed, not its mean, error."""

    _name = "Error"

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        _need(self._name, inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y.shape != y_pred.shape:
            try:
                y = y.reshape(y_pred.shape)
            except ValueError:
                raise ValueError(f"{self._name}: y_pred shape {y_pred.shape} and y shape {y.shape} differ") from None
        # in the inputs' own dtype, as MindSpore computes it (float32 inputs: a float32 sum)
        self._error_sum += float(self._error(y - y_pred).sum())
        self._samples_num += y.shape[0] if y.ndim else 1

    def eval(self):
        """The summed error divided by the number of samples (a numpy.float64)."""
        if self._samples_num == 0:
            raise RuntimeError(f"{self._name}: the number of samples is 0; call update() first")
        return np.float64(self._error_sum / self._samples_num)


class MAE(_ErrorMetric):
    """Mean absolute error over samples: ``sum(|y_pred - y|) / N`` with N the batch size.

    Example (MindSpore's):
        >>> import numpy as np, runtime as ms
        >>> from runtime import Tensor, nn
        >>> error = nn.MAE()
        >>> error.update(Tensor(np.array([0.1, 0.2, 0.6, 0.9]), ms.float32),
        ...              Tensor(np.array([0.1, 0.25, 0.7, 0.9]), ms.float32))
        >>> print(error.eval())
        0.037499990314245224
    """

    _name = "MAE"

    @staticmethod
    def _error(d):
        return np.abs(d)


class MSE(_ErrorMetric):
    """Mean squared error over samples: ``sum((y_pred - y) ** 2) / N`` with N the batch size.

    Example (MindSpore's):
        >>> import numpy as np, runtime as ms
        >>> from runtime import Tensor, nn
        >>> error = nn.MSE()
        >>> error.update(Tensor(np.array([0.1, 0.2, 0.6, 0.9]), ms.float32),
        ...              Tensor(np.array([0.1, 0.25, 0.5, 0.9]), ms.float32))
        >>> print(error.eval())
        0.0031250009778887033
    """

    _name = "MSE"

    @staticmethod
    def _error(d):
        return np.power(d, 2)


class Loss(Metric):
    """Average of the loss values passed to ``update(loss)``."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        if len(inputs) != 1:
            raise ValueError(f"Loss.update: needs 1 input (the loss), got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 1 and loss.size == 1:
            loss = loss.reshape(())
        if loss.ndim != 0:
            raise ValueError(f"Loss.update: the loss must be a scalar, got shape {loss.shape}")
        self._sum_loss += float(loss)
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise RuntimeError("Loss: the number of samples is 0; call update() first")
        return self._sum_loss / self._total_num


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the top ``k`` scores."""

    def __init__(self, k):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"TopKCategoricalAccuracy: k must be an int >= 1, got {k!r}")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        _need("TopKCategoricalAccuracy", inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y.ndim == y_pred.ndim and y.shape == y_pred.shape:
            y = y.argmax(axis=1)
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += y.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise RuntimeError("TopKCategoricalAccuracy: the number of samples is 0; call update() first")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """Fraction of samples whose label has the highest score."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """Fraction of samples whose label is among the five highest scores."""

    def __init__(self):
        super().__init__(5)


class _ClassCounts(Metric):
    """Per-class true positives, predicted positives and actual positives (MindSpore's
    ``eval_type``: 'classification' takes the argmax of scores (N, C) against indices (N,) or one-hot
    labels; 'multilabel' rounds y_pred (N, C) against 0/1 labels)."""

    def __init__(self, eval_type="classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"{type(self).__name__}: eval_type must be 'classification' or 'multilabel', "
                             f"got {eval_type!r}")
        self.eval_type = eval_type
        self.clear()

    def clear(self):
        self._class_num = 0
        self._true_positives = self._predicted = self._actual = 0

    @rearrange_inputs
    def update(self, *inputs):
        name = type(self).__name__
        _need(name, inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self.eval_type == "classification":
            if y_pred.ndim != 2:
                raise ValueError(f"{name}: y_pred must be (N, C) scores, got shape {y_pred.shape}")
            c = y_pred.shape[1]
            if y.shape == y_pred.shape:
                y = y.argmax(axis=1)
            if y.shape != y_pred.shape[:1]:
                raise ValueError(f"{name}: y shape {y.shape} does not match y_pred shape {y_pred.shape}")
            if y.size and (y.min() < 0 or y.max() >= c):
                raise ValueError(f"{name}: labels must be in [0, {c}), got values in [{y.min()}, {y.max()}]")
            pred = np.eye(c, dtype=np.int64)[y_pred.argmax(axis=1)]
            true = np.eye(c, dtype=np.int64)[y.astype(np.int64)]
        else:
            if y_pred.shape != y.shape:
                raise ValueError(f"{name}: y_pred shape {y_pred.shape} != y shape {y.shape}")
            pred, true = y_pred.round().astype(np.int64), y.astype(np.int64)
            c = y.shape[-1]
        if self._class_num and c != self._class_num:
            raise ValueError(f"{name}: class number changed from {self._class_num} to {c}")
        self._class_num = c
        self._true_positives = self._true_positives + (pred * true).sum(axis=0)
        self._predicted = self._predicted + pred.sum(axis=0)
        self._actual = self._actual + true.sum(axis=0)

    def _per_class(self, values, average):
        """Per-class ``values`` (an array), or their mean with ``average``."""
        if not self._class_num:
            raise RuntimeError(f"{type(self).__name__}: the number of samples is 0; call update() first")
        return float(values.mean()) if average else values

    @staticmethod
    def _ratio(num, den):
        num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
        return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


class Precision(_ClassCounts):
    """Per-class precision TP / (TP + FP) (0 where nothing was predicted); ``eval(average=True)``
    gives their mean."""

    def eval(self, average=False):
        return self._per_class(self._ratio(self._true_positives, self._predicted), average)


class Recall(_ClassCounts):
    """Per-class recall TP / (TP + FN) (0 for classes absent from the labels); ``eval(average=True)``
    gives their mean."""

    def eval(self, average=False):
        return self._per_class(self._ratio(self._true_positives, self._actual), average)


class Fbeta(_ClassCounts):
    """Per-class F-beta: (1 + beta^2) P R / (beta^2 P + R), from the same counts as Precision and
    Recall (classification inputs)."""

    def __init__(self, beta):
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"Fbeta: beta must be a float > 0, got {beta!r}")
        self.beta = float(beta)
        super().__init__("classification")

    def eval(self, average=False):
        p = self._ratio(self._true_positives, self._predicted)
        r = self._ratio(self._true_positives, self._actual)
        b2 = self.beta ** 2
        return self._per_class(self._ratio((1 + b2) * p * r, b2 * p + r), average)


class F1(Fbeta):
    """Fbeta with beta = 1."""

    def __init__(self):
        super().__init__(1.0)
